"""Hex (games/hex.yaml): the rules of docs/rulings-hex.md, then move-for-move agreement with
OpenSpiel's `hex` on 250 random games over nine boards (2 x 2 to the default 11 x 11, square
and not, with and without the swap).

Cells are OpenSpiel's: cell row * num_cols + col, row 0 at the top, each row shifted half a
cell to the right of the one above. On a 3 x 3 board:

    0 1 2
     3 4 5
      6 7 8

so cell 4 touches 1, 2, 5, 7, 6 and 3 (not 0 nor 8). Black (seat 0) joins the top and bottom
rows, white (seat 1) the left and right columns.
"""

from __future__ import annotations

import random

import pytest

import interpreter
from tests.conftest import GAMES, require
from tests.support import loader, lockstep, play

load = loader(GAMES / "hex.yaml", players=2)


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return load()


@pytest.fixture(scope="module")
def small() -> interpreter.Game:
    return load(board_size=3)


def stones(state: interpreter.State, rows: int = 3, cols: int = 3) -> dict[int, int]:
    """The stones on the board: OpenSpiel's cell id (row 0 at the top) -> the owner's seat.
    The views name cells as the language does, the row counted from 1 at the bottom."""
    board = state.observation(0, events=False)["board"]
    return {(rows - int(name[1:])) * cols + ord(name[0]) - ord("a"): piece["owner"]
            for name, piece in board.items()}


def heuristics(game: interpreter.Game, state: interpreter.State) -> list[float]:
    return [game.heuristic(state, p) for p in (0, 1)]


# ------------------------------------------------------------------ H1-H3: players, board, ids


def test_black_moves_first_then_the_turns_alternate(small):
    state = small.new_initial_state(0)
    seen = []
    for cell in (4, 0, 8, 2):
        seen.append(state.current_player())
        play(state, cell)
    assert seen == [0, 1, 0, 1] and state.current_player() == 0
    assert small.seat_names == ["black", "white"]


def test_the_default_board_is_11_by_11_and_board_size_sets_both_sides(game):
    assert game.options == {"board_size": 11, "num_rows": 11, "num_cols": 11, "swap": False}
    assert game.num_distinct_actions == 121
    assert load(board_size=5).options == {"board_size": 5, "num_rows": 5, "num_cols": 5, "swap": False}
    assert load(board_size=5).num_distinct_actions == 25


def test_num_rows_and_num_cols_override_board_size():
    wide = load(num_rows=3, num_cols=5)
    assert wide.options["board_size"] == 11 and wide.num_distinct_actions == 15
    assert load(board_size=4, num_cols=6).num_distinct_actions == 24
    state = wide.new_initial_state(0)
    assert state.legal_actions() == list(range(15))
    assert [state.action_to_string(a) for a in (0, 4, 5, 14)] == ["a1", "e1", "a2", "e3"]


def test_boards_one_cell_wide_are_refused():
    # OpenSpiel's own game never ends there (rulings H10)
    for options in ({"board_size": 1}, {"num_rows": 1}, {"num_cols": 1}, {"board_size": 27}):
        with pytest.raises(interpreter.OptionError):
            load(**options)


def test_a_move_is_any_empty_cell_labelled_by_column_letter_and_row(game):
    state = game.new_initial_state(0)
    assert state.legal_actions() == list(range(121))
    assert [state.action_to_string(a) for a in (0, 1, 10, 11, 12, 120)] == ["a1", "b1", "k1", "a2", "b2", "k11"]
    play(state, 60, 12)
    assert state.legal_actions() == [a for a in range(121) if a not in (12, 60)]


# ------------------------------------------------------------------ H4: the six neighbours


def test_cells_touch_up_right_and_down_left_not_the_other_diagonal(small):
    # the diagonal 2-4-6 is a chain from the top row to the bottom row: black wins
    assert play(small.new_initial_state(0), 2, 0, 4, 1, 6).returns() == [1.0, -1.0]
    # the diagonal 0-4-8 is three separate stones: no win, and the middle one touches neither
    # black stone on an edge (black: 0 and 8, each alone on its side; white: 1-2 on the right)
    state = play(small.new_initial_state(0), 0, 1, 4, 2, 8)
    assert not state.is_terminal() and heuristics(small, state) == [0, 0]


# ------------------------------------------------------------------ H5-H7: the sides and the end


def test_black_joins_top_and_bottom_white_joins_left_and_right(small):
    # black's column a1-a2-a3 wins
    assert play(small.new_initial_state(0), 0, 1, 3, 2, 6).returns() == [1.0, -1.0]
    # white's row a2-b2-c2 wins
    assert play(small.new_initial_state(0), 0, 3, 1, 4, 8, 5).returns() == [-1.0, 1.0]
    # white's column a1-a2-a3 does not
    state = play(small.new_initial_state(0), 1, 0, 2, 3, 8, 6)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]
    # nor does black's row a2-b2-c2
    state = play(small.new_initial_state(0), 3, 0, 4, 1, 5)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


