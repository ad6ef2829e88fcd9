"""Any rulespec game as a PettingZoo AEC environment.

    from interpreter.adapters.pettingzoo import env as rulespec_env
    e = rulespec_env("games/mygame.yaml", players=4)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (the seats). Only the seat the rules are
waiting for acts; ``agent_selection`` follows the rules, not a fixed rotation. An
observation is ``{"observation": float32 vector, "action_mask": int8 vector}``: the vector
is ``ViewEncoder`` of ``state.observation(seat)`` (seats relative to the observer), the
mask marks the legal action ids (all zero for a seat that is not deciding). Rewards are
the match returns, given once when the match ends. Chance is resolved inside the engine,
from the seed given to ``reset``. The info of the agent to act has ``"legal_actions"``:
the structure of each legal action (``interpreter.actions.Action.to_dict()``: id, the
spec's action name, and each parameter's value), so a policy need not parse labels.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Mapping
from typing import Any

try:
    import gymnasium
    import numpy as np
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "the PettingZoo adapter needs pettingzoo, gymnasium and numpy: pip install 'rulespec[pettingzoo]' "
        "(or pip install pettingzoo gymnasium numpy)") from exc

from ..errors import IllegalActionError
from ..game import Game as InterpreterGame
from ..game import load_game
from ..state import State as InterpreterState
from ..state import action_id
from .encoding import ViewEncoder, check_action_space

__all__ = ["RulespecAECEnv", "env", "raw_env"]


class RulespecAECEnv(AECEnv):
    """A PettingZoo AEC environment playing one spec, player count and options."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "rulespec", "is_parallelizable": False}

    def __init__(self, spec_path: str, players: int | None = None, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.game: InterpreterGame = load_game(spec_path, players=players, options=options, explicit_chance=False)
        check_action_space(self.game, "PettingZoo")
        stem = re.sub(r"[^a-z0-9]+", "_", os.path.splitext(os.path.basename(spec_path))[0].lower()).strip("_")
        self.metadata = dict(self.metadata, name=f"rulespec_{stem or 'game'}_{self.game.num_players}p")
        self.render_mode = render_mode
        self.encoder = ViewEncoder(self.game)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        actions = self.game.num_distinct_actions
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (actions,), np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: gymnasium.spaces.Discrete(actions) for agent in self.possible_agents}
        self._seeds = random.Random()
        self.state: InterpreterState | None = None
        self.agents: list[str] = []

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            # reset(seed=s) plays the engine's match new_initial_state(s); later resets
            # without a seed continue from it
            self._seeds = random.Random(seed)
            game_seed = int(seed)
        else:
            game_seed = self._seeds.getrandbits(62)
        self.state = self.game.new_initial_state(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        if self.state.is_terminal():  # a match decided before anybody acts
            self._finish()
        else:
            self._select_next()

    def observe(self, agent: str) -> dict[str, Any]:
        state = self._require_state()
        seat = self._seat[agent]
        vector = np.zeros(self.encoder.size, np.float32)
        self.encoder.encode(state.observation(seat, events=False), vector)
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        for a in state.legal_actions(seat):
            mask[a] = 1
        return {"observation": vector, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        if action is None:
            raise IllegalActionError(f"{agent} must choose an action; legal: {state.legal_actions()}")
        # an id that is no integer, or not legal now, raises IllegalActionError naming the choices
        state.apply_action(action_id(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if state.is_terminal():
            self._finish()
        else:
            self._select_next()
        if self.render_mode == "human":
            self.render()

    def _select_next(self) -> None:
        """The seat the rules wait for acts next; its info lists its legal actions' structure."""
        state = self._require_state()
        self.agent_selection = self.possible_agents[state.current_player()]
        for info in self.infos.values():
            info.pop("legal_actions", None)
        self.infos[self.agent_selection]["legal_actions"] = [a.to_dict() for a in state.legal_action_params()]

    def _finish(self) -> None:
        state = self._require_state()
        for agent, value in zip(self.possible_agents, state.returns()):
            if agent in self.rewards:
                self.rewards[agent] = float(value)
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def _require_state(self) -> InterpreterState:
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use 'ansi' or 'human')")
            return None
        text = str(self._require_state())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def raw_env(spec_path: str, players: int | None = None, options: Mapping[str, Any] | None = None,
            render_mode: str | None = None) -> RulespecAECEnv:
    return RulespecAECEnv(spec_path, players=players, options=options, render_mode=render_mode)


def env(spec_path: str, players: int | None = None, options: Mapping[str, Any] | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The environment wrapped like PettingZoo's classic games (order of calls enforced)."""
    return wrappers.OrderEnforcingWrapper(raw_env(spec_path, players, options, render_mode))
