"""Scoring: one formula in words, or a payout table of who scores what and when, read from the
score assignments of the spec's round scoring (with the procedures it calls written out); and a
worked example from a simulated round, given by the caller."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .. import ast as A
from ..fold import UNKNOWN
from ..zones import PER_PLAYER, kind_of
from .document import Para, Section, Table
from .speaker import Speaker, sentence

__all__ = ["RoundExample", "PlayerRound", "scoring_section", "payouts", "score_zones"]


@dataclass
class PlayerRound:
    """One player at the end of a simulated round: the cards of each per-player zone the scoring
    reads (zone label -> [(card, points or "")]), the hand's category when a ranking scores it,
    and the round's score the engine gave."""
    name: str
    zones: dict[str, list[tuple[str, Any]]]
    score: Any
    category: str = ""


@dataclass
class RoundExample:
    seed: int
    players: int
    options: dict[str, Any]
    round: int
    seats: list[PlayerRound] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)  # the spec's round report: name -> value


@dataclass
class Payout:
    when: list[str]
    who: str
    points: str


def _assigned(block: A.Block) -> dict[str, Any]:
    """Per-player variables the scoring sets (``p.bonus = ...``): name -> value."""
    out: dict[str, Any] = {}
    for node in A.walk(block):
        if isinstance(node, A.Assign) and isinstance(node.target, A.Attr) and node.target.name != "score" \
                and node.op == "=":
            out[node.target.name] = node.value
    return out


