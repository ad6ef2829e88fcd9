"""High Hand: the rulings revised by issue 13 (points 6 to 11), each against the rulebook sentence it reads.

Every expected score below is taken from the rulebook's scoring table (rule 10 of the 4-player game,
rule 6 of the 2-player game):
  10A  the Declaring Player's Partner has the high hand: partner 100, Declaring Player 50;
       the Declaring Player has the high hand: "no scoring in the round. None of the players receive
       any points."
  10B  a player of the Undeclared Team has the high hand: that player 50, his or her partner 25.
  2p/6 the winner of the round 100, the other player 0.
Positions are arranged with the helpers of tests/test_highhand.py (hands dealt out, one card left on
the board) and played through the public API.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import interpreter
from tests.conftest import GAMES
from tests.support import act, labels
from tests.test_highhand import (
    FULL,
    LAST,
    LOW_A,
    LOW_B,
    PAIR,
    QUAD,
    TIE_A,
    TIE_B,
    TRIP,
    arrange,
    events,
    hand,
    load,
    moves,
    pawns,
    play_2p_round,
    play_4p_round,
    round_end,
    square,
    starting,
)

DOC = (GAMES.parent / "docs" / "rulings-highhand.md").read_text(encoding="utf-8")


def ruling(n: int) -> str:
    """The text of ruling Rn of docs/rulings-highhand.md."""
    start = DOC.index(f"### R{n}.")
    end = DOC.find("### R", start + 1)
    return DOC[start:end if end >= 0 else None]


def draw_winner(state: interpreter.State, kind: str) -> int:
    """The player who drew the highest number in the last draw of this kind (ties draw again, so
    the last draw has one highest card)."""
    draw = events(state, kind)[-1]
    numbers = [int(name.split()[1]) for name in draw["cards"]]
    best = [p for p, n in zip(draw["players"], numbers) if n == max(numbers)]
    assert len(best) == 1
    return best[0]


def round_events(state: interpreter.State) -> list[list[dict[str, Any]]]:
    """The events of each round, from its round_start up to its round_end."""
    rounds: list[list[dict[str, Any]]] = []
    for e in state.events:
        if e["type"] == "round_start":
            rounds.append([])
        if rounds:
            rounds[-1].append(e)
    return rounds


# ---------------------------------------------------------------- point 6: a concession pays the winning team


def test_p6_undeclared_team_concedes_partner_100_declarer_50_whatever_their_hands():
    # P0 declares P2; P1 (undeclared, with P3) concedes. The declarer's FULL beats the partner's TRIP:
    # the old reading compared them and paid nobody. Rule 8: "the other team automatically wins the
    # round"; 10A: the partner "receives 100 points and the Declaring Player receives 50 points".
    state = play_4p_round({0: FULL, 1: PAIR, 2: TRIP, 3: QUAD}, declare=(0, 2), concede_by=1)
    end = round_end(state)
    assert sorted(end["conceded"]) == [1, 3]
    assert end["scores"] == [50, 0, 100, 0]
    assert end["high_hand"] == [2]  # the table treats the partner as the high hand


def test_p6_declared_team_concedes_the_better_undeclared_hand_50_its_partner_25():
    # P0 declares P1; P1 concedes. The undeclared P2 (PAIR) and P3 (TRIP) win: 10B, the better
    # hand (P3) 50 and P2 25; the conceding partner's QUAD counts for nothing.
    state = play_4p_round({0: FULL, 1: QUAD, 2: PAIR, 3: TRIP}, declare=(0, 1), concede_by=1)
    end = round_end(state)
    assert end["high_hand"] == [3] and end["scores"] == [0, 0, 25, 50]


def test_p6_a_concession_pays_the_winners_even_with_no_cards():
    # the undeclared P2 and P3 hold no cards when the declared team concedes: they still win the round
    # (50 + 25 once, R10/R11: the draw decides who takes the 50), not 50 each
    state = play_4p_round({0: FULL, 1: QUAD}, declare=(0, 1), concede_by=1)
    end = round_end(state)
    winner = draw_winner(state, "tie_draw")
    assert sorted(events(state, "tie_draw")[0]["players"]) == [2, 3]
    assert end["scores"][winner] == 50 and end["scores"][5 - winner] == 25
    assert end["scores"][0] == end["scores"][1] == 0


def test_p6_option_concession_hands_compares_the_winners_hands():
    state = play_4p_round({0: FULL, 1: PAIR, 2: TRIP, 3: QUAD}, declare=(0, 2), concede_by=1, concession="hands")
    end = round_end(state)
    assert end["high_hand"] == [0] and end["scores"] == [0, 0, 0, 0]  # the declarer's hand is the better
    assert load(4).options["concession"] == "team"


# ---------------------------------------------------------------- point 7: a tie within a team scores once


def test_p7_undeclared_teammates_tied_take_50_and_25_once():
    # P0 declares P1; the undeclared P2 and P3 tie (9 9 5 5 7, no unused cards). 10B gives the team
    # 50 + 25: a draw decides which of them is "the player with the high hand" (50), the other is
    # "his or her partner" (25). The old reading paid 50 each (the team took 100).
    state = play_4p_round({0: LOW_A, 1: LOW_B, 2: TIE_A, 3: TIE_B}, declare=(0, 1), sink=0)
    end = round_end(state)
    assert end["high_hand"] == [2, 3]
    winner = draw_winner(state, "tie_draw")
    assert winner in (2, 3)
    assert end["scores"][winner] == 50 and end["scores"][5 - winner] == 25 and sum(end["scores"]) == 75


def test_p7_the_tie_draw_happens_only_for_a_tie_within_a_team():
    state = play_4p_round({0: LOW_A, 1: TIE_B, 2: TIE_A, 3: LOW_B}, declare=(0, 2), sink=0)
    assert not events(state, "tie_draw")
    # partner and an undeclared player tie: each team has the high hand and scores its result once
    assert round_end(state)["scores"] == [50, 50, 100, 25]


def test_p7_declarer_tied_with_the_partner_nobody_scores():
    # "If the Declaring Player has the highest-ranking hand, then no points are scored in the round."
    state = play_4p_round({0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, declare=(0, 2), sink=1)
    end = round_end(state)
    assert end["high_hand"] == [0, 2] and end["scores"] == [0, 0, 0, 0]


def test_p7_declarer_tied_with_an_undeclared_player_nobody_scores():
    # 10A: "None of the players receive any points" when the Declaring Player has the high hand
    state = play_4p_round({0: TIE_A, 1: TIE_B, 2: LOW_A, 3: LOW_B}, declare=(0, 2), sink=2)
    end = round_end(state)
    assert end["high_hand"] == [0, 1] and end["scores"] == [0, 0, 0, 0]


@pytest.mark.parametrize("hands,declare,sink,scores", [
    ({0: LOW_A, 1: LOW_B, 2: TIE_A, 3: TIE_B}, (0, 1), 0, [0, 0, 50, 50]),
    ({0: TIE_A, 1: LOW_A, 2: TIE_B, 3: LOW_B}, (0, 2), 1, [50, 0, 100, 0]),
    ({0: TIE_A, 1: TIE_B, 2: LOW_A, 3: LOW_B}, (0, 2), 2, [0, 50, 0, 25]),
])
def test_p7_option_tie_scoring_each_keeps_the_old_reading(hands, declare, sink, scores):
    state = play_4p_round(hands, declare=declare, sink=sink, tie_scoring="each")
    assert round_end(state)["scores"] == scores
    assert load(4).options["tie_scoring"] == "team"


def test_p7_declared_team_concedes_tied_undeclared_take_50_and_25_once():
    # the undeclared P2 and P3 tie (9 9 5 5 7) and win by the declared team's concession: 10B once
    state = play_4p_round({0: QUAD, 1: FULL, 2: TIE_A, 3: TIE_B}, declare=(0, 1), concede_by=1)
    end = round_end(state)
    winner = draw_winner(state, "tie_draw")
    assert end["high_hand"] == [2, 3]  # both hold the better hand of the winning team (R10)
    assert end["scores"][winner] == 50 and end["scores"][5 - winner] == 25 and sum(end["scores"]) == 75


# ---------------------------------------------------------------- point 8: 2 players, the blocker keeps the taker free


def shut_in_position(**options: Any) -> interpreter.State:
    """P0's pawn 1 on a1 (b1 held by P1), pawn 2 on a4: both can move; a blocker on a2 would shut in a1."""
    state = starting(2, 1, **options)
    p0a, p0b = pawns(state, 0)
    _, p1b = pawns(state, 1)
    arrange(state, {"a2": "Red 9", "c3": "Purple 1"}, at={p0a: "a1", p0b: "a4", p1b: "b4"})
    act(state, "block: move P1 pawn 1 to a5")
    act(state, "take: move P1 pawn 2 to b1")
    assert state.current_player() == 0
    return state


