"""The one visibility rule (interpreter/visibility.py): the table of what each player sees,
and that views, samplers and the adapters decide through it.

A tiny spec has a shared and a per-player zone of every visibility; cards are placed with
every facing, in shuffled and unshuffled zones, then each viewer's view is checked against
the table below.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from typing import Any

import pytest

import interpreter
from interpreter import sampling, views
from interpreter import visibility as V
from interpreter.state import State, move_card

ROOT = Path(__file__).resolve().parent.parent

SPEC = """
game: {name: Sight, players: [2, 3]}
cards: {list: [{family: {v: "1..9"}, name: "C{v}"}]}
zones:
  store: {visibility: hidden}
  pub: {visibility: public}
  own: {visibility: owner}
  hid: {visibility: hidden}
  stop: {visibility: top}
  ppub: {per: player, visibility: public}
  pown: {per: player, visibility: owner}
  phid: {per: player, visibility: hidden}
  ptop: {per: player, visibility: top}
round: {turn: [end game]}
"""

VISIBILITY = {"public": V.PUBLIC, "owner": V.OWNER, "hidden": V.HIDDEN, "top": V.TOP}

# (zone visibility, whose zone from the viewer's seat) -> sight
SIGHTS = {
    ("public", "shared"): V.FACE_UP, ("public", "mine"): V.ALL, ("public", "other"): V.FACE_UP,
    ("owner", "shared"): V.COUNT, ("owner", "mine"): V.ALL, ("owner", "other"): V.COUNT,
    ("hidden", "shared"): V.COUNT, ("hidden", "mine"): V.COUNT, ("hidden", "other"): V.COUNT,
    ("top", "shared"): V.TOP_CARD, ("top", "mine"): V.TOP_CARD, ("top", "other"): V.TOP_CARD,
}

# cards C1 (face down) and C2 (face up), bottom to top; (sight, shuffled) -> zone view
DOWN_UP = {
    (V.COUNT, False): {"count": 2}, (V.COUNT, True): {"count": 2},
    (V.TOP_CARD, False): {"count": 2, "top": "C2"}, (V.TOP_CARD, True): {"count": 2, "top": None},
    (V.FACE_UP, False): [None, "C2"], (V.FACE_UP, True): {"count": 2, "cards": ["C2"]},
    (V.ALL, False): ["C1", "C2"], (V.ALL, True): {"count": 2, "cards": ["C1", "C2"]},
}
# the same, C2 face up under C1 face down: a face-down top card is never named
UP_DOWN = {
    (V.COUNT, False): {"count": 2}, (V.COUNT, True): {"count": 2},
    (V.TOP_CARD, False): {"count": 2, "top": None}, (V.TOP_CARD, True): {"count": 2, "top": None},
    (V.FACE_UP, False): ["C2", None], (V.FACE_UP, True): {"count": 2, "cards": ["C2"]},
    (V.ALL, False): ["C2", "C1"], (V.ALL, True): {"count": 2, "cards": ["C1", "C2"]},
}


def game(players: int = 2) -> interpreter.Game:
    return interpreter.game_from_text(textwrap.dedent(SPEC), players=players)


def arrange(state: State, z: int, cards: list[tuple[str, int]], shuffled: bool) -> None:
    """Put the named cards (name, face) into zone ``z``, bottom to top."""
    names = state.game.cards.names
    for name, face in cards:
        move_card(state, names.index(name), z, face)
    state.shuffled[z] = shuffled


def relation(owner: int, viewer: int) -> str:
    return "shared" if owner < 0 else ("mine" if owner == viewer else "other")


def zone_cases(players: int) -> list[tuple[int, str, int]]:
    """(zone instance, visibility name, owner) of every zone but the store."""
    link = game(players).link
    out = []
    for name, zone in link.zone_defs.items():
        if name != "store":
            base = link.zone_base[name]
            owners = range(players) if zone.per == "player" else [-1]
            out += [(base + max(o, 0), zone.visibility, o) for o in owners]
    return out


def family_view(view: dict[str, Any], state: State, z: int) -> Any:
    link = state.game.link
    family = link.zone_family[z]
    entry = view["zones"][family]
    return entry[z - link.zone_base[family]] if link.zone_defs[family].per == "player" else entry


# ---------------------------------------------------------------- the table


@pytest.mark.parametrize(("kind", "whose"), sorted(SIGHTS))
def test_sight_table(kind, whose):
    owner = {"shared": -1, "mine": 1, "other": 0}[whose]
    assert V.zone_sight(VISIBILITY[kind], owner, 1) == SIGHTS[kind, whose]


def test_nobody_sees_as_a_stranger():
    """A seat nobody has (the public viewer) sees what a player sees of others' zones."""
    link = game(3).link
    for viewer in (3, 4, 99, -7):
        assert V.zone_sights(link, viewer) == tuple(
            V.zone_sight(v, o, 3) for v, o in zip(link.zone_visibility, link.zone_owner))
    assert V.zone_sights(link, 1) is V.zone_sights(link, 1)  # cached per game and seat


