"""Battleship (games/battleship.yaml): the rules of docs/rulings-battleship.md, the hidden
fleets, then move-for-move agreement with OpenSpiel's `battleship` on 200+ random games.

Action ids are OpenSpiel's: a shot at (r, c) is r * W + c, placing the next ship with its
top-left corner at (r, c) is W * H + r * W + c across and 2 * W * H + r * W + c down.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import interpreter
from tests.conftest import GAMES, require
from tests.support import loader, lockstep, play

SPEC = str(GAMES / "battleship.yaml")


load = loader(SPEC)


class Ids:
    """OpenSpiel's action ids on a W x H board."""

    def __init__(self, width: int, height: int):
        self.w, self.area = width, width * height

    def shot(self, r: int, c: int) -> int:
        return r * self.w + c

    def across(self, r: int, c: int) -> int:
        return self.area + r * self.w + c

    def down(self, r: int, c: int) -> int:
        return 2 * self.area + r * self.w + c


def results(state: interpreter.State) -> list[tuple[int, int, str]]:
    return [(e["player"], e["cell"], e["result"]) for e in state.events if e["type"] == "shot"]


SMALL = dict(board_width=3, board_height=3, ship_sizes="[2;2]", ship_values="[1.0;2.0]", num_shots=5)
S3 = Ids(3, 3)


def small_fleets(**extra) -> interpreter.State:
    """3 x 3, two ships of 2: seat 0 at row 0 (0,0)-(0,1) and column 2 (1,2)-(2,2);
    seat 1 at column 0 (0,0)-(1,0) and row 2 (2,1)-(2,2)."""
    state = load(**{**SMALL, **extra}).new_initial_state(0)
    return play(state, S3.across(0, 0), S3.down(0, 0), S3.down(1, 2), S3.across(2, 1))


# ------------------------------------------------------------------ B1: parameters, ids


def test_openspiels_defaults_and_sizes():
    game = load()
    assert game.options == {"board_width": 10, "board_height": 10, "ship_sizes": "[2;3;3;4;5]",
                            "ship_values": "[1.0;1.0;1.0;1.0;1.0]", "num_shots": 50,
                            "allow_repeated_shots": True, "loss_multiplier": 1.0}
    assert game.num_distinct_actions == 300
    assert game.max_game_length == 2 * (5 + 50)
    assert (game.min_utility, game.max_utility) == (-5.0, 5.0)
    small = load(**SMALL)
    assert small.num_distinct_actions == 27 and small.max_game_length == 2 * (2 + 5)
    assert (small.min_utility, small.max_utility) == (-3.0, 3.0)


def test_fleets_that_cannot_be_played_are_refused():
    # OpenSpiel refuses them when the game is loaded: so does ours for a value list of the
    # wrong length (game.requires); a fleet that cannot fit needs a search: the first state
    # is a rule error
    with pytest.raises(interpreter.OptionError, match="one value per ship"):
        load(ship_values="[1.0;2.0]")
    with pytest.raises(interpreter.RuleError, match="do not fit on the board"):
        load(board_width=3, board_height=3, ship_sizes="[2;3;4]", ship_values="[1.0;2.0;3.0]").new_initial_state(0)
    with pytest.raises(interpreter.RuleError, match="do not fit on the board"):
        load(board_width=3, board_height=2, ship_sizes="[3;3;3]", ship_values="[1.0;1.0;1.0]").new_initial_state(0)


# ------------------------------------------------------------------ B2: placing in turn


def test_ships_are_placed_one_at_a_time_in_turn_seat_0_first():
    state = load(**SMALL).new_initial_state(0)
    seen = []
    for action in (S3.across(0, 0), S3.down(0, 0), S3.down(1, 2), S3.across(2, 1)):
        seen.append(state.current_player())
        play(state, action)
    assert seen == [0, 1, 0, 1]
    assert state.current_player() == 0  # then seat 0 shoots first
    assert state.observation(0)["zones"]["fleet"][0] == ["h_0_0", "v_1_2"]  # ship 0 at the bottom
    assert state.observation(1)["zones"]["fleet"][1] == ["v_0_0", "h_2_1"]


# ------------------------------------------------------------------ B3: where a ship may go


def test_a_ship_may_not_overlap_its_owners_ships_but_may_share_cells_with_the_opponents():
    state = play(load(**SMALL).new_initial_state(0), S3.across(0, 0))
    assert S3.across(0, 0) in state.legal_actions()  # seat 1 may use the same cells
    play(state, S3.across(0, 0))
    legal = state.legal_actions()  # seat 0's second ship
    for overlapping in (S3.across(0, 0), S3.across(0, 1), S3.down(0, 0), S3.down(0, 1)):
        assert overlapping not in legal
    assert S3.down(0, 2) in legal and S3.across(1, 0) in legal


