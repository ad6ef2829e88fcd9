"""The limits of ``rulespec serve``: what the operator sets and no client can exceed.

Each limit is one field of ``ServerLimits`` and one option of ``rulespec serve`` (its help
text and bounds written once, in ``LIMITS``); docs/playground.md lists them all (a test
checks). Work budgets are CPU seconds (``time.process_time`` of the worker doing the work),
so a loaded machine gives the same budget; memory is a cap on each worker process.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

__all__ = ["ServerLimits", "Limit", "LIMITS", "add_limit_options", "limits_from_args"]


@dataclass(frozen=True)
class ServerLimits:
    max_tables: int = 32
    tables_per_client: int = 3
    create_per_minute: int = 10
    idle: float = 600.0
    keep_finished: float = 3600.0
    request_cpu: float = 2.0
    table_cpu: float = 900.0
    client_cpu: float = 60.0
    memory_mb: int = 512
    bot_seconds: float = 1.0
    bot_match_cpu: float = 300.0
    bot_iterations: int = 2000
    bot_delay: float = 0.4
    bot_priority: int = 20  # the niceness bots think at; 20: only on an idle core (SCHED_IDLE)
    sim_games: int = 200
    sim_cpu: float = 30.0
    jobs: int = 2
    jobs_per_client: int = 1
    sim_jobs: int = 1
    max_replays: int = 16
    replays_per_client: int = 2
    requests_per_client: int = 8
    sockets_per_client: int = 16
    finished_mb: int = 256

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServerLimits:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class Limit:
    field: str
    flag: str
    metavar: str
    low: float
    high: float
    help: str
    whole: bool = True
    scale: float = 1.0  # the option's unit in the field's (--bot-delay is in ms, the field in s)

    @property
    def default(self) -> Any:
        value = getattr(ServerLimits(), self.field)
        shown = value / self.scale
        return int(shown) if self.whole else shown


LIMITS: tuple[Limit, ...] = (
    Limit("max_tables", "--max-tables", "N", 1, 10_000, "live tables at most, in all (a finished table does not "
          "count: it stays readable without holding a slot)"),
    Limit("tables_per_client", "--tables-per-client", "N", 1, 10_000, "live tables one client may have created"),
    Limit("create_per_minute", "--create-rate", "N", 1, 100_000, "tables one client may create per minute"),
    Limit("idle", "--idle", "S", 1, 10**7, "a live table nobody has open (no page, no request) for S seconds is "
          "closed and frees its slot", whole=False),
    Limit("keep_finished", "--keep-finished", "S", 1, 10**7, "a finished table stays readable (its views, its "
          "log, its replay) for S seconds", whole=False),
    Limit("request_cpu", "--request-cpu", "S", 0.05, 3600, "CPU seconds one request may use (a view, an action, "
          "opening a table or a log, checking editor text); a table whose request runs out is closed",
          whole=False),
    Limit("table_cpu", "--table-cpu", "S", 1, 10**7, "CPU seconds one table may use in all, its bots included; "
          "then it is closed", whole=False),
    Limit("client_cpu", "--client-cpu", "S", 1, 10**7, "CPU seconds one client's requests and bots may use per "
          "minute; beyond it, its requests get 429 and its bots wait", whole=False),
    Limit("memory_mb", "--memory", "MB", 64, 1 << 20, "memory of each worker process (a table, its bots, a check "
          "of editor text, a simulation)"),
    Limit("bot_seconds", "--bot-seconds", "S", 0.01, 3600, "CPU seconds a bot may think per decision (mcts gets "
          "this time budget; a bot still thinking after it plays at random that once)", whole=False),
    Limit("bot_match_cpu", "--bot-match-cpu", "S", 0.1, 10**7, "CPU seconds the bots of one match may think in "
          "all; then they play at random", whole=False),
    Limit("bot_iterations", "--bot-iterations", "N", 1, 10**6, "the most mcts iterations, or greedy samples, a "
          "seat or a simulation may ask for"),
    Limit("bot_delay", "--bot-delay", "MS", 0, 10_000, "milliseconds between bot moves, to follow them",
          scale=0.001),
    Limit("bot_priority", "--bot-priority", "NICE", 0, 20, "the priority bots think at: a nice value (0 as the "
          "tables, 19 the lowest), or 20: only on a core the tables leave idle (Linux's SCHED_IDLE; nice 19 "
          "elsewhere)"),
    Limit("sim_games", "--sim-games", "N", 1, 100_000, "matches one simulation may ask for"),
    Limit("sim_cpu", "--sim-cpu", "S", 0.1, 10**7, "CPU seconds of one simulation (both runs of a comparison "
          "together); it stops early and reports the matches it finished", whole=False),
    Limit("jobs", "--jobs", "N", 1, 1024, "checks of editor text worked on at once, each in its own process "
          "(more wait their turn)"),
    Limit("jobs_per_client", "--jobs-per-client", "N", 1, 1024, "of those, at once for one client (more get 429)"),
    Limit("sim_jobs", "--sim-jobs", "N", 1, 1024, "simulations run at once, each in its own process (more wait "
          "their turn; one client runs one at a time)"),
    Limit("max_replays", "--max-replays", "N", 1, 10_000, "match logs open for stepping through, in all"),
    Limit("replays_per_client", "--replays-per-client", "N", 1, 10_000, "match logs one client may have open"),
    Limit("requests_per_client", "--requests-per-client", "N", 1, 10_000, "requests of one client worked on at "
          "once (views, actions, opened tables and logs; more get 429)"),
    Limit("sockets_per_client", "--sockets-per-client", "N", 1, 10_000, "open pages (WebSockets) of one client"),
    Limit("finished_mb", "--finished-memory", "MB", 1, 1 << 20, "memory of the finished tables kept readable, in "
          "all (the oldest are forgotten first)"),
)


def _parser_of(limit: Limit) -> Any:
    what = limit.flag[2:].replace("-", " ")

    def parse(text: str) -> float | int:
        text = text.strip()
        try:
            value = float(text) if len(text) <= 30 else math.nan
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or (limit.whole and value != int(value)):
            kind = "a whole number" if limit.whole else "a number"
            raise argparse.ArgumentTypeError(f"{what} must be {kind}, not {text[:30]!r}")
        if not limit.low <= value <= limit.high:
            raise argparse.ArgumentTypeError(f"{what} must be from {limit.low:g} to {limit.high:g}, not {value:g}")
        return int(value) if limit.whole else value

    return parse


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """One option per limit, with its help and default."""
    group = parser.add_argument_group("limits (what no client can exceed)")
    for limit in LIMITS:
        names = [limit.flag] + (["--max-matches"] if limit.field == "max_tables" else [])
        group.add_argument(*names, dest=limit.field, type=_parser_of(limit), default=limit.default,
                           metavar=limit.metavar, help=f"{limit.help} (default {limit.default:g})")


def limits_from_args(args: argparse.Namespace) -> ServerLimits:
    def value(limit: Limit) -> Any:
        given = getattr(args, limit.field)
        return given * limit.scale if limit.scale != 1 else given

    return ServerLimits(**{limit.field: value(limit) for limit in LIMITS})
