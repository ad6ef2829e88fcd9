"""``State`` declares each field once (issue 12, item 5): its annotation in the class says what the
field holds and, for the state's data, how ``clone()`` copies it (``Annotated[type, KIND]``).
``__slots__``, ``_FIELDS`` (the data: compared, saved, loaded) and ``_COPIES`` derive from it.

``clone()`` is on the search hot path, so it is written out by hand; these tests hold it (and
``__eq__``, ``to_json``, ``from_dict``) to the declaration, field by field."""

from __future__ import annotations

import json
from typing import Any

import pytest

import interpreter
from interpreter import state as S
from interpreter import state_check
from interpreter.rng import seed_state
from interpreter.state import _COPIES, _FIELDS, State
from tests.conftest import GAMES
from tests.support import played

# Fields that are not the state's data (not compared, not saved): each one a deliberate choice.
NOT_DATA = {
    "game": "the game the state belongs to",
    "ops": "work left in the current step, reset when a step starts",
    "log_size": "derived from `events`",
    "dirty": "a cache: the round's end conditions may have changed (true after loading)",
}


def _states() -> list[State]:
    """States that between them hold every kind of field with something in it."""
    out = []
    highjack = interpreter.load_game(str(GAMES / "highjack.yaml"), players=4)
    tictactoe = interpreter.load_game(str(GAMES / "tictactoe.yaml"))
    for game, seed, steps in ((highjack, 1, 60), (highjack, 2, 120), (highjack, 3, 0),
                              (tictactoe, 1, 4), (tictactoe, 1, 50)):
        out.append(played(game, seed, steps))
    return out


STATES = _states()


def test_every_field_is_declared_once() -> None:
    annotations = State.__annotations__
    assert State.__slots__ == tuple(annotations)
    assert _FIELDS == tuple(_COPIES)
    assert [name for name in annotations if name in _COPIES] == list(_FIELDS)  # declaration order
    assert {name for name in annotations if name not in _COPIES} == set(NOT_DATA), \
        "a field without a copy kind is not data: declare its kind, or add it to NOT_DATA with a reason"
    assert set(_COPIES.values()) <= set(S._KINDS.values())
    assert state_check._KEYS == set(_FIELDS) | {"format", "game"}
    assert type(S._FORMAT) is int


def test_the_copy_kind_is_read_from_the_annotation() -> None:
    assert S._declared_copy("Annotated[list[list[int]], LISTS]") == S.LISTS
    assert S._declared_copy("Annotated[Pending | None, RECORD]") == S.RECORD
    assert S._declared_copy("int") is None
    assert S._declared_copy("list[int]") is None
    for bad in ("Annotated[int, COPY]", "Annotated[int, 'value']", "Annotated[int]"):
        with pytest.raises(TypeError, match="how it is copied"):
            S._declared_copy(bad)


def _check_copy(kind: str, name: str, copy: Any, original: Any) -> None:
    where = f"clone().{name} ({kind})"
    assert copy == original, where
    if kind == S.VALUE:
        assert type(copy) in (int, bool), where
        return
    if kind == S.RECORD:
        assert copy is original, f"{where}: an immutable record is shared"
        assert original is None or isinstance(original, tuple), f"{where}: a record is a tuple"
        return
    assert type(copy) is list and copy is not original, f"{where}: a new list"
    if kind == S.LIST:
        assert all(a is b for a, b in zip(copy, original)), f"{where}: the same items"
    elif kind == S.LISTS:
        assert all(type(a) is list and a is not b for a, b in zip(copy, original)), f"{where}: new inner lists"
    elif kind == S.FRAMES:
        for frame_copy, frame in zip(copy, original):
            assert type(frame_copy) is list and frame_copy is not frame, f"{where}: new frames"
            for a, b in zip(frame_copy, frame):
                if type(b) in (dict, list):
                    assert a is not b, f"{where}: the dicts and lists in a frame are copied"
                else:
                    assert a is b, where
    else:  # pragma: no cover - a kind this test does not know
        raise AssertionError(f"{where}: unknown copy kind {kind!r}")


@pytest.mark.parametrize("index", range(len(STATES)))
def test_clone_copies_every_field_as_declared(index: int) -> None:
    state = STATES[index]
    before = state.to_json()
    copy = state.clone()
    for name in State.__slots__:
        assert hasattr(copy, name), f"clone() does not set {name}"
    for name in NOT_DATA:
        assert getattr(copy, name) is getattr(state, name) or getattr(copy, name) == getattr(state, name), name
    for name, kind in _COPIES.items():
        _check_copy(kind, name, getattr(copy, name), getattr(state, name))
    assert copy == state and copy.to_json() == before


def test_the_states_exercise_every_field() -> None:
    """The clone test above is not vacuous: each list field holds something in some state,
    pending is None in one, and some frame holds a dict (an environment)."""
    for name, kind in _COPIES.items():
        if kind != S.VALUE:
            assert any(getattr(s, name) for s in STATES), name
    assert any(s.pending is None for s in STATES)
    assert any(isinstance(s.pending, S.Pending) for s in STATES)
    assert any(type(item) is dict for s in STATES for frame in s.stack for item in frame)
    assert any(len(inner) for s in STATES for inner in s.pv)


