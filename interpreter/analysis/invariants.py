"""The spec's `invariants:` checked on played matches: the first violation, with what reproduces it.

    failed = game.broken_invariants(state)                # what fails in one state (run_match checks each)
    violation = history_violation(game, seed, history)    # replayed with labels, once a match failed

``simulate.run_match`` checks every invariant after the setup and after every action, in the
process that plays the match; the first failure is replayed from the match's state seed and
actions to say which action it followed. A violation names the match, its seed, the number of the action
after which an invariant failed (0: after the setup), that action, and the invariant's message
and position in the spec.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rulespec.errors import SourceSpan

from ..errors import InterpreterError
from ..game import Game
from ..state import CHANCE

__all__ = ["Violation", "InvariantError", "match_violation", "history_violation"]


@dataclass(frozen=True)
class Violation:
    """An invariant that did not hold in a match."""

    match: int
    seed: int  # the state seed of the match
    action: int  # how many actions had been applied (0: right after the setup)
    label: str  # who took that action and what it was ("" after the setup)
    message: str  # the invariant's message
    span: SourceSpan  # where the invariant is written
    detail: str = ""  # why it could not be evaluated, when it could not

    def text(self) -> str:
        """What failed and after which action, without the match: `after action 7 (...): file:l:c: ...`."""
        where = "after the setup" if self.action == 0 else f"after action {self.action} ({self.label})"
        detail = f" ({self.detail})" if self.detail else ""
        return f"{where}: {self.span}: invariant failed: {self.message}{detail}"

    def __str__(self) -> str:
        return f"match {self.match} (seed {self.seed}), {self.text()}"


class InvariantError(InterpreterError):
    """An invariant failed in a played match (the CLI reports it as a rule failure: exit status 1)."""

    def __init__(self, violation: Violation):
        super().__init__(str(violation))
        self.violation = violation

    def __reduce__(self) -> tuple[Any, ...]:  # it travels from a worker process whole
        return (InvariantError, (self.violation,))


def _who(game: Game, player: int) -> str:
    if player == CHANCE:
        return "chance"
    names = game.seat_names
    return names[player] if 0 <= player < len(names) else f"player {player}"


def match_violation(game: Game, seed: int, moves: Iterable[tuple[int, int, str]], match: int = 0
                    ) -> Violation | None:
    """The first invariant failing when the match of state seed ``seed`` is replayed with ``moves``."""
    state = game.new_initial_state(seed)
    label = ""
    for number, move in enumerate([(CHANCE, -1, "")] + list(moves)):
        if number:
            player, action, text = move
            label = f"{_who(game, player)}: {text}"
            state.apply_action(action)
        failed = game.broken_invariants(state)
        if failed:
            message, span, detail = failed[0]
            return Violation(match, seed, number, label, message, span, detail)
    return None


def history_violation(game: Game, seed: int, history: Sequence[int], match: int = 0) -> Violation | None:
    """The first invariant failing when the match of state seed ``seed`` is replayed with the action
    ids ``history`` (labels are made on the way: only for a match known to fail, so play stays cheap)."""
    state = game.new_initial_state(seed)
    moves = []
    for action in history:
        moves.append((state.current_player(), action, state.action_to_string(action)))
        state.apply_action(action)
    return match_violation(game, seed, moves, match)
