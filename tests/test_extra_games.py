"""Rules of the three extra games (docs/rulings-tictactoe.md, -goofspiel.md, -whist.md)."""

from __future__ import annotations

import random

import pytest

import interpreter
from tests.conftest import GAMES
from tests.support import act, labels, loader, play_random, redecide, set_zone, zone_names

tictactoe = loader(GAMES / "tictactoe.yaml")
goofspiel = loader(GAMES / "goofspiel.yaml")
whist = loader(GAMES / "whist.yaml")


# ------------------------------------------------------------------ tic-tac-toe


def play_cells(state, cells):
    for cell in cells:
        state.apply_action(cell)


@pytest.mark.parametrize("cells, winner", [
    ([0, 3, 1, 4, 2], 0),  # x: top row
    ([0, 1, 3, 2, 6], 0),  # x: left column
    ([0, 1, 4, 2, 8], 0),  # x: diagonal
    ([1, 2, 0, 4, 3, 6], 1),  # o: anti-diagonal 2, 4, 6
])
def test_tictactoe_lines_win_plus_one_minus_one(cells, winner):
    state = tictactoe().new_initial_state(0)
    play_cells(state, cells)
    assert state.is_terminal()
    expected = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
    assert state.returns() == expected and state.winners() == [winner]


def test_tictactoe_full_board_is_a_draw_and_actions_are_cells():
    game = tictactoe()
    state = game.new_initial_state(0)
    assert state.legal_actions() == list(range(9)) and game.num_distinct_actions == 9
    assert state.action_to_string(0) == "x(0,0)" and state.action_to_string(5) == "x(1,2)"
    play_cells(state, [0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    with pytest.raises(interpreter.IllegalActionError):
        state.apply_action(0)


def test_tictactoe_a_taken_cell_is_not_legal():
    state = tictactoe().new_initial_state(0)
    state.apply_action(4)
    assert 4 not in state.legal_actions() and state.action_to_string(0) == "o(0,0)"


# ------------------------------------------------------------------ goofspiel


def bid(state, value):
    state.apply_action(value - 1)


def test_goofspiel_descending_prizes_single_highest_bid_scores_and_ties_discard():
    game = goofspiel(3, num_cards=4)
    state = game.new_initial_state(0)
    assert zone_names(state, "prize") == ["4"]
    assert [zone_names(state, "hand", p) for p in range(3)] == [["1", "2", "3", "4"]] * 3
    bid(state, 4)
    bid(state, 4)
    bid(state, 1)  # 4 and 4 tie for the highest: the prize is discarded, seat 2's lower bid wins nothing
    assert zone_names(state, "discarded") == ["4"] and state.observation(0)["players"][2]["score"] == 0
    assert zone_names(state, "prize") == ["3"]
    bid(state, 1)
    bid(state, 3)
    bid(state, 2)  # seat 1 alone bids highest: takes 3 points
    assert [state.observation(0)["players"][p]["score"] for p in range(3)] == [0, 3, 0]
    bid(state, 2)
    bid(state, 1)
    bid(state, 3)  # seat 2 takes the 2
    # one card left in each hand (seat 0: 3, seat 1: 2, seat 2: 4): played automatically,
    # no decision; seat 2's 4 takes the last prize, 1
    assert state.is_terminal()
    assert state.scores() == [0, 3, 3]
    # win_loss: the two winners share +1, the loser takes -1
    assert state.winners() == [1, 2] and state.returns() == [-1.0, 0.5, 0.5]


def test_goofspiel_all_equal_is_zero_and_bids_stay_secret_until_everybody_bid():
    game = goofspiel(2, num_cards=3)
    state = game.new_initial_state(0)
    bid(state, 3)
    assert state.observation(1)["zones"]["bid"][0] == {"count": 1}
    bid(state, 3)
    bid(state, 2)
    bid(state, 2)
    assert state.is_terminal() and state.scores() == [0, 0] and state.returns() == [0.0, 0.0]


def test_goofspiel_random_order_reveals_by_chance():
    game = loader(GAMES / "goofspiel.yaml", explicit_chance=True)(2, points_order="random", num_cards=5)
    state = game.new_initial_state(0)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, 0.2) for k in range(5)]
    state.apply_action(2)
    assert zone_names(state, "prize") == ["3"]


# ------------------------------------------------------------------ whist


def whist_after_deal(seed=0):
    game = whist()
    return game, game.new_initial_state(seed)


def test_whist_deal_trump_and_first_leader():
    game, state = whist_after_deal(3)
    assert [len(zone_names(state, "hand", p)) for p in range(4)] == [13] * 4
    trump_event = next(e for e in state.events if e["type"] == "trump")
    assert trump_event["dealer"] == 0 and trump_event["card"] == zone_names(state, "hand", 0)[-1]
    assert state.observation(1)["variables"]["trump"] == trump_event["card"].split(" of ")[1]
    assert state.current_player() == 1  # left of the dealer leads


def test_whist_must_follow_suit_and_trumps_win():
    game, state = whist_after_deal(0)
    hands = {
        1: ["2 of Hearts", "9 of Spades"],
        2: ["King of Hearts", "3 of Clubs"],
        3: ["4 of Clubs", "5 of Diamonds"],
        0: ["7 of Hearts", "Ace of Clubs"],
    }
    for p, cards in hands.items():
        for card in zone_names(state, "hand", p):
            set_zone(state, "deck", None, [card])
        set_zone(state, "hand", p, cards, source="deck")
    state.g[state.game.link.var_slots["trump"]] = "Clubs"
    redecide(state)
    act(state, "play 2 of Hearts")  # seat 1 leads hearts
    assert sorted(labels(state)) == ["play King of Hearts"]  # seat 2 must follow
    act(state, "play King of Hearts")
    assert sorted(labels(state)) == ["play 4 of Clubs", "play 5 of Diamonds"]  # seat 3 has no heart
    act(state, "play 4 of Clubs")  # trumps
    act(state, "play 7 of Hearts")
    trick = [e for e in state.events if e["type"] == "trick"][-1]
    played = ["2 of Hearts", "King of Hearts", "4 of Clubs", "7 of Hearts"]
    assert trick == {"type": "trick", "winner": 3, "cards": played}
    assert state.current_player() == 3  # the winner leads
    act(state, "play 5 of Diamonds")
    act(state, "play Ace of Clubs")  # seat 0 cannot follow diamonds and trumps
    act(state, "play 9 of Spades")
    act(state, "play 3 of Clubs")  # a higher trump wins: Ace
    assert [e for e in state.events if e["type"] == "trick"][-1]["winner"] == 0


def test_whist_scores_tricks_over_six_for_both_partners_and_match_ends_at_target():
    game = whist(target=2)
    for seed in range(3):
        state = game.new_initial_state(seed)
        play_random(state, random.Random(seed))
        for event in (e for e in state.events if e["type"] == "round_end"):
            tricks = event["tricks"]
            assert sum(tricks) == 13
            for p in range(4):
                team = tricks[p] + tricks[(p + 2) % 4]
                assert event["scores"][p] == max(0, team - 6)
        totals = state.events[-1]["totals"]
        assert max(totals) >= 2 and totals[0] == totals[2] and totals[1] == totals[3]
        assert set(state.winners()) in ({0, 2}, {1, 3})
