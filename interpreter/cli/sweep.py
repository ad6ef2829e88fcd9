"""`rulespec sweep SPEC [VARIANT...]`: bot matches over a grid of variants, options and player
counts, on this machine or on Ray (interpreter.analysis.sweep does the planning, the running and the table)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, TextIO

from .args import (
    add_root,
    add_seed,
    agent_help,
    agent_names,
    bots_only,
    games_type,
    jobs_type,
    parse_options,
    players_type,
    shown,
    whole_number,
    worker_count,
)
from .common import (
    EXIT_OK,
    CliError,
    cannot_write,
    check_file,
    check_output,
    make_console,
    progress_on_a_terminal,
    root_folder,
    say,
    write_file,
)


def _player_counts(text: str) -> list[int]:
    counts = [players_type(part) for part in text.split(",")]
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"a player count is given twice in {shown(text)}")
    return counts


def _chunk_size(text: str) -> int:
    from ..analysis.sweep import MAX_CHUNK

    return whole_number(text, "the chunk size", 1, MAX_CHUNK)


def add_sweep_parser(sub: Any) -> None:
    sweep = sub.add_parser("sweep", help="bot matches over every combination of variants, options and player "
                                         "counts",
                           description="Play GAMES bot matches of every combination of the specs (SPEC and its "
                                       "VARIANT files), the --grid option values and the --players counts, and "
                                       "print one row per combination. Results depend only on the seed, not on "
                                       "the backend, --jobs or --chunk-size; with --out, an interrupted sweep "
                                       "continues where it stopped when run again. See docs/sweeps.md.")
    sweep.add_argument("specs", nargs="+", metavar="SPEC", help="the spec, then its variants (spec files)")
    sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                       help="an option and the values to sweep (repeatable); values as for --option")
    sweep.add_argument("--players", type=_player_counts, metavar="N[,M...]",
                       help="player counts (default: each spec's smallest)")
    sweep.add_argument("--games", type=games_type, required=True, metavar="N", help="matches per combination")
    sweep.add_argument("--agents", metavar="LIST",
                       help="comma separated, one per seat or one for all: " + ", ".join(agent_help()[1:]))
    add_seed(sweep)
    sweep.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                       help="an option set in every combination (repeatable)")
    sweep.add_argument("--rotate", action="store_true", help="rotate the agents one seat each match")
    sweep.add_argument("--backend", choices=("local", "ray"), default="local",
                       help="local: processes on this machine (default); ray: Ray tasks (pip install "
                            "'rulespec[ray]')")
    sweep.add_argument("--jobs", type=jobs_type, default=1, metavar="J",
                       help="worker processes, or the CPUs of a Ray started here (default 1; 0 = all cores)")
    sweep.add_argument("--address", metavar="ADDR", help="with --backend ray: the Ray cluster to use "
                                                         "(e.g. auto, or ray://HOST:10001)")
    sweep.add_argument("--chunk-size", type=_chunk_size, metavar="K",
                       help="matches per task (default: about 8 tasks per worker, at most 16 matches)")
    sweep.add_argument("--out", metavar="FILE.jsonl", help="stream every match's result to FILE; run the same "
                                                           "command again to continue an interrupted sweep")
    sweep.add_argument("--json", metavar="OUT.json", help="write the parameters and every combination's statistics")
    sweep.add_argument("--plot", metavar="OUT.png", help="plot the results against each grid dimension")
    sweep.add_argument("--no-progress", action="store_true", help="no progress bar (there is none when stderr "
                                                                  "is not a terminal)")
    sweep.add_argument("--no-color", action="store_true", help="plain text output")
    add_root(sweep, "`extends:`")


def parse_grid(items: Sequence[str]) -> list[tuple[str, list[Any]]]:
    """``["rounds=3,5"]`` -> ``[("rounds", [3, 5])]``: each value read as by ``parse_options``."""
    grid: list[tuple[str, list[Any]]] = []
    for item in items:
        if "=" not in item:
            raise CliError(f"--grid {shown(item)}: write NAME=V1,V2,..., for example --grid rounds=3,5")
        name, text = (part.strip() for part in item.split("=", 1))
        if not name:
            raise CliError(f"--grid {shown(item)}: the option name is missing")
        if name in (n for n, _ in grid):
            raise CliError(f"--grid {shown(name)} is given twice: list all its values in one --grid")
        if any(not part.strip() for part in text.split(",")):
            raise CliError(f"--grid {shown(name)}: an empty value (values are separated by commas)")
        try:
            values = [parse_options([f"{name}={part.strip()}"])[name] for part in text.split(",")]
        except CliError as exc:
            raise CliError(str(exc).replace("--option", "--grid", 1)) from None
        values_shown = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(values_shown)) != len(values_shown):
            raise CliError(f"--grid {shown(name)}: a value is given twice")
        grid.append((name, values))
    return grid


def cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..analysis.sweep import SweepError

    try:
        return _sweep(args, out, err)
    except SweepError as exc:
        raise CliError(str(exc), exc.status) from None


def _sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..analysis.sweep import plan_sweep, plot_sweep, print_sweep, summarize_sweep, sweep_json

    root = root_folder(args)
    jobs = worker_count(args.jobs)
    if args.address and args.backend != "ray":
        raise CliError("--address names a Ray cluster: it goes with --backend ray")
    for path, flag in ((args.out, "--out"), (args.json, "--json"), (args.plot, "--plot")):
        check_output(path, flag)
    if args.plot:
        import matplotlib  # noqa: F401  (missing matplotlib is said now, not after the matches)
    backend = _sweep_backend(args, jobs)
    agents = agent_names(args.agents)
    bots_only(agents, "sweep")
    plan = plan_sweep([check_file(p) for p in args.specs], parse_grid(args.grid), args.players, args.games,
                      agents, args.seed, args.rotate, parse_options(args.option), root)
    try:
        records = _run_sweep(args, plan, backend, jobs, err)
    except KeyboardInterrupt:
        if args.out:
            say(err, f"rulespec: the matches played are in {args.out}: run the same command to continue")
        raise
    rows = summarize_sweep(plan, records)
    print_sweep(plan, rows, make_console(out, args.no_color))
    if args.json:
        write_file(args.json, sweep_json(plan, rows))
    if args.plot:
        try:
            plot_sweep(plan, records, args.plot)
        except OSError as exc:
            raise cannot_write(args.plot, exc) from None
    return EXIT_OK


def _sweep_backend(args: argparse.Namespace, jobs: int) -> Any:
    if args.backend == "ray":
        from ..analysis.sweep_ray import ray_backend

        return ray_backend(jobs, args.address)
    from ..analysis.sweep import local_backend

    return local_backend(jobs)


def _run_sweep(args: argparse.Namespace, plan: Any, backend: Any, jobs: int, err: TextIO) -> Any:
    from ..analysis.sweep import run_sweep

    def resumed(done: int, total: int) -> None:
        say(err, f"rulespec: {args.out} holds {done} of the {total} matches: playing the other {total - done}")

    def play(progress: Any = None) -> Any:
        return run_sweep(plan, backend, args.out, jobs, args.chunk_size, progress, resumed)

    with progress_on_a_terminal(args, err, "sweeping", plan.total) as update:
        return play(None if update is None else lambda done, total: update(done))
