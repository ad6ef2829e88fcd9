"""Dots and Boxes (games/dots_and_boxes.yaml): the rules of docs/rulings-dots-and-boxes.md,
then move-for-move agreement with OpenSpiel's `dots_and_boxes` on 250 random games over
four board sizes (a few seconds).

Ids are OpenSpiel's: on the default 2 x 2 board, the horizontal lines 0..5 (row by row from
the top, two per row), then the vertical lines 6..11 (row by row, three per row):

    .-0-.-1-.
    6   7   8
    .-2-.-3-.
    9  10  11
    .-4-.-5-.
"""

from __future__ import annotations

import functools
import random

import pytest

import interpreter
from tests import support
from tests.conftest import GAMES, require
from tests.support import loader, lockstep

# the sides of the four boxes of the 2 x 2 board: top, bottom, left, right
TOP_LEFT = (0, 2, 6, 7)
TOP_RIGHT = (1, 3, 7, 8)
BOTTOM_LEFT = (2, 4, 9, 10)


load = loader(GAMES / "dots_and_boxes.yaml", players=2)


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return load()


play = functools.partial(support.play, legal=False)  # (the state's own check only)


def boxes(state: interpreter.State) -> list[int]:
    return [p["score"] for p in state.observation(0, events=False)["players"]]


# ------------------------------------------------------------------ D1-D2: ids, labels, start


def test_defaults_ids_labels_and_the_first_player(game):
    assert game.options == {"num_rows": 2, "num_cols": 2, "utility_margin": False}
    assert game.num_players == 2 and game.num_distinct_actions == 12
    state = game.new_initial_state(0)
    assert state.current_player() == 0 and state.legal_actions() == list(range(12))
    assert [state.action_to_string(a) for a in (0, 1, 2, 5, 6, 8, 9, 11)] == [
        "P1(h,0,0)", "P1(h,0,1)", "P1(h,1,0)", "P1(h,2,1)",
        "P1(v,0,0)", "P1(v,0,2)", "P1(v,1,0)", "P1(v,1,2)"]
    play(state, 0)
    assert state.current_player() == 1 and state.action_to_string(1) == "P2(h,0,1)"
    assert 0 not in state.legal_actions() and len(state.legal_actions()) == 11


def test_ids_on_a_wider_board():
    game = load(num_rows=1, num_cols=3)  # 2 x 3 horizontal lines, then 1 x 4 vertical
    assert game.num_distinct_actions == 10
    state = game.new_initial_state(0)
    assert [state.action_to_string(a) for a in (2, 3, 5, 6, 9)] == [
        "P1(h,0,2)", "P1(h,1,0)", "P1(h,1,2)", "P1(v,0,0)", "P1(v,0,3)"]


# ------------------------------------------------------------------ D3-D5: turns and boxes


def test_a_line_closing_no_box_passes_the_turn(game):
    state = play(game.new_initial_state(0), 0, 2, 6)  # three sides of the top-left box
    assert state.current_player() == 1 and boxes(state) == [0, 0]


def test_a_line_closing_a_box_scores_it_and_keeps_the_turn(game):
    state = play(game.new_initial_state(0), 0, 2, 6)  # seat 1 is to move
    play(state, 7)  # the fourth side of the top-left box
    assert boxes(state) == [0, 1] and state.current_player() == 1
    assert state.observation(0, events=False)["board"] == {"a2": {"piece": "box", "owner": 1, "id": 4}}
    play(state, 1)  # no box: the turn passes
    assert state.current_player() == 0 and boxes(state) == [0, 1]


def test_a_line_closing_two_boxes_scores_both(game):
    # the middle vertical line 7 is a side of both top boxes
    state = play(game.new_initial_state(0), 0, 2, 6, 1, 3, 8)  # seat 0 to move
    assert state.current_player() == 0 and boxes(state) == [0, 0]
    play(state, 7)
    assert boxes(state) == [2, 0] and state.current_player() == 0


def test_a_box_closed_in_a_chain_keeps_the_turn_again(game):
    state = play(game.new_initial_state(0), 0, 6, 9, 4, 2)  # seat 1 to move
    play(state, 7)  # the top-left box
    assert boxes(state) == [0, 1] and state.current_player() == 1
    play(state, 10)  # and the bottom-left one
    assert boxes(state) == [0, 2] and state.current_player() == 1


# ------------------------------------------------------------------ D6-D7: the end, returns


def test_the_game_ends_when_every_line_is_drawn(game):
    state = game.new_initial_state(0)
    for action in range(11):
        play(state, action)
        assert not state.is_terminal()
    assert state.returns() == [0.0, 0.0]  # no returns before the end
    play(state, 11)
    assert state.is_terminal() and state.legal_actions() == []
    assert sum(boxes(state)) == 4


# seat 0 draws 6 (no box); seat 1 then closes all four boxes: 7, 8, and 10 (two at once)
SWEEP = (0, 1, 2, 3, 4, 5, 9, 11, 6, 7, 8, 10)


def test_more_boxes_wins_plus_one_minus_one_a_tie_is_zero(game):
    state = play(game.new_initial_state(0), *SWEEP)
    assert state.is_terminal() and boxes(state) == [0, 4]
    assert state.returns() == [-1.0, 1.0]
    tie = play(game.new_initial_state(0), *range(12))
    assert boxes(tie) == [2, 2] and tie.returns() == [0.0, 0.0]


def test_utility_margin_returns_the_difference_in_boxes():
    game = load(utility_margin=True)
    assert (game.min_utility, game.max_utility) == (-4, 4)
    state = play(game.new_initial_state(0), *SWEEP)
    assert state.returns() == [-4.0, 4.0]
    one = play(load(num_rows=1, num_cols=1, utility_margin=True).new_initial_state(0), 0, 1, 2, 3)
    assert one.returns() == [-1.0, 1.0]  # seat 1 drew the fourth line


# ------------------------------------------------------------------ against OpenSpiel


CASES = [
    ({}, 120),  # OpenSpiel's defaults
    ({"num_rows": 1, "num_cols": 1}, 30),
    ({"num_rows": 3, "num_cols": 4, "utility_margin": True}, 60),
    ({"num_rows": 2, "num_cols": 3, "utility_margin": True}, 40),
]


@pytest.mark.parametrize("options, games", CASES)
def test_dots_and_boxes_matches_openspiel_move_for_move(options, games):
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "dots_and_boxes.yaml"), players=2, options=options)
    theirs = pyspiel.load_game("dots_and_boxes", options)
    assert ours.num_distinct_actions() == theirs.num_distinct_actions()
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    kept = 0
    results = set()
    for seed in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        previous = -1  # no mover yet
        for player, _, legal in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            assert [a.action_to_string(player, x) for x in legal] == \
                [b.action_to_string(player, x) for x in legal], f"seed {seed}"
            kept += player == previous  # the last mover moves again
            previous = player
        assert a.returns() == pytest.approx(b.returns()), f"seed {seed}"
        results.add(tuple(b.returns()))
    if options.get("num_rows", 2) > 1:
        assert kept > games  # boxes were closed and turns kept
    if not options:
        assert results == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}  # wins, losses, ties
    elif options.get("num_rows") == 1:
        assert results == {(-1.0, 1.0)}  # one box: seat 1 always draws the fourth line
