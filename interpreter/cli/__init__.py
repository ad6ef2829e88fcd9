"""The `rulespec` command line: a thin layer over the public API.

    rulespec validate FILE...          check specs (exit 0 valid, 1 invalid; messages on stderr)
    rulespec schema                    print the JSON Schema of a spec
    rulespec play FILE                 a match in the terminal: humans and bots (interpreter.play)
    rulespec simulate FILE --games N   bot matches, statistics, plots, comparisons (interpreter.analysis.simulate)
    rulespec sweep SPEC [VARIANT...]   bot matches over a grid of variants, options and player counts
    rulespec ladder SPEC --agents LIST round-robin bot matches and ratings (interpreter.analysis.ladder)
    rulespec describe FILE             the rules as Markdown, generated from the spec (rulespec.describe)
    rulespec rulebook SPEC [VARIANT]   a rulebook to print: Markdown, HTML or PDF (rulespec.rulebook)
    rulespec diff BASE VARIANT         what a variant changes, in the rulebook's words (rulespec.diff)
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
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from rulespec import SpecError

from .args import Parser, parse_options
from .common import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, EXIT_USAGE, CliError, first_line, say
from .compile import add_compile_parser, cmd_compile
from .describe import add_describe_parser, cmd_describe
from .diff import add_diff_parser, cmd_diff
from .ladder import add_ladder_parser, cmd_ladder
from .lsp import add_lsp_parser, cmd_lsp
from .play import add_play_parser, cmd_play
from .replay import add_replay_parser, cmd_replay
from .rulebook import add_rulebook_parser, cmd_rulebook
from .schema import add_schema_parser, cmd_schema
from .serve import add_serve_parser, cmd_serve
from .simulate import add_simulate_parser, cmd_simulate
from .sweep import add_sweep_parser, cmd_sweep
from .validate import add_validate_parser, cmd_validate

__all__ = ["main", "build_parser", "parse_options", "CliError"]

# each command: how its arguments are added to the parser (in the order of `rulespec --help`) and what runs it
PARSERS = (add_validate_parser, add_schema_parser, add_play_parser, add_simulate_parser, add_sweep_parser,
           add_ladder_parser, add_describe_parser, add_rulebook_parser, add_diff_parser, add_replay_parser,
           add_compile_parser, add_serve_parser, add_lsp_parser)
COMMANDS = {"validate": cmd_validate, "schema": cmd_schema, "play": cmd_play, "simulate": cmd_simulate,
            "describe": cmd_describe, "rulebook": cmd_rulebook, "diff": cmd_diff, "replay": cmd_replay,
            "compile": cmd_compile,
            "serve": cmd_serve, "sweep": cmd_sweep, "ladder": cmd_ladder, "lsp": cmd_lsp}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="rulespec",
        description="Games written as YAML rules: validate, inspect, play and simulate them.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser in PARSERS:
        add_parser(sub)
    return parser


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
        say(err, "rulespec: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout(out)
        return EXIT_OK
    except MemoryError:
        say(err, "rulespec: error: out of memory")
        return EXIT_INVALID
    except Exception as exc:  # a bug: one line, and the traceback only when asked for
        if os.environ.get("RULESPEC_DEBUG"):
            import traceback

            traceback.print_exc(file=err)
        say(err, f"rulespec: internal error: {type(exc).__name__}: {first_line(exc)} "
                 "(please report; set RULESPEC_DEBUG=1 for the traceback)")
        return EXIT_INTERNAL


def _quiet_stdout(out: TextIO) -> None:
    """After a closed pipe (``rulespec ... | head``), nothing more is written to it, not even at exit."""
    if out is sys.stdout:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass


def _spec_error_line(error: SpecError) -> str:
    first = error.diagnostics[0] if error.diagnostics else None
    count = len(error.diagnostics)
    head = f"{first.span}: error: {first.message}" if first is not None and first.span else str(error).splitlines()[0]
    more = f" ({count} problems; `rulespec validate` lists them)" if count > 1 else ""
    return head + more


def _main(argv: Sequence[str] | None, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from ..agents import AgentError
    from ..errors import InterpreterError, OptionError, WorkerLost
    from ..replay import LogError

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
        print(f"rulespec: error while playing: {first_line(exc)}", file=err)
        return EXIT_INVALID
    except (UnicodeError, WorkerLost) as exc:  # (a worker killed: the system's doing, not a bug to report)
        print(f"rulespec: error: {first_line(exc)}", file=err)
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

