"""High Hand (games/highhand.yaml): one group of tests per ruling R1..R14 of docs/rulings-highhand.md,
the rulebook's example hands, the full 4-player scoring table and the 2-player blocker/taker turn.

Positions are laid out on real states with tests.support (cards into zones, pawns onto cells); the
rules then run only through the public API (legal actions by label, events, observations, returns).
A decision is computed when it is reached, so a test arranges the position while the round's first
player still stands on their corner and lets that player make a move that is legal in the arranged
position; the next decision is then computed on the arranged position.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import interpreter
from interpreter import OptionError
from tests.conftest import GAMES
from tests.support import act, labels, loader, place_piece, play_random, set_zone, zone_names

SPEC = str(GAMES / "highhand.yaml")
COLOURS = ("Purple", "Red", "Blue", "Green")
CELLS = [f"{c}{r}" for r in range(6, 0, -1) for c in "abcdef"]
CORNER4 = {0: "a6", 1: "f6", 2: "f1", 3: "a1"}
CORNERS2 = {0: ("a1", "f1"), 1: ("a6", "f6")}


# ---------------------------------------------------------------- helpers


load = loader(SPEC, players=4)


def starting(players: int = 4, starter: int = 0, **options: Any) -> interpreter.State:
    """A new match whose round-1 draw made ``starter`` the first player."""
    game = load(players, **options)
    for seed in range(1000):
        state = game.new_initial_state(seed)
        if state.current_player() == starter:
            return state
    raise AssertionError(f"no seed below 1000 lets P{starter} start")


def set_var(state: interpreter.State, name: str, value: Any) -> None:
    state.g[state.game.link.var_slots[name]] = value


def variables(state: interpreter.State) -> dict[str, Any]:
    return state.observation(0, events=False)["variables"]


def pawns(state: interpreter.State, seat: int) -> list[int]:
    """Piece ids of a seat's pawns, in the order of their labels (pawn 1, pawn 2)."""
    return [x for x, owner in enumerate(state.game.link.piece_owner) if owner == seat]


def board(state: interpreter.State) -> dict[str, tuple[int, int]]:
    """cell -> (owner, piece id) for every pawn on the board."""
    return {cell: (v["owner"], v["id"]) for cell, v in state.observation(0, events=False)["board"].items()}


def square(state: interpreter.State, cell: str) -> list[str]:
    return zone_names(state, "square", cell)


def hand(state: interpreter.State, seat: int) -> list[str]:
    return zone_names(state, "taken", seat)


def cards_on_board(state: interpreter.State) -> int:
    return sum(len(square(state, c)) for c in CELLS)


def arrange(state: interpreter.State, squares: dict[str, str] | None = None,
            hands: dict[int, list[str]] | None = None, at: dict[int, str] | None = None) -> None:
    """Empty the board and every hand, then put ``squares`` {cell: card}, ``hands`` {seat: cards} and
    pawns ``at`` {piece id: cell}; the spec's count of cards on the board follows the board."""
    for cell in CELLS:
        if square(state, cell):
            set_zone(state, "unused", None, square(state, cell))
    for seat in range(state.game.num_players):
        if hand(state, seat):
            set_zone(state, "unused", None, hand(state, seat))
    for cell, card in (squares or {}).items():
        set_zone(state, "square", cell, [card])
    for seat, cards in (hands or {}).items():
        set_zone(state, "taken", seat, cards)
    for piece, cell in (at or {}).items():
        place_piece(state, piece, cell)
    assert all(cell >= 0 for cell in state.piece_cell), "a pawn was pushed off the board"
    set_var(state, "on_board", cards_on_board(state))


def moves(state: interpreter.State) -> set[str]:
    return set(labels(state))


def events(state: interpreter.State, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.events if e["type"] == kind]


def check_conservation(state: interpreter.State) -> None:
    seen = sorted(c for zone in state.zones for c in zone)
    assert seen == list(range(52))
    for z, zone in enumerate(state.zones):
        for c in zone:
            assert state.loc[c] == z


def rank(names: list[str]) -> tuple[Any, list[str], str]:
    """The spec's ranking of a set of cards: (value, best cards, category)."""
    game = load(2)
    ids = [game.cards.names.index(n) for n in names]
    value, best, category = game.link.rankings["poker"].evaluate(ids)
    return value, [game.cards.names[c] for c in best], category


def cards(colour: str, *numbers: int) -> list[str]:
    return [f"{colour} {n}" for n in numbers]


# ---------------------------------------------------------------- R1 deck and deal


def test_r1_deck_is_52_cards_four_colours_1_to_13_without_the_marker_cards():
    game = load(4)
    names = list(game.cards.names)
    assert len(names) == 52
    assert sorted(names) == sorted(f"{c} {n}" for c in COLOURS for n in range(1, 14))
    assert not [n for n in names if "declar" in n.lower() or "partner" in n.lower()]


@pytest.mark.parametrize("players", [2, 4])
def test_r1_deal_36_face_up_one_per_cell_and_16_unused(players):
    layouts = set()
    for seed in range(5):
        state = load(players).new_initial_state(seed)
        on_board = []
        for cell in CELLS:
            held = square(state, cell)
            assert len(held) == 1, cell
            on_board += held
        assert len(zone_names(state, "unused")) == 16
        assert sorted(on_board + zone_names(state, "unused")) == sorted(state.game.cards.names)
        assert all(not hand(state, p) for p in range(players))
        base = state.game.link.zone_base["square"]
        assert all(state.face[c] == 1 for z in range(base, base + 36) for c in state.zones[z])
        check_conservation(state)
        layouts.add(tuple(on_board))
    assert len(layouts) == 5  # shuffled: every seed deals a different board


# ---------------------------------------------------------------- R2 first player, turn order


@pytest.mark.parametrize("players", [2, 4])
def test_r2_highest_draw_starts_ties_redraw_and_cards_go_back(players):
    game = load(players)
    redraws = 0
    for seed in range(150):
        state = game.new_initial_state(seed)
        draws = events(state, "first_player_draw")
        assert draws and draws[0]["players"] == list(range(players))
        on_board = {n for cell in CELLS for n in square(state, cell)}
        for i, draw in enumerate(draws):
            numbers = [int(name.split()[1]) for name in draw["cards"]]
            assert not set(draw["cards"]) & on_board  # drawn from the unused deck
            top = max(numbers)
            best = [p for p, n in zip(draw["players"], numbers) if n == top]
            if i + 1 < len(draws):
                assert len(best) > 1 and draws[i + 1]["players"] == best
            else:
                assert len(best) == 1
                assert state.current_player() == best[0]
        redraws += len(draws) > 1
        assert len(zone_names(state, "unused")) == 16
        assert all(not zone_names(state, "drawn", p) for p in range(players))
    assert redraws > 0  # the tie rule was exercised


