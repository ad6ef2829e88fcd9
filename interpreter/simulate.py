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
import os
import signal
import statistics
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .agents import AgentError, derive_seed, make_agent
from .errors import InterpreterError, RuleError
from .game import Game, load_game
from .state import CHANCE

__all__ = [
    "MatchRecord", "SimulationResult", "simulate", "run_match", "match_seeds", "seat_agents", "expand_agents",
    "summarize", "print_summary", "compare", "print_comparison", "plot", "wilson", "two_proportion_p",
    "welch_p", "SIGNIFICANCE", "run_name", "MatchError", "WorkerError", "MAX_GAMES", "max_jobs",
]

Z95 = 1.959963984540054
SIGNIFICANCE = 0.05
SEED_MODULUS = 2**32
MAX_GAMES = 10_000_000  # matches in one run


def max_jobs() -> int:
    """The most worker processes a run uses: one per core (more would only wait for a core)."""
    return max(1, os.cpu_count() or 1)


class MatchError(InterpreterError):
    """A match of a run failed: ``match 3 (seed 17): file:line:col: <the rule's error>``."""


class WorkerError(RuntimeError):
    """A worker process failed in a way that is not the rules' fault (a bug, or the process was killed)."""


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
              keep_moves: bool = False) -> MatchRecord:
    """Play one match between bots to its end."""
    import random

    bots = [make_agent(spec, game, p, agent_seeds[p]) for p, spec in enumerate(agents)]
    first: int | None = None
    moves: list[tuple[int, int, str]] | None = [] if keep_moves else None
    try:
        state = game.new_initial_state(state_seed)
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
            state.apply_action(action)
    except (InterpreterError, AgentError) as exc:
        raise MatchError(f"match {index} (seed {state_seed}): {exc}") from None
    events = state.events
    return MatchRecord(
        index=index, seed=state_seed, agents=[b.label for b in bots], agent_seeds=list(agent_seeds),
        winners=state.winners(), returns=state.returns(), totals=state.scores(),
        rounds=sum(1 for e in events if e.get("type") == "round_end"), actions=len(state.history),
        first_player=first, lead_changes=_lead_changes(events), moves=moves,
    )


