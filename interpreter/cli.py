"""The `rulespec` command line: a thin layer over the public API.

    rulespec validate FILE...          check specs (exit 0 valid, 1 invalid; messages on stderr)
    rulespec schema                    print the JSON Schema of a spec
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from rulespec import SpecError, compile_file, schema_text

__all__ = ["main", "build_parser"]

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


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
    return parser


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out.write(schema_text())
    return EXIT_OK


COMMANDS = {"validate": cmd_validate, "schema": cmd_schema}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(out)
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args, out, err)
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
