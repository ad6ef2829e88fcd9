"""Kalah (games/kalah.yaml): the rules of docs/rulings-kalah.md, then move-for-move agreement
with OpenSpiel's `mancala` on 300 random games.

The board is OpenSpiel's list of 14 counts: 0 is seat 1's store, 1..6 seat 0's pits, 7 seat
0's store, 8..13 seat 1's pits; an action is the pit sown from. Rule tests that need a given
position load the same spec with another starting board (and, if asked, another first
player or move count): only those starting values change, never a rule.
"""

from __future__ import annotations

import random

import pytest

import interpreter
from tests.conftest import GAMES, require
from tests.support import lockstep, play

SPEC = (GAMES / "kalah.yaml").read_text(encoding="utf-8")
START = '"[0, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4]"'
FIRST = "first: player(0)"
MOVES = "moves: {type: int, initial: 0,"


def from_position(board: list[int] | None = None, first: int = 0, moves: int = 0) -> interpreter.State:
    """A new match of the spec starting from ``board``, with ``first`` to move, after ``moves`` moves."""
    text = SPEC
    for old, new in ((START, f'"{board}"' if board else START), (FIRST, f"first: player({first})"),
                     (MOVES, f"moves: {{type: int, initial: {moves},")):
        assert text.count(old) == 1
        text = text.replace(old, new)
    return interpreter.game_from_text(text, path="kalah.yaml").new_initial_state(0)


def board(state: interpreter.State) -> list[int]:
    return state.observation(0, events=False)["variables"]["board"]


def position(p0_pits: list[int], p0_store: int, p1_pits: list[int], p1_store: int) -> list[int]:
    """OpenSpiel's layout from each side's pits (in sowing order) and store."""
    return [p1_store, *p0_pits, p0_store, *p1_pits]


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return interpreter.load_game(str(GAMES / "kalah.yaml"))


# ------------------------------------------------------------------ K1-K2: the start, ids


def test_start_ids_and_labels(game):
    assert game.num_players == 2 and game.options == {}
    assert game.num_distinct_actions == 14 and game.max_game_length == 1001
    state = game.new_initial_state(0)
    assert board(state) == [0, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4]
    assert state.current_player() == 0
    assert state.legal_actions() == [1, 2, 3, 4, 5, 6]
    assert [state.action_to_string(a) for a in range(1, 7)] == ["1", "2", "3", "4", "5", "6"]
    play(state, 1)
    assert state.current_player() == 1 and state.legal_actions() == [8, 9, 10, 11, 12, 13]
    assert state.action_to_string(13) == "13"


def test_only_own_non_empty_pits_can_be_sown():
    state = from_position(position([0, 2, 0, 0, 5, 1], 10, [3, 0, 0, 1, 0, 2], 24))
    assert state.legal_actions() == [2, 5, 6]
    state = from_position(position([0, 2, 0, 0, 5, 1], 10, [3, 0, 0, 1, 0, 2], 24), first=1)
    assert state.legal_actions() == [8, 11, 13]


# ------------------------------------------------------------------ K3: sowing


def test_sowing_one_seed_a_pit_anticlockwise_then_the_turn_passes(game):
    state = play(game.new_initial_state(0), 1)
    assert board(state) == [0, 0, 5, 5, 5, 5, 4, 0, 4, 4, 4, 4, 4, 4]
    assert state.current_player() == 1
    play(state, 12)  # 12, 13, then seat 1's store (0), then seat 0's pits
    assert board(state) == [1, 1, 6, 5, 5, 5, 4, 0, 4, 4, 4, 4, 0, 5]
    assert state.current_player() == 0