def test_p8_no_blocker_move_shuts_in_the_own_taker():
    # "do the following in exact order: A. Move a pawn as a blocker ... B. Move a pawn as a taker";
    # the only excuse is a pawn "blocked by your opponent". P0 pawn 2 to a2 would leave pawn 1 no move.
    state = shut_in_position()
    blocks = moves(state)
    assert blocks and all(lab.startswith("block: ") for lab in blocks)
    assert "block: move P0 pawn 2 to a2" not in blocks
    assert "block: move P0 pawn 2 to a3" in blocks and "block: move P0 pawn 1 to a2" in blocks
    for label in blocks:  # every blocker move offered is followed by the same player's taker move
        after = state.clone()
        act(after, label)
        assert after.current_player() == 0 and all(lab.startswith("take: ") for lab in labels(after)), label


def test_p8_option_blocker_may_shut_in_taker():
    state = shut_in_position(blocker_may_shut_in_taker=True)
    act(state, "block: move P0 pawn 2 to a2")
    assert state.current_player() == 1 and hand(state, 0) == [] and square(state, "a2") == ["Red 9"]
    assert load(2).options["blocker_may_shut_in_taker"] is False


def test_p8_some_blocker_move_always_keeps_the_taker_free():
    """R12 says that when both pawns can move, some blocker move leaves the taker a move, so the
    default never leaves a player without a legal turn: checked here for every placement of two own
    and two opposing pawns on the 6x6 board (rook moves, never through or onto a pawn)."""
    from itertools import combinations

    cells = [(r, c) for r in range(6) for c in range(6)]

    def free_neighbour(p: tuple[int, int], occupied: set[tuple[int, int]]) -> bool:
        r, c = p
        return any(0 <= r + dr < 6 and 0 <= c + dc < 6 and (r + dr, c + dc) not in occupied
                   for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))

    def slides(p: tuple[int, int], occupied: set[tuple[int, int]]) -> list[tuple[int, int]]:
        out = []
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r, c = p[0] + dr, p[1] + dc
            while 0 <= r < 6 and 0 <= c < 6 and (r, c) not in occupied:
                out.append((r, c))
                r, c = r + dr, c + dc
        return out

    stuck = []
    for own in combinations(cells, 2):
        for opponent in combinations([x for x in cells if x not in own], 2):
            occupied = set(own) | set(opponent)
            if not all(free_neighbour(p, occupied) for p in own):
                continue
            if not any(free_neighbour(taker, (occupied - {blocker}) | {dest})
                       for blocker, taker in (own, own[::-1]) for dest in slides(blocker, occupied)):
                stuck.append((own, opponent))
    assert stuck == []


