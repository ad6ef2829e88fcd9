"""Oh Hell (games/oh_hell.yaml): the rules of docs/rulings-oh_hell.md, then move-for-move
agreement with OpenSpiel's `oh_hell` on 580 random games over eight parameter sets.

Rule tests load the spec with explicit chance, so every random event is an outcome the test
picks, with OpenSpiel's ids: first the number of tricks (the number itself), then the dealer
(a seat), then each card dealt (its id: rank * suits + suit, suits in the order C, D, S, H),
seat 0 first, and last the trump card. A decision is a card id to play it, or cards + b to
bid b.
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

load = loader(GAMES / "oh_hell.yaml", players=3, explicit_chance=True)


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return load()


def card(game: interpreter.Game, name: str) -> int:
    """A card's id (its kind): OpenSpiel's card index."""
    return game.cards.kind_names.index(name)


def bid(game: interpreter.Game, b: int) -> int:
    return game.cards.kinds + b


def deal(game: interpreter.Game, tricks: int, dealer: int, hands: list[str], trump: str) -> interpreter.State:
    """A state after the chance events: the number of tricks, the dealer, then ``hands``
    (space-separated cards, one string a seat), each dealt in turn to seats 0, 1, ... as
    OpenSpiel deals; then the trump card."""
    state = game.new_initial_state(0)
    state.apply_action(tricks)
    state.apply_action(dealer)
    cards = [h.split() for h in hands]
    assert all(len(c) == tricks for c in cards)
    for i in range(tricks):
        for seat in range(game.num_players):
            assert state.is_chance_node()
            state.apply_action(card(game, cards[seat][i]))
    assert state.is_chance_node()  # (even when a single card is left: see O12)
    state.apply_action(card(game, trump))
    assert not state.is_chance_node()
    return state


def decision(state: interpreter.State, move: int | str) -> int:
    """A card name plays it, a number bids it."""
    return card(state.game, move) if isinstance(move, str) else bid(state.game, move)


play = functools.partial(support.play, action_of=decision)


def labels(state: interpreter.State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def view(state: interpreter.State, seat: int = 0) -> dict[str, Any]:
    return state.observation(seat, events=False)


def tricks_won(state: interpreter.State) -> list[int]:
    return [p["tricks"] for p in view(state)["players"]]


# ------------------------------------------------------------------ O1-O2: the deck, the ids


def test_defaults_the_deck_and_the_ids(game):
    assert game.options == {"num_suits": 4, "num_cards_per_suit": 13, "num_tricks_fixed": -1,
                            "off_bid_penalty": False, "points_per_trick": 1}
    assert game.num_players == 3
    names = game.cards.kind_names
    assert len(names) == game.cards.count == 52
    assert names[:6] == ("C2", "D2", "S2", "H2", "C3", "D3") and names[-1] == "HA"
    assert names[32:36] == ("CT", "DT", "ST", "HT")
    # cards 0..51, then bids 0..17 (max tricks with 3 players: 51 // 3)
    assert game.num_distinct_actions == 52 + 18
    assert game.describe_action(0) == "play c=C2" and game.describe_action(52) == "bid b=0"
    assert game.describe_action(69) == "bid b=17"
    assert load(players=7).num_distinct_actions == 52 + 8  # 51 // 7 = 7
    small = load(num_suits=2, num_cards_per_suit=5)
    assert small.cards.kind_names == ("C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "C6", "D6")
    assert small.num_distinct_actions == 10 + 4  # 9 // 3 = 3
    assert load(num_tricks_fixed=4).num_distinct_actions == 52 + 5
    for players, options in ((2, {}), (8, {}), (3, {"num_suits": 1, "num_cards_per_suit": 3})):
        with pytest.raises(interpreter.OptionError):  # at least one card more than players
            load(players, **options)
    assert load(num_suits=1, num_cards_per_suit=4).num_distinct_actions == 4 + 2


# ------------------------------------------------------------------ O3-O5: chance


def test_the_number_of_tricks_is_drawn_first_uniformly_its_id_is_the_number(game):
    state = game.new_initial_state(0)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 17)) for k in range(1, 18)]
    assert game.max_chance_outcomes == 52
    seven = load(players=7).new_initial_state(0)
    assert [o for o, _ in seven.chance_outcomes()] == list(range(1, 8))
    small = load(num_suits=2, num_cards_per_suit=5).new_initial_state(0)
    assert small.chance_outcomes() == [(k, pytest.approx(1 / 3)) for k in (1, 2, 3)]
    state.apply_action(5)
    assert view(state)["variables"]["num_tricks"] == 5


def test_a_fixed_number_of_tricks_is_a_chance_node_with_one_outcome():
    state = load(num_tricks_fixed=4).new_initial_state(0)
    # as in OpenSpiel, the number of tricks is still asked for: one outcome, the number (O12)
    assert state.is_chance_node() and state.chance_outcomes() == [(4, 1.0)]
    state.apply_action(4)
    assert view(state)["variables"]["num_tricks"] == 4
    # then the dealer
    assert state.chance_outcomes() == [(s, pytest.approx(1 / 3)) for s in range(3)]
    # at most one trick possible (one suit of 4): the same
    assert load(num_suits=1, num_cards_per_suit=4).new_initial_state(0).chance_outcomes() == [(1, 1.0)]


def test_the_dealer_is_drawn_next_uniformly_a_seat(game):
    state = game.new_initial_state(0)
    state.apply_action(2)
    assert state.chance_outcomes() == [(s, pytest.approx(1 / 3)) for s in range(3)]
    assert [state.action_to_string(s) for s in range(3)] == ["chance: 0", "chance: 1", "chance: 2"]
    state.apply_action(2)  # seat 2 deals: seat 0 (on its left) bids first
    for c in range(7):
        state.apply_action(c)
    assert not state.is_chance_node() and state.current_player() == 0
    five = load(players=5).new_initial_state(0)
    five.apply_action(1)
    assert [o for o, _ in five.chance_outcomes()] == [0, 1, 2, 3, 4]


def test_cards_are_dealt_one_at_a_time_to_seat_0_first_then_the_trump_card(game):
    state = game.new_initial_state(0)
    state.apply_action(2)  # two tricks
    state.apply_action(1)  # seat 1 deals; seat 0 still gets the first card
    assert state.chance_outcomes() == [(c, pytest.approx(1 / 52)) for c in range(52)]
    for name in ["HA", "C2", "D7", "S9", "CT", "HK"]:
        state.apply_action(card(game, name))
    # the trump card: any of the 46 cards left, uniformly
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 46 and card(game, "HA") not in dict(outcomes)
    assert all(p == pytest.approx(1 / 46) for _, p in outcomes)
    state.apply_action(card(game, "D3"))
    hands = [view(state, s)["zones"]["hand"][s] for s in range(3)]
    assert [sorted(h) for h in hands] == [["HA", "S9"], ["C2", "CT"], ["D7", "HK"]]
    assert view(state)["zones"]["trump_card"] == ["D3"] and view(state)["variables"]["trump"] == "D"
    assert state.current_player() == 2  # left of the dealer bids first


# ------------------------------------------------------------------ O6-O7: bidding


def test_bids_go_round_once_from_the_left_of_the_dealer(game):
    state = deal(game, 2, 0, ["HA S9", "C2 CT", "D7 HK"], "D3")
    order = []
    for b in (1, 0, 0):
        order.append(state.current_player())
        play(state, b)
    assert order == [1, 2, 0]
    assert [p["bid"] for p in view(state)["players"]] == [0, 1, 0]
    # then the player left of the dealer leads, with a card
    assert state.current_player() == 1 and labels(state) == ["C2", "CT"]


def test_bids_run_from_0_to_the_number_of_tricks(game):
    state = deal(game, 2, 2, ["HA S9", "C2 CT", "D7 HK"], "D3")
    assert state.current_player() == 0
    assert state.legal_actions() == [52, 53, 54]
    state = deal(game, 5, 1, ["C2 C3 C4 C5 C6", "D2 D3 D4 D5 D6", "S2 S3 S4 S5 S6"], "H2")
    assert state.legal_actions() == [bid(game, b) for b in range(6)]


def test_the_last_bidder_may_not_make_the_bids_add_up_to_the_tricks(game):
    state = deal(game, 5, 1, ["C2 C3 C4 C5 C6", "D2 D3 D4 D5 D6", "S2 S3 S4 S5 S6"], "H2")
    play(state, 2, 1)  # seats 2 and 0
    assert state.current_player() == 1
    assert labels(state) == ["0", "1", "3", "4", "5"]  # not 2: 2 + 1 + 2 = 5
    # over-bids leave the last bidder every bid
    state = deal(game, 5, 1, ["C2 C3 C4 C5 C6", "D2 D3 D4 D5 D6", "S2 S3 S4 S5 S6"], "H2")
    play(state, 4, 3)
    assert labels(state) == ["0", "1", "2", "3", "4", "5"]
    # nobody but the last bidder is restricted
    state = deal(game, 2, 0, ["HA S9", "C2 CT", "D7 HK"], "D3")
    play(state, 2)
    assert labels(state) == ["0", "1", "2"]
    play(state, 0)
    assert labels(state) == ["1", "2"]


# ------------------------------------------------------------------ O8-O9: the play


def test_follow_suit_if_you_can_else_any_card(game):
    state = deal(game, 3, 2, ["C5 CK H3", "C9 D2 S4", "D5 D9 HA"], "S2")
    play(state, 0, 0, 0)
    assert state.current_player() == 0 and labels(state) == ["H3", "C5", "CK"]  # ids ascending
    play(state, "CK")
    assert labels(state) == ["C9"]  # must follow clubs
    play(state, "C9")
    assert labels(state) == ["D5", "D9", "HA"]  # no club: anything
    play(state, "HA")
    assert tricks_won(state) == [1, 0, 0] and state.current_player() == 0


def test_the_highest_trump_wins_else_the_highest_of_the_suit_led_and_the_winner_leads(game):
    # trumps are spades; seat 0 leads clubs, seat 1 trumps with S4
    state = deal(game, 3, 2, ["C5 CK H3", "D2 S4 ST", "C2 D9 HA"], "S2")
    play(state, 0, 0, 0, "CK", "S4", "C2")
    assert tricks_won(state) == [0, 1, 0] and state.current_player() == 1
    # seat 1 leads diamonds: the higher diamond wins, a heart (not trumps) does not
    play(state, "D2", "D9", "H3")
    assert tricks_won(state) == [0, 1, 1] and state.current_player() == 2
    # a higher trump over a trump
    state = deal(game, 2, 2, ["C5 S3", "D4 S4", "D2 ST"], "SA")
    play(state, 0, 0, 0, "C5", "S4", "ST")
    assert state.current_player() == 2 and tricks_won(state) == [0, 0, 1]


def test_a_trump_over_the_suit_led_and_trumps_led(game):
    state = deal(game, 1, 0, ["H5", "S4", "HQ"], "H2")
    play(state, 0, 0, 0)  # seat 1 leads
    play(state, "S4", "HQ", "H5")
    assert tricks_won(state) == [0, 0, 1]
    # trumps led: the highest trump
    state = deal(game, 1, 2, ["H5", "S4", "HQ"], "H2")
    play(state, 1, 0, 1, "H5", "S4", "HQ")
    assert tricks_won(state) == [0, 0, 1] and state.is_terminal()


# ------------------------------------------------------------------ O10-O11: scores, returns


def test_a_trick_a_point_and_10_for_the_exact_bid(game):
    state = deal(game, 3, 2, ["C5 CK H3", "C9 D2 S4", "D5 D9 HA"], "S2")
    play(state, 1, 1, 0)  # seats 0, 1, 2 (left of the dealer first)
    assert [p["bid"] for p in view(state)["players"]] == [1, 1, 0]
    play(state, "CK", "C9", "D5")  # seat 0
    play(state, "C5", "D2", "D9")  # seat 0
    play(state, "H3", "S4", "HA")  # seat 1 trumps
    assert state.is_terminal() and tricks_won(state) == [2, 1, 0]
    # seat 0: 2 tricks (bid 1): 2; seat 1: 1 trick (bid 1): 1 + 10; seat 2: none (bid 0): 10
    assert state.returns() == [2.0, 11.0, 10.0]
    state = deal(game, 3, 2, ["C5 CK H3", "C9 D2 S4", "D5 D9 HA"], "S2")
    play(state, 2, 1, 1, "CK", "C9", "D5", "C5", "D2", "D9", "H3", "S4", "HA")
    assert state.returns() == [12.0, 11.0, 0.0]  # 2 + 10, 1 + 10, 0


def test_the_off_bid_penalty_and_points_per_trick():
    penalty = load(off_bid_penalty=True, points_per_trick=3)
    state = deal(penalty, 3, 2, ["C5 CK H3", "C9 D2 S4", "D5 D9 HA"], "S2")
    play(state, 0, 1, 1, "CK", "C9", "D5", "C5", "D2", "D9", "H3", "S4", "HA")
    # seat 0: bid 0, took 2: -6; seat 1: bid 1, took 1: 3 + 10; seat 2: bid 1, took 0: -3
    assert state.returns() == [-6.0, 13.0, -3.0]
    plain = load(points_per_trick=3)
    state = deal(plain, 3, 2, ["C5 CK H3", "C9 D2 S4", "D5 D9 HA"], "S2")
    play(state, 0, 1, 1, "CK", "C9", "D5", "C5", "D2", "D9", "H3", "S4", "HA")
    assert state.returns() == [6.0, 13.0, 0.0]


def test_a_bid_of_zero_made_scores_10():
    state = deal(load(), 1, 0, ["C2", "C3", "C4"], "H2")
    play(state, 0, 0, 0, "C3", "C4", "C2")
    assert tricks_won(state) == [0, 0, 1] and state.returns() == [10.0, 10.0, 1.0]


def test_no_returns_before_the_end(game):
    state = deal(game, 2, 0, ["HA S9", "C2 CT", "D7 HK"], "D3")
    play(state, 1, 0, 0, "C2")
    assert not state.is_terminal() and state.returns() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------ O12: the whole deck dealt


def test_when_one_card_is_left_it_is_trumps_at_a_chance_node_with_one_outcome(game):
    # 17 tricks: 51 cards dealt, the last card is the trump card
    names = list(game.cards.kind_names)
    hands = [" ".join(names[s::3][:17]) for s in range(3)]
    state = game.new_initial_state(0)
    state.apply_action(17)
    state.apply_action(0)
    for i in range(17):
        for seat in range(3):
            state.apply_action(card(game, hands[seat].split()[i]))
    assert state.is_chance_node() and state.chance_outcomes() == [(card(game, "HA"), 1.0)]
    state.apply_action(card(game, "HA"))
    assert not state.is_chance_node() and view(state)["zones"]["trump_card"] == ["HA"]
    assert state.current_player() == 1
    # a state waiting on it is saved and loads back
    waiting = game.new_initial_state(0)
    for action in state.history[:-1]:
        waiting.apply_action(action)
    loaded = game.deserialize_state(waiting.serialize())
    assert loaded.is_chance_node() and loaded.chance_outcomes() == [(card(game, "HA"), 1.0)]


# ------------------------------------------------------------------ for bots


def test_the_heuristic_counts_tricks_and_whether_the_bid_still_holds(game):
    state = deal(game, 2, 0, ["HA S9", "C2 CT", "D7 HK"], "D3")
    play(state, 0, 1, 0)
    # seat 1 bid 0, seat 2 bid 1, seat 0 bid 0
    play(state, "C2", "HK", "HA")  # the only club: seat 1 takes it, one over its bid of 0
    assert tricks_won(state) == [0, 1, 0]
    assert [game.heuristic(state, p) for p in range(3)] == [5, 1 - 5, 5]


# ------------------------------------------------------------------ against OpenSpiel


CASES = [
    (3, {}, 300),  # OpenSpiel's defaults
    (4, {}, 50),
    (7, {}, 40),
    (5, {"off_bid_penalty": True, "points_per_trick": 3}, 50),
    (3, {"num_suits": 2, "num_cards_per_suit": 5}, 40),
    (4, {"num_tricks_fixed": 4}, 30),
    (6, {"num_suits": 3, "num_cards_per_suit": 7, "off_bid_penalty": True}, 40),
    (3, {"num_suits": 1, "num_cards_per_suit": 4}, 20),  # one trick at most, one suit
]


def their_label(theirs: Any, player: int, action: int, names: tuple[str, ...]) -> str:
    """OpenSpiel's label in ours: decisions are the same; a chance outcome is "chance: " and
    OpenSpiel's label, except the number of tricks, which ours names by the card it draws."""
    text = theirs.action_to_string(player, action)
    if player >= 0:
        return text
    return "chance: " + (names[action] if not theirs.history() else text)


