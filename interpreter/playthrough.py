"""Golden playthroughs: one seeded match written out action by action, like OpenSpiel's.

A playthrough file starts with a header saying how to replay it (spec, players, options,
seed); the rest is generated: the game's sizes, then for every action the acting
player's observation (compact JSON, without the event log), the action id and its label,
and the events the action caused; finally the returns and winners. Choices are uniformly
random from ``random.Random(seed)``; chance is resolved by the engine from the same seed.

    python -m interpreter.playthrough --regenerate            # rewrite every file in tests/playthroughs
    python -m interpreter.playthrough --check                 # exit 1 when a file is out of date
    python -m interpreter.playthrough SPEC --players 4 --options '{"rounds": 1}' --seed 1 --out FILE

A test compares every file with a fresh generation, so a change of behaviour fails until
the files are regenerated (and the diff reviewed).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from .game import load_game

__all__ = ["Header", "generate", "read_header", "regenerate", "out_of_date", "DEFAULT_DIR"]

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "tests" / "playthroughs"
_MARK = "# rulespec playthrough"
_FIELDS = ("spec", "players", "options", "seed")


class Header(dict):
    """``spec`` (a path relative to the project root), ``players``, ``options``, ``seed``."""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def read_header(text: str, where: str = "<text>") -> Header:
    header = Header()
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(":")
        if sep and key.strip() in _FIELDS:
            header[key.strip()] = json.loads(value.strip())
    missing = [f for f in _FIELDS if f not in header]
    if missing:
        raise ValueError(f"{where}: not a playthrough (missing {', '.join(missing)} in the header)")
    return header


def generate(header: Header, root: Path | None = None) -> str:
    """The full text of the playthrough described by ``header``."""
    root = root if root is not None else DEFAULT_DIR.parent.parent
    spec = (root / str(header["spec"])).resolve()
    if not spec.is_relative_to(root.resolve()) or not spec.is_file():
        raise ValueError(f"the spec {header['spec']!r} of a playthrough must be a file inside {root}")
    game = load_game(str(spec), players=header["players"], options=header["options"], root=str(root))
    seed = header["seed"]
    rng = random.Random(seed)
    lines = [
        f"{_MARK}: regenerate with `python -m interpreter.playthrough --regenerate`",
        *(f"# {f}: {_dumps(header[f])}" for f in _FIELDS),
        "",
        f"game: {game.name}",
        f"num_players: {game.num_players}",
        f"options: {_dumps(game.options)}",
        f"num_distinct_actions: {game.num_distinct_actions}",
        f"max_game_length: {game.max_game_length}",
        f"utility: min {game.min_utility}, max {game.max_utility}, sum {game.utility_sum}",
        "",
    ]
    state = game.new_initial_state(seed)
    seen = len(state.events)
    lines.append(f"events: {_dumps(state.events)}")
    step = 0
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        if state.is_chance_node():  # only with explicit chance, which playthroughs do not use
            raise ValueError("playthroughs run with chance resolved by the engine")
        action = legal[rng.randrange(len(legal))]
        label = state.action_to_string(action)
        view = state.observation(player, events=False)
        step += 1
        lines.append("")
        lines.append(f"# {step} {game.seat_names[player]} (player {player}) of {len(legal)} legal actions")
        lines.append(f"observation: {_dumps(view)}")
        lines.append(f"action: {action} {_dumps(label)}")
        state.apply_action(action)
        if len(state.events) > seen:
            lines.append(f"events: {_dumps(state.events[seen:])}")
            seen = len(state.events)
    lines.append("")
    lines.append(f"final observations: {_dumps([state.observation(p, events=False) for p in range(game.num_players)])}")
    lines.append(f"returns: {_dumps(state.returns())}")
    lines.append(f"winners: {_dumps(state.winners())}")
    return "\n".join(lines) + "\n"


def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.txt") if p.read_text(encoding="utf-8").startswith(_MARK))


def out_of_date(directory: Path = DEFAULT_DIR, root: Path | None = None) -> list[Path]:
    """The playthrough files in ``directory`` whose text differs from a fresh generation."""
    stale = []
    for path in _files(directory):
        text = path.read_text(encoding="utf-8")
        if generate(read_header(text, str(path)), root) != text:
            stale.append(path)
    return stale


def regenerate(directory: Path = DEFAULT_DIR, root: Path | None = None) -> list[Path]:
    """Rewrite every playthrough in ``directory``; return the files that changed."""
    changed = []
    for path in _files(directory):
        text = path.read_text(encoding="utf-8")
        fresh = generate(read_header(text, str(path)), root)
        if fresh != text:
            path.write_text(fresh, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    """The command line; every error is one line on stderr (exit 1), never a traceback."""
    from rulespec import SpecError

    from .errors import InterpreterError

    try:
        return _main(argv)
    except SpecError as exc:
        print(str(exc).splitlines()[0] if str(exc) else "invalid spec", file=sys.stderr)
    except (InterpreterError, ValueError, OSError, RecursionError) as exc:
        print(f"playthrough: error: {exc}", file=sys.stderr)
    except KeyboardInterrupt:
        print("playthrough: interrupted", file=sys.stderr)
        return 130
    return 1


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m interpreter.playthrough", description=__doc__.split("\n")[0])
    parser.add_argument("spec", nargs="?", help="a spec, to write one new playthrough")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--options", default="{}", help="options as JSON")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="the file to write (default: stdout)")
    parser.add_argument("--regenerate", action="store_true", help="rewrite every playthrough in --dir")
    parser.add_argument("--check", action="store_true", help="exit 1 if a playthrough in --dir is out of date")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"playthrough directory (default {DEFAULT_DIR})")
    args = parser.parse_args(argv)
    root = args.dir.resolve().parent.parent
    if args.regenerate or args.check:
        if args.spec:
            parser.error("--regenerate and --check take no spec")
        if args.regenerate:
            for path in regenerate(args.dir, root):
                print(f"regenerated {path}")
            return 0
        stale = out_of_date(args.dir, root)
        for path in stale:
            print(f"out of date: {path}", file=sys.stderr)
        return 1 if stale else 0
    if not args.spec:
        parser.error("give a spec, or --regenerate / --check")
    spec = Path(args.spec).resolve()
    try:
        relative = spec.relative_to(root)
    except ValueError:
        parser.error(f"the spec must be inside the project ({root})")
    header = Header(spec=relative.as_posix(), players=args.players, options=json.loads(args.options), seed=args.seed)
    if header["players"] is None:
        header["players"] = load_game(str(spec), options=header["options"]).num_players
    text = generate(header, root)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
