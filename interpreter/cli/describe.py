"""`rulespec describe FILE`: the rules as Markdown, generated from the spec (rulespec.describe)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from rulespec import compile_file

from .args import add_root
from .common import EXIT_OK, check_file, check_output, root_folder, write_file


def add_describe_parser(sub: Any) -> None:
    describe = sub.add_parser("describe", help="the rules of a spec as readable Markdown",
                              description="Print the rules as Markdown generated from the spec: components, "
                                          "options, setup, turn, every action and its effect, scoring and end.")
    describe.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    describe.add_argument("--output", "-o", metavar="OUT.md", help="write to a file instead of the screen")
    describe.add_argument("--for", dest="audience", choices=("designers", "players"), default="designers",
                          help="designers (default): every rule, variable, invariant and variant; players: the "
                               "rules a player learns from (goal first, what each card does, default options)")
    add_root(describe, "`extends:`")


def cmd_describe(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    from rulespec.describe import describe

    root = root_folder(args)
    path = check_file(args.file)
    check_output(args.output, "--output")
    text = describe(compile_file(path, root=root), args.audience)
    if args.output:
        write_file(args.output, text)
    else:
        out.write(text)
    return EXIT_OK
