"""Determinization: a state a player cannot tell apart from the real one.

Information-set search (IS-MCTS) needs possible worlds consistent with what a player
knows. ``sample_consistent`` keeps everything the player sees and redeals every card
the player cannot see uniformly at random among the places such cards occupy (other
hands, face-down cards, hidden piles), gives the other players' private variables
(`visibility: owner`) their initial values, and gives the sample a fresh random
generator, so neither the hidden cards, nor the others' secrets, nor the future draws of
the real game leak into it.
"""

from __future__ import annotations

import random
from typing import Any

from . import rng as RNG
from .flow import DealCode, DrawCode, run
from .state import State
from .visibility import player_variable_seen, visible_cards

__all__ = ["sample_consistent", "Sampler"]


MAX_TRIES = 200


def sample_consistent(state: State, player: int, seed: int | random.Random) -> State:
    """A copy of ``state`` with all cards hidden from ``player`` redealt at random.

    A redeal can make another player's pending decision impossible (say, they must commit
    a card of a kind the redeal took away); such samples are rejected and redrawn, so the
    world returned still shows ``player`` the same decision in progress.
    """
    return Sampler(state, player).sample(seed)


class Sampler:
    """Worlds ``player`` cannot tell apart from ``state``, many from one state: what the player
    sees, and where the hidden cards lie, is worked out once (a search samples one world per
    iteration). ``sample(seed)`` is ``sample_consistent(state, player, seed)``."""

    __slots__ = ("state", "player", "slots", "hidden", "faces", "secrets", "steps", "runs")

    def __init__(self, state: State, player: int):
        self.state = state
        self.player = player
        seen = visible_cards(state, player)
        self.slots: list[tuple[int, int]] = []
        hidden: list[int] = []
        for z, cards in enumerate(state.zones):
            for i, card in enumerate(cards):
                if card not in seen:
                    self.slots.append((z, i))
                    hidden.append(card)
        self.faces = [state.face[state.zones[z][i]] for z, i in self.slots]
        # the sample must depend on what the player sees, not on where the cards really are: sorted
        # by kind (then id), the kinds dealt below are the same whichever copies the player sees
        kind_of = state.game.cards.kind_of
        hidden.sort(key=lambda card: (kind_of[card], card))
        self.hidden = hidden
        self.steps = shuffle_steps(len(hidden))
        self.runs = _runs(state, self.slots, self.faces)
        self.secrets = _secrets(state, player)

    def sample(self, seed: int | random.Random) -> State:
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        state = self.state
        sample = state
        for _ in range(MAX_TRIES):
            sample = self._redeal(rng)
            if _same_decision(state, sample):
                return sample
        return sample  # practically unreachable: the last redeal, whose decision has moved on

    def _redeal(self, rng: random.Random) -> State:
        state = self.state
        sample = state.clone()
        _forget_secrets(sample, self.secrets)  # before the pending decision is worked out again from the sample
        hidden = list(self.hidden)
        shuffle(rng, hidden, self.steps)
        zones, loc, face = sample.zones, sample.loc, sample.face
        for z, start, end, places, up in self.runs:
            cards = hidden[start:end]
            if places is None:  # the whole zone is hidden: the run is the zone
                zones[z] = cards
            else:
                zone = zones[z]
                for i, card in zip(places, cards):
                    zone[i] = card
            for card in cards:
                loc[card] = z
                face[card] = up
        sample.dirty = True  # cards changed zones behind the writers' backs: the end conditions must look again
        sample.rng = RNG.seed_state(rng.getrandbits(62))
        _refresh_pending(sample, state.pending.player if state.pending else None)
        return sample


Run = tuple[int, int, int, "list[int] | None", int]


def _runs(state: State, slots: list[tuple[int, int]], faces: list[int]) -> list[Run]:
    """The hidden slots (in zone order) as runs of one zone and one face: (zone, first and
    past-last slot, the places in the zone or None when the run is the whole zone, face)."""
    runs: list[Run] = []
    start = 0
    for k in range(1, len(slots) + 1):
        if k < len(slots) and slots[k][0] == slots[start][0] and faces[k] == faces[start]:
            continue
        z = slots[start][0]
        places = [i for _, i in slots[start:k]]
        whole = places == list(range(len(state.zones[z])))
        runs.append((z, start, k, None if whole else places, faces[start]))
        start = k
    return runs


def shuffle(rng: random.Random, cards: list, steps: list[tuple[int, int, int]] | None = None) -> None:
    """``rng.shuffle(cards)`` written out: the same swaps from the same draws of ``rng`` (a search
    redeals once per iteration, and the method's call per card was a third of the redeal).
    ``steps`` is ``shuffle_steps(len(cards))``, worked out once by a caller that shuffles often."""
    getrandbits = rng.getrandbits
    for i, n, k in shuffle_steps(len(cards)) if steps is None else steps:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def shuffle_steps(size: int) -> list[tuple[int, int, int]]:
    """The steps of shuffling ``size`` cards: (position, choices, bits drawn per try) per swap."""
    return [(i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1)]


def _secrets(state: State, player: int) -> list[tuple[int, int, Any]]:
    """(variable index, seat, variable) of each private variable of another seat that ``player``
    cannot see."""
    link = state.game.link
    return [(i, p, var) for i, var in enumerate(link.pvar_defs) for p in range(link.num_players)
            if not player_variable_seen(var.visibility, p, player)]


def _forget_secrets(sample: State, secrets: list[tuple[int, int, Any]]) -> None:
    """The other players' private variables (``_secrets``), as the player cannot know them: their
    initial values."""
    if secrets:
        initial_value = sample.game.link.initial_value
        for i, p, var in secrets:
            sample.pv[i][p] = initial_value(var, sample, p)
        sample.dirty = True


def _same_decision(state: State, sample: State) -> bool:
    """The sample still waits on the same player, without having played on."""
    if state.pending is None or sample.pending is None:
        return state.pending is None and sample.pending is None
    return (sample.pending.player == state.pending.player and len(sample.events) == len(state.events)
            and len(sample.stack) == len(state.stack))


def _refresh_pending(sample: State, decider: int | None) -> None:
    """Options of a decision, or of a pending draw, follow from the cards: recompute them."""
    pending = sample.pending
    if pending is None:
        return
    code = sample.game.codes[pending.code]
    if isinstance(code, (DrawCode, DealCode)):
        sample.pending = None  # the draw's frame is still on the stack: stepping it re-asks
        run(sample)
    elif hasattr(code, "alts"):
        env = pending.payload
        sample.pending = None
        code.enter(sample, env)
        if sample.pending is None:
            run(sample)