def test_r2_play_passes_to_the_left():
    state = starting(4, 2, partnerships=False)
    order = []
    for _ in range(6):
        order.append(state.current_player())
        act(state, sorted(labels(state))[0])
    assert order == [2, 3, 0, 1, 2, 3]


# the option first_player rotate: later rounds start with the next player to the left (R2; by
# default every round draws again, see tests/test_highhand_rulings.py)
def test_r2_later_rounds_start_with_the_next_player_to_the_left_4p():
    state = starting(4, 1, rounds=3, first_player="rotate")
    for r, first in ((1, 1), (2, 2), (3, 3)):
        assert state.current_player() == first
        assert events(state, "round_start")[-1]["round"] == r
        act(state, f"declare P{(first + 2) % 4} as partner")
        act(state, sorted(lab for lab in labels(state) if lab.startswith("move"))[0])
        act(state, "concede")
    assert state.is_terminal()
    assert len(events(state, "first_player_draw")) >= 1
    # the draw happens once, in round 1 only
    starts = [i for i, e in enumerate(state.events) if e["type"] == "round_start"]
    draws = [i for i, e in enumerate(state.events) if e["type"] == "first_player_draw"]
    assert all(starts[0] < i < starts[1] for i in draws)


def test_r2_later_rounds_start_with_the_other_player_2p():
    state = starting(2, 1, stall_turns=1, rounds=2, first_player="rotate")
    arrange(state, {"c3": "Red 7"})
    act(state, "block: move P1 pawn 1 to a4")
    act(state, "take: move P1 pawn 2 to f4")  # no card: the stall guard of 1 turn ends the round
    assert len(events(state, "round_end")) == 1
    assert state.current_player() == 0
    assert cards_on_board(state) == 36


# ---------------------------------------------------------------- R3 pawns


def test_r3_four_players_one_pawn_each_on_their_corner_every_round():
    state = starting(4, 0, rounds=2)
    expected = {CORNER4[p]: p for p in range(4)}
    assert {cell: owner for cell, (owner, _) in board(state).items()} == expected
    assert all(len(pawns(state, p)) == 1 for p in range(4))
    assert all(len(square(state, cell)) == 1 for cell in expected)  # each pawn stands on a card
    # neighbours in play order sit at neighbouring corners (clockwise around the board)
    for p in range(4):
        a, b = CORNER4[p], CORNER4[(p + 1) % 4]
        assert a[0] == b[0] or a[1] == b[1]
    act(state, "declare P2 as partner")
    act(state, "move pawn to c6")
    act(state, "concede")
    assert events(state, "round_start")[-1]["round"] == 2
    assert {cell: owner for cell, (owner, _) in board(state).items()} == expected


def test_r3_two_players_two_pawns_each_on_the_corners_of_their_own_side():
    state = starting(2, 0)
    assert {cell: owner for cell, (owner, _) in board(state).items()} == {
        "a1": 0, "f1": 0, "a6": 1, "f6": 1}
    assert all(len(pawns(state, p)) == 2 for p in range(2))


# ---------------------------------------------------------------- R4 movement and taking


def blocked_position(**options: Any) -> interpreter.State:
    """P0 on c3, P1 on c5, P2 on e3; P3 starts and moves a1 -> a2; then P0 decides."""
    state = starting(4, 3, **options)
    (x0,), (x1,), (x2,) = pawns(state, 0), pawns(state, 1), pawns(state, 2)
    arrange(state, {"a3": "Blue 9", "b3": "Red 5", "c1": "Green 2", "c6": "Red 13", "f3": "Blue 13",
                    "d4": "Purple 12", "b2": "Purple 11"},
            at={x0: "c3", x1: "c5", x2: "e3"})
    act(state, "move pawn to a2")
    assert state.current_player() == 0
    return state


def test_r4_straight_moves_of_any_length_never_through_or_onto_a_pawn():
    state = blocked_position(partnerships=False)
    assert moves(state) == {
        "move pawn to a3 (take Blue 9)", "move pawn to b3 (take Red 5)", "move pawn to d3",
        "move pawn to c4", "move pawn to c2", "move pawn to c1 (take Green 2)",
    }


def test_r4_ending_on_a_card_takes_it_face_up_and_only_that_card():
    state = blocked_position(partnerships=False)
    act(state, "move pawn to a3 (take Blue 9)")
    assert hand(state, 0) == ["Blue 9"]
    assert square(state, "a3") == [] and square(state, "b3") == ["Red 5"]  # passed over, not taken
    assert variables(state)["on_board"] == cards_on_board(state) == 6
    for viewer in range(4):
        assert state.observation(viewer)["zones"]["taken"][0] == ["Blue 9"]
    assert state.current_player() == 1


def test_r4_ending_on_an_empty_cell_takes_nothing():
    state = blocked_position(partnerships=False)
    act(state, "move pawn to c2")
    assert hand(state, 0) == [] and cards_on_board(state) == 7
    assert board(state)["c2"][0] == 0


def test_r4_the_corner_card_stays_until_another_pawn_takes_it():
    state = starting(4, 0, partnerships=False)
    corner = square(state, "a6")
    assert len(corner) == 1
    destinations = {lab.split(" ")[3] for lab in labels(state)}
    assert destinations == {"b6", "c6", "d6", "e6", "a5", "a4", "a3", "a2"}  # a move must leave a6
    act(state, "move pawn to a4")
    assert square(state, "a6") == corner and len(hand(state, 0)) == 1
    act(state, f"move pawn to a6 (take {corner[0]})")  # P1 slides along row 6 onto it
    assert hand(state, 1) == corner and square(state, "a6") == []


# ---------------------------------------------------------------- R5 no legal move


@pytest.mark.parametrize("partnerships,declared", [(False, False), (True, False), (True, True)])
def test_r5_a_player_with_no_legal_move_loses_the_turn(partnerships, declared):
    state = starting(4, 3, partnerships=partnerships)
    (x0,), (x1,) = pawns(state, 0), pawns(state, 1)
    arrange(state, {"c4": "Red 3"}, at={x0: "a6", x1: "b6"})
    if declared:
        act(state, "declare P1 as partner")
    act(state, "move pawn to a5")  # P3 closes the last way out of a6
    # P0 cannot move and loses the whole turn (no declaring or conceding either): P1 decides next
    assert state.current_player() == 1
    assert state.observation(0)["turn"] == 3
    assert board(state)["a6"] == (0, x0) and hand(state, 0) == []
    assert variables(state)["declarer"] == (3 if declared else None)
    assert not events(state, "concede")