def _worker_main(conn: Any, path: str, players: int, options: dict[str, Any], root: str | None) -> None:
    """A worker process: load the game, then play the chunks of matches it is sent, in order."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    number = None
    try:
        try:
            game = load_game(path, players=players, options=options, root=root)
            while True:
                item = conn.recv()
                if item is None:
                    return
                number, tasks = item
                records = [run_match(game, seats, state_seed, agent_seeds, index, keep)
                           for index, seats, state_seed, agent_seeds, keep in tasks]
                conn.send(("ok", number, records))
        except (EOFError, OSError):
            return  # the parent is gone
        except Exception as exc:  # sent to the parent, which reports it
            conn.send(("error", number, _transportable(exc)))
    except (EOFError, OSError, KeyboardInterrupt):
        return


def _transportable(exc: BaseException) -> BaseException:
    """The exception itself when it is one of ours (it pickles), else a WorkerError describing it."""
    if isinstance(exc, MatchError):
        return MatchError(str(exc))
    if isinstance(exc, InterpreterError):
        return MatchError(f"{type(exc).__name__}: {exc}")
    import traceback

    detail = "".join(traceback.format_exception(exc)) if os.environ.get("RULESPEC_DEBUG") else ""
    return WorkerError(f"{type(exc).__name__}: {exc}" + (f"\n{detail}" if detail else ""))


def _as_error(payload: Any) -> BaseException:
    return payload if isinstance(payload, BaseException) else WorkerError(f"a worker failed: {payload!r}")


class _Workers:
    """A fixed set of worker processes, one pipe each, fed one chunk of matches at a time.

    Nothing is shared between the processes but their pipes, so stopping (at the end, on an
    error or on Ctrl-C) is terminating the processes: no lock can be left held. Workers ignore
    SIGINT; the parent turns Ctrl-C into one KeyboardInterrupt and stops them.
    """

    def __init__(self, jobs: int, path: str, players: int, options: dict[str, Any], root: str | None):
        import multiprocessing

        ctx = multiprocessing.get_context()
        self.procs: list[Any] = []
        self.conns: list[Any] = []
        interrupted: list[int] = []
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(1)) if main else None
        try:
            for _ in range(jobs):
                parent_end, child_end = ctx.Pipe()
                proc = ctx.Process(target=_worker_main, args=(child_end, path, players, options, root),
                                   daemon=True)
                proc.start()
                child_end.close()
                self.procs.append(proc)
                self.conns.append(parent_end)
        except BaseException:
            self.stop()
            raise
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        if interrupted:
            self.stop()
            raise KeyboardInterrupt

    def run(self, chunks: Iterator[list[Any]]) -> Iterator[MatchRecord]:
        """The records of every chunk, in chunk order."""
        from multiprocessing.connection import wait

        busy: dict[Any, int] = {}
        done: dict[int, Any] = {}  # chunk number -> its records, or the error that stopped it
        sent = 0
        ready = 0
        failed = False

        def feed(conn: Any) -> None:
            nonlocal sent
            chunk = next(chunks, None) if not failed else None
            if chunk is not None:
                try:
                    conn.send((sent, chunk))
                except OSError:
                    pass  # the worker is gone: reading its pipe says why
                busy[conn] = sent
                sent += 1

        for conn in self.conns:
            feed(conn)
        while busy:
            for conn in wait(list(busy)):
                try:
                    message = conn.recv()  # type: ignore[union-attr,call-arg]
                except (EOFError, OSError):
                    proc = self.procs[self.conns.index(conn)]
                    proc.join(1)
                    raise WorkerError(f"a worker process stopped unexpectedly (exit code {proc.exitcode})") from None
                kind, number, payload = message
                del busy[conn]
                if kind == "error":
                    if number is None:  # the worker could not start
                        raise _as_error(payload)
                    failed = True  # the first failing match is reported once every match before it is played
                done[number] = payload
                if kind == "ok":
                    feed(conn)
            while ready in done:
                result = done.pop(ready)
                if isinstance(result, BaseException):
                    raise result
                yield from result
                ready += 1

    def stop(self, graceful: bool = False) -> None:
        for conn in self.conns:
            if graceful:
                try:
                    conn.send(None)
                except (OSError, ValueError):
                    pass
        for proc in self.procs:
            if graceful:
                proc.join(5)
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self.conns:
            conn.close()


def simulate(path: str, games: int, agents: Sequence[str] | None = None, players: int | None = None,
             options: dict[str, Any] | None = None, seed: int = 0, jobs: int = 1, rotate: bool = False,
             keep_moves: bool = False, progress: Callable[[int], None] | None = None,
             root: str | None = None) -> SimulationResult:
    """Play ``games`` bot matches of the spec at ``path``; the same arguments give the same records
    whatever ``jobs`` is. A rule failing in a match raises ``MatchError`` naming the match and its seed."""
    if not 0 <= games <= MAX_GAMES:
        raise ValueError(f"games must be from 0 to {MAX_GAMES}")
    game = load_game(path, players=players, options=options or {}, root=root)
    n = game.num_players
    # bad names and parameters fail here, before any match; labels are normalised (mcts -> mcts:200)
    seat_specs = [make_agent(spec, game, p, 0).label for p, spec in enumerate(expand_agents(agents, n))]
    result = SimulationResult(spec=path, game=game.name, players=n, options=dict(game.options),
                              seat_names=game.seat_names, agents=seat_specs, rotate=rotate, seed=seed)

    def tasks() -> Iterator[tuple[int, list[str], int, list[int], bool]]:
        for index in range(games):
            state_seed, agent_seeds = match_seeds(seed, index, n)
            yield index, seat_agents(seat_specs, index, rotate), state_seed, agent_seeds, keep_moves

    jobs = max(1, min(int(jobs), games, max_jobs())) if games else 1
    if jobs == 1:
        for index, seats, state_seed, agent_seeds, keep in tasks():
            result.records.append(run_match(game, seats, state_seed, agent_seeds, index, keep))
            if progress is not None:
                progress(len(result.records))
        return result
    # chunks of several matches keep inter-process traffic small; records come back in match order
    size = max(1, min(16, games // (jobs * 8)))

    def chunks() -> Iterator[list[Any]]:
        chunk: list[Any] = []
        for task in tasks():
            chunk.append(task)
            if len(chunk) == size:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    workers = _Workers(jobs, path, n, dict(game.options), root)
    finished = False
    try:
        for record in workers.run(chunks()):
            result.records.append(record)
            if progress is not None:
                progress(len(result.records))
        finished = True
    finally:
        workers.stop(graceful=finished)
    return result


# ====================================================================== statistics


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def _normal_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportion_p(x1: float, n1: int, x2: float, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return _normal_p((x1 / n1 - x2 / n2) / se)


def one_proportion_p(x: float, n: int, p0: float) -> float:
    """Two-sided p-value of the z-test of a proportion against ``p0``."""
    if n <= 0 or p0 <= 0 or p0 >= 1:
        return 1.0
    return _normal_p((x / n - p0) / math.sqrt(p0 * (1 - p0) / n))


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the difference of two means (Welch's statistic, normal approximation)."""
    if len(a) < 2 or len(b) < 2:
        return 1.0
    va, vb = statistics.variance(a), statistics.variance(b)
    se = math.sqrt(va / len(a) + vb / len(b))
    diff = statistics.fmean(a) - statistics.fmean(b)
    if se == 0:
        return 1.0 if diff == 0 else 0.0
    return _normal_p(diff / se)


