"""The checks of the match, the round and its phases: every block and condition checked in its
context, phases reachable, rounds and matches able to end."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import ast as A
from .. import types as T
from ..errors import did_you_mean
from ..model import SpecModel
from .info import Context, Scope
from .statements import Checker

__all__ = ["check_flow"]


def check_flow(c: Checker) -> None:
    m = c.m
    c.block(m.match.setup, Scope(), Context("match"))
    c.block(m.round.setup, Scope(), Context("setup"))
    for cond in m.round.end_when:
        c.expect(cond, c.expr(cond, Scope()), T.BOOL, "round.end_when")
    phase_names = {}
    for phase in m.round.phases:
        if phase.name in phase_names:
            c.error(phase.span, f"two phases are named '{phase.name}'")
        phase_names[phase.name] = phase
        if phase.first is not None:
            c.expect(phase.first, c.expr(phase.first, Scope()), T.PLAYER, "`first`")
        c.block(phase.turn, Scope(), Context("turn"))
        for cond in phase.end_when:
            c.expect(cond, c.expr(cond, Scope()), T.BOOL, "the phase's end_when")
        if phase.skip_when is not None:
            c.expect(phase.skip_when, c.expr(phase.skip_when, Scope({"p": T.PLAYER})), T.BOOL, "`skip_when`")
        if not phase.turn.stmts and not c.parse_failed:
            c.error(phase.span, f"phase '{phase.name}' has an empty turn")
    for phase in m.round.phases:
        if phase.next is not None and phase.next not in phase_names:
            c.error(phase.next_span, f"unknown phase '{phase.next}'", did_you_mean(phase.next, phase_names))
    _check_reachable(c)
    c.block(m.round.scoring, Scope(), Context("scoring"))
    for _, expr in m.round.report:
        c.expr(expr, Scope())
    for cond in m.match.end_when:
        c.expect(cond, c.expr(cond, Scope()), T.BOOL, "match.end_when")
    if m.match.winners is not None:
        c.expect(m.match.winners, c.expr(m.match.winners, Scope()), T.list_of(T.PLAYER), "match.winners")
    if m.match.returns is not None:
        scope = Scope({"p": T.PLAYER, "winners": T.list_of(T.PLAYER)})
        c.expect(m.match.returns.value, c.expr(m.match.returns.value, scope), (T.INT, T.NUM), "match.returns.value")
        static = Scope({"num_players": T.INT})
        for key in ("min", "max", "sum"):
            bound = getattr(m.match.returns, key)
            if bound is None:
                continue
            c.expect(bound, c.expr(bound, static), (T.INT, T.NUM), f"match.returns.{key}")
            unknown = c.not_static(bound)
            if unknown is not None:
                c.error(unknown.span, f"match.returns.{key} can only use numbers, num_players, options and defines "
                        "made of them")
    for _, expr in m.match.report:
        c.expr(expr, Scope({"winners": T.list_of(T.PLAYER)}))
    for inv in m.invariants:
        c.expect(inv.expr, c.expr(inv.expr, Scope()), T.BOOL, "an invariant")
    if m.heuristic is not None:
        c.expect(m.heuristic, c.expr(m.heuristic, Scope({"p": T.PLAYER})), (T.INT, T.NUM), "the heuristic")
    for proc in m.procedures:
        if proc.name not in c.info.proc_params:
            c.check_proc(proc, tuple(T.ANY for _ in proc.params))
    for action in m.actions:
        if action.action not in c.info.action_params:
            c.alternative(action, Scope())
    c.check_pending_procs()
    if not c.parse_failed:
        _check_ends(c)


def _check_reachable(c: Checker) -> None:
    phases = c.m.round.phases
    index = {p.name: i for i, p in enumerate(phases)}
    reached = set()
    todo = [0]
    while todo:
        i = todo.pop()
        if i in reached or i >= len(phases):
            continue
        reached.add(i)
        phase = phases[i]
        if phase.next is not None and phase.next in index:
            todo.append(index[phase.next])
        else:
            todo.append(i + 1)
    for i, phase in enumerate(phases):
        if i not in reached:
            c.error(phase.span, f"phase '{phase.name}' can never be reached",
                    "name it in another phase's `next:`, or remove it")


def _all_blocks(m: SpecModel) -> Iterable[Any]:
    yield m.match.setup
    yield m.round.setup
    yield m.round.scoring
    for phase in m.round.phases:
        yield phase.turn
    for proc in m.procedures:
        yield proc.body
    for action in m.actions:
        yield action.body


def _has_end(m: SpecModel, levels: set[str]) -> bool:
    for block in _all_blocks(m):
        for node in A.walk(block):
            if isinstance(node, A.End) and node.level in levels:
                return True
    return False


def _check_ends(c: Checker) -> None:
    m = c.m
    phase_can_end = any(p.end_when or p.skip_when is not None for p in m.round.phases) or _has_end(m, {"phase"})
    if not (m.round.end_when or phase_can_end or _has_end(m, {"round", "game"})):
        c.error(m.round.span, "this round can never end",
                "add round.end_when, a phase end_when, or an `end round` statement")
    if not (m.match.end_when or _has_end(m, {"game"})):
        c.error(m.match.span if m.match.span.file != "<spec>" else m.round.span,
                "this match can never end", "add match.end_when (checked after each round) or an `end game` statement")