# ---------------------------------------------------------------- R6 declaring a partner


def test_r6_before_moving_a_player_may_declare_any_other_player():
    state = starting(4, 1)
    declares = {lab for lab in labels(state) if lab.startswith("declare")}
    assert declares == {"declare P0 as partner", "declare P2 as partner", "declare P3 as partner"}
    assert not [lab for lab in labels(state) if lab.startswith("concede")]  # no teams yet
    act(state, "declare P3 as partner")
    assert events(state, "partnership")[-1] == {"type": "partnership", "declarer": 1, "partner": 3}
    # the partner cannot refuse: the declarer simply goes on to move
    assert state.current_player() == 1
    assert labels(state) and all(lab.startswith("move pawn to") for lab in labels(state))
    act(state, "move pawn to f5")
    assert state.current_player() == 2
    assert not [lab for lab in labels(state) if lab.startswith("declare")]  # one declaration per round
    assert variables(state)["declarer"] == 1 and variables(state)["partner"] == 3


def test_r6_a_player_may_declare_on_a_later_turn():
    state = starting(4, 0)
    act(state, "move pawn to c6")
    act(state, "move pawn to f4")
    assert {lab for lab in labels(state) if lab.startswith("declare")} == {
        "declare P0 as partner", "declare P1 as partner", "declare P3 as partner"}
    act(state, "declare P0 as partner")
    assert variables(state)["declarer"] == 2 and variables(state)["partner"] == 0


def team_of_concession(declarer: int, partner: int, conceder: int) -> list[int]:
    state = starting(4, declarer)
    act(state, f"declare P{partner} as partner")
    act(state, sorted(lab for lab in labels(state) if lab.startswith("move"))[0])
    while state.current_player() != conceder:
        act(state, sorted(lab for lab in labels(state) if lab.startswith("move"))[0])
    act(state, "concede")
    return sorted(events(state, "concede")[-1]["team"])


def test_r6_the_declarer_and_partner_form_one_team_and_the_other_two_the_other():
    assert team_of_concession(0, 2, 1) == [1, 3]
    assert team_of_concession(0, 2, 2) == [0, 2]
    assert team_of_concession(1, 2, 3) == [0, 3]
    assert team_of_concession(1, 2, 2) == [1, 2]


def test_r6_teams_last_one_round():
    state = starting(4, 0, rounds=2, first_player="rotate")  # so that P1 starts round 2
    act(state, "declare P1 as partner")
    act(state, "move pawn to c6")
    act(state, "concede")
    assert events(state, "round_start")[-1]["round"] == 2
    assert variables(state)["declarer"] is None and variables(state)["partner"] is None
    assert state.current_player() == 1
    assert {lab for lab in labels(state) if lab.startswith("declare")} == {
        "declare P0 as partner", "declare P2 as partner", "declare P3 as partner"}
    assert not [lab for lab in labels(state) if lab.startswith("concede")]


def test_r6_no_declaring_with_two_players_or_without_the_partnerships_option():
    for state in (starting(2, 0), starting(4, 0, partnerships=False)):
        for _ in range(6):
            assert not [lab for lab in labels(state) if lab.startswith(("declare", "concede"))]
            act(state, sorted(labels(state))[0])


# ---------------------------------------------------------------- the 4-player round runner

# hands that are strictly ordered: QUAD > FULL > TRIP > PAIR (disjoint, none holds Green 1)
QUAD = ["Purple 13", "Red 13", "Blue 13", "Green 13", "Purple 2"]
FULL = ["Purple 12", "Red 12", "Blue 12", "Red 2", "Blue 2"]
TRIP = ["Purple 11", "Red 11", "Blue 11", "Green 3", "Purple 5"]
PAIR = ["Purple 10", "Red 10", "Blue 4", "Green 6", "Red 8"]
# two hands equal in rank (9, 9, 5, 5, 7), and two weaker high-card hands
TIE_A = ["Purple 9", "Red 9", "Blue 5", "Green 5", "Purple 7"]
TIE_B = ["Blue 9", "Green 9", "Purple 5", "Red 5", "Red 7"]
LOW_A = ["Purple 13", "Red 12", "Blue 10", "Green 8", "Purple 6"]
LOW_B = ["Green 13", "Blue 12", "Red 11", "Purple 4", "Blue 3"]
LAST = "Green 1"  # the last card on the board: it changes no category above

STEP = {0: "move pawn to c6", 1: "move pawn to d6", 2: "move pawn to d1", 3: "move pawn to c1"}
STEP2 = {0: "move pawn to c5", 1: "move pawn to d5", 2: "move pawn to d2", 3: "move pawn to c2"}
NEXT_TO = {0: "a5", 1: "f5", 2: "f2", 3: "a2"}


def play_4p_round(hands: dict[int, list[str]], declare: tuple[int, int] | None = None,
                  concede_by: int | None = None, sink: int | None = None, starter: int | None = None,
                  **options: Any) -> interpreter.State:
    """One round from an arranged position: the hands are dealt out and one card (LAST) is left on the
    board. The starter declares (when ``declare``); then each player in turn steps to an empty cell,
    until ``concede_by`` concedes or ``sink`` takes the last card (which ends the round)."""
    options.setdefault("rounds", 1)
    first = declare[0] if declare else (starter if starter is not None else sink)
    assert first is not None
    state = starting(4, first, **options)
    arrange(state, {NEXT_TO[sink] if sink is not None else "c3": LAST}, hands)
    if declare:
        act(state, f"declare P{declare[1]} as partner")
    seat, lap = first, 0
    while True:
        assert state.current_player() == seat
        if seat == concede_by and not (declare and seat == first and lap == 0):
            act(state, "concede")
            break
        if seat == sink:
            assert lap == 0
            act(state, f"move pawn to {NEXT_TO[seat]} (take {LAST})")
            break
        act(state, (STEP2 if lap else STEP)[seat])
        seat = (seat + 1) % 4
        lap += seat == first
        assert lap < 2
    return state


def round_end(state: interpreter.State) -> dict[str, Any]:
    return events(state, "round_end")[-1]


# ---------------------------------------------------------------- R7 conceding


def test_r7_conceding_needs_teams_and_is_open_to_all_four_players():
    state = starting(4, 0)
    assert not [lab for lab in labels(state) if lab.startswith("concede")]
    act(state, "declare P2 as partner")
    assert not [lab for lab in labels(state) if lab.startswith("concede")]  # the declarer now moves
    act(state, "move pawn to c6")
    for seat in (1, 2, 3, 0):
        assert state.current_player() == seat
        assert [lab for lab in labels(state) if lab.startswith("concede")], seat
        act(state, sorted(lab for lab in labels(state) if lab.startswith("move"))[0])