def _describe(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "sd": 0.0, "min": 0.0, "median": 0.0, "max": 0.0}
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": float(min(values)),
        "median": float(statistics.median(values)),
        "max": float(max(values)),
    }


def _share(record: MatchRecord, seat: int) -> float:
    return 1.0 / len(record.winners) if seat in record.winners else 0.0


def summarize(result: SimulationResult) -> dict[str, Any]:
    """JSON-ready statistics of a run."""
    records = result.records
    games = len(records)
    n = result.players
    seats = []
    for p in range(n):
        wins = sum(_share(r, p) for r in records)
        low, high = wilson(wins, games)
        agent = result.agents[p] if not result.rotate else "(rotating)"
        seats.append({
            "seat": p, "name": result.seat_names[p], "agent": agent, "wins": wins,
            "win_rate": wins / games if games else 0.0, "ci": [low, high],
            "score": _describe([float(r.totals[p]) for r in records]),
        })
    by_agent: dict[str, list[float]] = {}
    for r in records:
        for p, label in enumerate(r.agents):
            by_agent.setdefault(label, []).append(_share(r, p))
    agents = []
    for label, shares in by_agent.items():
        wins = sum(shares)
        low, high = wilson(wins, len(shares))
        agents.append({"agent": label, "seats_played": len(shares), "wins": wins,
                       "win_rate": wins / len(shares), "ci": [low, high]})
    first = _first_player_advantage(records, n)
    return {
        "spec": result.spec, "game": result.game, "players": n, "options": result.options,
        "agents": result.agents, "rotate": result.rotate, "seed": result.seed, "games": games,
        "seats": seats, "by_agent": agents,
        "rounds": _describe([float(r.rounds) for r in records]),
        "actions": _describe([float(r.actions) for r in records]),
        "lead_changes": _describe([float(r.lead_changes) for r in records]),
        "first_player": first,
        "shared_wins": sum(1 for r in records if len(r.winners) > 1),
        "no_winner": sum(1 for r in records if not r.winners),
    }


def _first_player_advantage(records: list[MatchRecord], n: int) -> dict[str, Any] | None:
    """How often the seat that moved first won, against a fair share; None with one player
    (the test does not apply)."""
    if n < 2:
        return None
    firsts = [r for r in records if r.first_player is not None]
    first_wins = sum(_share(r, r.first_player) for r in firsts if r.first_player is not None)
    low, high = wilson(first_wins, len(firsts))
    return {"games": len(firsts), "wins": first_wins, "win_rate": first_wins / len(firsts) if firsts else 0.0,
            "ci": [low, high], "expected": 1.0 / n, "p": one_proportion_p(first_wins, len(firsts), 1.0 / n)}


