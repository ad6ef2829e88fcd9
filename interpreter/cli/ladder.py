"""`rulespec ladder SPEC --agents LIST`: round-robin bot matches and Bradley-Terry ratings
(interpreter.analysis.ladder does the matches and the fit)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from .args import add_game_arguments, add_root, games_type, jobs_type, parse_options, worker_count
from .common import (
    EXIT_OK,
    CliError,
    check_file,
    check_output,
    make_console,
    progress_on_a_terminal,
    root_folder,
    say,
    write_file,
)


def add_ladder_parser(sub: Any) -> None:
    ladder = sub.add_parser("ladder", help="rate bots against each other: round-robin matches, Bradley-Terry",
                            description="Play N matches between every pair of the listed agents (seats filled "
                                        "A, B, A, B... and rotated each match), fit Bradley-Terry ratings on the "
                                        "Elo scale (random = 0 when listed, else the first agent; one virtual draw "
                                        "between every pair as a prior) with 95% bootstrap intervals, and print "
                                        "them with the pairwise scores. Results depend only on the seed, not on "
                                        "--jobs, except for agents with a time budget per move (mcts:1s), which "
                                        "play as far as the machine lets them.")
    add_game_arguments(ladder, agents_help="comma separated, 2 to 12 different agents (required)", humans=False)
    ladder.add_argument("--games", type=games_type, required=True, metavar="N", help="matches per pair of agents")
    ladder.add_argument("--jobs", type=jobs_type, default=1, metavar="J",
                        help="worker processes (default 1; 0 = all cores; never more than the cores)")
    ladder.add_argument("--json", metavar="OUT.json", help="write the ladder: ratings, intervals, pairwise results")
    ladder.add_argument("--save", action="store_true", help="keep the ladder beside the spec, in SPEC's "
                                                            "<stem>.ladder.json, for simulate to cite")
    ladder.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_root(ladder, "`extends:`")


def cmd_ladder(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..analysis.ladder import LadderError

    try:
        return _ladder(args, out, err)
    except LadderError as exc:
        raise CliError(str(exc), exc.status) from None


def _ladder(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..analysis.ladder import (
        ladder_path,
        parse_agent_list,
        plan_ladder,
        print_ladder,
        read_ladders,
        run_ladder,
        save_ladder,
    )

    root = root_folder(args)
    jobs = worker_count(args.jobs)
    agents = parse_agent_list(args.agents)
    check_output(args.json, "--json")
    path = check_file(args.file)
    plan = plan_ladder(path, agents, args.games, args.players, parse_options(args.option), args.seed, root)
    saved = ladder_path(path)
    if args.save:
        check_output(saved, "--save")
        read_ladders(saved)  # a file that is no ladder file is said now, and left as it is
    total = len(plan.pairs()) * plan.games
    with progress_on_a_terminal(args, err, f"ladder {os.path.basename(path)}", total) as update:
        ladder = run_ladder(plan, jobs, update)
    print_ladder(ladder, make_console(out, args.no_color))
    if args.json:
        write_file(args.json, json.dumps(ladder, indent=1) + "\n")
    if args.save:
        save_ladder(ladder, saved)
        say(err, f"rulespec: saved the ladder in {saved}")
    return EXIT_OK