_NEGATE = {"==": "!=", "!=": "==", "in": "notin", "notin": "in", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def negate(node: Any) -> Any:
    if isinstance(node, A.BinOp) and node.op in _NEGATE:
        return A.BinOp(node.span, _NEGATE[node.op], node.left, node.right)
    if isinstance(node, A.Unary) and node.op == "not":
        return node.operand
    return A.Unary(node.span, "not", node)


def payouts(sp: Speaker) -> list[Payout]:
    """Every score assignment of the scoring, with the conditions on the way to it (an if
    statement's `about:` is its condition in words); rows whose conditions contradict are left out."""
    out: list[Payout] = []
    players = list(sp.model.players)

    def cond_text(node: Any) -> str:
        node = _simplified(sp, node)
        if isinstance(node, A.BinOp) and isinstance(node.left, A.Name) and node.left.id == "num_players" \
                and isinstance(node.right, A.Const):
            n = node.right.value
            if node.op == "==":
                return f"with {n} players"
            if node.op == "!=" and len(players) == 2:
                return f"with {[c for c in players if c != n][0]} players"
        return sp.expr(node)

    def walk(block: A.Block, when: list[str], depth: int = 0) -> None:
        if depth > 6:
            return
        for s in block.stmts:
            if isinstance(s, A.If):
                value = sp.known(s.cond)
                if value is not UNKNOWN:
                    walk(s.then if value else s.orelse, when, depth)
                    continue
                about = sp.stmt_about(s)
                cond = _simplified(sp, s.cond)
                parts = _conjuncts(cond)
                yes = [about] if about else [cond_text(c) for c in parts]
                no = "otherwise" if about else cond_text(negate(cond))
                contradicts = not about and any(cond_text(negate(c)) in when for c in parts)
                if no in when or contradicts:  # the case is already decided
                    if not contradicts:
                        walk(s.orelse, when, depth)
                    elif s.orelse.stmts:
                        walk(s.orelse, when, depth)
                    continue
                walk(s.then, when + [y for y in yes if y not in when], depth)
                if s.orelse.stmts:
                    walk(s.orelse, when + [no], depth)
            elif isinstance(s, A.For):
                names = {b.var: _one_of(sp.expr(b.iter)) for b in s.bindings.items}
                with sp.aliased(names):
                    walk(s.body, when, depth)
            elif isinstance(s, A.CallProc) and isinstance(s.target, A.Name) and s.target.id in sp.procs:
                proc = sp.procs[s.target.id]
                args = [sp.expr(a, 9) for a in s.args]
                with sp.aliased(dict(sp.aliases[-1] if sp.aliases else {}, **dict(zip(proc.params, args)))):
                    walk(proc.body, when, depth + 1)
            elif isinstance(s, A.Let):
                if sp.aliases:
                    first = isinstance(s.value, A.Call) and s.value.func == "first"
                    sp.aliases[-1][s.name] = "that player" if first else sp.expr(s.value)
            elif isinstance(s, A.Assign) and isinstance(s.target, A.Attr) and s.target.name == "score":
                value = s.value
                if isinstance(value, A.Call) and value.func == "max" and len(value.args) == 2 and \
                        isinstance(value.args[0], A.Attr) and value.args[0].name == "score":
                    value = value.args[1]
                out.append(Payout(_possible(sp, when), sp.expr(s.target.obj), sp.expr(value)))

    with sp.scope(()), sp.aliased({}):
        walk(sp.model.round.scoring, [])
    return out


def _possible(sp: Speaker, when: list[str]) -> list[str]:
    """The conditions without "there is no X" where, with the player count the row names, only an
    action never offered with that many players sets X (with 2 players nobody can declare)."""
    counts = [int(w.split()[1]) for w in when if re.fullmatch(r"with \d+ players", w)]
    if not counts:
        return list(when)
    never: set[str] = set()
    for var in sp.model.variables:
        about = sp.about(f"variable:{var.name}") or ""
        if not about.startswith("the "):
            continue
        setters = [a for a in sp.model.actions if any(
            isinstance(n, A.Assign) and isinstance(n.target, A.Name) and n.target.id == var.name
            for n in A.walk(a.body))]
        elsewhere = any(isinstance(n, A.Assign) and isinstance(n.target, A.Name) and n.target.id == var.name
                        for root in [p.body for p in sp.model.procedures] + [ph.turn for ph in sp.model.round.phases]
                        + [sp.model.round.setup, sp.model.match.setup] for n in A.walk(root))
        if not setters or elsewhere:
            continue
        with sp.playing(counts[0]):
            if all(a.cond is not None and sp.known(a.cond) is False for a in setters):
                never.add(f"there is no {about[4:]}")
    return [w for w in when if w not in never]


def _one_of(text: str) -> str:
    """A loop over a group, as one of its members: "the best score" -> "the player with the best score"."""
    return f"each player with {text}" if text.startswith("the ") else f"each of {text}"


def _conjuncts(node: Any) -> list[Any]:
    if isinstance(node, A.BinOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _simplified(sp: Speaker, node: Any) -> Any:
    if isinstance(node, A.BinOp) and node.op == "and":
        if sp.known(node.left) is True:
            return _simplified(sp, node.right)
        if sp.known(node.right) is True:
            return _simplified(sp, node.left)
    return node


def payout_rows(rows: list[Payout]) -> list[list[str]]:
    """One row per case: the case, then who is paid what."""
    merged: dict[tuple[str, ...], list[str]] = {}
    for r in rows:
        when = sorted(r.when, key=lambda w: not w.startswith("with "))  # the player count first
        merged.setdefault(tuple(when), []).append(f"{r.who}: {r.points}")
    return [[_and(list(w)) if w else "Always", "; ".join(p)] for w, p in merged.items()]


def _and(parts: list[str]) -> str:
    """Conditions as one plain sentence: "With 4 players, there is a dealer and ..."."""
    head = ""
    if parts and parts[0].startswith("with "):
        head, parts = parts[0] + (", " if len(parts) > 1 else ""), parts[1:]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1] if parts else ""
    return sentence(head + text).rstrip(".")


def _terms(node: Any, sign: str) -> list[tuple[str, Any]]:
    """A sum as its signed terms: a + b - c -> [(+, a), (+, b), (-, c)]."""
    if isinstance(node, A.BinOp) and node.op in ("+", "-"):
        right = "-" if (node.op == "-") != (sign == "-") else "+"
        return _terms(node.left, sign) + _terms(node.right, right)
    return [(sign, node)]


def formula(sp: Speaker, node: Any, assigned: dict[str, Any]) -> str:
    if isinstance(node, A.Call) and node.func == "max" and len(node.args) == 2 and \
            isinstance(node.args[0], A.Const) and node.args[0].value == 0:
        return f"{formula(sp, node.args[1], assigned)}; a round score is never below 0"
    if isinstance(node, A.BinOp) and node.op in ("+", "-"):
        word = " plus " if node.op == "+" else " minus "
        return formula(sp, node.left, assigned) + word + formula(sp, node.right, assigned)
    if isinstance(node, A.Attr) and node.name in assigned:
        return f"the {node.name}: {sp.expr(assigned[node.name])}"
    if isinstance(node, A.Call) and node.func in sp.defines:
        d = sp.defines[node.func]
        args = [sp.expr(a, 9) for a in node.args]
        with sp.aliased(dict(zip(d.params, args))):
            return sp.expr(d.body)
    return sp.expr(node)


def score_zones(sp: Speaker) -> list[str]:
    """The per-player zones the scoring reads, in the order it reads them (defines written out)."""
    out: list[str] = []
    seen: set[int] = set()

    def visit(node: Any) -> None:
        for n in A.walk(node):
            if id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n, A.Call) and n.func in sp.zones and n.func not in out and \
                    kind_of(sp.zones[n.func]) is PER_PLAYER:
                out.append(n.func)
            if isinstance(n, A.Call) and n.func in sp.defines:
                visit(sp.defines[n.func].body)
            if isinstance(n, A.CallProc) and isinstance(n.target, A.Name) and n.target.id in sp.procs:
                visit(sp.procs[n.target.id].body)

    for node in A.walk(sp.model.round.scoring):  # the score's own terms first, in their order
        if isinstance(node, A.Assign) and isinstance(node.target, A.Attr) and node.target.name == "score":
            visit(node.value)
    visit(sp.model.round.scoring)
    return out


