"""Writes the saved-state cases of the hostile corpus (issue 11): ``python tests/hostile/states/make_states.py``.

Each ``NAME.json`` is ``{"spec": ..., "players": N, "options": {...}, "state": TEXT}``: a real
``to_json()`` of a match in progress (Highjack with four players, waiting on a choice made
inside another action's effect; a few other specs), changed in one way. ``tests/test_hostile.py``
loads each in a limited subprocess: it must raise ``StateError`` or play to the end. The
files are committed; this script only documents and regenerates them.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

import interpreter  # noqa: E402
from tests.support import inside_an_effect, play_until, played  # noqa: E402

HIGHJACK = "games/highjack.yaml"


def _in_effect(game: interpreter.Game) -> interpreter.State:
    return play_until(game, 0, inside_an_effect, limit=300, attempts=200)


def _played(game: interpreter.Game, seed: int, steps: int) -> interpreter.State:
    return played(game, seed, steps)


def _env_frame(d: dict[str, Any]) -> list[Any]:
    return next(f for f in reversed(d["stack"]) if len(f) == 3 and isinstance(f[2], dict) and f[2])


def _loop_frame(d: dict[str, Any]) -> list[Any]:
    return next(f for f in d["stack"] if len(f) == 4 and isinstance(f[1], list) and f[2] < len(f[1]))


def _nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


# name -> change of the parsed state (None: the real state, unchanged)
CHANGES: dict[str, Callable[[dict[str, Any]], Any] | None] = {
    "real_state_in_effect": None,
    "score_changed": lambda d: d["total"].__setitem__(0, 400),
    "ending_flag_set": lambda d: d.update(ending=True),
    "events_emptied": lambda d: d.update(events=[]),
    "rng_changed": lambda d: d.update(rng=12345),
    "card_duplicated": lambda d: d["zones"][0].append(next(c for z in d["zones"][1:] for c in z)),
    "card_missing": lambda d: next(z for z in d["zones"] if z).pop(),
    "card_out_of_range": lambda d: d["zones"][0].append(100000),
    "card_negative": lambda d: d["zones"][0].append(-1),
    "card_as_text": lambda d: d["zones"][0].append("1"),
    "loc_inconsistent": lambda d: d["loc"].__setitem__(0, (d["loc"][0] + 1) % len(d["zones"])),
    "face_two": lambda d: d["face"].__setitem__(3, 2),
    "shuffled_empty_zone": lambda d: d["shuffled"].__setitem__(d["zones"].index([]), True),
    "zone_list_short": lambda d: d["zones"].pop(),
    "current_out_of_range": lambda d: d.update(current=9),
    "current_negative": lambda d: d.update(current=-4),
    "dealer_null": lambda d: d.update(dealer=None),
    "round_negative": lambda d: d.update(round=-1),
    "turn_huge": lambda d: d.update(turn=10**40),
    "skips_negative": lambda d: d["skips"].__setitem__(1, -5),
    "score_nan_text": lambda d: d["score"].__setitem__(0, "NaN"),
    "total_huge_int": lambda d: d["total"].__setitem__(0, 7**4000),
    "rng_negative": lambda d: d.update(rng=-1),
    "rng_too_big": lambda d: d.update(rng=2**64),
    "history_forged_id": lambda d: d["history"].append(10**12),
    "history_text": lambda d: d["history"].append("0"),
    "events_not_objects": lambda d: d["events"].append("boom"),
    "event_to_not_a_list": lambda d: d["events"].append({"type": "x", "to": 3}),
    "event_deeply_nested": lambda d: d["events"].append({"type": "x", "v": _nested(200)}),
    "over_but_pending": lambda d: d.update(over=True),
    "winners_before_end": lambda d: d.update(winners_=[0, 1]),
    "variable_wrong_type": lambda d: d["g"].__setitem__(0, "four"),
    "pvar_card_out_of_range": lambda d: d["pv"][0].__setitem__(0, 10**6),
    "missing_field": lambda d: d.pop("stack"),
    "extra_field": lambda d: d.update(__class__="os.system"),
    "wrong_format": lambda d: d.update(format=99),
    "other_game": lambda d: d.update(game="Highjack|2|{}|implicit"),
    "stack_empty": lambda d: d.update(stack=[]),
    "frame_code_out_of_range": lambda d: d["stack"][-1].__setitem__(0, 99999),
    "frame_code_text": lambda d: d["stack"][-1].__setitem__(0, "0"),
    "frame_pc_out_of_range": lambda d: d["stack"][-1].__setitem__(1, 500),
    "frame_extra_entry": lambda d: d["stack"][-1].append(None),
    "frames_reordered": lambda d: d["stack"].reverse(),
    "frame_env_unknown_name": lambda d: _env_frame(d)[2].update(__import__="os"),
    "frame_env_wrong_type": lambda d: _env_frame(d)[2].update({k: [[]] for k in _env_frame(d)[2]}),
    "loop_binding_missing_name": lambda d: _loop_frame(d)[1][-1].clear(),
    "loop_position_past_end": lambda d: _loop_frame(d).__setitem__(2, 1000),
    "pending_null": lambda d: d.update(pending=None),
    "pending_other_player": lambda d: d["pending"].__setitem__(0, (d["pending"][0] + 1) % 4),
    "pending_forged_legal_id": lambda d: d["pending"][1].append(d["pending"][1][-1] + 1),
    "pending_legal_ids_out_of_range": lambda d: d["pending"].__setitem__(1, [10**9]),
    "pending_legal_ids_empty": lambda d: d["pending"].__setitem__(1, []),
    "pending_code_out_of_range": lambda d: d["pending"].__setitem__(3, -7),
    "pending_as_chance": lambda d: d["pending"].__setitem__(0, -1),
    "pending_env_forged": lambda d: d["pending"].__setitem__(4, {"p": 99}),
}

# cases written as text, not as a change of the parsed state
TEXTS: dict[str, Callable[[str], str]] = {
    "text_truncated": lambda t: t[: len(t) // 2],
    "text_deep_nesting": lambda t: "[" * 20000 + "]" * 20000,
    "text_huge_integer": lambda t: t.replace('"rng":', '"rng":' + "9" * 5000 + ",\"x\":", 1),
    "text_nan": lambda t: t.replace('"rng":', '"rng":NaN,"x":', 1),
    "text_not_an_object": lambda t: "[1, 2, 3]",
    "text_empty": lambda t: "",
}


def _case(spec: str, players: int, options: dict[str, Any], state: Any) -> dict[str, Any]:
    return {"spec": spec, "players": players, "options": options, "state": state}


def main() -> None:
    game = interpreter.load_game(str(ROOT / HIGHJACK), players=4)
    base = _in_effect(game)
    text = base.to_json()
    data = json.loads(text)
    cases: dict[str, dict[str, Any]] = {}
    for name, change in CHANGES.items():
        mutant = copy.deepcopy(data)
        if change is not None:
            change(mutant)
        cases[name] = _case(HIGHJACK, 4, {}, json.dumps(mutant, separators=(",", ":")))
    for name, change in TEXTS.items():
        cases[name] = _case(HIGHJACK, 4, {}, change(text))
    cases["state_as_object"] = _case(HIGHJACK, 4, {}, data)
    # other specs: a real state, and one with a forged decision
    for spec, players, options, steps in (("games/tictactoe.yaml", 2, {}, 3),
                                          ("games/highhand.yaml", 4, {"rounds": 1}, 6),
                                          ("games/goofspiel.yaml", 2, {}, 2)):
        other = interpreter.load_game(str(ROOT / spec), players=players, options=options)
        state = _played(other, 1, steps)
        stem = Path(spec).stem
        cases[f"{stem}_real_state"] = _case(spec, players, options, state.to_json())
        forged = json.loads(state.to_json())
        forged["pending"][1] = list(range(other.num_distinct_actions))
        cases[f"{stem}_every_id_legal"] = _case(spec, players, options, json.dumps(forged))
    for old in HERE.glob("*.json"):
        old.unlink()
    for name, case in sorted(cases.items()):
        (HERE / f"{name}.json").write_text(json.dumps(case, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {HERE}")


if __name__ == "__main__":
    main()
