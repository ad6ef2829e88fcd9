"""Many bot matches of one spec: seeds, one match (``run_match``), a run of many in this
process or in worker processes (``simulate``).

    result = simulate("games/x.yaml", games=1000, agents=["mcts", "random"], seed=1, jobs=4)
    summary = summarize(result)         # JSON-ready statistics (``summary``)
    print_summary(summary, console)     # rich tables

Every match draws its seeds from ``seed`` and its index (``match_seeds``), and its bots
seed every choice from their own seed and the move number, so the results are the same
whatever the number of worker processes (``pool``). Workers load the spec themselves; results
are merged in match order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..agents import AgentError, derive_seed, make_agent
from ..errors import InterpreterError, RuleError
from ..game import Game, load_game
from ..state import CHANCE, State
from .invariants import InvariantError, history_violation
from .match_counts import MatchCounter
from .pool import Pool, chunk_size, chunked, forks, max_jobs, worker_error
from .stats import Tally

__all__ = [
    "MatchRecord", "SimulationResult", "simulate", "simulate_game", "run_match", "match_seeds", "seat_agents",
    "expand_agents", "play_case", "tally_counts", "MatchError", "MatchStopped", "MAX_GAMES", "MatchWorker",
    "match_error",
]

SEED_MODULUS = 2**32
MAX_GAMES = 10_000_000  # matches in one run


class MatchError(InterpreterError):
    """A match of a run failed: ``match 3 (seed 17): file:line:col: <the rule's error>``."""


# ====================================================================== running matches


@dataclass
class MatchRecord:
    """What one match produced (and, when logging, its actions)."""

    index: int
    seed: int
    agents: list[str]
    agent_seeds: list[int]
    winners: list[int]
    returns: list[float]
    totals: list[float]
    rounds: int
    actions: int
    first_player: int | None
    lead_changes: int
    moves: list[tuple[int, int, str]] | None = None  # (player, action, label) when logging
    counts: dict[tuple[Any, ...], int] | None = None  # chosen, moved, emitted (``match_counts``), until tallied


@dataclass
class SimulationResult:
    spec: str
    game: str
    players: int
    options: dict[str, Any]
    seat_names: list[str]
    agents: list[str]
    rotate: bool
    seed: int
    records: list[MatchRecord] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)  # every match's counts, summed (``match_counts``)
    card_kinds: list[str] = field(default_factory=list)  # in the spec's order, to order tables
    action_names: list[str] = field(default_factory=list)
    zone_names: list[str] = field(default_factory=list)


def match_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """The state seed and the seats' agent seeds of match ``index`` of a run seeded ``seed``."""
    state_seed = derive_seed(seed, "match", index) % SEED_MODULUS
    agent_seeds = [derive_seed(seed, "agent", index, p) % SEED_MODULUS for p in range(players)]
    return state_seed, agent_seeds


def seat_agents(agents: Sequence[str], index: int, rotate: bool) -> list[str]:
    """The agent of each seat in match ``index``: the list as given, or rotated one seat per match."""
    n = len(agents)
    if not rotate:
        return list(agents)
    shift = index % n
    return [agents[(p - shift) % n] for p in range(n)]


def expand_agents(agents: Sequence[str] | None, players: int, default: str = "random") -> list[str]:
    """One agent per seat: none given -> ``default`` everywhere; one -> every seat; else exactly one per seat."""
    items = [a.strip() for a in (agents or []) if a.strip()]
    if not items:
        return [default] * players
    if len(items) == 1:
        return items * players
    if len(items) != players:
        raise AgentError(f"{len(items)} agents for {players} players: give one agent for every seat, or just one")
    return items


def _lead_changes(events: list[dict[str, Any]]) -> int:
    changes = 0
    leader: int | None = None
    for event in events:
        if event.get("type") != "round_end":
            continue
        totals = event.get("totals") or []
        if not totals:
            continue
        best = max(totals)
        leaders = [p for p, t in enumerate(totals) if t == best]
        if len(leaders) != 1:
            continue
        if leader is not None and leaders[0] != leader:
            changes += 1
        leader = leaders[0]
    return changes


class MatchStopped(Exception):
    """A match stopped before its end because its caller asked (``run_match``'s ``stop``)."""


