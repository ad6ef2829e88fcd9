"""Fuzzing saved states (issue 11): mutants of real ``to_json()`` output either raise
``StateError`` or load into a state that plays on consistently: it can be observed by every
player, saved and loaded unchanged, and its legal actions apply. (A well-formed position
that no match reaches can make a rule fail: that must be a ``RuleError`` at the rule's
place in the spec, never a Python error.)

The states are taken in the middle of matches of several specs, including one waiting on a
choice inside another action's effect and one in the middle of an explicit-chance deal. A
mutation changes one value (another int, a huge int, a float, a text, a bool, none, a list,
an object, deep nesting), deletes or duplicates a key or an element, or reorders a list.
50 examples per test by default, 2,000 under ``--hypothesis-profile=thorough``.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import interpreter
from tests.conftest import GAMES
from tests.support import inside_an_effect, play_until

EXAMPLES = 2000 if getattr(settings, "_current_profile", "default") == "thorough" else 50
PLAY_STEPS = 25  # actions played after a mutant loads


def _play_until(game: interpreter.Game, seed: int, want: Any, limit: int = 400) -> interpreter.State:
    return play_until(game, seed, want, limit)


def _in_effect(game: interpreter.Game) -> Any:
    return inside_an_effect


@functools.cache
def _cases() -> list[tuple[interpreter.Game, dict[str, Any]]]:
    out = []
    highjack = interpreter.load_game(str(GAMES / "highjack.yaml"), players=4)
    out.append((highjack, _play_until(highjack, 1, _in_effect(highjack))))
    explicit = interpreter.load_game(str(GAMES / "highjack.yaml"), players=3, explicit_chance=True)
    out.append((explicit, _play_until(explicit, 2, lambda s: s.is_chance_node() and len(s.history) > 3)))
    highhand = interpreter.load_game(str(GAMES / "highhand.yaml"), players=4, options={"rounds": 1})
    out.append((highhand, _play_until(highhand, 3, lambda s: len(s.history) >= 9)))
    for spec, steps in (("tictactoe.yaml", 3), ("goofspiel.yaml", 4), ("whist.yaml", 10)):
        game = interpreter.load_game(str(GAMES / spec))
        out.append((game, _play_until(game, 4, lambda s, n=steps: len(s.history) >= n)))
    return [(game, json.loads(state.to_json())) for game, state in out]


# ---------------------------------------------------------------------- mutations

_REPLACEMENTS = st.one_of(
    st.integers(-3, 70),
    st.sampled_from([2**63, 2**64, -(2**64), 10**400, 2**4100]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
    st.lists(st.integers(-2, 70), max_size=5),
    st.dictionaries(st.text(max_size=4), st.integers(-2, 5), max_size=3),
    st.integers(30, 200).map(lambda depth: json.loads("[" * depth + "]" * depth)),
)


def _paths(value: Any, prefix: tuple = (), out: list | None = None) -> list[tuple]:
    """Every path to a value inside ``value`` (the root excluded)."""
    if out is None:
        out = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append(prefix + (key,))
            _paths(item, prefix + (key,), out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.append(prefix + (i,))
            _paths(item, prefix + (i,), out)
    return out


def _parent(data: Any, path: tuple) -> Any:
    for key in path[:-1]:
        data = data[key]
    return data


def _mutate(data: dict[str, Any], draw: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    paths = _paths(data)
    path = draw(st.sampled_from(paths))
    parent = _parent(data, path)
    key = path[-1]
    op = draw(st.sampled_from(["replace", "neighbour", "delete", "duplicate", "reorder", "swap_type"]))
    value = parent[key]
    if op == "replace":
        parent[key] = draw(_REPLACEMENTS)
    elif op == "neighbour" and type(value) is int:
        parent[key] = value + draw(st.sampled_from([-1, 1, 2, -2, 7]))
    elif op == "delete":
        del parent[key]
    elif op == "duplicate":
        if isinstance(parent, list):
            parent.insert(draw(st.integers(0, len(parent))), copy.deepcopy(value))
        else:
            parent[str(key) + "_"] = copy.deepcopy(value)
    elif op == "reorder" and isinstance(value, list) and len(value) > 1:
        draw(st.randoms(use_true_random=False)).shuffle(value)
    elif op == "swap_type":
        parent[key] = {int: str, bool: int, str: lambda v: [v], list: tuple, type(None): lambda v: 0,
                       float: int, dict: lambda v: list(v.items())}.get(type(value), str)(value)
    else:
        parent[key] = draw(_REPLACEMENTS)
    return data


# ---------------------------------------------------------------------- what a loaded mutant must do


def _behaves(game: interpreter.Game, state: interpreter.State, seed: int) -> None:
    """Observable by everyone, saved and loaded unchanged, and it plays on."""
    rng = random.Random(seed)
    for _ in range(PLAY_STEPS):
        text = state.to_json()
        again = game.state_from_json(text)
        assert again == state and again.to_json() == text
        for p in range(game.num_players):
            json.dumps(state.observation(p))
        if state.is_terminal():
            assert state.legal_actions() == []
            return
        legal = state.legal_actions()
        assert legal and legal == sorted(set(legal))
        assert all(0 <= a < max(game.num_distinct_actions, game.max_chance_outcomes) for a in legal)
        for a in legal[:3]:
            state.action_to_string(a)
        try:
            state.apply_action(rng.choice(legal))
        except interpreter.GameLengthError:
            return  # the spec's bound on the match's length: the state is unchanged and saved above
        except interpreter.RuleError as error:
            # a well-formed position no match reaches (say, a bid card moved away): the rules
            # themselves fail, with the error naming their place in the spec, never a Python error
            assert error.span is not None and str(error).startswith(str(error.span)), str(error)
            return


def _check(case: int, data: dict[str, Any], seed: int) -> None:
    game, _ = _cases()[case]
    text = json.dumps(data)
    try:
        state = game.state_from_json(text)
    except interpreter.StateError as error:
        assert str(error) and "Traceback" not in str(error)
        return
    _behaves(game, state, seed)


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_mutated_states_are_refused_or_play_on(data: Any):
    case = data.draw(st.integers(0, len(_cases()) - 1))
    mutant = _mutate(_cases()[case][1], data.draw)
    _check(case, mutant, data.draw(st.integers(0, 2**16)))


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_twice_mutated_states_are_refused_or_play_on(data: Any):
    case = data.draw(st.integers(0, len(_cases()) - 1))
    mutant = _mutate(_mutate(_cases()[case][1], data.draw), data.draw)
    _check(case, mutant, data.draw(st.integers(0, 2**16)))


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_mutated_text_is_refused_or_plays_on(data: Any):
    case = data.draw(st.integers(0, len(_cases()) - 1))
    game, original = _cases()[case]
    text = json.dumps(original)
    at = data.draw(st.integers(0, len(text)))
    insert = data.draw(st.sampled_from(["[", "]", "{", "}", ",", '"', "9" * 30, "-", "1e999", "NaN", "\\u0000",
                                        "[" * 5000, "", "null"]))
    cut = data.draw(st.integers(0, 3))
    mutant = text[:at] + insert + text[at + cut:]
    try:
        state = game.state_from_json(mutant)
    except interpreter.StateError:
        return
    _behaves(game, state, at)


def test_the_unmutated_states_load_and_play_on():
    for i, (game, data) in enumerate(_cases()):
        _behaves(game, game.state_from_json(json.dumps(data)), i)
