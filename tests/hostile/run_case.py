"""Play one hostile saved state; `tests/test_hostile.py` runs this in a resource-limited subprocess.

    python tests/hostile/run_case.py state tests/hostile/states/NAME.json

The case file is ``{"spec": "games/x.yaml", "players": N, "options": {...}, "state": TEXT}``:
``spec`` is relative to the repository root, ``players`` and ``options`` are optional, and
``state`` is the text ``state.to_json()`` would give (or that JSON written out as an object).

``game.state_from_json(text)`` must either raise ``interpreter.StateError`` (the message is
printed, exit status 1) or give a state that behaves: it survives a JSON round trip, every
player can observe it, and taking the first legal action (or the first chance outcome) each
time plays it to the end within 5,000 actions, round-tripping once more at the end (exit
status 0). Any other exception escapes with its traceback, and the runner reports it.
Exit status 4 means the case file itself is malformed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import interpreter  # noqa: E402

MAX_ACTIONS = 5_000
EXIT_LOADED, EXIT_REJECTED, EXIT_BAD_CASE = 0, 1, 4


def bad_case(path: str, why: str) -> int:
    print(f"{path}: malformed case file: {why}", file=sys.stderr)
    return EXIT_BAD_CASE


def round_trip(game: Any, state: Any, when: str) -> None:
    again = game.state_from_json(state.to_json())
    if again != state:
        raise AssertionError(f"state_from_json(state.to_json()) != state {when}")


def observe(game: Any, state: Any) -> None:
    for p in range(game.num_players):
        json.dumps(state.observation(p))


def run_state(path: str) -> int:
    try:
        case = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return bad_case(path, str(exc))
    if not isinstance(case, dict) or not isinstance(case.get("spec"), str) or "state" not in case:
        return bad_case(path, 'expected {"spec": PATH, "players": N, "options": {...}, "state": TEXT}')
    text = case["state"] if isinstance(case["state"], str) else json.dumps(case["state"])
    game = interpreter.load_game(str(ROOT / case["spec"]), players=case.get("players"),
                                 options=case.get("options") or {})
    try:
        state = game.state_from_json(text)
    except interpreter.StateError as exc:
        print(f"state rejected: {exc}", file=sys.stderr)
        return EXIT_REJECTED
    round_trip(game, state, "after loading")
    observe(game, state)
    actions = 0
    while not state.is_terminal():
        if actions >= MAX_ACTIONS:
            raise AssertionError(f"the loaded state did not finish within {MAX_ACTIONS} actions")
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            legal = state.legal_actions()
            if not legal:
                raise AssertionError("a state that is not over has no legal action")
            state.apply_action(legal[0])
        actions += 1
        observe(game, state)
    round_trip(game, state, "at the end")
    print(f"state loaded and played to the end in {actions} actions")
    return EXIT_LOADED


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "state":
        print("usage: python tests/hostile/run_case.py state CASE.json", file=sys.stderr)
        return 2
    return run_state(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