def test_sowing_skips_the_opponents_store():
    # seat 0 sows 9 seeds from pit 6: its store, seat 1's six pits, not seat 1's store (0), 1, 2
    state = play(from_position(position([1, 1, 0, 0, 0, 9], 0, [1] * 6, 0)), 6)
    assert board(state) == [0, 2, 2, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2]
    # seat 1 sows 9 seeds from pit 13: its store, seat 0's six pits, not seat 0's store (7), 8, 9
    state = play(from_position(position([1] * 6, 0, [1, 1, 0, 0, 0, 9], 0), first=1), 13)
    assert board(state) == [1, 2, 2, 2, 2, 2, 2, 0, 2, 2, 0, 0, 0, 0]
    assert sum(board(state)) == 17


# ------------------------------------------------------------------ K4: the extra turn


def test_the_last_seed_in_ones_own_store_gives_another_move(game):
    state = play(game.new_initial_state(0), 3)  # 4 seeds from pit 3: 4, 5, 6, store
    assert board(state) == [0, 4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4]
    assert state.current_player() == 0 and state.legal_actions() == [1, 2, 4, 5, 6]
    play(state, 6)  # 5 seeds: store, 8, 9, 10, 11: the turn passes
    assert state.current_player() == 1
    play(state, 10)  # 5 seeds from pit 10: 11, 12, 13, its store (0), 1: the turn passes
    assert state.current_player() == 0 and board(state)[0] == 1
    # seat 1's extra move: the last seed in its own store (0)
    state = play(from_position(position([4] * 6, 0, [4, 4, 4, 4, 4, 1], 0), first=1), 13)
    assert state.current_player() == 1 and board(state)[0] == 1


def test_extra_moves_chain():
    state = from_position(position([0, 0, 0, 3, 2, 1], 0, [4] * 6, 0))
    play(state, 6, 5, 6, 4)  # every move ends in the store
    assert state.current_player() == 0
    assert board(state)[1:8] == [0, 0, 0, 0, 1, 1, 4]
    play(state, 5)  # into pit 6, which holds seeds: no capture, the turn passes
    assert state.current_player() == 1


# ------------------------------------------------------------------ K5: the capture


def test_the_last_seed_in_an_own_empty_pit_takes_the_opposite_pit_and_itself():
    # seat 0 sows pit 1 (2 seeds): 2 and 3; pit 3 was empty, opposite it pit 11 holds 5
    state = play(from_position(position([2, 0, 0, 4, 4, 4], 3, [4, 4, 4, 5, 4, 4], 0)), 1)
    assert board(state) == [0, 0, 1, 0, 4, 4, 4, 3 + 1 + 5, 4, 4, 4, 0, 4, 4]
    assert state.current_player() == 1
    assert any(e["type"] == "captured" and e["seeds"] == 6 for e in state.events)
    # seat 1 likewise: pit 9 (1 seed) into empty pit 10, opposite pit 4 (6 seeds)
    state = play(from_position(position([4, 4, 4, 6, 4, 4], 0, [4, 1, 0, 4, 4, 4], 2), first=1), 9)
    assert board(state)[4] == 0 and board(state)[10] == 0 and board(state)[0] == 2 + 1 + 6
    assert state.current_player() == 0


def test_no_capture_when_the_opposite_pit_is_empty():
    # OpenSpiel needs seeds opposite; the lone seed stays in its pit
    state = play(from_position(position([2, 0, 0, 4, 4, 4], 3, [4, 4, 4, 0, 4, 4], 0)), 1)
    assert board(state) == [0, 0, 1, 1, 4, 4, 4, 3, 4, 4, 4, 0, 4, 4]


def test_no_capture_in_a_pit_that_held_seeds_nor_on_the_opponents_side():
    state = play(from_position(position([2, 0, 1, 4, 4, 4], 3, [4] * 6, 0)), 1)
    assert board(state)[3] == 2 and board(state)[7] == 3  # pit 3 had a seed already
    # the last seed alone in the opponent's empty pit 8: nothing taken
    state = play(from_position(position([4, 4, 4, 4, 4, 2], 0, [0, 4, 4, 4, 4, 4], 0)), 6)
    assert board(state) == [0, 4, 4, 4, 4, 4, 0, 1, 1, 4, 4, 4, 4, 4]


