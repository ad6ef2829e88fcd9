"""Cards and zones, each driven by a tiny inline spec: card tables (families, copies, decks),
where cards start, deal, draw, move, shuffle and flip, what each kind of zone shows, stacks of
cards on cells and areas off the board, and moving a whole zone as its cards one by one."""

from __future__ import annotations

import random

import interpreter
from tests.conftest import ROOT
from tests.support import CARD_GAME, act, tiny_game, zone_names

# ---------------------------------------------------------------- card tables


def test_card_table_attributes_copies_families_and_decks():
    game = tiny_game("""
        options: {decks: {type: int, default: 2, min: 1, max: 3}}
        cards:
          decks: option.decks
          name: "{colour} {rank}"
          list:
            - {family: {colour: [Red, Blue], rank: "1..3"}, copies: 2}
        zones: {deck: {}}
        round: {turn: [end game]}
    """)
    table = game.cards
    assert table.count == 2 * 3 * 2 * 2  # colours x ranks x copies x decks
    assert table.kinds == 6  # copies and decks share a kind
    assert table.kind_names == ("Red 1", "Red 2", "Red 3", "Blue 1", "Blue 2", "Blue 3")
    assert table.attrs["rank"][:4] == (1, 1, 2, 2)
    assert tiny_game("""
        options: {decks: {type: int, default: 2, min: 1, max: 3}}
        cards:
          decks: option.decks
          name: "{colour} {rank}"
          list:
            - {family: {colour: [Red, Blue], rank: "1..3"}, copies: 2}
        zones: {deck: {}}
        round: {turn: [end game]}
    """, options={"decks": 1}).cards.count == 12


def test_all_cards_start_in_the_first_shared_zone_face_by_zone():
    game = tiny_game("""
        cards: {list: [{name: A, copies: 3}, {name: B}]}
        zones:
          hand: {per: player, visibility: owner}
          pile: {visibility: hidden}
        round: {turn: [end game]}
    """)
    state = game.new_initial_state(0)
    assert zone_names(state, "pile") == ["A", "A", "A", "B"]