def test_r7_a_concession_ends_the_round_at_once_and_the_other_team_wins():
    hands = {0: TRIP, 1: QUAD, 2: FULL, 3: PAIR}
    state = play_4p_round(hands, declare=(0, 2), concede_by=1)
    end = round_end(state)
    assert sorted(end["conceded"]) == [1, 3]
    assert end["high_hand"] == [2]  # P1 holds the best hand, but P1's team gave up
    assert end["scores"] == [50, 0, 100, 0]
    assert square(state, "c3") == [LAST] and state.is_terminal()  # the card was still on the board
    state = play_4p_round(hands, declare=(0, 2), concede_by=1, rounds=2)
    assert events(state, "round_start")[-1]["round"] == 2 and cards_on_board(state) == 36


def test_r7_option_concession_hands_the_declarer_holding_the_better_hand_of_the_winning_team_wins_nothing():
    # the option concession hands (the reading before issue 13); by default the declared team scores
    # 100 and 50 (tests/test_highhand_rulings.py)
    state = play_4p_round({0: FULL, 1: PAIR, 2: TRIP, 3: QUAD}, declare=(0, 2), concede_by=1, concession="hands")
    end = round_end(state)
    assert end["high_hand"] == [0] and end["scores"] == [0, 0, 0, 0]


def test_r7_the_declared_team_may_concede():
    # the partner concedes, though the partner holds the best hand
    state = play_4p_round({0: FULL, 1: QUAD, 2: PAIR, 3: TRIP}, declare=(0, 1), concede_by=1)
    end = round_end(state)
    assert sorted(end["conceded"]) == [0, 1] and end["high_hand"] == [3]
    assert end["scores"] == [0, 0, 25, 50]
    # the declarer concedes on a later turn
    state = play_4p_round({0: FULL, 1: PAIR, 2: QUAD, 3: TRIP}, declare=(0, 2), concede_by=0)
    end = round_end(state)
    assert sorted(end["conceded"]) == [0, 2] and end["high_hand"] == [3]
    assert end["scores"] == [0, 25, 0, 50]


# ---------------------------------------------------------------- R8 end of the round


def test_r8_the_round_ends_when_the_last_card_is_taken():
    state = play_4p_round({0: PAIR, 1: TRIP, 2: QUAD, 3: FULL}, sink=1, starter=0, partnerships=False)
    assert len(events(state, "round_end")) == 1 and cards_on_board(state) == 0
    assert state.is_terminal()


def test_r8_a_move_to_an_empty_cell_does_not_end_the_round_while_cards_remain():
    state = starting(4, 3, partnerships=False, rounds=1)
    arrange(state, {"c3": "Red 3"})
    for _ in range(8):
        act(state, sorted(lab for lab in labels(state) if "(take" not in lab)[0])
    assert not events(state, "round_end") and cards_on_board(state) == 1


def test_r8_two_players_round_ends_when_the_taker_takes_the_last_card_not_the_blocker():
    state = starting(2, 0, rounds=1)
    arrange(state, {"a3": "Red 3", "f3": "Blue 3"})
    act(state, "block: move P0 pawn 1 to a3")  # stops on Red 3 but a blocker takes nothing
    assert square(state, "a3") == ["Red 3"] and not events(state, "round_end")
    act(state, "take: move P0 pawn 2 to f3 (take Blue 3)")
    assert not events(state, "round_end")
    act(state, "block: move P1 pawn 2 to f4")
    act(state, "take: move P1 pawn 1 to a4")
    act(state, "block: move P0 pawn 2 to f2")
    act(state, "take: move P0 pawn 1 to a2")  # leaves a3: Red 3 is free again
    act(state, "block: move P1 pawn 2 to f5")
    act(state, "take: move P1 pawn 1 to a3 (take Red 3)")
    assert len(events(state, "round_end")) == 1 and state.is_terminal()
    assert hand(state, 0) == ["Blue 3"] and hand(state, 1) == ["Red 3"]


def test_r8_stall_guard_counts_turns_in_a_row_without_a_card():
    state = starting(4, 3, partnerships=False, stall_turns=3, rounds=1)
    arrange(state, {"b6": "Blue 7", "c4": "Red 5"})
    act(state, "move pawn to a3")  # P3, no card (1)
    act(state, "move pawn to a5")  # P0, no card (2)
    act(state, "move pawn to b6 (take Blue 7)")  # P1 takes: the count starts again
    act(state, "move pawn to f3")  # P2 (1)
    act(state, "move pawn to b3")  # P3 (2)
    assert not events(state, "round_end")
    act(state, "move pawn to a4")  # P0 (3)
    assert len(events(state, "round_end")) == 1 and state.is_terminal()
    assert square(state, "c4") == ["Red 5"]


def test_r8_stall_guard_is_an_option_of_100_turns_by_default():
    game = load(4, partnerships=False, rounds=1)
    assert game.options["stall_turns"] == 100
    state = starting(4, 3, partnerships=False, rounds=1)
    arrange(state, {"c4": "Red 5"})
    while not state.is_terminal():
        assert state.observation(0)["turn"] <= 100
        act(state, sorted(lab for lab in labels(state) if "(take" not in lab)[0])
    # the round ended with the 100th turn in a row without a card (turns lost to a block count too)
    assert state.observation(0)["turn"] == 100 and square(state, "c4") == ["Red 5"]


# ---------------------------------------------------------------- R9 ranking of hands (rulebook list)

RANKING_LIST = [  # rulebook rule 9 A-G, then the ruling's one pair and high card
    ("five in sequence of one colour", cards("Red", 11, 10, 9, 8, 7)),
    ("four of a number", ["Purple 4", "Red 4", "Blue 4", "Green 4", "Red 10"]),
    ("three plus two", ["Purple 12", "Red 12", "Blue 12", "Purple 5", "Green 5"]),
    ("five of one colour", cards("Blue", 12, 8, 7, 4, 1)),
    ("five in sequence", ["Purple 6", "Red 5", "Blue 4", "Green 3", "Purple 2"]),
    ("three of a number", ["Purple 13", "Red 13", "Blue 13", "Green 6", "Red 2"]),
    ("two pairs", ["Purple 9", "Red 9", "Blue 6", "Green 6", "Blue 12"]),
    ("one pair", ["Purple 8", "Red 8", "Blue 13", "Green 5", "Red 3"]),
    ("high card", ["Purple 13", "Red 11", "Blue 9", "Green 4", "Red 2"]),
]


@pytest.mark.parametrize("category,hand_cards", RANKING_LIST, ids=[c for c, _ in RANKING_LIST])
def test_r9_rulebook_example_hands(category, hand_cards):
    _, best, found = rank(hand_cards)
    assert found == category
    assert sorted(best) == sorted(hand_cards)


