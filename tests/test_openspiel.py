"""The OpenSpiel adapter: any spec as a pyspiel game (explicit chance, observations, serialization)."""

from __future__ import annotations

import builtins
import importlib
import json
import random
import sys
from typing import Any

import pytest

import interpreter
from interpreter.adapters.encoding import ViewEncoder, view_string
from tests.conftest import GAMES, require

HIGHHAND = str(GAMES / "highhand.yaml")
HIGHJACK = str(GAMES / "highjack.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")


@pytest.fixture(scope="module")
def pyspiel() -> Any:
    return require("pyspiel")


@pytest.fixture(scope="module")
def ro(pyspiel: Any) -> Any:
    from interpreter.adapters import openspiel

    return openspiel


def _variant_cases() -> list[Any]:
    cases = []
    for spec in sorted(GAMES.glob("*.yaml")):
        for i, v in enumerate(interpreter.load_game(str(spec)).variants or [{"name": "defaults", "players": None,
                                                                             "options": {}}]):
            cases.append(pytest.param(str(spec), v["players"], v["options"],
                                      id=f"{spec.stem}-{v['name'] or i}".replace(" ", "_")))
    return cases


# ---------------------------------------------------------------------- OpenSpiel's own API test


@pytest.mark.parametrize("path, players, options, sims", [
    pytest.param(HIGHJACK, 2, {}, 3, id="highjack-2p"),
    pytest.param(HIGHJACK, 4, {}, 3, id="highjack-4p"),
    pytest.param(HIGHHAND, 2, {"rounds": 2}, 3, id="highhand-2p"),
    pytest.param(HIGHHAND, 4, {}, 5, id="highhand-4p"),
    pytest.param(TICTACTOE, 2, {}, 5, id="tictactoe"),
])
def test_random_sim_test_with_serialization(ro: Any, pyspiel: Any, path: str, players: int, options: dict,
                                            sims: int):
    game = ro.register(path, players=players, options=options)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


@pytest.mark.parametrize("path, players, options", _variant_cases())
def test_every_listed_variant_passes_random_sim_test(ro: Any, pyspiel: Any, path: str, players: int, options: dict):
    game = ro.register(path, players=players, options=options)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# ---------------------------------------------------------------------- game type and info


@pytest.mark.parametrize("path, players, options", _variant_cases())
def test_game_info_follows_the_variant(ro: Any, pyspiel: Any, path: str, players: int, options: dict):
    game = ro.register(path, players=players, options=options)
    interp = interpreter.load_game(path, players=players, options=options, explicit_chance=True)
    gtype = game.get_type()
    assert game.num_players() == interp.num_players
    assert gtype.min_num_players == gtype.max_num_players == interp.num_players
    assert game.num_distinct_actions() == interp.num_distinct_actions
    assert game.min_utility() == interp.min_utility and game.max_utility() == interp.max_utility
    assert game.max_game_length() == interp.max_game_length
    assert gtype.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gtype.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    if interp.utility_sum is None:
        assert gtype.utility == pyspiel.GameType.Utility.GENERAL_SUM
    else:
        assert game.utility_sum() == interp.utility_sum
        assert gtype.utility == (pyspiel.GameType.Utility.ZERO_SUM if interp.utility_sum == 0
                                 else pyspiel.GameType.Utility.CONSTANT_SUM)
    if gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC:
        assert game.max_chance_outcomes() == interp.max_chance_outcomes
    else:
        assert game.max_chance_outcomes() == 0
    assert gtype.provides_information_state_string and gtype.provides_observation_string
    assert gtype.provides_observation_tensor
    assert game.observation_tensor_size() == ViewEncoder(interp).size
    assert pyspiel.load_game(gtype.short_name).get_type().short_name == gtype.short_name