def test_deal_draw_move_and_order():
    game = tiny_game(CARD_GAME, """
        round:
          setup:
            - deal 2 from pile to hand
            - draw 1 from pile to table
            - move top pile to table
            - move bottom pile to table at bottom
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    # unshuffled pile C1..C8 (C8 on top); dealing starts left of the dealer (seat 0 deals)
    assert zone_names(state, "hand", 1) == ["C8", "C6"]
    assert zone_names(state, "hand", 0) == ["C7", "C5"]
    assert zone_names(state, "table") == ["C1", "C4", "C3"]
    assert zone_names(state, "pile") == ["C2"]


def test_draw_stops_when_the_pile_is_empty():
    game = tiny_game(CARD_GAME, """
        round:
          setup: [draw 20 from pile to table]
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    assert len(zone_names(state, "table")) == 8 and zone_names(state, "pile") == []


def test_shuffle_is_seeded_and_reshuffle_mixes_returned_cards():
    spec = """
        round:
          setup: [shuffle pile, draw 8 from pile to table]
          turn: [end game]
    """
    orders = {tuple(zone_names(tiny_game(CARD_GAME, spec).new_initial_state(seed), "table")) for seed in range(8)}
    assert len(orders) > 4  # different seeds, different orders
    a = zone_names(tiny_game(CARD_GAME, spec).new_initial_state(3), "table")
    b = zone_names(tiny_game(CARD_GAME, spec).new_initial_state(3), "table")
    assert a == b  # same seed, same order


def test_visibility_owner_hidden_public_top_and_face_down():
    game = tiny_game(CARD_GAME, """
        round:
          setup:
            - deal 1 from pile to hand
            - deal 1 from pile to down
            - draw 2 from pile to discard
            - draw 1 from pile to table
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    view = state.observation(0)["zones"]
    assert view["pile"] == {"count": 1}
    assert view["hand"][0] == zone_names(state, "hand", 0) and view["hand"][1] == {"count": 1}
    assert view["down"][0] == zone_names(state, "down", 0)  # the owner sees their face-down card
    assert view["down"][1] == [None]  # others see a face-down card, not its name
    assert view["discard"] == {"count": 2, "top": zone_names(state, "discard")[-1]}
    assert view["table"] == zone_names(state, "table")


def test_flip_turns_cards_face_up():
    game = tiny_game(CARD_GAME, """
        round:
          setup: [deal 1 from pile to down, "flip down(player(1)) face up"]
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    assert state.observation(0)["zones"]["down"][1] == zone_names(state, "down", 1)

# ---------------------------------------------------------------- stacks on cells, areas off the board

_STACKS = """
cards:
  name: "{colour}"
  list:
    - {colour: white, copies: 3}
    - {colour: black, copies: 3}
board: {rows: 1, cols: 4}
zones:
  box: {visibility: public}
  point: {per: cell}
  bar: {per: player}
  home: {per: player}
define:
  mine(p): "'white' if p.seat == 0 else 'black'"
  owner_of(c): none if count(point(c)) == 0 else (player(0) if top(point(c)).colour == 'white' else player(1))
round:
  first: player(0)
  setup:
    - repeat: [move top box to point(cell('d1'))]
      until: count(box) == 3
    - repeat: [move top box to point(cell('a1'))]
      until: count(box) == 0
  turn:
    - choose:
        action: step
        for: c in cells if count(point(c)) > 0 and top(point(c)).colour == mine(current)
        label: "from {c}"
        do:
          - let to = cell(0, c.col + (1 if current.seat == 0 else -1))
          - if: to == none
            then: [move top point(c) to home(current)]
            elif:
              - if: count(point(to)) == 1 and owner_of(to) != current
                then: [move top point(to) to bar(left(current)), move top point(c) to point(to)]
              - if: count(point(to)) <= 1 or owner_of(to) == current
                then: [move top point(c) to point(to)]
    - if: count(home(current)) == 3
      then: [current.score = 1, end game]
match: {}
"""


def test_tokens_stack_on_a_cell_and_wait_in_areas_off_the_board():
    """Stacks are cards in a per-cell zone; a bar and a home are per-player zones: a lone
    token hit goes to its owner's bar, three tokens borne off win."""
    game = tiny_game(_STACKS)
    state = game.new_initial_state(0)
    view = state.observation(0, events=False)["zones"]
    assert view["point"] == {"a1": ["white", "white", "white"], "d1": ["black", "black", "black"]}
    act(state, "from a1")                                  # white: a1 -> b1
    act(state, "from d1")                                  # black: d1 -> c1
    act(state, "from b1")                                  # white hits the lone black on c1
    view = state.observation(0, events=False)["zones"]
    assert view["point"]["c1"] == ["white"] and view["bar"][1] == ["black"]
    assert view["point"]["a1"] == ["white", "white"]
    act(state, "from d1")                                  # black: d1 -> c1? white holds it alone: a hit
    view = state.observation(0, events=False)["zones"]
    assert view["point"]["c1"] == ["black"] and view["bar"][0] == ["white"]


def test_moving_a_whole_zone_ends_as_moving_its_cards_one_by_one():
    """``move_zone`` (`move all` of a zone) against ``move_cards`` of the zone's list (plus the
    rule that a shuffled zone moved whole into an empty one stays shuffled), from states met in
    Highjack games: every pair of zones, on top and at the bottom, the same zones, locations,
    faces, shuffled flags and end-check mark."""
    from interpreter.state import move_cards, move_zone

    game = interpreter.load_game(str(ROOT / "games" / "highjack.yaml"), players=4)
    rng = random.Random(5)
    zones = len(game.new_initial_state(0).zones)
    checked = 0
    for seed in range(4):
        state = game.new_initial_state(seed)
        for _ in range(rng.randrange(5, 60)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        for _ in range(60):
            src, dst, face, bottom = rng.randrange(zones), rng.randrange(zones), rng.randrange(2), rng.random() < 0.3
            whole, each = state.clone(), state.clone()
            whole.shuffled[src] = each.shuffled[src] = rng.random() < 0.5
            whole.dirty = each.dirty = False
            move_zone(whole, src, dst, face, bottom)
            keeps_shuffle = each.shuffled[src] and not each.zones[dst]
            move_cards(each, list(each.zones[src]), dst, face, bottom)
            if keeps_shuffle and len(each.zones[dst]) > 1:
                each.shuffled[dst] = True
            assert (whole.zones, whole.loc, whole.face, whole.shuffled, whole.dirty) == \
                (each.zones, each.loc, each.face, each.shuffled, each.dirty), (src, dst, face, bottom)
            checked += bool(state.zones[src]) and src != dst
    assert checked > 50
