"""Setup, a turn and the end of a round, as numbered steps generated from the spec's statements."""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..describe.text import words
from ..fold import UNKNOWN
from .document import Para, Section, Step, Steps
from .speaker import Speaker, sentence, steps_of

__all__ = ["setup_section", "turn_section", "round_ends", "split_ends", "order_text"]


def split_ends(block: A.Block) -> tuple[list[Any], list[A.If]]:
    """A turn's statements without its ``if X: end round`` statements, and those statements."""
    keep, ends = [], []
    for s in block.stmts:
        if isinstance(s, A.If) and len(s.then.stmts) == 1 and isinstance(s.then.stmts[0], A.End) \
                and s.then.stmts[0].level == "round" and not s.orelse.stmts:
            ends.append(s)
        else:
            keep.append(s)
    return keep, ends


def order_text(sp: Speaker, phase: Any) -> str:
    first = phase.first
    if first is None or (isinstance(first, A.Call) and first.func == "left" and first.args
                         and isinstance(first.args[0], A.Name) and first.args[0].id == "dealer"):
        who = "The player to the dealer's left"
    else:
        who = sentence(sp.expr(first)).rstrip(".")
        if isinstance(first, A.Name) and first.id in sp.variables:
            who += " (see Setup)"
    direction = {"left": "to the left", "right": "to the right"}.get(getattr(phase, "order", "left"), "in turn")
    return f"{who} plays first; then play passes {direction}."


def setup_section(sp: Speaker) -> Section:
    section = Section("Setup", anchor="setup")
    m, rnd = sp.model.match, sp.model.round
    lines = sp.block(m.setup) + sp.block(rnd.setup)
    deals = any(isinstance(n, A.Assign) and isinstance(n.target, A.Name) and n.target.id == "dealer"
                for n in A.walk(m.setup))
    if deals:
        lines = ["- choose a dealer for the first round, any way you like"] + lines
    steps = steps_of(lines)
    if steps:
        section.blocks.append(Steps(steps))
    again = _every_round(sp)
    if again:
        section.blocks.append(Para(again))
    about = sp.about("match")
    if about:
        section.blocks.append(Para(about))
    return section


def _every_round(sp: Speaker) -> str:
    """What the setup of every round puts back: the cards from wherever they lie, the pieces."""
    rnd = sp.model.round.setup
    gathers = any(isinstance(n, A.Move) and n.selector == "all" and isinstance(n.what, A.Name) and n.what.id == "cards"
                  for n in A.walk(rnd))
    pieces = any(isinstance(n, A.Move) and isinstance(n.dest, A.Attr) and n.dest.name == "start" for n in A.walk(rnd))
    if not (gathers or pieces) or sp.model.match.end_when is None:
        return ""
    back = (["all cards, wherever they lie, are gathered"] if gathers else []) + \
        (["the pieces go back to their starting spaces"] if pieces else [])
    return "Every round starts with this setup: " + " and ".join(back) + "; only totals carry over."


def turn_section(sp: Speaker) -> Section:
    section = Section("A turn", anchor="turn")
    rnd = sp.model.round
    for phase in rnd.phases:
        if len(rnd.phases) > 1:
            section.blocks.append(Para(f"**{words(phase.name).capitalize()}**"))
        about = sp.about(f"phase:{phase.name}")
        section.blocks.append(Para(order_text(sp, phase) + (f" {about}" if about else "")))
        keep, _ = split_ends(phase.turn)
        with sp.speaking_to_you():
            lines = sp.block(A.Block(phase.turn.span, tuple(keep)))
        section.blocks.append(Steps(_merge_by_players(steps_of(lines))))
    return section


def _merge_by_players(steps: list[Step]) -> list[Step]:
    """A turn that is all "with N players: ..." reads better with the branches as its steps' heads."""
    return steps


def round_ends(sp: Speaker) -> tuple[list[str], list[str]]:
    """When a round ends, as sentences: (the rules, the guards)."""
    rules: list[str] = []
    guards: list[str] = []
    rnd = sp.model.round
    with sp.speaking_to_you():
        for phase in rnd.phases:
            _, ends = split_ends(phase.turn)
            for stmt in ends:
                about = sp.stmt_about(stmt)
                if about:
                    rules.append("about:" + about)
                    continue
                for part in _disjuncts(stmt.cond):
                    if sp.known(part) is False:
                        continue
                    (guards if is_guard(sp, part) else rules).append(sp.expr(part))
    for cond in sp.possible(rnd.end_when):
        if is_guard(sp, cond):
            guards.append("at once when " + sp.expr(cond))
            continue
        rules.append("at once when " + sp.expr(cond) + _defined(sp, cond))
    return rules, guards


def _defined(sp: Speaker, cond: Any) -> str:
    """What a condition the designer named (a define with an `about:`) takes, written out once:
    ": that is, at least one card is in the player's hand ..."."""
    out = []
    for node in A.walk(cond):
        if isinstance(node, A.Call) and node.func in sp.defines and sp.about(f"define:{node.func}"):
            d = sp.defines[node.func]
            with sp.aliased({p: "the player" for p in d.params}):
                out.append(sp.expr(d.body))
    return (", that is: " + "; ".join(out)) if out else ""


def _disjuncts(cond: Any) -> list[Any]:
    if isinstance(cond, A.BinOp) and cond.op == "or":
        return _disjuncts(cond.left) + _disjuncts(cond.right)
    return [cond]


def is_guard(sp: Speaker, cond: Any) -> bool:
    """A condition that reads an option its designer calls a guard (not a rule of the game)."""
    for node in A.walk(cond):
        if isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id == "option":
            option = sp.options.get(node.name)
            text = (sp.abouts.get(f"option:{node.name}") or "") + " " + (option.description if option else "")
            if "guard" in text.lower():
                return True
    return False


def known_false(sp: Speaker, cond: Any) -> bool:
    return sp.known(cond) is not UNKNOWN and not sp.known(cond)
