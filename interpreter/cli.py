"""The `rulespec` command line: a thin layer over the public API.

    rulespec validate FILE...          check specs (exit 0 valid, 1 invalid; messages on stderr)
    rulespec schema                    print the JSON Schema of a spec
    rulespec play FILE                 a match in the terminal: humans and bots (interpreter.play)
    rulespec simulate FILE --games N   bot matches, statistics, plots, comparisons (interpreter.simulate)
    rulespec describe FILE             the rules as Markdown, generated from the spec (rulespec.describe)
    rulespec replay LOG                replay and check a match log (interpreter.replay)

Exit status: 0 success, 1 an invalid spec or a failed replay, 2 a usage error (bad file,
option, agent or argument). Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from rulespec import SpecError, compile_file, schema_text

__all__ = ["main", "build_parser", "parse_options"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    status = EXIT_OK
    for path in args.files:
        try:
            gamedef = compile_file(path)
        except SpecError as error:
            status = EXIT_INVALID
            print(error.format(), file=err)
            count = len(error.diagnostics)
            print(f"{path}: {count} problem{'s' if count != 1 else ''}", file=err)
            continue
        if not args.quiet:
            print(f"{path}: ok ({gamedef.name})", file=out)
    return status


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    out.write(schema_text())
    return EXIT_OK


class CliError(Exception):
    """A problem to report in one line, with its exit status."""

    def __init__(self, message: str, status: int = EXIT_USAGE):
        super().__init__(message)
        self.status = status


def _add_game_arguments(p: argparse.ArgumentParser, file_required: bool = True) -> None:
    if file_required:
        p.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    else:
        p.add_argument("file", metavar="FILE", nargs="?", help="the spec file (YAML)")
    p.add_argument("--players", type=int, metavar="N", help="number of players (default: the spec's smallest)")
    p.add_argument("--agents", metavar="LIST",
                   help="comma separated, one per seat or one for all: " + ", ".join(_agent_help()))
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of everything random (default 0)")
    p.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                   help="set a spec option (repeatable); V is read as JSON when it can be (true, 3, 0.5), else text")
    p.add_argument("--no-color", action="store_true", help="plain text output")


def _agent_help() -> list[str]:
    return ["human (play only)", "random", "greedy[:SAMPLES]", "mcts[:ITERATIONS][:depth=D][:c=C]"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulespec",
        description="Games written as YAML rules: validate, inspect, play and simulate them.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    validate = sub.add_parser("validate", help="check spec files and report every problem",
                              description="Check spec files. Exit status 0 when all are valid, 1 otherwise; "
                                          "problems go to stderr as file:line:col: error: message.")
    validate.add_argument("files", nargs="+", metavar="FILE", help="spec files (YAML)")
    validate.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")
    sub.add_parser("schema", help="print the JSON Schema (draft 2020-12) of a spec",
                   description="Print the JSON Schema of a spec, for editors and other tools.")

    play = sub.add_parser("play", help="play a match in the terminal, humans and bots",
                          description="Play one match in the terminal. Each human seat sees only its own view and "
                                      "a numbered menu of its legal actions; bots play the other seats. With only "
                                      "bots, the whole match is printed. Default agents: human, then mcts.")
    _add_game_arguments(play, file_required=False)
    play.add_argument("--log", metavar="OUT.jsonl", help="write the match log (replayable, resumable)")
    play.add_argument("--resume", metavar="LOG", help="continue the unfinished match of a log (and append to it)")

    simulate = sub.add_parser("simulate", help="play many bot matches and print statistics",
                              description="Play bot matches and print win rates (95% Wilson intervals) per seat "
                                          "and per agent, score distributions, match lengths, first-player "
                                          "advantage and lead changes. Results depend only on the seed, not on "
                                          "--jobs.")
    _add_game_arguments(simulate)
    simulate.add_argument("--games", type=int, required=True, metavar="N", help="number of matches")
    simulate.add_argument("--jobs", type=int, default=1, metavar="J",
                          help="worker processes (default 1; 0 = all cores)")
    simulate.add_argument("--rotate", action="store_true", help="rotate the agents one seat each match")
    simulate.add_argument("--json", metavar="OUT.json", help="write the statistics and every match's result")
    simulate.add_argument("--plot", metavar="OUT.png", help="plot score distributions and win rates")
    simulate.add_argument("--compare", metavar="FILE2", help="also simulate FILE2 with the same seeds and "
                                                            "print the significant differences")
    simulate.add_argument("--compare-option", action="append", default=[], metavar="K=V",
                          help="an option for the compared run only (repeatable); without --compare, FILE is "
                               "compared with itself under these options")
    simulate.add_argument("--log", metavar="OUT.jsonl", help="write every match's log")
    simulate.add_argument("--no-progress", action="store_true", help="no progress bar")

    describe = sub.add_parser("describe", help="the rules of a spec as readable Markdown",
                              description="Print the rules as Markdown generated from the spec: components, "
                                          "options, setup, turn, every action and its effect, scoring and end.")
    describe.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    describe.add_argument("--output", "-o", metavar="OUT.md", help="write to a file instead of the screen")

    replay = sub.add_parser("replay", help="replay a match log and check it",
                            description="Re-apply the actions of a match log, check every player, label and the "
                                        "result, and print the match. Exit status 1 when the replay differs.")
    replay.add_argument("log", metavar="LOG", help="a log written by play --log or simulate --log")
    replay.add_argument("--match", type=int, metavar="K", help="only match K of the log")
    replay.add_argument("--quiet", "-q", action="store_true", help="print only the summary line of each match")
    replay.add_argument("--no-color", action="store_true", help="plain text output")
    return parser


# ---------------------------------------------------------------------- helpers


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``["rounds=3", "mode=fast"]`` -> ``{"rounds": 3, "mode": "fast"}`` (JSON when it parses)."""
    options: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise CliError(f"--option '{item}': write K=V, for example --option rounds=3")
        key, text = item.split("=", 1)
        key = key.strip()
        if not key:
            raise CliError(f"--option '{item}': the option name is missing")
        try:
            value: Any = json.loads(text)
        except ValueError:
            value = text
        options[key] = value
    return options


