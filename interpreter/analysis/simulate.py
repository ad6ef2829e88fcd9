"""Many bot matches of one spec: seeds, parallel runs, statistics, tables, plots, comparisons.

    result = simulate("games/x.yaml", games=1000, agents=["mcts", "random"], seed=1, jobs=4)
    summary = summarize(result)         # JSON-ready statistics
    print_summary(summary, console)     # rich tables

Every match draws its seeds from ``seed`` and its index (``match_seeds``), and its bots
seed every choice from their own seed and the move number, so the results are the same
whatever the number of worker processes. Workers load the spec themselves; results are
merged in match order.

Win rates count a shared win (several winners) as an equal share for each winner; their
95% confidence intervals are Wilson score intervals. ``compare`` tests differences
between two runs: two-proportion z-tests for rates, Welch z-tests for means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from ..agents import AgentError, derive_seed, make_agent
from ..errors import InterpreterError, RuleError
from ..game import Game, load_game
from ..state import CHANCE, State
from .invariants import InvariantError, history_violation
from .match_counts import ENGINE_EVENTS, MatchCounter, compared_counts, summarize_counts
from .pool import Pool, chunk_size, chunked, forks, max_jobs, worker_error
from .stats import Tally, describe, difference, histogram, holm, one_proportion_p, two_proportion_p, welch_p, wilson

__all__ = [
    "MatchRecord", "SimulationResult", "simulate", "simulate_game", "run_match", "match_seeds", "seat_agents",
    "expand_agents", "summarize", "print_summary", "compare", "print_comparison", "plot", "wilson", "two_proportion_p",
    "welch_p", "SIGNIFICANCE", "run_name", "MatchError", "MAX_GAMES", "win_share", "MatchWorker", "match_error",
]

SIGNIFICANCE = 0.05
SHOWN_COUNTS = 12  # significant differences of counts printed by a comparison (all are in its JSON)
HISTOGRAM_BINS = 12  # of the histograms in a summary (and its table)
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


def run_match(game: Game, agents: Sequence[str], state_seed: int, agent_seeds: Sequence[int], index: int = 0,
              keep_moves: bool = False, counter: MatchCounter | None = None,
              invariants: bool = False) -> MatchRecord:
    """Play one match between bots to its end; with a ``counter``, the record carries its counts.
    With ``invariants``, the spec's invariants are checked after the setup and after every action:
    the first that fails raises ``InvariantError`` (naming the match, its seed and the action)."""
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
    except InvariantError:
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


# ====================================================================== statistics


def win_share(record: MatchRecord, seat: int) -> float:
    """The seat's share of the match's win: 1 / the number of winners, 0 when it did not win."""
    return 1.0 / len(record.winners) if seat in record.winners else 0.0


def summarize(result: SimulationResult) -> dict[str, Any]:
    """JSON-ready statistics of a run."""
    records = result.records
    games = len(records)
    n = result.players
    seats = []
    for p in range(n):
        wins = sum(win_share(r, p) for r in records)
        low, high = wilson(wins, games)
        agent = result.agents[p] if not result.rotate else "(rotating)"
        seats.append({
            "seat": p, "name": result.seat_names[p], "agent": agent, "wins": wins,
            "win_rate": wins / games if games else 0.0, "ci": [low, high],
            "score": describe([float(r.totals[p]) for r in records]),
        })
    by_agent: dict[str, list[float]] = {}
    for r in records:
        for p, label in enumerate(r.agents):
            by_agent.setdefault(label, []).append(win_share(r, p))
    agents = []
    for label, shares in by_agent.items():
        wins = sum(shares)
        low, high = wilson(wins, len(shares))
        agents.append({"agent": label, "seats_played": len(shares), "wins": wins,
                       "win_rate": wins / len(shares), "ci": [low, high]})
    skipped = _first_player_skipped(result)
    margins = [m for m in map(winning_margin, records) if m is not None]
    return {
        "spec": result.spec, "game": result.game, "players": n, "options": result.options,
        "agents": result.agents, "rotate": result.rotate, "seed": result.seed, "games": games,
        "seats": seats, "by_agent": agents,
        "rounds": describe([float(r.rounds) for r in records]),
        "actions": describe([float(r.actions) for r in records]),
        "lead_changes": describe([float(r.lead_changes) for r in records]),
        "margin": {**describe(margins), "matches": len(margins)},
        "histograms": {
            "actions": histogram([float(r.actions) for r in records], bins=HISTOGRAM_BINS),
            "rounds": histogram([float(r.rounds) for r in records], bins=HISTOGRAM_BINS),
            "margin": histogram(margins, bins=HISTOGRAM_BINS),
        },
        "first_player": _first_player_advantage(records, n) if skipped is None else None,
        "first_player_skipped": skipped,
        "shared_wins": sum(1 for r in records if len(r.winners) > 1),
        "no_winner": sum(1 for r in records if not r.winners),
        **summarize_counts(result.tally, n, result.card_kinds, result.action_names, result.zone_names,
                           result.seat_names),
    }


def winning_margin(record: MatchRecord) -> float | None:
    """How far the winners were from the nearest other seat: the smallest difference between a
    winner's total and a loser's (whichever way the scores run); None when every seat won or none did."""
    losers = [p for p in range(len(record.totals)) if p not in record.winners]
    if not record.winners or not losers:
        return None
    return float(min(abs(record.totals[w] - record.totals[p]) for w in record.winners for p in losers))


def _first_player_skipped(result: SimulationResult) -> str | None:
    """Why the first-player-advantage test does not apply to a run (None when it does)."""
    if result.players < 2:
        return "one player"
    if not any(r.first_player is not None for r in result.records):
        return "no match had a decision"
    if len(set(result.agents)) > 1 and not result.rotate:
        return "the seats run different agents: the first seat's wins would measure its agent too; use --rotate"
    return None


def _first_player_advantage(records: list[MatchRecord], n: int) -> dict[str, Any]:
    """How often the seat that moved first won, against a fair share."""
    firsts = [r for r in records if r.first_player is not None]
    first_wins = sum(win_share(r, r.first_player) for r in firsts if r.first_player is not None)
    low, high = wilson(first_wins, len(firsts))
    return {"games": len(firsts), "wins": first_wins, "win_rate": first_wins / len(firsts) if firsts else 0.0,
            "ci": [low, high], "expected": 1.0 / n, "p": one_proportion_p(first_wins, len(firsts), 1.0 / n)}


def records_json(result: SimulationResult) -> list[dict[str, Any]]:
    out = []
    for r in result.records:
        data = asdict(r)
        data.pop("moves", None)
        data.pop("counts", None)
        data["margin"] = winning_margin(r)
        out.append(data)
    return out


# ====================================================================== printing


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(ci: Sequence[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _num(x: float) -> str:
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.1f}"


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def options_text(options: dict[str, Any]) -> str:
    """Options as ``k=v, ...`` for a report heading (``none`` when there are none)."""
    import json

    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in options.items()) or "none"


def report_table(title: str) -> Any:
    """A rich table in the style of every report (simulate, ladder)."""
    from rich import box
    from rich.table import Table

    return Table(title=title, box=box.SIMPLE, title_justify="left", show_edge=False)


def print_summary(summary: dict[str, Any], console: Any, by_seat: bool = False) -> None:
    """The statistics of a run as tables (``by_seat``: the card tables per seat too)."""
    games = summary["games"]
    console.print(f"[bold]{summary['game']}[/bold]: {games} matches, {summary['players']} players, "
                  f"seed {summary['seed']}", highlight=False)
    seat_text = ", ".join(f"{s['name']} {a}" for s, a in zip(summary["seats"], summary["agents"]))
    console.print(f"agents: {seat_text}" + (" (rotated one seat each match)" if summary["rotate"] else ""),
                  highlight=False)
    console.print(f"options: {options_text(summary['options'])}", highlight=False)
    console.print()

    table = report_table("Win rate per seat")
    for name, justify in (("seat", "left"), ("agent", "left"), ("wins", "right"), ("win rate", "right"),
                          ("95% CI", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in summary["seats"]:
        table.add_row(s["name"], s["agent"], _num(s["wins"]), _pct(s["win_rate"]), _ci(s["ci"]))
    console.print(table)
    console.print()

    if len(summary["by_agent"]) > 1 or summary["rotate"]:
        table = report_table("Win rate per agent (per seat played)")
        for name, justify in (("agent", "left"), ("seats played", "right"), ("wins", "right"),
                              ("win rate", "right"), ("95% CI", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for a in summary["by_agent"]:
            table.add_row(a["agent"], str(a["seats_played"]), _num(a["wins"]), _pct(a["win_rate"]), _ci(a["ci"]))
        console.print(table)
        console.print()

    table = report_table("Final score per seat")
    for name in ("seat", "mean", "sd", "min", "median", "max"):
        table.add_column(name, justify="left" if name == "seat" else "right")
    for s in summary["seats"]:
        d = s["score"]
        table.add_row(s["name"], f"{d['mean']:.1f}", f"{d['sd']:.1f}", _num(d["min"]), _num(d["median"]),
                      _num(d["max"]))
    console.print(table)
    console.print()

    table = report_table("Per match")
    for name in ("", "mean", "sd", "min", "median", "max"):
        table.add_column(name, justify="left" if not name else "right")
    rows = [("rounds", "rounds"), ("actions", "actions"), ("lead_changes", "lead changes")]
    if summary["margin"]["matches"]:
        rows.append(("margin", "winning margin"))
    for key, label in rows:
        d = summary[key]
        table.add_row(label, f"{d['mean']:.1f}", f"{d['sd']:.1f}", _num(d["min"]), _num(d["median"]),
                      _num(d["max"]))
    console.print(table)
    console.print()
    _print_histogram(summary["histograms"]["actions"], "Match length (actions per match)", console)
    _print_counts(summary, console, by_seat)

    first = summary["first_player"]
    skipped = summary["first_player_skipped"]
    if skipped is not None and summary["players"] > 1:
        console.print(f"First-player advantage: not tested ({skipped})", highlight=False)
    if first is not None:
        verdict = "significant" if first["p"] < SIGNIFICANCE else "not significant"
        console.print(f"First-player advantage: the seat that moved first won {_pct(first['win_rate'])} "
                      f"{_ci(first['ci'])} of {first['games']} matches; a fair share is {_pct(first['expected'])} "
                      f"(p {'= ' if first['p'] >= 0.001 else ''}{_p(first['p'])}, {verdict})", highlight=False)
    shared = summary["shared_wins"]
    console.print(f"Shared wins: {shared} of {games} matches ({_pct(shared / games if games else 0.0)})"
                  + (f"; no winner: {summary['no_winner']}" if summary["no_winner"] else ""), highlight=False)


def _print_histogram(hist: dict[str, Any], title: str, console: Any, width: int = 40) -> None:
    counts, edges = hist["counts"], hist["edges"]
    if not any(counts):
        return
    table = report_table(title)
    for name, justify in (("from", "right"), ("to", "right"), ("matches", "right"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    top = max(counts)
    for i, count in enumerate(counts):
        high = edges[i + 1] - 1 if float(edges[i + 1]).is_integer() else edges[i + 1]
        table.add_row(_num(edges[i]), _num(high), str(count), "#" * round(width * count / top))
    console.print(table)
    console.print()


def _per_match(total: float, games: int) -> str:
    return f"{total / games:.2f}" if games else "0"


def _print_counts(summary: dict[str, Any], console: Any, by_seat: bool) -> None:
    """Actions chosen per seat, cards chosen and moved per kind, events per seat: means per match."""
    games = summary["games"]
    seat_names = [s["name"] for s in summary["seats"]]
    if summary["actions_chosen"]:
        _print_per_seat("Actions chosen per match", "action", summary["actions_chosen"], "action", seat_names,
                        games, console)
    cards = [e for e in summary["parameters"] if e["type"] == "card"]
    columns = list(dict.fromkeys((e["action"], e["param"]) for e in cards))
    several = {action for action, _ in columns if sum(1 for a, _ in columns if a == action) > 1}
    labels = {(a, p): f"{a}.{p}" if a in several else a for a, p in columns}
    _print_card_table("Cards chosen per match, by action", summary["cards"]["kinds"], cards,
                      lambda e: labels[e["action"], e["param"]], console, games)
    entered = summary["cards"]["entered"]
    _print_card_table("Cards moved per match, by the zone they entered", summary["cards"]["kinds"], entered,
                      lambda e: e["zone"], console, games)
    if by_seat:
        for column, label in labels.items():
            rows = [e for e in cards if (e["action"], e["param"]) == column]
            _print_per_seat(f"Cards chosen in '{label}' per match, by seat", "card", rows, "value", seat_names,
                            games, console)
        for zone in dict.fromkeys(e["zone"] for e in entered):
            rows = [e for e in entered if e["zone"] == zone]
            _print_per_seat(f"Cards entering {zone} per match, by seat", "card", rows, "kind", seat_names,
                            games, console)
    events = [e for e in summary["events"] if e["event"] not in ENGINE_EVENTS]
    if events:
        _print_per_seat("Events per match", "event", events, "event", seat_names, games, console)


def _print_per_seat(title: str, heading: str, rows: list[dict[str, Any]], field_name: str, seat_names: list[str],
                    games: int, console: Any) -> None:
    table = report_table(title)
    table.add_column(heading)
    no_seat = any(r.get("no_seat") for r in rows)
    for name in seat_names + (["no seat"] if no_seat else []) + ["all"]:
        table.add_column(name, justify="right")
    for r in rows:
        cells = [_per_match(x, games) for x in r["seats"]]
        if no_seat:
            cells.append(_per_match(r.get("no_seat", 0), games))
        table.add_row(str(r[field_name]), *cells, _per_match(r["total"], games))
    console.print(table)
    console.print()


def _print_card_table(title: str, kinds: list[str], entries: list[dict[str, Any]], column_of: Callable[[Any], str],
                      console: Any, games: int) -> None:
    """Card kinds down, one column per action (or zone): the mean count per match."""
    if not entries:
        return
    columns = list(dict.fromkeys(column_of(e) for e in entries))
    cells: dict[tuple[str, str], float] = {}
    for e in entries:
        cells[str(e.get("value", e.get("kind"))), column_of(e)] = e["total"]
    table = report_table(title)
    table.add_column("card")
    for column in columns:
        table.add_column(column, justify="right")
    for kind in kinds:
        if any((kind, c) in cells for c in columns):
            table.add_row(kind, *(_per_match(cells.get((kind, c), 0), games) for c in columns))
    console.print(table)
    console.print()


# ====================================================================== comparing two runs


def compare(a: SimulationResult, b: SimulationResult) -> list[dict[str, Any]]:
    """Every compared metric: its value in each run, the difference B - A with its 95% interval,
    the standardised effect with its interval, the p-value, and the p-value adjusted for the
    number of metrics compared (Holm-Bonferroni); ``significant`` is the adjusted p-value below
    ``SIGNIFICANCE``, so that among all the metrics the chance of any false alarm is at most 5%."""
    rows = [{"metric": label, "group": group, **difference(kind, xs, ys)}
            for group, label, kind, xs, ys in _compared_values(a, b)]
    for group, label, key in compared_counts(a.tally, b.tally):
        rows.append({"metric": label, "group": group, **a.tally.difference(b.tally, key)})
    for row, adjusted in zip(rows, holm([row["p"] for row in rows])):
        row["p_adjusted"] = adjusted
        row["significant"] = adjusted < SIGNIFICANCE
    return rows


def _compared_values(a: SimulationResult, b: SimulationResult) -> Iterator[tuple[str, str, str, list[float],
                                                                                  list[float]]]:
    """(group, metric, kind, per-match values of A, of B) of the outcome and length metrics."""
    seats = range(min(a.players, b.players))
    for p in seats:
        yield ("outcome", f"win rate {a.seat_names[p]}", "rate", [win_share(r, p) for r in a.records],
               [win_share(r, p) for r in b.records])
    agents_a, agents_b = _agent_shares(a), _agent_shares(b)
    if len(agents_a) > 1 or len(agents_b) > 1:
        for label in agents_a:
            if label in agents_b:
                yield "outcome", f"win rate {label}", "rate", agents_a[label], agents_b[label]
    for p in seats:
        yield ("outcome", f"final score {a.seat_names[p]}", "mean", [float(r.totals[p]) for r in a.records],
               [float(r.totals[p]) for r in b.records])
    margins_a = [m for m in map(winning_margin, a.records) if m is not None]
    margins_b = [m for m in map(winning_margin, b.records) if m is not None]
    if margins_a and margins_b:
        yield "outcome", "winning margin", "mean", margins_a, margins_b
    if _first_player_skipped(a) is None and _first_player_skipped(b) is None:
        yield ("outcome", "first player's win rate", "rate", _first_player_shares(a), _first_player_shares(b))
    yield ("outcome", "shared wins", "rate", [float(len(r.winners) > 1) for r in a.records],
           [float(len(r.winners) > 1) for r in b.records])
    for field_name, label in (("rounds", "rounds per match"), ("actions", "actions per match"),
                              ("lead_changes", "lead changes per match")):
        yield ("length", label, "mean", [float(getattr(r, field_name)) for r in a.records],
               [float(getattr(r, field_name)) for r in b.records])


def _first_player_shares(result: SimulationResult) -> list[float]:
    return [win_share(r, r.first_player) for r in result.records if r.first_player is not None]


def _agent_shares(result: SimulationResult) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in result.records:
        for p, label in enumerate(r.agents):
            out.setdefault(label, []).append(win_share(r, p))
    return out


def run_name(result: SimulationResult, other: SimulationResult | None = None, short: bool = False) -> str:
    """A run named by its spec, and by the options that differ from the other run's."""
    import os

    changed = {k: v for k, v in result.options.items() if other is not None and other.options.get(k) != v}
    spec = os.path.basename(result.spec) if short else f"{result.spec} ({result.game})"
    return spec + (f" with {options_text(changed)}" if changed else "")