def test_a_full_lap_back_into_the_emptied_pit_captures():
    # 13 seeds from pit 1 go round (skipping seat 1's store) and end in pit 1, empty again
    state = play(from_position(position([13, 0, 0, 0, 0, 0], 0, [1, 1, 1, 1, 1, 2], 0)), 1)
    assert board(state) == [0, 0, 1, 1, 1, 1, 1, 1 + 1 + 3, 2, 2, 2, 2, 2, 0]


# ------------------------------------------------------------------ K6-K7: the end, returns


def test_one_side_empty_ends_the_game_and_each_side_keeps_its_seeds():
    # seat 0's last seed goes into its store: its side is empty, the extra move is void
    state = play(from_position(position([0, 0, 0, 0, 0, 1], 20, [1, 0, 0, 0, 0, 2], 24)), 6)
    assert state.is_terminal()
    # seat 1 keeps the 3 seeds left on its side: 24 + 3 = 27 against 21
    assert state.scores() == [21, 27] and state.returns() == [-1.0, 1.0]
    # a capture that empties the opponent's side ends the game too
    state = play(from_position(position([1, 0, 0, 0, 5, 0], 20, [0, 0, 0, 0, 3, 0], 19)), 1)
    assert board(state)[1:8] == [0, 0, 0, 0, 5, 0, 24] and state.is_terminal()
    assert state.scores() == [29, 19] and state.returns() == [1.0, -1.0]


def test_the_remaining_seeds_decide_and_an_equal_count_is_a_draw():
    # seat 0 has the smaller store (17 against 24) but 7 seeds left on its side: 24 each, a draw
    state = play(from_position(position([1, 0, 0, 0, 0, 6], 17, [0, 0, 0, 0, 0, 1], 23), first=1), 13)
    assert state.is_terminal() and state.scores() == [24, 24]
    assert state.returns() == [0.0, 0.0] and state.winners() == [0, 1]
    # one seed more on seat 0's side wins it
    state = play(from_position(position([1, 0, 0, 0, 0, 7], 17, [0, 0, 0, 0, 0, 1], 22), first=1), 13)
    assert state.is_terminal() and state.scores() == [25, 23] and state.returns() == [1.0, -1.0]


def test_no_returns_before_the_end(game):
    state = play(game.new_initial_state(0), 1, 8)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


def test_more_than_1000_moves_end_the_game_scored_the_same_way():
    state = play(from_position(moves=999), 1)
    assert not state.is_terminal()  # move 1000
    play(state, 13)  # move 1001 (4 seeds: seat 1's store, pits 1-3): past OpenSpiel's MaxGameLength
    assert state.is_terminal() and state.scores() == [27, 21] and state.returns() == [1.0, -1.0]
    assert play(from_position(moves=1000), 1).returns() == [0.0, 0.0]  # 24 each


# ------------------------------------------------------------------ for bots


def test_the_heuristic_counts_the_store_and_a_quarter_of_the_side(game):
    state = play(game.new_initial_state(0), 3)
    assert [game.heuristic(state, p) for p in (0, 1)] == [1 + 23 / 4, 24 / 4]


# ------------------------------------------------------------------ against OpenSpiel


GAMES_PLAYED = 300


def test_kalah_matches_openspiel_mancala_move_for_move():
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "kalah.yaml"))
    theirs = pyspiel.load_game("mancala")
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 14
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    assert ours.max_game_length() == theirs.max_game_length() + 1
    results = {}
    steps = extra = 0
    for seed in range(GAMES_PLAYED):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        previous = -1  # no mover yet
        for player, action, _ in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            assert a.action_to_string(player, action) == b.action_to_string(player, action)
            extra += player == previous  # the last mover moves again
            previous = player
            steps += 1
        assert a.returns() == b.returns(), f"seed {seed}"
        results[tuple(b.returns())] = results.get(tuple(b.returns()), 0) + 1
    assert steps > 30 * GAMES_PLAYED and extra > 2 * GAMES_PLAYED
    assert set(results) == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}  # wins both ways, and draws