def test_a_placement_must_leave_room_for_the_ships_still_to_place():
    # 4 x 3 with ships 2, 3, 4: a 2 standing at (0,1)-(1,1) leaves no room for both the 3 and
    # the 4, so OpenSpiel does not offer it, though it is on the board and overlaps nothing
    ids = Ids(4, 3)
    state = load(board_width=4, board_height=3, ship_sizes="[2;3;4]", ship_values="[1.0;2.0;3.0]").new_initial_state(0)
    assert state.legal_actions() == [ids.across(r, c) for r in range(3) for c in range(3)] + [
        ids.down(0, 0), ids.down(0, 3), ids.down(1, 0), ids.down(1, 3)]
    play(state, ids.across(0, 0))
    play(state, ids.across(2, 2))  # seat 1
    # seat 0's 3: it must leave a whole free row for the 4 (rows 1 or 2 only)
    assert state.legal_actions() == [ids.across(1, 0), ids.across(1, 1), ids.across(2, 0), ids.across(2, 1)]


def test_a_ship_of_length_one_has_only_placements_across():
    state = load(board_width=3, board_height=3, ship_sizes="[1]", ship_values="[1.0]").new_initial_state(0)
    assert state.legal_actions() == [S3.across(r, c) for r in range(3) for c in range(3)]


def test_a_ship_longer_than_the_width_can_only_stand_down():
    ids = Ids(2, 3)
    state = load(board_width=2, board_height=3, ship_sizes="[3]", ship_values="[1.0]").new_initial_state(0)
    assert state.legal_actions() == [ids.down(0, 0), ids.down(0, 1)]


# ------------------------------------------------------------------ B4: labels


def test_labels_are_openspiels():
    state = load(**SMALL).new_initial_state(0)
    assert state.action_to_string(S3.across(1, 2 - 1)) == "Pl0: place ship horizontally with top-left corner in (1, 1)"
    assert state.action_to_string(S3.down(0, 2)) == "Pl0: place ship vertically with top-left corner in (0, 2)"
    state = small_fleets()
    assert state.action_to_string(S3.shot(2, 1)) == "Pl0: shoot at (2, 1)"
    play(state, S3.shot(2, 1))
    assert state.action_to_string(S3.shot(0, 2)) == "Pl1: shoot at (0, 2)"


# ------------------------------------------------------------------ B5: shooting


def test_shots_alternate_and_repeated_shots_are_allowed_by_default():
    state = small_fleets()
    assert state.legal_actions() == list(range(9))
    play(state, S3.shot(1, 1))
    assert state.current_player() == 1 and state.legal_actions() == list(range(9))
    play(state, S3.shot(1, 1), S3.shot(1, 1))  # seat 0 shoots the same cell again
    assert state.current_player() == 1


def test_without_repeated_shots_a_player_may_not_shoot_their_own_earlier_cells():
    state = small_fleets(allow_repeated_shots=False)
    play(state, S3.shot(1, 1))
    assert state.legal_actions() == list(range(9))  # seat 0's shot does not bind seat 1
    play(state, S3.shot(0, 0))
    assert state.legal_actions() == [a for a in range(9) if a != S3.shot(1, 1)]


# ------------------------------------------------------------------ B6: water, hit, sunk


def test_a_ship_sinks_when_each_of_its_cells_was_shot_repeats_count_once():
    state = small_fleets()
    # seat 0 fires at seat 1's ship 0, (0,0)-(1,0)
    play(state, S3.shot(0, 0), S3.shot(1, 1), S3.shot(0, 0), S3.shot(1, 1), S3.shot(1, 0))
    assert results(state) == [(0, 0, "hit"), (1, 4, "water"), (0, 0, "hit"), (1, 4, "water"), (0, 3, "sunk")]
    play(state, S3.shot(0, 0))  # seat 1 hits seat 0's (0,0)
    play(state, S3.shot(0, 0))  # a shot on a sunk ship reports it sunk again
    assert results(state)[-2:] == [(1, 0, "hit"), (0, 0, "sunk")]


# ------------------------------------------------------------------ B7: the end


def test_the_game_ends_when_a_fleet_is_sunk():
    state = small_fleets()
    play(state, S3.shot(0, 0), S3.shot(2, 2), S3.shot(1, 0), S3.shot(2, 2), S3.shot(2, 1), S3.shot(2, 2))
    assert not state.is_terminal()
    play(state, S3.shot(2, 2))  # seat 1's second ship goes down: its whole fleet
    assert state.is_terminal() and state.history[-1] == S3.shot(2, 2)
    assert state.returns() == [3.0, -3.0]


def test_the_game_ends_when_both_players_spent_their_shots():
    state = small_fleets()
    for _ in range(4):
        play(state, S3.shot(1, 1), S3.shot(1, 1))
    play(state, S3.shot(0, 0))  # seat 0's fifth shot
    assert not state.is_terminal()
    play(state, S3.shot(0, 0))  # seat 1's fifth: 2 * num_shots shots
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


