"""The run loop of the rules, and the codes of the flow of a match: the match, its rounds, its
phases and their turns.

The rules run on an explicit stack of frames: plain lists ``[code index, ...]`` kept in
the state, so a state can be cloned or saved in the middle of any effect. One loop
(``resolve``) steps the top frame's code until a player must decide, a chance event is
pending, or the match is over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .budget import log_event, overrun, start_step
from .codegen_choices import generate_lone_turn
from .codes import BlockCode, ChooseCode, Code, lone_choice_entry, lone_choice_of
from .effects import PYTHON_ERRORS, EndSignal, rule_failure
from .errors import RuleError
from .frames import CODE, DIRECT_DEPTH, MATCH, NEXT_PHASE, PC, PHASE, ROUND, STAGE, STARTED, push_frame
from .state import CHANCE, Pending, State

__all__ = ["run", "resolve", "unwind", "MatchCode", "RoundCode", "PhaseCode"]


# ====================================================================== the loop


def run(s: State) -> None:
    """A new step (the start of a match): run the rules until a decision, a chance event or the end."""
    start_step(s)
    resolve(s, None, 0)


def resolve(s: State, pending: Pending | None, index: int) -> None:
    """Carry out option ``index`` of a pending decision or chance event (none at the start of
    a match), then step the rules until a decision, a chance event or the end.

    The round's `end_when` is checked after every step here too (blocks also check it
    after each of their statements), so that it holds "after every statement", whatever
    ran: a decision's effects, a draw, a loop. Each frame stepped costs one unit of the
    step's budget, and the stack of frames is bounded. (One function, not two: this runs
    once an action.)
    """
    game = s.game
    check = game.end_check
    codes = game.codes
    if pending is not None:
        s.ops = game.step_ops
        code = codes[pending.code]
        try:
            if pending.player == CHANCE:
                code.resolve_chance(s, pending, index)
            else:
                code.resolve_choice(s, pending, index)
            if check is not None and s.dirty and s.in_play:
                s.dirty = False
                if check(s):
                    unwind(s, "round")
        except EndSignal as signal:
            unwind(s, signal.level)
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, code.span) from None
    stack = s.stack
    ends_at = game.ends_at
    while s.pending is None and stack:
        frame = stack[-1]
        end = ends_at[frame[CODE]]
        if end is not None and frame[PC] >= end:
            # a block past its last statement (as a turn is, after its decision): leaving the
            # stack is all its step would do, so it leaves without a call (at the same cost)
            stack.pop()
            s.ops -= 1
            if s.ops < 0:
                overrun(s, codes[frame[CODE]].span)
            continue
        code = codes[frame[CODE]]
        try:
            code.step(s, frame)
            # blocks (an end) check after each of their statements; other steps (a turn starting,
            # a draw) are checked here
            if check is not None and s.dirty and end is None and s.pending is None and s.in_play:
                s.dirty = False
                if check(s):
                    unwind(s, "round")
        except EndSignal as signal:
            unwind(s, signal.level)
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, code.span) from None
        s.ops -= 1
        if s.ops < 0:
            overrun(s, code.span)


def unwind(s: State, level: str) -> None:
    stack = s.stack
    codes = s.game.codes
    if level == "game":
        s.ending = True
        level = "round"
    while stack:
        frame = stack[-1]
        kind = codes[frame[CODE]].level
        if kind == "phase" and level in ("turn", "phase"):
            if level == "phase":
                stack.pop()
            return
        if kind == "round" and level in ("round", "turn", "phase"):
            if frame[STAGE] < 2:
                frame[STAGE] = 2  # straight to scoring
                s.in_play = False
            # already scoring (`end game` there): the round still ends normally
            return
        if kind == "match":
            frame[STAGE] = 2
            return
        stack.pop()


# ====================================================================== flow codes


class MatchCode(Code):
    level = "match"
    layout = MATCH

    def __init__(self, setup: int | None, end_when: list, round_code: int, finish: Callable[[State], None]):
        self.setup = setup
        self.end_when = end_when
        self.round_code = round_code
        self.finish = finish

    def step(self, s: State, frame: list) -> None:
        stage = frame[STAGE]
        if stage == 0:
            frame[STAGE] = 1
            if self.setup is not None:
                s.stack.append([self.setup, 0, {}])
            return
        if stage == 1:
            if s.ending:
                self.end(s)
                return
            s.game.link.start_round(s)
            frame[STAGE] = 2
            s.stack.append([self.round_code, 0, 0])
            return
        if s.ending or any(cond(s, {}) for cond in self.end_when):
            self.end(s)
            return
        frame[STAGE] = 1

    def end(self, s: State) -> None:
        s.stack.clear()
        s.in_play = False
        self.finish(s)


class RoundCode(Code):
    level = "round"
    layout = ROUND

    def __init__(self, setup: int | None, phases: list[int], next_of: list[int], scoring: int | None,
                 end_round: Callable[[State], None]):
        self.setup = setup
        self.phases = phases
        self.next_of = next_of
        self.scoring = scoring
        self.end_round = end_round

    def step(self, s: State, frame: list) -> None:
        stage = frame[STAGE]
        if stage == 0:
            frame[STAGE] = 1
            if self.setup is not None:
                s.stack.append([self.setup, 0, {}])
            return
        if stage == 1:
            pi = frame[NEXT_PHASE]
            if pi < len(self.phases):
                s.in_play = True
                s.dirty = True
                frame[NEXT_PHASE] = self.next_of[pi]
                s.stack.append([self.phases[pi], pi, 0])
                return
            frame[STAGE] = stage = 2
        if stage == 2:
            s.in_play = False
            frame[STAGE] = 3
            if self.scoring is not None:
                s.stack.append([self.scoring, 0, {}])
                return
            # no scoring: the round ends in this step, which pays for the step it saves
            s.ops -= 1
            if s.ops < 0:
                overrun(s, self.span)
        s.stack.pop()
        self.end_round(s)


class PhaseCode(Code):
    """A phase: its turns, seat after seat, until its `end_when` holds.

    ``step(state, frame)`` is a field chosen once, when the phase is linked (``chosen_step``):
    the generated lone turn (a ``t*`` unit: a turn that is one choice, started with it), else
    ``plain_step``'s closure, else ``general_step``."""

    level = "phase"
    layout = PHASE
    step: Callable[[State, list], None]

    def __init__(self, first: Any, order: str, end_when: list, turn_code: BlockCode,
                 start_turn: Callable[[State], None] | None, skip_when: Callable[[State, dict], Any] | None = None,
                 span: Any = None, num_players: int = 0, codegen: Any = None):
        self.span = span
        self.turn_code = turn_code
        self.first = first
        self.order = order
        self.step_by = {"left": 1, "right": -1}.get(order, 0)  # the next seat: this one plus step_by
        self.end_when = end_when
        self.start_turn = start_turn
        self.skip_when = skip_when
        # a turn that is one choice and nothing else: the phase enters the choice itself, and
        # the turn has no frame
        self.lone_choice = lone_choice_of(turn_code)
        self._enter_lone = None if self.lone_choice is None else lone_choice_entry(turn_code)
        self.step = self.chosen_step(num_players, codegen)

    def chosen_step(self, num_players: int, codegen: Any) -> Callable[[State, list], None]:
        """The phase's step: for a phase ``plain_step`` serves whose turn is one choice, the step
        and the choice's entry in one generated call (``codegen_choices.generate_lone_turn``);
        else ``plain_step``'s closure; else ``general_step``."""
        plain = self.plain_step(num_players)
        if plain is None:
            return self.general_step
        if self.lone_choice is not None and codegen is not None:
            lone = generate_lone_turn(codegen, self.lone_choice, push_frame, self.step_by, num_players,
                                      self.general_step, self.turn_code.spans[0])
            if lone is not None:
                return lone  # type: ignore[no-any-return]
        return plain

    def enter_lone_choice(self, s: State) -> None:
        """Start a turn that is one choice (``lone_choice``), errors reported at that statement."""
        assert self._enter_lone is not None
        self._enter_lone(s, {})

    def general_step(self, s: State, frame: list) -> None:
        """Start the next turn: its seat found (the first, a `next`, seats skipped), or the phase left."""
        n = s.game.num_players
        if frame[STARTED] == 0:
            frame[STARTED] = 1
            p = (s.dealer + 1) % n if self.first is None else self.first(s, {})
            if p is None:
                raise RuleError("the phase's `first` player is none")
        elif s.next_seat >= 0:  # a `next` statement chose who moves next
            p = s.next_seat
            s.next_seat = -1
        else:
            p = (s.current + self.step_by) % n
        if self.end_when and any(cond(s, {}) for cond in self.end_when):
            s.stack.pop()
            return
        if self.skip_when is not None or s.skips[p] > 0:
            p = self.seat_to_move(s, p)
            if p < 0:  # every seat is out: nobody can take a turn
                s.stack.pop()
                return
        s.current = p
        if self.start_turn is None:
            s.turn += 1
        else:
            self.start_turn(s)
        if self.lone_choice is not None:
            self.enter_lone_choice(s)
            return
        code = self.turn_code
        frame = [code.index, 0, {}]
        stack = s.stack  # enter_block, in line: this runs once a turn
        stack.append(frame)
        if len(stack) <= DIRECT_DEPTH:
            code.step(s, frame)

    def plain_step(self, num_players: int) -> Callable[[State, list], None] | None:
        """``step`` for a phase with no `end_when`, no `skip_when` and turns that start by only
        being counted, as one closure of its constants: the next turn, in order, when no seat
        has turns to skip and no `next` chose the seat (every other case: ``general_step``). None
        for any other phase. (This runs once a turn.)"""
        if self.end_when or self.skip_when is not None or self.start_turn is not None or not self.step_by:
            return None
        general = self.general_step
        step_by = self.step_by
        turn = self.turn_code
        index = turn.index
        turn_step = turn.step
        # a turn that opens with its decision: its step would only enter it (statement 0)
        opens = turn.entered[0] if turn.entered and not turn.stmts[0][1] else None
        enter = opens.enter if isinstance(opens, ChooseCode) else None
        span = turn.spans[0] if turn.spans else None
        lone = self.enter_lone_choice if self.lone_choice is not None else None  # (no frame for the turn)

        def step(s: State, frame: list) -> None:
            if frame[STARTED] == 0 or s.next_seat >= 0:
                general(s, frame)
                return
            p = (s.current + step_by) % num_players
            if s.skips[p] > 0:
                general(s, frame)
                return
            s.current = p
            s.turn += 1
            if lone is not None:
                lone(s)
                return
            env: dict = {}
            new = [index, 0, env]
            stack = s.stack
            stack.append(new)
            if len(stack) <= DIRECT_DEPTH:
                if enter is None:
                    turn_step(s, new)
                    return
                new[1] = 1
                try:
                    enter(s, env)
                except PYTHON_ERRORS as exc:
                    raise rule_failure(exc, span) from None

        return step

    def seat_to_move(self, s: State, p: int) -> int:
        """The seat that takes the turn from ``p`` on: seats `skip_when` passes over are passed,
        and a seat with turns to skip skips one (an event) and passes; -1 when `skip_when`
        passes over every seat."""
        n = s.game.num_players
        skips = s.skips
        guard = 0
        while guard < 10_000:
            if self.skip_when is not None:
                p = self.seat_not_skipped(s, p)
                if p < 0:
                    return -1
            if skips[p] <= 0:
                break
            skips[p] -= 1
            log_event(s, {"type": "turn_skipped", "player": p}, self.span, 3)
            guard += 1
            p = (p + self.step_by) % n
        return p

    def seat_not_skipped(self, s: State, p: int) -> int:
        """The first seat from ``p`` on, in the phase's order, that `skip_when` does not pass
        over; -1 when it passes over every seat."""
        n = s.game.num_players
        skip = self.skip_when
        assert skip is not None
        for _ in range(n if self.step_by else 1):
            if not skip(s, {"p": p}):
                return p
            p = (p + self.step_by) % n
        return -1