def test_a_stone_touches_its_owners_sides_only():
    # 4 x 4: black b1 (top), c4 (bottom), c2 (no side); white a2 (left), d2 (right), b3 (no
    # side): the heuristic counts, for each player, the stones touching one of their sides
    four = load(board_size=4)
    state = play(four.new_initial_state(0), 1, 4, 14, 7, 6, 9)
    assert stones(state, 4, 4) == {1: 0, 4: 1, 14: 0, 7: 1, 6: 0, 9: 1}
    assert heuristics(four, state) == [2 - 2, 2 - 2]
    # black on the left and right columns, white on the top and bottom rows: nobody's side
    state = play(four.new_initial_state(0), 4, 1, 7, 13)
    assert heuristics(four, state) == [0, 0]
    play(state, 2)  # c1, on black's top row
    assert heuristics(four, state) == [1, -1]


def test_a_stone_between_a_top_group_and_a_bottom_group_wins(small):
    state = play(small.new_initial_state(0), 0, 1, 6, 2)
    assert not state.is_terminal()
    assert play(state, 3).returns() == [1.0, -1.0]
    assert state.is_terminal() and stones(state) == {0: 0, 1: 1, 6: 0, 2: 1, 3: 0}


def test_a_group_joined_to_an_edge_passes_the_edge_to_all_its_stones():
    # 4 x 4: black b2 and b3 (cells 5, 9) touch no edge; b1 (cell 1) joins them to the top;
    # then b4 (cell 13) touches only b3, and wins because b3's group now reaches the top
    four = load(board_size=4)
    state = play(four.new_initial_state(0), 5, 3, 9, 7)
    assert four.heuristic(state, 0) == 0 - 2  # white's 3 and 7 are on its right column
    play(state, 1, 11)
    assert four.heuristic(state, 0) == 3 - 3 and not state.is_terminal()
    assert play(state, 13).returns() == [1.0, -1.0]


def test_the_game_ends_on_the_connecting_move_with_cells_left(game):
    state = game.new_initial_state(0)
    for row in range(10):
        play(state, row * 11, row * 11 + 1)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]
    assert play(state, 110).is_terminal()
    assert state.returns() == [1.0, -1.0] and state.legal_actions() == []
    assert state.scores() == [1, 0]


# ------------------------------------------------------------------ H8: the swap


def test_without_the_option_there_is_no_swap(small):
    state = play(small.new_initial_state(0), 1)
    assert small.num_distinct_actions == 9 and state.legal_actions() == [0, 2, 3, 4, 5, 6, 7, 8]


def test_the_swap_is_white_first_decision_only():
    swapping = load(board_size=3, swap=True)
    assert swapping.num_distinct_actions == 10
    state = swapping.new_initial_state(0)
    assert 9 not in state.legal_actions()
    play(state, 1)
    assert state.legal_actions() == [0, 2, 3, 4, 5, 6, 7, 8, 9] and state.action_to_string(9) == "swap"
    play(state, 4)
    assert 9 not in state.legal_actions()
    play(state, 0)
    assert 9 not in state.legal_actions()


def test_the_swap_mirrors_the_stone_across_the_diagonal_and_black_moves_again():
    state = play(load(board_size=3, swap=True).new_initial_state(0), 1, 9)
    # b1 (row 0, column 1) becomes a white stone on a2 (row 1, column 0), on the left edge
    assert stones(state) == {3: 1}
    assert state.current_player() == 0 and state.legal_actions() == [0, 1, 2, 4, 5, 6, 7, 8]
    assert state.observation(0, events=False)["board"] == {"a2": {"piece": "stone", "owner": 1, "id": 9}}
    # a stone on the diagonal stays where it is, and is white's now
    assert stones(play(load(board_size=3, swap=True).new_initial_state(0), 4, 9)) == {4: 1}


def test_the_swap_on_a_board_that_is_not_square_uses_openspiel_formula():
    # cell (r, c) goes to cell c * num_cols + r: on 4 x 2, cell 4 (row 2, column 0) to cell 2
    state = play(load(num_rows=4, num_cols=2, swap=True).new_initial_state(0), 4, 8)
    assert stones(state, 4, 2) == {2: 1}
    # on 2 x 4, cell 2 (row 0, column 2) would go to cell 8, off the board: the stone is gone
    state = play(load(num_rows=2, num_cols=4, swap=True).new_initial_state(0), 2, 8)
    assert stones(state, 2, 4) == {} and state.legal_actions() == list(range(8))
    assert state.observation(0, events=False)["board"] == {}


