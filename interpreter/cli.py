"""The `rulespec` command line: a thin layer over the public API.

    rulespec validate FILE...          check specs (exit 0 valid, 1 invalid; messages on stderr)
    rulespec schema                    print the JSON Schema of a spec
    rulespec play FILE                 a match in the terminal: humans and bots (interpreter.play)
    rulespec simulate FILE --games N   bot matches, statistics, plots, comparisons (interpreter.analysis.simulate)
    rulespec sweep SPEC [VARIANT...]   bot matches over a grid of variants, options and player counts
    rulespec ladder SPEC --agents LIST round-robin bot matches and ratings (interpreter.analysis.ladder)
    rulespec describe FILE             the rules as Markdown, generated from the spec (rulespec.describe)
    rulespec replay LOG                replay and check a match log (interpreter.replay)
    rulespec compile FILE              compile for a player count; --show-python prints the generated code
    rulespec serve [FILE...]           the browser playground: editor, tables, replays (interpreter.serve)
    rulespec lsp                       a language server for editors, on stdin/stdout (needs the lsp extra)

Exit status: 0 success; 1 an invalid spec, a rule failing while playing, a log that cannot be
read or differs from its replay, a file that cannot be read or written, or a worker process
killed by a signal (simulate, ladder, sweep --jobs); 2 a usage error
(bad argument, option or agent, missing file); 70 an internal error (a bug: please report);
130 interrupted (Ctrl-C). Errors are one line on stderr, never a traceback (set
RULESPEC_DEBUG=1 to see the traceback of an internal error).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO

from rulespec import SpecError, compile_file, schema_text

__all__ = ["main", "build_parser", "parse_options", "CliError"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 70, 130
MAX_SEED = 2**64  # seeds are whole numbers from 0 to 2**64 - 1
MAX_PLAYERS = 1000
MAX_OPTION_TEXT = 10_000  # characters of one --option value


class CliError(Exception):
    """A problem to report in one line, with its exit status."""

    def __init__(self, message: str, status: int = EXIT_USAGE):
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors raised (and printed by ``main`` on its error stream)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    root = _root(args)
    status = EXIT_OK
    for path in args.files:
        if os.path.exists(path) and not os.path.isfile(path):
            status = EXIT_INVALID
            print(f"{path}: error: not a spec file (a folder, a device or a pipe)", file=err)
            continue
        try:
            gamedef = compile_file(path, root=root)
        except SpecError as error:
            status = EXIT_INVALID
            print(error.format(), file=err)
            count = len(error.diagnostics)
            print(f"{path}: {count} problem{'s' if count != 1 else ''}", file=err)
            continue
        if args.play and _play_variants(path, gamedef, args.play, err):
            status = EXIT_INVALID
            continue
        if not args.quiet:
            print(f"{path}: ok ({gamedef.name}){_played_note(gamedef, args.play)}", file=out)
        if args.verbose:
            _print_deck(gamedef, out)
    return status


def _variant_cases(gamedef: Any) -> list[tuple[str, int | None, dict[str, Any]]]:
    """(name, players, options) of every variant the spec lists; the defaults when it lists none."""
    cases = [(v.name, v.players, dict(v.options)) for v in gamedef.model.variants]
    return cases or [("default", None, {})]


def _played_note(gamedef: Any, matches: int) -> str:
    if not matches:
        return ""
    count = len(_variant_cases(gamedef))
    return (f"; {matches} random match{'es' if matches != 1 else ''} of each of {count} "
            f"variant{'s' if count != 1 else ''}: invariants held")


def _play_variants(path: str, gamedef: Any, matches: int, err: TextIO) -> int:
    """--play N: random matches of every listed variant, invariants checked after every action.
    Prints each variant's first failing match and how to replay it; returns how many failed."""
    from .analysis.simulate import play_case
    from .errors import InterpreterError
    from .game import Game

    failed = 0
    for name, players, options in _variant_cases(gamedef):
        try:
            game = Game(gamedef, players, options)
        except InterpreterError as exc:  # options the spec's own `requires:` refuses, for example
            failed += 1
            print(f"{path}: variant '{name}': {_first_line(exc)}", file=err)
            continue
        found = play_case(game, matches)
        if found is None:
            continue
        failed += 1
        seed, text = found
        print(f"{path}: variant '{name}': seed {seed}: {text}", file=err)
        print(f"  replay it: {_play_command(path, game.num_players, options, seed)}", file=err)
    if failed:
        print(f"{path}: {failed} problem{'s' if failed != 1 else ''}", file=err)
    return failed