def _changed(kind: str, value: Any) -> Any:
    if kind == S.VALUE:
        return (not value) if type(value) is bool else value + 1
    if value is None:
        return [0]
    if kind == S.RECORD:
        return value._replace(code=value.code + 1)
    return value + [[0]]


def test_equality_and_saving_follow_the_declaration() -> None:
    state = STATES[0]
    data = state.to_dict()
    assert list(data)[:len(_FIELDS)] == list(_FIELDS) and set(data) == set(_FIELDS) | {"format", "game"}
    assert list(json.loads(state.to_json())) == list(data)
    assert State.from_dict(state.game, data) == state
    for name, kind in _COPIES.items():  # __eq__ compares every field of the data
        other = state.clone()
        setattr(other, name, _changed(kind, getattr(state, name)))
        assert other != state, name
    other = state.clone()  # ... and nothing else
    other.ops, other.log_size = other.ops + 1, other.log_size + 1
    assert other == state


def _variants() -> list[Any]:
    cases = []
    for spec in sorted(GAMES.glob("*.yaml")):
        for variant in interpreter.load_game(str(spec)).variants or [{"name": "defaults", "players": None,
                                                                      "options": {}}]:
            cases.append(pytest.param(spec, variant, id=f"{spec.stem}-{variant['name']}"))
    return cases


@pytest.mark.parametrize("spec, variant", _variants())
def test_a_new_state_is_the_setup_run_for_its_seed(spec: Any, variant: dict[str, Any]) -> None:
    """new_initial_state copies a setup that drew nothing at random, reseeded: every field, the
    work left and the log's size are what running the setup for that seed makes, and no two
    new states share a list or a dict at any depth (a caller changing one state's events or
    variables changes no other match)."""
    def game() -> Any:
        return interpreter.load_game(str(spec), players=variant["players"], options=variant["options"])

    def data(state: State) -> list[Any]:  # (states of two games are never ==)
        return [getattr(state, name) for name in _FIELDS]

    reused = game()
    first = reused.new_initial_state(0)
    for seed in (1, 7, 2**40):
        made = game().new_initial_state(seed)  # a new game: the setup runs for this seed
        copied = reused.new_initial_state(seed)
        assert data(copied) == data(made) and copied.to_json() == made.to_json()
        assert (copied.ops, copied.log_size, copied.dirty) == (made.ops, made.log_size, made.dirty)
        other = reused.new_initial_state(seed)
        assert not _containers(other) & _containers(copied)
        assert not _containers(other) & _containers(first)
        legal = copied.legal_actions()
        if legal and not copied.is_terminal():
            copied.apply_action(legal[-1])
            assert data(reused.new_initial_state(seed)) == data(made)  # playing on a copy leaves the next alone
    assert (reused._start is not None) == (made.rng == seed_state(2**40))  # reused when it drew nothing


def _containers(state: State) -> set[int]:
    """The ids of the lists and dicts in a state's data, at any depth."""
    found: set[int] = set()
    todo: list[Any] = [getattr(state, name) for name in _FIELDS]
    while todo:
        value = todo.pop()
        if type(value) in (list, dict):
            found.add(id(value))
        if type(value) in (list, dict) or isinstance(value, tuple):
            todo.extend(value.values() if type(value) is dict else value)
    return found


def test_a_copied_new_state_shares_nothing_with_the_next() -> None:
    """What a caller changes in a new state's events, variables or decision stays in that match."""
    spec = """\
rulespec: 1
game: {name: N, players: 2}
variables:
  seen: {type: value, initial: [[1, 2], []]}
round:
  setup:
    - emit hello(list=[[1], [2, 3]])
  turn:
    - choose:
        action: go
        for: x in [1, 2]
        do: [end game]
match: {}
"""
    game = interpreter.game_from_text(spec)
    state = game.new_initial_state(1)
    assert game._start is not None and set(state.shared_by_clone()) >= {"g", "events", "pending"}
    state.g[0][0].append(9)
    state.events[-1]["list"][1].append(9)
    state.pending.payload["x"] = 9
    again = game.new_initial_state(2)
    assert again.g[0] == [[1, 2], []] and again.events[-1]["list"] == [[1], [2, 3]] and again.pending.payload == {}


def test_only_a_setup_that_draws_nothing_is_reused() -> None:
    """The cases above are not vacuous: some setups are reused, and one that deals is not."""
    for name, players, reused in (("tictactoe", None, True), ("goofspiel", None, True), ("highhand", 4, False),
                                  ("highjack", 4, False)):
        game = interpreter.load_game(str(GAMES / f"{name}.yaml"), players=players)
        game.new_initial_state(3)
        assert (game._start is not None) is reused, name
