"""The batched card moves do what the one-card primitives they replace do, card for card.

``deal_cards`` (a `deal`, a `draw` of several) must leave a state equal to that many
``draw_top`` calls: the same cards in the same places and faces, the same random numbers used,
the same budget spent, the same flags (shuffled, dirty). ``move_cards`` of a zone's own cards
onto itself (`move all cards to deck` at the start) must equal moving them one at a time.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import interpreter
from interpreter import rng as RNG
from interpreter.state import LARGE_ZONE, deal_cards, draw_top, move_card, move_cards
from tests.conftest import GAMES


@cache
def _game() -> Any:
    return interpreter.load_game(GAMES / "highjack.yaml", players=4)


def _fields(s: Any) -> tuple[Any, ...]:
    return (s.zones, s.loc, s.face, s.shuffled, s.rng, s.ops, s.dirty)


def _scattered(seed: int, shuffled: list[bool]) -> Any:
    """A state some way into a match (cards in many zones), with the zones' shuffled flags set."""
    s = _game().new_initial_state(seed)
    s.shuffled = [z < len(shuffled) and shuffled[z] and len(cards) > 0 for z, cards in enumerate(s.zones)]
    s.ops = 10**9
    s.dirty = False
    return s


zones_count = len(_scattered(0, []).zones)


@given(seed=st.integers(0, 50), src=st.integers(0, zones_count - 1),
       dsts=st.lists(st.integers(0, zones_count - 1), min_size=0, max_size=6),
       rounds=st.integers(-1, 30), shuffled=st.lists(st.booleans(), min_size=zones_count, max_size=zones_count),
       faces=st.lists(st.integers(0, 1), min_size=6, max_size=6))
def test_deal_cards_is_draw_top_card_after_card(seed, src, dsts, rounds, shuffled, faces):
    batched, single = _scattered(seed, shuffled), _scattered(seed, shuffled)
    deal_cards(batched, src, dsts, faces[:len(dsts)], rounds)
    done = False
    for _ in range(rounds):
        for z, f in zip(dsts, faces):
            if not draw_top(single, src, z, f):
                done = True
                break
        if done:
            break
    assert _fields(batched) == _fields(single)


_BIG_DECK = """
game: {name: Big deck, players: [2]}
cards: {list: [{family: {n: "1..100"}, name: "C{n}"}]}
zones:
  pile: {visibility: hidden}
  hand: {per: player, visibility: owner}
round:
  setup: [shuffle pile]
  turn: [end game]
"""


def test_deal_cards_from_a_large_shuffled_zone_pays_as_draw_top():
    game = interpreter.game_from_text(_BIG_DECK)
    batched, single = game.new_initial_state(5), game.new_initial_state(5)
    for s in (batched, single):
        s.ops = 10**9
        s.pending = None
    pile, hands = 0, [1, 2]
    assert len(batched.zones[pile]) == 100 > LARGE_ZONE and batched.shuffled[pile]
    deal_cards(batched, pile, hands, [0, 1], 30)
    for _ in range(30):
        for z, f in zip(hands, [0, 1]):
            draw_top(single, pile, z, f)
    assert _fields(batched) == _fields(single)
    assert batched.ops < 10**9 - 100  # (it did pay for the large zone)
    assert [len(batched.zones[z]) for z in hands] == [30, 30]


def test_below_run_is_below_repeated():
    state, picks = RNG.below_run(RNG.seed_state(7), 52, 40)
    one, expected = RNG.seed_state(7), []
    for size in range(52, 12, -1):
        one, i = RNG.below(one, size)
        expected.append(i)
    assert (state, picks) == (one, expected)


@given(seed=st.integers(0, 50), face=st.integers(0, 1), pick=st.integers(0, 10**6))
def test_a_zone_moved_onto_itself_in_its_order_changes_only_faces(seed, face, pick):
    batched, single = _scattered(seed, []), _scattered(seed, [])
    held = [z for z, cards in enumerate(batched.zones) if cards]
    z = held[pick % len(held)]
    for s in (batched, single):
        s.shuffled[z] = pick % 2 == 0  # (a zone of one card may be marked shuffled: what is left of one)
    move_cards(batched, list(batched.zones[z]), z, face)
    for card in list(single.zones[z]):
        move_card(single, card, z, face)
    assert _fields(batched) == _fields(single)


def test_the_last_card_of_a_shuffled_zone_moved_onto_itself_leaves_it_unshuffled():
    game = interpreter.game_from_text(_BIG_DECK)
    batched, single = game.new_initial_state(5), game.new_initial_state(5)
    for s in (batched, single):
        deal_cards(s, 0, [1], [0], 99)
        assert len(s.zones[0]) == 1
        s.shuffled[0] = True  # (as a shuffled zone is, until its last card leaves)
    move_cards(batched, list(batched.zones[0]), 0, 1)
    move_card(single, single.zones[0][0], 0, 1)
    assert _fields(batched) == _fields(single)
    assert not batched.shuffled[0]