def _play_command(path: str, players: int, options: dict[str, Any], seed: int) -> str:
    import shlex

    words = ["rulespec", "play", path, "--players", str(players)]
    for key, value in options.items():
        words += ["--option", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    return shlex.join(words + ["--agents", "random", "--seed", str(seed), "--log", "match.jsonl"])


def _print_deck(gamedef: Any, out: TextIO) -> None:
    from rulespec.deck import deck_lines

    for line in deck_lines(gamedef.model):
        print(f"  {line}", file=out)


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    out.write(schema_text())
    return EXIT_OK


# ---------------------------------------------------------------------- argument types


def _whole(text: str, what: str, low: int, high: int) -> int:
    text = text.strip()
    if not (text.lstrip("+-").isascii() and text.lstrip("+-").isdigit()) or len(text) > 40:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {_shown(text)}")
    value = int(text)
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{what} must be from {low} to {high}, not {value}")
    return value


def _seed(text: str) -> int:
    return _whole(text, "the seed", 0, MAX_SEED - 1)


def _players(text: str) -> int:
    return _whole(text, "the player count", 1, MAX_PLAYERS)


def _games(text: str) -> int:
    from .analysis.simulate import MAX_GAMES

    return _whole(text, "the number of games", 1, MAX_GAMES)


def _jobs(text: str) -> int:
    return _whole(text, "the number of jobs", 0, 10**6)


def _worker_count(jobs: int) -> int:
    """--jobs J as worker processes: 0 means every core, and never more than the cores."""
    from .analysis.pool import max_jobs

    return min(jobs, max_jobs()) if jobs > 0 else max_jobs()


def _play_matches(text: str) -> int:
    return _whole(text, "the number of matches", 0, 1_000_000)


def _match(text: str) -> int:
    return _whole(text, "the match number", 0, 2**63 - 1)


def _debounce(text: str) -> int:
    return _whole(text, "the debounce delay", 0, 60_000)


def _shown(text: str, limit: int = 40) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _add_root(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--root", metavar="DIR", help=f"allow {what} to any file below DIR "
                                                 "(default: the folder of the spec or log)")


def _add_game_arguments(p: argparse.ArgumentParser, file_required: bool = True,
                        agents_help: str = "comma separated, one per seat or one for all", humans: bool = True) -> None:
    if file_required:
        p.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    else:
        p.add_argument("file", metavar="FILE", nargs="?", help="the spec file (YAML)")
    p.add_argument("--players", type=_players, metavar="N", help="number of players (default: the spec's smallest)")
    p.add_argument("--agents", metavar="LIST",
                   help=f"{agents_help}: " + ", ".join(_agent_help()[0 if humans else 1:]))
    p.add_argument("--seed", type=_seed, default=0, metavar="S",
                   help="the seed of everything random, 0 to 2**64-1 (default 0)")
    p.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                   help="set a spec option (repeatable); V is read as JSON when it can be (true, 3, 0.5), else text")
    p.add_argument("--no-color", action="store_true", help="plain text output")


