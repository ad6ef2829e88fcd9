"""Chance, each part driven by a tiny inline spec: explicit chance nodes for draws and coins,
`random` over numbers and cards (declared outcomes, labels, a list longer than declared),
single-outcome chance nodes, and outcome ids that are the numbers drawn."""

from __future__ import annotations

import re

import pytest

import interpreter
from interpreter import RuleError
from rulespec import SpecError
from tests.support import CARD_GAME, TINY, labels, tiny_game, zone_names

# ---------------------------------------------------------------- chance


def test_explicit_chance_nodes_for_draws_and_coins():
    game = tiny_game(CARD_GAME, """
        round:
          setup: [shuffle pile, draw 1 from pile to table]
          turn:
            - let coin = chance(0.25)
            - if: coin
              then: [current.score = 1]
            - end game
    """, explicit=True)
    state = game.new_initial_state(0)
    assert state.current_player() == interpreter.CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 8 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    state.apply_action(outcomes[2][0])
    assert zone_names(state, "table") == [game.cards.kind_names[outcomes[2][0]]]
    assert state.chance_outcomes() == [(0, 0.75), (1, 0.25)]
    state.apply_action(1)
    assert state.is_terminal() and state.scores() == [0, 1]

# ---------------------------------------------------------------- random over values, with explicit chance

_DIE = """
options:
  faces: {type: int, default: 6, min: 2, max: 20}
cards:
  list:
    - {name: Ace}
    - {name: King}
zones:
  table: {visibility: public}
variables:
  total: {type: int, initial: 0}
  n: {type: int, initial: 3}
round:
  first: player(0)
  turn:
    - choose:
        - action: roll
          label: roll
          do:
            - let face = random(range(1, option.faces + 1))
            - total += face
        - action: pick
          label: pick
          do:
            - let c = random(table)
            - emit picked(card=c)
        - action: grow
          label: grow
          do:
            - let k = random(range(0, n * 3))
            - n += k
    - if: total > 30
      then: [end game]
match: {}
"""


@pytest.mark.parametrize("faces", [6, 12])
def test_random_over_numbers_declares_its_outcomes_from_the_length_of_its_list(faces):
    """`random(range(1, option.faces + 1))` with explicit chance: one outcome per face, all
    declared (OpenSpiel's max_chance_outcomes, the mask) before the game starts."""
    game = tiny_game(_DIE, options={"faces": faces}, explicit=True)
    assert game.max_chance_outcomes == faces
    state = game.new_initial_state(0)
    state.apply_action(labels(state)["roll"])
    assert state.chance_outcomes() == [(i, pytest.approx(1 / faces)) for i in range(faces)]
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == [f"chance: {f}" for f in
                                                                                range(1, faces + 1)]
    assert len(state.legal_actions_mask()) == faces
    state.apply_action(faces - 1)
    assert state.g[0] == faces  # total: the last face


def test_random_over_cards_is_labelled_by_the_cards_names():
    game = tiny_game(_DIE, explicit=True)
    state = game.new_initial_state(0)
    state.apply_action(labels(state)["pick"])
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == ["chance: Ace", "chance: King"]


def test_random_over_a_list_longer_than_declared_is_a_rule_error():
    """A list whose length depends on the state (range(0, n * 3) with n a variable) cannot be
    declared before the game starts: drawing more outcomes than declared says so."""
    game = tiny_game(_DIE, explicit=True)
    state = game.new_initial_state(0)
    assert game.max_chance_outcomes == 6
    with pytest.raises(RuleError, match="has 9 outcomes here, more than the 6 the game declares"):
        state.apply_action(labels(state)["grow"])  # n = 3: 9 outcomes, more than the 6 declared

# ---------------------------------------------------------------- single-outcome chance nodes

_SINGLE = """
cards:
  name: "{c}"
  list:
    - {c: x, copies: 2}
    - {c: y}
zones:
  bag: {}
  hand: {per: player}
variables:
  v: {type: int, initial: 0}
round:
  setup:
    - shuffle bag
    - draw 3 from bag to hand(current)
    - let only = random([7])
    - v = only
  turn: [end game]
match: {}
"""


@pytest.mark.parametrize("keep, nodes", [(False, 1), (True, 4)])
def test_single_outcome_chance_nodes_are_kept_when_the_game_asks(keep, nodes):
    """Drawing y first leaves two x: one outcome left, so without the setting only the first
    draw asks; with it every draw and the one-value random() ask too, with probability 1."""
    base = "game: {name: Tiny, players: 2, keep_single_chance: true}\n" if keep else TINY
    state = tiny_game(_SINGLE, base=base, explicit=True).new_initial_state(0)
    asked = []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        asked.append(outcomes)
        state.apply_action(outcomes[-1][0])  # y first, when it is offered
    assert len(asked) == nodes
    assert asked[0] == [(0, 2 / 3), (1, 1 / 3)]
    if keep:
        assert asked[1:] == [[(0, 1.0)], [(0, 1.0)], [(0, 1.0)]]
    assert state.observation(0, events=False)["variables"]["v"] == 7
    assert zone_names(state, "hand", 0) == ["y", "x", "x"]


def test_a_state_waiting_on_a_single_outcome_survives_json():
    """Saved while waiting on a one-outcome draw or random(), a state loads back (the loader
    checks a pending event's outcomes with the game's own threshold)."""
    base = "game: {name: Tiny, players: 2, keep_single_chance: true}\n"
    game = tiny_game(_SINGLE, base=base, explicit=True)
    state = game.new_initial_state(0)
    waits = 0
    while state.is_chance_node():
        state = game.state_from_json(state.to_json())
        waits += 1
        state.apply_action(state.chance_outcomes()[-1][0])
    assert waits == 4


def test_random_numbers_may_use_their_values_as_outcome_ids():
    """OpenSpiel draws some numbers with the number as the outcome's id (a count of tricks
    from 1 up): `random(xs, ids='values')` does the same."""
    game = tiny_game("""
        options:
          most: {type: int, default: 5, min: 2, max: 9}
        variables:
          tricks: {type: int, initial: 0}
        round:
          setup:
            - let n = random(range(1, option.most + 1), ids='values')
            - tricks = n
          turn: [end game]
        match: {}
        """, explicit=True)
    assert game.max_chance_outcomes == 6
    state = game.new_initial_state(0)
    assert state.chance_outcomes() == [(k, 0.2) for k in range(1, 6)]
    assert state.action_to_string(3) == "chance: 3"
    state.apply_action(3)
    assert state.observation(0, events=False)["variables"]["tricks"] == 3


@pytest.mark.parametrize("call, message", [
    ("random(['a', 'b'], ids='values')", "needs a list of whole numbers"),
    ("random(range(1, 3), ids='value')", "random(ids=...) is 'values' or 'positions'"),
])
def test_random_ids_are_checked(call, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        tiny_game(f"""
            round:
              setup:
                - let n = {call}
              turn: [end game]
            match: {{}}
            """)
