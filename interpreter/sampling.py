"""Determinization: a state a player cannot tell apart from the real one.

Information-set search (IS-MCTS) needs possible worlds consistent with what a player
knows. ``sample_consistent`` keeps everything the player sees and redeals every card
the player cannot see uniformly at random among the places such cards occupy (other
hands, face-down cards, hidden piles), and gives the sample a fresh random generator,
so neither the hidden cards nor the future draws of the real game leak into it.
"""

from __future__ import annotations

import random

from . import rng as RNG
from .state import State
from .views import visible_cards

__all__ = ["sample_consistent"]


def sample_consistent(state: State, player: int, seed: int | random.Random) -> State:
    """A copy of ``state`` with all cards hidden from ``player`` redealt at random."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    sample = state.clone()
    seen = visible_cards(state, player)
    slots: list[tuple[int, int]] = []
    hidden: list[int] = []
    for z, cards in enumerate(sample.zones):
        for i, card in enumerate(cards):
            if card not in seen:
                slots.append((z, i))
                hidden.append(card)
    rng.shuffle(hidden)
    for (z, i), card in zip(slots, hidden):
        sample.zones[z][i] = card
        sample.loc[card] = z
    faces = {slot: state.face[state.zones[slot[0]][slot[1]]] for slot in slots}
    for (z, i) in slots:
        sample.face[sample.zones[z][i]] = faces[(z, i)]
    sample.rng = RNG.seed_state(rng.getrandbits(62))
    _refresh_pending(sample, player)
    return sample


def _refresh_pending(sample: State, player: int) -> None:
    """Options of another player's decision, or of a pending draw, follow from the hidden
    cards: recompute them in the sample."""
    from .flow import DealCode, DrawCode, run

    pending = sample.pending
    if pending is None or pending[0] == player:
        return
    code = sample.game.codes[pending[3]]
    if isinstance(code, (DrawCode, DealCode)):
        sample.pending = None  # the draw's frame is still on the stack: stepping it re-asks
        run(sample)
    elif hasattr(code, "alts"):
        env = pending[4]
        sample.pending = None
        code.enter(sample, env)
        if sample.pending is None:
            run(sample)
