"""Reversi (games/reversi.yaml): the rules of docs/rulings-reversi.md, then move-for-move
agreement with OpenSpiel's `othello` on 200 random games.

Positions are written as OpenSpiel draws them: 8 strings, row 0 at the top, `x` for black
(seat 0), `o` for white (seat 1), `-` for an empty cell; an action id is row * 8 + col.
Rule tests set up a position with the test helpers (tests/support.py), then play through
the public API.
"""

from __future__ import annotations

import random

import pytest

import interpreter
from tests.conftest import GAMES
from tests.support import lockstep, place_piece, redecide

PASS = 64
SYMBOL = {0: "x", 1: "o"}
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return interpreter.load_game(str(GAMES / "reversi.yaml"))


def cell_name(row: int, col: int) -> str:
    """Our name of OpenSpiel's (row, col): our rows are counted from the bottom."""
    return "abcdefgh"[col] + str(8 - row)


def board(state: interpreter.State) -> list[str]:
    cells = state.observation(0, events=False)["board"]
    rows = []
    for r in range(8):
        row = ""
        for c in range(8):
            disc = cells.get(cell_name(r, c))
            row += "-" if disc is None else SYMBOL[disc["owner"]]
        rows.append(row)
    return rows


def position(game: interpreter.Game, rows: list[str]) -> interpreter.State:
    """A new state with black to move on the given board (the opening discs cleared)."""
    state = game.new_initial_state(0)
    assert state.current_player() == 0
    for cell, piece in enumerate(state.cell_piece):
        if piece >= 0:
            state.cell_piece[cell] = -1
            state.piece_cell[piece] = -1
    used = {0: 0, 1: 0}
    for r, line in enumerate(rows):
        assert len(line) == 8
        for c, mark in enumerate(line):
            if mark in "xo":
                seat = "xo".index(mark)
                place_piece(state, seat * 64 + used[seat], cell_name(r, c))  # pieces: seat 0's, then seat 1's
                used[seat] += 1
    redecide(state)
    return state


def empty_board() -> list[list[str]]:
    return [["-"] * 8 for _ in range(8)]


def rows_of(grid: list[list[str]]) -> list[str]:
    return ["".join(row) for row in grid]


# ------------------------------------------------------------------ R1-R3: the start


def test_initial_position_black_first_four_moves(game):
    state = game.new_initial_state(0)
    assert game.num_players == 2 and game.num_distinct_actions == 65
    assert board(state) == ["--------"] * 3 + ["---ox---", "---xo---"] + ["--------"] * 3
    assert state.current_player() == 0
    assert state.legal_actions() == [19, 26, 37, 44]
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["d3", "c4", "f5", "e6"]
    assert game.describe_action(PASS).startswith("pass")


def test_first_move_flips_and_white_replies(game):
    state = game.new_initial_state(0)
    state.apply_action(19)  # d3: flanks (3,3) with (4,3)
    assert board(state)[2:6] == ["---x----", "---xx---", "---xo---", "--------"]
    assert state.current_player() == 1
    assert state.legal_actions() == [18, 20, 34]  # c3, e3, c5
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["c3", "e3", "c5"]


# ------------------------------------------------------------------ R4-R5: legal moves and flips


@pytest.mark.parametrize("dr, dc", DIRECTIONS)
def test_a_flip_in_each_direction(game, dr, dc):
    # black plays (3,3) next to a run of two white discs along (dr, dc) closed by a black disc
    grid = empty_board()
    grid[3 + dr][3 + dc] = grid[3 + 2 * dr][3 + 2 * dc] = "o"
    grid[3 + 3 * dr][3 + 3 * dc] = "x"
    state = position(game, rows_of(grid))
    assert 27 in state.legal_actions()
    state.apply_action(27)
    grid[3][3] = grid[3 + dr][3 + dc] = grid[3 + 2 * dr][3 + 2 * dc] = "x"
    assert board(state) == rows_of(grid)