# ------------------------------------------------------------------ B8: returns


def test_returns_are_value_sunk_less_the_loss_multiplier_times_value_lost():
    moves = [S3.shot(0, 0), S3.shot(0, 0), S3.shot(1, 0), S3.shot(0, 1)]  # both sink the other's ship 0 (value 1)
    moves += [S3.shot(2, 1), S3.shot(1, 2)]  # seat 0 hits seat 1's ship 1, seat 1 hits seat 0's
    moves += [S3.shot(1, 1), S3.shot(2, 2)]  # seat 1 sinks seat 0's ship 1 (value 2): fleet gone
    state = play(small_fleets(), *moves)
    assert state.is_terminal() and state.returns() == [1.0 - 3.0, 3.0 - 1.0]
    state = play(small_fleets(loss_multiplier=0.5), *moves)
    assert state.returns() == [1.0 - 0.5 * 3.0, 3.0 - 0.5 * 1.0]
    assert state.scores() == [1.0, 3.0]  # the value each player sank
    game = load(**{**SMALL, "loss_multiplier": -2.0})
    assert (game.min_utility, game.max_utility) == (0.0, 9.0)


def test_no_returns_before_the_end():
    state = play(small_fleets(), S3.shot(0, 0))
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


# ------------------------------------------------------------------ B9: hidden fleets


def test_a_player_never_sees_the_opponents_ships():
    game = load()
    rng = random.Random(3)
    state = game.new_initial_state(0)
    names = set(game.cards.names)
    while not state.is_terminal():
        for seat in (0, 1):
            view = state.observation(seat)
            other = view["zones"]["fleet"][1 - seat]
            assert other == {"count": len(state.observation(1 - seat)["zones"]["fleet"][1 - seat])}
            # no placement of the opponent anywhere in the view, nor the search's work space
            text = json.dumps(view)
            theirs = set(state.observation(1 - seat)["zones"]["fleet"][1 - seat])
            assert not any(f'"{name}"' in text for name in theirs & names - set(view["zones"]["fleet"][seat]))
            assert view["variables"]["scratch"] == [] and view["variables"]["occ"] == []
            assert view["variables"]["pos"] == []
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.history) > 10


def test_openspiel_strings_of_our_adapter_hide_the_opponents_ships_too():
    require("pyspiel")  # the adapter needs it
    from interpreter.adapters.openspiel import register

    state = register(SPEC, options=SMALL).new_initial_state()
    for action in (S3.across(0, 0), S3.down(1, 1), S3.down(1, 2), S3.across(0, 1)):
        state.apply_action(action)
    for text in (state.information_state_string(1), state.observation_string(1)):
        assert '"h_0_1"' in text and '"v_1_1"' in text  # seat 1's own ships
        assert '"h_0_0"' not in text and '"v_1_2"' not in text  # not seat 0's
    for text in (state.information_state_string(0), state.observation_string(0)):
        assert '"h_0_0"' in text and '"h_0_1"' not in text and '"v_1_1"' not in text


# ------------------------------------------------------------------ for bots


def test_the_heuristic_is_the_return_so_far_plus_a_tenth_per_hit():
    game = load(**SMALL)
    state = play(small_fleets(), S3.shot(0, 0), S3.shot(1, 1))
    assert [game.heuristic(state, p) for p in (0, 1)] == [0.1, 0.0]
    play(state, S3.shot(0, 0), S3.shot(1, 1))  # the same cells again: a hit counts once
    assert [game.heuristic(state, p) for p in (0, 1)] == [0.1, 0.0]
    play(state, S3.shot(1, 0), S3.shot(0, 0))  # seat 0 sinks ship 0 (value 1), seat 1 hits
    assert [game.heuristic(state, p) for p in (0, 1)] == [1.0 + 0.2, -1.0 + 0.1]


# ------------------------------------------------------------------ against OpenSpiel