# ---------------------------------------------------------------- point 9: the first player is drawn every round


@pytest.mark.parametrize("players", [2, 4])
def test_p9_every_round_starts_with_a_draw_for_the_first_player(players):
    # "Each player draws one card ... Whoever draws the highest number card plays first" is step 1 of
    # how to play, and rule 11 plays each later round afresh ("shuffle and deal the cards again").
    state = starting(players, 0, rounds=4)
    rng = random.Random(players)
    firsts = [state.current_player()]
    while not state.is_terminal():
        started = len(events(state, "round_start"))
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        if len(events(state, "round_start")) > started and not state.is_terminal():
            firsts.append(state.current_player())
    rounds = round_events(state)
    assert len(rounds) == len(firsts) == 4
    for r, (evs, first) in enumerate(zip(rounds, firsts), start=1):
        draws = [e for e in evs if e["type"] == "first_player_draw"]
        assert draws and draws[0]["players"] == list(range(players)), r
        numbers = [int(n.split()[1]) for n in draws[-1]["cards"]]
        assert first == draws[-1]["players"][numbers.index(max(numbers))], r


def test_p9_option_first_player_rotate():
    state = starting(4, 1, rounds=3, first_player="rotate")
    for first in (1, 2, 3):
        assert state.current_player() == first
        act(state, f"declare P{(first + 2) % 4} as partner")
        act(state, sorted(lab for lab in labels(state) if lab.startswith("move"))[0])
        act(state, "concede")
    assert [sum(e["type"] == "first_player_draw" for e in evs) > 0 for evs in round_events(state)] == [
        True, False, False]
    assert load(4).options["first_player"] == "draw"


