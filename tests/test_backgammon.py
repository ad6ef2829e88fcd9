"""Backgammon (games/backgammon.yaml): the rules of docs/rulings-backgammon.md, then
move-for-move agreement with OpenSpiel's `backgammon` on 200 random games (and a few more
under the other scoring types and hyper-backgammon).

The board is OpenSpiel's: point i (0..23) of seat s is ``pts[s * 24 + i]``; x (seat 0)
moves up from 0 and bears off past 23, o (seat 1) moves down from 23 and bears off past 0.
An action id is 676 * (the first move uses the low die) + 26 * second + first, where a
move is named by the point it starts from, 24 for the bar, 25 for none. Rule tests load the
spec with explicit chance, so every roll is an outcome the test picks, and those that need
a given position load the same spec with other starting counts: only those starting values
change, never a rule.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
import yaml

import interpreter
from tests.conftest import GAMES, require
from tests.support import loader, lockstep, play

SPEC = (GAMES / "backgammon.yaml").read_text(encoding="utf-8")

# OpenSpiel's chance outcomes: the 30 rolls without a double (each one way round, then the
# other), then the six doubles; the opening roll uses the first 30, even ones x starting
ROLLS = [pair for a in range(1, 7) for b in range(a + 1, 7) for pair in ((a, b), (b, a))]
ROLLS += [(d, d) for d in range(1, 7)]
PASS = 1351


def opening(seat: int, lo: int, hi: int) -> int:
    """The opening outcome where ``seat`` starts with the dice lo and hi."""
    k = ROLLS.index((lo, hi) if seat == 0 else (hi, lo))
    assert k < 30 and k % 2 == seat
    return k


def roll(a: int, b: int) -> int:
    """The outcome of a later roll of a and b (the dice are the same either way round)."""
    return ROLLS.index((a, b))


def action(first: int, second: int = 25, low_first: bool = False) -> int:
    """The id of the moves from ``first`` then from ``second`` (24: the bar, 25: none)."""
    return 676 * low_first + 26 * second + first


load = loader(GAMES / "backgammon.yaml", explicit_chance=True, cache=True)


def counts(x: dict[int, int], o: dict[int, int]) -> list[int]:
    return [x.get(i, 0) for i in range(24)] + [o.get(i, 0) for i in range(24)]


VARIABLES = list(yaml.safe_load(SPEC)["variables"])


def from_position(x: dict[int, int], o: dict[int, int], bar: tuple[int, int] = (0, 0),
                  borne: tuple[int, int] | None = None, turns: int = 0, **options: Any) -> interpreter.State:
    """A new match, waiting on the opening roll, from the given points (and bar, borne off,
    turns played): a saved new state with those starting values, loaded back."""
    checkers = 3 if options.get("hyper_backgammon") else 15
    if borne is None:
        borne = (checkers - sum(x.values()) - bar[0], checkers - sum(o.values()) - bar[1])
    game = load(**options)
    data = game.new_initial_state(0).to_dict()
    for name, value in (("pts", counts(x, o)), ("bar", list(bar)), ("borne", list(borne)), ("turns", turns)):
        data["g"][VARIABLES.index(name)] = value
    state = interpreter.State.from_dict(game, data)
    assert game.check_invariants(state) == []
    return state


def var(state: interpreter.State, name: str) -> Any:
    return state.observation(0, events=False)["variables"][name]


def labels(state: interpreter.State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return load()


# ------------------------------------------------------------------ B1: the board, options


def test_defaults_start_position_and_ids(game):
    assert game.options == {"scoring_type": "winloss_scoring", "hyper_backgammon": False, "max_player_turns": 500}
    assert game.num_players == 2 and game.seat_names == ["x", "o"]
    assert game.num_distinct_actions == 1352 and game.max_chance_outcomes == 36
    assert game.max_game_length == 3 * 500 + 2
    state = game.new_initial_state(0)
    assert var(state, "pts") == counts({0: 2, 11: 5, 16: 3, 18: 5}, {23: 2, 12: 5, 7: 3, 5: 5})
    assert var(state, "bar") == [0, 0] and var(state, "borne") == [0, 0]
    hyper = load(hyper_backgammon=True).new_initial_state(0)
    assert var(hyper, "pts") == counts({0: 1, 1: 1, 2: 1}, {21: 1, 22: 1, 23: 1})


# ------------------------------------------------------------------ B2-B3: the rolls


def test_the_opening_roll_picks_the_starter_and_its_dice(game):
    state = game.new_initial_state(0)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 30)) for k in range(30)]
    assert state.action_to_string(0) == "chance: X starts, (roll: 12)"
    assert state.action_to_string(1) == "chance: O starts, (roll: 21)"
    assert state.action_to_string(29) == "chance: O starts, (roll: 65)"
    x_starts = play(game.new_initial_state(0), opening(0, 3, 5))
    assert x_starts.current_player() == 0 and (var(x_starts, "lo"), var(x_starts, "hi")) == (3, 5)
    o_starts = play(game.new_initial_state(0), opening(1, 3, 5))
    assert o_starts.current_player() == 1 and (var(o_starts, "lo"), var(o_starts, "hi")) == (3, 5)


def test_later_rolls_are_36_outcomes_and_the_turn_passes(game):
    state = play(game.new_initial_state(0), opening(1, 1, 2))
    play(state, state.legal_actions()[0])
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 36)) for k in range(36)]
    assert state.action_to_string(0) == "chance: (roll: 12)"
    assert state.action_to_string(35) == "chance: (roll: 66)"
    play(state, roll(4, 2))
    assert state.current_player() == 0 and (var(state, "lo"), var(state, "hi")) == (2, 4)


# ------------------------------------------------------------------ B4: ids and labels


def test_an_action_is_two_moves_encoded_as_openspiel_does(game):
    state = play(game.new_initial_state(0), opening(0, 1, 2))
    # every pair of moves, in both orders (OpenSpiel keeps both ids)
    assert state.legal_actions() == [0, 11, 16, 18, 52, 349, 416, 427, 432, 434, 468, 479, 484, 486,
                                     538, 676, 692, 694, 702, 962, 978, 980, 1092, 1108, 1110,
                                     1134, 1144, 1160, 1162, 1188]
    assert (state.action_to_string(0), state.action_to_string(676)) == ("0 - 24/23 24/22", "676 - 24/23 24/22")
    assert state.action_to_string(52) == "52 - 24/22/21"
    # 16: the high die (2) from point 16 first, then the low die (1) from point 0
    assert state.action_to_string(16) == "16 - 24/23 8/6"
    play(state, action(16, 0))
    assert var(state, "pts")[:24] == [1, 1] + [0] * 9 + [5, 0, 0, 0, 0, 2, 0, 6, 0, 0, 0, 0, 0]


# ------------------------------------------------------------------ B5: landing and hitting


def test_a_lone_checker_is_hit_to_the_bar():
    state = from_position({0: 1, 18: 14}, {3: 1, 23: 14})
    play(state, opening(0, 1, 3))
    assert state.action_to_string(action(0, 18)) == "468 - 24/21* 6/5"
    play(state, action(0, 18))
    assert var(state, "pts")[3] == 1 and var(state, "pts")[24 + 3] == 0
    assert var(state, "bar") == [0, 1]
    assert any(e["type"] == "hit" and e["point"] == 3 for e in state.events)


def test_a_point_held_by_two_is_blocked():
    state = from_position({0: 1, 18: 14}, {3: 2, 23: 13})
    play(state, opening(0, 1, 3))
    assert not any("24/21" in label for label in labels(state))
    # the 1 first, then the 3 from there, passes over the block
    assert "702 - 24/23/20" in labels(state) and action(0, 1, low_first=True) == 702


# ------------------------------------------------------------------ B6: the bar


def test_checkers_on_the_bar_enter_first():
    # x's entry points are 0..5 (the die less one); o holds 0..4
    state = from_position({18: 14}, {0: 2, 1: 2, 2: 2, 3: 2, 4: 2, 23: 5}, bar=(1, 0))
    play(state, opening(0, 1, 6))
    legal = state.legal_actions()
    assert legal and all(a < 676 and a % 26 == 24 for a in legal)  # the 6 enters, first
    assert labels(state) == ["154 - Bar/19/18", "492 - Bar/19 6/5"] and action(24, 5) == 154


def test_a_closed_board_leaves_only_a_pass_or_a_single_entry():
    closed = {i: 2 for i in range(6)} | {23: 3}
    state = from_position({18: 14}, closed, bar=(1, 0))
    play(state, opening(0, 1, 6))
    assert state.legal_actions() == [PASS] and labels(state) == ["Pass"]
    play(state, PASS)
    assert state.is_chance_node() and var(state, "bar") == [1, 0]
    # two on the bar, one can enter: that one move only
    state = from_position({18: 13}, {i: 2 for i in range(5)} | {23: 5}, bar=(2, 0))
    play(state, opening(0, 1, 6))
    assert state.legal_actions() == [action(24)] and labels(state) == ["674 - Bar/19 Pass"]


# ------------------------------------------------------------------ B8: bearing off


def test_bearing_off_exactly_or_from_the_furthest_point():
    state = from_position({20: 2, 22: 3}, {5: 15})
    play(state, opening(0, 1, 6))
    firsts = {(a % 676 % 26, a >= 676) for a in state.legal_actions()}
    assert (20, False) in firsts  # the 6 from 20, the furthest point
    assert (22, False) not in firsts  # not from 22 while 20 holds checkers
    play(state, action(20, 22))
    assert var(state, "borne") == [11, 0] and var(state, "pts")[20:24] == [1, 0, 2, 1]


def test_bearing_off_waits_until_every_checker_is_home():
    state = from_position({17: 1, 22: 4}, {5: 15})
    play(state, opening(0, 1, 2))
    legal = state.legal_actions()
    assert action(17, 22, low_first=True) in legal  # 17 home with the 1, then 22 off with the 2
    assert action(22, 17) not in legal  # the 2 off first: 17 is not home yet
    assert state.action_to_string(action(17, 22, low_first=True)) == "1265 - 7/6 2/Off"


# ------------------------------------------------------------------ B7: using the dice


def test_both_dice_must_be_played_when_they_can():
    state = from_position({0: 1}, {23: 15})
    play(state, opening(0, 5, 6))
    assert labels(state) == ["156 - 24/18/13", "806 - 24/19/13"]


def test_the_higher_die_when_only_one_can_be_played():
    state = from_position({0: 1}, {11: 2, 23: 13})
    play(state, opening(0, 5, 6))
    assert state.legal_actions() == [action(0)] and labels(state) == ["650 - 24/18 Pass"]
    # only the lower one can be played: then that one
    state = from_position({0: 1}, {6: 2, 11: 2, 23: 11})
    play(state, opening(0, 5, 6))
    assert state.legal_actions() == [action(0, low_first=True)] and labels(state) == ["1326 - 24/19 Pass"]


# ------------------------------------------------------------------ B9: doubles


def test_a_double_is_two_actions_by_the_same_player(game):
    state = play(game.new_initial_state(0), opening(1, 1, 2))
    play(state, state.legal_actions()[0], roll(6, 6))
    assert state.current_player() == 0 and (var(state, "lo"), var(state, "hi")) == (6, 6)
    play(state, action(0, 0))  # 24/18(2)
    assert not state.is_chance_node() and state.current_player() == 0 and var(state, "extra")
    assert var(state, "turns") == 2  # the second action is not a new turn
    play(state, action(11, 11))
    assert state.is_chance_node() and var(state, "turns") == 2


def test_no_second_action_after_a_double_that_moved_one_checker():
    state = from_position({0: 1}, {12: 2, 23: 13})
    play(state, opening(1, 1, 2))
    play(state, next(a for a in state.legal_actions() if "13" not in state.action_to_string(a)))
    play(state, roll(6, 6))
    assert state.legal_actions() == [action(0)]  # 0 -> 6, then 12 is blocked
    play(state, action(0))
    assert state.is_chance_node() and state.current_player() != 0


# ------------------------------------------------------------------ B10-B13: the end, returns, the cap, hyper


def test_bearing_off_the_last_checker_wins_at_once():
    state = from_position({23: 1}, {5: 15})
    play(state, opening(0, 1, 2))
    assert labels(state) == ["673 - 1/Off Pass"]  # the higher die, from the furthest point
    play(state, action(23))
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    # o wins the same way, also in the middle of a double
    state = from_position({18: 15}, {0: 1, 1: 1})
    play(state, opening(0, 1, 2), action(18, 18), roll(2, 2))
    play(state, action(1, 0))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    # ... or with its second action
    state = from_position({18: 15}, {0: 4})
    play(state, opening(0, 1, 2), action(18, 18), roll(1, 1), action(0, 0))
    assert not state.is_terminal() and state.current_player() == 1 and var(state, "borne") == [0, 13]
    play(state, action(0, 0))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_no_returns_before_the_end(game):
    state = play(game.new_initial_state(0), opening(0, 1, 2), 0)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


@pytest.mark.parametrize("scoring, o, o_bar, o_borne, worth", [
    ("winloss_scoring", {5: 15}, 0, 0, 1),
    ("enable_gammons", {5: 15}, 0, 0, 2),           # a gammon: o bore nothing off
    ("enable_gammons", {5: 14}, 0, 1, 1),
    ("enable_gammons", {20: 15}, 0, 0, 2),          # no backgammon in this scoring
    ("full_scoring", {5: 15}, 0, 0, 2),
    ("full_scoring", {5: 14, 20: 1}, 0, 0, 3),      # a backgammon: a checker in x's home
    ("full_scoring", {5: 14}, 1, 0, 3),             # ... or on the bar
    ("full_scoring", {5: 13, 20: 1}, 0, 1, 1),      # one borne off: a single game
])
def test_gammons_and_backgammons_under_the_scoring_types(scoring, o, o_bar, o_borne, worth):
    state = from_position({23: 1}, o, bar=(0, o_bar), borne=(14, o_borne), scoring_type=scoring)
    play(state, opening(0, 1, 2), action(23))
    assert state.is_terminal() and state.returns() == [worth, -worth]


def test_the_game_ends_without_a_winner_after_max_player_turns():
    game = load(max_player_turns=1)
    assert game.max_game_length == 5
    state = play(game.new_initial_state(0), opening(0, 1, 2), 0, roll(6, 6))
    assert state.current_player() == 1
    play(state, state.legal_actions()[0])  # o's first action is turn 2: past the cap
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_hyper_backgammon_three_checkers_and_every_return_zero():
    state = from_position({23: 1}, {0: 1, 1: 1, 2: 1}, hyper_backgammon=True, scoring_type="full_scoring")
    play(state, opening(0, 1, 2), action(23))
    # the game ends with all three borne off, but OpenSpiel's returns look for fifteen
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


# ------------------------------------------------------------------ for bots


def test_the_heuristic_is_the_pip_count_lead(game):
    state = game.new_initial_state(0)
    assert [game.heuristic(state, p) for p in (0, 1)] == [0.0, 0.0]  # 167 pips each
    play(state, opening(0, 1, 2), action(16, 0))  # x moves 3 pips
    assert [game.heuristic(state, p) for p in (0, 1)] == [0.03, -0.03]


# ------------------------------------------------------------------ against OpenSpiel


def their_label(theirs: Any, player: int, action_id: int) -> str:
    """OpenSpiel's label in ours: decisions are the same; a chance outcome drops the number
    ("chance outcome 0 X starts, (roll: 12)" is ours "chance: X starts, (roll: 12)")."""
    return re.sub(r"^chance outcome \d+ ", "chance: ", theirs.action_to_string(player, action_id))


CASES = [
    ({}, 200, 10),                                     # OpenSpiel's defaults
    ({"scoring_type": "full_scoring"}, 12, 0),
    ({"scoring_type": "enable_gammons"}, 6, 0),
    ({"hyper_backgammon": True}, 20, 0),
    ({"max_player_turns": 12}, 20, 0),
]


@pytest.mark.parametrize("options, games, every_label", CASES)
def test_backgammon_matches_openspiel_move_for_move(options, games, every_label):
    """Identical current player, legal actions, chance outcomes and probabilities, labels
    (of every legal action in the first ``every_label`` games, of the one played in the
    others) and returns."""
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "backgammon.yaml"), options=options)
    theirs = pyspiel.load_game("backgammon", options)
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 1352
    assert ours.max_chance_outcomes() == theirs.max_chance_outcomes() == 36
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    assert ours.max_game_length() == theirs.max_game_length() + 2
    results: dict[tuple[float, ...], int] = {}
    steps = doubles = hits = 0
    for seed in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        previous = -1  # no mover yet
        for player, chosen, offered in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            shown = offered if player >= 0 and seed < every_label else [chosen]
            for x in shown:
                assert a.action_to_string(player, x) == their_label(b, player, x), f"seed {seed}, step {steps}"
            hits += "*" in b.action_to_string(player, chosen)
            doubles += previous >= 0 and player == previous  # the last mover moves again
            previous = player
            steps += 1
        assert a.returns() == b.returns(), f"seed {seed}"
        results[tuple(b.returns())] = results.get(tuple(b.returns()), 0) + 1
    assert steps > 20 * games and doubles > games / 2 and hits > games / 2
    if not options:
        assert set(results) == {(1.0, -1.0), (-1.0, 1.0)}
    if options.get("scoring_type") == "full_scoring":
        assert {abs(r[0]) for r in results} == {1.0, 2.0, 3.0}
    if options.get("hyper_backgammon") or options.get("max_player_turns"):
        assert set(results) == {(0.0, 0.0)}