# (options, games): the default board on a few games (its placements are the slow part),
# then small boards, tight fleets and the other parameters on many
CASES = [
    ({}, 6),
    (dict(board_width=3, board_height=3, ship_sizes="[2]", ship_values="[1.0]", num_shots=4), 40),
    (dict(board_width=4, board_height=3, ship_sizes="[2;3;4]", ship_values="[1.0;2.0;3.0]", num_shots=6,
          allow_repeated_shots=False, loss_multiplier=2.0), 40),
    (dict(board_width=3, board_height=3, ship_sizes="[2;2;2]", ship_values="[1.0;1.0;1.0]", num_shots=9,
          allow_repeated_shots=False), 40),
    (dict(board_width=4, board_height=4, ship_sizes="[1;2;3]", ship_values="[1.0;2.0;3.0]", num_shots=10,
          loss_multiplier=0.5), 40),
    (dict(board_width=2, board_height=5, ship_sizes="[3;2]", ship_values="[1.0;2.0]", num_shots=3), 20),
    # the default fleet on 20 cells: 17 of them taken, most placements leave no room
    (dict(board_width=5, board_height=4, num_shots=20), 5),
    # values read from the text: halves and a ship worth nothing
    (dict(board_width=5, board_height=4, ship_sizes="[5;4;3;3;2]", ship_values="[0.5;1.5;2.0;0.0;3.0]",
          num_shots=20, loss_multiplier=2.0), 5),
    (dict(board_width=5, board_height=5, ship_sizes="[2;2;2;2]", ship_values="[1.0;1.0;1.0;1.0]", num_shots=25,
          allow_repeated_shots=False), 20),
]
OUTCOME = {"W": "water", "H": "hit", "S": "sunk"}


def shot_learnt(a: Any, b: Any, player: int, cell: int) -> str:
    """What the shooter learnt of the shot just made, in OpenSpiel's information state and in
    our last shot event (the same)."""
    from interpreter.adapters.openspiel import interpreter_state

    outcome = OUTCOME[b.information_state_string(player)[-1]]
    events = interpreter_state(a).events
    last = next(e for e in reversed(events) if e["type"] == "shot")
    assert (last["player"], last["cell"], last["result"]) == (player, cell, outcome)
    return outcome


def test_battleship_matches_openspiel_move_for_move():
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    games = steps = 0
    seen_results, seen_returns, ends = set(), set(), set()
    for options, count in CASES:
        ours = register(SPEC, options=options)
        theirs = pyspiel.load_game("battleship", options)
        assert ours.num_distinct_actions() == theirs.num_distinct_actions()
        assert ours.max_game_length() == theirs.max_game_length()
        assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
        shots = ours.num_distinct_actions() // 3  # the ids below are shots
        for seed in range(count):
            a, b = ours.new_initial_state(), theirs.new_initial_state()
            shot = None  # the last action, if a shot: checked once applied (the next node, or the end)
            for player, action, _ in lockstep(a, b, random.Random(seed), f"{options} seed {seed}"):
                if shot:
                    seen_results.add(shot_learnt(a, b, *shot))
                assert a.action_to_string(player, action) == b.action_to_string(player, action)
                shot = (player, action) if action < shots else None
                steps += 1
            if shot:
                seen_results.add(shot_learnt(a, b, *shot))
            assert a.returns() == b.returns(), f"{options} seed {seed}"
            seen_returns.add(tuple(b.returns()))
            ends.add(len(b.history()) == theirs.max_game_length())
            games += 1
    assert games >= 200 and steps > 20 * games
    assert seen_results == {"water", "hit", "sunk"} and ends == {True, False}
    assert len(seen_returns) > 10


def test_every_list_offered_has_openspiels_sizes_and_bounds():
    """The number of ships and the total value (defines known before the game) and the
    sizes read from the text, for every fleet and value list the options offer."""
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    fleets = ["[2;3;3;4;5]", "[1]", "[2]", "[3]", "[1;2]", "[2;2]", "[2;3]", "[3;2]", "[1;1;1]", "[1;2;3]",
              "[2;2;2]", "[3;3;3]", "[2;3;4]", "[2;2;2;2]", "[1;2;3;4]", "[5;4;3;3;2]"]
    values = ["[1.0;1.0;1.0;1.0;1.0]", "[1.0]", "[2.5]", "[1.0;1.0]", "[1.0;2.0]", "[1.0;1.0;1.0]", "[1.0;2.0;3.0]",
              "[1.0;1.0;1.0;1.0]", "[1.0;2.0;3.0;4.0]", "[1.0;2.0;3.0;4.0;5.0]", "[0.5;1.5;2.0;0.0;3.0]"]
    checked = 0
    for fleet in fleets:
        for worth in values:
            if fleet.count(";") != worth.count(";"):
                continue
            for multiplier in (1.0, -0.5, 0.0):
                options = dict(ship_sizes=fleet, ship_values=worth, num_shots=7, loss_multiplier=multiplier)
                ours, theirs = register(SPEC, options=options), pyspiel.load_game("battleship", options)
                assert ours.max_game_length() == theirs.max_game_length(), options
                assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility()), options
                checked += 1
            # the first ship to place: its placements are OpenSpiel's (its size read from the text)
            a = register(SPEC, options=dict(ship_sizes=fleet, ship_values=worth)).new_initial_state()
            b = pyspiel.load_game("battleship", dict(ship_sizes=fleet, ship_values=worth)).new_initial_state()
            assert a.legal_actions() == b.legal_actions(), fleet
    assert checked == 3 * 34  # every fleet with every value list of its length