def _agents(text: str | None) -> list[str]:
    return [a.strip() for a in text.split(",")] if text else []


def _check_file(path: str | None) -> str:
    if not path:
        raise CliError("a spec FILE is needed")
    if not os.path.isfile(path):
        raise CliError(f"no such file: {path}")
    return path


def _load(path: str, players: int | None, options: dict[str, Any]) -> Any:
    from .game import load_game

    return load_game(_check_file(path), players=players, options=options)


def _spec_error_line(error: SpecError) -> str:
    first = error.diagnostics[0] if error.diagnostics else None
    count = len(error.diagnostics)
    head = f"{first.span}: error: {first.message}" if first is not None and first.span else str(error).splitlines()[0]
    more = f" ({count} problems; `rulespec validate` lists them)" if count > 1 else ""
    return head + more


class _PlainLines:
    """A text stream that drops trailing spaces from each line (for files and pipes)."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.pending = ""

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        for line in lines:
            self.stream.write(line.rstrip() + "\n")
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.stream.write(self.pending)
            self.pending = ""
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def _console(stream: TextIO, no_color: bool = False) -> Any:
    from rich.console import Console

    tty = bool(getattr(stream, "isatty", lambda: False)())
    if tty:
        return Console(file=stream, no_color=no_color, highlight=False, emoji=False)
    return Console(file=_PlainLines(stream), no_color=True, highlight=False, emoji=False, width=100,  # type: ignore[arg-type]
                   force_terminal=False, soft_wrap=True)


# ---------------------------------------------------------------------- play


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .play import HUMAN, QuitMatch, play_match, resume_match
    from .replay import LogWriter, read_log
    from .simulate import expand_agents, match_seeds

    console = _console(out, args.no_color)
    if args.resume:
        if not os.path.isfile(args.resume):
            raise CliError(f"no such log: {args.resume}")
        matches = read_log(args.resume)
        logged = matches[-1]
        if args.file is not None and os.path.abspath(args.file) != os.path.abspath(str(logged.header["spec"])):
            raise CliError(f"the log is of {logged.header['spec']}, not {args.file}")
        from .replay import load_logged_game

        game = load_logged_game(logged)
        if logged.complete:
            console.print(f"The match in {args.resume} is already over; `rulespec replay {args.resume}` shows it.",
                          highlight=False, markup=False)
            return EXIT_OK
        # rewrite the log without any line cut short, then append to it
        with LogWriter(args.resume) as writer:
            for m in matches:
                writer.header(m.header)
                for record in m.actions:
                    writer.write(record)
                if m.end is not None:
                    writer.write(m.end)
        log_path = args.resume
        try:
            state = resume_match(logged, game, console, stdin, log_path, _agents(args.agents) or None)
        except QuitMatch:
            return _stopped(console, log_path)
        return EXIT_OK
    game = _load(args.file, args.players, parse_options(args.option))
    n = game.num_players
    given = _agents(args.agents)
    agents = expand_agents(given, n) if given else [HUMAN] + ["mcts"] * (n - 1)
    from .agents import make_agent

    for p, spec in enumerate(agents):
        if spec.lower() != HUMAN:
            make_agent(spec, game, p, 0)  # a bad name fails now, before the match
    state_seed, agent_seeds = match_seeds(args.seed, 0, n)
    try:
        state = play_match(game, args.file, agents, state_seed, console, stdin, args.log, args.seed, agent_seeds)
    except QuitMatch:
        return _stopped(console, args.log)
    del state
    return EXIT_OK


def _stopped(console: Any, log: str | None) -> int:
    if log:
        console.print(f"Stopped. Continue with: rulespec play --resume {log}", highlight=False, markup=False)
    else:
        console.print("Stopped. (Play with --log FILE to be able to resume.)", highlight=False, markup=False)
    return EXIT_OK


# ---------------------------------------------------------------------- simulate


def cmd_simulate(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .simulate import compare, plot, print_comparison, print_summary, records_json, run_name, summarize

    if args.games < 1:
        raise CliError("--games must be at least 1")
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    options = parse_options(args.option)
    agents = _agents(args.agents)
    if any(a.lower() == "human" for a in agents):
        raise CliError("simulate plays bots only: 'human' is for rulespec play")
    runs = [(_check_file(args.file), options)]
    if args.compare or args.compare_option:
        runs.append((_check_file(args.compare or args.file), {**options, **parse_options(args.compare_option)}))
    from .agents import make_agent
    from .simulate import expand_agents

    for path, run_options in runs:  # invalid specs, options and agents fail before any match
        game = _load(path, args.players, run_options)
        for p, spec in enumerate(expand_agents(agents, game.num_players)):
            make_agent(spec, game, p, 0)
    console = _console(out, args.no_color)
    results = []
    for path, run_options in runs:
        results.append(_run_simulation(args, path, run_options, agents, jobs, err))
    summaries = [summarize(r) for r in results]
    for i, summary in enumerate(summaries):
        if i:
            console.print()
        print_summary(summary, console)
    payload: dict[str, Any] = {"summary": summaries[0], "matches": records_json(results[0])}
    if len(results) > 1:
        console.print()
        rows = compare(results[0], results[1])
        print_comparison(rows, results[0], results[1], console)
        payload = {"a": payload, "b": {"summary": summaries[1], "matches": records_json(results[1])},
                   "comparison": rows}
    if args.json:
        _write(args.json, json.dumps(payload, indent=1) + "\n")
    if args.plot:
        labels = [run_name(results[0], None, short=True)] if len(results) == 1 else [
            "A: " + run_name(results[0], results[1], short=True),
            "B: " + run_name(results[1], results[0], short=True)]
        plot(summaries, results, args.plot, labels=labels)
    if args.log:
        _write_logs(args.log, results, args.seed)
    return EXIT_OK


def _run_simulation(args: argparse.Namespace, path: str, options: dict[str, Any], agents: list[str], jobs: int,
                    err: TextIO) -> Any:
    from .simulate import simulate

    keep = bool(args.log)
    if args.no_progress:
        return simulate(path, args.games, agents, args.players, options, args.seed, jobs, args.rotate, keep)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    tty = bool(getattr(err, "isatty", lambda: False)())
    bar_console = Console(file=err, no_color=args.no_color or not tty, force_terminal=None if tty else False,
                          width=None if tty else 100)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=bar_console, transient=False) as progress:
        task = progress.add_task(f"simulating {os.path.basename(path)}", total=args.games)
        return simulate(path, args.games, agents, args.players, options, args.seed, jobs, args.rotate, keep,
                        progress=lambda done: progress.update(task, completed=done))


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None


def _write_logs(path: str, results: list[Any], base_seed: int) -> None:
    from .game import load_game
    from .replay import LogWriter, match_header

    try:
        writer = LogWriter(path)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    with writer:
        for result in results:
            game = load_game(result.spec, players=result.players, options=result.options)
            for r in result.records:
                writer.header(match_header(game, result.spec, r.seed, r.agents, r.agent_seeds, r.index, base_seed))
                for player, action, label in r.moves or []:
                    writer.action(player, action, label)
                writer.write({"end": True, "winners": r.winners, "totals": r.totals, "returns": r.returns,
                              "actions": r.actions})


# ---------------------------------------------------------------------- describe and replay


def cmd_describe(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from rulespec.describe import describe

    text = describe(compile_file(_check_file(args.file)))
    if args.output:
        _write(args.output, text)
    else:
        out.write(text)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .play import replay_to_console
    from .replay import LogError, read_log

    if not os.path.isfile(args.log):
        raise CliError(f"no such log: {args.log}")
    matches = read_log(args.log)
    if args.match is not None:
        chosen = [m for m in matches if m.header.get("match") == args.match]
        if not chosen:
            raise CliError(f"{args.log} has no match {args.match}")
        matches = chosen
    console = _console(out, args.no_color)
    status = EXIT_OK
    for i, logged in enumerate(matches):
        if i and not args.quiet:
            console.print()
        try:
            replay_to_console(logged, console, quiet=args.quiet)
        except LogError as exc:
            print(f"rulespec: replay failed: {exc}", file=err)
            status = EXIT_INVALID
    return status


COMMANDS = {"validate": cmd_validate, "schema": cmd_schema, "play": cmd_play, "simulate": cmd_simulate,
            "describe": cmd_describe, "replay": cmd_replay}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None,
         stdin: TextIO | None = None) -> int:
    from .agents import AgentError
    from .errors import InterpreterError, OptionError
    from .replay import LogError

    out = out or sys.stdout
    err = err or sys.stderr
    stdin = stdin or sys.stdin
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args, out, err, stdin)
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except CliError as exc:
        print(f"rulespec: error: {exc}", file=err)
        return exc.status
    except (OptionError, AgentError) as exc:
        print(f"rulespec: error: {exc}", file=err)
        return EXIT_USAGE
    except SpecError as exc:
        print(_spec_error_line(exc), file=err)
        return EXIT_INVALID
    except LogError as exc:
        print(f"rulespec: error: {exc}", file=err)
        return EXIT_INVALID
    except InterpreterError as exc:
        print(f"rulespec: error while playing: {exc}", file=err)
        return EXIT_INVALID
    except ModuleNotFoundError as exc:
        if exc.name not in ("rich", "matplotlib"):
            raise
        extra = "cli" if exc.name == "rich" else "plot"
        print(f"rulespec: error: this needs {exc.name}: pip install 'rulespec[{extra}]'", file=err)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
