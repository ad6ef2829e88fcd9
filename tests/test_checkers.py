"""Checkers (games/checkers.yaml): the rules of docs/rulings-checkers.md, then move-for-move
agreement with OpenSpiel's `checkers` on random games (200 on the default 8 x 8 board, more
on other sizes).

Positions are written as OpenSpiel draws them: one string per row, row 0 at the top, `o` a
white man (seat 0), `8` a white king, `+` a black man (seat 1), `*` a black king, `.` an empty
cell. Rule tests that need a given position load the same spec with another starting layout
(and, if asked, another first player or quiet-move count): only those starting values
change, never a rule.
"""

from __future__ import annotations

import random

import pytest

import interpreter
from tests.conftest import GAMES, require
from tests.support import lockstep, play

SPEC = (GAMES / "checkers.yaml").read_text(encoding="utf-8")
SETUP = """\
    - for: x in cells if (x.row + x.col) % 2 == 1
      do:
        - if: x.row < 3
          then: [place man of player(1) at x]
          else:
            - if: x.row >= option.rows - 3
              then: [place man of player(0) at x]
"""
FIRST = "first: player(0)"
QUIET = "quiet: {type: int, initial: 0}"
MARKS = {"o": ("man", 0), "8": ("king", 0), "+": ("man", 1), "*": ("king", 1)}
SYMBOL = {v: k for k, v in MARKS.items()}
UP_LEFT, UP_RIGHT, DOWN_RIGHT, DOWN_LEFT = range(4)
STEP, JUMP = 0, 1


def from_position(rows: list[str], first: int = 0, quiet: int = 0) -> interpreter.State:
    """A new match of the spec from the layout ``rows``, ``first`` to move, after ``quiet``
    actions without a capture. The board is len(rows) x len(rows[0])."""
    places = "".join(f"    - place {MARKS[m][0]} of player({MARKS[m][1]}) at cell({r}, {c})\n"
                     for r, line in enumerate(rows) for c, m in enumerate(line) if m != ".")
    text = SPEC
    for old, new in ((SETUP, places or "    - pass\n"), (FIRST, f"first: player({first})"),
                     (QUIET, f"quiet: {{type: int, initial: {quiet}}}")):
        assert text.count(old) == 1
        text = text.replace(old, new)
    game = interpreter.game_from_text(text, path="checkers.yaml",
                                      options={"rows": len(rows), "columns": len(rows[0])})
    return game.new_initial_state(0)


def board(state: interpreter.State) -> list[str]:
    """The board as OpenSpiel draws it (without the labels)."""
    game = state.game
    rows, cols = game.options["rows"], game.options["columns"]
    cells = state.observation(0, events=False)["board"]
    lines = []
    for r in range(rows):
        line = ""
        for c in range(cols):
            piece = cells.get("abcdefghijklmnopqrstuvwxyz"[c] + str(rows - r))
            line += "." if piece is None else SYMBOL[(piece["piece"], piece["owner"])]
        lines.append(line)
    return lines


def action(row: int, col: int, direction: int, kind: int, cols: int = 8) -> int:
    """OpenSpiel's id of a move."""
    return ((row * cols + col) * 4 + direction) * 2 + kind