def run_match(game: Game, agents: Sequence[str], state_seed: int, agent_seeds: Sequence[int], index: int = 0,
              keep_moves: bool = False, counter: MatchCounter | None = None,
              invariants: bool = False, stop: Callable[[], bool] | None = None) -> MatchRecord:
    """Play one match between bots to its end; with a ``counter``, the record carries its counts.
    With ``invariants``, the spec's invariants are checked after the setup and after every action:
    the first that fails raises ``InvariantError`` (naming the match, its seed and the action).
    With ``stop``, asked before every action: when it says so, ``MatchStopped`` ends the match."""
    import random

    bots = [make_agent(spec, game, p, agent_seeds[p]) for p, spec in enumerate(agents)]
    check = invariants and bool(game.link.invariants)
    first: int | None = None
    moves: list[tuple[int, int, str]] | None = [] if keep_moves else None
    try:
        state = game.new_initial_state(state_seed)
        if check:
            _check_invariants(game, state, state_seed, index)
        if counter is not None:
            counter.start(state)
        chance_rng = random.Random(derive_seed(state_seed, "chance"))
        while not state.is_terminal():
            if stop is not None and stop():
                raise MatchStopped(f"match {index} stopped")
            player = state.current_player()
            if player == CHANCE:
                action = state.sample_chance_outcome(chance_rng)
            elif player < 0:
                raise RuleError(f"the rules stopped without a decision (player {player})")
            else:
                action = bots[player].step(state)
                if first is None:
                    first = player
            if moves is not None:
                moves.append((player, action, state.action_to_string(action)))
            if counter is not None and player >= 0:
                counter.chose(player, action)
            state.apply_action(action)
            if check:
                _check_invariants(game, state, state_seed, index)
            if counter is not None:
                counter.moved(state)
    except (InvariantError, MatchStopped):
        raise
    except (InterpreterError, AgentError) as exc:
        raise MatchError(f"match {index} (seed {state_seed}): {exc}") from None
    events = state.events
    return MatchRecord(
        index=index, seed=state_seed, agents=[b.label for b in bots], agent_seeds=list(agent_seeds),
        winners=state.winners(), returns=state.returns(), totals=state.scores(),
        rounds=sum(1 for e in events if e.get("type") == "round_end"), actions=len(state.history),
        first_player=first, lead_changes=_lead_changes(events), moves=moves,
        counts=counter.finish(state) if counter is not None else None,
    )


def _check_invariants(game: Game, state: State, seed: int, index: int) -> None:
    if game.broken_invariants(state):
        violation = history_violation(game, seed, state.history, index)
        assert violation is not None  # the replay is the same match
        raise InvariantError(violation)


def play_case(game: Game, matches: int, agents: Sequence[str] | None = None) -> tuple[int, str] | None:
    """Play ``matches`` bot matches (random bots by default), match ``i`` being the one that
    ``rulespec play --seed i`` plays with the same agents, invariants checked. The first failing
    match: its seed ``i`` and what failed (an invariant, or a rule's error); None when every match held."""
    seats = expand_agents(agents, game.num_players)
    for seed in range(matches):
        state_seed, agent_seeds = match_seeds(seed, 0, game.num_players)
        try:
            run_match(game, seats, state_seed, agent_seeds, seed, invariants=True)
        except InvariantError as exc:
            return seed, exc.violation.text()
        except MatchError as exc:
            return seed, str(exc).removeprefix(f"match {seed} (seed {state_seed}): ")
    return None


def tally_counts(records: Sequence[MatchRecord], tally: Tally) -> None:
    """Add the records' counts to ``tally`` and drop them from the records (they are large)."""
    for record in records:
        if record.counts is not None:
            tally.add(record.counts)
            record.counts = None


# ====================================================================== a run of many matches


class MatchWorker:
    """A worker process of a run (``pool.Pool``): the game loaded (or the parent's, when the
    process is its fork), then the chunks of matches it is sent played in order; at the end
    (``finish``) the tally of all their counts."""

    def __init__(self, path: str, players: int, options: dict[str, Any], root: str | None,
                 forked: Game | None = None):
        self.game = forked if forked is not None else load_game(path, players=players, options=options, root=root)
        self.counter = MatchCounter(self.game)
        # the counts travel once, summed over every chunk this worker played (the sums do not
        # depend on the chunks): a tally per chunk was most of what the parent had to do
        self.tally = Tally()

    def run(self, tasks: list[Any]) -> list[MatchRecord]:
        records = [run_match(self.game, seats, state_seed, agent_seeds, index, keep, self.counter, checked)
                   for index, seats, state_seed, agent_seeds, keep, checked in tasks]
        tally_counts(records, self.tally)
        return records

    def finish(self) -> Tally:
        return self.tally


