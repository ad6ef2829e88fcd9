"""The greedy agent: one step of lookahead, scored by the game's heuristic.

For each legal action it applies the action in a few sampled worlds consistent with its
own view (never the real state: the next draw of the real game stays unknown) and keeps
the action whose average margin (its heuristic minus the best other seat's) is highest.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ..errors import RuleError
from ..sampling import sample_consistent
from . import Agent, evaluate, whole

if TYPE_CHECKING:
    from ..game import Game
    from ..state import State

__all__ = ["GreedyAgent", "MAX_SAMPLES"]

MAX_SAMPLES = 100_000


class GreedyAgent(Agent):
    """``greedy`` or ``greedy:SAMPLES`` (worlds sampled per decision, default 4)."""

    name = "greedy"
    params = ("samples",)

    def __init__(self, game: Game, player: int, seed: int = 0, samples: Any = 4):
        super().__init__(game, player, seed)
        self.samples = whole(samples, "greedy: samples", 1, MAX_SAMPLES)
        #: worlds dropped because the rules failed in them
        self.worlds_dropped = 0

    @property
    def label(self) -> str:
        return self.name if self.samples == 4 else f"{self.name}:{self.samples}"

    def choose(self, state: State, legal: list[int], rng: random.Random) -> int:
        me = self.player
        totals = [0.0] * len(legal)
        for _ in range(self.samples):
            world = sample_consistent(state, me, rng)
            try:
                values = [evaluate(self.game, _after(world, action))[me] for action in legal]
            except RuleError:  # the rules fail in this world: it is not a possible one (see mcts._iterate)
                self.worlds_dropped += 1
                continue
            totals = [t + v for t, v in zip(totals, values)]
        best = max(totals)
        ties = [a for a, t in zip(legal, totals) if t >= best - 1e-9]
        return ties[rng.randrange(len(ties))]


def _after(world: State, action: int) -> State:
    after = world.clone()
    after.apply_action(action)
    return after
