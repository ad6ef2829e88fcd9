"""Action ids from outside: one type check at every entry point that applies them (issue 11).

Python ints and numpy integers (and 0-d integer arrays) are ids and are stored as plain
ints; anything else (bool, float, text, bytes, None, lists, arrays, objects) raises
``IllegalActionError`` and leaves the state exactly as it was.
"""

from __future__ import annotations

import enum
import json
import random
from typing import Any

import numpy as np
import pytest

import interpreter
from interpreter.state import action_id
from tests.conftest import GAMES, require

HIGHHAND = str(GAMES / "highhand.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")


class _Color(enum.IntEnum):
    RED = 0


class _Hostile:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __index__(self) -> int:
        return 0

    def __int__(self) -> int:
        return 0


def _not_ids(legal: int) -> list[Any]:
    return [True, False, float(legal), 0.0, 0.9, np.float64(legal), np.float32(legal), str(legal), "0", b"0",
            bytearray(b"0"), None, [legal], (legal,), {legal}, {"id": legal}, np.array([legal]),
            np.array(float(legal)), np.bool_(True), np.array(True), complex(legal), object(), _Hostile(),
            float("nan"), float("inf")]


def _ints(legal: int) -> list[Any]:
    return [legal, np.int64(legal), np.int32(legal), np.uint8(legal) if legal < 256 else np.uint32(legal),
            np.array(legal), np.array(legal, dtype=np.int16)]


def _mid_match(path: str = HIGHHAND, players: int = 2, steps: int = 7) -> interpreter.State:
    game = interpreter.load_game(path, players=players)
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    for _ in range(steps):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_action_id_converts_integers_to_plain_ints():
    for value in _ints(3):
        converted = action_id(value)
        assert converted == 3 and type(converted) is int
    assert action_id(_Color.RED) == 0 and type(action_id(_Color.RED)) is int
    assert action_id(10**30) == 10**30  # out of range, but an integer: legality is checked later


@pytest.mark.parametrize("value", _not_ids(1), ids=lambda v: type(v).__name__)
def test_action_id_refuses_everything_else(value: Any):
    with pytest.raises(interpreter.IllegalActionError, match="an action id is an integer"):
        action_id(value)


def test_numpy_integers_apply_like_ints_and_store_plain_ints():
    legal = _mid_match().legal_actions()[0]
    for value in _ints(legal)[1:]:
        plain = _mid_match()
        other = plain.clone()
        plain.apply_action(legal)
        other.apply_action(value)
        assert other == plain
        assert all(type(a) is int for a in other.history)
        assert other.to_json() == plain.to_json()


@pytest.mark.parametrize("index", range(len(_not_ids(0))))
def test_non_ids_raise_and_change_nothing(index: int):
    state = _mid_match()
    legal = state.legal_actions()[0]
    value = _not_ids(legal)[index]
    before, text = state.clone(), state.to_json()
    with pytest.raises(interpreter.IllegalActionError) as info:
        state.apply_action(value)
    assert "Traceback" not in str(info.value)
    assert state == before and state.to_json() == text


def test_illegal_ints_still_name_the_choices():
    state = _mid_match()
    before = state.clone()
    for bad in (-1, 10**40, state.game.num_distinct_actions):
        with pytest.raises(interpreter.IllegalActionError, match="is not legal now"):
            state.apply_action(bad)
        assert state == before


def test_after_the_end_non_ids_are_refused_the_same_way():
    state = _mid_match(TICTACTOE, 2, 0)
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    before = state.to_json()
    for value in (None, "0", 0.0, 0):
        with pytest.raises(interpreter.IllegalActionError):
            state.apply_action(value)
    assert state.to_json() == before


# ---------------------------------------------------------------------- the adapters


def test_openspiel_apply_action_checks_the_id():
    require("pyspiel")
    from interpreter.adapters import openspiel as ro

    game = ro.register(TICTACTOE)
    state = game.new_initial_state()
    state.apply_action(np.int64(4))
    assert list(state.history()) == [4] and ro.interpreter_state(state).history == [4]
    assert type(ro.interpreter_state(state).history[0]) is int
    before, history = state.serialize(), list(state.history())
    for value in _not_ids(0) + [4, -1, 99]:  # 4 is taken now; -1 and 99 are no ids
        with pytest.raises(interpreter.IllegalActionError):
            state.apply_action(value)
        assert state.serialize() == before and list(state.history()) == history
    state.apply_action(np.array(0))
    assert list(state.history()) == [4, 0]
    json.loads(state.serialize())


def test_pettingzoo_step_checks_the_id():
    require("pettingzoo")
    from interpreter.adapters.pettingzoo import env as rulespec_env

    env = rulespec_env(TICTACTOE)
    env.reset(seed=1)
    state = env.unwrapped.state
    legal = state.legal_actions()[0]
    before = state.to_json()
    agent = env.agent_selection
    for value in _not_ids(legal):
        with pytest.raises(interpreter.IllegalActionError):
            env.step(value)
        assert state.to_json() == before and env.agent_selection == agent
    env.step(np.int64(legal))
    assert state.history == [legal] and type(state.history[0]) is int


def test_labels_of_non_ids_are_refused_the_same_way():
    state = _mid_match(TICTACTOE, 2, 1)
    for value in (None, "3", 1.5, True, [3]):
        with pytest.raises(interpreter.IllegalActionError):
            state.action_to_string(value)
        with pytest.raises(interpreter.IllegalActionError):
            state.game.describe_action(value)
    assert state.action_to_string(np.int64(3)) == state.action_to_string(3)
