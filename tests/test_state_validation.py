"""Saved states are untrusted (issue 11): ``state_from_json`` / ``State.from_dict`` check the
whole state against the game and raise ``StateError`` on anything a match could not reach,
never a Python error from deep inside, and never a state that fails later."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import interpreter
from interpreter.budget import MAX_NESTING
from interpreter.limits import RunLimits
from tests.conftest import GAMES
from tests.support import engine_mode, inside_an_effect, play_until, played

TOO_DEEP = MAX_NESTING + 10  # deeper than any value the rules may keep in a state

HIGHJACK = str(GAMES / "highjack.yaml")
HIGHHAND = str(GAMES / "highhand.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")


def _play(game: interpreter.Game, seed: int, steps: int) -> interpreter.State:
    return played(game, seed, steps)


def _inside_an_effect(game: interpreter.Game) -> interpreter.State:
    """A state waiting on a choice made inside another action's effect (frames below the choice)."""
    return play_until(game, 0, inside_an_effect, limit=300, attempts=200)


@pytest.fixture(scope="module")
def highjack() -> interpreter.Game:
    return interpreter.load_game(HIGHJACK, players=4)


@pytest.fixture(scope="module")
def mid(highjack: interpreter.Game) -> dict[str, Any]:
    return json.loads(_inside_an_effect(highjack).to_json())


def _refused(game: interpreter.Game, data: Any, match: str | None = None) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(interpreter.StateError) as info:
        game.state_from_json(text)
    if match is not None:
        assert match in str(info.value), str(info.value)
    if not isinstance(data, str):
        with pytest.raises(interpreter.StateError):
            interpreter.State.from_dict(game, data)
    return str(info.value)


