"""`rulespec replay LOG`: re-apply a match log's actions, check them and print the match
(interpreter.replay reads and checks the log; interpreter.play prints it)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .args import add_root, whole_number
from .common import EXIT_INVALID, EXIT_OK, CliError, check_log, make_console, root_folder


def _match(text: str) -> int:
    return whole_number(text, "the match number", 0, 2**63 - 1)


def add_replay_parser(sub: Any) -> None:
    replay = sub.add_parser("replay", help="replay a match log and check it",
                            description="Re-apply the actions of a match log, check every player, label and the "
                                        "result, and print the match. Exit status 1 when the replay differs.")
    replay.add_argument("log", metavar="LOG", help="a log written by play --log or simulate --log")
    replay.add_argument("--match", type=_match, metavar="K", help="only match K of the log")
    replay.add_argument("--quiet", "-q", action="store_true", help="print only the summary line of each match")
    replay.add_argument("--no-color", action="store_true", help="plain text output")
    add_root(replay, "the log's spec (and its `extends:`) to be")


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..play import replay_to_console
    from ..replay import LogError, iter_log

    root = root_folder(args)
    check_log(args.log)
    console = make_console(out, args.no_color)
    status = EXIT_OK
    shown = 0
    for logged in iter_log(args.log):  # one match at a time; a bad line stops the replay there
        if args.match is not None and logged.header.get("match") != args.match:
            continue
        if shown and not args.quiet:
            console.print()
        shown += 1
        try:
            replay_to_console(logged, console, quiet=args.quiet, root=root)
        except LogError as exc:
            print(f"rulespec: replay failed: {exc}", file=err)
            status = EXIT_INVALID
    if args.match is not None and not shown:
        raise CliError(f"{args.log} has no match {args.match}")
    return status
