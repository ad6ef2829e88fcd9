"""The command line's arguments: the parser, the argument types, the arguments several commands
share, and ``--option K=V`` read as JSON when it can be."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any, NoReturn

from .common import CliError

MAX_SEED = 2**64  # seeds are whole numbers from 0 to 2**64 - 1
MAX_PLAYERS = 1000
MAX_OPTION_TEXT = 10_000  # characters of one --option value


class Parser(argparse.ArgumentParser):
    """argparse, with its usage errors raised (and printed by ``main`` on its error stream)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.prog}: error: {message} (see {self.prog} --help)")


# ---------------------------------------------------------------------- argument types
# argparse names a type function in its message when it raises ValueError (`invalid _seed
# value: '+-5'`), so each keeps the name it had when the command line was one module; the
# commands' modules use them by the public names below.


def whole_number(text: str, what: str, low: int, high: int) -> int:
    text = text.strip()
    if not (text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()) or len(text) > 40:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {shown(text)}")
    value = int(text)
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high}, not {value}")
    return value


def _seed(text: str) -> int:
    return whole_number(text, "the seed", 0, MAX_SEED - 1)


def _players(text: str) -> int:
    return whole_number(text, "the player count", 1, MAX_PLAYERS)


def _games(text: str) -> int:
    from ..analysis.simulate import MAX_GAMES

    return whole_number(text, "the number of games", 1, MAX_GAMES)


def _jobs(text: str) -> int:
    return whole_number(text, "the number of jobs", 0, 10**6)


players_type, games_type, jobs_type = _players, _games, _jobs


def worker_count(jobs: int) -> int:
    """--jobs J as worker processes: 0 means every core, and never more than the cores."""
    from ..analysis.pool import max_jobs

    return min(jobs, max_jobs()) if jobs > 0 else max_jobs()


def shown(text: str, limit: int = 40) -> str:
    text_shown = repr(text)
    return text_shown if len(text_shown) <= limit else text_shown[: limit - 3] + "..."


# ---------------------------------------------------------------------- arguments several commands share


def add_root(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--root", metavar="DIR", help=f"allow {what} to any file below DIR "
                                                 "(default: the folder of the spec or log)")


def add_seed(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=_seed, default=0, metavar="S",
                   help="the seed of everything random, 0 to 2**64-1 (default 0)")


def add_game_arguments(p: argparse.ArgumentParser, file_required: bool = True,
                       agents_help: str = "comma separated, one per seat or one for all", humans: bool = True) -> None:
    if file_required:
        p.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    else:
        p.add_argument("file", metavar="FILE", nargs="?", help="the spec file (YAML)")
    p.add_argument("--players", type=_players, metavar="N", help="number of players (default: the spec's smallest)")
    p.add_argument("--agents", metavar="LIST",
                   help=f"{agents_help}: " + ", ".join(agent_help()[0 if humans else 1:]))
    add_seed(p)
    p.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                   help="set a spec option (repeatable); V is read as JSON when it can be (true, 3, 0.5), else text")
    p.add_argument("--no-color", action="store_true", help="plain text output")


def agent_help() -> list[str]:
    return ["human (play only)", "random", "greedy[:SAMPLES]",
            "mcts[:ITERATIONS][:TIME][:depth=D][:c=C][:prior=K][:rollout=P][:baseline=1][:reuse=1]"
            " (TIME as 1s or 250ms)"]


def agent_names(text: str | None) -> list[str]:
    """--agents LIST as names (none when not given)."""
    return [a.strip() for a in text.split(",")] if text else []


def bots_only(agents: list[str], command: str) -> None:
    if any(a.lower() == "human" for a in agents):
        raise CliError(f"{command} plays bots only: 'human' is for rulespec play")


# ---------------------------------------------------------------------- --option K=V


class _NotJson(ValueError):
    """NaN, Infinity or a float overflow: text, not a JSON number."""


def _no_constant(name: str) -> Any:
    raise _NotJson(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJson(text)
    return value


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["rounds=3", "mode=fast"]`` -> ``{"rounds": 3, "mode": "fast"}`` (JSON when it parses).

    ``NaN``, ``Infinity`` and numbers too large for a float are not JSON numbers here: they
    stay text, which the spec's option then accepts or refuses.
    """
    options: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise CliError(f"--option {shown(item)}: write K=V, for example --option rounds=3")
        key, text = item.split("=", 1)
        key = key.strip()
        if not key:
            raise CliError(f"--option {shown(item)}: the option name is missing")
        if len(text) > MAX_OPTION_TEXT:
            raise CliError(f"--option {key}: the value is longer than {MAX_OPTION_TEXT} characters")
        try:
            value: Any = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
        except RecursionError:
            raise CliError(f"--option {key}: the value is nested too deeply") from None
        except (json.JSONDecodeError, _NotJson):
            value = text
        except ValueError:  # a number JSON reads but Python will not: too many digits
            raise CliError(f"--option {key}: the number is too large") from None
        options[key] = value
    return options