def records_json(result: SimulationResult) -> list[dict[str, Any]]:
    out = []
    for r in result.records:
        data = asdict(r)
        data.pop("moves", None)
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


def _options_text(options: dict[str, Any]) -> str:
    import json

    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in options.items()) or "none"


def _table(title: str) -> Any:
    from rich import box
    from rich.table import Table

    return Table(title=title, box=box.SIMPLE, title_justify="left", show_edge=False)


def print_summary(summary: dict[str, Any], console: Any) -> None:
    """The statistics of a run as tables."""
    games = summary["games"]
    console.print(f"[bold]{summary['game']}[/bold]: {games} matches, {summary['players']} players, "
                  f"seed {summary['seed']}", highlight=False)
    seat_text = ", ".join(f"{s['name']} {a}" for s, a in zip(summary["seats"], summary["agents"]))
    console.print(f"agents: {seat_text}" + (" (rotated one seat each match)" if summary["rotate"] else ""),
                  highlight=False)
    console.print(f"options: {_options_text(summary['options'])}", highlight=False)
    console.print()

    table = _table("Win rate per seat")
    for name, justify in (("seat", "left"), ("agent", "left"), ("wins", "right"), ("win rate", "right"),
                          ("95% CI", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in summary["seats"]:
        table.add_row(s["name"], s["agent"], _num(s["wins"]), _pct(s["win_rate"]), _ci(s["ci"]))
    console.print(table)
    console.print()

    if len(summary["by_agent"]) > 1 or summary["rotate"]:
        table = _table("Win rate per agent (per seat played)")
        for name, justify in (("agent", "left"), ("seats played", "right"), ("wins", "right"),
                              ("win rate", "right"), ("95% CI", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for a in summary["by_agent"]:
            table.add_row(a["agent"], str(a["seats_played"]), _num(a["wins"]), _pct(a["win_rate"]), _ci(a["ci"]))
        console.print(table)
        console.print()

    table = _table("Final score per seat")
    for name in ("seat", "mean", "sd", "min", "median", "max"):
        table.add_column(name, justify="left" if name == "seat" else "right")
    for s in summary["seats"]:
        d = s["score"]
        table.add_row(s["name"], f"{d['mean']:.1f}", f"{d['sd']:.1f}", _num(d["min"]), _num(d["median"]),
                      _num(d["max"]))
    console.print(table)
    console.print()

    table = _table("Per match")
    for name in ("", "mean", "sd", "min", "median", "max"):
        table.add_column(name, justify="left" if not name else "right")
    for key, label in (("rounds", "rounds"), ("actions", "actions"), ("lead_changes", "lead changes")):
        d = summary[key]
        table.add_row(label, f"{d['mean']:.1f}", f"{d['sd']:.1f}", _num(d["min"]), _num(d["median"]),
                      _num(d["max"]))
    console.print(table)
    console.print()

    first = summary["first_player"]
    if first is not None:  # (one player: there is no advantage to measure)
        verdict = "significant" if first["p"] < SIGNIFICANCE else "not significant"
        console.print(f"First-player advantage: the seat that moved first won {_pct(first['win_rate'])} "
                      f"{_ci(first['ci'])} of {first['games']} matches; a fair share is {_pct(first['expected'])} "
                      f"(p {'= ' if first['p'] >= 0.001 else ''}{_p(first['p'])}, {verdict})", highlight=False)
    shared = summary["shared_wins"]
    console.print(f"Shared wins: {shared} of {games} matches ({_pct(shared / games if games else 0.0)})"
                  + (f"; no winner: {summary['no_winner']}" if summary["no_winner"] else ""), highlight=False)


# ====================================================================== comparing two runs


def compare(a: SimulationResult, b: SimulationResult) -> list[dict[str, Any]]:
    """Every compared metric: its value in each run, the difference and its p-value."""
    rows: list[dict[str, Any]] = []
    na, nb = len(a.records), len(b.records)

    def rate(label: str, xa: float, ta: int, xb: float, tb: int) -> None:
        va, vb = (xa / ta if ta else 0.0), (xb / tb if tb else 0.0)
        rows.append({"metric": label, "kind": "rate", "a": va, "b": vb, "difference": vb - va,
                     "p": two_proportion_p(xa, ta, xb, tb)})

    def mean(label: str, xs: list[float], ys: list[float]) -> None:
        va = statistics.fmean(xs) if xs else 0.0
        vb = statistics.fmean(ys) if ys else 0.0
        rows.append({"metric": label, "kind": "mean", "a": va, "b": vb, "difference": vb - va, "p": welch_p(xs, ys)})

    for p in range(min(a.players, b.players)):
        name = a.seat_names[p]
        rate(f"win rate {name}", sum(_share(r, p) for r in a.records), na,
             sum(_share(r, p) for r in b.records), nb)
    agents_a = _agent_shares(a)
    agents_b = _agent_shares(b)
    if len(agents_a) > 1 or len(agents_b) > 1:
        for label in agents_a:
            if label in agents_b:
                rate(f"win rate {label}", sum(agents_a[label]), len(agents_a[label]),
                     sum(agents_b[label]), len(agents_b[label]))
    for p in range(min(a.players, b.players)):
        name = a.seat_names[p]
        mean(f"final score {name}", [float(r.totals[p]) for r in a.records], [float(r.totals[p]) for r in b.records])
    mean("rounds per match", [float(r.rounds) for r in a.records], [float(r.rounds) for r in b.records])
    mean("actions per match", [float(r.actions) for r in a.records], [float(r.actions) for r in b.records])
    mean("lead changes per match", [float(r.lead_changes) for r in a.records],
         [float(r.lead_changes) for r in b.records])
    if a.players >= 2 and b.players >= 2:  # (one player: no first-player advantage to compare)
        fa = [r for r in a.records if r.first_player is not None]
        fb = [r for r in b.records if r.first_player is not None]
        rate("first player's win rate", sum(_share(r, r.first_player) for r in fa if r.first_player is not None),
             len(fa), sum(_share(r, r.first_player) for r in fb if r.first_player is not None), len(fb))
    rate("shared wins", sum(1 for r in a.records if len(r.winners) > 1), na,
         sum(1 for r in b.records if len(r.winners) > 1), nb)
    for row in rows:
        row["significant"] = row["p"] < SIGNIFICANCE
    return rows


def _agent_shares(result: SimulationResult) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in result.records:
        for p, label in enumerate(r.agents):
            out.setdefault(label, []).append(_share(r, p))
    return out


def run_name(result: SimulationResult, other: SimulationResult | None = None, short: bool = False) -> str:
    """A run named by its spec, and by the options that differ from the other run's."""
    import os

    changed = {k: v for k, v in result.options.items() if other is not None and other.options.get(k) != v}
    spec = os.path.basename(result.spec) if short else f"{result.spec} ({result.game})"
    return spec + (f" with {_options_text(changed)}" if changed else "")


def print_comparison(rows: list[dict[str, Any]], a: SimulationResult, b: SimulationResult, console: Any) -> None:
    """Both runs side by side, then the differences that are significant."""
    console.print(f"[bold]Comparison[/bold]: A = {run_name(a, b)}, B = {run_name(b, a)}; "
                  f"{len(a.records)} and {len(b.records)} matches with the same seeds", highlight=False)
    console.print()
    table = _table("Side by side (* = significant, p < 0.05)")
    for column in ("metric", "A", "B", "B - A", "p", ""):
        table.add_column(column, justify="left" if column in ("metric", "") else "right")
    for r in rows:
        table.add_row(r["metric"], *_comparison_cells(r), _p(r["p"]), "*" if r["significant"] else "")
    console.print(table)
    console.print()
    significant = [r for r in rows if r["significant"]]
    if not significant:
        console.print(f"No significant difference (p < {SIGNIFICANCE}) among the {len(rows)} metrics compared.",
                      highlight=False)
        return
    console.print(f"Significant differences (p < {SIGNIFICANCE}), {len(significant)} of {len(rows)} metrics:",
                  highlight=False)
    for r in significant:
        a_text, b_text, diff = _comparison_cells(r)
        console.print(f"  {r['metric']}: {a_text} -> {b_text} ({diff}, p {'= ' if r['p'] >= 0.001 else ''}"
                      f"{_p(r['p'])})", highlight=False)


def _comparison_cells(r: dict[str, Any]) -> list[str]:
    if r["kind"] == "rate":
        return [_pct(r["a"]), _pct(r["b"]), f"{100 * r['difference']:+.1f} pts"]
    return [f"{r['a']:.1f}", f"{r['b']:.1f}", f"{r['difference']:+.1f}"]


# ====================================================================== plots


def _bar(half: float) -> float:
    """An error bar's half length in percent: never negative (at a 0% or 100% rate the interval's
    bound and the rate differ by a rounding error of either sign)."""
    return max(0.0, 100 * half)


def plot(summaries: Sequence[dict[str, Any]], results: Sequence[SimulationResult], path: str,
         labels: Sequence[str] | None = None) -> None:
    """A PNG: final score distribution per seat, win rate per seat and per agent (95% CIs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(labels or [s["spec"] for s in summaries])
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    width = 0.8 / len(summaries)

    ax = axes[0]
    for k, (summary, result) in enumerate(zip(summaries, results)):
        data = [[float(r.totals[p]) for r in result.records] for p in range(summary["players"])]
        positions = [p + (k - (len(summaries) - 1) / 2) * width for p in range(summary["players"])]
        parts = ax.boxplot(data, positions=positions, widths=width * 0.9, patch_artist=True, manage_ticks=False)
        for box_patch in parts["boxes"]:
            box_patch.set_facecolor(f"C{k}")
            box_patch.set_alpha(0.6)
    ax.set_xticks(range(summaries[0]["players"]), [s["name"] for s in summaries[0]["seats"]])
    ax.set_title("Final score per seat")
    ax.set_ylabel("score")

    ax = axes[1]
    for k, summary in enumerate(summaries):
        seats = summary["seats"]
        xs = [p + (k - (len(summaries) - 1) / 2) * width for p in range(len(seats))]
        rates = [100 * s["win_rate"] for s in seats]
        err = [[_bar(s["win_rate"] - s["ci"][0]) for s in seats], [_bar(s["ci"][1] - s["win_rate"]) for s in seats]]
        ax.bar(xs, rates, width=width, yerr=err, capsize=4, color=f"C{k}", alpha=0.8, label=labels[k])
    ax.axhline(100 / summaries[0]["players"], color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_xticks(range(summaries[0]["players"]), [s["name"] for s in summaries[0]["seats"]])
    ax.set_title("Win rate per seat (95% CI)")
    ax.set_ylabel("%")
    ax.legend(fontsize="small")

    ax = axes[2]
    names: list[str] = []
    for summary in summaries:
        for a in summary["by_agent"]:
            if a["agent"] not in names:
                names.append(a["agent"])
    for k, summary in enumerate(summaries):
        found = {a["agent"]: a for a in summary["by_agent"]}
        xs, rates, low, high = [], [], [], []
        for i, name in enumerate(names):
            if name in found:
                a = found[name]
                xs.append(i + (k - (len(summaries) - 1) / 2) * width)
                rates.append(100 * a["win_rate"])
                low.append(_bar(a["win_rate"] - a["ci"][0]))
                high.append(_bar(a["ci"][1] - a["win_rate"]))
        ax.bar(xs, rates, width=width, yerr=[low, high], capsize=4, color=f"C{k}", alpha=0.8, label=labels[k])
    ax.axhline(100 / summaries[0]["players"], color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(names)), names)
    ax.set_title("Win rate per agent, per seat played (95% CI)")
    ax.set_ylabel("%")
    fig.suptitle(summaries[0]["game"] + (": " + " vs ".join(labels) if len(labels) > 1 else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