def test_r9_categories_rank_in_the_rulebook_order():
    values = [rank(h)[0] for _, h in RANKING_LIST]
    assert all(a > b for a, b in zip(values, values[1:]))


def test_r9_best_five_of_more_cards():
    held = cards("Red", 2, 5, 7, 9, 12) + ["Blue 9", "Green 9", "Purple 3", "Purple 4"]
    _, best, category = rank(held)  # a flush beats three 9s
    assert category == "five of one colour" and sorted(best) == sorted(cards("Red", 2, 5, 7, 9, 12))
    held = ["Purple 3", "Red 3", "Blue 3", "Green 8", "Red 8", "Blue 8", "Purple 13"]
    _, best, category = rank(held)  # two threes: the higher three and a pair of the other
    assert category == "three plus two"
    assert Counter(int(n.split()[1]) for n in best) == Counter({8: 3, 3: 2})
    held = ["Purple 2", "Red 3", "Blue 4", "Green 5", "Red 6", "Blue 7", "Green 8", "Red 13"]
    _, best, category = rank(held)  # the highest of several sequences
    assert category == "five in sequence"
    assert sorted(int(n.split()[1]) for n in best) == [4, 5, 6, 7, 8]


def test_r9_one_is_the_lowest_card_and_sequences_do_not_wrap():
    assert rank(["Purple 2", "Red 2", "Blue 9", "Green 8", "Red 7"])[0] > \
        rank(["Blue 1", "Green 1", "Purple 13", "Green 12", "Purple 11"])[0]
    assert rank(["Purple 13", "Red 3", "Blue 4", "Green 6", "Red 8"])[0] > \
        rank(["Blue 12", "Green 11", "Purple 10", "Green 9", "Purple 7"])[0]
    assert rank(["Purple 12", "Red 13", "Blue 1", "Green 2", "Purple 3"])[2] == "high card"
    assert rank(["Purple 10", "Red 11", "Blue 12", "Green 13", "Purple 1"])[2] == "high card"
    assert rank(cards("Red", 10, 11, 12, 13, 1))[2] == "five of one colour"
    low = rank(["Purple 1", "Red 2", "Blue 3", "Green 4", "Purple 5"])
    assert low[2] == "five in sequence"
    assert low[0] < rank(["Purple 6", "Red 2", "Blue 3", "Green 4", "Purple 5"])[0]
    assert rank(cards("Green", 1, 2, 3, 4, 5))[2] == "five in sequence of one colour"


def test_r9_fewer_than_five_cards_are_ranked_on_the_cards_held():
    assert rank(["Purple 13", "Red 13", "Blue 13", "Green 13"])[2] == "four of a number"
    assert rank(["Purple 7", "Red 7", "Blue 7"])[2] == "three of a number"
    assert rank(["Purple 4", "Red 4", "Blue 6", "Green 6"])[2] == "two pairs"
    assert rank(["Purple 9", "Red 9"])[2] == "one pair"
    assert rank(["Purple 9"])[2] == "high card"
    # four 2s alone beat three plus two; three 2s alone beat two pairs of five cards
    assert rank(["Purple 2", "Red 2", "Blue 2", "Green 2"])[0] > rank(FULL)[0]
    assert rank(["Purple 2", "Red 2", "Blue 2"])[0] > rank(TIE_A)[0]
    # four cards of one colour in sequence are neither a sequence nor five of one colour
    assert rank(cards("Blue", 9, 10, 11, 12))[2] == "high card"


# ---------------------------------------------------------------- R10 ties (appendix)


def beats(a: list[str], b: list[str]) -> bool:
    return rank(a)[0] > rank(b)[0]


def test_appendix_1_sequence_of_one_colour_higher_card_wins():
    assert beats(cards("Blue", 12, 11, 10, 9, 8), cards("Red", 11, 10, 9, 8, 7))


def test_appendix_2_four_of_a_number_higher_foursome_wins():
    assert beats(["Purple 5", "Red 5", "Blue 5", "Green 5", "Red 1"],
                 ["Purple 4", "Red 4", "Blue 4", "Green 4", "Red 13"])


def test_appendix_3_three_plus_two_higher_threesome_wins():
    assert beats(["Purple 12", "Red 12", "Blue 12", "Purple 5", "Red 5"],
                 ["Purple 11", "Red 11", "Blue 11", "Purple 13", "Red 13"])


def test_appendix_4_five_of_one_colour_highest_card_then_next():
    assert beats(cards("Purple", 13, 12, 8, 4, 3), cards("Green", 13, 12, 8, 4, 2))  # the rulebook's example
    assert beats(cards("Purple", 13, 6, 5, 4, 2), cards("Green", 12, 11, 10, 8, 7))


def test_appendix_5_sequence_of_any_colour_higher_card_wins():
    assert beats(["Purple 7", "Red 6", "Blue 5", "Green 4", "Purple 3"],
                 ["Blue 6", "Green 5", "Red 4", "Blue 3", "Green 2"])


def test_appendix_6_three_of_a_number_higher_threesome_wins():
    assert beats(["Purple 13", "Red 13", "Blue 13", "Green 6", "Red 2"],
                 ["Purple 12", "Red 12", "Blue 12", "Green 11", "Red 10"])


def test_appendix_7_two_pairs_higher_pair_then_other_pair_then_fifth_card():
    assert beats(["Purple 11", "Red 11", "Purple 6", "Red 6", "Purple 10"],
                 ["Blue 11", "Green 11", "Blue 6", "Green 6", "Blue 7"])  # the rulebook's example
    assert beats(["Purple 12", "Red 12", "Purple 3", "Red 3", "Blue 2"],
                 ["Purple 11", "Red 11", "Purple 10", "Red 10", "Green 13"])
    assert beats(["Purple 11", "Red 11", "Purple 7", "Red 7", "Blue 2"],
                 ["Blue 11", "Green 11", "Blue 6", "Green 6", "Green 13"])


def test_appendix_8_one_pair_higher_pair_then_remaining_cards():
    assert beats(["Purple 13", "Red 13", "Purple 11", "Red 10", "Purple 6"],
                 ["Blue 13", "Green 13", "Blue 11", "Green 9", "Blue 8"])  # the rulebook's example
    assert beats(["Purple 13", "Red 13", "Purple 2", "Red 3", "Blue 4"],
                 ["Purple 12", "Red 12", "Purple 11", "Red 10", "Blue 9"])