# ------------------------------------------------------------------ H9: the length


def test_a_match_has_at_most_one_action_per_cell_plus_the_swap():
    assert load().max_game_length == 121
    assert load(board_size=3, swap=True).max_game_length == 10
    assert load(num_rows=2, num_cols=5).max_game_length == 10


# ------------------------------------------------------------------ for bots


def test_the_heuristic_counts_stones_joined_to_ones_edges(small):
    state = play(small.new_initial_state(0), 0, 4, 7)
    assert [small.heuristic(state, p) for p in (0, 1)] == [2, -2]


# ------------------------------------------------------------------ invariants


@pytest.mark.parametrize("options", [
    {"board_size": 3}, {"board_size": 5, "swap": True}, {"num_rows": 2, "num_cols": 4, "swap": True},
])
def test_the_invariants_hold_through_random_games(options):
    game = load(**options)
    for seed in range(5):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            assert game.check_invariants(state) == [], (seed, state.history())
        assert sorted(state.returns()) == [-1.0, 1.0]


def broken(*edits: tuple[str, str]) -> interpreter.Game:
    text = (GAMES / "hex.yaml").read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return interpreter.game_from_text(text, players=2, options={"board_size": 2})


def failing(game: interpreter.Game, state: interpreter.State) -> list[str]:
    """The messages of the invariants that fail, without their place in the spec."""
    return [message.rsplit(" (", 1)[0] for message in game.check_invariants(state)]


def test_the_invariants_catch_a_win_without_its_score():
    game = broken(("then: [current.score = 1, end game]", "then: [end game]"))
    state = play(game.new_initial_state(0), 0, 1, 2)  # black a1-a2 joins top and bottom
    assert failing(game, state) == ["a player has scored exactly when their stones join their two sides"]


def test_the_invariants_catch_two_players_joined():
    # with square neighbours (diagonals included) and no end, on 2 x 2 black joins a1 to b2
    # diagonally and white then joins b1 to a2: what the hex board never allows
    game = broken(("dirs='hex')\n  # OpenSpiel's label", "dirs='all')\n  # OpenSpiel's label"),
                  ("then: [current.score = 1, end game]", "then: [current.score = 1]"))
    state = play(game.new_initial_state(0), 0, 1, 3)
    assert game.check_invariants(state) == []
    play(state, 2)
    assert failing(game, state) == ["at most one player's stones join their two sides"]


# ------------------------------------------------------------------ against OpenSpiel

CASES = [
    ({"board_size": 2}, 20),
    ({"board_size": 3}, 40),
    ({"board_size": 3, "swap": True}, 30),
    ({"board_size": 5}, 30),
    ({"board_size": 5, "swap": True}, 30),
    ({"board_size": 7}, 30),
    ({"num_rows": 3, "num_cols": 5}, 25),
    # the swap only where OpenSpiel's transposition stays on the board (num_cols <= num_rows)
    ({"num_rows": 5, "num_cols": 3, "swap": True}, 25),
    ({}, 20),
]


def test_the_differential_covers_at_least_200_games():
    assert sum(games for _, games in CASES) >= 200


@pytest.mark.parametrize("options, games", CASES)
def test_hex_matches_openspiel_move_for_move(options, games):
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "hex.yaml"), players=2, options=options)
    theirs = pyspiel.load_game("hex", options)
    swap = options.get("swap", False)
    assert ours.num_distinct_actions() == theirs.num_distinct_actions()
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    assert ours.max_game_length() == theirs.max_game_length() + swap
    assert ours.get_type().chance_mode == theirs.get_type().chance_mode
    results = set()
    swaps = 0

    def choose(legal: list[int], rng: random.Random) -> int:
        """With the swap, take it half the times it is offered."""
        nonlocal swaps
        if swap and legal[-1] == theirs.num_distinct_actions() - 1 and rng.random() < 0.5:
            swaps += 1
            return legal[-1]
        return legal[rng.randrange(len(legal))]

    for seed in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        for player, _, legal in lockstep(a, b, random.Random(seed), f"seed {seed}", choose):
            assert not a.is_chance_node() and not b.is_chance_node()
            assert [a.action_to_string(player, x) for x in legal] == \
                [b.action_to_string(player, x) for x in legal], f"seed {seed}"
        assert a.returns() == b.returns(), f"seed {seed}"
        results.add(tuple(b.returns()))
    assert results == {(1.0, -1.0), (-1.0, 1.0)}  # both colours win, never a draw
    if swap:
        assert swaps > games // 4