def _agent_help() -> list[str]:
    return ["human (play only)", "random", "greedy[:SAMPLES]",
            "mcts[:ITERATIONS][:TIME][:depth=D][:c=C][:prior=K][:rollout=P][:baseline=1][:reuse=1]"
            " (TIME as 1s or 250ms)"]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rulespec",
        description="Games written as YAML rules: validate, inspect, play and simulate them.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    validate = sub.add_parser("validate", help="check spec files and report every problem",
                              description="Check spec files. Exit status 0 when all are valid, 1 otherwise; "
                                          "problems go to stderr as file:line:col: error: message.")
    validate.add_argument("files", nargs="+", metavar="FILE", help="spec files (YAML)")
    validate.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")
    validate.add_argument("-v", "--verbose", action="store_true",
                          help="also print the deck: its total and each card's count (default options)")
    validate.add_argument("--play", type=_play_matches, default=0, metavar="N",
                          help="also play N random matches of every variant the spec lists, checking its "
                               "invariants after every action")
    _add_root(validate, "`extends:`")
    sub.add_parser("schema", help="print the JSON Schema (draft 2020-12) of a spec",
                   description="Print the JSON Schema of a spec, for editors and other tools.")

    play = sub.add_parser("play", help="play a match in the terminal, humans and bots",
                          description="Play one match in the terminal. Each human seat sees only its own view and "
                                      "a numbered menu of its legal actions; bots play the other seats. With only "
                                      "bots, the whole match is printed. Default agents: human, then mcts.")
    _add_game_arguments(play, file_required=False)
    play.add_argument("--log", metavar="OUT.jsonl", help="write the match log (replayable, resumable)")
    play.add_argument("--resume", metavar="LOG", help="continue the unfinished match of a log (and append to it)")
    _add_root(play, "`extends:` and the spec a --resume log names")

    simulate = sub.add_parser("simulate", help="play many bot matches and print statistics",
                              description="Play bot matches and print win rates (95% Wilson intervals) per seat "
                                          "and per agent, score distributions, match lengths, first-player "
                                          "advantage and lead changes. Results depend only on the seed, not on "
                                          "--jobs.")
    _add_game_arguments(simulate)
    simulate.add_argument("--games", type=_games, required=True, metavar="N", help="number of matches")
    simulate.add_argument("--jobs", type=_jobs, default=1, metavar="J",
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
    _add_root(simulate, "`extends:`")

    _add_sweep_parser(sub)
    _add_ladder_parser(sub)

    describe = sub.add_parser("describe", help="the rules of a spec as readable Markdown",
                              description="Print the rules as Markdown generated from the spec: components, "
                                          "options, setup, turn, every action and its effect, scoring and end.")
    describe.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    describe.add_argument("--output", "-o", metavar="OUT.md", help="write to a file instead of the screen")
    describe.add_argument("--for", dest="audience", choices=("designers", "players"), default="designers",
                          help="designers (default): every rule, variable, invariant and variant; players: the "
                               "rules a player learns from (goal first, what each card does, default options)")
    _add_root(describe, "`extends:`")

    replay = sub.add_parser("replay", help="replay a match log and check it",
                            description="Re-apply the actions of a match log, check every player, label and the "
                                        "result, and print the match. Exit status 1 when the replay differs.")
    replay.add_argument("log", metavar="LOG", help="a log written by play --log or simulate --log")
    replay.add_argument("--match", type=_match, metavar="K", help="only match K of the log")
    replay.add_argument("--quiet", "-q", action="store_true", help="print only the summary line of each match")
    replay.add_argument("--no-color", action="store_true", help="plain text output")
    _add_root(replay, "the log's spec (and its `extends:`) to be")

    compile_ = sub.add_parser("compile", help="compile a spec for a player count (and show the generated code)",
                              description="Compile the spec and link it for a player count and options, as "
                                          "`play` does before a match: exit status 0 when it is ready to play. "
                                          "With --show-python, print the Python code generated from its rules "
                                          "(it holds no text of the spec: texts and names are in the namespace "
                                          "its units run with).")
    compile_.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    compile_.add_argument("--players", type=_players, metavar="N",
                          help="number of players (default: the spec's smallest)")
    compile_.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                          help="set a spec option (repeatable), as for play")
    compile_.add_argument("--show-python", action="store_true", help="print the generated Python code")
    _add_root(compile_, "`extends:`")
    _add_serve_parser(sub)

    lsp = sub.add_parser("lsp", help="a language server for editors (stdio; needs the lsp extra)",
                         description="Speak the Language Server Protocol on standard input and output: "
                                     "the problems of `rulespec validate` as you type, completion, hover, go to "
                                     "definition, find references and an outline of each spec. Needs "
                                     "pip install 'rulespec[lsp]'.")
    lsp.add_argument("--debounce", type=_debounce, default=100, metavar="MS",
                     help="changes closer together than this are checked once, after the last (default 100)")
    _add_root(lsp, "`extends:`")
    return parser


# ---------------------------------------------------------------------- helpers


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
            raise CliError(f"--option {_shown(item)}: write K=V, for example --option rounds=3")
        key, text = item.split("=", 1)
        key = key.strip()
        if not key:
            raise CliError(f"--option {_shown(item)}: the option name is missing")
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


def _agents(text: str | None) -> list[str]:
    return [a.strip() for a in text.split(",")] if text else []


def _root(args: argparse.Namespace) -> str | None:
    root = getattr(args, "root", None)
    if root is None:
        return None
    if not os.path.isdir(root):
        raise CliError(f"--root {root}: no such folder")
    return root


