"""Option bounds that depend on the player count or on other options.

`min:` and `max:` of an `int` or `number` option may be a number or an expression of
`num_players` and other options (like `auto:`). Such a bound is checked when a game is loaded
(with its player count and every option resolved), and the error names the value, the bound,
the player count and the bound's rule.
"""

from __future__ import annotations

import pytest

import interpreter
from rulespec import SpecError, compile_text
from rulespec.describe import describe
from tests.support import loader

SPEC = """\
rulespec: 1
game: {name: Bounds, players: {min: 2, max: 8}}
options:
  decks:
    type: int
    default: auto
    auto: 1 if num_players <= 4 else 2
    min: (num_players + 3) // 4
    max: 4
  hand:
    type: int
    default: 3
    min: 1
    max: 15 * option.decks // num_players
cards:
  decks: option.decks
  list:
    - {name: card, copies: 15}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
round:
  setup:
    - move all cards to deck face down
    - deal option.hand from deck to hand
  turn: [pass]
  end_when: turn >= 1
match:
  end_when: round >= 1
"""


load = loader(SPEC, text=True)


def test_a_bound_of_num_players_refuses_a_value_below_it_and_says_why():
    assert load(8, decks=2).options["decks"] == 2
    assert load(4, decks=1).options["decks"] == 1
    with pytest.raises(interpreter.OptionError) as error:
        load(8, decks=1)
    assert str(error.value) == "option 'decks': 1 is below the minimum 2 for 8 players (min: (num_players + 3) // 4)"


def test_a_bound_may_read_other_options_including_auto_values():
    # decks is auto: 2 for 5 players, so at most 15 * 2 // 5 = 6 cards each
    assert load(5, hand=6).options == {"decks": 2, "hand": 6}
    with pytest.raises(interpreter.OptionError) as error:
        load(5, hand=7)
    assert str(error.value) == ("option 'hand': 7 is above the maximum 6 for 5 players "
                                "(max: 15 * option.decks // num_players)")
    assert load(5, decks=3, hand=9).options == {"decks": 3, "hand": 9}


def test_the_constant_bounds_still_apply_first():
    with pytest.raises(interpreter.OptionError) as error:
        load(2, decks=5)
    assert str(error.value) == "option 'decks': 5 is above the maximum 4"


def test_a_default_outside_its_bound_is_reported_as_the_default():
    with pytest.raises(interpreter.OptionError) as error:
        load(6, decks=1)
    assert "below the minimum 2 for 6 players" in str(error.value)
    text = SPEC.replace("default: auto\n    auto: 1 if num_players <= 4 else 2\n", "default: 1\n")
    with pytest.raises(interpreter.OptionError) as error:
        interpreter.game_from_text(text, players=6)
    assert str(error.value) == ("option 'decks': the default 1 is below the minimum 2 for 6 players "
                                "(min: (num_players + 3) // 4)")


def test_a_bound_may_use_only_num_players_and_options_and_must_be_a_number():
    bad = SPEC.replace("min: (num_players + 3) // 4", "min: count(cards)")
    with pytest.raises(SpecError) as error:
        compile_text(bad, "bad.yaml")
    assert "an option's `min` can only use num_players and other options, not 'cards'" in str(error.value)
    bad = SPEC.replace("min: (num_players + 3) // 4", "min: \"'two'\"")
    with pytest.raises(SpecError) as error:
        compile_text(bad, "bad.yaml")
    assert "the min of option 'decks'" in str(error.value)


def test_describe_shows_a_bound_rule():
    text = describe(compile_text(SPEC, "bounds.yaml"))
    row = next(line for line in text.splitlines() if line.startswith("| `decks` |"))
    assert "the number of players" in row.split("|")[4]


def test_only_int_and_number_options_take_a_bound_rule():
    bad = SPEC.replace("options:\n", "options:\n  fast: {type: bool, default: false, min: num_players}\n")
    with pytest.raises(SpecError) as error:
        compile_text(bad, "bad.yaml")
    assert "option 'fast' is bool: only int and number options have a min" in str(error.value)
