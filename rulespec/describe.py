"""The rules of a spec as readable Markdown, generated from its model, for proofreading.

    from rulespec import compile_file
    from rulespec.describe import describe
    print(describe(compile_file("games/mygame.yaml")))

Every construct renders itself in English: the components (cards, zones with their
visibility, board, pieces, variables, definitions, rankings), the options with their
defaults, the match and round setup, the turn, every action with its parameters,
condition and effects, the scoring and the end conditions. Statements and expressions
read as sentences: ``draw 2 from pile to hand(opp)`` becomes "draw 2 cards from the pile
to opp's hand". Nothing here knows any particular game.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from . import ast as A
from . import types as T
from .compiler import GameDef
from .fold import DESCRIBE, UNKNOWN, FoldEnv, fold
from .model import ActionRef, CardEntry, PhaseDef, SpecModel
from .zones import SHARED, kind_of

__all__ = ["describe", "Describer", "PlayerDescriber", "AUDIENCES"]

AUDIENCES = ("designers", "players")  # the readers ``describe`` writes for


def describe(gamedef: GameDef, audience: str = "designers") -> str:
    """The Markdown text of a checked spec: every rule for its designers (the default), or the
    rules a player learns from (``audience="players"``)."""
    if audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}, not {audience!r}")
    describer = PlayerDescriber(gamedef) if audience == "players" else Describer(gamedef)
    return describer.document()


_VISIBILITY = {
    "public": "everyone sees its cards",
    "owner": "only its owner sees its cards; the others see how many there are",
    "hidden": "nobody sees its cards, only how many there are",
    "top": "everyone sees the top card only, and how many cards there are",
}

_COMPARE = {
    "==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least",
    "in": "is in", "notin": "is not in",
}
_ARITH = {"+", "-", "*", "/", "//", "%"}
_PRECEDENCE = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "notin": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6}
_ORDER = {"left": "to the left (to the next seat)", "right": "to the right (to the previous seat)"}
_END = {"round": "the round ends", "game": "the match ends", "turn": "the turn ends", "phase": "the phase ends"}


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _value(value: Any) -> str:
    """A plain YAML value (option default, card attribute) as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return json.dumps(value)