def test_short_names_and_registration(ro: Any, pyspiel: Any):
    four = ro.register(HIGHHAND, players=4, options={"rounds": 1})
    name = four.get_type().short_name
    assert name.startswith("rulespec_highhand_4p_")
    assert ro.register(HIGHHAND, players=4, options={"rounds": 1}).get_type().short_name == name
    # the defaults written out are the same options
    assert ro.register(HIGHHAND, players=4, options={"rounds": 1, "partnerships": True}).get_type().short_name == name
    other = ro.register(HIGHHAND, players=4, options={"rounds": 2}).get_type().short_name
    two = ro.register(HIGHHAND, players=2, options={"rounds": 1}).get_type().short_name
    assert len({name, other, two}) == 3 and two.startswith("rulespec_highhand_2p_")
    assert pyspiel.load_game(name).num_players() == 4
    assert two in pyspiel.registered_names()


def test_another_spec_with_the_same_file_name_is_refused(ro: Any, pyspiel: Any, tmp_path: Any):
    ro.register(TICTACTOE)
    copy = tmp_path / "tictactoe.yaml"
    copy.write_text((GAMES / "tictactoe.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ValueError, match="already registered"):
        ro.register(str(copy))


def test_chance_and_perfect_information_are_detected(ro: Any, pyspiel: Any):
    ttt = ro.register(TICTACTOE).get_type()
    assert ttt.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert ttt.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    cards = ro.register(HIGHJACK, players=2).get_type()
    assert cards.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert cards.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION


# ---------------------------------------------------------------------- states


def _play_random(state: Any, rng: random.Random, steps: int | None = None) -> None:
    n = 0
    while not state.is_terminal() and (steps is None or n < steps):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        n += 1


def test_explicit_chance_nodes_are_card_kinds(ro: Any, pyspiel: Any):
    game = ro.register(HIGHJACK, players=2)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    kinds = ro.interpreter_state(state).game.cards.kind_names
    assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
    assert all(state.action_to_string(pyspiel.PlayerId.CHANCE, a).startswith("chance: ") for a, _ in outcomes)
    assert {state.action_to_string(pyspiel.PlayerId.CHANCE, a)[len("chance: "):] for a, _ in outcomes} <= set(kinds)


def test_states_follow_the_interpreter(ro: Any, pyspiel: Any):
    game = ro.register(HIGHHAND, players=2, options={"rounds": 1})
    state = game.new_initial_state()
    interp = interpreter.load_game(HIGHHAND, players=2, options={"rounds": 1}, explicit_chance=True)
    mirror = interp.new_initial_state(0)
    rng = random.Random(5)
    while not state.is_terminal():
        assert state.legal_actions() == mirror.legal_actions()
        player = state.current_player()
        assert player == (pyspiel.PlayerId.CHANCE if mirror.is_chance_node() else mirror.current_player())
        if state.is_chance_node():
            assert state.chance_outcomes() == mirror.chance_outcomes()
        action = rng.choice(state.legal_actions())
        assert state.action_to_string(player, action) == mirror.action_to_string(action)
        state.apply_action(action)
        mirror.apply_action(action)
    assert mirror.is_terminal() and state.returns() == mirror.returns()
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert list(state.history()) == mirror.history


def test_illegal_actions_raise_and_change_nothing(ro: Any, pyspiel: Any):
    game = ro.register(HIGHJACK, players=2)
    state = game.new_initial_state()
    _play_random(state, random.Random(1), 30)
    while state.is_chance_node():
        _play_random(state, random.Random(2), 1)
    before = state.serialize()
    bad = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    with pytest.raises(interpreter.IllegalActionError):
        ro.interpreter_state(state).apply_action(bad)
    assert state.serialize() == before


def test_serialization_round_trips_through_the_engine_json(ro: Any, pyspiel: Any):
    game = ro.register(HIGHJACK, players=4)
    state = game.new_initial_state()
    rng = random.Random(3)
    for steps in (0, 1, 25, 60, 200):
        _play_random(state, rng, steps)
        for p in range(4):
            state.information_state_string(p)
        text = state.serialize()
        again = game.deserialize_state(text)
        assert str(again) == str(state)
        assert ro.interpreter_state(again) == ro.interpreter_state(state)
        assert list(again.history()) == list(state.history())
        for p in range(4):
            assert again.information_state_string(p) == state.information_state_string(p)
            assert again.observation_string(p) == state.observation_string(p)
            assert again.observation_tensor(p) == state.observation_tensor(p)
        loaded_game, loaded = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert str(loaded_game) == str(game) and str(loaded) == str(state)
        # and it continues identically
        a, b = state.clone(), again
        _play_random(a, random.Random(steps), 40)
        _play_random(b, random.Random(steps), 40)
        assert str(a) == str(b)
        if state.is_terminal():
            break


# ---------------------------------------------------------------------- observations


def test_observations_are_the_players_views(ro: Any, pyspiel: Any):
    game = ro.register(HIGHJACK, players=3)
    state = game.new_initial_state()
    _play_random(state, random.Random(4), 80)
    inner = ro.interpreter_state(state)
    encoder = ViewEncoder(inner.game)
    import numpy as np

    for p in range(3):
        view = inner.observation(p, events=False)
        assert state.observation_string(p) == view_string(view)
        expected = np.zeros(encoder.size, np.float32)
        encoder.encode(view, expected)
        assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), expected)
        info = json.loads(state.information_state_string(p))
        assert info["view"] == view
        assert info["own_actions"] == [a for a, who in _actors(inner) if who == p]


