"""Hearts (games/hearts.yaml): the rules of docs/rulings-hearts.md, then move-for-move agreement
with OpenSpiel's `hearts` on random games (defaults and other parameter sets).

Rule tests load the spec with explicit chance, so the test picks the pass direction and every
dealt card: `deal(...)` gives each seat the thirteen cards it names (OpenSpiel deals one card at
a time to seats 0, 1, 2, 3, 0, ...). Cards are named as OpenSpiel names them ("2C", "TD", "QS")
and a card's action id is OpenSpiel's: rank * 4 + suit (suits C, D, H, S; ranks 2 .. A).
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

SPEC = str(GAMES / "hearts.yaml")
RANKS, SUITS = "23456789TJQKA", "CDHS"
DIRECTIONS = ["No Pass", "Left", "Across", "Right"]


def cid(name: str) -> int:
    """OpenSpiel's id of a card ("QS" -> 43)."""
    return RANKS.index(name[0]) * 4 + SUITS.index(name[1])


def suit(s: str, ranks: str = RANKS) -> list[str]:
    return [r + s for r in ranks]


load = loader(SPEC, explicit_chance=True)


def deal(hands: list[list[str]], direction: int = 0, **options: Any) -> interpreter.State:
    """A new hand with this pass direction and these hands (seat 0's cards first)."""
    assert sorted(sum(hands, [])) == sorted(r + s for r in RANKS for s in SUITS)
    state = load(**options).new_initial_state(0)
    assert state.is_chance_node()
    state.apply_action(direction)  # without passing: the one outcome, 0 (No Pass)
    for i in range(52):
        card = hands[i % 4][i // 4]
        assert state.is_chance_node(), i
        # the 52nd card too is a chance node: one outcome, at probability 1
        assert state.chance_outcomes() == [(k, pytest.approx(1 / (52 - i))) for k, _ in state.chance_outcomes()]
        state.apply_action(cid(card))
    assert not state.is_chance_node()
    assert [sorted(hand(state, p)) for p in range(4)] == [sorted(h) for h in hands]
    return state


def hand(state: interpreter.State, p: int) -> list[str]:
    return state.observation(p, events=False)["zones"]["hand"][p]


def legal(state: interpreter.State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


play = functools.partial(support.play, action_of=lambda state, card: cid(card))  # cards by name


def play_out(state: interpreter.State) -> interpreter.State:
    """Everybody plays their lowest legal card until the hand is over."""
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


def points(state: interpreter.State) -> list[int]:
    return [p["points"] for p in state.observation(0, events=False)["players"]]


def tricks_won(state: interpreter.State) -> list[int]:
    return [p["tricks"] for p in state.observation(0, events=False)["players"]]


# Deal "moon": seat 0 holds every club, seat 1 the diamonds, seat 2 the hearts, seat 3 the
# spades. Seat 0 leads clubs thirteen times and wins every trick.
MOON = [suit("C"), suit("D"), suit("H"), suit("S")]
# Deal "moon without the JD": seat 1's AC takes the first trick and seat 2's JD (its only card
# without points); seat 0's AD takes the lead back and its clubs every other trick.
MOON_WITHOUT_JD = [suit("C", "23456789TJQK") + ["AD"], ["AC", "2S"] + suit("D", "23456789TQK"),
                   ["JD"] + suit("H", "23456789TJQK"), suit("S", "3456789TJQKA") + ["AH"]]
# Deal "split": seat 1's AC wins the first trick, its diamonds the next eleven, and seat 2's
# AH takes seat 1's 2H in the last.
SPLIT = [suit("C", "23456789TJQK") + ["2D"], ["AC"] + suit("D", "3456789TJQK") + ["2H"],
         suit("H", "3456789TJQKA") + ["AD"], suit("S")]
# Deal "hearts only": seat 1 wins the first trick with AC and then holds nothing but hearts.
ONLY_HEARTS = [suit("C", "23456789TJQK") + ["AH"], ["AC"] + suit("H", "23456789TJQK"), suit("D"), suit("S")]
# Deal "queen": after the first trick seat 1 holds QS and eleven hearts.
QUEEN = [suit("C", "23456789TJQK") + ["KH"], ["AC", "QS"] + suit("H", "23456789TJQ"), suit("D"),
         suit("S", "23456789TJKA") + ["AH"]]


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return load()


# ------------------------------------------------------------------ H1: cards, ids, options


def test_cards_ids_labels_and_options(game):
    assert game.num_players == 4 and game.num_distinct_actions == 52 and game.max_chance_outcomes == 52
    assert game.options == {"pass_cards": True, "no_pts_on_first_trick": True, "can_lead_any_club": False,
                            "jd_bonus": False, "avoid_all_tricks_bonus": False, "must_break_hearts": True,
                            "qs_breaks_hearts": True, "can_lead_hearts_instead_of_qs": False}
    assert list(game.cards.names) == [r + s for r in RANKS for s in SUITS]  # 2C 2D 2H 2S 3C ... AS
    assert cid("2C") == 0 and cid("QS") == 43 and cid("AS") == 51
    assert (game.min_utility, game.max_utility, game.utility_sum) == (0, 36, None)
    state = deal(MOON)
    assert state.current_player() == 0 and legal(state) == ["2C"] and state.legal_actions() == [0]


# ------------------------------------------------------------------ H2-H3: chance


def test_the_pass_direction_is_the_first_chance_node_one_in_four(game):
    state = game.new_initial_state(0)
    assert state.is_chance_node() and state.chance_outcomes() == [(d, 0.25) for d in range(4)]
    assert [state.action_to_string(d) for d in range(4)] == [f"chance: {d}" for d in DIRECTIONS]


def test_without_passing_the_direction_is_a_chance_node_with_one_outcome_no_pass():
    # as OpenSpiel's, whose one legal outcome is 0, "No Pass" (see the rulings)
    game = load(pass_cards=False)
    state = game.new_initial_state(0)
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 1.0)]
    assert state.action_to_string(0) == "chance: No Pass"
    assert game.state_from_json(state.to_json()) == state  # a state waiting on it loads back
    state.apply_action(0)
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 52)) for k in range(52)]  # the deal
    for i in range(52):
        state.apply_action(cid(MOON[i % 4][i // 4]))
    assert state.current_player() == 0 and legal(state) == ["2C"]  # no passing: the 2C's holder leads
    play(state, "2C")
    assert state.current_player() == 1


def test_the_deal_is_card_by_card_to_seats_0_1_2_3_uniform_among_the_rest(game):
    state = game.new_initial_state(0)
    state.apply_action(1)
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 52)) for k in range(52)]
    assert state.action_to_string(cid("TD")) == "chance: TD"
    for card, seat in (("AS", 0), ("2C", 1), ("KH", 2), ("3D", 3), ("4D", 0)):
        state.apply_action(cid(card))
        assert card in hand(state, seat)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 47 and all(p == pytest.approx(1 / 47) for _, p in outcomes)
    assert [k for k, _ in outcomes] == sorted(set(range(52)) - {cid(c) for c in ("AS", "2C", "KH", "3D", "4D")})
    assert [len(hand(state, p)) for p in range(4)] == [2, 1, 1, 1]
    for _ in range(46):
        state.apply_action(state.chance_outcomes()[-1][0])
    # the 52nd card has one place to go, and OpenSpiel still asks: probability 1, to seat 3
    (last, p), = state.chance_outcomes()
    assert p == 1.0 and state.action_to_string(last) == "chance: " + RANKS[last // 4] + SUITS[last % 4]
    state.apply_action(last)
    assert not state.is_chance_node() and [len(hand(state, p)) for p in range(4)] == [13] * 4
    assert RANKS[last // 4] + SUITS[last % 4] in hand(state, 3)


def test_a_state_waiting_on_the_52nd_card_survives_a_json_round_trip(game):
    state = game.new_initial_state(0)
    for _ in range(52):
        state.apply_action(state.chance_outcomes()[0][0])
    assert len(state.chance_outcomes()) == 1
    assert game.state_from_json(state.to_json()) == state


# ------------------------------------------------------------------ H4: passing


@pytest.mark.parametrize("direction, shift", [(1, 1), (2, 2), (3, 3)])
def test_seats_0_to_3_pass_three_cards_each_then_the_cards_change_hands(direction, shift):
    state = deal(MOON, direction)
    assert state.current_player() == 0 and len(state.legal_actions()) == 13  # any of one's cards
    play(state, "2C", "AC")
    assert state.current_player() == 0 and "2C" not in legal(state) and len(legal(state)) == 11
    play(state, "7C")
    assert state.current_player() == 1
    play(state, "2D", "3D", "4D")
    assert state.current_player() == 2 and len(hand(state, 0)) == 10 and len(hand(state, 1)) == 10
    play(state, "2H", "3H", "QH")
    assert len(hand(state, 3)) == 13
    play(state, "QS", "KS", "AS")
    # every hand is back to 13, with the three cards of the player `shift` seats to the right
    passed = [["2C", "AC", "7C"], ["2D", "3D", "4D"], ["2H", "3H", "QH"], ["QS", "KS", "AS"]]
    for p in range(4):
        mine = hand(state, p)
        assert len(mine) == 13 and set(passed[(p - shift) % 4]) <= set(mine)
    # the new holder of the 2C leads it
    assert state.current_player() == shift and legal(state) == ["2C"]


def test_no_pass_goes_straight_to_the_play(game):
    state = deal(SPLIT, 0)
    assert state.current_player() == 0 and legal(state) == ["2C"]


# ------------------------------------------------------------------ H5: the first lead


def test_the_holder_of_the_2c_must_lead_it_unless_any_club_may_be_led():
    state = deal(SPLIT)
    assert legal(state) == ["2C"]
    state = deal(SPLIT, can_lead_any_club=True)
    assert legal(state) == suit("C", "23456789TJQK")


# ------------------------------------------------------------------ H6: following suit, the winner


def test_follow_suit_the_highest_card_of_the_suit_led_wins_and_leads_next():
    state = play(deal(SPLIT), "2C")
    assert state.current_player() == 1 and legal(state) == ["AC"]  # the only club
    play(state, "AC")
    assert legal(state) == ["AD"]  # seat 2 is void: AD is its only card without points
    play(state, "AD")
    play(state, "2S")
    # seat 1's AC beats the AD (not the suit led)
    assert state.current_player() == 1 and tricks_won(state) == [0, 1, 0, 0] and points(state) == [0] * 4
    play(state, "3D")
    play(state, "3H")  # seat 2 has no diamond left: a heart
    play(state, "3S")
    assert state.current_player() == 0 and legal(state) == ["2D"]
    play(state, "2D")
    assert state.current_player() == 1 and points(state) == [0, 1, 0, 0]


# ------------------------------------------------------------------ H7: no points on the first trick


def test_no_hearts_nor_the_queen_of_spades_on_the_first_trick_unless_nothing_else():
    state = play(deal(SPLIT), "2C", "AC")
    assert legal(state) == ["AD"]
    play(state, "AD")
    assert legal(state) == [c for c in suit("S") if c != "QS"]
    # seat 2 of MOON holds only hearts: it may play one
    state = play(deal(MOON), "2C")
    assert legal(state) == suit("D")
    play(state, "2D")
    assert legal(state) == suit("H")
    play(state, "AH")
    assert points(state) == [0] * 4
    play(state, "2S")
    assert points(state) == [1, 0, 0, 0]


def test_points_on_the_first_trick_when_the_option_is_off():
    state = play(deal(SPLIT, no_pts_on_first_trick=False), "2C", "AC")
    assert legal(state) == sorted(suit("H", "3456789TJQKA") + ["AD"], key=cid)
    play(state, "AH")
    assert legal(state) == suit("S")
    play(state, "QS")
    assert points(state) == [0, 14, 0, 0]


# ------------------------------------------------------------------ H8: breaking hearts


def test_hearts_cannot_be_led_until_a_heart_has_been_played():
    state = play(deal(SPLIT), "2C", "AC", "AD", "2S")
    assert legal(state) == suit("D", "3456789TJQK")  # not the 2H
    play(state, "3D", "3H", "3S", "2D")  # a heart discarded: hearts are broken
    assert legal(state) == sorted(suit("D", "456789TJQK") + ["2H"], key=cid)


def test_the_queen_of_spades_breaks_hearts_unless_the_option_is_off():
    state = play(deal(SPLIT, no_pts_on_first_trick=False), "2C", "AC", "AD", "QS")
    assert "2H" in legal(state)
    state = play(deal(SPLIT, no_pts_on_first_trick=False, qs_breaks_hearts=False), "2C", "AC", "AD", "QS")
    assert "2H" not in legal(state)


def test_hearts_may_be_led_at_once_without_must_break_hearts():
    state = play(deal(SPLIT, must_break_hearts=False), "2C", "AC", "AD", "2S")
    assert "2H" in legal(state)


def test_a_hand_of_hearts_only_may_lead_hearts_before_they_are_broken():
    state = play(deal(ONLY_HEARTS), "2C", "AC", "2D", "2S")
    assert state.current_player() == 1 and legal(state) == suit("H", "23456789TJQK")


# ------------------------------------------------------------------ H9: hearts instead of the queen


def test_a_lone_leadable_queen_of_spades_must_be_led_unless_the_option_says_otherwise():
    state = play(deal(QUEEN), "2C", "AC", "2D", "2S")
    assert state.current_player() == 1 and legal(state) == ["QS"]
    state = play(deal(QUEEN, can_lead_hearts_instead_of_qs=True), "2C", "AC", "2D", "2S")
    assert legal(state) == sorted(["QS"] + suit("H", "23456789TJQ"), key=cid)


# ------------------------------------------------------------------ H10-H11: points, returns


def test_points_and_returns_26_minus_points(game):
    state = play(deal(SPLIT), "2C", "AC", "AD", "2S")
    assert not state.is_terminal() and state.returns() == [0.0] * 4
    play_out(state)
    # seat 1 takes trick 2 (3H), then leads its 2H: seat 2 takes it (2H 4H) and, leading its
    # hearts, every later trick, the QS included
    assert tricks_won(state) == [0, 2, 11, 0] and points(state) == [0, 1, 25, 0]
    assert state.scores() == [0, 1, 25, 0] and state.returns() == [26.0, 25.0, 1.0, 26.0]
    assert state.winners() == [0, 3]


def test_the_jack_of_diamonds_scores_minus_10_with_jd_bonus():
    state = play_out(deal(SPLIT, jd_bonus=True))
    # seat 1 discards its JD on one of seat 2's heart tricks
    assert points(state) == [0, 1, 25 - 10, 0] and state.returns() == [26.0, 25.0, 11.0, 26.0]


# ------------------------------------------------------------------ H12: shooting the moon


def test_shooting_the_moon_gives_the_shooter_0_and_the_others_26():
    state = play_out(deal(MOON))
    assert tricks_won(state) == [13, 0, 0, 0] and points(state) == [26, 0, 0, 0]
    assert state.scores() == [0, 26, 26, 26] and state.returns() == [26.0, 0.0, 0.0, 0.0]
    assert state.winners() == [0]


def test_the_jack_of_diamonds_is_not_needed_to_shoot_the_moon():
    # the shooter also took the JD: 26 - 10 - 26
    state = play_out(deal(MOON, jd_bonus=True))
    assert state.scores() == [-10, 26, 26, 26] and state.returns() == [36.0, 0.0, 0.0, 0.0]
    # the JD with another player (seat 1 takes it on the first trick): seat 0 still shoots
    state = play_out(deal(MOON_WITHOUT_JD, jd_bonus=True))
    assert tricks_won(state) == [12, 1, 0, 0] and points(state) == [26, -10, 0, 0]
    assert state.scores() == [0, 16, 26, 26] and state.returns() == [26.0, 10.0, 0.0, 0.0]


# ------------------------------------------------------------------ H13: taking no trick


def test_avoiding_all_tricks_scores_minus_5_with_the_option_but_not_after_a_moon():
    state = play_out(deal(SPLIT, avoid_all_tricks_bonus=True))
    assert state.scores() == [-5, 1, 25, -5] and state.returns() == [31.0, 25.0, 1.0, 31.0]
    state = play_out(deal(MOON, avoid_all_tricks_bonus=True))
    assert state.scores() == [0, 26, 26, 26]


# ------------------------------------------------------------------ for bots


def test_the_heuristic_is_the_points_not_taken_less_a_worry_for_the_queen(game):
    state = deal(SPLIT)
    assert [game.heuristic(state, p) for p in range(4)] == [26, 26, 26, 20]
    play(state, "2C", "AC", "AD", "2S", "3D", "3H", "3S", "2D")
    assert [game.heuristic(state, p) for p in range(4)] == [26, 25, 26, 20]


# ------------------------------------------------------------------ against OpenSpiel


CASES = [
    ({}, 300),  # OpenSpiel's defaults
    ({"pass_cards": False}, 40),
    ({"no_pts_on_first_trick": False, "must_break_hearts": False}, 40),
    ({"jd_bonus": True, "avoid_all_tricks_bonus": True}, 40),
    ({"can_lead_any_club": True, "qs_breaks_hearts": False, "can_lead_hearts_instead_of_qs": True}, 40),
]


@pytest.mark.parametrize("hands, options", [
    (MOON, {}), (MOON, {"jd_bonus": True}), (MOON, {"avoid_all_tricks_bonus": True}),
    (MOON_WITHOUT_JD, {"jd_bonus": True}),
    (SPLIT, {}), (SPLIT, {"jd_bonus": True}), (SPLIT, {"avoid_all_tricks_bonus": True}),
    (ONLY_HEARTS, {}), (QUEEN, {}), (QUEEN, {"can_lead_hearts_instead_of_qs": True}),
])
def test_the_hands_of_the_rule_tests_end_as_in_openspiel(hands, options):
    """The deals above, played out by lowest legal card: OpenSpiel gives the same returns."""
    pyspiel = require("pyspiel")
    ours = play_out(deal(hands, **options))
    theirs = pyspiel.load_game("hearts", options).new_initial_state()
    for action in ours.history:  # the same actions, chance included
        if not theirs.is_chance_node():
            assert theirs.legal_actions()[0] == action
        theirs.apply_action(action)
    assert theirs.is_terminal() and theirs.returns() == ours.returns()


def their_label(theirs: Any, player: int, action: int) -> str:
    """OpenSpiel's label in ours: a chance outcome is "chance: " and OpenSpiel's text."""
    text = theirs.action_to_string(player, action)
    return text if player >= 0 else "chance: " + text


def play_no_pass(a: Any, b: Any) -> int:
    """Without passing OpenSpiel's first chance node has one legal outcome, "No Pass", though
    its chance_outcomes still lists the four at 1/4; ours has the one outcome at probability 1
    (see the rulings): checked and played on both sides (one step)."""
    assert not a.is_terminal() and not b.is_terminal() and not b.history()
    assert b.legal_actions() == [0] and b.chance_outcomes() == [(d, 0.25) for d in range(4)]
    assert a.is_chance_node() and a.chance_outcomes() == [(0, 1.0)] and a.legal_actions() == [0]
    assert a.action_to_string(-1, 0) == their_label(b, -1, 0) == "chance: No Pass"
    a.apply_action(0)
    b.apply_action(0)
    return 1


@pytest.mark.parametrize("options, games", CASES)
def test_hearts_matches_openspiel_move_for_move(options, games):
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(SPEC, options=options)
    theirs = pyspiel.load_game("hearts", options)
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 52
    assert ours.max_chance_outcomes() == theirs.max_chance_outcomes() == 52
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    assert ours.get_type().utility == theirs.get_type().utility
    # OpenSpiel counts its 64 decisions (12 passes, 52 plays); ours every action, also its 53
    # chance nodes (the pass direction, 52 cards): the longest game, below
    assert (theirs.max_game_length(), ours.max_game_length()) == (64, 64 + 53)
    passing = options.get("pass_cards", True)
    totals, lengths = set(), set()
    for seed in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        steps = 0 if passing else play_no_pass(a, b)
        for player, action, _ in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            assert a.action_to_string(player, action) == their_label(b, player, action), f"seed {seed}"
            steps += 1
        assert a.returns() == b.returns(), f"seed {seed}"
        totals.add(sum(b.returns()))
        lengths.add(steps)
    # OpenSpiel's nodes on both sides: 1 + 52 chance nodes and 52 plays, and 12 passes when the
    # direction is not "No Pass" (the longest game: the limit)
    assert lengths == ({105, 117} if passing else {105})
    if passing:
        assert max(lengths) == ours.max_game_length()
    if not (options.get("jd_bonus") or options.get("avoid_all_tricks_bonus")):
        # 104 - 26 points, or 104 - 78 after a moon shot (random play shoots the moon too)
        assert 78.0 in totals and totals <= {78.0, 26.0}
        if not options:
            assert 26.0 in totals
    else:
        assert len(totals) >= 2 and 78.0 not in totals  # the JD's -10 and the -5 for no trick change the sum
