"""Statements, each driven by a tiny inline spec: `emit` with payloads and an audience,
setting one item of a list, `if` with `elif`, `repeat ... until` over names its body binds, and
a loop of rules without decisions stopped at its bound."""

from __future__ import annotations

import re
import textwrap

import pytest

import interpreter
from interpreter import RuleError
from rulespec import SpecError
from tests.support import CARD_GAME, TINY, act, tiny_game, zone_names


def test_custom_events_with_payloads_and_audience():
    game = tiny_game(CARD_GAME, """
        round:
          setup:
            - deal 1 from pile to hand
            - emit dealt(to_seat=player(1), card=top(hand(player(1)))) to player(1)
            - emit announce(cards=count(pile))
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    secret = [e for e in state.events if e["type"] == "dealt"][0]
    assert secret["card"] == zone_names(state, "hand", 1)[0] and secret["to"] == [1]
    assert all(e["type"] != "dealt" for e in state.observation(0)["events"])
    assert any(e["type"] == "dealt" for e in state.observation(1)["events"])
    assert {"type": "announce", "cards": 6} in state.events


def test_a_rule_loop_without_decisions_is_an_error_not_a_hang():
    game = tiny_game("""
        variables: {x: {type: int, initial: 0}}
        round:
          turn:
            - repeat: [x += 1]
              until: x < 0
              max: 50
            - end game
    """)
    with pytest.raises(RuleError, match="repeat"):
        game.new_initial_state(0)

# ---------------------------------------------------------------- setting one item of a list

_ITEMS = """
variables:
  pits: {type: value, initial: "[4, 4, 4]"}
  names: {type: players, initial: "[player(0), player(1)]"}
  n: {type: int, initial: 0}
round:
  first: player(0)
  turn:
    - choose:
        - action: sow
          label: sow
          do:
            - let before = pits
            - pits[1] += pits[0]
            - pits[0] = 0
            - pits[-1] -= 1
            - emit sown(before=before, after=pits)
        - action: swap
          label: swap
          do: ["names[0] = player(1)"]
        - action: far
          label: far
          do: ["pits[INDEX] = 1"]
    - n += 1
    - if: n >= 2
      then: [end game]
match: {}
"""


def test_an_item_of_a_list_variable_can_be_set():
    """`pits[1] += pits[0]`, `pits[0] = 0`, `pits[-1] -= 1`; a `let` holding the list before
    keeps its value (a list variable gets a new list, never a shared one)."""
    game = tiny_game(_ITEMS.replace("INDEX", "1"))
    state = game.new_initial_state(0)
    act(state, "sow")
    assert state.g[0] == [0, 8, 3]
    (event,) = [e for e in state.events if e["type"] == "sown"]
    assert event["before"] == [4, 4, 4] and event["after"] == [0, 8, 3]
    act(state, "swap")
    assert state.g[1] == [1, 1]


def test_setting_an_item_outside_the_list_is_a_rule_error():
    game = tiny_game(_ITEMS.replace("INDEX", "3"))
    state = game.new_initial_state(0)
    with pytest.raises(RuleError, match=r"index 3 is outside 'pits' \(3 items\)"):
        act(state, "far")


@pytest.mark.parametrize("old, new, message", [
    ('"pits[INDEX] = 1"', '"n[0] = 1"', "only a list's items can be set: 'n' is a whole number"),
    ('"pits[INDEX] = 1"', '"pits[\'a\'] = 1"', "an index must be a whole number, not text"),
    ('"names[0] = player(1)"', '"names[0] = 3"', "the value of 'names[...]' must be a player"),
])
def test_setting_an_item_is_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _ITEMS))
    assert old in text
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text.replace(old, new, 1))

# ---------------------------------------------------------------- elif

_ELIF = """
variables:
  n: {type: int, initial: 0}
  grade: {type: str, initial: "'-'"}
round:
  turn:
    - choose:
        action: pick
        for: k in [0, 1, 2, 3]
        label: "{k}"
        do:
          - if: k == 0
            then: [grade = "zero"]
            elif:
              - if: k == 1
                then: [grade = "one"]
              - if: k <= 2
                then: [grade = "two"]
            else: [grade = "many"]
    - end game
match: {}
"""


@pytest.mark.parametrize("k, grade", [(0, "zero"), (1, "one"), (2, "two"), (3, "many")])
def test_elif_tries_its_conditions_in_order_and_else_runs_when_none_holds(k, grade):
    state = tiny_game(_ELIF).new_initial_state(0)
    act(state, str(k))
    assert state.observation(0, events=False)["variables"]["grade"] == grade


def test_an_elif_condition_is_checked_at_its_own_position():
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _ELIF)).replace("k <= 2", "k <= 'a'")
    with pytest.raises(SpecError) as info:
        interpreter.game_from_text(text, path="elif.yaml")
    line = text.splitlines().index("              - if: k <= 'a'") + 1
    assert f"elif.yaml:{line}:" in str(info.value)


def test_an_elif_entry_needs_if_and_then():
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _ELIF)).replace('then: [grade = "one"]', "")
    with pytest.raises(SpecError, match="then"):
        interpreter.game_from_text(text, path="elif.yaml")

# ---------------------------------------------------------------- let names in until

_UNTIL = """
cards:
  list: [{name: a, n: 1}, {name: b, n: 2}, {name: c, n: 3}, {name: d, n: 4}]
zones:
  pile: {visibility: hidden}
  table: {visibility: public}
variables:
  drawn: {type: int, initial: 0}
round:
  setup:
    - repeat:
        - let top_card = top(pile)
        - move top pile to table
        - drawn += 1
      until: top_card.n >= LIMIT
  turn:
    - repeat:
        - let k = drawn
        - choose:
            action: more
            label: more
            do: [drawn += 1]
      until: k >= 6
    - end game
match: {}
"""


def test_until_sees_the_names_its_body_binds_with_let():
    """A `repeat` without a decision (a closure) and one with a decision in its body (frames):
    both stop on a name bound by `let` in the body."""
    game = tiny_game(_UNTIL.replace("LIMIT", "3"))
    state = game.new_initial_state(0)
    view = state.observation(0, events=False)
    # cards are in list order on the pile, so top(pile) is the last listed: d (4) stops at once
    assert view["variables"]["drawn"] == 1
    for _ in range(5):
        act(state, "more")
        state = game.state_from_json(state.to_json())  # mid-loop, saved and loaded
    assert state.observation(0, events=False)["variables"]["drawn"] == 6
    act(state, "more")
    assert state.is_terminal()


def test_a_name_bound_inside_a_nested_block_of_the_body_is_not_seen_by_until():
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _UNTIL.replace("LIMIT", "3"))).replace(
        "        - let top_card = top(pile)", "        - if: true\n          then: [let top_card = top(pile)]")
    with pytest.raises(SpecError, match="top_card"):
        interpreter.game_from_text(text)