def _check_file(path: str | None) -> str:
    if not path:
        raise CliError("a spec FILE is needed")
    if not os.path.isfile(path):
        if os.path.exists(path):
            raise CliError(f"not a spec file: {path} (a folder, a device or a pipe)")
        raise CliError(f"no such file: {path}")
    return path


def _check_output(path: str | None, flag: str) -> None:
    """An output file named on the command line can be written: checked before any work."""
    if not path:
        return
    if os.path.isdir(path):
        raise CliError(f"{flag} {path}: that is a folder, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CliError(f"{flag} {path}: no such folder {os.path.dirname(path) or folder}")
    if os.path.exists(path) and not os.path.isfile(path):
        return  # /dev/null and friends
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise CliError(f"{flag} {path}: permission denied")


def _load(path: str, players: int | None, options: dict[str, Any], root: str | None = None) -> Any:
    from .game import load_game

    return load_game(_check_file(path), players=players, options=options, root=root)


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
    from .analysis.simulate import match_seeds
    from .play import HUMAN, QuitMatch, play_match, seat_agents

    root = _root(args)
    if args.resume:
        return _resume(args, out, stdin, root)
    _check_output(args.log, "--log")
    game = _load(args.file, args.players, parse_options(args.option), root)
    n = game.num_players
    agents, filled = seat_agents(_agents(args.agents), n)
    from .agents import make_agent

    for p, spec in enumerate(agents):
        if spec.lower() != HUMAN:
            make_agent(spec, game, p, 0)  # a bad name fails now, before the match
    state_seed, agent_seeds = match_seeds(args.seed, 0, n)
    console = _console(out, args.no_color)
    try:
        play_match(game, args.file, agents, state_seed, console, stdin, args.log, args.seed, agent_seeds, filled)
    except QuitMatch:
        return _stopped(console, args.log, args.file, root)
    except KeyboardInterrupt:
        _stopped(console, args.log, args.file, root)
        raise
    return EXIT_OK


def _resume(args: argparse.Namespace, out: TextIO, stdin: TextIO, root: str | None) -> int:
    from .analysis.simulate import expand_agents
    from .play import QuitMatch, resume_match
    from .replay import check_logged_game, iter_log, load_logged_game, log_spec_path

    path = args.resume
    if not os.path.isfile(path):
        if os.path.exists(path):
            raise CliError(f"not a log file: {path} (a folder, a device or a pipe)")
        raise CliError(f"no such log: {path}")
    from collections import deque

    (logged,) = deque(iter_log(path), maxlen=1)  # every line is checked; the last match is the one to continue
    if args.file is not None:
        # the spec named on the command line is trusted; it must be the one the log names
        named = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(path)), str(logged.header["spec"])))
        if os.path.isabs(str(logged.header["spec"])) or os.path.realpath(_check_file(args.file)) != named:
            raise CliError(f"the log is of {logged.header['spec']}, not {args.file}")
        game = load_logged_game(logged, root, spec=args.file)
    else:
        log_spec_path(logged, root)
        game = load_logged_game(logged, root)
    check_logged_game(logged, game)
    console = _console(out, args.no_color)
    if logged.complete:
        console.print(f"The match in {path} is already over; `rulespec replay {path}` shows it.",
                      highlight=False, markup=False)
        return EXIT_OK
    given = _agents(args.agents)
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
            from .replay import LoggedMatch, log_spec_path, spec_relative_to

            probe = LoggedMatch({"spec": spec_relative_to(log, spec)}, path=log)
            try:
                log_spec_path(probe)
            except Exception:  # the spec is not in the log's folder: say where resuming may look
                hint += f" --root {os.path.dirname(os.path.abspath(spec))}"
        console.print(f"Stopped. Continue with: {hint}", highlight=False, markup=False)
    else:
        console.print("Stopped. (Play with --log FILE to be able to resume.)", highlight=False, markup=False)
    return EXIT_OK


# ---------------------------------------------------------------------- simulate


