"""`rulespec play FILE`: a match in the terminal, humans and bots; `--resume LOG` continues the
unfinished match of a log (interpreter.play does the playing)."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from .args import add_game_arguments, add_root, agent_names, parse_options
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    CliError,
    check_file,
    check_log,
    check_output,
    load_game_file,
    make_console,
    root_folder,
)


def add_play_parser(sub: Any) -> None:
    play = sub.add_parser("play", help="play a match in the terminal, humans and bots",
                          description="Play one match in the terminal. Each human seat sees only its own view and "
                                      "a numbered menu of its legal actions; bots play the other seats. With only "
                                      "bots, the whole match is printed. Default agents: human, then mcts.")
    add_game_arguments(play, file_required=False)
    play.add_argument("--log", metavar="OUT.jsonl", help="write the match log (replayable, resumable)")
    play.add_argument("--resume", metavar="LOG", help="continue the unfinished match of a log (and append to it)")
    add_root(play, "`extends:` and the spec a --resume log names")


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..analysis.simulate import match_seeds
    from ..play import HUMAN, QuitMatch, play_match, seat_agents

    root = root_folder(args)
    if args.resume:
        return _resume(args, out, stdin, root)
    check_output(args.log, "--log")
    game = load_game_file(args.file, args.players, parse_options(args.option), root)
    n = game.num_players
    agents, filled = seat_agents(agent_names(args.agents), n)
    from ..agents import make_agent

    for p, spec in enumerate(agents):
        if spec.lower() != HUMAN:
            make_agent(spec, game, p, 0)  # a bad name fails now, before the match
    state_seed, agent_seeds = match_seeds(args.seed, 0, n)
    console = make_console(out, args.no_color)
    try:
        play_match(game, args.file, agents, state_seed, console, stdin, args.log, args.seed, agent_seeds, filled)
    except QuitMatch:
        return _stopped(console, args.log, args.file, root)
    except KeyboardInterrupt:
        _stopped(console, args.log, args.file, root)
        raise
    return EXIT_OK


def _resume(args: argparse.Namespace, out: TextIO, stdin: TextIO, root: str | None) -> int:
    from ..analysis.simulate import expand_agents
    from ..play import QuitMatch, resume_match
    from ..replay import check_logged_game, iter_log, load_logged_game, log_spec_path

    path = args.resume
    check_log(path)
    from collections import deque

    (logged,) = deque(iter_log(path), maxlen=1)  # every line is checked; the last match is the one to continue
    if args.file is not None:
        # the spec named on the command line is trusted; it must be the one the log names
        named = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(path)), str(logged.header["spec"])))
        if os.path.isabs(str(logged.header["spec"])) or os.path.realpath(check_file(args.file)) != named:
            raise CliError(f"the log is of {logged.header['spec']}, not {args.file}")
        game = load_logged_game(logged, root, spec=args.file)
    else:
        log_spec_path(logged, root)
        game = load_logged_game(logged, root)
    check_logged_game(logged, game)
    console = make_console(out, args.no_color)
    if logged.complete:
        console.print(f"The match in {path} is already over; `rulespec replay {path}` shows it.",
                      highlight=False, markup=False)
        return EXIT_OK
    given = agent_names(args.agents)
    agents = expand_agents(given, game.num_players) if given else None
    _drop_cut_line(path)
    try:
        resume_match(logged, game, console, stdin, path, agents)
    except QuitMatch:
        return _stopped(console, path, None, root)
    except KeyboardInterrupt:
        _stopped(console, path, None, root)
        raise
    return EXIT_OK


def _drop_cut_line(path: str) -> None:
    """A log whose last line was cut short (by an interruption) loses that line before it is appended to."""
    try:
        with open(path, "rb+") as f:
            size = f.seek(0, os.SEEK_END)
            if size == 0:
                return
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
            keep = size
            while keep > 0:
                step = min(65536, keep)
                f.seek(keep - step)
                block = f.read(step)
                cut = block.rfind(b"\n")
                if cut >= 0:
                    keep = keep - step + cut + 1
                    break
                keep -= step
            f.truncate(keep)
    except OSError as exc:
        raise CliError(f"cannot append to {path}: {exc.strerror or exc}", EXIT_INVALID) from None


def _stopped(console: Any, log: str | None, spec: str | None = None, root: str | None = None) -> int:
    if log:
        hint = f"rulespec play --resume {log}"
        if root is not None:
            hint += f" --root {root}"
        elif spec is not None:
            from ..replay import LoggedMatch, log_spec_path, spec_relative_to

            probe = LoggedMatch({"spec": spec_relative_to(log, spec)}, path=log)
            try:
                log_spec_path(probe)
            except Exception:  # the spec is not in the log's folder: say where resuming may look
                hint += f" --root {os.path.dirname(os.path.abspath(spec))}"
        console.print(f"Stopped. Continue with: {hint}", highlight=False, markup=False)
    else:
        console.print("Stopped. (Play with --log FILE to be able to resume.)", highlight=False, markup=False)
    return EXIT_OK
