"""The spec's `invariants:` checked on played matches: the first violation, with what reproduces it.

    violation = first_violation(game, result.records)    # the matches of a simulation (their moves kept)
    violation = play_case(game, matches=20)               # random matches of one player count and options

A match is replayed from its state seed and its moves, and every invariant is checked after the
setup and after every action, so the check sees exactly the states the match went through,
whichever process played it. A violation names the match, its seed, the number of the action
after which an invariant failed (0: after the setup), that action, and the invariant's message
and position in the spec.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rulespec.errors import SourceSpan

from .budget import start_step
from .errors import InterpreterError, RuleError
from .game import Game
from .state import CHANCE, State

__all__ = ["Violation", "InvariantError", "broken_invariants", "match_violation", "first_violation", "play_case",
           "check_simulation"]


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


def broken_invariants(game: Game, state: State) -> list[tuple[str, SourceSpan, str]]:
    """(message, position, why it could not be evaluated or "") of each invariant failing in ``state``."""
    failed = []
    start_step(state)
    for message, check, span in game.link.invariants:
        try:
            if not check(state, {}):
                failed.append((message, span, ""))
        except RuleError as exc:
            failed.append((message, span, f"could not be evaluated: {exc}"))
    return failed


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
        failed = broken_invariants(game, state)
        if failed:
            message, span, detail = failed[0]
            return Violation(match, seed, number, label, message, span, detail)
    return None


def first_violation(game: Game, records: Iterable[Any], progress: Callable[[int], None] | None = None
                    ) -> Violation | None:
    """The first violation in ``records`` (simulation records whose moves were kept), in match order."""
    if not game.link.invariants:
        return None
    if progress is not None:
        progress(0)
    for done, record in enumerate(records, 1):
        violation = match_violation(game, record.seed, record.moves or [], record.index)
        if violation is not None:
            return violation
        if progress is not None:
            progress(done)
    return None


def check_simulation(result: Any, root: str | None = None, progress: Callable[[int], None] | None = None) -> None:
    """Raise ``InvariantError`` for the first violation among the matches of a simulation's ``result``."""
    from .game import load_game

    game = load_game(result.spec, players=result.players, options=result.options, root=root)
    violation = first_violation(game, result.records, progress)
    if violation is not None:
        raise InvariantError(violation)


def play_case(game: Game, matches: int, agents: Sequence[str] | None = None) -> tuple[int, str] | None:
    """Play ``matches`` bot matches (random bots by default), match ``i`` being the one that
    ``rulespec play --seed i`` plays with the same agents. The first failing match: its seed
    ``i`` and what failed (an invariant, or a rule's error); None when every match held."""
    from .simulate import MatchError, expand_agents, match_seeds, run_match

    seats = expand_agents(agents, game.num_players)
    for seed in range(matches):
        state_seed, agent_seeds = match_seeds(seed, 0, game.num_players)
        try:
            record = run_match(game, seats, state_seed, agent_seeds, seed, keep_moves=True)
        except MatchError as exc:
            return seed, str(exc).removeprefix(f"match {seed} (seed {state_seed}): ")
        violation = match_violation(game, state_seed, record.moves or [], seed)
        if violation is not None:
            return seed, violation.text()
    return None
