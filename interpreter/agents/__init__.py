"""Bots for any game: small classes with ``step(state) -> action``, made by name.

    agent = make_agent("mcts:200", game, player=1, seed=7)
    state.apply_action(agent.step(state))

An agent decides from what its seat may know: ``state.observation(player)``, the legal
actions and their labels, the game's metadata, and, to search, ``sample_consistent``
(a world it cannot tell apart from the real one) and ``game.heuristic``. Every random
choice comes from a generator seeded by the agent's seed and the move number, so a
match replays identically from its seeds, and a resumed match continues as the
uninterrupted one would have.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ..game import Game
    from ..state import State

__all__ = ["Agent", "AgentError", "AGENTS", "make_agent", "parse_agent_spec", "agent_names", "derive_seed",
           "evaluate"]


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from any parts (ints, strings); the same parts give the same seed everywhere."""
    text = "/".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


class AgentError(ValueError):
    """A bad agent name or parameter."""


class Agent:
    """A bot playing one seat. Subclasses implement ``choose(state, rng)``."""

    name: ClassVar[str] = "agent"
    #: parameter names in the order they may be given positionally (``mcts:200:8``)
    params: ClassVar[tuple[str, ...]] = ()

    def __init__(self, game: Game, player: int, seed: int = 0, **params: Any):
        self.game = game
        self.player = player
        self.seed = int(seed)
        if params:
            raise AgentError(f"agent '{self.name}' takes no parameter {', '.join(params)}")

    def rng_for(self, state: State) -> random.Random:
        """This decision's generator: from the agent's seed and the move number."""
        return random.Random(derive_seed(self.seed, len(state.history)))

    def step(self, state: State) -> int:
        legal = state.legal_actions(self.player)
        if not legal:
            raise AgentError(f"agent '{self.name}' (seat {self.player}) was asked to move, but it is not its turn")
        if len(legal) == 1:
            return legal[0]
        return self.choose(state, legal, self.rng_for(state))

    def choose(self, state: State, legal: list[int], rng: random.Random) -> int:
        raise NotImplementedError

    @property
    def label(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seat={self.player} seed={self.seed}>"


def evaluate(game: Game, state: State) -> list[float]:
    """Each seat's margin: its heuristic minus the best heuristic of the other seats.

    Positive means ahead. Used by the search agents on any state, terminal or not.
    """
    h = game.heuristics(state)
    if len(h) == 1:
        return h
    # the best other seat is the best seat, except for the best seat itself (the second best)
    best = max(h)
    top = h.index(best)
    margins = [v - best for v in h]
    margins[top] = best - max(h[:top] + h[top + 1:])
    return margins


def _registry() -> dict[str, type[Agent]]:
    from .greedy import GreedyAgent
    from .mcts import MCTSAgent
    from .random_agent import RandomAgent

    return {"random": RandomAgent, "greedy": GreedyAgent, "mcts": MCTSAgent}


AGENTS: dict[str, type[Agent]] = {}


def agent_names() -> list[str]:
    if not AGENTS:
        AGENTS.update(_registry())
    return list(AGENTS)


MAX_SPEC = 200  # characters of an agent spec


def parse_agent_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:200:depth=6"`` -> ``("mcts", {"iterations": 200, "depth": 6})``; a duration
    (``mcts:1s``, ``mcts:250ms``) is the agent's ``time`` parameter, in seconds.

    Every parameter is a finite number (``nan``, ``inf`` and ``1e999`` are refused here; each
    agent checks its own ranges)."""
    names = agent_names()
    if not isinstance(text, str) or len(text) > MAX_SPEC or not text.isprintable():
        raise AgentError(f"not an agent: {_shown(text)} (agents: {', '.join(names)})")
    parts = [p.strip() for p in text.strip().split(":")]
    name = parts[0].lower()
    if name not in AGENTS:
        if not name:
            raise AgentError(f"an agent name is missing in '{text}' (agents: {', '.join(names)})")
        raise AgentError(f"unknown agent '{parts[0]}' (agents: {', '.join(names)})")
    cls = AGENTS[name]
    params: dict[str, Any] = {}
    for i, part in enumerate(parts[1:]):
        if not part:
            raise AgentError(f"agent '{name}': a parameter is missing after ':' in '{text}'")
        if "=" in part:
            key, value = (x.strip() for x in part.split("=", 1))
        elif "time" in cls.params and _DURATION.fullmatch(part):
            key, value = "time", part
        else:
            if i >= len(cls.params):
                raise AgentError(f"agent '{name}' takes at most {len(cls.params)} parameter(s): "
                                 f"{', '.join(cls.params) or 'none'}")
            key, value = cls.params[i], part
        if key not in cls.params:
            raise AgentError(f"agent '{name}' has no parameter '{key}' (parameters: {', '.join(cls.params) or 'none'})")
        if key in params:
            raise AgentError(f"agent '{name}': parameter '{key}' is given twice")
        what = f"agent '{name}' parameter '{key}'"
        params[key] = _seconds(value, what) if key == "time" else _number(value, what)
    return name, params


_DURATION = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)(s|ms)", re.IGNORECASE)


def _seconds(text: str, what: str) -> float:
    """A duration in seconds: ``1s``, ``0.5s``, ``250ms`` or a bare number of seconds."""
    match = _DURATION.fullmatch(text)
    if match is None:
        return float(_number(text, what))
    value = float(match.group(1))
    return value / 1000 if match.group(2).lower() == "ms" else value


def _shown(text: Any) -> str:
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _number(text: str, what: str) -> float | int:
    """A parameter's number: an integer (at most 18 digits) or a finite decimal."""
    if re.fullmatch(r"[+-]?[0-9]{1,18}", text):
        return int(text)
    if re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text) and len(text) <= 40:
        value = float(text)
        if math.isfinite(value):
            return value
        raise AgentError(f"{what}: '{text}' is too large")
    raise AgentError(f"{what}: {_shown(text)} is not a number")


def whole(value: float | int, what: str, low: int, high: int) -> int:
    """``value`` as a whole number from ``low`` to ``high``, or an ``AgentError`` saying so."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value == int(value) and low <= value <= high):
        raise AgentError(f"{what} must be a whole number of at least {low} (and at most {high}), not {value:g}")
    return int(value)


def make_agent(spec: str, game: Game, player: int, seed: int = 0) -> Agent:
    """An agent from its name and parameters (``random``, ``greedy``, ``mcts:200``...)."""
    name, params = parse_agent_spec(spec)
    return AGENTS[name](game, player, seed, **params)