def _actors(inner: interpreter.State) -> list[tuple[int, int]]:
    """(action, who) for the history of an explicit-chance interpreter state."""
    replay = inner.game.new_initial_state(0)
    out = []
    for a in inner.history:
        out.append((a, replay.current_player()))
        replay.apply_action(a)
    return out


def test_observation_tensor_layout_is_relative_to_the_observer(ro: Any, pyspiel: Any):
    from open_spiel.python.observation import make_observation

    game = ro.register(HIGHJACK, players=4)
    obs = make_observation(game)
    assert set(obs.dict) == {"zones", "players", "variables", "status"}
    state = game.new_initial_state()
    _play_random(state, random.Random(6), 60)
    while state.is_chance_node():
        _play_random(state, random.Random(7), 1)
    deciding = state.current_player()
    for p in range(4):
        obs.set_from(state, p)
        status = obs.dict["status"]
        assert status[(deciding - p) % 4] == 1.0  # who decides, counted from the observer
        assert status[:6].sum() == 1.0


def test_public_observer_sees_no_private_cards(ro: Any, pyspiel: Any):
    from open_spiel.python.observation import make_observation

    game = ro.register(HIGHJACK, players=2)
    public = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    state = game.new_initial_state()
    _play_random(state, random.Random(8), 40)
    text = public.string_from(state, 0)
    assert text == public.string_from(state, 1)
    view = json.loads(text)
    assert all(isinstance(h, dict) and set(h) == {"count"} for h in view["zones"]["hand"])
    recall = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    history = json.loads(recall.string_from(state, 0))
    assert history == json.loads(recall.string_from(state, 1))
    assert history["view"] == view and history["own_actions"] == []
    assert recall.string_from(state, 0) != state.information_state_string(0)


# ---------------------------------------------------------------------- perfect recall


def test_information_states_identify_histories_in_a_perfect_information_game(ro: Any, pyspiel: Any):
    """In tic-tac-toe a perfect-recall information state is the whole move sequence."""
    game = ro.register(TICTACTOE)
    seen: dict[tuple[int, str], tuple[int, ...]] = {}

    def visit(state: Any, depth: int) -> None:
        if state.is_terminal() or depth > 4:
            return
        player = state.current_player()
        key = (player, state.information_state_string(player))
        history = tuple(state.history())
        assert seen.setdefault(key, history) == history, f"{history} and {seen[key]} share an information state"
        for a in state.legal_actions():
            visit(state.child(a), depth + 1)

    visit(game.new_initial_state(), 0)
    assert len(seen) == 1 + 9 + 9 * 8 + 9 * 8 * 7 + 9 * 8 * 7 * 6