class Describer:
    """Renders one spec. ``expr(node)`` and ``block(block)`` render any expression or statements."""

    def __init__(self, gamedef: GameDef):
        self.gamedef = gamedef
        self.model: SpecModel = gamedef.model
        self.types = gamedef.info.types
        self.zones = {z.name: z for z in self.model.zones}
        self.options = {o.name: o for o in self.model.options}
        self.defines = {d.name: d for d in self.model.defines}
        self.procs = {p.name: p for p in self.model.procedures}
        self.actions = {a.action: a for a in self.model.actions}
        self.rankings = {r.name: r for r in self.model.rankings}
        self.variables = {v.name: v for v in self.model.variables}
        self.local: list[set[str]] = []  # names bound where the text being rendered is

    @contextmanager
    def scope(self, names: Iterable[str]) -> Iterator[None]:
        self.local.append(set(names))
        try:
            yield
        finally:
            self.local.pop()

    def is_local(self, name: str) -> bool:
        return any(name in frame for frame in self.local)

    # ================================================================== the document
    def document(self) -> str:
        m = self.model
        out: list[str] = [f"# {m.name}", ""]
        if m.description:
            out += [m.description.strip(), ""]
        out += [f"**Players:** {self.players_text()}."]
        if m.seat_names:
            out += ["", f"**Seats:** {', '.join(m.seat_names)} (in seat order)."]
        out.append("")
        for section in (self.options_section, self.cards_section, self.zones_section, self.board_section,
                        self.variables_section, self.tables_section, self.defines_section, self.rankings_section,
                        self.match_section,
                        self.round_section, self.actions_section, self.procedures_section, self.heuristic_section,
                        self.invariants_section, self.variants_section):
            lines = section()
            if lines:
                out += lines + [""]
        return "\n".join(out).rstrip() + "\n"

    def players_text(self) -> str:
        players = self.model.players
        if len(players) == 1:
            return str(players[0])
        if len(players) > 2 and players == tuple(range(players[0], players[-1] + 1)):
            return f"{players[0]} to {players[-1]}"
        return ", ".join(str(p) for p in players[:-1]) + f" or {players[-1]}"

    # ================================================================== sections
    def options_section(self) -> list[str]:
        if not self.model.options:
            return []
        out = ["## Options", "", "| option | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        for o in self.model.options:
            allowed = ""
            if o.type == "bool":
                allowed = "true, false"
            elif o.values:
                allowed = ", ".join(o.values)
            elif o.min is not None or o.max is not None or o.min_rule or o.max_rule:
                low = _value(o.min) if o.min is not None else self.expr(o.min_rule[0]) if o.min_rule else ""
                high = _value(o.max) if o.max is not None else self.expr(o.max_rule[0]) if o.max_rule else ""
                allowed = f"{low} to {high}" if low and high else (f"at least {low}" if low else f"at most {high}")
            default = _value(o.default)
            if o.auto is not None:
                default = f"{default} ({self.expr(o.auto)})" if default != "auto" else f"auto: {self.expr(o.auto)}"
            out.append(f"| `{o.name}` | {o.type} | {_cell(default)} | {_cell(allowed)} | {_cell(o.description)} |")
        return out

    def cards_section(self) -> list[str]:
        cards = self.model.cards
        if cards is None:
            return []
        out = self.cards_heading(cards)
        if cards.name_template is not None:
            out += [f"Cards are named \"{self.template(cards.name_template)}\".", ""]
        if cards.attributes:
            out.append("Card attributes: " + "; ".join(
                f"{a.name}" + (f" ({a.type})" if a.type else "") + (f", default {_value(a.default)}"
                                                                 if a.default is not None else "")
                for a in cards.attributes) + ".")
            out.append("")
        out += ["| cards | copies | attributes |", "|---|---|---|"]
        for entry in cards.entries:
            out.append(self.card_row(entry))
        return out + self.deck_lines()

    def cards_heading(self, cards: Any) -> list[str]:
        """The section's title, and the number of decks when it is not one (both views)."""
        out = ["## Cards", ""]
        if not _is_const(cards.decks, 1):
            out += [f"Number of decks (copies of the whole list below): {self.expr(cards.decks)}.", ""]
        return out

    def deck_lines(self) -> list[str]:
        """The deck's total and each card's count, for each player count (with the default options)."""
        from .deck import deck_lines

        return [line for text in deck_lines(self.model) for line in ("", text)]

    def card_row(self, entry: CardEntry) -> str:
        attrs = dict((k, v) for k, v, _ in entry.attrs)
        name = attrs.pop("name", None)
        families = []
        for fname, values, _ in entry.family:
            families.append(f"{fname} {_range_text(values)}")
        count = 1
        for _, values, _ in entry.family:
            count *= len(values)
        copies = self.expr(entry.copies)
        if entry.family:
            what = (f"{name}: " if name else "") + "one for each " + " and each ".join(families)
            if count > 1:
                what += f" ({count} kinds)"
        else:
            what = str(name) if name is not None else "a card"
        attr_text = ", ".join(f"{k} {_value(v)}" for k, v in attrs.items()) or "-"
        return f"| {_cell(what)} | {_cell(copies)} | {_cell(attr_text)} |"

    def zones_section(self) -> list[str]:
        if not self.model.zones:
            return []
        out = ["## Zones", "", "| zone | one per | who sees the cards | cards lie | shown as |",
               "|---|---|---|---|---|"]
        for z in self.model.zones:
            seen = _VISIBILITY.get(z.visibility, z.visibility)
            out.append(f"| `{z.name}` | {kind_of(z).described} | {seen} | face {z.face} | {_cell(z.label)} |")
        return out

    def board_section(self) -> list[str]:
        board = self.model.board
        if board is None:
            return []
        if board.rows_rule is not None or board.cols_rule is not None:
            rows = self.expr(board.rows_rule) if board.rows_rule is not None else str(board.rows)
            cols = self.expr(board.cols_rule) if board.cols_rule is not None else str(board.cols)
            out = ["## Board", "",
                   f"A board of {rows} rows and {cols} columns (at most 26 each); cells are named by column "
                   "(a, b, ...) and row (1, 2, ...), from a1 at the bottom left."]
        else:
            last_col = chr(ord("a") + board.cols - 1)
            out = ["## Board", "",
                   f"A board of {board.rows} rows and {board.cols} columns; cells are named by column (a to "
                   f"{last_col}) and row (1 to {board.rows}), from a1 to {last_col}{board.rows}."]
        for piece in self.model.pieces:
            out += ["", f"**{piece.name}** pieces" + (f" (shown as \"{piece.label}\")" if piece.label != piece.name
                                                     else "") + f": {self.expr(piece.per_player)} per player."]
            for count, seats, _ in piece.start:
                places = "; ".join(f"{self.seat_name(i)} {', '.join(cells)}" for i, cells in enumerate(seats))
                out.append(f"- With {count} players they start on: {places}.")
        return out

    def seat_name(self, i: int) -> str:
        names = self.model.seat_names
        return names[i] if i < len(names) else f"seat {i}"

    def variables_section(self) -> list[str]:
        if not self.model.variables:
            return []
        out = ["## Variables", "", "| variable | type | one per | starts as | reset |", "|---|---|---|---|---|"]
        for v in self.model.variables:
            per = "player" if v.per == "player" else "game"
            if v.visibility == "owner":
                per += " (seen by that player only)"
            initial = self.expr(v.initial) if v.initial is not None else "none"
            reset = {"never": "never", "round": "at each round", "turn": "at each turn"}.get(v.reset, v.reset)
            out.append(f"| `{v.name}` | {v.type} | {per} | {_cell(initial)} | {reset} |")
        return out

    def tables_section(self) -> list[str]:
        if not self.model.tables:
            return []
        out = ["## Tables", ""]
        for table in self.model.tables:
            entries = ", ".join(f"{key} → {value}" for key, value in table.entries)
            out.append(f"- **{table.name}**: {entries} (read as `{table.name}[KEY]`).")
        return out

    def defines_section(self) -> list[str]:
        if not self.model.defines:
            return []
        out = ["## Definitions", ""]
        for d in self.model.defines:
            head = f"{d.name}({', '.join(d.params)})" if d.params else d.name
            with self.scope(d.params):
                body = self.expr(d.body) if d.body is not None else "?"
            out.append(f"- **{head}** is {body}.")
        return out

    def rankings_section(self) -> list[str]:
        if not self.model.rankings:
            return []
        out = ["## Hand rankings", ""]
        for r in self.model.rankings:
            out.append(f"**{r.name}**: the best {r.size} cards, ranked by {r.order}"
                       + ("; cards beyond the hand break ties" if r.unused else "") + ". From best to worst:")
            out.append("")
            for i, c in enumerate(r.categories, 1):
                out.append(f"{i}. {c.name}: {self.category_text(c)}")
            out.append("")
        return out[:-1]

    def category_text(self, c: Any) -> str:
        if c.kind == "run":
            return f"{c.run} in sequence" + (f", all of the same {c.same}" if c.same else "")
        if c.kind == "same":
            return f"{c.count} of the same {c.same}"
        if c.kind == "kinds":
            return "groups of " + " + ".join(str(k) for k in c.kinds) + " of the same rank"
        return f"the highest {c.count} cards"

    def match_section(self) -> list[str]:
        match = self.model.match
        out = ["## The match", ""]
        if match.setup.stmts:
            out += ["**Setup** (once, before the first round):", ""] + self.block(match.setup) + [""]
        rounds = self.model.round
        if match.end_when:
            out += ["**End:** the match ends after a round when any of these holds:", ""]
            out += [f"- {self.expr(e)}" for e in match.end_when] + [""]
        elif not self.ends_game():
            out += ["**End:** the match is a single round.", ""]
        else:
            out += ["**End:** when the rules say the match ends.", ""]
        if match.winners is not None:
            out.append(f"**Winners:** {self.expr(match.winners)}.")
        else:
            out.append("**Winners:** the players with the highest total score (ties share the win).")
        if match.returns is not None:
            r = match.returns
            with self.scope(["p"]):
                value = self.expr(r.value)
            total = f", summing to {self.expr(r.sum)}" if r.sum is not None else ""
            out += ["", f"**Result of each player p** (from {self.expr(r.min)} to {self.expr(r.max)}{total}): {value}."]
        if match.report:
            out += ["", "**Reported at the end:** " + "; ".join(f"{k}: {self.expr(v)}" for k, v in match.report) + "."]
        del rounds
        return out

    def ends_game(self) -> bool:
        roots: list[Any] = [self.model.round.setup, self.model.round.scoring]
        roots += [p.turn for p in self.model.round.phases]
        roots += [p.body for p in self.model.procedures] + list(self.model.actions)
        return any(isinstance(n, A.End) and n.level == "game" for root in roots for n in A.walk(root))

    def round_section(self) -> list[str]:
        rnd = self.model.round
        out = ["## Each round", ""]
        if rnd.setup.stmts:
            out += ["**Setup:**", ""] + self.block(rnd.setup) + [""]
        single = len(rnd.phases) == 1 and rnd.phases[0].name == "main"
        for phase in rnd.phases:
            out += self.phase_lines(phase, single) + [""]
        if rnd.end_when:
            out += ["**The round also ends** at once when any of these holds:", ""]
            out += [f"- {self.expr(e)}" for e in rnd.end_when] + [""]
        if rnd.scoring.stmts:
            out += ["**Scoring** (at the end of each round):", ""] + self.block(rnd.scoring) + [""]
        if rnd.report:
            out += ["**Reported at the end of each round:**", ""]
            out += [f"- {k}: {self.expr(v)}" for k, v in rnd.report] + [""]
        return out[:-1]

    def phase_lines(self, phase: PhaseDef, single: bool) -> list[str]:
        out = [] if single else [f"### Phase {phase.name}", ""]
        first = f"{self.expr(phase.first)}" if phase.first is not None else "the player left of the dealer"
        out += [f"**Turns:** {first} plays first; then play passes {_ORDER.get(phase.order, phase.order)}.", ""]
        if phase.skip_when is not None:
            with self.scope(["p"]):
                out[-1:] = [f"Turns pass over each player p for whom {self.expr(phase.skip_when)} (the phase ends "
                            "when that holds for everyone).", ""]
        out += ["**A turn:**", ""] + self.block(phase.turn)
        if phase.end_when:
            out += ["", "The phase ends when any of these holds: " + "; ".join(self.expr(e) for e in phase.end_when)
                    + "."]
        if phase.next:
            out += ["", f"Then phase {phase.next} follows."]
        return out

    def actions_section(self) -> list[str]:
        if not self.model.actions:
            return []
        out = ["## Actions", ""]
        for alt in self.model.actions:
            out += [f"### {alt.action}", ""] + self.alternative_lines(alt) + [""]
        return out[:-1]

    def alternative_lines(self, alt: A.Alternative, indent: str = "") -> list[str]:
        names = [b.var for b in alt.bindings.items] if alt.bindings is not None else []
        with self.scope(names):
            return self._alternative_lines(alt, indent)

    def _alternative_lines(self, alt: A.Alternative, indent: str) -> list[str]:
        out = []
        if alt.bindings is not None:
            out.append(f"{indent}- **Choice:** {self.bindings(alt.bindings)}")
        if alt.cond is not None:
            out.append(f"{indent}- **Allowed when:** {self.expr(alt.cond)}")
        if alt.priority:
            out.append(f"{indent}- **Priority:** {alt.priority} (a choice offers only the actions of the highest "
                       "priority that has options)")
        if alt.label is not None:
            out.append(f"{indent}- **Shown as:** \"{self.template(alt.label)}\"")
        if alt.body.stmts:
            out.append(f"{indent}- **Effect:**")
            out += self.block(alt.body, indent + "  ")
        else:
            out.append(f"{indent}- **Effect:** nothing")
        return out

    def procedures_section(self) -> list[str]:
        if not self.model.procedures:
            return []
        out = ["## Procedures", ""]
        for p in self.model.procedures:
            head = f"{p.name}({', '.join(p.params)})" if p.params else p.name
            with self.scope(p.params):
                out += [f"### {head}", ""] + (self.block(p.body) or ["- nothing"]) + [""]
        return out[:-1]

    def heuristic_section(self) -> list[str]:
        if self.model.heuristic is None:
            return []
        with self.scope(["p"]):
            text = self.expr(self.model.heuristic)
        return ["## Evaluation for bots", "", f"How good a position is for player p: {text}."]

    def invariants_section(self) -> list[str]:
        if not self.model.invariants:
            return []
        out = ["## Invariants (always true)", ""]
        for inv in self.model.invariants:
            text = self.expr(inv.expr)
            out.append(f"- {inv.message}" + (f": {text}" if text != inv.message else ""))
        return out

    def variants_section(self) -> list[str]:
        if not self.model.variants:
            return []
        out = ["## Variants to test", ""]
        for v in self.model.variants:
            parts = [f"{v.players} players"] if v.players else []
            parts += [f"{k} = {_value(val)}" for k, val in v.options]
            out.append(f"- {v.name}" + (f": {', '.join(parts)}" if parts and ', '.join(parts) != v.name else ""))
        return out

    # ================================================================== statements
    def block(self, block: A.Block | None, indent: str = "") -> list[str]:
        out: list[str] = []
        if block is None:
            return out
        with self.scope(()):
            for stmt in block.stmts:
                out += self.stmt(stmt, indent)
        return out

    def stmt(self, s: Any, indent: str) -> list[str]:
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:
            return [f"{indent}- {type(s).__name__}"]
        result = method(s, indent)
        if isinstance(result, str):
            return [f"{indent}- {result}"]
        return result

    def face(self, face: str | None) -> str:
        return f" face {face}" if face else ""

    def s_Move(self, s: A.Move, indent: str) -> str:
        dest = self.place(s.dest)
        bottom = " at the bottom" if s.bottom else ""
        what_type = self.type_of(s.what)
        if what_type == T.PIECE:
            return f"move {self.expr(s.what)} to {dest}"
        if s.selector == "all":
            if isinstance(s.what, A.Name) and s.what.id == "cards":
                return f"move all cards to {dest}{self.face(s.face)}{bottom}"
            return f"move all cards of {self.place(s.what)} to {dest}{self.face(s.face)}{bottom}"
        if s.selector in ("top", "bottom"):
            return f"move the {s.selector} card of {self.place(s.what)} to {dest}{self.face(s.face)}{bottom}"
        if s.selector == "random":
            return f"move a random card of {self.place(s.what)} to {dest}{self.face(s.face)}{bottom}"
        return f"move {self.expr(s.what)} to {dest}{self.face(s.face)}{bottom}"

    def s_Draw(self, s: A.Draw, indent: str) -> str:
        count = "a card" if s.count is None or _is_const(s.count, 1) else f"{self.expr(s.count)} cards"
        return f"draw {count} from {self.place(s.source)} to {self.place(s.dest)}{self.face(s.face)}"

    def s_Deal(self, s: A.Deal, indent: str) -> str:
        count = "1 card" if _is_const(s.count, 1) else f"{self.expr(s.count)} cards"
        zone = self.zones.get(s.family)
        name = _words(s.family)
        to = (kind_of(zone) if zone is not None else SHARED).each.format(name)
        return f"deal {count} from {self.place(s.source)} to {to}{self.face(s.face)}"

    def s_Shuffle(self, s: A.Shuffle, indent: str) -> str:
        return f"shuffle {self.place(s.zone)}"

    def s_Flip(self, s: A.Flip, indent: str) -> str:
        return f"turn {self.expr(s.what)} face {s.face}"

    def s_Assign(self, s: A.Assign, indent: str) -> str:
        target = self.expr(s.target)
        value = self.expr(s.value)
        var = self.variables.get(s.target.id) if isinstance(s.target, A.Name) else None
        listy = T.is_list(self.type_of(s.target) or self.type_of(s.value) or "") or isinstance(s.value, A.ListLit) \
            or (var is not None and var.type in ("players", "cards"))
        if s.op == "+=":
            return f"add {value} to {target}"
        if s.op == "-=":
            return f"remove {value} from {target}" if listy else f"subtract {value} from {target}"
        return f"set {target} to {value}"

    def s_Let(self, s: A.Let, indent: str) -> str:
        if self.local:
            self.local[-1].add(s.name)
        return f"let {s.name} be {self.expr(s.value)}"

    def s_Emit(self, s: A.Emit, indent: str) -> str | list[str]:
        fields = ", ".join(f"{k} = {self.expr(v)}" for k, v in s.fields)
        text = f"announce {_words(s.name)}" + (f" ({fields})" if fields else "")
        if s.to is not None:
            text += f", to {self.expr(s.to)} only"
        return text

    def s_End(self, s: A.End, indent: str) -> str:
        return _END.get(s.level, f"end the {s.level}")

    def s_Skip(self, s: A.Skip, indent: str) -> str:
        who = _subject(self.expr(s.player))
        return f"{who} {_agree(who, 'skips')} {_possessive(who, 'next turn')}"

    def s_Next(self, s: A.Next, indent: str) -> str:
        who = _subject(self.expr(s.player))
        return f"{who} {_agree(who, 'takes')} the next turn (and play goes on from there)"

    def s_Place(self, s: A.Place, indent: str) -> str:
        owner = self.expr(s.owner)
        mine = _POSSESSIVE.get(owner.lower())
        whose = f"of {_ABSOLUTE.get(mine, mine + 's')}" if mine else f"of {owner}"
        return f"place a {s.kind} {whose} on {self.expr(s.cell)}"

    def s_Remove(self, s: A.Remove, indent: str) -> str:
        return f"take {self.expr(s.piece)} off the board"

    def s_CallProc(self, s: A.CallProc, indent: str) -> str | list[str]:
        if isinstance(s.target, A.Name):
            args = f"({', '.join(self.expr(a) for a in s.args)})" if s.args else ""
            see = " (see Procedures)" if s.target.id in self.procs else ""
            return f"do {s.target.id}{args}{see}"
        args = f" (with {', '.join(self.expr(a) for a in s.args)})" if s.args else ""
        return f"do the procedure named by {self.expr(s.target)}{args}"

    def s_Pass(self, s: A.Pass, indent: str) -> str:
        return "nothing happens"

    def s_If(self, s: A.If, indent: str) -> list[str]:
        out = [f"{indent}- if {self.expr(s.cond)}:"] + self.block(s.then, indent + "  ")
        if s.orelse.stmts:
            out += [f"{indent}- otherwise:"] + self.block(s.orelse, indent + "  ")
        return out

    def s_For(self, s: A.For, indent: str) -> list[str]:
        with self.scope(b.var for b in s.bindings.items):
            return [f"{indent}- for each {self.bindings(s.bindings, each=False)}:"] + self.block(s.body, indent + "  ")

    def s_Repeat(self, s: A.Repeat, indent: str) -> list[str]:
        limit = f" (at most {s.max} times)" if s.max else ""
        return ([f"{indent}- repeat{limit}:"] + self.block(s.body, indent + "  ")
                + [f"{indent}  until {self.expr(s.until)}"])

    def s_While(self, s: A.While, indent: str) -> list[str]:
        limit = f" (at most {s.max} times)" if s.max else ""
        return [f"{indent}- while {self.expr(s.cond)}{limit}:"] + self.block(s.body, indent + "  ")

    def s_Choose(self, s: A.Choose, indent: str) -> list[str]:
        who = _subject(self.expr(s.by) if s.by is not None else self.current_player())
        if len(s.alternatives) == 1:
            head = f"{indent}- {who} {_agree(who, 'chooses')}"
        else:
            head = f"{indent}- {who} {_agree(who, 'chooses')} one of"
        if s.prompt:
            head += f" (\"{s.prompt}\")"
        out = [head + ":"]
        for alt in s.alternatives:
            if isinstance(alt, ActionRef):
                out.append(f"{indent}  - the action **{alt.name}** (see Actions)")
            else:
                out.append(f"{indent}  - **{alt.action}**:")
                out += self.alternative_lines(alt, indent + "    ")
        if s.orelse is not None:
            out.append(f"{indent}- if there is nothing to choose:")
            out += self.block(s.orelse, indent + "  ") or [f"{indent}  - nothing happens"]
        return out

    # ================================================================== expressions
    def type_of(self, node: Any) -> str | None:
        return self.types.get(id(node))

    def bindings(self, bindings: A.Bindings, each: bool = True) -> str:
        parts = []
        for b in bindings.items:
            if self.local:
                self.local[-1].add(b.var)
            text = f"{b.var} in {self.expr(b.iter)}"
            if b.cond is not None:
                text += f" where {self.expr(b.cond)}"
            parts.append(text)
        return ("any " if each else "") + (", and " + ("any " if each else "each ")).join(parts)

    def template(self, template: A.Template) -> str:
        out = []
        for part in template.parts:
            out.append(part if isinstance(part, str) else "{" + self.expr(part) + "}")
        return "".join(out)

    def place(self, node: Any) -> str:
        """A zone (or cards) written as a place: "the pile", "opp's hand", "the square at c3"."""
        if isinstance(node, A.Name) and node.id in self.zones:
            return f"the {_words(node.id)}"
        if isinstance(node, A.Call) and node.func in self.zones and node.args:
            zone = self.zones[node.func]
            owner = node.args[0]
            if kind_of(zone).located:
                return f"the {_words(node.func)} at {self.expr(owner)}"
            return _of(self.expr(owner), _words(node.func))
        return self.expr(node)

    def expr(self, node: Any, parent: int = 0) -> str:
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            return str(node)
        return method(node, parent)

    def e_Const(self, node: A.Const, parent: int) -> str:
        v = node.value
        if isinstance(v, str):
            return f"'{v}'"
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    _NAMES = {
        "current": "the current player", "players": "the players", "cards": "all cards", "cells": "the cells",
        "dealer": "the dealer", "round": "the round number", "turn": "the turn number",
        "num_players": "the number of players",
    }

    def current_player(self) -> str:
        return "the current player"

    def e_Name(self, node: A.Name, parent: int) -> str:
        if self.is_local(node.id):
            return _local(node.id)
        if node.id == "current":
            return self.current_player()
        if node.id in self.zones:
            return f"the {_words(node.id)}"
        if node.id in self.variables or node.id in self.defines:
            return node.id
        return self._NAMES.get(node.id, node.id)

    def e_Attr(self, node: A.Attr, parent: int) -> str:
        if isinstance(node.obj, A.Name) and node.obj.id == "option" and not self.is_local("option"):
            return f"option {node.name}"
        return _of(self.expr(node.obj, 9), _words(node.name))

    def e_Index(self, node: A.Index, parent: int) -> str:
        return f"{self.expr(node.obj, 9)}[{self.expr(node.index)}]"

    def e_Call(self, node: A.Call, parent: int) -> str:
        f = node.func
        args = node.args
        a = [self.expr(x, 9) for x in args]
        if f in self.zones:
            return self.place(node)
        if f in self.defines or f in self.procs:
            return f"{f}({', '.join(self.expr(x) for x in args)})"
        one = a[0] if a else ""
        if f == "count" and args and isinstance(args[0], A.Agg) and args[0].func == "distinct":
            c = args[0].comp
            with self.scope([c.var]):
                where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
                return f"the number of different {self.expr(c.elt)} for each {c.var} in {self.expr(c.iter)}{where}"
        if f == "count":
            t = self.type_of(args[0]) if args else None
            if t == T.ZONE or (isinstance(args[0], A.Name) and args[0].id in self.zones) or \
                    (isinstance(args[0], A.Call) and args[0].func in self.zones):
                return f"the number of cards in {self.place(args[0])}"
            return f"the number of {one}"
        if f in ("max", "min"):
            word = "highest" if f == "max" else "lowest"
            if len(a) == 2:
                return f"the {'larger' if f == 'max' else 'smaller'} of {a[0]} and {a[1]}"
            return f"the {word} of {one}"
        simple = {
            "sum": "the sum of {0}", "any": "any of {0} is true", "all": "all of {0} are true",
            "distinct": "the distinct items of {0}", "first": "the first of {0}", "last": "the last of {0}",
            "left": "the player to the left of {0}", "right": "the player to the right of {0}",
            "others": "the players other than {0}", "seats_from": "every player starting with {0} and going left",
            "player": "the player in seat {0}", "piece_at": "the piece on {0}",
            "empty_cells": "the empty cells",
            "str": "{0} as text", "int": "{0} as a whole number", "abs": "the absolute value of {0}",
            "chance": "true with probability {0}", "random": "a random one of {0}",
        }
        if f in simple:
            return simple[f].format(*a)
        if f == "start_cells":
            return f"the starting cells of {_of(one, 'pieces')}"
        if f in ("top", "bottom"):
            return f"the {f} card of {self.place(args[0])}"
        if f == "nth":
            return f"the card {a[1]} below the top of {self.place(args[0])}"
        if f == "pieces":
            kind = f" of kind {a[1]}" if len(a) > 1 else ""
            return _of(one, "pieces") + kind
        if f == "slides":
            opts = {k: self.expr(v) for k, v in node.kwargs}
            dirs = opts.get("dirs", "'orthogonal'").strip("'")
            limit = f", at most {opts['max']} steps" if "max" in opts else ""
            return f"the cells {one} can reach moving in a straight {dirs} line without passing a piece{limit}"
        if f == "cell":
            return f"cell {one}" if len(a) == 1 else f"the cell at row {a[0]}, column {a[1]}"
        if f == "line":
            return f"{one} {_agree(_subject(one), 'has')} {a[1]} pieces in a straight line"
        if f in ("neighbours", "connected", "group"):
            dirs = dict((k, self.expr(v)) for k, v in node.kwargs).get("dirs", "'orthogonal'").strip("'")
            if f == "neighbours":
                return f"the cells next to {one} ({dirs})"
            if f == "group":
                return f"the cells of {a[1]} linked to {one} ({dirs} neighbours)"
            return f"a cell of {a[1]} is linked to a cell of {a[2]} through {one} ({dirs} neighbours)"
        if f == "directions":
            return f"the {one.strip(chr(39))} directions"
        if f == "ray":
            return f"the cells from {one} in steps of ({a[1]}, {a[2]}) up to the edge or the first piece"
        if f == "range":
            return f"the whole numbers from {a[0]} to {a[1]} - 1"
        if f in ("hand_value", "best_cards", "category", "hand_score"):
            cards = self.place(args[1]) if len(args) > 1 else "?"
            what = {"hand_value": "the value of the best {r} hand in {c}", "best_cards": "the best {r} hand in {c}",
                    "category": "the {r} category of the best hand in {c}",
                    "hand_score": "the {r} strength of the best hand in {c}"}[f]
            return what.format(r=self.expr(args[0]).strip("'"), c=cards)
        if f == "dict":
            return "a record of " + ", ".join(f"{k} = {self.expr(v)}" for k, v in node.kwargs)
        kwargs = [f"{k}={self.expr(v)}" for k, v in node.kwargs]
        return f"{f}({', '.join(a + kwargs)})"

    def comp(self, comp: A.Comp) -> str:
        text = f"for each {comp.var} in {self.expr(comp.iter)}"
        if comp.cond is not None:
            text += f" where {self.expr(comp.cond)}"
        if isinstance(comp.elt, A.Comp):
            with self.scope([comp.elt.var]):
                text += ", " + self.comp(comp.elt)
        return text

    def innermost(self, comp: A.Comp) -> Any:
        """The element of a comprehension, after all its `for` clauses."""
        while isinstance(comp.elt, A.Comp):
            comp = comp.elt
        return comp.elt

    def e_Agg(self, node: A.Agg, parent: int) -> str:
        with self.scope([node.comp.var]):
            return self._agg(node)

    def clause_names(self, comp: A.Comp) -> list[str]:
        names = []
        while isinstance(comp.elt, A.Comp):
            comp = comp.elt
            names.append(comp.var)
        return names

    def _clauses(self, word: str, comp: A.Comp) -> str:
        """An aggregate or list over several `for` clauses: ``word`` of the element, then the clauses."""
        with self.scope(self.clause_names(comp)):
            elt = self.expr(self.innermost(comp))
        return f"{word} {elt}, {self.comp(comp)}"

    def _agg(self, node: A.Agg) -> str:
        c = node.comp
        if isinstance(c.elt, A.Comp):
            if node.func == "count":
                return f"the number of combinations {self.comp(c)}"
            word = { "sum": "the sum of", "max": "the highest", "min": "the lowest",
                    "any": "whether for some combination", "all": "whether for every combination",
                    "distinct": "the distinct"}.get(node.func, node.func + " of")
            return self._clauses(word, c)
        elt = self.expr(c.elt)
        where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
        source = f"{c.var} in {self.expr(c.iter)}{where}"
        f = node.func
        if f == "count":
            if isinstance(c.elt, A.Name) and c.elt.id == c.var:
                return f"the number of {source}"
            return f"the number of {elt}, for each {source}"
        if f in ("sum", "max", "min"):
            word = {"sum": "the sum", "max": "the highest", "min": "the lowest"}[f]
            return f"{word} of {elt} over each {source}"
        if f == "any":
            return f"{elt} for some {source}"
        if f == "all":
            return f"{elt} for every {source}"
        if f in ("argmax", "argmin"):
            word = "highest" if f == "argmax" else "lowest"
            return f"the {c.var} in {self.expr(c.iter)}{where} with the {word} {elt.removeprefix('the ')} " \
                   "(all of them if tied)"
        if f == "distinct":
            return f"the distinct {elt} over each {source}"
        return f"{f} of {elt} over each {source}"

    def e_ListLit(self, node: A.ListLit, parent: int) -> str:
        return "[" + ", ".join(self.expr(x) for x in node.items) + "]"

    def e_ListComp(self, node: A.ListComp, parent: int) -> str:
        with self.scope([node.comp.var]):
            return self._listcomp(node)

    def _listcomp(self, node: A.ListComp) -> str:
        c = node.comp
        if isinstance(c.elt, A.Comp):
            return self._clauses("the list of", c)
        if isinstance(c.elt, A.Name) and c.elt.id == c.var:
            where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
            return f"the {c.var} in {self.expr(c.iter)}{where}"
        return f"the list of {self.expr(c.elt)} {self.comp(c)}"

    def e_BinOp(self, node: A.BinOp, parent: int) -> str:
        op = node.op
        mine = _PRECEDENCE.get(op, 3)
        left = self.expr(node.left, mine)
        right = self.expr(node.right, mine + (1 if op in _ARITH else 0))
        if op in _COMPARE:
            if isinstance(node.right, A.Const) and node.right.value is None and op in ("==", "!=") and \
                    self.type_of(node.left) == T.PLAYER:
                text = f"{left} is {'nobody' if op == '==' else 'somebody'}"
            else:
                text = f"{left} {_COMPARE[op]} {right}"
        else:
            text = f"{left} {op} {right}"
        need = parent > mine or (parent in (1, 2) and op in ("and", "or") and parent != mine)
        return f"({text})" if need else text

    def e_Unary(self, node: A.Unary, parent: int) -> str:
        if node.op == "neg":
            return f"-{self.expr(node.operand, 8)}"
        return f"not {self.expr(node.operand, 9)}"

    def e_Cond(self, node: A.Cond, parent: int) -> str:
        text = f"{self.expr(node.body, 1)} if {self.expr(node.test, 1)}, otherwise {self.expr(node.orelse, 1)}"
        return f"({text})" if parent else text


def _is_const(node: Any, value: Any) -> bool:
    return isinstance(node, A.Const) and node.value == value and not isinstance(node.value, bool)


def _words(name: str) -> str:
    return name.replace("_", " ")


# a name that reads as an English word of its own is written as code: "the square at `at`"
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "at", "in", "on", "of", "to", "by", "for", "from", "with", "into", "onto", "over", "under",
    "and", "or", "not", "is", "be", "if", "it", "as", "all", "any", "each", "every", "no", "none", "some", "then",
})
# the possessive of a pronoun, and a pronoun as the subject of a verb
_POSSESSIVE = {"me": "my", "i": "my", "you": "your", "us": "our", "we": "our", "them": "their", "they": "their",
               "him": "his", "he": "his", "her": "her", "she": "her", "it": "its"}