# the appendix's unused-cards example: 13 13 8 8 12, unused 11 9 7 2 beats unused 11 9 5 4
UNUSED_WIN = ["Purple 13", "Red 13", "Purple 8", "Red 8", "Blue 12", "Green 11", "Purple 9", "Blue 7", "Green 2"]
UNUSED_LOSE = ["Blue 13", "Green 13", "Blue 8", "Green 8", "Red 12", "Purple 11", "Red 9", "Green 5", "Red 4"]


def test_appendix_equal_five_cards_the_unused_cards_decide():
    for held in (UNUSED_WIN, UNUSED_LOSE):
        _, best, category = rank(held)
        assert category == "two pairs"
        assert sorted(int(n.split()[1]) for n in best) == [8, 8, 12, 13, 13]
    assert beats(UNUSED_WIN, UNUSED_LOSE)


def test_r10_equal_hands_with_equal_unused_cards_are_equal():
    assert rank(TIE_A)[0] == rank(TIE_B)[0]
    assert rank(TIE_A + ["Blue 3"])[0] == rank(TIE_B + ["Green 3"])[0]
    assert rank(TIE_A + ["Blue 3"])[0] > rank(TIE_B + ["Green 2"])[0]


def play_2p_round(hands: dict[int, list[str]], squares: dict[str, str], turn: list[str],
                  **options: Any) -> interpreter.State:
    """P0 starts; the position is arranged, then P0 plays ``turn`` (block, take)."""
    options.setdefault("rounds", 1)
    state = starting(2, 0, **options)
    arrange(state, squares, hands)
    for label in turn:
        act(state, label)
    return state


def test_r10_in_play_the_unused_cards_decide_between_equal_hands():
    last = UNUSED_WIN[-1]
    # P0 completes the winning hand by taking the last card
    state = play_2p_round({0: UNUSED_WIN[:-1], 1: UNUSED_LOSE}, {"f3": last},
                          ["block: move P0 pawn 1 to a3", f"take: move P0 pawn 2 to f3 (take {last})"])
    end = round_end(state)
    assert end["hands"][0]["category"] == end["hands"][1]["category"] == "two pairs"
    assert end["high_hand"] == [0] and end["scores"] == [100, 0]
    # the same with the seats exchanged: P1 takes the last card
    state = play_2p_round({0: UNUSED_LOSE, 1: UNUSED_WIN[:-1]}, {"f4": last},
                          ["block: move P0 pawn 1 to a3", "take: move P0 pawn 2 to f2"])
    act(state, "block: move P1 pawn 1 to a4")
    act(state, f"take: move P1 pawn 2 to f4 (take {last})")
    end = round_end(state)
    assert end["high_hand"] == [1] and end["scores"] == [0, 100]


def test_r10_fully_equal_hands_share_the_result_2p():
    state = play_2p_round({0: TIE_A, 1: TIE_B}, {"c4": LAST},
                          ["block: move P0 pawn 1 to a3", "take: move P0 pawn 2 to d1"], stall_turns=1)
    end = round_end(state)
    assert end["high_hand"] == [0, 1] and end["scores"] == [100, 100]
    assert state.winners() == [0, 1] and state.returns()[0] == state.returns()[1] > 0