def test_one_move_flips_every_flanked_run_and_nothing_else(game):
    state = position(game, [
        "---x--x-",
        "-x-o-o--",
        "--ooo---",
        "xoo-ooox",
        "--ooo---",
        "-o-x-o--",
        "x-----o-",
        "-o-----x",
    ])
    # runs of 1, 2 and 3 discs on all 8 rays of (3,3); (7,1) is on none of them
    assert 27 in state.legal_actions()
    state.apply_action(27)
    assert board(state) == [
        "---x--x-",
        "-x-x-x--",
        "--xxx---",
        "xxxxxxxx",
        "--xxx---",
        "-x-x-x--",
        "x-----x-",
        "-o-----x",
    ]
    # white's lone disc cannot be flanked and flanks nothing: the game is over
    assert state.is_terminal() and state.scores() == [25, 1] and state.returns() == [1.0, -1.0]


def test_a_run_must_be_closed_by_an_own_disc(game):
    state = position(game, [
        "xoo-----",  # (0,3): o o then x: a move
        "--------",
        "oo------",  # (2,2): o o then the edge: not a move
        "--------",
        "---o----",  # (3,3) and the others around it: o then an empty cell: not a move
        "--------",
        "--------",
        "------ox",  # (7,5): o then x: a move
    ])
    assert state.legal_actions() == [3, 61]
    assert state.action_to_string(61) == "f8"


# ------------------------------------------------------------------ R6: passing


def test_pass_only_when_no_move_and_the_opponent_has_one(game):
    state = position(game, ["xo------"] + ["--------"] * 6 + ["------ox"])
    assert state.legal_actions() == [2, 61]  # c1 and f8
    state.apply_action(2)
    # white cannot flank anything (its only disc is next to black's corner); black can still
    # play f8: white must pass, and pass is its only action
    assert state.current_player() == 1 and state.legal_actions() == [PASS]
    assert state.action_to_string(PASS) == "pass"
    state.apply_action(PASS)
    assert state.current_player() == 0 and state.legal_actions() == [61]
    state.apply_action(61)
    assert board(state)[0] == "xxx-----" and board(state)[7] == "-----xxx"
    # then nobody can move: the game is over, black has every disc
    assert state.is_terminal() and state.scores() == [6, 0] and state.returns() == [1.0, -1.0]


# ------------------------------------------------------------------ R7-R8: the end and the score


def test_the_game_ends_when_neither_player_can_move(game):
    state = position(game, ["xo------"] + ["--------"] * 6 + ["-----ooo"])
    assert state.legal_actions() == [2]
    state.apply_action(2)  # x x x on the top row, o o o on the bottom: no move for either
    assert state.is_terminal() and state.legal_actions() == []
    assert state.scores() == [3, 3] and state.returns() == [0.0, 0.0]


def test_more_discs_wins(game):
    state = position(game, ["xo------"] + ["--------"] * 7)
    state.apply_action(2)  # white's last disc flipped: no move for anyone
    assert state.is_terminal() and state.scores() == [3, 0]
    assert state.returns() == [1.0, -1.0] and state.winners() == [0]


def test_a_full_board_ends_the_game_and_returns_are_by_disc_count(game):
    rng = random.Random(5)
    for seed in range(3):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        counts = [sum(row.count(SYMBOL[p]) for row in board(state)) for p in range(2)]
        assert state.scores() == counts
        expected = [0.0, 0.0] if counts[0] == counts[1] else ([1.0, -1.0] if counts[0] > counts[1] else [-1.0, 1.0])
        assert state.returns() == expected
        assert len(state.history) <= game.max_game_length == 128


# ------------------------------------------------------------------ against OpenSpiel


def test_reversi_matches_openspiel_othello_on_200_games():
    from tests.conftest import require

    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "reversi.yaml"))
    theirs = pyspiel.load_game("othello")
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 65
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    steps = passes = 0
    outcomes = set()
    for seed in range(200):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        for player, action, _ in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            assert a.action_to_string(player, action) == b.action_to_string(player, action)
            passes += action == PASS
            steps += 1
        assert a.returns() == pytest.approx(b.returns()), f"seed {seed}"
        outcomes.add(tuple(b.returns()))
    # the random games went through passes and every kind of ending
    assert steps > 10000 and passes > 0
    assert outcomes == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