def print_comparison(rows: list[dict[str, Any]], a: SimulationResult, b: SimulationResult, console: Any) -> None:
    """Both runs side by side, then the differences that are significant once corrected for the
    number of metrics compared."""
    console.print(f"[bold]Comparison[/bold]: A = {run_name(a, b)}, B = {run_name(b, a)}; "
                  f"{len(a.records)} and {len(b.records)} matches with the same seeds", highlight=False)
    console.print()
    main = [r for r in rows if r["group"] in ("outcome", "length")]
    counted = [r for r in rows if r not in main]
    _print_comparison_table("Side by side (* = significant: Holm-adjusted p < 0.05)", main, console)
    significant_counts = [r for r in counted if r["significant"]]
    if significant_counts:
        largest = sorted(significant_counts, key=_effect_order)[:SHOWN_COUNTS]
        more = len(significant_counts) - len(largest)
        _print_comparison_table(f"Actions, cards and events per match: {len(significant_counts)} of the "
                                f"{len(counted)} compared differ significantly"
                                + (f"; the {len(largest)} largest effects (all in --json)" if more else ""),
                                largest, console)
    elif counted:
        console.print(f"Actions, cards and events: none of the {len(counted)} compared differs significantly.",
                      highlight=False)
        console.print()
    significant = [r for r in rows if r["significant"]]
    what = f"{len(rows)} metrics compared, Holm-adjusted p < {SIGNIFICANCE}"
    if not significant:
        console.print(f"No significant difference among the {what}.", highlight=False)
        return
    console.print(f"Significant differences, {len(significant)} of the {what}:", highlight=False)
    for r in significant:
        if r in main:
            a_text, b_text, diff = _comparison_cells(r)
            console.print(f"  {r['metric']}: {a_text} -> {b_text} ({diff} [{_difference_ci(r)[1:-1]}], "
                          f"adjusted p {'= ' if r['p_adjusted'] >= 0.001 else ''}{_p(r['p_adjusted'])})",
                          highlight=False)
    if significant_counts:
        console.print(f"  and {len(significant_counts)} counts of actions, cards and events (table above)",
                      highlight=False)