_ABSOLUTE = {"my": "mine", "his": "his", "its": "its"}  # "a mark of mine"; the others add an s: "yours"
_SUBJECT = {"me": "I", "us": "we", "them": "they", "him": "he", "her": "she"}
_PLURAL_SUBJECTS = frozenset({"I", "you", "we", "they"})


def _local(name: str) -> str:
    return f"`{name}`" if name.lower() in _FUNCTION_WORDS else name


def _subject(who: str) -> str:
    """``who`` as the subject of a sentence: "me chooses" reads "I choose"."""
    return _SUBJECT.get(who, who)


def _agree(subject: str, verb: str) -> str:
    """The verb (given in the third person singular) agreeing with its subject: "you choose"."""
    if subject not in _PLURAL_SUBJECTS:
        return verb
    if verb == "has":
        return "have"
    return verb[:-2] if verb.endswith(("sses", "shes", "ches", "xes")) else verb[:-1]


def _possessive(who: str, thing: str) -> str:
    """ "their next turn" for a player p, "your next turn" for you."""
    mine = _POSSESSIVE.get(who.lower())
    return f"{mine} {thing}" if mine else f"their {thing}"


def _of(owner: str, thing: str) -> str:
    """ "p's hand", "the current player's hand", "my hand", or "the hand of the player to the left of p"."""
    mine = _POSSESSIVE.get(owner.lower()) if owner != "I" else "my"
    if mine:
        return f"{mine} {thing}"
    simple = " " not in owner or (owner.startswith("the ") and owner.count(" ") <= 2 and " of " not in owner)
    if simple and not owner.startswith("("):
        return f"{owner}'s {thing}"
    return f"the {thing} of {owner}"


