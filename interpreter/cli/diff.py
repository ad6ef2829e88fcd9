"""`rulespec diff BASE VARIANT`: what a variant changes, in the rulebook's words (rulespec.diff)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .args import add_root, parse_options
from .common import EXIT_OK, check_file, check_output, root_folder, write_file


def add_diff_parser(sub: Any) -> None:
    diff = sub.add_parser("diff", help="what a variant changes in its base, in the rulebook's words",
                          description="Print what VARIANT changes in BASE: the players, the options and their "
                                      "defaults, and the rules added, removed and changed (before -> after), each "
                                      "located in its section (\"Setup of each round, step 3\"), card counts and "
                                      "points by card; then what each of VARIANT's own steps changes (its sections "
                                      "merged, each patch), or that it changes nothing the rules show.")
    diff.add_argument("base", metavar="BASE", help="the base spec file (YAML)")
    diff.add_argument("variant", metavar="VARIANT", help="the variant spec file (YAML), usually `extends:` BASE")
    diff.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                      help="compare both with this option as its default (repeatable); V is read as JSON when it "
                           "can be, else text")
    diff.add_argument("--output", "-o", metavar="OUT.txt", help="write to a file instead of the screen")
    add_root(diff, "`extends:`")


def cmd_diff(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from rulespec.diff import diff_variant

    root = root_folder(args)
    base = check_file(args.base)
    variant = check_file(args.variant)
    check_output(args.output, "--output")
    options = parse_options(args.option)
    found = diff_variant(variant, base_path=base, root=root, options=options)
    assert found is not None  # a base is named
    text = found.text()
    if args.output:
        write_file(args.output, text)
    else:
        out.write(text)
    return EXIT_OK