@pytest.mark.parametrize("players, options, games", CASES)
def test_oh_hell_matches_openspiel_move_for_move(players, options, games):
    pyspiel = require("pyspiel")
    from interpreter.adapters.openspiel import register

    ours = register(str(GAMES / "oh_hell.yaml"), players=players, options=options)
    theirs = pyspiel.load_game("oh_hell", {"players": players, **options})
    names = ours.rulespec_game.cards.kind_names
    assert ours.num_distinct_actions() == theirs.num_distinct_actions()
    assert ours.max_chance_outcomes() == theirs.max_chance_outcomes()
    assert ours.max_game_length() == theirs.max_game_length()
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    steps = single = 0
    made = set()
    for seed in range(games):
        a, b = ours.new_initial_state(), theirs.new_initial_state()
        for player, action, offered in lockstep(a, b, random.Random(seed), f"seed {seed}"):
            single += player < 0 and len(offered) == 1  # a chance node with one outcome, on both sides (O12)
            assert a.action_to_string(player, action) == their_label(b, player, action, names)
            steps += 1
        assert a.returns() == b.returns(), f"seed {seed}"
        assert a.history() == b.history(), f"seed {seed}"  # every node on both sides
        made.update(r >= 10 for r in b.returns())
    assert steps >= 10 * games
    assert made == {True, False}  # bids made and missed
    if "num_tricks_fixed" in options or options.get("num_suits") == 1:
        assert single >= games  # the number of tricks, every game
    if players == 3 and not options:
        assert single > 0  # 17 tricks: the trump card is the one card left