def _range_text(values: tuple[Any, ...]) -> str:
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and \
            list(values) == list(range(values[0], values[0] + len(values))):
        return f"{values[0]} to {values[-1]}"
    if len(values) > 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and \
            list(values) == list(range(values[0], values[0] - len(values), -1)):
        return f"{values[0]} down to {values[-1]}"
    return ", ".join(_value(v) for v in values)


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


# ====================================================================== the players' view

_LONG_TERM = 140  # a definition rendered longer than this is named, and explained under Terms
_SHORT_PROCEDURE = 3  # lines: a procedure this short is written out wherever it is called
_EXAMPLE_CARDS = 500  # cards looked at for an example name


class PlayerDescriber(Describer):
    """The rules as a player learns them: the goal first, the cards with what each does, the
    table, setup, a turn (the current player is "you"), scoring and the end, then the options.

    The rules are read with every option at its default (an option's condition that is then
    false drops out); internal bookkeeping (announcements, variables, invariants, the bots'
    evaluation, test variants, round reports) is left out; procedures and definitions are
    written out where they are used, unless they are long and used in several places (then
    they are named, and explained under Details and Terms); action labels are shown as
    examples with invented values ("declare P1 as partner"), not as templates.
    """

    def __init__(self, gamedef: GameDef):
        super().__init__(gamedef)
        # what is decided before play: the options at their defaults (an `auto` one is not known)
        self.defaults = FoldEnv(DESCRIBE, {o.name: o.default for o in self.model.options if o.auto is None})
        self.you = False  # the current player reads "you" (in a turn, an action, a card's effect)
        self.aliases: list[dict[str, str]] = []  # a parameter's argument, in a procedure written out
        self.inlining: list[str] = []  # the procedures and definitions being written out
        self.shown_actions: set[str] = set()
        self.details: list[str] = []  # procedures named in the text, explained under Details
        self.terms: list[str] = []  # definitions named in the text, explained under Terms
        self.calls = self.call_counts()
        self.card_table = self.example_cards()

    # ------------------------------------------------------------------ what is known before play
    def call_counts(self) -> dict[str, int]:
        """How many places call each procedure by its name."""
        m = self.model
        roots: list[Any] = [m.match.setup, m.round.setup, m.round.scoring] + [p.turn for p in m.round.phases]
        roots += [p.body for p in m.procedures] + list(m.actions)
        counts: dict[str, int] = {}
        for root in roots:
            for node in A.walk(root):
                if isinstance(node, A.CallProc) and isinstance(node.target, A.Name):
                    counts[node.target.id] = counts.get(node.target.id, 0) + 1
        return counts

    def known(self, node: Any) -> Any:
        """The value of an expression of constants and options at their defaults, or UNKNOWN."""
        return fold(node, self.defaults)

    def possible(self, conditions: Iterable[Any]) -> list[Any]:
        """The conditions that can hold with the default options."""
        return [c for c in conditions if self.known(c) is UNKNOWN or self.known(c)]

    # ------------------------------------------------------------------ the document
    def document(self) -> str:
        m = self.model
        out: list[str] = [f"# {m.name}", ""]
        if m.description:
            out += [m.description.strip(), ""]
        out += [f"**Players:** {self.players_text()}.", ""]
        for section in (self.goal_section, self.player_cards_section, self.table_section, self.board_section,
                        self.rankings_section, self.setup_section, self.turn_section, self.scoring_section,
                        self.details_section, self.terms_section, self.player_options_section):
            lines = section()
            if lines:
                out += lines + [""]
        return "\n".join(out).rstrip() + "\n"

    def goal_section(self) -> list[str]:
        match = self.model.match
        out = ["## Goal", ""]
        if match.winners is None:
            out.append("The player with the highest total score when the match ends wins (ties share the win).")
        else:
            out.append(f"The match is won by {self.expr(match.winners)}.")
        if self.model.round.scoring.stmts:
            out.append("Points are scored at the end of each round (see Scoring) and added up.")
        ends = self.possible(match.end_when)
        if len(ends) == 1:
            out.append(f"The match ends after the round in which {self.expr(ends[0])}.")
        elif ends:
            out += ["The match ends after a round in which any of these holds:", ""]
            out += [f"- {self.expr(e)}" for e in ends]
        elif not self.ends_game():
            out.append("The match is a single round.")
        else:
            out.append("The match ends when the rules below say so.")
        return out

    def player_cards_section(self) -> list[str]:
        cards = self.model.cards
        if cards is None:
            return []
        out = self.cards_heading(cards)
        if cards.name_template is not None and self.card_table:
            fields = [self.expr(p) for p in cards.name_template.parts if not isinstance(p, str)]
            out += [f"Cards are named by their {' and '.join(fields)}, for example \"{self.card_table[0][0]}\".", ""]
        plain = [a.name for a in cards.attributes if a.type != "procedure" and a.name != "name"]
        effects = [a for a in cards.attributes if a.type == "procedure"]
        head = ["card", "copies"] + [_words(a) for a in plain] + (["what it does"] if effects else [])
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for entry in cards.entries:
            out.append(self.player_card_row(entry, plain, effects))
        return out

    def player_card_row(self, entry: CardEntry, plain: list[str], effects: list[Any]) -> str:
        attrs = {k: v for k, v, _ in entry.attrs}
        family = {name: values for name, values, _ in entry.family}
        names = [name for name, _ in _entry_cards(entry, self.model.cards)]
        if len(names) <= 4:
            what = ", ".join(names)
        else:
            each = " and ".join(f"each {f} {_range_text(v)}" for f, v in family.items())
            what = f"{names[0]} to {names[-1]} ({len(names)} kinds: {each})"
        cells = [what, self.expr(entry.copies)]
        for name in plain:
            cells.append(_range_text(family[name]) if name in family else _value(attrs[name]) if name in attrs else "")
        if effects:
            cells.append(" ".join(self.card_effect(a.name, attrs.get(a.name, a.default)) for a in effects).strip())
        return "| " + " | ".join(_cell(c) for c in cells) + " |"

    def card_effect(self, attribute: str, procedure: Any) -> str:
        """What the procedure a card names does, as one sentence; the card's player is "you"."""
        proc = self.procs.get(str(procedure))
        if proc is None:
            return ""
        alias = {proc.params[0]: "you"} if proc.params else {}
        with self.speaking_to_you(), self.aliased(alias):
            lines = self.block(proc.body)
        text = _sentence(lines)
        if not text or text == "nothing happens":
            return ""
        return f"{_words(attribute).capitalize()}: {text}."

    def table_section(self) -> list[str]:
        if not self.model.zones:
            return []
        out = ["## Where the cards lie", ""]
        for z in self.model.zones:
            seen = _VISIBILITY.get(z.visibility, z.visibility)
            where = "one, on the table" if kind_of(z) is SHARED else f"one per {kind_of(z).described}"
            out.append(f"- **{z.label}** ({where}): face {z.face}; {seen}.")
        return out

    def setup_section(self) -> list[str]:
        match, rnd = self.model.match, self.model.round
        out = []
        if match.setup.stmts:
            out += ["## Before the first round", ""] + self.block(match.setup) + [""]
        if rnd.setup.stmts:
            out += ["## Setup of each round", ""] + self.block(rnd.setup) + [""]
        return out[:-1]

    def turn_section(self) -> list[str]:
        rnd = self.model.round
        out = ["## Your turn", ""]
        single = len(rnd.phases) == 1 and rnd.phases[0].name == "main"
        with self.speaking_to_you():
            for phase in rnd.phases:
                out += self.phase_lines(phase, single) + [""]
            for alt in self.model.actions:
                if alt.action not in self.shown_actions:
                    out += [f"### {_words(alt.action)}", ""] + self.player_alternative(alt, "") + [""]
        ends = self.possible(rnd.end_when)
        if ends:
            out += ["The round also ends at once when any of these holds:", ""] + [f"- {self.expr(e)}" for e in ends]
            out.append("")
        return out[:-1]

    def scoring_section(self) -> list[str]:
        scoring = self.block(self.model.round.scoring)
        return ["## Scoring", "", "At the end of each round:", ""] + scoring if scoring else []

    def details_section(self) -> list[str]:
        out: list[str] = []
        done = 0
        with self.speaking_to_you():
            while done < len(self.details):  # a procedure explained may name others
                proc = self.procs[self.details[done]]
                done += 1
                head = f"{_words(proc.name)}({', '.join(proc.params)})" if proc.params else _words(proc.name)
                with self.scope(proc.params):
                    out += [f"### {head}", ""] + (self.block(proc.body) or ["- nothing happens"]) + [""]
        return ["## Details", ""] + out[:-1] if out else []

    def terms_section(self) -> list[str]:
        out: list[str] = []
        done = 0
        while done < len(self.terms):
            d = self.defines[self.terms[done]]
            done += 1
            head = f"{d.name}({', '.join(d.params)})" if d.params else _words(d.name)
            with self.scope(d.params), self.aliased({}):
                out.append(f"- **{head}**: {self.expr(d.body)}.")
        return ["## Terms", ""] + out if out else []

    def player_options_section(self) -> list[str]:
        if not self.model.options:
            return []
        out = ["## Options", "", "The rules above use the defaults; the players may agree on other values.", "",
               "| option | default | what it changes |", "|---|---|---|"]
        for o in self.model.options:
            default = self.expr(o.auto) if o.auto is not None else _value(o.default)
            out.append(f"| `{o.name}` | {_cell(default)} | {_cell(o.description)} |")
        return out

    # ------------------------------------------------------------------ context
    @contextmanager
    def speaking_to_you(self) -> Iterator[None]:
        before, self.you = self.you, True
        try:
            yield
        finally:
            self.you = before

    @contextmanager
    def aliased(self, alias: dict[str, str]) -> Iterator[None]:
        self.aliases.append(alias)
        try:
            yield
        finally:
            self.aliases.pop()

    def current_player(self) -> str:
        return "you" if self.you else "the current player"

    def zone_label(self, name: str) -> str:
        return self.zones[name].label

    def place(self, node: Any) -> str:
        if isinstance(node, A.Name) and node.id in self.zones and not self.shadowed(node.id):
            return f"the {self.zone_label(node.id)}"
        if isinstance(node, A.Call) and node.func in self.zones and node.args:
            owner = self.expr(node.args[0])
            if kind_of(self.zones[node.func]).located:
                return f"the {self.zone_label(node.func)} at {owner}"
            return _of(owner, self.zone_label(node.func))
        return self.expr(node)

    def shadowed(self, name: str) -> bool:
        return self.is_local(name) or bool(self.aliases and name in self.aliases[-1])

    # ------------------------------------------------------------------ expressions
    def e_Name(self, node: A.Name, parent: int) -> str:
        if self.aliases and node.id in self.aliases[-1]:
            return self.aliases[-1][node.id]
        if self.is_local(node.id):
            return _local(node.id)
        if node.id in self.zones:
            return f"the {self.zone_label(node.id)}"
        if node.id in self.variables:
            return _words(node.id)
        if node.id in self.defines:
            return self.term(self.defines[node.id], [], parent)
        return super().e_Name(node, parent)

    def e_Attr(self, node: A.Attr, parent: int) -> str:
        if isinstance(node.obj, A.Name) and node.obj.id == "option" and not self.shadowed("option"):
            option = self.options.get(node.name)
            if option is not None and option.auto is not None:
                return self.expr(option.auto, parent)
            if option is not None:
                return _value(option.default)
        return super().e_Attr(node, parent)

    def e_Call(self, node: A.Call, parent: int) -> str:
        if node.func in self.defines and not self.shadowed(node.func):
            return self.term(self.defines[node.func], [self.expr(a, 9) for a in node.args], parent)
        return super().e_Call(node, parent)

    def term(self, d: Any, args: list[str], parent: int) -> str:
        """A definition written out with its arguments, or named when it is long (see Terms)."""
        named = f"{d.name}({', '.join(args)})" if d.params else _words(d.name)
        if d.name in self.inlining or d.body is None:
            return named
        self.inlining.append(d.name)
        try:
            with self.aliased(dict(zip(d.params, args))):
                text = self.expr(d.body, parent)
        finally:
            self.inlining.pop()
        if len(text) <= _LONG_TERM:
            return text
        if d.name not in self.terms:
            self.terms.append(d.name)
        return named

    def e_BinOp(self, node: A.BinOp, parent: int) -> str:
        if node.op in ("and", "or"):
            value = self.known(node)
            if value is not UNKNOWN:
                return "true" if value else "false"
            keep = not (node.op == "or")  # the value of a side that leaves only the other
            if self.known(node.left) is not UNKNOWN and bool(self.known(node.left)) == keep:
                return self.expr(node.right, parent)
            if self.known(node.right) is not UNKNOWN and bool(self.known(node.right)) == keep:
                return self.expr(node.left, parent)
        if node.op == "==" and _is_const(node.right, 1) and isinstance(node.left, A.Call) and \
                node.left.func == "count" and node.left.args and isinstance(node.left.args[0], A.Agg):
            group = self.expr(node.left.args[0])
            if group.startswith("the players with "):
                return "exactly one player has " + group.removeprefix("the players with ")
        if node.op == "<=" and isinstance(node.left, A.Name) and node.left.id == "turn" and \
                isinstance(node.right, A.Name) and node.right.id == "num_players":
            return "this is your first turn" if self.you else "every player is on their first turn"
        return super().e_BinOp(node, parent)

    def e_Cond(self, node: A.Cond, parent: int) -> str:
        value = self.known(node.test)
        if value is not UNKNOWN:
            return self.expr(node.body if value else node.orelse, parent)
        return super().e_Cond(node, parent)

    def e_Agg(self, node: A.Agg, parent: int) -> str:
        c = node.comp
        over_players = isinstance(c.iter, A.Name) and c.iter.id == "players" and c.cond is None
        if over_players and isinstance(c.elt, A.Attr) and isinstance(c.elt.obj, A.Name) and c.elt.obj.id == c.var:
            word = {"argmax": "the players with the highest", "argmin": "the players with the lowest",
                    "max": "the highest", "min": "the lowest"}.get(node.func)
            if word:
                return f"{word} {_words(c.elt.name)}"
        return super().e_Agg(node, parent)

    def e_Unary(self, node: A.Unary, parent: int) -> str:
        inner = node.operand
        if node.op == "not" and isinstance(inner, A.Agg) and inner.func == "any" and \
                not isinstance(inner.comp.elt, A.Comp):
            c = inner.comp
            with self.scope([c.var]):
                where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
                return f"{self.expr(c.elt)} for no {c.var} in {self.expr(c.iter)}{where}"
        return super().e_Unary(node, parent)

    def bindings(self, bindings: A.Bindings, each: bool = True) -> str:
        parts = []
        for b in bindings.items:
            if self.local:
                self.local[-1].add(b.var)
            text = f"{b.var} in {self.expr(b.iter)}"
            conjuncts = [c for c in _conjuncts(b.cond) if self.known(c) is UNKNOWN or not self.known(c)]
            positive = [c for c in conjuncts if not (isinstance(c, A.Unary) and c.op == "not")]
            if positive:
                text += " where " + " and ".join(self.expr(c, 2) for c in positive)
            for c in conjuncts:
                if isinstance(c, A.Unary) and c.op == "not":
                    text += f", except when {self.expr(c.operand)}"
            parts.append(text)
        return ("any " if each else "") + (", and " + ("any " if each else "each ")).join(parts)

    # ------------------------------------------------------------------ statements
    def s_Emit(self, s: A.Emit, indent: str) -> list[str]:
        return []  # announcements are for logs and screens, not rules

    def s_If(self, s: A.If, indent: str) -> list[str]:
        value = self.known(s.cond)
        if value is not UNKNOWN:
            return self.block(s.then if value else s.orelse, indent)
        then = self.block(s.then, indent + "  ")
        orelse = self.block(s.orelse, indent + "  ")
        if not then:
            return [f"{indent}- unless {self.expr(s.cond)}:"] + orelse if orelse else []
        out = [f"{indent}- if {self.expr(s.cond)}:"] + then
        return out + ([f"{indent}- otherwise:"] + orelse if orelse else [])

    def s_CallProc(self, s: A.CallProc, indent: str) -> str | list[str]:
        if not isinstance(s.target, A.Name):
            args_text = f" (for {', '.join(self.expr(a) for a in s.args)})" if s.args else ""
            return f"do what {self.expr(s.target)} says{args_text} (see Cards)"
        proc = self.procs.get(s.target.id)
        if proc is None:
            return super().s_CallProc(s, indent)
        args = [self.expr(a, 9) for a in s.args]
        named = f"{_words(proc.name)}({', '.join(args)})" if args else _words(proc.name)
        if proc.name in self.inlining:
            return f"do {named} again"
        self.inlining.append(proc.name)
        try:
            with self.aliased(dict(zip(proc.params, args))):
                lines = self.block(proc.body, indent)
        finally:
            self.inlining.pop()
        if self.calls.get(proc.name, 0) <= 1 or len(lines) <= _SHORT_PROCEDURE:
            return lines
        if proc.name not in self.details:
            self.details.append(proc.name)
        return f"do {named} (see Details)"

    def s_Choose(self, s: A.Choose, indent: str) -> list[str]:
        who = _subject(self.expr(s.by) if s.by is not None else self.current_player())
        verb = _agree(who, "chooses")
        alts = list(s.alternatives)
        if len(alts) == 1 and isinstance(alts[0], A.Alternative) and alts[0].bindings is not None:
            alt = alts[0]
            with self.scope([b.var for b in alt.bindings.items]):  # type: ignore[union-attr]
                out = [f"{indent}- {who} {verb} {self.alternative_head(alt)}:"]
                out += self.block(alt.body, indent + "  ") or [f"{indent}  - nothing happens"]
        else:
            out = [f"{indent}- {who} {verb}" + (" one of:" if len(alts) > 1 else ":")]
            for alt in alts:
                if isinstance(alt, ActionRef):
                    if alt.name in self.shown_actions:
                        out.append(f"{indent}  - **{_words(alt.name)}** (as above)")
                        continue
                    self.shown_actions.add(alt.name)
                    alt = self.actions[alt.name]
                out += self.player_alternative(alt, indent + "  ")
        if s.orelse is not None:
            out.append(f"{indent}- if there is nothing to choose:")
            out += self.block(s.orelse, indent + "  ") or [f"{indent}  - nothing happens"]
        return out

    def player_alternative(self, alt: A.Alternative, indent: str) -> list[str]:
        names = [b.var for b in alt.bindings.items] if alt.bindings is not None else []
        with self.scope(names):
            head = f"{indent}- **{_words(alt.action)}**"
            detail = self.alternative_head(alt)
            out = [head + (f": {detail}" if detail else "") + ":"]
            return out + (self.block(alt.body, indent + "  ") or [f"{indent}  - nothing happens"])

    def alternative_head(self, alt: A.Alternative) -> str:
        """What is chosen, when it may be, and an example of how it is shown."""
        parts = []
        if alt.bindings is not None:
            parts.append(self.bindings(alt.bindings))
        if alt.cond is not None and self.known(alt.cond) is UNKNOWN:
            parts.append(f"(only when {self.expr(alt.cond)})")
        text = " ".join(parts)
        if alt.label is not None:
            text += ("; " if text else "") + f"for example \"{self.example(alt)}\""
        return text

    # ------------------------------------------------------------------ labels as examples
    def example_cards(self) -> list[tuple[str, dict[str, Any]]]:
        cards = self.model.cards
        out: list[tuple[str, dict[str, Any]]] = []
        for entry in cards.entries if cards is not None else ():
            out += _entry_cards(entry, cards)
            if len(out) >= _EXAMPLE_CARDS:
                break
        return out

    def example(self, alt: A.Alternative) -> str:
        values: dict[str, str] = {}
        seats = iter(range(1, 1 << 16))
        for b in alt.bindings.items if alt.bindings is not None else ():
            values[b.var] = self.example_of(b, seats)
        assert alt.label is not None
        return "".join(p if isinstance(p, str) else self.example_value(p, values) for p in alt.label.parts)

    def example_of(self, binding: A.Binding, seats: Iterator[int]) -> str:
        kind = T.elem(self.type_of(binding.iter) or "") if T.is_list(self.type_of(binding.iter) or "") else \
            T.CARD if self.type_of(binding.iter) == T.ZONE else self.type_of(binding.iter)
        if kind == T.PLAYER:
            return self.seat(next(seats))
        if kind == T.CARD:
            return self.example_card(binding)
        return self.example_of_type(kind or T.ANY)

    def example_card(self, binding: A.Binding) -> str:
        for name, attrs in self.card_table:
            if _card_fits(binding.var, binding.cond, attrs):
                return name
        return self.card_table[0][0] if self.card_table else "a card"

    def seat(self, i: int) -> str:
        names = self.model.seat_names
        return names[i % len(names)] if names else f"P{i}"

    def example_of_type(self, kind: str) -> str:
        board = self.model.board
        if kind == T.PLAYER:
            return self.seat(1)
        if kind == T.list_of(T.PLAYER):
            return f"{self.seat(1)}, {self.seat(3)}"
        if kind == T.CARD:
            return self.card_table[0][0] if self.card_table else "a card"
        if kind == T.CELL and board is not None:
            return f"{chr(ord('a') + board.cols // 2)}{(board.rows + 1) // 2}"
        if kind == T.PIECE and self.model.pieces:
            return self.model.pieces[0].label
        if kind in (T.INT, T.NUM):
            return "2"
        return "…"

    def example_value(self, node: Any, values: dict[str, str]) -> str:
        """An invented value of a label's part, consistent with the examples of the choice."""
        if isinstance(node, A.Const):
            return "" if node.value is None else _value(node.value)
        if isinstance(node, A.Name) and node.id in values:
            return values[node.id]
        if isinstance(node, A.Name) and node.id == "current":
            return self.seat(0)
        if isinstance(node, A.BinOp) and node.op == "+" and self.type_of(node) == T.STR:
            return self.example_value(node.left, values) + self.example_value(node.right, values)
        if isinstance(node, A.Cond):
            body = self.example_value(node.body, values)
            return body or self.example_value(node.orelse, values)
        if isinstance(node, A.Call) and node.func == "str" and node.args:
            return self.example_value(node.args[0], values)
        if isinstance(node, A.Attr) and node.name == "name" and self.type_of(node.obj) == T.PLAYER:
            return self.example_value(node.obj, values)
        return self.example_of_type(self.type_of(node) or T.ANY)


