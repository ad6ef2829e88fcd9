"""The uniformly random agent: a baseline any bot should beat."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from . import Agent

if TYPE_CHECKING:
    from ..state import State

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Picks a legal action uniformly at random."""

    name = "random"

    def choose(self, state: State, legal: list[int], rng: random.Random) -> int:
        return legal[rng.randrange(len(legal))]
