"""The PettingZoo adapter: any spec as an AEC environment (engine-resolved chance)."""

from __future__ import annotations

import builtins
import importlib
import sys
import warnings
from typing import Any

import pytest

import interpreter
from interpreter.adapters.encoding import ViewEncoder
from tests.conftest import GAMES, require

HIGHHAND = str(GAMES / "highhand.yaml")
HIGHJACK = str(GAMES / "highjack.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")
REVERSI = str(GAMES / "reversi.yaml")


@pytest.fixture(scope="module")
def pz() -> Any:
    require("pettingzoo")
    from interpreter.adapters import pettingzoo

    return pettingzoo


CASES = [
    pytest.param(HIGHJACK, 2, {}, id="highjack-2p"),
    pytest.param(HIGHJACK, 4, {}, id="highjack-4p"),
    pytest.param(HIGHHAND, 2, {"rounds": 1}, id="highhand-2p"),
    pytest.param(HIGHHAND, 4, {}, id="highhand-4p"),
    pytest.param(HIGHHAND, 4, {"rounds": 1, "partnerships": False}, id="highhand-4p-no-partnerships"),
    pytest.param(TICTACTOE, 2, {}, id="tictactoe"),
    pytest.param(REVERSI, 2, {}, id="reversi"),
]


@pytest.mark.parametrize("path, players, options", CASES)
def test_api_test(pz: Any, path: str, players: int, options: dict):
    from pettingzoo.test import api_test

    env = pz.env(path, players=players, options=options)
    with warnings.catch_warnings():
        # the dict observation (vector + action mask) is PettingZoo's convention for
        # board and card games; api_test only whitelists its own classic games by name
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        api_test(env, num_cycles=1000)


@pytest.mark.parametrize("path, players, options", CASES)
def test_seed_test(pz: Any, path: str, players: int, options: dict):
    from pettingzoo.test import seed_test

    seed_test(lambda: pz.env(path, players=players, options=options), num_cycles=500)


def _run_episode(env: Any, seed: int) -> list[tuple[str, Any]]:
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            trace.append((agent, reward))
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = env.action_space(agent).sample(mask)
        trace.append((agent, int(action)))
        env.step(action)
    return trace


def test_an_episode_follows_the_engine(pz: Any):
    import numpy as np

    env = pz.raw_env(HIGHJACK, players=3)
    env.reset(seed=7)
    game = env.game
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    encoder = ViewEncoder(game)
    rng = np.random.default_rng(0)
    steps = 0
    while not env.state.is_terminal():
        state = env.state
        seat = state.current_player()
        agent = env.agent_selection
        assert agent == f"player_{seat}"
        for other in env.agents:
            obs = env.observe(other)
            p = int(other.split("_")[1])
            expected = np.zeros(encoder.size, np.float32)
            encoder.encode(state.observation(p, events=False), expected)
            assert np.array_equal(obs["observation"], expected)
            assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
            legal = set(state.legal_actions(p))
            assert {i for i, m in enumerate(obs["action_mask"]) if m} == legal
            assert env.observation_space(other).contains(obs)
        legal = state.legal_actions()
        env.step(legal[int(rng.integers(len(legal)))])
        steps += 1
    assert steps > 0
    returns = env.state.returns()
    assert all(env.terminations.values())
    for i, agent in enumerate(env.possible_agents):
        assert env._cumulative_rewards[agent] == returns[i]
    # every agent is stepped once more with None, then the episode is over
    while env.agents:
        env.step(None)
    assert env.agents == []


def test_the_same_seed_gives_the_same_episode(pz: Any):
    traces = []
    for _ in range(2):
        env = pz.env(HIGHHAND, players=2, options={"rounds": 1})
        for i, agent in enumerate(env.possible_agents):
            env.action_space(agent).seed(10 + i)
        traces.append(_run_episode(env, 3))
    assert traces[0] == traces[1]
    assert len(traces[0]) > 2 and all(agent.startswith("player_") for agent, _ in traces[0])


def test_reset_with_a_seed_is_the_engines_match_for_that_seed(pz: Any):
    env = pz.raw_env(HIGHJACK, players=2)
    env.reset(seed=7)
    assert env.state.to_json() == interpreter.load_game(HIGHJACK, players=2).new_initial_state(7).to_json()


def test_reset_draws_fresh_deals_without_a_seed(pz: Any):
    env = pz.raw_env(HIGHJACK, players=2)
    deals = set()
    for _ in range(5):
        env.reset()
        deals.add(tuple(map(tuple, env.state.zones)))
    assert len(deals) > 1


def test_illegal_actions_raise_and_change_nothing(pz: Any):
    env = pz.raw_env(TICTACTOE, players=2)
    env.reset(seed=0)
    env.step(4)
    before = env.state.clone()
    agent = env.agent_selection
    with pytest.raises(interpreter.IllegalActionError, match="may choose"):
        env.step(4)
    assert env.state == before and env.agent_selection == agent
    with pytest.raises(interpreter.IllegalActionError):
        env.step(None)
    assert env.state == before


def test_render_and_spaces(pz: Any):
    import gymnasium

    env = pz.raw_env(TICTACTOE, render_mode="ansi")
    env.reset(seed=0)
    assert "Tic-tac-toe" in env.render()
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Dict)
    assert env.action_space("player_1") == gymnasium.spaces.Discrete(9)
    assert str(env) == "rulespec_tictactoe_2p"
    with pytest.raises(ValueError):
        pz.raw_env(TICTACTOE, render_mode="rgb_array")


def test_a_missing_extra_names_the_pip_command(monkeypatch: pytest.MonkeyPatch):
    real_import = builtins.__import__

    def no_pettingzoo(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pettingzoo" or name.startswith("pettingzoo."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    saved = sys.modules.pop("interpreter.adapters.pettingzoo", None)
    monkeypatch.setattr(builtins, "__import__", no_pettingzoo)
    try:
        with pytest.raises(ImportError, match=r"pip install 'rulespec\[pettingzoo\]'"):
            importlib.import_module("interpreter.adapters.pettingzoo")
    finally:
        monkeypatch.setattr(builtins, "__import__", real_import)
        sys.modules.pop("interpreter.adapters.pettingzoo", None)
        if saved is not None:
            sys.modules["interpreter.adapters.pettingzoo"] = saved


def test_a_large_action_space_is_refused_when_the_env_is_made(pz: Any, tmp_path: Any):
    spec = tmp_path / "many.yaml"
    spec.write_text("rulespec: 1\ngame: {name: Many ids, players: 2, limits: {actions: 10}}\nround:\n  turn:\n"
                    "    - choose:\n        - action: pick\n          for: a in range(0, 2000), b in range(0, 1000)\n"
                    "          if: a == 0 and b == 0\n          do: [end game]\n")
    with pytest.raises(interpreter.OptionError, match=r"2,000,000 action ids.*at most 1,000,000"):
        pz.env(str(spec))


def test_step_takes_numpy_ids_and_refuses_what_is_not_an_id(pz: Any):
    import numpy as np

    env = pz.raw_env(TICTACTOE, players=2)
    env.reset(seed=0)
    before = env.state.clone()
    for value in (0.0, 0.9, "0", b"0", False, True, [0], np.float32(0), np.array([0])):
        with pytest.raises(interpreter.IllegalActionError):
            env.step(value)
        assert env.state == before
    env.step(np.int8(4))
    assert env.state.history == [4] and type(env.state.history[0]) is int