def test_r10_fully_equal_hands_share_the_result_4p_nobody_declared():
    state = play_4p_round({0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, sink=1, starter=0)
    end = round_end(state)
    assert end["high_hand"] == [0, 2] and end["scores"] == [50, 0, 50, 0]


# ---------------------------------------------------------------- R11 the 4-player scoring table

SCORING_TABLE = [
    # (name, hands by seat, declared (declarer, partner), conceded by, sink, high hand seats, scores)
    ("partner has the high hand", {0: FULL, 1: TRIP, 2: QUAD, 3: PAIR}, (0, 2), None, 1, [2], [50, 0, 100, 0]),
    ("partner next to declarer has it", {0: QUAD, 1: PAIR, 2: FULL, 3: TRIP}, (1, 0), None, 1, [0],
     [100, 50, 0, 0]),
    ("declarer has the high hand", {0: QUAD, 1: TRIP, 2: FULL, 3: PAIR}, (0, 2), None, 1, [0], [0, 0, 0, 0]),
    ("undeclared player has it", {0: TRIP, 1: QUAD, 2: PAIR, 3: FULL}, (0, 2), None, 0, [1], [0, 50, 0, 25]),
    ("the other undeclared player has it", {0: PAIR, 1: FULL, 2: TRIP, 3: QUAD}, (1, 2), None, 1, [3],
     [25, 0, 0, 50]),
    ("nobody declared", {0: PAIR, 1: TRIP, 2: QUAD, 3: FULL}, None, None, 2, [2], [0, 0, 50, 0]),
    ("tie, nobody declared", {0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, None, None, 1, [0, 2], [50, 0, 50, 0]),
    ("tie partner and undeclared", {0: LOW_A, 1: TIE_B, 2: TIE_A, 3: LOW_B}, (0, 2), None, 0, [1, 2],
     [50, 50, 100, 25]),
    # 10A: "If the Declaring Player has the highest-ranking hand, then no points are scored in the
    # round"; a tie gives the declarer (a share of) it (R11, tie_scoring team)
    ("tie declarer and partner", {0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, (0, 2), None, 1, [0, 2],
     [0, 0, 0, 0]),
    ("tie declarer and undeclared", {0: TIE_A, 1: TIE_B, 2: LOW_A, 3: LOW_B}, (0, 2), None, 2, [0, 1],
     [0, 0, 0, 0]),
    # R7 (concession team): the team that did not concede scores as if it held the high hand; the
    # declared team by 10A (partner 100, declarer 50), the undeclared team by 10B (the better hand 50)
    ("undeclared concede, partner better", {0: TRIP, 1: QUAD, 2: FULL, 3: PAIR}, (0, 2), 1, None, [2],
     [50, 0, 100, 0]),
    ("undeclared concede, declarer better", {0: FULL, 1: PAIR, 2: TRIP, 3: QUAD}, (0, 2), 3, None, [2],
     [50, 0, 100, 0]),
    ("declared team concede", {0: FULL, 1: QUAD, 2: PAIR, 3: TRIP}, (0, 1), 1, None, [3], [0, 0, 25, 50]),
    ("undeclared concede, tie in the winners", {0: TIE_A, 1: QUAD, 2: TIE_B, 3: FULL}, (0, 2), 1, None,
     [2], [50, 0, 100, 0]),
]

# the readings before issue 13, kept as options: the table applied for every tied high hand (a player
# receiving the larger amount) and a concession decided by the winning team's hands
OLD_READINGS = {"tie_scoring": "each", "concession": "hands"}
OLD_TABLE = [
    ("tie within the undeclared team", {0: LOW_A, 1: LOW_B, 2: TIE_A, 3: TIE_B}, (0, 1), None, 0, [2, 3],
     [0, 0, 50, 50]),
    ("tie partner and undeclared", {0: LOW_A, 1: TIE_B, 2: TIE_A, 3: LOW_B}, (0, 2), None, 0, [1, 2],
     [50, 50, 100, 25]),
    ("tie declarer and partner", {0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, (0, 2), None, 1, [0, 2],
     [50, 0, 100, 0]),
    ("tie declarer and undeclared", {0: TIE_A, 1: TIE_B, 2: LOW_A, 3: LOW_B}, (0, 2), None, 2, [0, 1],
     [0, 50, 0, 25]),
    ("undeclared concede, partner better", {0: TRIP, 1: QUAD, 2: FULL, 3: PAIR}, (0, 2), 1, None, [2],
     [50, 0, 100, 0]),
    ("undeclared concede, declarer better", {0: FULL, 1: PAIR, 2: TRIP, 3: QUAD}, (0, 2), 3, None, [0],
     [0, 0, 0, 0]),
    ("declared team concede", {0: FULL, 1: QUAD, 2: PAIR, 3: TRIP}, (0, 1), 1, None, [3], [0, 0, 25, 50]),
    ("declared team concede, tie in the winners", {0: QUAD, 1: FULL, 2: TIE_A, 3: TIE_B}, (0, 1), 1, None,
     [2, 3], [0, 0, 50, 50]),
    ("undeclared concede, tie in the winners", {0: TIE_A, 1: QUAD, 2: TIE_B, 3: FULL}, (0, 2), 1, None,
     [0, 2], [50, 0, 100, 0]),
]


@pytest.mark.parametrize("name,hands,declare,concede_by,sink,high,scores", SCORING_TABLE,
                         ids=[row[0] for row in SCORING_TABLE])
def test_r11_scoring_table(name, hands, declare, concede_by, sink, high, scores):
    check_scoring(hands, declare, concede_by, sink, high, scores)


@pytest.mark.parametrize("name,hands,declare,concede_by,sink,high,scores", OLD_TABLE, ids=[row[0] for row in OLD_TABLE])
def test_r11_scoring_table_old_readings_as_options(name, hands, declare, concede_by, sink, high, scores):
    check_scoring(hands, declare, concede_by, sink, high, scores, **OLD_READINGS)


def check_scoring(hands: dict[int, list[str]], declare: tuple[int, int] | None, concede_by: int | None,
                  sink: int | None, high: list[int], scores: list[int], **options: Any) -> None:
    state = play_4p_round(hands, declare=declare, concede_by=concede_by, sink=sink, **options)
    end = round_end(state)
    assert end["high_hand"] == high
    assert end["scores"] == scores
    assert end["declarer"] == (declare[0] if declare else None)
    assert end["partner"] == (declare[1] if declare else None)
    assert state.is_terminal() and state.observation(0)["players"][0]["total"] == scores[0]
    assert [e["totals"] for e in events(state, "match_end")] == [scores]


def test_r11_option_no_declaration_points():
    state = play_4p_round({0: PAIR, 1: TRIP, 2: QUAD, 3: FULL}, sink=2, no_declaration_points=30)
    assert round_end(state)["scores"] == [0, 0, 30, 0]


def test_r11_option_partnerships_false_scores_as_nobody_declared():
    state = play_4p_round({0: PAIR, 1: TRIP, 2: QUAD, 3: FULL}, sink=2, partnerships=False)
    assert round_end(state)["scores"] == [0, 0, 50, 0]
    assert load(4).options["partnerships"] is True
    assert load(4).options["no_declaration_points"] == 50


# ---------------------------------------------------------------- R12 the 2-player turn


def test_r12_blocker_then_taker_and_the_first_turn_rule():
    state = starting(2, 0)
    a1, f1 = square(state, "a1"), square(state, "f1")
    first = moves(state)
    assert all(lab.startswith("block: ") for lab in first)  # both pawns can move: the turn starts with a blocker
    assert {lab.split(" ")[3] + " " + lab.split(" ")[4] + " " + lab.split(" ")[6] for lab in first} == (
        {f"pawn 1 {c}" for c in ("a2", "a3", "a4", "a5", "b1", "c1", "d1", "e1")}
        | {f"pawn 2 {c}" for c in ("f2", "f3", "f4", "f5", "b1", "c1", "d1", "e1")})
    a3 = square(state, "a3")
    act(state, "block: move P0 pawn 1 to a3")
    assert square(state, "a3") == a3 and hand(state, 0) == []  # the blocker never takes
    taker = moves(state)
    assert all(lab.startswith("take: move P0 pawn 2 to ") for lab in taker)
    # a1 is free now, but on the first turn the taker may not stop on the player's own corners
    assert {lab.split(" ")[6] for lab in taker} == {"b1", "c1", "d1", "e1", "f2", "f3", "f4", "f5"}
    b1 = square(state, "b1")
    act(state, f"take: move P0 pawn 2 to b1 (take {b1[0]})")
    assert hand(state, 0) == b1 and square(state, "a1") == a1 and square(state, "f1") == f1
    # P1's first turn: P0's corner f1 is allowed, P1's own corner a6 is not
    assert state.current_player() == 1
    act(state, "block: move P1 pawn 1 to a4")
    taker = {lab.split(" ")[6] for lab in moves(state)}
    assert "f1" in taker and "a6" not in taker
    act(state, "take: move P1 pawn 2 to f5")
    # P0's second turn: the home corners are open to the taker
    act(state, "block: move P0 pawn 1 to a2")
    assert f"take: move P0 pawn 2 to a1 (take {a1[0]})" in moves(state)
    act(state, f"take: move P0 pawn 2 to a1 (take {a1[0]})")
    assert hand(state, 0) == b1 + a1


def test_r12_a_pawn_that_cannot_move_leaves_one_move_as_blocker_or_taker():
    state = starting(2, 1)
    p0a, p0b = pawns(state, 0)
    _, p1b = pawns(state, 1)
    arrange(state, {"d6": "Red 9", "d1": "Blue 4", "a4": "Green 11", "c3": "Purple 1"},
            at={p0a: "a1", p0b: "d4", p1b: "b4"})
    act(state, "block: move P1 pawn 1 to a2")
    act(state, "take: move P1 pawn 2 to b1")  # P0 pawn 1 on a1 is now shut in by a2 and b1
    assert state.current_player() == 0
    dests = ("d5", "d6", "d3", "d2", "d1", "c4", "b4", "a4", "e4", "f4")
    expected = set()
    for d in dests:
        took = {"d6": " (take Red 9)", "d1": " (take Blue 4)", "a4": " (take Green 11)"}.get(d, "")
        expected |= {f"block: move P0 pawn 2 to {d}", f"take: move P0 pawn 2 to {d}{took}"}
    assert moves(state) == expected
    as_taker = state.clone()
    act(as_taker, "take: move P0 pawn 2 to d6 (take Red 9)")
    assert hand(as_taker, 0) == ["Red 9"] and as_taker.current_player() == 1  # one move only
    as_blocker = state.clone()
    act(as_blocker, "block: move P0 pawn 2 to d6")
    assert hand(as_blocker, 0) == [] and square(as_blocker, "d6") == ["Red 9"]
    assert as_blocker.current_player() == 1


def test_r12_option_a_blocker_that_shuts_in_the_taker_ends_the_turn():
    # the option blocker_may_shut_in_taker (the reading before issue 13); by default such a blocker
    # move is not offered (tests/test_highhand_rulings.py)
    state = starting(2, 1, blocker_may_shut_in_taker=True)
    p0a, p0b = pawns(state, 0)
    _, p1b = pawns(state, 1)
    arrange(state, {"a2": "Red 9", "c3": "Purple 1"}, at={p0a: "a1", p0b: "a4", p1b: "b4"})
    act(state, "block: move P1 pawn 1 to a5")
    act(state, "take: move P1 pawn 2 to b1")
    assert state.current_player() == 0
    assert all(lab.startswith("block: ") for lab in moves(state))  # both pawns can still move
    act(state, "block: move P0 pawn 2 to a2")  # now P0 pawn 1 on a1 cannot move
    assert state.current_player() == 1
    assert hand(state, 0) == [] and square(state, "a2") == ["Red 9"]


def test_r12_the_high_hand_scores_100_and_the_other_0():
    state = play_2p_round({0: QUAD, 1: FULL}, {"c4": LAST},
                          ["block: move P0 pawn 1 to a3", "take: move P0 pawn 2 to d1"], stall_turns=1)
    end = round_end(state)
    assert end["high_hand"] == [0] and end["scores"] == [100, 0]
    state = play_2p_round({0: PAIR, 1: TRIP}, {"c4": LAST},
                          ["block: move P0 pawn 1 to a3", "take: move P0 pawn 2 to d1"], stall_turns=1)
    assert round_end(state)["scores"] == [0, 100]
    assert state.winners() == [1]


# ---------------------------------------------------------------- R13 the match


def test_r13_five_rounds_by_default_highest_total_wins():
    game = load(4)
    assert game.options["rounds"] == 5
    state = game.new_initial_state(11)
    play_random(state, random.Random(11))
    ends = events(state, "round_end")
    assert [e["round"] for e in ends] == [1, 2, 3, 4, 5]
    totals = [sum(e["scores"][p] for e in ends) for p in range(4)]
    final = events(state, "match_end")[-1]
    assert final["totals"] == totals and final["rounds"] == 5
    assert final["winners"] == state.winners() == [p for p in range(4) if totals[p] == max(totals)]


def test_r13_option_rounds():
    state = load(2, rounds=2).new_initial_state(3)
    play_random(state, random.Random(3))
    assert [e["round"] for e in events(state, "round_end")] == [1, 2]


def test_r13_equal_totals_share_the_win():
    state = play_4p_round({0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, sink=1, starter=0)
    assert state.winners() == [0, 2]
    returns = state.returns()
    assert returns[0] == returns[2] > returns[1] and returns[1] == returns[3]


# ---------------------------------------------------------------- R14 what players see


@pytest.mark.parametrize("players", [2, 4])
def test_r14_board_and_hands_face_up_unused_deck_hidden(players):
    state = load(players).new_initial_state(5)
    play_random(state, random.Random(5), limit=12)
    unused = set(zone_names(state, "unused"))
    for viewer in range(players):
        view = state.observation(viewer)
        zones = view["zones"]
        assert {cell: names for cell, names in zones["square"].items()} == {
            cell: square(state, cell) for cell in CELLS if square(state, cell)}
        assert zones["taken"] == [hand(state, p) for p in range(players)]
        assert zones["unused"] == {"count": 16}
        shown = str({k: v for k, v in view.items() if k != "events"})
        assert not [n for n in unused if f"'{n}'" in shown]


# ---------------------------------------------------------------- events and player counts


def test_round_end_event_lists_every_hand_best_five_category_and_high_hand():
    state = play_4p_round({0: FULL, 1: TRIP, 2: QUAD, 3: PAIR}, declare=(0, 2), sink=1)
    end = round_end(state)
    expected = {0: (FULL, FULL, "three plus two"), 1: (TRIP + [LAST], TRIP, "three of a number"),
                2: (QUAD, QUAD, "four of a number"), 3: (PAIR, PAIR, "one pair")}
    assert [h["seat"] for h in end["hands"]] == [0, 1, 2, 3]
    for entry in end["hands"]:
        held, best, category = expected[entry["seat"]]
        assert sorted(entry["cards"]) == sorted(held)
        assert sorted(entry["best"]) == sorted(best)
        assert entry["category"] == category
    assert end["high_hand"] == [2] and end["round"] == 1
    assert end["scores"] == [50, 0, 100, 0] and end["totals"] == [50, 0, 100, 0]
    final = events(state, "match_end")[-1]
    assert final["totals"] == [50, 0, 100, 0] and final["winners"] == [2]
    assert state.winners() == [2] and state.returns()[2] == max(state.returns())


@pytest.mark.parametrize("players", [0, 1, 3, 5, 6])
def test_other_player_counts_are_refused_naming_the_allowed_ones(players):
    with pytest.raises(OptionError) as info:
        load(players)
    message = str(info.value)
    assert "2" in message and "4" in message and str(players) in message


def test_two_and_four_players_load_their_own_rules():
    assert load(2).num_players == 2 and load(4).num_players == 4
    assert len(pawns(load(2).new_initial_state(0), 0)) == 2
    assert len(pawns(load(4).new_initial_state(0), 0)) == 1


def test_rulings_document_lists_every_ruling_and_every_option():
    doc = (GAMES.parent / "docs" / "rulings-highhand.md").read_text(encoding="utf-8")
    for n in range(1, 15):
        assert f"### R{n}." in doc, f"R{n} missing"
    assert set(load(4).options) == {"rounds", "partnerships", "no_declaration_points", "concession", "tie_scoring",
                                    "first_player", "blocker_may_shut_in_taker", "two_player_concede",
                                    "stall_turns"}
    for option in load(4).options:
        assert f"`{option}`" in doc, option
    stall = doc[doc.index("### R8."):doc.index("### R9.")]
    assert "`stall_turns`" in stall and "guard, not a rulebook rule" in stall