def scoring_section(sp: Speaker, example: RoundExample | None) -> Section:
    section = Section("Scoring", anchor="scoring")
    rows = payouts(sp)
    if not rows:
        return section
    assigned = _assigned(sp.model.round.scoring)
    single = [s for s in A.walk(sp.model.round.scoring)
              if isinstance(s, A.Assign) and isinstance(s.target, A.Attr) and s.target.name == "score"]
    if len(single) == 1 and len(rows) == 1 and not rows[0].when:
        target = single[0].target.obj  # type: ignore[union-attr]
        alias = {target.id: "you"} if isinstance(target, A.Name) else {}
        with sp.speaking_to_you(), sp.aliased(alias), sp.scope(()):
            value = single[0].value
            floor = None
            if isinstance(value, A.Call) and value.func == "max" and len(value.args) == 2 and \
                    isinstance(value.args[0], A.Const):
                floor, value = value.args[0].value, value.args[1]
            terms = [(sign, sentence(formula(sp, t, assigned)).rstrip(".")) for sign, t in _terms(value, "+")]
            terms = [(s, re.sub(r"\byou are in the\b", "you are one of the", t)) for s, t in terms]
        if len(terms) > 1:
            section.blocks.append(Para("At the end of each round, each player adds up their round score:"))
            section.blocks.append(Table(["", "points"], [["plus" if s == "+" else "minus", t] for s, t in terms],
                                        caption="Round score"))
        else:
            section.blocks.append(Para(f"At the end of each round, each player scores {terms[0][1]}."))
        tail = f"A round score is never below {floor}. " if floor is not None else ""
        section.blocks.append(Para(tail + "Round scores add up to each player's total."))
    else:
        section.blocks.append(Para("At the end of each round, every row of this table that applies pays "
                                   "(should a player be paid twice, they keep the larger amount). "
                                   "Round scores add up to each player's total."))
        section.blocks.append(Table(["when", "who scores"], payout_rows(rows), caption="Payouts"))
        section.blocks.append(Para("In any other case nobody scores."))
    if example is not None and example.seats:
        section.blocks += _example_blocks(example, _who(sp, example))
    return section


def _who(sp: Speaker, example: RoundExample) -> str:
    """The players the round report names, where the report's field is a variable the designer
    named (`about:`): "the dealer's partner: Player 1"."""
    parts = []
    for key, value in example.report.items():
        about = sp.about(f"variable:{key}")
        var = sp.variables.get(key)
        if not about or var is None or var.type not in ("player", "players"):
            continue
        seats = value if isinstance(value, list) else [value]
        named = [example.seats[v].name for v in seats if isinstance(v, int) and 0 <= v < len(example.seats)]
        if named:
            parts.append(f"{about}: {', '.join(named)}")
    return sentence("; ".join(parts)) if parts else ""


def _example_blocks(example: RoundExample, who: str = "") -> list[Any]:
    opts = ", ".join(f"{k} {v}" for k, v in example.options.items())
    head = (f"**Example.** An example round ({example.players} players{', ' + opts if opts else ''}). "
            f"{who + ' ' if who else ''}At the end of round {example.round}:")
    zones = [z for z in example.seats[0].zones if any(s.zones.get(z) for s in example.seats)]
    header = ["player"] + zones + (["best hand"] if any(s.category for s in example.seats) else []) + ["round score"]
    rows = []
    for seat in example.seats:
        row = [seat.name]
        for z in zones:
            cards = seat.zones.get(z, [])
            points = [p for _, p in cards if isinstance(p, (int, float))]
            listed = ", ".join(f"{n} ({p})" if p != "" else n for n, p in cards) or "none"
            if len(cards) > 3 and points and len(points) == len(cards):
                listed = f"{len(cards)} cards"
            row.append(listed + (f" = {sum(points)}" if points and len(points) == len(cards) else ""))
        if any(s.category for s in example.seats):
            row.append(seat.category)
        row.append(str(seat.score))
        rows.append(row)
    return [Para(head), Table(header, rows, caption="Example round")]