def _effect_order(row: dict[str, Any]) -> float:
    """Sorts the largest standardised effects first (an unmeasurable one, with no spread, first of all)."""
    return -math.inf if row["effect"] is None else -abs(row["effect"])


def _print_comparison_table(title: str, rows: list[dict[str, Any]], console: Any) -> None:
    table = report_table(title)
    for column in ("metric", "A", "B", "B - A", "95% CI", "effect d", "p", "Holm p", ""):
        table.add_column(column, justify="left" if column in ("metric", "") else "right")
    for r in rows:
        a_text, b_text, diff = _comparison_cells(r)
        effect = "n/a" if r["effect"] is None else f"{r['effect']:+.2f}"
        table.add_row(r["metric"], a_text, b_text, diff, _difference_ci(r), effect, _p(r["p"]),
                      _p(r["p_adjusted"]), "*" if r["significant"] else "")
    console.print(table)
    console.print()


def _difference_ci(r: dict[str, Any]) -> str:
    low, high = r["ci"]
    if r["kind"] == "rate":
        return f"[{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"[{_signed(low)}, {_signed(high)}]"


def _signed(x: float) -> str:
    return f"{x:+.2f}" if abs(x) < 10 else f"{x:+.1f}"


def _comparison_cells(r: dict[str, Any]) -> list[str]:
    if r["kind"] == "rate":
        return [_pct(r["a"]), _pct(r["b"]), f"{100 * r['difference']:+.1f} pts"]
    if r["group"] in ("outcome", "length"):
        return [f"{r['a']:.1f}", f"{r['b']:.1f}", f"{r['difference']:+.1f}"]
    return [f"{r['a']:.2f}", f"{r['b']:.2f}", _signed(r["difference"])]


# ====================================================================== plots


def plot(summaries: Sequence[dict[str, Any]], results: Sequence[SimulationResult], path: str,
         labels: Sequence[str] | None = None, comparison: Sequence[dict[str, Any]] | None = None) -> None:
    """A PNG of one run or two (``simulate_plot.figure``); ``comparison``: the rows of ``compare``."""
    import matplotlib.pyplot as plt

    from .simulate_plot import RunData, figure

    labels = list(labels or [s["spec"] for s in summaries])
    runs = [RunData(label=label, totals=[[float(r.totals[p]) for r in result.records] for p in range(result.players)],
                    actions=[float(r.actions) for r in result.records],
                    margins=[m for m in map(winning_margin, result.records) if m is not None])
            for label, result in zip(labels, results)]
    fig = figure(summaries, runs, comparison)
    try:
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