def _mutant(data: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    change(out)
    return out


# ---------------------------------------------------------------------- real states load


@pytest.mark.parametrize("spec", sorted(p.name for p in GAMES.glob("*.yaml")))
@pytest.mark.parametrize("explicit", [False, True])
def test_every_state_of_real_matches_loads_and_continues_identically(spec: str, explicit: bool):
    base = interpreter.load_game(str(GAMES / spec))
    for variant in (base.variants or [{"players": None, "options": {}}])[:3]:
        game = interpreter.load_game(str(GAMES / spec), players=variant["players"], options=variant["options"],
                                     explicit_chance=explicit)
        state = game.new_initial_state(seed=3)
        rng = random.Random(3)
        while True:
            text = state.to_json()
            loaded = game.state_from_json(text)
            assert loaded == state and loaded.to_json() == text
            assert interpreter.State.from_dict(game, state.to_dict()) == state
            if state.is_terminal() or len(state.history) > 150:
                break
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            loaded.apply_action(action)
            assert loaded == state


CALLS_HEAD = """
rulespec: 1
game: {name: Calls, players: 3, limits: {actions: 40}}
variables: {n: {type: int, initial: 0}}
"""
CALLS_TAIL = 'match: {returns: {value: "0", min: 0, max: 0}}'
PROCEDURE_TYPES = {
    # the first call passes a list of players, the recursive one a list of numbers
    "a list of any values": """
procedures:
  deep(k, acc):
    - let here = acc + [k]
    - if: k > 0
      then:
        - choose: {action: dig, for: "d in [1, 2]", label: "dig {d}", do: [n += d]}
        - let later = here + [n]
        - call deep(k - 1, later)
round:
  turn:
    - call deep(2, [current])
    - if: n > 12
      then: [end game]
""",
    # none first, then a whole number
    "none, then a number": """
procedures:
  f(a):
    - if: a == none
      then:
        - choose: {action: dig, for: "d in [1, 2]", label: "dig {d}", do: [n += d]}
    - n += 1
round:
  turn:
    - call f(none)
    - call f(1)
    - if: n > 12
      then: [end game]
""",
    # whole numbers first; the body passes a number on, which the next call passes on again
    "through a parameter": """
procedures:
  f(a, b):
    - if: n < 20
      then:
        - choose:
            action: dig
            for: d in [1, 2]
            label: "dig {d}"
            do:
              - n += d
              - if: b > 1
                then: [n += 1]
              - call f(0.5, a)
round:
  turn:
    - call f(1, 1)
    - if: n > 12
      then: [end game]
""",
}


@pytest.mark.parametrize("case", sorted(PROCEDURE_TYPES))
def test_a_procedure_called_with_other_types_than_at_its_first_call_leaves_loadable_states(case: str):
    """A procedure's body is checked with its first call's argument types; values a later call
    brings (5, no seat, in a list of players; none where a number is read; 0.5 where a whole
    number is read) must not make the states the match reaches refused."""
    game = interpreter.game_from_text("\n".join([CALLS_HEAD, PROCEDURE_TYPES[case], CALLS_TAIL]))
    for seed in range(4):
        state, rng = game.new_initial_state(seed), random.Random(seed)
        while not state.is_terminal():
            text = state.to_json()
            assert game.state_from_json(text).to_json() == text
            state.apply_action(rng.choice(state.legal_actions()))


def test_a_procedure_called_with_one_type_keeps_its_parameters_checked(highjack: interpreter.Game):
    """Only procedures called with more than one type are loosened: a seat that is no seat in
    a parameter of a procedure every call passes a seat to is still refused."""
    game = interpreter.game_from_text("\n".join([CALLS_HEAD, """
procedures:
  f(q):
    - choose: {action: dig, for: "d in [1, 2]", label: "dig {d}", do: [n += d, q.score += d]}
round:
  turn:
    - call f(current)
    - if: n > 12
      then: [end game]
""", CALLS_TAIL]))
    data = json.loads(game.new_initial_state(0).to_json())
    frame = next(f for f in data["stack"] if isinstance(f[-1], dict) and "q" in f[-1])
    frame[-1]["q"] = 7
    with pytest.raises(interpreter.StateError, match="'q'"):
        game.state_from_json(json.dumps(data))


def test_a_state_inside_an_effect_loads(highjack: interpreter.Game, mid: dict[str, Any]):
    state = interpreter.State.from_dict(highjack, mid)
    assert state.to_dict() == mid
    for p in range(4):
        state.observation(p)


def test_from_dict_copies_its_input(highjack: interpreter.Game, mid: dict[str, Any]):
    data = copy.deepcopy(mid)
    state = interpreter.State.from_dict(highjack, data)
    data["zones"][0].append(999)
    data["stack"][-1][2]["x"] = 1
    assert state.to_dict() == mid


# ---------------------------------------------------------------------- text


@pytest.mark.parametrize("text", [
    "", "{", "[]", "null", "1", '"x"', "{\"format\": 1}", "[" * 100_000 + "]" * 100_000,
    '{"a": ' * 50_000 + "1" + "}" * 50_000, "9" * 5000, '{"rng": NaN}', '{"rng": Infinity}', "\udcff",
])
def test_malformed_text_is_refused(highjack: interpreter.Game, text: str):
    _refused(highjack, text)


def test_non_text_is_refused(highjack: interpreter.Game, mid: dict[str, Any]):
    for value in (None, 1, 1.5, [], {}, object()):
        with pytest.raises(interpreter.StateError):
            highjack.state_from_json(value)  # type: ignore[arg-type]
    assert highjack.state_from_json(json.dumps(mid).encode()).to_dict() == mid  # bytes of JSON are fine


def test_size_limit(highjack: interpreter.Game, monkeypatch: pytest.MonkeyPatch):
    from interpreter import state_check

    monkeypatch.setattr(state_check, "MAX_STATE_CHARS", 1000)
    _refused(highjack, " " * 1001, "at most 1,000 characters")


def test_from_dict_refuses_what_is_not_json(highjack: interpreter.Game, mid: dict[str, Any]):
    cyclic = copy.deepcopy(mid)
    cyclic["events"].append(cyclic["events"])
    for data in (cyclic, {**mid, "rng": object()}, {**mid, "rng": float("nan")}, None, [mid]):
        with pytest.raises(interpreter.StateError):
            interpreter.State.from_dict(highjack, data)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- mutants


def _frame_with_env(data: dict[str, Any]) -> list[Any]:
    return next(f for f in reversed(data["stack"]) if len(f) == 3 and isinstance(f[2], dict) and f[2])


MUTANTS: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "other format": (lambda d: d.update(format=2), "format"),
    "other game": (lambda d: d.update(game=d["game"].replace("|4|", "|3|")), "different game"),
    "missing field": (lambda d: d.pop("loc"), "missing: loc"),
    "extra field": (lambda d: d.update(extra=1), "unknown: extra"),
    "duplicated card": (lambda d: d["zones"][0].append(d["zones"][1][0] if d["zones"][1] else d["zones"][2][0]),
                        ""),
    "missing card": (lambda d: next(z for z in d["zones"] if z).pop(), ""),
    "card out of range": (lambda d: d["zones"][-1].append(10**6), "not a card"),
    "card as text": (lambda d: d["zones"][-1].append("0"), "not a card"),
    "loc disagrees": (lambda d: d["loc"].__setitem__(0, (d["loc"][0] + 1) % len(d["zones"])), "loc"),
    "face 2": (lambda d: d["face"].__setitem__(0, 2), "face"),
    "face true": (lambda d: d["face"].__setitem__(0, True), "face"),
    "shuffled empty zone": (lambda d: d["shuffled"].__setitem__(d["zones"].index([]), True), "shuffled"),
    "shuffled as int": (lambda d: d["shuffled"].__setitem__(0, 1), "shuffled"),
    "zones too few": (lambda d: d["zones"].pop(), "zones"),
    "current out of range": (lambda d: d.update(current=4), "current"),
    "current negative": (lambda d: d.update(current=-1), "current"),
    "dealer as text": (lambda d: d.update(dealer="0"), "dealer"),
    "negative round": (lambda d: d.update(round=-1), "round"),
    "turn as float": (lambda d: d.update(turn=1.0), "turn"),
    "skips negative": (lambda d: d["skips"].__setitem__(0, -3), "skips"),
    "score as text": (lambda d: d["score"].__setitem__(0, "1"), "score"),
    "total huge": (lambda d: d["total"].__setitem__(0, 10**5000 // 10**3000), "total"),
    "rng negative": (lambda d: d.update(rng=-1), "rng"),
    "rng too big": (lambda d: d.update(rng=2**64), "rng"),
    "rng float": (lambda d: d.update(rng=1.5), "rng"),
    "history id out of range": (lambda d: d["history"].append(10**9), "history"),
    "history negative": (lambda d: d["history"].append(-1), "history"),
    "history bool": (lambda d: d["history"].append(True), "history"),
    "event not an object": (lambda d: d["events"].append([1]), "event"),
    "event without type": (lambda d: d["events"].append({"x": 1}), "event"),
    "event to an int": (lambda d: d["events"].append({"type": "x", "to": 1}), "'to'"),
    "event too deep": (lambda d: d["events"].append({"type": "x", "v": json.loads("[" * TOO_DEEP + "]" * TOO_DEEP)}),
                       "deep"),
    "over without an end": (lambda d: d.update(over=True), ""),
    "winners before the end": (lambda d: d.update(winners_=[0]), "winners_"),
    "variable wrong type": (lambda d: d["g"].__setitem__(0, "x"), "variable"),
    "variable list of texts": (lambda d: d["g"].__setitem__(1, ["a"]), "variable"),
    "pvar card out of range": (lambda d: d["pv"][0].__setitem__(0, 999), "variable"),
    "pvar column short": (lambda d: d["pv"][0].pop(), "pv"),
    "empty stack": (lambda d: d.update(stack=[]), "stack"),
    "frame code out of range": (lambda d: d["stack"][-1].__setitem__(0, 10**6), "frame"),
    "frame code negative": (lambda d: d["stack"][-1].__setitem__(0, -1), "frame"),
    "frame not a list": (lambda d: d["stack"].__setitem__(-1, 7), "frame"),
    "first frame not a list": (lambda d: d["stack"].__setitem__(0, 7), "code index"),
    "frame pc out of range": (lambda d: d["stack"][-1].__setitem__(1, 99), "statement"),
    "frame pc zero": (lambda d: d["stack"][-1].__setitem__(1, 0), "statement"),
    "frame too long": (lambda d: d["stack"][-1].append(0), "entries"),
    "frames swapped": (lambda d: d["stack"].insert(1, d["stack"].pop(2)), "frame"),
    "frame duplicated": (lambda d: d["stack"].append(copy.deepcopy(d["stack"][-1])), ""),
    "match frame twice": (lambda d: d["stack"].insert(1, [d["stack"][0][0], 2]), "frame"),
    "env unknown name": (lambda d: _frame_with_env(d)[2].update(zz_unknown=1), "no local name"),
    "env wrong type": (lambda d: _frame_with_env(d)[2].update({k: "x" for k in _frame_with_env(d)[2]}), ""),
    "env missing name": (lambda d: _frame_with_env(d)[2].clear(), ""),
    "loop binding missing a name": (lambda d: next(f for f in d["stack"] if len(f) == 4 and isinstance(f[1], list)
                                                   and f[2] < len(f[1]))[1][-1].clear(), "lacks"),
    "env not an object": (lambda d: _frame_with_env(d).__setitem__(2, []), "env"),
    "pending missing": (lambda d: d.update(pending=None), "pending"),
    "pending other player": (lambda d: d["pending"].__setitem__(0, (d["pending"][0] + 1) % 4), "pending"),
    "pending forged id": (lambda d: d["pending"][1].append(d["pending"][1][-1] + 1), "legal ids"),
    "pending id removed": (lambda d: d["pending"][1].pop(), "pending"),
    "pending ids unsorted": (lambda d: d["pending"][1].reverse() if len(d["pending"][1]) > 1
                             else d["pending"][1].append(-1), "pending"),
    "pending ids as floats": (lambda d: d["pending"].__setitem__(1, [float(a) for a in d["pending"][1]]), "pending"),
    "pending code of a block": (lambda d: d["pending"].__setitem__(3, d["stack"][-1][0]), "pending"),
    "pending env differs": (lambda d: d["pending"][4].update({k: None for k in d["pending"][4]}), "pending"),
    "pending chance": (lambda d: d["pending"].__setitem__(0, -1), "pending"),
    "pending too short": (lambda d: d["pending"].pop(), "pending"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutants_of_a_real_state_are_refused(highjack: interpreter.Game, mid: dict[str, Any], name: str):
    change, match = MUTANTS[name]
    message = _refused(highjack, _mutant(mid, change), match or None)
    assert "Traceback" not in message and len(message) < 2000


def test_refused_mutants_of_explicit_chance_states():
    game = interpreter.load_game(HIGHJACK, players=2, explicit_chance=True)
    state = game.new_initial_state(seed=1)
    assert state.is_chance_node()
    data = json.loads(state.to_json())
    for change in (lambda d: d["pending"][2].__setitem__(0, 0.5),            # a probability
                   lambda d: d["pending"][1].__setitem__(0, d["pending"][1][0] + 100),  # an outcome
                   lambda d: d["pending"].__setitem__(4, {"x": 1}),          # a payload
                   lambda d: d["pending"][1].pop(),                         # an outcome missing
                   lambda d: d["stack"][-1].__setitem__(1, d["stack"][-1][2]),  # nothing left to deal
                   lambda d: d["stack"][-1].__setitem__(4, []),             # nobody to deal to
                   lambda d: d["stack"][-1].__setitem__(3, 1),              # another zone
                   lambda d: d["shuffled"].__setitem__(0, False)):          # not random any more
        _refused(game, _mutant(data, change))


_NONE_VALUES = """\
rulespec: 1
game: {name: Nothing, players: 2, limits: {actions: 20}}
variables:
  z: {type: int, initial: 1}
  m: {type: int, initial: none}
  seen: {type: int, per: player, initial: 0}
round:
  first: player(0)
  turn:
    - choose:
        - {action: blank, label: blank, do: ["z = first([x for x in [1, 2] if x > 5])", "current.seen = z"]}
        - {action: stop, label: stop, do: [end game]}
match: {}
"""


def test_variables_holding_none_load():
    """Any variable may hold none (an `initial: none`; `first` of an empty list assigned to
    it): the states the rules reach then load, and play on alike; a text in one is refused."""
    game = interpreter.game_from_text(_NONE_VALUES)
    state = game.new_initial_state(0)
    assert state.g == [1, None] and game.state_from_json(state.to_json()) == state
    state.apply_action(state.legal_actions()[0])
    assert state.g == [None, None] and state.pv == [[None, 0]]
    loaded = game.state_from_json(state.to_json())
    assert loaded == state
    for a in state.legal_actions():
        mine, theirs = state.clone(), loaded.clone()
        mine.apply_action(a)
        theirs.apply_action(a)
        assert mine == theirs
    _refused(game, _mutant(json.loads(state.to_json()), lambda d: d["g"].__setitem__(1, "x")), "variable 'm'")
    _refused(game, _mutant(json.loads(state.to_json()), lambda d: d["pv"][0].__setitem__(1, "x")), "variable 'seen'")


def test_a_turn_that_is_one_choice_waits_without_a_frame_and_is_checked():
    """Tic-tac-toe's turn is one choice: the phase enters it, with no frame for the turn, so the
    phase's frame is on top while it waits. Such a state loads; so does the shape with the
    turn's frame (past its one statement), saved before turns had none, and it plays on alike;
    a forged decision under a phase's frame is refused."""
    game = interpreter.load_game(TICTACTOE)
    state = _play(game, 1, 3)
    data = json.loads(state.to_json())
    phase = game.codes[data["stack"][-1][0]]
    assert type(phase).__name__ == "PhaseCode" and phase.lone_choice is not None
    assert data["pending"][3] == phase.lone_choice.index and data["pending"][4] == {}
    assert game.state_from_json(state.to_json()) == state
    with_turn_frame = _mutant(data, lambda d: d["stack"].append([phase.turn_code.index, 1, {}]))
    old = game.state_from_json(json.dumps(with_turn_frame))
    for a in (state.legal_actions()[0], state.legal_actions()[-1]):
        mine, theirs = state.clone(), old.clone()
        mine.apply_action(a)
        theirs.apply_action(a)
        assert mine == theirs
    _refused(game, _mutant(data, lambda d: d["pending"][4].update(c=0)), "env")
    _refused(game, _mutant(data, lambda d: d["stack"][-1].__setitem__(2, 0)), "phase frame")
    _refused(game, _mutant(data, lambda d: d["stack"].pop()), "pending")


def test_a_branch_that_is_one_choice_waits_without_a_frame_and_is_checked():
    """Goofspiel's bid is an `if`'s branch made of one choice: the turn enters the choice with
    no frame for the branch (in both engines), so the turn's frame is on top while it waits,
    just past the `if`. Such a state loads; so does the shape with the branch's frame (past its
    one statement), saved before branches had none, and it plays on alike; a frame no statement
    of the turn can hold above it, or a forged decision, is refused."""
    shapes = []
    for mode in ("off", "on"):
        with engine_mode(mode):
            game = interpreter.load_game(str(GAMES / "goofspiel.yaml"))
            state = _play(game, 2, 1)
            shapes.append(json.loads(state.to_json()))
    assert shapes[0] == shapes[1]
    data = shapes[1]
    turn = game.codes[data["stack"][-1][0]]
    entry = turn.stmts[data["stack"][-1][1] - 1][0]
    branch, choice = turn.entered, getattr(entry, "lone", ())
    assert type(turn).__name__ == "BlockCode" and all(code is None for code in branch)
    assert [c.index for c in choice if c is not None] == [data["pending"][3]]
    assert game.state_from_json(state.to_json()) == state
    else_branch = entry.branches[1]
    with_branch_frame = _mutant(data, lambda d: d["stack"].append([else_branch.index, 1, dict(d["stack"][-1][2])]))
    old = game.state_from_json(json.dumps(with_branch_frame))
    assert len(old.stack) == len(state.stack) + 1
    for a in (state.legal_actions()[0], state.legal_actions()[-1]):
        mine, theirs = state.clone(), old.clone()
        mine.apply_action(a)
        theirs.apply_action(a)
        assert mine == theirs
    _refused(game, _mutant(data, lambda d: d["stack"].append(copy.deepcopy(d["stack"][-1]))), "frame")
    _refused(game, _mutant(data, lambda d: d["stack"].append([entry.branches[0].index, 1, {}])), "")
    _refused(game, _mutant(data, lambda d: d["pending"][4].update(zz=0)), "")


def test_a_finished_match_must_be_consistent():
    game = interpreter.load_game(TICTACTOE)
    state = _play(game, 1, 20)
    assert state.is_terminal()
    data = json.loads(state.to_json())
    assert game.state_from_json(json.dumps(data)) == state
    for change in (lambda d: d.update(over=False), lambda d: d.update(winners_=[5]),
                   lambda d: d.update(returns_=[1.0]), lambda d: d.update(returns_=["1", "2"]),
                   lambda d: d.update(winners_=[1, 0]), lambda d: d.update(pending=[0, [1], None, 0, {}]),
                   lambda d: d["piece_cell"].__setitem__(0, 8 if d["piece_cell"][0] != 8 else 7),
                   lambda d: d["cell_piece"].__setitem__(0, 99)):
        _refused(game, _mutant(data, change))


def test_state_error_is_a_value_error_and_an_interpreter_error():
    assert issubclass(interpreter.StateError, ValueError)
    assert issubclass(interpreter.StateError, interpreter.InterpreterError)


# ---------------------------------------------------------------------- limits


def test_game_keeps_its_limits_and_bounds_the_game_length():
    game = interpreter.load_game(TICTACTOE)
    assert game.limits == interpreter.limits.DEFAULT_LIMITS
    assert game.max_game_length == 9
    assert interpreter.load_game(TICTACTOE, limits=RunLimits(max_actions=5)).max_game_length == 5
    with pytest.raises(interpreter.OptionError):
        interpreter.load_game(TICTACTOE, limits={"max_actions": 9})  # type: ignore[arg-type]


def test_an_option_cannot_lift_the_game_length_past_the_bound():
    text = ("rulespec: 1\ngame: {name: Long, players: 2, limits: {actions: option.n}}\n"
            "options:\n  n: {type: int, default: 10, min: -5, max: 1000000000000}\n"
            "round:\n  turn:\n    - choose:\n        - action: stop\n          do: [end game]\n")
    assert interpreter.game_from_text(text).max_game_length == 10
    default = interpreter.limits.DEFAULT_LIMITS.max_actions
    assert interpreter.game_from_text(text, options={"n": 10**11}).max_game_length == default
    assert interpreter.game_from_text(text, options={"n": 50}, limits=RunLimits(max_actions=20)).max_game_length == 20
    with pytest.raises(interpreter.OptionError) as info:
        interpreter.game_from_text(text, options={"n": 0})
    assert str(info.value).startswith("<string>:") and "game.limits.actions" in str(info.value)


def test_a_state_longer_than_the_bound_is_refused():
    game = interpreter.load_game(TICTACTOE)
    state = _play(game, 2, 3)
    short = interpreter.load_game(TICTACTOE, limits=RunLimits(max_actions=2))
    data = json.loads(state.to_json())
    assert short.fingerprint() == game.fingerprint()
    _refused(short, data, "history")
