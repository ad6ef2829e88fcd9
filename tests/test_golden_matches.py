"""Golden digests of the engine's behaviour: random matches of every spec in games/, in every
variant it lists, play exactly as they played when tests/golden/engine_matches.json was recorded.

Each match (seeds 0, 1 and 2, with implicit and with explicit chance) is played from
``new_initial_state(seed)`` with ``random.Random(seed)`` choosing uniformly among the legal
actions (a chance outcome by its probability), for at most ``MAX_ACTIONS`` actions. Its digest is
the sha256 of, in order: the start (the state's JSON and the work counter), then for each action
the current player, the legal action ids and their labels (at a chance node the outcomes and their
probabilities), the action chosen, and after it the events it added, ``state.to_json()`` and the
work counter ``state.ops``; at the start, every ``CHECKPOINT`` actions and at the end what each
player sees (``observation``); at the end whether the match ended, and its returns. The file
keeps the digest of every prefix of ``CHECKPOINT`` actions too, so a failure names the first
stretch of the match that changed.

The digests hold when the executor changes (issue 52 replaces the closures and generated code by
generated code only): the engine's default executor is compared here, and the two others while
they exist ("strict": generated code without fallback, "off": the closures only).

When a change of behaviour is intended (a spec, an action label, the state's format...), record
the digests again (with the default executor, "on") and say why in the commit:

    python -m tests.test_golden_matches --write
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import interpreter
from tests.conftest import GAMES
from tests.support import engine_mode, write_golden

GOLDEN = Path(__file__).resolve().parent / "golden" / "engine_matches.json"
SPECS = sorted(GAMES.glob("*.yaml"))
SEEDS = (0, 1, 2)
CHANCE = ("implicit", "explicit")
MAX_ACTIONS = 400
CHECKPOINT = 50
SETTINGS = {"seeds": list(SEEDS), "chance": list(CHANCE), "max_actions": MAX_ACTIONS, "checkpoint": CHECKPOINT}
OTHER_EXECUTORS = ("strict", "off")


def _cases() -> list[tuple[str, Path, dict[str, Any]]]:
    """(id, spec, variant) of every variant of every spec (ids as tests/test_conformance.py's)."""
    cases = []
    for spec in SPECS:
        variants = interpreter.load_game(str(spec)).variants or [{"name": "defaults", "players": None, "options": {}}]
        for i, variant in enumerate(variants):
            name = variant["name"] or f"variant {i}"
            cases.append((f"{spec.stem}-{name}".replace(" ", "_"), spec, variant))
    ids = [case[0] for case in cases]
    assert len(set(ids)) == len(ids), "two variants of a spec have the same name"
    return cases


CASES = _cases()


def _text(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"


def trace(game: interpreter.Game, seed: int) -> dict[str, Any]:
    """One random match of ``game`` from ``seed``: its digest, the digests of its prefixes of
    ``CHECKPOINT`` actions, how many actions it took and whether it ended."""
    digest = hashlib.sha256()
    checkpoints = []
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    seen = 0

    def views() -> None:
        digest.update(_text([state.observation(p) for p in range(game.num_players)]))

    digest.update(_text([state.to_json(), state.ops]))
    views()
    actions = 0
    while not state.is_terminal() and actions < MAX_ACTIONS:
        legal = state.legal_actions()
        step: list[Any] = [state.current_player(), legal, [state.action_to_string(a) for a in legal]]
        if state.is_chance_node():
            step.append(state.chance_outcomes())
            action = state.sample_chance_outcome(rng)
        else:
            action = legal[rng.randrange(len(legal))]
        step.append(action)
        state.apply_action(action)
        actions += 1
        step += [state.events[seen:], state.to_json(), state.ops]
        seen = len(state.events)
        digest.update(_text(step))
        if actions % CHECKPOINT == 0:
            views()
            checkpoints.append(digest.hexdigest()[:12])
    views()
    terminal = state.is_terminal()
    digest.update(_text([terminal, state.returns() if terminal else None]))
    return {"actions": actions, "terminal": terminal, "digest": digest.hexdigest(), "checkpoints": checkpoints}


def record(spec: Path, variant: dict[str, Any]) -> dict[str, Any]:
    """The traces of one variant's matches, by "CHANCE SEED"."""
    matches = {}
    for chance in CHANCE:
        game = interpreter.load_game(str(spec), players=variant["players"], options=variant["options"],
                                     explicit_chance=chance == "explicit")
        for seed in SEEDS:
            matches[f"{chance} {seed}"] = trace(game, seed)
    return matches


def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def _differences(case: str, got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """One line per match that differs from the recording: where it first differs."""
    lines = []
    for match in sorted(set(got) | set(want)):
        new, old = got.get(match), want.get(match)
        if new == old:
            continue
        if new is None or old is None:
            lines.append(f"{case} {match}: {'not recorded' if old is None else 'not played'}")
            continue
        same = 0
        for a, b in zip(new["checkpoints"], old["checkpoints"]):
            if a != b:
                break
            same += 1
        lines.append(f"{case} {match}: differs within actions {same * CHECKPOINT + 1}..{(same + 1) * CHECKPOINT} "
                     f"(played {new['actions']} actions, terminal {new['terminal']}; recorded {old['actions']}, "
                     f"terminal {old['terminal']})")
    return lines


def _check(case: str, spec: Path, variant: dict[str, Any]) -> None:
    want = _golden()["cases"].get(case)
    assert want is not None, f"{case}: no recorded digests (python -m tests.test_golden_matches --write)"
    got = record(spec, variant)
    problems = _differences(case, got, want)
    assert not problems, ("matches play differently from their recording in tests/golden/engine_matches.json "
                          "(if intended, record again: python -m tests.test_golden_matches --write)\n"
                          + "\n".join(problems))


@pytest.mark.parametrize("case, spec, variant", CASES, ids=[case[0] for case in CASES])
def test_matches_play_as_recorded(case, spec, variant):
    _check(case, spec, variant)


@pytest.mark.parametrize("mode", OTHER_EXECUTORS)
@pytest.mark.parametrize("case, spec, variant", CASES, ids=[case[0] for case in CASES])
def test_matches_play_as_recorded_with_each_executor(case, spec, variant, mode):
    with engine_mode(mode):
        _check(case, spec, variant)


def test_the_recording_covers_every_variant_of_every_spec():
    golden = _golden()
    assert golden["settings"] == SETTINGS, "the settings changed: record again"
    assert sorted(golden["cases"]) == sorted(case[0] for case in CASES), "record again: the specs or variants changed"
    for case, matches in golden["cases"].items():
        assert sorted(matches) == sorted(f"{chance} {seed}" for chance in CHANCE for seed in SEEDS), case


def write() -> None:
    """Record every variant's digests in tests/golden/engine_matches.json (one line per match)."""
    cases = {}
    for case, spec, variant in CASES:
        with engine_mode("on"):
            cases[case] = record(spec, variant)
        print(case, file=sys.stderr)
    write_golden(GOLDEN, "digests of random matches: see tests/test_golden_matches.py; record with its --write",
                 cases, settings=SETTINGS)
    print(f"wrote {GOLDEN} ({len(CASES)} variants)", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_golden_matches --write")
    write()
