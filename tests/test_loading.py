"""Loading a game, driven by tiny inline specs: the player count and options are checked, options
must meet the spec's requirements (the defaults too), and a spec may be given as a path object."""

from __future__ import annotations

import textwrap

import pytest

import interpreter
from rulespec import SpecError
from tests.conftest import ROOT
from tests.support import tiny_game


def test_player_count_and_options_are_checked():
    with pytest.raises(interpreter.OptionError, match="2 to 4"):
        tiny_game("round: {turn: [end game]}", players=7)
    with pytest.raises(interpreter.OptionError, match="did you mean 'rounds'"):
        tiny_game("""
            options: {rounds: {type: int, default: 1, min: 1, max: 9}}
            round: {turn: [end game]}
        """, options={"ronuds": 2})
    with pytest.raises(interpreter.OptionError, match="maximum"):
        tiny_game("""
            options: {rounds: {type: int, default: 1, min: 1, max: 9}}
            round: {turn: [end game]}
        """, options={"rounds": 20})

# ---------------------------------------------------------------- requirements on options

_REQUIRES = """
game:
  name: Tiny
  players: [2, 3]
  requires:
    - check: option.low < option.high
      message: low must be below high
    - check: num_players * option.low <= 6
      message: too many low cards for this table
options:
  low: {type: int, default: 1, min: 0, max: 9}
  high: {type: int, default: 5, min: 0, max: 9}
round:
  turn: [end game]
match:
  returns: {value: "1", min: 0, max: 1, sum: "2 if option.high == 5 else none"}
"""


@pytest.mark.parametrize("players, options, message", [
    (2, {"low": 5}, "low must be below high (2 players, low=5, high=5)"),
    (3, {"low": 3, "high": 9}, "too many low cards for this table (3 players, low=3, high=9)"),
])
def test_options_that_break_a_requirement_are_refused_with_its_message(players, options, message):
    text = textwrap.dedent(_REQUIRES)
    with pytest.raises(interpreter.OptionError) as info:
        interpreter.game_from_text(text, players=players, options=options)
    assert str(info.value) == message
    assert interpreter.game_from_text(text, players=2, options={"low": 3, "high": 9}).options["low"] == 3


def test_a_returns_sum_may_be_none_for_some_options():
    text = textwrap.dedent(_REQUIRES)
    assert interpreter.game_from_text(text).link.utility_bounds == (0.0, 1.0, 2.0)
    assert interpreter.game_from_text(text, options={"high": 6}).link.utility_bounds == (0.0, 1.0, None)


def test_the_default_options_must_meet_the_requirements():
    text = textwrap.dedent(_REQUIRES).replace("default: 1,", "default: 7,")
    with pytest.raises(SpecError, match="the default options break this requirement for 2 players: low must be below"):
        interpreter.game_from_text(text)


def test_a_spec_path_may_be_a_path_object():
    from pathlib import Path

    import pytest

    from rulespec import compile_file

    path = ROOT / "games" / "tictactoe.yaml"
    assert isinstance(path, Path)
    by_path = interpreter.load_game(path)
    by_text = interpreter.load_game(str(path))
    assert by_path.new_initial_state(3).to_json() == by_text.new_initial_state(3).to_json()
    assert compile_file(path).name == compile_file(str(path)).name
    with pytest.raises(TypeError, match="a file name is text or a path object, not int"):
        interpreter.load_game(7)  # type: ignore[arg-type]
