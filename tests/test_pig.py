"""Pig (games/pig.yaml): the rules of docs/rulings-pig.md, then move-for-move agreement with
OpenSpiel's `pig` on 300 random games over five parameter sets.

Rule tests load the spec with explicit chance, so every roll is an outcome the test picks:
action 0 is roll, 1 is stop, and after a roll outcome k is the face k + 1 (in piglet,
outcome 0 is a 1 and outcome 1 anything else), as in OpenSpiel.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

import interpreter
from tests import support
from tests.conftest import GAMES, require
from tests.support import loader, lockstep

ROLL, STOP = 0, 1


load = loader(GAMES / "pig.yaml", players=2, explicit_chance=True)


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return load()


def face(k: int) -> int:
    """The chance outcome of rolling face k."""
    return k - 1


play = functools.partial(support.play, legal=False)  # (the state's own check only)


def turn_total(state: interpreter.State) -> int:
    return state.observation(0, events=False)["variables"]["turn_total"]


def banked(state: interpreter.State) -> list[int]:
    return [p["score"] for p in state.observation(0, events=False)["players"]]


# ------------------------------------------------------------------ P1-P3: ids, the start


def test_defaults_ids_and_the_first_player(game):
    assert game.options == {"winscore": 100, "diceoutcomes": 6, "horizon": 1000, "piglet": False}
    assert game.num_players == 2 and game.num_distinct_actions == 2
    assert [game.describe_action(a) for a in (ROLL, STOP)] == ["roll", "stop"]
    state = game.new_initial_state(0)
    assert state.current_player() == 0  # seat 0 always starts
    assert state.legal_actions() == [ROLL, STOP]
    assert [state.action_to_string(a) for a in (ROLL, STOP)] == ["roll", "stop"]


def test_a_roll_is_a_chance_node_face_minus_one_uniform(game):
    state = play(game.new_initial_state(0), ROLL)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, 1 / 6) for k in range(6)]
    assert [state.action_to_string(k) for k in range(6)] == [f"chance: {k}" for k in range(1, 7)]
    eight = play(load(diceoutcomes=8).new_initial_state(0), ROLL)
    assert eight.chance_outcomes() == [(k, 1 / 8) for k in range(8)]
    assert load(diceoutcomes=8).max_chance_outcomes == 8


def test_a_one_sided_die_is_still_a_chance_node_and_always_rolls_a_one():
    # as OpenSpiel's: one outcome, at probability 1 (keep_single_chance); piglet needs two faces
    one = load(diceoutcomes=1)
    state = play(one.new_initial_state(0), ROLL)
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 1.0)]
    assert state.action_to_string(0) == "chance: 1"
    assert one.deserialize_state(state.serialize()).chance_outcomes() == [(0, 1.0)]
    play(state, 0)
    assert turn_total(state) == 0 and state.current_player() == 1  # a 1: the turn passes
    with pytest.raises(interpreter.OptionError):
        load(diceoutcomes=1, piglet=True)


# ------------------------------------------------------------------ P4-P6: a turn


def test_a_roll_other_than_one_adds_to_the_turn_total_and_keeps_the_turn(game):
    state = play(game.new_initial_state(0), ROLL, face(4), ROLL, face(6))
    assert turn_total(state) == 10 and state.current_player() == 0
    assert banked(state) == [0, 0]  # nothing banked before a stop


def test_rolling_a_one_loses_the_turn_total_and_passes_the_turn(game):
    state = play(game.new_initial_state(0), ROLL, face(5), ROLL, face(3), ROLL, face(1))
    assert state.current_player() == 1
    assert turn_total(state) == 0 and banked(state) == [0, 0]
    # a one after a banked turn loses only this turn's points
    state = play(game.new_initial_state(0), ROLL, face(6), STOP, STOP, ROLL, face(2), ROLL, face(1))
    assert banked(state) == [6, 0] and state.current_player() == 1


def test_stop_banks_the_turn_total_and_passes_the_turn(game):
    state = play(game.new_initial_state(0), ROLL, face(4), ROLL, face(6), STOP)
    assert banked(state) == [10, 0] and turn_total(state) == 0
    assert state.current_player() == 1
    play(state, ROLL, face(3), STOP)
    assert banked(state) == [10, 3] and state.current_player() == 0


def test_stopping_at_once_is_allowed_and_passes(game):
    state = play(game.new_initial_state(0), STOP)
    assert state.current_player() == 1 and banked(state) == [0, 0]


def test_turns_go_round_all_the_seats():
    state = load(players=3).new_initial_state(0)
    seen = []
    for _ in range(4):
        seen.append(state.current_player())
        play(state, STOP)
    play(state, ROLL, face(1))
    assert seen == [0, 1, 2, 0] and state.current_player() == 2


# ------------------------------------------------------------------ P7-P8: winning


def test_with_the_target_reached_stop_is_the_only_action():
    state = play(load(winscore=10).new_initial_state(0), ROLL, face(6))
    assert state.legal_actions() == [ROLL, STOP]  # 6 < 10
    play(state, ROLL, face(4))  # 10: the target is reached but not banked
    assert not state.is_terminal() and state.legal_actions() == [STOP]
    # the banked score counts too: 6 banked + 4 this turn
    state = play(load(winscore=10).new_initial_state(0), ROLL, face(6), STOP, STOP, ROLL, face(4))
    assert state.legal_actions() == [STOP]


def test_banking_the_target_ends_the_game_winner_one_others_share_minus_one():
    state = play(load(winscore=10).new_initial_state(0), ROLL, face(6), ROLL, face(5), STOP)
    assert state.is_terminal() and banked(state) == [11, 0]
    assert state.winners() == [0] and state.returns() == [1.0, -1.0]
    three = play(load(players=3, winscore=5).new_initial_state(0), STOP, ROLL, face(5), STOP)
    assert three.is_terminal() and three.winners() == [1]
    assert three.returns() == [-0.5, 1.0, -0.5]


def test_no_returns_before_the_end(game):
    state = play(game.new_initial_state(0), ROLL, face(6), STOP)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


# ------------------------------------------------------------------ P9: the horizon


def test_the_horizon_counts_decisions_and_ends_the_game_with_zero_returns():
    # two stops and a roll are three decisions: the match ends on the roll, before the die
    state = play(load(horizon=3).new_initial_state(0), STOP, STOP, ROLL)
    assert state.is_terminal() and not state.is_chance_node()
    assert state.returns() == [0.0, 0.0] and state.winners() == []
    # chance outcomes are not decisions
    state = play(load(horizon=3).new_initial_state(0), ROLL, face(2), ROLL, face(3))
    assert not state.is_terminal() and state.legal_actions() == [ROLL, STOP]


def test_a_winning_stop_on_the_horizon_still_wins():
    state = play(load(horizon=3, winscore=10).new_initial_state(0), ROLL, face(6), ROLL, face(6), STOP)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


# ------------------------------------------------------------------ P10: piglet


def test_piglet_a_one_or_one_point():
    state = play(load(piglet=True).new_initial_state(0), ROLL)
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == [0, 1]
    assert [p for _, p in outcomes] == pytest.approx([1 / 6, 5 / 6])
    play(state, 1, ROLL, 1, ROLL, 1)  # three rolls that are not a 1: one point each
    assert turn_total(state) == 3 and state.current_player() == 0
    play(state, ROLL, 0)  # a 1
    assert turn_total(state) == 0 and state.current_player() == 1 and banked(state) == [0, 0]


# ------------------------------------------------------------------ for bots


def test_the_heuristic_counts_the_turn_total_of_the_player_rolling(game):
    state = play(game.new_initial_state(0), ROLL, face(6), STOP, ROLL, face(4))
    assert [game.heuristic(state, p) for p in (0, 1)] == [6, 4]


# ------------------------------------------------------------------ against OpenSpiel


CASES = [
    (2, {}, 120),  # OpenSpiel's defaults
    (3, {"winscore": 50}, 50),
    (2, {"piglet": True, "winscore": 20}, 50),
    (4, {"diceoutcomes": 8, "winscore": 30, "horizon": 40}, 50),  # many end on the horizon
    (2, {"diceoutcomes": 3, "winscore": 6, "piglet": True, "horizon": 30}, 30),
    (2, {"diceoutcomes": 1, "horizon": 30}, 10),  # every roll a 1, at a one-outcome chance node
]


def their_label(theirs: Any, player: int, action: int, piglet: bool) -> str:
    """OpenSpiel's label in ours: decisions are the same; a chance outcome is "chance: "
    and the face (OpenSpiel's "Roll 4"), or in piglet whether the roll was not a 1."""
    text = theirs.action_to_string(player, action)
    if player >= 0:
        return text
    return f"chance: {('no', 'yes')[action]}" if piglet else "chance: " + text.removeprefix("Roll ")


@pytest.mark.parametrize("players, options, games", CASES)
def test_pig_matches_openspiel_move_for_move(players, options, games):
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "pig.yaml"), players=players, options=options)
    theirs = pyspiel.load_game("pig", {"players": players, **options})
    piglet = options.get("piglet", False)
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 2
    if options.get("diceoutcomes", 6) >= players:
        assert ours.max_chance_outcomes() == theirs.max_chance_outcomes()
    else:  # ours is the player count then (see the rulings)
        assert ours.max_chance_outcomes() == players
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    endings = set()
    steps = 0
    for seed in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        for player, action, _ in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            assert a.action_to_string(player, action) == their_label(b, player, action, piglet)
            steps += 1
        assert a.returns() == pytest.approx(b.returns()), f"seed {seed}"
        endings.add("horizon" if not any(b.returns()) else "won")
    assert steps > 20 * games
    if options.get("diceoutcomes") == 1:
        assert endings == {"horizon"}  # nobody ever banks a point
    elif options.get("horizon"):
        assert endings == {"horizon", "won"}