@pytest.mark.parametrize("path, players", [(HIGHJACK, 2), (HIGHJACK, 3), (HIGHHAND, 2)])
def test_information_states_have_perfect_recall_and_nothing_more(ro: Any, pyspiel: Any, path: str, players: int):
    """Two matches that share a start and then differ in one chance outcome: for every
    player, while everything they observed (views and events) and did is the same the
    information states are equal, and once anything differed they differ for good."""
    game = ro.register(path, players=players, options={"rounds": 1} if path == HIGHHAND else {})
    rng = random.Random(11)
    branch_points = 0
    for trial in range(6):
        state = game.new_initial_state()
        _play_random(state, rng, rng.randrange(0, 150))
        if not state.is_chance_node() or len(state.chance_outcomes()) < 2:
            continue
        branch_points += 1
        a, b = state.clone(), state.clone()
        first, second = rng.sample([o for o, _ in state.chance_outcomes()], 2)
        a.apply_action(first)
        b.apply_action(second)
        diverged = [False] * players
        for _ in range(120):
            ia, ib = ro.interpreter_state(a), ro.interpreter_state(b)
            for p in range(players):
                if ia.observation(p) != ib.observation(p):
                    diverged[p] = True
                same = a.information_state_string(p) == b.information_state_string(p)
                assert same != diverged[p], (
                    f"trial {trial}, player {p}: observations {'differed' if diverged[p] else 'agreed'} but the "
                    f"information states {'agree' if same else 'differ'}")
            if a.is_terminal() or b.is_terminal() or a.current_player() != b.current_player():
                break
            common = sorted(set(a.legal_actions()) & set(b.legal_actions()))
            if not common:
                break
            action = rng.choice(common)
            a.apply_action(action)
            b.apply_action(action)
    assert branch_points > 0


# ---------------------------------------------------------------------- bots


@pytest.mark.parametrize("path, players, options", [
    pytest.param(HIGHHAND, 4, {"rounds": 1}, id="highhand-4p"),
    pytest.param(TICTACTOE, 2, {}, id="tictactoe"),
])
def test_mcts_bot_plays_a_full_game(ro: Any, pyspiel: Any, path: str, players: int, options: dict):
    import numpy as np
    from open_spiel.python.algorithms import mcts

    game = ro.register(path, players=players, options=options)
    bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=20,
                         evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(p)),
                         random_state=np.random.RandomState(p)) for p in range(players)]
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(actions, p=probs))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
    assert decisions > 0
    returns = state.returns()
    assert len(returns) == players and all(game.min_utility() <= r <= game.max_utility() for r in returns)


# ---------------------------------------------------------------------- the optional extra