# ---------------------------------------------------------------- point 10: how the round ended; empty hands


def test_p10_round_end_says_what_ended_the_round():
    state = play_4p_round({0: PAIR, 1: TRIP, 2: QUAD, 3: FULL}, sink=1, starter=0, partnerships=False)
    assert round_end(state)["ended_by"] == "board empty"
    state = play_4p_round({0: TRIP, 1: QUAD, 2: FULL, 3: PAIR}, declare=(0, 2), concede_by=1)
    assert round_end(state)["ended_by"] == "concession"
    state = starting(4, 3, partnerships=False, stall_turns=1, rounds=1)
    arrange(state, {"c4": "Red 5"}, {0: PAIR})
    act(state, "move pawn to a3")
    end = round_end(state)
    assert end["ended_by"] == "stall guard" and square(state, "c4") == ["Red 5"]


def test_p10_an_empty_hand_is_named_no_cards_in_events_and_views():
    state = starting(4, 3, partnerships=False, stall_turns=1, rounds=1)
    arrange(state, {"c4": "Red 5"}, {0: PAIR, 1: ["Green 13"]})
    act(state, "move pawn to a3")
    categories = [h["category"] for h in round_end(state)["hands"]]
    assert categories == ["one pair", "high card", "no cards", "no cards"]
    assert [h["best"] for h in round_end(state)["hands"]][2:] == [[], []]
    for viewer in range(4):
        seen = [e for e in state.observation(viewer)["events"] if e["type"] == "round_end"][-1]
        assert [h["category"] for h in seen["hands"]] == categories


def test_p10_rulings_state_the_measured_stall_rate():
    text = ruling(8)
    assert "does not come into play in normal games" not in text
    assert "python -m interpreter simulate games/highhand.yaml" in text and "%" in text
    assert "`ended_by`" in text


# ---------------------------------------------------------------- point 11: conceding with 2 players; zero-card hands


@pytest.mark.parametrize("players,options", [(4, {"partnerships": False}), (2, {})])
def test_p11_when_nobody_holds_a_card_nobody_scores(players, options):
    # "Each player must put together five of his or her cards to form the best hand possible": a player
    # with no cards has no hand to announce; when nobody has one, there is no high hand (old: all tied,
    # everybody scored as the high hand).
    state = starting(players, 0, stall_turns=1, rounds=1, **options)
    arrange(state, {"c4": "Red 5"})
    act(state, sorted(lab for lab in labels(state) if "(take" not in lab)[0])
    if players == 2:
        act(state, sorted(lab for lab in labels(state) if "(take" not in lab)[0])
    end = round_end(state)
    assert end["ended_by"] == "stall guard"
    assert end["high_hand"] == [] and end["scores"] == [0] * players


def test_p11_a_player_with_no_cards_loses_to_any_card():
    state = starting(2, 0, stall_turns=1, rounds=1)
    arrange(state, {"c4": "Red 5"}, {1: ["Green 1"]})
    act(state, "block: move P0 pawn 1 to a3")
    act(state, "take: move P0 pawn 2 to d1")
    end = round_end(state)
    assert end["high_hand"] == [1] and end["scores"] == [0, 100]


def test_p11_two_players_do_not_concede_by_default():
    state = starting(2, 0)
    for _ in range(4):
        assert not [lab for lab in labels(state) if lab.startswith("concede")]
        act(state, sorted(labels(state))[0])
    assert load(2).options["two_player_concede"] is False


def test_p11_option_two_player_concede_the_other_player_wins_100():
    state = play_2p_round({0: QUAD, 1: PAIR}, {"c4": LAST}, [], two_player_concede=True)
    assert "concede the round for P0" in moves(state)
    act(state, "concede the round for P0")
    end = round_end(state)
    # "the other team automatically wins the round"; 2p rule 6: "the winner of the round receives 100"
    assert end["ended_by"] == "concession" and end["conceded"] == [0]
    assert end["high_hand"] == [1] and end["scores"] == [0, 100]


def test_p11_rulings_address_two_player_conceding_and_empty_hands():
    assert "`two_player_concede`" in ruling(12) and "one team concedes" in ruling(12)
    assert "no cards" in ruling(9) and "nobody scores" in ruling(9)