def match_error(exc: BaseException) -> BaseException:
    """An exception of a worker as it travels to the parent: a match's failure as it is (it
    pickles), the engine's other errors as a ``MatchError``, anything else as a ``WorkerError``."""
    if isinstance(exc, (MatchError, InvariantError)):
        return exc
    if isinstance(exc, InterpreterError):
        return MatchError(f"{type(exc).__name__}: {exc}")
    return worker_error(exc)


def simulate(path: str, games: int, agents: Sequence[str] | None = None, players: int | None = None,
             options: dict[str, Any] | None = None, seed: int = 0, jobs: int = 1, rotate: bool = False,
             keep_moves: bool = False, progress: Callable[[int], None] | None = None,
             root: str | None = None, invariants: bool = False) -> SimulationResult:
    """Play ``games`` bot matches of the spec at ``path``; the same arguments give the same records
    whatever ``jobs`` is. A rule failing in a match raises ``MatchError`` naming the match and its seed;
    with ``invariants``, an invariant failing raises ``InvariantError`` (the first in match order)."""
    if not 0 <= games <= MAX_GAMES:
        raise ValueError(f"games must be from 0 to {MAX_GAMES}")
    game = load_game(path, players=players, options=options or {}, root=root)
    return simulate_game(game, path, games, agents, seed, jobs, rotate, keep_moves, progress, root, invariants)


def simulate_game(game: Game, spec: str, games: int, agents: Sequence[str] | None = None, seed: int = 0,
                  jobs: int = 1, rotate: bool = False, keep_moves: bool = False,
                  progress: Callable[[int], None] | None = None, root: str | None = None,
                  invariants: bool = False, stop: Callable[[], bool] | None = None) -> SimulationResult:
    """``simulate`` of a game already loaded (``spec`` names it in the result). With ``stop``
    (one process only), the run ends before a match when ``stop()`` is true: the result holds
    the matches played so far."""
    if not 0 <= games <= MAX_GAMES:
        raise ValueError(f"games must be from 0 to {MAX_GAMES}")
    n = game.num_players
    # bad names and parameters fail here, before any match; labels are normalised (mcts -> mcts:200)
    seat_specs = [make_agent(spec, game, p, 0).label for p, spec in enumerate(expand_agents(agents, n))]
    result = SimulationResult(spec=spec, game=game.name, players=n, options=dict(game.options),
                              seat_names=game.seat_names, agents=seat_specs, rotate=rotate, seed=seed,
                              card_kinds=list(game.cards.kind_names),
                              action_names=[a.name for a in game.link.actions.specs],
                              zone_names=list(dict.fromkeys(game.link.zone_family)))

    def tasks() -> Iterator[tuple[int, list[str], int, list[int], bool, bool]]:
        for index in range(games):
            state_seed, agent_seeds = match_seeds(seed, index, n)
            yield index, seat_agents(seat_specs, index, rotate), state_seed, agent_seeds, keep_moves, invariants

    jobs = max(1, min(int(jobs), games, max_jobs())) if games and stop is None else 1
    if jobs == 1:  # the worker of a pool, in this process
        worker = MatchWorker(spec, n, dict(game.options), root, game)
        for task in tasks():
            if stop is not None and stop():
                break
            result.records += worker.run([task])
            if progress is not None:
                progress(len(result.records))
        result.tally.merge(worker.finish())
        return result
    # chunks of several matches keep inter-process traffic small; records come back in match order;
    # a forked worker has the parent's game, loaded and linked already (a fresh interpreter loads its own)
    start = partial(MatchWorker, spec, n, dict(game.options), root, game if forks() else None)
    with Pool(jobs, start, errors=match_error) as pool:
        for _, records in pool.run(chunked(tasks(), chunk_size(games, jobs))):
            for record in records:
                result.records.append(record)
                if progress is not None:
                    progress(len(result.records))
        for tally in pool.finish():
            result.tally.merge(tally)
    return result
