"""`rulespec simulate FILE --games N`: bot matches and their statistics, plots and comparisons
(interpreter.analysis.simulate does the matches and the figures)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from .args import (
    add_game_arguments,
    add_root,
    agent_names,
    bots_only,
    games_type,
    jobs_type,
    parse_options,
    worker_count,
)
from .common import (
    EXIT_OK,
    cannot_write,
    check_file,
    check_output,
    load_game_file,
    make_console,
    progress_bar,
    root_folder,
    write_file,
)


def add_simulate_parser(sub: Any) -> None:
    simulate = sub.add_parser("simulate", help="play many bot matches and print statistics",
                              description="Play bot matches and print win rates (95% Wilson intervals) per seat "
                                          "and per agent, score distributions, match lengths, first-player "
                                          "advantage and lead changes. Results depend only on the seed, not on "
                                          "--jobs.")
    add_game_arguments(simulate)
    simulate.add_argument("--games", type=games_type, required=True, metavar="N", help="number of matches")
    simulate.add_argument("--jobs", type=jobs_type, default=1, metavar="J",
                          help="worker processes (default 1; 0 = all cores; never more than the cores)")
    simulate.add_argument("--rotate", action="store_true", help="rotate the agents one seat each match")
    simulate.add_argument("--json", metavar="OUT.json", help="write the statistics and every match's result")
    simulate.add_argument("--plot", metavar="OUT.png", help="plot scores, win rates, match lengths, margins, "
                                                          "actions and cards chosen (and effect sizes with --compare)")
    simulate.add_argument("--by-seat", action="store_true", help="also print the card tables per seat")
    simulate.add_argument("--compare", metavar="FILE2", help="also simulate FILE2 with the same seeds and "
                                                            "print the significant differences")
    simulate.add_argument("--compare-option", action="append", default=[], metavar="K=V",
                          help="an option for the compared run only (repeatable); without --compare, FILE is "
                               "compared with itself under these options")
    simulate.add_argument("--log", metavar="OUT.jsonl", help="write every match's log")
    simulate.add_argument("--no-progress", action="store_true", help="no progress bar")
    simulate.add_argument("--no-invariants", action="store_true",
                          help="do not check the spec's invariants after every action (checking costs a few per "
                               "cent of the run)")
    add_root(simulate, "`extends:`")


def cmd_simulate(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..analysis.compare import compare, print_comparison, run_name
    from ..analysis.ladder import ladder_report, print_report
    from ..analysis.summary import plot, print_summary, records_json, summarize

    root = root_folder(args)
    jobs = worker_count(args.jobs)
    options = parse_options(args.option)
    agents = agent_names(args.agents)
    bots_only(agents, "simulate")
    for path, flag in ((args.json, "--json"), (args.plot, "--plot"), (args.log, "--log")):
        check_output(path, flag)
    runs = [(check_file(args.file), options)]
    if args.compare or args.compare_option:
        runs.append((check_file(args.compare or args.file), {**options, **parse_options(args.compare_option)}))
    from ..agents import make_agent
    from ..analysis.simulate import expand_agents

    games = []
    for path, run_options in runs:  # invalid specs, options and agents fail before any match
        game = load_game_file(path, args.players, run_options, root)
        for p, spec in enumerate(expand_agents(agents, game.num_players)):
            make_agent(spec, game, p, 0)
        games.append(game)
    if args.plot:
        _check_plotting()  # missing matplotlib is said now, not after the matches
    console = make_console(out, args.no_color)
    results = []
    for path, run_options in runs:
        results.append(_run_simulation(args, path, run_options, agents, jobs, err, root))
    summaries = [summarize(r) for r in results]
    option_words = [args.option, [*args.option, *args.compare_option]]
    reports = [ladder_report(path, game, result.agents, words)
               for (path, _), game, result, words in zip(runs, games, results, option_words)]
    for i, summary in enumerate(summaries):
        if i:
            console.print()
        print_summary(summary, console, by_seat=args.by_seat)
        print_report(reports[i], console)
    rows: list[dict[str, Any]] | None = None
    payload: dict[str, Any] = {"summary": summaries[0], "matches": records_json(results[0]), "ladder": reports[0]}
    if len(results) > 1:
        console.print()
        rows = compare(results[0], results[1])
        print_comparison(rows, results[0], results[1], console)
        payload = {"a": payload, "b": {"summary": summaries[1], "matches": records_json(results[1]),
                                       "ladder": reports[1]}, "comparison": rows}
    if args.json:
        write_file(args.json, json.dumps(payload, indent=1) + "\n")
    if args.plot:
        labels = [run_name(results[0], None, short=True)] if len(results) == 1 else [
            "A: " + run_name(results[0], results[1], short=True),
            "B: " + run_name(results[1], results[0], short=True)]
        try:
            plot(summaries, results, args.plot, labels=labels, comparison=rows)
        except OSError as exc:
            raise cannot_write(args.plot, exc) from None
    if args.log:
        _write_logs(args.log, results, args.seed, root)
    return EXIT_OK


def _check_plotting() -> None:
    """Import what ``--plot`` draws with, so that a missing library stops the command before any match."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot


def _run_simulation(args: argparse.Namespace, path: str, options: dict[str, Any], agents: list[str], jobs: int,
                    err: TextIO, root: str | None) -> Any:
    from ..analysis.simulate import simulate

    keep = bool(args.log)
    if args.no_progress:
        return simulate(path, args.games, agents, args.players, options, args.seed, jobs, args.rotate, keep,
                        root=root, invariants=not args.no_invariants)
    with progress_bar(err, args.no_color, f"simulating {os.path.basename(path)}", args.games) as update:
        return simulate(path, args.games, agents, args.players, options, args.seed, jobs, args.rotate, keep,
                        progress=update, root=root, invariants=not args.no_invariants)


def _write_logs(path: str, results: list[Any], base_seed: int, root: str | None) -> None:
    from ..game import load_game
    from ..replay import LogWriter, match_header

    try:
        with LogWriter(path) as writer:
            for result in results:
                game = load_game(result.spec, players=result.players, options=result.options, root=root)
                for r in result.records:
                    writer.header(match_header(game, result.spec, r.seed, r.agents, r.agent_seeds, r.index,
                                               base_seed))
                    for player, action, label in r.moves or []:
                        writer.action(player, action, label)
                    writer.write({"end": True, "winners": r.winners, "totals": r.totals, "returns": r.returns,
                                  "actions": r.actions})
    except OSError as exc:
        raise cannot_write(path, exc) from None
