"""`rulespec compile FILE`: compile and link a spec for a player count, as `play` does before a
match; --show-python prints the code generated from its rules."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .args import add_root, parse_options, players_type
from .common import EXIT_OK, load_game_file, root_folder


def add_compile_parser(sub: Any) -> None:
    compile_ = sub.add_parser("compile", help="compile a spec for a player count (and show the generated code)",
                              description="Compile the spec and link it for a player count and options, as "
                                          "`play` does before a match: exit status 0 when it is ready to play. "
                                          "With --show-python, print the Python code generated from its rules "
                                          "(it holds no text of the spec: texts and names are in the namespace "
                                          "its units run with).")
    compile_.add_argument("file", metavar="FILE", help="the spec file (YAML)")
    compile_.add_argument("--players", type=players_type, metavar="N",
                          help="number of players (default: the spec's smallest)")
    compile_.add_argument("--option", "-O", action="append", default=[], metavar="K=V",
                          help="set a spec option (repeatable), as for play")
    compile_.add_argument("--show-python", action="store_true", help="print the generated Python code")
    add_root(compile_, "`extends:`")


def cmd_compile(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    game = load_game_file(args.file, args.players, parse_options(args.option), root_folder(args))
    codegen = game.link.codegen
    if args.show_python:
        out.write(codegen.source())
    else:
        out.write(f"{args.file}: ready for {game.num_players} players ({len(codegen.units)} units of generated "
                  "code)\n")
    return EXIT_OK