@pytest.mark.parametrize("table", [DOWN_UP, UP_DOWN], ids=["down-up", "up-down"])
@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("players", [2, 3])
def test_every_zone_kind_owner_facing_and_order(table, shuffled, players):
    cards = [("C1", 0), ("C2", 1)] if table is DOWN_UP else [("C2", 1), ("C1", 0)]
    g = game(players)
    for z, kind, owner in zone_cases(players):
        state = g.new_initial_state(0)
        arrange(state, z, cards, shuffled)
        ids = state.zones[z]
        for viewer in range(players + 1):  # the seats, then nobody's seat
            sight = SIGHTS[kind, relation(owner, viewer)]
            expected = table[sight, shuffled]
            assert V.zone_view(state, z, sight) == expected
            assert family_view(state.observation(viewer), state, z) == expected
            assert str(expected) in views.render_text(state, viewer)
            named = {state.game.cards.names[c] for c in V.visible_cards(state, viewer) & set(ids)}
            shown = expected if isinstance(expected, list) else expected.get("cards", [expected.get("top")])
            assert named == {n for n in shown if n is not None}


def test_empty_zones_show_a_count_and_no_top():
    state = game().new_initial_state(0)
    link = state.game.link
    assert V.zone_view(state, link.zone_base["stop"], V.TOP_CARD) == {"count": 0, "top": None}
    assert V.zone_view(state, link.zone_base["hid"], V.COUNT) == {"count": 0}
    assert V.zone_view(state, link.zone_base["pub"], V.FACE_UP) == []
    assert V.top_seen(state, link.zone_base["stop"]) is None


def test_addressed_events_reach_only_their_players():
    events = [{"type": "a"}, {"type": "b", "to": [1]}, {"type": "c", "to": [0, 2]}]
    assert [e["type"] for e in V.seen_events(events, 0)] == ["a", "c"]
    assert [e["type"] for e in V.seen_events(events, 1)] == ["a", "b"]
    assert [e["type"] for e in V.seen_events(events, 3)] == ["a"]


# ---------------------------------------------------------------- everyone uses it


def test_views_and_sampling_take_the_rule_from_the_module():
    assert views.visible_cards is V.visible_cards
    assert sampling.visible_cards is V.visible_cards


def test_samples_keep_exactly_the_cards_the_module_says_are_seen():
    g = interpreter.load_game(str(ROOT / "games" / "highjack.yaml"), players=4)
    rng = random.Random(3)
    state = g.new_initial_state(3)
    checked = 0
    while not state.is_terminal() and checked < 40:
        for p in range(4):
            seen = V.visible_cards(state, p)
            sample = sampling.sample_consistent(state, p, checked)
            assert all(sample.loc[c] == state.loc[c] and sample.face[c] == state.face[c] for c in seen)
            assert V.visible_cards(sample, p) == seen
            assert sample.observation(p) == state.observation(p)
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))


def test_the_module_imports_no_engine_stage():
    source = (ROOT / "interpreter" / "visibility.py").read_text()
    for stage in ("views", "game", "flow", "link", "effects"):
        assert f"from .{stage} import" not in source and f"from . import {stage}" not in source