def test_a_missing_extra_names_the_pip_command(monkeypatch: pytest.MonkeyPatch):
    real_import = builtins.__import__

    def no_pyspiel(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pyspiel" or name.startswith("open_spiel"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    saved = sys.modules.pop("interpreter.adapters.openspiel", None)
    monkeypatch.setattr(builtins, "__import__", no_pyspiel)
    try:
        with pytest.raises(ImportError, match=r"pip install 'rulespec\[openspiel\]'"):
            importlib.import_module("interpreter.adapters.openspiel")
    finally:
        monkeypatch.setattr(builtins, "__import__", real_import)
        sys.modules.pop("interpreter.adapters.openspiel", None)
        if saved is not None:
            sys.modules["interpreter.adapters.openspiel"] = saved


# ---------------------------------------------------------------------- hostile serialized states (issue 11)


_BIG_SPEC = """rulespec: 1
game: {name: Many ids, players: 2, limits: {actions: 10}}
round:
  turn:
    - choose:
        - action: pick
          for: a in range(0, 2000), b in range(0, 1000)
          if: a == 0 and b == 0
          do: [end game]
        - action: stop
          do: [end game]
"""


def _forged_pickle(marker: Any) -> str:
    """OpenSpiel's C++ serialization of a Python state, whose attributes would, if unpickled,
    create ``marker`` (a file) by running code."""
    import base64
    import pickle

    class Boom:
        def __reduce__(self) -> Any:
            return (open, (str(marker), "w"))

    payload = base64.b64encode(pickle.dumps({"_inner": Boom()})).decode()
    return f"history=\nmove_number=0\n__dict__={payload}"


def test_a_forged_pickle_is_never_unpickled(ro: Any, pyspiel: Any, tmp_path: Any):
    game = ro.register(TICTACTOE)
    marker = tmp_path / "ran"
    forged = _forged_pickle(marker)
    # the Python-facing loaders read only the history of OpenSpiel's own form
    state = game.deserialize_state(forged)
    assert not marker.exists()
    assert str(state) == str(game.new_initial_state())
    text = f"# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n" \
           f"[Game]\n{game.serialize()}\n[State]\n{forged}\n"
    loaded_game, loaded = ro.deserialize_game_and_state(text)
    assert not marker.exists() and loaded.history() == []
    # a forged history is replayed (so checked) like any other
    with pytest.raises(interpreter.StateError):
        game.deserialize_state(forged.replace("history=", "history=0:4,1:4"))
    with pytest.raises(interpreter.StateError):
        game.deserialize_state(forged.replace("history=", "history=0:x"))
    assert not marker.exists()


def test_serialized_states_are_the_engine_json_and_are_checked(ro: Any, pyspiel: Any):
    game = ro.register(HIGHJACK, players=2)
    state = game.new_initial_state()
    _play_random(state, random.Random(4), 40)
    text = state.serialize()
    data = json.loads(text)  # plain JSON, nothing pickled
    assert data["history"] == list(state.history())
    again = game.deserialize_state(text)
    assert str(again) == str(state) and list(again.history()) == list(state.history())
    both = ro.serialize_game_and_state(game, state)
    loaded_game, loaded = ro.deserialize_game_and_state(both)
    assert str(loaded_game) == str(game) and str(loaded) == str(state)
    assert list(loaded.history()) == list(state.history())

    def refused(value: Any) -> None:
        with pytest.raises(interpreter.StateError):
            game.deserialize_state(value)

    for value in ("", "{", "[]", "null", text[:100], "[" * 100_000, None, 7, b"\xff"):
        refused(value)
    # well-formed but not where its history leads: the replay refuses it
    forged = json.loads(text)
    forged["total"][0] += 5
    refused(json.dumps(forged))
    forged = json.loads(text)
    forged["rng"] = (forged["rng"] + 1) % 2**64
    refused(json.dumps(forged))
    forged = json.loads(text)
    forged["history"][-1] = next(a for a in range(game.num_distinct_actions()) if a != forged["history"][-1])
    refused(json.dumps(forged))
    with pytest.raises(interpreter.StateError):
        ro.deserialize_game_and_state(both.replace(game.serialize(), "tic_tac_toe()"))
    with pytest.raises(interpreter.StateError):
        ro.deserialize_game_and_state("not a serialization")


def test_openspiels_own_serialization_loads_through_the_checked_path(ro: Any, pyspiel: Any, monkeypatch: Any):
    from interpreter.adapters.openspiel import _Inner

    game = ro.register(HIGHJACK, players=2)
    state = game.new_initial_state()
    _play_random(state, random.Random(5), 30)
    inner = state._inner
    data = inner.__getstate__()
    assert set(data) == {"key", "state"} and all(isinstance(v, str) for v in data.values())
    fresh = _Inner.__new__(_Inner)
    fresh.__setstate__(data)
    assert fresh.state == inner.state
    forged = json.loads(data["state"])
    forged["total"][1] = 999
    for bad in ({**data, "state": json.dumps(forged)}, {**data, "key": "nope"}, {"key": 1}, [1]):
        with pytest.raises(interpreter.StateError):
            _Inner.__new__(_Inner).__setstate__(bad)


def test_a_large_action_space_is_refused_at_registration(ro: Any, pyspiel: Any, tmp_path: Any):
    spec = tmp_path / "many.yaml"
    spec.write_text(_BIG_SPEC)
    assert interpreter.load_game(str(spec)).num_distinct_actions == 2_000_001
    with pytest.raises(interpreter.OptionError, match=r"2,000,001 action ids.*at most 1,000,000"):
        ro.register(str(spec))