def _entry_cards(entry: CardEntry, cards: Any) -> list[tuple[str, dict[str, Any]]]:
    """The cards of one line of the card list: their names and attributes (at most _EXAMPLE_CARDS)."""
    attrs = {k: v for k, v, _ in entry.attrs}
    combos: list[dict[str, Any]] = [{}]
    for name, values, _ in entry.family:
        combos = [dict(c, **{name: v}) for c in combos for v in values][:_EXAMPLE_CARDS]
    out = []
    for combo in combos:
        fields = dict(attrs, **combo)
        for a in cards.attributes:
            fields.setdefault(a.name, a.default)
        out.append((_card_name(fields, cards.name_template), fields))
    return out


def _card_name(fields: dict[str, Any], template: A.Template | None) -> str:
    if isinstance(fields.get("name"), str):
        return re.sub(r"\{(\w+)\}", lambda m: _value(fields.get(m.group(1), m.group(0))), fields["name"])
    if template is not None:
        return "".join(p if isinstance(p, str) else _value(fields.get(p.id, "?")) if isinstance(p, A.Name) else "?"
                       for p in template.parts)
    return "a card"


def _card_fits(var: str, cond: Any, attrs: dict[str, Any]) -> bool:
    """Whether a card may be the example of ``var`` under ``cond``, read as far as it compares the
    card's own attributes with constants (anything else is taken as true)."""
    if cond is None:
        return True
    if isinstance(cond, A.BinOp) and cond.op == "and":
        return _card_fits(var, cond.left, attrs) and _card_fits(var, cond.right, attrs)
    if isinstance(cond, A.BinOp) and cond.op in ("==", "!=") and isinstance(cond.right, A.Const) and \
            isinstance(cond.left, A.Attr) and isinstance(cond.left.obj, A.Name) and cond.left.obj.id == var:
        same = attrs.get(cond.left.name) == cond.right.value
        return same if cond.op == "==" else not same
    return True


def _conjuncts(node: Any) -> list[Any]:
    """The parts of ``a and b and c``; none for no condition."""
    if node is None:
        return []
    if isinstance(node, A.BinOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _sentence(lines: list[str]) -> str:
    """Markdown list lines as one sentence: items joined by "; ", a line ending in ":" runs on."""
    text = ""
    for line in lines:
        item = line.strip().removeprefix("- ").strip()
        text += (" " if text.endswith(":") else "; " if text else "") + item
    return text