def cmd_simulate(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .analysis.compare import compare, print_comparison, run_name
    from .analysis.ladder import ladder_report, print_report
    from .analysis.summary import plot, print_summary, records_json, summarize

    root = _root(args)
    jobs = _worker_count(args.jobs)
    options = parse_options(args.option)
    agents = _agents(args.agents)
    if any(a.lower() == "human" for a in agents):
        raise CliError("simulate plays bots only: 'human' is for rulespec play")
    for path, flag in ((args.json, "--json"), (args.plot, "--plot"), (args.log, "--log")):
        _check_output(path, flag)
    runs = [(_check_file(args.file), options)]
    if args.compare or args.compare_option:
        runs.append((_check_file(args.compare or args.file), {**options, **parse_options(args.compare_option)}))
    from .agents import make_agent
    from .analysis.simulate import expand_agents

    games = []
    for path, run_options in runs:  # invalid specs, options and agents fail before any match
        game = _load(path, args.players, run_options, root)
        for p, spec in enumerate(expand_agents(agents, game.num_players)):
            make_agent(spec, game, p, 0)
        games.append(game)
    if args.plot:
        _check_plotting()  # missing matplotlib is said now, not after the matches
    console = _console(out, args.no_color)
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
        _write(args.json, json.dumps(payload, indent=1) + "\n")
    if args.plot:
        labels = [run_name(results[0], None, short=True)] if len(results) == 1 else [
            "A: " + run_name(results[0], results[1], short=True),
            "B: " + run_name(results[1], results[0], short=True)]
        try:
            plot(summaries, results, args.plot, labels=labels, comparison=rows)
        except OSError as exc:
            raise CliError(f"cannot write {args.plot}: {exc.strerror or exc}", EXIT_INVALID) from None
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
    from .analysis.simulate import simulate

    keep = bool(args.log)
    if args.no_progress:
        return simulate(path, args.games, agents, args.players, options, args.seed, jobs, args.rotate, keep,
                        root=root, invariants=not args.no_invariants)
    with _progress_bar(err, args.no_color, f"simulating {os.path.basename(path)}", args.games) as update:
        return simulate(path, args.games, agents, args.players, options, args.seed, jobs, args.rotate, keep,
                        progress=update, root=root, invariants=not args.no_invariants)


@contextmanager
def _progress_bar(err: TextIO, no_color: bool, description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar on ``err`` (plain, 100 columns wide, when it is not a terminal): yields the
    function that says how many of ``total`` are done."""
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
    console = Console(file=err, no_color=no_color or not tty, force_terminal=None if tty else False,
                      width=None if tty else 100)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def _progress_on_a_terminal(args: argparse.Namespace, err: TextIO, description: str,
                            total: int) -> Iterator[Callable[[int], None] | None]:
    """A progress bar when the error stream is a terminal and --no-progress is not given, else None."""
    if args.no_progress or not bool(getattr(err, "isatty", lambda: False)()):
        yield None
        return
    with _progress_bar(err, args.no_color, description, total) as update:
        yield update


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror or exc}", EXIT_INVALID) from None


def _write_logs(path: str, results: list[Any], base_seed: int, root: str | None) -> None:
    from .game import load_game
    from .replay import LogWriter, match_header

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
        raise CliError(f"cannot write {path}: {exc.strerror or exc}", EXIT_INVALID) from None


# ---------------------------------------------------------------------- sweep


def _player_counts(text: str) -> list[int]:
    counts = [_players(part) for part in text.split(",")]
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"a player count is given twice in {_shown(text)}")
    return counts


def _chunk_size(text: str) -> int:
    from .analysis.sweep import MAX_CHUNK

    return _whole(text, "the chunk size", 1, MAX_CHUNK)


def _add_sweep_parser(sub: Any) -> None:
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
    sweep.add_argument("--games", type=_games, required=True, metavar="N", help="matches per combination")
    sweep.add_argument("--agents", metavar="LIST",
                       help="comma separated, one per seat or one for all: " + ", ".join(_agent_help()[1:]))
    sweep.add_argument("--seed", type=_seed, default=0, metavar="S",
                       help="the seed of everything random, 0 to 2**64-1 (default 0)")
    sweep.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                       help="an option set in every combination (repeatable)")
    sweep.add_argument("--rotate", action="store_true", help="rotate the agents one seat each match")
    sweep.add_argument("--backend", choices=("local", "ray"), default="local",
                       help="local: processes on this machine (default); ray: Ray tasks (pip install "
                            "'rulespec[ray]')")
    sweep.add_argument("--jobs", type=_jobs, default=1, metavar="J",
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
    _add_root(sweep, "`extends:`")


def parse_grid(items: Sequence[str]) -> list[tuple[str, list[Any]]]:
    """``["rounds=3,5"]`` -> ``[("rounds", [3, 5])]``: each value read as by ``parse_options``."""
    grid: list[tuple[str, list[Any]]] = []
    for item in items:
        if "=" not in item:
            raise CliError(f"--grid {_shown(item)}: write NAME=V1,V2,..., for example --grid rounds=3,5")
        name, text = (part.strip() for part in item.split("=", 1))
        if not name:
            raise CliError(f"--grid {_shown(item)}: the option name is missing")
        if name in (n for n, _ in grid):
            raise CliError(f"--grid {_shown(name)} is given twice: list all its values in one --grid")
        if any(not part.strip() for part in text.split(",")):
            raise CliError(f"--grid {_shown(name)}: an empty value (values are separated by commas)")
        try:
            values = [parse_options([f"{name}={part.strip()}"])[name] for part in text.split(",")]
        except CliError as exc:
            raise CliError(str(exc).replace("--option", "--grid", 1)) from None
        shown = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(shown)) != len(shown):
            raise CliError(f"--grid {_shown(name)}: a value is given twice")
        grid.append((name, values))
    return grid


def cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .analysis.sweep import SweepError

    try:
        return _sweep(args, out, err)
    except SweepError as exc:
        raise CliError(str(exc), exc.status) from None


def _sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .analysis.sweep import plan_sweep, plot_sweep, print_sweep, summarize_sweep, sweep_json

    root = _root(args)
    jobs = _worker_count(args.jobs)
    if args.address and args.backend != "ray":
        raise CliError("--address names a Ray cluster: it goes with --backend ray")
    for path, flag in ((args.out, "--out"), (args.json, "--json"), (args.plot, "--plot")):
        _check_output(path, flag)
    if args.plot:
        import matplotlib  # noqa: F401  (missing matplotlib is said now, not after the matches)
    backend = _sweep_backend(args, jobs)
    agents = _agents(args.agents)
    if any(a.lower() == "human" for a in agents):
        raise CliError("sweep plays bots only: 'human' is for rulespec play")
    plan = plan_sweep([_check_file(p) for p in args.specs], parse_grid(args.grid), args.players, args.games,
                      agents, args.seed, args.rotate, parse_options(args.option), root)
    try:
        records = _run_sweep(args, plan, backend, jobs, err)
    except KeyboardInterrupt:
        if args.out:
            _say(err, f"rulespec: the matches played are in {args.out}: run the same command to continue")
        raise
    rows = summarize_sweep(plan, records)
    print_sweep(plan, rows, _console(out, args.no_color))
    if args.json:
        _write(args.json, sweep_json(plan, rows))
    if args.plot:
        try:
            plot_sweep(plan, records, args.plot)
        except OSError as exc:
            raise CliError(f"cannot write {args.plot}: {exc.strerror or exc}", EXIT_INVALID) from None
    return EXIT_OK


def _sweep_backend(args: argparse.Namespace, jobs: int) -> Any:
    if args.backend == "ray":
        from .analysis.sweep_ray import ray_backend

        return ray_backend(jobs, args.address)
    from .analysis.sweep import local_backend

    return local_backend(jobs)


def _run_sweep(args: argparse.Namespace, plan: Any, backend: Any, jobs: int, err: TextIO) -> Any:
    from .analysis.sweep import run_sweep

    def resumed(done: int, total: int) -> None:
        _say(err, f"rulespec: {args.out} holds {done} of the {total} matches: playing the other {total - done}")

    def play(progress: Any = None) -> Any:
        return run_sweep(plan, backend, args.out, jobs, args.chunk_size, progress, resumed)

    with _progress_on_a_terminal(args, err, "sweeping", plan.total) as update:
        return play(None if update is None else lambda done, total: update(done))


# ---------------------------------------------------------------------- ladder


def _add_ladder_parser(sub: Any) -> None:
    ladder = sub.add_parser("ladder", help="rate bots against each other: round-robin matches, Bradley-Terry",
                            description="Play N matches between every pair of the listed agents (seats filled "
                                        "A, B, A, B... and rotated each match), fit Bradley-Terry ratings on the "
                                        "Elo scale (random = 0 when listed, else the first agent; one virtual draw "
                                        "between every pair as a prior) with 95% bootstrap intervals, and print "
                                        "them with the pairwise scores. Results depend only on the seed, not on "
                                        "--jobs, except for agents with a time budget per move (mcts:1s), which "
                                        "play as far as the machine lets them.")
    _add_game_arguments(ladder, agents_help="comma separated, 2 to 12 different agents (required)", humans=False)
    ladder.add_argument("--games", type=_games, required=True, metavar="N", help="matches per pair of agents")
    ladder.add_argument("--jobs", type=_jobs, default=1, metavar="J",
                        help="worker processes (default 1; 0 = all cores; never more than the cores)")
    ladder.add_argument("--json", metavar="OUT.json", help="write the ladder: ratings, intervals, pairwise results")
    ladder.add_argument("--save", action="store_true", help="keep the ladder beside the spec, in SPEC's "
                                                            "<stem>.ladder.json, for simulate to cite")
    ladder.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_root(ladder, "`extends:`")


def cmd_ladder(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .analysis.ladder import LadderError

    try:
        return _ladder(args, out, err)
    except LadderError as exc:
        raise CliError(str(exc), exc.status) from None


def _ladder(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .analysis.ladder import (
        ladder_path,
        parse_agent_list,
        plan_ladder,
        print_ladder,
        read_ladders,
        run_ladder,
        save_ladder,
    )

    root = _root(args)
    jobs = _worker_count(args.jobs)
    agents = parse_agent_list(args.agents)
    _check_output(args.json, "--json")
    path = _check_file(args.file)
    plan = plan_ladder(path, agents, args.games, args.players, parse_options(args.option), args.seed, root)
    saved = ladder_path(path)
    if args.save:
        _check_output(saved, "--save")
        read_ladders(saved)  # a file that is no ladder file is said now, and left as it is
    total = len(plan.pairs()) * plan.games
    with _progress_on_a_terminal(args, err, f"ladder {os.path.basename(path)}", total) as update:
        ladder = run_ladder(plan, jobs, update)
    print_ladder(ladder, _console(out, args.no_color))
    if args.json:
        _write(args.json, json.dumps(ladder, indent=1) + "\n")
    if args.save:
        save_ladder(ladder, saved)
        _say(err, f"rulespec: saved the ladder in {saved}")
    return EXIT_OK


# ---------------------------------------------------------------------- describe and replay


def cmd_describe(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from rulespec.describe import describe

    root = _root(args)
    path = _check_file(args.file)
    _check_output(args.output, "--output")
    text = describe(compile_file(path, root=root), args.audience)
    if args.output:
        _write(args.output, text)
    else:
        out.write(text)
    return EXIT_OK


def cmd_compile(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    game = _load(args.file, args.players, parse_options(args.option), _root(args))
    codegen = game.link.codegen
    if args.show_python:
        out.write(codegen.source())
    else:
        out.write(f"{args.file}: ready for {game.num_players} players ({len(codegen.units)} units of generated "
                  "code)\n")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .play import replay_to_console
    from .replay import LogError, iter_log

    root = _root(args)
    if not os.path.isfile(args.log):
        if os.path.exists(args.log):
            raise CliError(f"not a log file: {args.log} (a folder, a device or a pipe)")
        raise CliError(f"no such log: {args.log}")
    console = _console(out, args.no_color)
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


def cmd_lsp(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    root = _root(args)
    try:
        from .lsp.server import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        raise CliError("rulespec lsp needs pygls and lsprotocol: pip install 'rulespec[lsp]'") from None
    return serve(root=root, debounce=args.debounce / 1000)




# ---------------------------------------------------------------------- serve


def _port(text: str) -> int:
    return _whole(text, "the port", 0, 65535)


def _add_serve_parser(sub: Any) -> None:
    from .serve.limits import add_limit_options

    serve = sub.add_parser("serve", help="the browser playground: edit, play with friends and bots, replay, simulate",
                           description="Serve a playground in the browser: an editor that checks a spec as you "
                                       "type, tables to play the served specs (one URL per seat, or hot seat) with "
                                       "bots, a replay of match logs and bot simulations. Only the specs named "
                                       "here, and the files they extend, are read (once, at the start); the "
                                       "editor's text may extend them by name and nothing else. Every engine call "
                                       "runs in a worker process under the limits below. Needs the extra: "
                                       "pip install 'rulespec[serve]'.",
                           epilog="docs/playground.md explains every limit; docs/security.md the server's threat "
                                  "model.")
    serve.add_argument("files", nargs="*", metavar="FILE", help="spec files to serve (YAML)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this "
                                                           "machine only)")
    serve.add_argument("--port", type=_port, default=8000, help="the port (default 8000; 0 picks a free one)")
    serve.add_argument("--origin", action="append", default=[], metavar="URL",
                       help="another origin whose pages may use this server (the URL people open, as "
                            "https://games.example.org, when a proxy serves it under another name); repeatable")
    serve.add_argument("--proxy", action="append", default=[], metavar="IP",
                       help="the address of a reverse proxy whose X-Forwarded-For names the client (per-client "
                            "limits then count each client apart); repeatable")
    add_limit_options(serve)


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .serve import missing_extra

    missing = missing_extra()
    if missing is not None:
        raise CliError(f"rulespec serve needs {missing}: pip install 'rulespec[serve]'")
    for path in args.files:
        _check_file(path)
    from .serve.catalog import CatalogError
    from .serve.limits import limits_from_args
    from .serve.run import run_server

    try:
        run_server(args.files, args.host, args.port, out, limits_from_args(args), args.origin, args.proxy)
    except CatalogError as exc:
        raise CliError(str(exc)) from None
    return EXIT_OK


COMMANDS = {"validate": cmd_validate, "schema": cmd_schema, "play": cmd_play, "simulate": cmd_simulate,
            "describe": cmd_describe, "replay": cmd_replay, "compile": cmd_compile, "serve": cmd_serve,
            "sweep": cmd_sweep, "ladder": cmd_ladder, "lsp": cmd_lsp}


def _tolerant(stream: Any) -> None:
    """Undecodable input and unprintable output become replacement characters, not exceptions."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):
            pass


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None,
         stdin: TextIO | None = None) -> int:
    """Run one command; return its exit status. Every error is one line on ``err``."""
    if out is None:
        _tolerant(sys.stdout)
    if err is None:
        _tolerant(sys.stderr)
    if stdin is None:
        _tolerant(sys.stdin)
    out = out or sys.stdout
    err = err or sys.stderr
    stdin = stdin or sys.stdin
    try:
        return _main(argv, out, err, stdin)
    except KeyboardInterrupt:
        _say(err, "rulespec: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout(out)
        return EXIT_OK
    except MemoryError:
        _say(err, "rulespec: error: out of memory")
        return EXIT_INVALID
    except Exception as exc:  # a bug: one line, and the traceback only when asked for
        if os.environ.get("RULESPEC_DEBUG"):
            import traceback

            traceback.print_exc(file=err)
        _say(err, f"rulespec: internal error: {type(exc).__name__}: {_first_line(exc)} "
                  "(please report; set RULESPEC_DEBUG=1 for the traceback)")
        return EXIT_INTERNAL


def _say(err: TextIO, line: str) -> None:
    try:
        print(line, file=err)
        err.flush()
    except (OSError, ValueError):
        pass


def _first_line(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # an exception whose message cannot be made
        return "?"
    lines = text.splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= 300 else first[:297] + "..."


def _quiet_stdout(out: TextIO) -> None:
    """After a closed pipe (``rulespec ... | head``), nothing more is written to it, not even at exit."""
    if out is sys.stdout:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass


def _main(argv: Sequence[str] | None, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from .agents import AgentError
    from .errors import InterpreterError, OptionError, WorkerLost
    from .replay import LogError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except CliError as exc:  # a usage error: the message and the usage line
        print(exc, file=err)
        return EXIT_USAGE
    if args.command is None:
        parser.print_help(out)
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args, out, err, stdin)
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
        print(f"rulespec: error while playing: {_first_line(exc)}", file=err)
        return EXIT_INVALID
    except (UnicodeError, WorkerLost) as exc:  # (a worker killed: the system's doing, not a bug to report)
        print(f"rulespec: error: {_first_line(exc)}", file=err)
        return EXIT_INVALID
    except BrokenPipeError:
        raise
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"rulespec: error: {where}{exc.strerror or exc}", file=err)
        return EXIT_INVALID
    except ModuleNotFoundError as exc:
        if exc.name not in ("rich", "matplotlib"):
            raise
        extra = "cli" if exc.name == "rich" else "plot"
        print(f"rulespec: error: this needs {exc.name}: pip install 'rulespec[{extra}]'", file=err)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
