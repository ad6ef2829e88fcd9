"""`rulespec validate FILE...`: check specs; with --play N, also play random matches of every
variant a spec lists, its invariants checked after every action."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from rulespec import SpecError, compile_file

from .args import add_root, whole_number
from .common import EXIT_INVALID, EXIT_OK, first_line, root_folder


def _play_matches(text: str) -> int:
    return whole_number(text, "the number of matches", 0, 1_000_000)


def add_validate_parser(sub: Any) -> None:
    validate = sub.add_parser("validate", help="check spec files and report every problem",
                              description="Check spec files. Exit status 0 when all are valid, 1 otherwise; "
                                          "problems go to stderr as file:line:col: error: message.")
    validate.add_argument("files", nargs="+", metavar="FILE", help="spec files (YAML)")
    validate.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")
    validate.add_argument("-v", "--verbose", action="store_true",
                          help="also print the deck: its total and each card's count (default options); for a "
                               "variant (a file with `extends:`), also what it changes in its base (rulespec diff)")
    validate.add_argument("--play", type=_play_matches, default=0, metavar="N",
                          help="also play N random matches of every variant the spec lists, checking its "
                               "invariants after every action")
    add_root(validate, "`extends:`")


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    root = root_folder(args)
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
            print(f"{path}: {_problems(len(error.diagnostics))}", file=err)
            continue
        if args.play and _play_variants(path, gamedef, args.play, err):
            status = EXIT_INVALID
            continue
        if not args.quiet:
            print(f"{path}: ok ({gamedef.name}){_played_note(gamedef, args.play)}", file=out)
        if args.verbose:
            _print_deck(gamedef, out)
            _print_diff(path, root, out)
    return status


def _problems(count: int) -> str:
    return f"{count} problem{'s' if count != 1 else ''}"


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
    from ..analysis.simulate import play_case
    from ..errors import InterpreterError
    from ..game import Game

    failed = 0
    for name, players, options in _variant_cases(gamedef):
        try:
            game = Game(gamedef, players, options)
        except InterpreterError as exc:  # options the spec's own `requires:` refuses, for example
            failed += 1
            print(f"{path}: variant '{name}': {first_line(exc)}", file=err)
            continue
        found = play_case(game, matches)
        if found is None:
            continue
        failed += 1
        seed, text = found
        print(f"{path}: variant '{name}': seed {seed}: {text}", file=err)
        print(f"  replay it: {_play_command(path, game.num_players, options, seed)}", file=err)
    if failed:
        print(f"{path}: {_problems(failed)}", file=err)
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


def _print_diff(path: str, root: str | None, out: TextIO) -> None:
    """What a variant changes in its base (nothing for a spec without `extends`)."""
    from rulespec.diff import diff_variant

    found = diff_variant(path, root=root)
    if found is not None:
        for line in found.text().splitlines():
            print(f"  {line}", file=out)