def labels(state: interpreter.State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return interpreter.load_game(str(GAMES / "checkers.yaml"))


START = [
    ".+.+.+.+",
    "+.+.+.+.",
    ".+.+.+.+",
    "........",
    "........",
    "o.o.o.o.",
    ".o.o.o.o",
    "o.o.o.o.",
]


# ------------------------------------------------------------------ C1-C2: the start, ids, labels


def test_start_white_first_seven_moves(game):
    assert game.num_players == 2 and game.options == {"rows": 8, "columns": 8}
    assert game.seat_names == ["white", "black"]
    state = game.new_initial_state(0)
    assert board(state) == START
    assert state.current_player() == 0
    assert state.legal_actions() == [322, 336, 338, 352, 354, 368, 370]
    assert labels(state) == ["a3b4", "c3b4", "c3d4", "e3d4", "e3f4", "g3f4", "g3h4"]
    play(state, "c3d4")
    assert state.current_player() == 1
    assert labels(state) == ["b6c5", "b6a5", "d6e5", "d6c5", "f6g5", "f6e5", "h6g5"]


@pytest.mark.parametrize("rows, cols", [(8, 8), (10, 10), (8, 6), (6, 10)])
def test_action_ids_are_openspiels(rows, cols):
    game = interpreter.load_game(str(GAMES / "checkers.yaml"), options={"rows": rows, "columns": cols})
    assert game.num_distinct_actions == rows * cols * 4 * 2
    for r, c, d, t in [(0, 0, 0, 0), (rows - 1, cols - 1, 3, 1), (2, 1, 2, 1), (rows // 2, 1, 1, 0)]:
        assert game.describe_action(action(r, c, d, t, cols)) == (
            f"move x={'abcdefghijklmnopqrstuvwxyz'[c]}{rows - r} d={d} t={t}")


def test_starting_rows_on_other_boards():
    game = interpreter.load_game(str(GAMES / "checkers.yaml"), options={"rows": 10, "columns": 6})
    assert board(game.new_initial_state(0)) == [
        ".+.+.+", "+.+.+.", ".+.+.+", "......", "......", "......", "......",
        "o.o.o.", ".o.o.o", "o.o.o."]
    # fewer than six rows: the bands overlap and black takes the shared rows
    game = interpreter.load_game(str(GAMES / "checkers.yaml"), options={"rows": 4, "columns": 4})
    assert board(game.new_initial_state(0)) == [".+.+", "+.+.", ".+.+", "o.o."]


# ------------------------------------------------------------------ C3: steps


def test_men_step_diagonally_forward_only():
    state = from_position([
        "........",
        "........",
        "...+....",
        "........",
        "...o....",
        "........",
        "........",
        "........",
    ])
    # white's man goes up only: d4 -> c5, e5; black's man (after) goes down only
    assert state.legal_actions() == [action(4, 3, UP_LEFT, STEP), action(4, 3, UP_RIGHT, STEP)]
    assert labels(state) == ["d4c5", "d4e5"]
    play(state, "d4e5")
    assert board(state)[3:5] == ["....o...", "........"]
    # black's man goes down only; here it must take e5 (C5)
    assert state.current_player() == 1 and labels(state) == ["d6f4"]


def test_a_step_needs_an_empty_cell_on_the_board():
    state = from_position([
        "........",
        "........",
        "........",
        "........",
        "........",
        "+.o.....",
        ".o......",
        "o.......",
    ])
    # a1: b2 is white's own; b2: a3 holds black (no jump: off the board behind), c3 own
    assert labels(state) == ["c3b4", "c3d4"]


def test_kings_step_in_all_four_directions():
    state = from_position([
        "........",
        "........",
        "........",
        "...8....",
        "........",
        "........",
        "......*.",
        "........",
    ])
    assert labels(state) == ["d5c6", "d5e6", "d5e4", "d5c4"]
    play(state, "d5c4")
    assert labels(state) == ["g2f3", "g2h3", "g2h1", "g2f1"]


# ------------------------------------------------------------------ C4-C5: jumps, forced captures


def test_a_jump_captures_the_piece_jumped():
    state = from_position([
        ".......+",
        "........",
        "........",
        "..*.....",
        ".o......",
        "........",
        "........",
        "........",
    ])
    assert state.legal_actions() == [action(4, 1, UP_RIGHT, JUMP)]
    assert labels(state) == ["b4d6"]
    play(state, "b4d6")
    assert board(state)[2:5] == ["...o....", "........", "........"]  # c5's king is gone
    assert state.current_player() == 1


def test_no_jump_over_own_pieces_off_the_board_or_onto_a_piece():
    state = from_position([
        "........",
        "........",
        "........",
        "........",
        ".+.+....",
        "o.o.+...",
        "...o....",
        "........",
    ])
    # a3 over b4 to c5: a jump; c3 over b4 to a5: a jump; c3 over d4 to e5: a jump;
    # d2 over c3 (own): no; d2 over e3 to f4: a jump
    assert labels(state) == ["a3c5", "c3a5", "c3e5", "d2f4"]
    state = from_position([
        "........",
        "........",
        "........",
        "....+...",
        ".+.+....",
        "o.o.....",
        "........",
        "........",
    ])
    # c3 over d4 lands on e5, which is taken; a3 over b4 to c5: the only jump
    assert labels(state) == ["a3c5", "c3a5"]


def test_men_jump_forward_only_kings_either_way():
    rows = [
        "........",
        "........",
        "........",
        "........",
        "........",
        "..o.8...",
        "...+....",
        "........",
    ]
    state = from_position(rows)
    assert labels(state) == ["e3c1"]  # the man c3 cannot take d2 backwards; the king e3 can
    state = from_position([r.replace("8", "o") for r in rows])
    assert "c3e1" not in labels(state) and "e3c1" not in labels(state)
    assert labels(state) == ["c3b4", "c3d4", "e3d4", "e3f4"]


def test_captures_are_forced():
    state = from_position([
        "........",
        "........",
        "........",
        "........",
        "..+.....",
        ".o......",
        "........",
        "o.....o.",
    ])
    # b3 can take c4; no step is legal, not even for the men that cannot capture
    assert labels(state) == ["b3d5"]


def test_any_capture_may_be_chosen():
    state = from_position([
        "........",
        "........",
        "........",
        "........",
        "..+...+.",
        ".o...o..",
        "........",
        "........",
    ])
    # two captures: both are offered (no rule to take the most)
    assert labels(state) == ["b3d5", "f3h5"]


# ------------------------------------------------------------------ C6: chains of jumps


CHAIN = [
    "........",
    "........",
    "........",
    "..+.+...",
    "........",
    "..+.....",
    ".o......",
    "........",
]


def test_each_jump_is_one_action_and_the_piece_jumps_again():
    state = from_position(CHAIN)
    assert labels(state) == ["b2d4"]
    play(state, "b2d4")
    # the same player moves again, with the same piece, and only jumps
    assert state.current_player() == 0 and state.observation(0)["variables"]["jumper"] == 4 * 8 + 3
    assert labels(state) == ["d4b6", "d4f6"]
    play(state, "d4f6")
    assert board(state) == ["........", "........", ".....o..", "..+.....",
                            "........", "........", "........", "........"]
    assert state.current_player() == 1


def test_in_a_chain_only_the_jumping_piece_moves():
    rows = [r for r in CHAIN]
    rows[6] = ".o....o."
    rows[5] = "..+..+.."
    state = from_position(rows)
    assert labels(state) == ["b2d4", "g2e4"]
    play(state, "b2d4")
    # g2 could still take f3, but the chain belongs to d4
    assert labels(state) == ["d4b6", "d4f6"]


def test_the_turn_passes_when_the_piece_cannot_jump_again():
    state = from_position([
        "......+.",
        "........",
        "........",
        "........",
        "........",
        "..+.....",
        ".o....o.",
        "........",
    ])
    play(state, "b2d4")
    assert state.current_player() == 1


# ------------------------------------------------------------------ C7: crowning


def test_a_man_reaching_the_far_row_is_crowned():
    state = from_position([
        "........",
        "...o....",
        "........",
        "........",
        "........",
        "........",
        "....+...",
        "........",
    ])
    play(state, "d7c8")
    assert board(state)[0] == "..8....."
    play(state, "e2d1")  # black's man is crowned on row 7 (the bottom)
    assert board(state)[7] == "...*...."
    # the new king moves backwards
    assert labels(state) == ["c8d7", "c8b7"]
    play(state, "c8d7")
    assert labels(state) == ["d1c2", "d1e2"]


def test_crowning_ends_the_chain():
    state = from_position([
        "........",
        "..+.+...",
        ".o......",
        "........",
        "........",
        "........",
        "........",
        "........",
    ])
    # b6 takes c7 and is crowned on d8; as a king it could take e7, but the turn passes
    play(state, "b6d8")
    assert board(state)[0] == "...8...."
    assert state.current_player() == 1


def test_a_king_on_the_far_row_keeps_jumping():
    state = from_position([
        "........",
        "..+.+...",
        ".8......",
        "........",
        "........",
        "........",
        "........",
        "........",
    ])
    play(state, "b6d8")
    assert state.current_player() == 0 and labels(state) == ["d8f6"]


# ------------------------------------------------------------------ C8-C10: the end


def test_no_piece_left_loses():
    state = from_position([
        "........",
        "........",
        "........",
        "........",
        "..+.....",
        ".o......",
        "........",
        "........",
    ])
    play(state, "b3d5")
    assert state.is_terminal() and state.returns() == [1.0, -1.0] and state.winners() == [0]


def test_no_legal_move_loses_even_with_pieces():
    state = from_position([
        ".......+",
        "........",
        "........",
        "........",
        "........",
        "..+.....",
        ".+......",
        "o.......",
    ], first=1)
    play(state, "h8g7")
    # white's man on a1 is blocked by b2, and c3 behind it is taken: no move, white loses
    assert state.is_terminal() and state.returns() == [-1.0, 1.0] and state.winners() == [1]


def test_forty_actions_without_a_capture_draw():
    kings = [
        "8.......",
        "........",
        "........",
        "........",
        "........",
        "........",
        "........",
        ".......*",
    ]
    state = from_position(kings, quiet=38)
    play(state, "a8b7")
    assert not state.is_terminal()
    play(state, "h1g2")  # the 40th action without a capture
    assert state.is_terminal() and state.returns() == [0.0, 0.0] and state.legal_actions() == []


def test_a_capture_restarts_the_count():
    state = from_position([
        "........",
        "........",
        "........",
        "........",
        "........",
        "..*.....",
        ".8......",
        ".......*",
    ], quiet=39)
    play(state, "b2d4")
    assert not state.is_terminal() and state.observation(0)["variables"]["quiet"] == 0


def test_every_action_counts_toward_forty():
    # a full random game never has 40 actions in a row without a capture before its end
    game = interpreter.load_game(str(GAMES / "checkers.yaml"))
    draws = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        quiet = 0
        while not state.is_terminal():
            assert quiet < 40
            legal = state.legal_actions()
            a = legal[rng.randrange(len(legal))]
            quiet = 0 if a % 2 == JUMP else quiet + 1
            state.apply_action(a)
        if quiet == 40:
            draws += 1
            assert state.returns() == [0.0, 0.0]
    assert draws > 0


def test_a_first_player_without_a_move_is_a_draw():
    # on 6 x 6 the two armies fill the board: white cannot move at all, and OpenSpiel
    # declares no winner
    game = interpreter.load_game(str(GAMES / "checkers.yaml"), options={"rows": 6, "columns": 6})
    state = game.new_initial_state(0)
    assert state.is_terminal() and state.history == [] and state.returns() == [0.0, 0.0]


# ------------------------------------------------------------------ C11: wide boards


WIDE = [
    "........",
    "......+.",
    ".8.....8",
    "..+.....",
]


def test_on_wide_boards_the_chain_piece_is_openspiels_decoding():
    # rows 4, columns 8: h2's king takes g3 and lands on f4 = (0, 5), which can take e3 next;
    # OpenSpiel stores the chain's piece as row * rows + column = 5 and reads it back as
    # (5 // 4, 5 % 4) = (1, 1), the cell b3
    rows = [r for r in WIDE]
    rows[1] = "....+.+."
    state = from_position(rows)
    play(state, "h2f4")
    # f4 could take e3, but the chain is given to (1, 1), which holds no piece: OpenSpiel
    # aborts here; the spec ends the game, the player to move losing
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    rows = ["........", ".8..+.+.", "..+....8", "........"]
    state = from_position(rows)
    play(state, "h2f4")
    # now (1, 1) holds a white king that can take c2: that is the only legal action
    assert state.current_player() == 0 and labels(state) == ["b3d1"]


# ------------------------------------------------------------------ the heuristic


def test_heuristic_is_the_material_lead_with_kings_double():
    state = from_position([
        "8.......",
        "........",
        "........",
        "........",
        "........",
        "........",
        "...+...+",
        "o.o.....",
    ])
    # white: a king and two men (4); black: two men (2)
    assert state.game.heuristic(state, 0) == 2 and state.game.heuristic(state, 1) == -2


# ------------------------------------------------------------------ against OpenSpiel


def _openspiel_board(text: str) -> list[str]:
    """OpenSpiel's drawing without its labels (row numbers are 2 wide from 10 rows up)."""
    lines = text.splitlines()[:-1]
    width = 2 if len(lines) >= 10 else 1
    return [line[width:] for line in lines]


def _lockstep(pyspiel, rows: int, cols: int, games: int, seed0: int = 0) -> tuple[int, int, set]:
    from interpreter.adapters.openspiel import register

    options = {"rows": rows, "columns": cols}
    ours = register(str(GAMES / "checkers.yaml"), options=options)
    theirs = pyspiel.load_game("checkers", options)
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == rows * cols * 8
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    steps = aborted = 0
    outcomes = set()
    for seed in range(seed0, seed0 + games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        where = f"{rows}x{cols} seed {seed}"
        try:
            for player, move, _ in lockstep(a, b, random.Random(seed), where):
                assert not a.is_chance_node()
                assert a.action_to_string(player, move) == b.action_to_string(player, move)
        except pyspiel.SpielError:
            # C11: on a wide board OpenSpiel aborts when its decoded chain piece cannot jump;
            # the spec ends the game there, the chain's player losing
            assert cols > rows, where
            assert a.is_terminal(), where
            aborted += 1
        else:
            assert a.returns() == pytest.approx(b.returns()), where
            outcomes.add(tuple(b.returns()))
        steps += len(b.history())  # the moves both sides made (OpenSpiel records none it aborts on)
    return steps, aborted, outcomes


def test_checkers_matches_openspiel_on_200_games():
    pyspiel = require("pyspiel")
    steps, aborted, outcomes = _lockstep(pyspiel, 8, 8, 200)
    assert steps > 10000 and aborted == 0
    assert outcomes == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}


def test_the_board_is_openspiels_after_every_action():
    pyspiel = require("pyspiel")
    for rows, cols in [(8, 8), (10, 8)]:
        game = interpreter.load_game(str(GAMES / "checkers.yaml"), options={"rows": rows, "columns": cols})
        theirs = pyspiel.load_game("checkers", {"rows": rows, "columns": cols})
        for seed in range(10):
            rng = random.Random(seed)
            a, b = game.new_initial_state(seed), theirs.new_initial_state()
            while not b.is_terminal():
                assert board(a) == _openspiel_board(str(b)), f"{rows}x{cols} seed {seed}"
                legal = b.legal_actions()
                move = legal[rng.randrange(len(legal))]
                a.apply_action(move)
                b.apply_action(move)
            assert board(a) == _openspiel_board(str(b)) and a.is_terminal()


@pytest.mark.parametrize("rows, cols, games", [(10, 10, 30), (8, 6, 40), (8, 10, 40), (6, 6, 3), (3, 5, 3)])
def test_checkers_matches_openspiel_on_other_boards(rows, cols, games):
    pyspiel = require("pyspiel")
    steps, aborted, outcomes = _lockstep(pyspiel, rows, cols, games)
    if rows <= 6:
        assert steps == 0 and outcomes == {(0.0, 0.0)}  # no first move: a draw
    else:
        assert steps > 1000 and len(outcomes) >= 2
