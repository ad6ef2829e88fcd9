"""Highjack: the rulings of issue 13 (points 1-5), each against the rulebook sentence it reads.

1. "Opponent" is another Toker by default (R4); `opponent_may_be_self: true` is the variant.
2. One Hitter Quitter: a match the round guard ends without a bonus is a draw among all (R11).
3. `decks` must seat every Toker: at least ceil(players / 4) decks (R12).
4. Every public movement of a face-up card gets an event naming it, seen by every Toker (R1).
5. Stated rulings: a Session nobody else joins (R5/R8), and what "at least 1 Session card" reads (R9).

Positions are arranged with the helpers of tests/test_highjack.py (see its docstring).
"""

from __future__ import annotations

import io

import pytest

import interpreter
from rulespec import compile_file
from rulespec.describe import describe
from tests.test_highjack import (
    DOC,
    PATH,
    act,
    arrange,
    ashtray,
    events,
    game,
    hand,
    hit,
    labels,
    opened,
    round_end,
    session_round,
    with_totals,
)

# ---------------------------------------------------------------- point 1: "Opponent" (R4)

# Every instruction that names an "Opponent" (the rulebook: "When the action is for 'Opponent,'
# the one playing the Action card may choose any Toker to perform the action"), with how the
# position is reached and the label offered for target P{p}:
#   (name, how: ("action", card played) or ("session", winning Session card), label)
OPPONENT_CHOICES = [
    ("Munchies", ("action", "Munchies"), "Munchies: P{p} takes 2 hits"),
    ("Bogart", ("action", "Bogart"), "Bogart: take a random card from P{p}"),
    ("Buzzkill", ("action", "Buzzkill"), "Buzzkill: P{p}'s Stash Box"),
    ("Paranoia", ("action", "Paranoia"), "Paranoia: P{p} skips their next turn"),
    ("Session 4-6", ("session", "Session 5"), "take a random card from P{p}"),
    ("Session 7-9", ("session", "Session 8"), "P{p} discards a card of their choice"),
    ("Session 10", ("session", "Session 10"), "take a Stash Box card from P{p}"),
    ("Highjack", ("session", "Highjack"), "take a Stash Box card from P{p}"),
]


def _opponent_choice(options: dict | None, how: tuple[str, str]) -> set[str]:
    """P0 plays the card (or wins a Session with it against P1's 1 and P2's 2): the labels offered."""
    kind, card = how
    hands = {0: [card, "Bong"], 1: ["Session 1", "Lighter"], 2: ["Session 2", "Grinder"]}
    state = arrange(opened(3, options), hands=hands, stash={p: ["Rolling Papers"] for p in range(3)},
                    pile=["Session 3", "Roach", "Hotbox", "Munchies", "Lighter"])
    hit(state)
    if kind == "action":
        act(state, f"play {card}")
    else:
        session_round(state, card, {1: "Session 1", 2: "Session 2"})
        assert events(state, "session_won")[-1]["player"] == 0
    return set(labels(state))


@pytest.mark.parametrize("name, how, label", OPPONENT_CHOICES, ids=[c[0] for c in OPPONENT_CHOICES])
def test_point1_every_opponent_is_another_toker_by_default(name, how, label):
    # The card word "Opponent" means another Toker: by default the player is never offered.
    assert _opponent_choice(None, how) == {label.format(p=1), label.format(p=2)}


@pytest.mark.parametrize("name, how, label", OPPONENT_CHOICES, ids=[c[0] for c in OPPONENT_CHOICES])
def test_point1_option_opponent_may_be_self_offers_every_toker(name, how, label):
    # the variant keeps the literal reading of "any Toker": the player too
    assert _opponent_choice({"opponent_may_be_self": True}, how) == {label.format(p=p) for p in range(3)}


def test_point1_the_default_is_others_only_and_describe_shows_it():
    assert game(3).options["opponent_may_be_self"] is False
    text = describe(compile_file(PATH))
    row = next(line for line in text.splitlines() if line.startswith("| `opponent_may_be_self` |"))
    assert "| bool | false |" in row


def test_point1_two_tokers_the_opponent_is_the_other_one():
    state = arrange(opened(2), hands={0: ["Munchies"], 1: []}, pile=["Bong", "Lighter", "Grinder"])
    hit(state)
    act(state, "play Munchies")
    assert set(labels(state)) == {"Munchies: P1 takes 2 hits"}


# ---------------------------------------------------------------- point 2: One Hitter Quitter at the guard (R11)


def _end_round_with_scores_20_20_40(state) -> None:
    """Seat 0 takes the last card (a Bong) and plays it; seat 1 has a Bong, seat 2 two Grinders and a
    Lighter: 20, 20, 40. Nobody completes a Stash Box (no Session Pile card)."""
    arrange(state, hands={0: [], 1: [], 2: []}, stash={1: ["Bong"], 2: ["Grinder", "Grinder", "Lighter"]},
            pile=["Bong"])
    hit(state)
    act(state, "play Bong")


def test_point2_one_hitter_quitter_ended_by_the_guard_is_a_draw_among_all():
    # "One Hitter Quitter (Short Game) - Points are not counted. The first Toker to earn the
    # bonus, wins the game." Nobody earned it: points may not decide, so nobody wins alone.
    state = with_totals(opened(3, {"max_rounds": 1, "end_rule": "one_hitter_quitter"}), [0, 900, 0])
    _end_round_with_scores_20_20_40(state)
    end = round_end(state)
    assert end["completed"] == [] and end["totals"] == [20, 920, 40]  # P1 leads by far, P2 scored most
    assert state.is_terminal()
    assert state.winners() == [0, 1, 2]
    # the default returns: the winners share 1 equally
    assert state.returns() == pytest.approx([1 / 3] * 3)
    match_end = events(state, "match_end")[-1]
    assert match_end["winners"] == [0, 1, 2]


def test_point2_one_hitter_quitter_the_bonus_still_wins_in_the_last_round():
    state = arrange(opened(3, {"max_rounds": 1, "end_rule": "one_hitter_quitter"}), hands={0: ["Bong"], 1: [], 2: []},
                    stash={0: ["Rolling Papers", "Lighter", "Grinder"]}, session_pile={0: ["Session 1"]},
                    pile=["Session 9", "Munchies"])
    state = with_totals(state, [0, 900, 0])
    hit(state)
    act(state, "play Bong")
    assert state.is_terminal() and state.winners() == [0] and state.returns() == [1.0, 0.0, 0.0]


def test_point2_chronic_at_the_guard_still_goes_to_the_highest_total():
    # unchanged: under Chronic Rules points are counted, so the guard keeps "highest score wins"
    state = opened(3, {"max_rounds": 1})
    _end_round_with_scores_20_20_40(state)
    assert state.is_terminal() and state.winners() == [2]


# ---------------------------------------------------------------- point 3: decks (R12)


def _needed(players: int) -> int:
    # "PLAYERS: 2-4 TOKERS (PER DECK)": one deck seats at most 4 Tokers, so ceil(players / 4)
    return -(-players // 4)


@pytest.mark.parametrize("players", range(2, 9))
def test_point3_too_few_decks_for_the_tokers_are_refused(players):
    needed = _needed(players)
    for decks in range(needed, 5):
        assert game(players, {"decks": decks}, explicit=False).cards.count == 60 * decks
    for decks in range(1, needed):
        with pytest.raises(interpreter.OptionError) as error:
            game(players, {"decks": decks}, explicit=False)
        message = str(error.value)
        assert f"option 'decks': {decks} is below the minimum {needed} for {players} players" in message
        assert "num_players" in message  # the bound's rule is shown


def test_point3_the_cli_refuses_8_players_with_one_deck_and_says_why():
    from interpreter.cli import main

    out, err = io.StringIO(), io.StringIO()
    status = main(["play", PATH, "--players", "8", "--agents", "random", "--option", "decks=1", "--no-color"],
                  out=out, err=err)
    assert status != 0
    assert "option 'decks': 1 is below the minimum 2 for 8 players" in err.getvalue()
    assert "Round 1" not in out.getvalue()  # nothing was played


def test_point3_describe_shows_the_bound():
    text = describe(compile_file(PATH))
    row = next(line for line in text.splitlines() if line.startswith("| `decks` |"))
    allowed = row.split("|")[4]  # | option | type | default | allowed | meaning |
    assert "number of players" in allowed and allowed.strip().endswith("to 4")


# ---------------------------------------------------------------- point 4: public movements get public events (R1)


def _seen_by_all(state, event: dict) -> None:
    for p in range(state.game.num_players):
        assert event in state.observation(p)["events"], (p, event)


def test_point4_roach_names_the_ashtray_card_it_takes_to_everybody():
    state = arrange(opened(3), hands={0: ["Roach"], 1: [], 2: []}, pile=["Session 1", "Lighter"],
                    ashtray_top=["Bong", "Highjack"])
    hit(state)
    act(state, "play Roach")
    assert sorted(hand(state, 0)) == ["Highjack", "Lighter"]
    event = {"type": "ashtray_card_taken", "player": 0, "card": "Highjack"}
    assert events(state, "ashtray_card_taken") == [event]
    _seen_by_all(state, event)


def test_point4_roach_on_an_empty_ashtray_names_nothing():
    from tests.test_highjack import set_zone

    state = arrange(opened(2), hands={0: ["Roach"], 1: []}, pile=[])
    set_zone(state, "pile", None, ashtray(state), source="ashtray", face=0)
    hit(state)
    act(state, "play Roach")
    assert events(state, "ashtray_card_taken") == []


def test_point4_a_stash_box_card_played_is_named_to_everybody():
    state = arrange(opened(3), hands={0: ["Bong"], 1: [], 2: []}, pile=["Session 1", "Lighter"])
    hit(state)
    act(state, "play Bong")
    event = {"type": "stash_played", "player": 0, "card": "Bong"}
    assert events(state, "stash_played") == [event]
    _seen_by_all(state, event)


def test_point4_buzzkill_names_the_stash_box_card_it_discards_to_everybody():
    state = arrange(opened(3), hands={0: ["Buzzkill"], 1: [], 2: []},
                    stash={1: ["Lighter", "Grinder"]}, pile=["Session 1", "Lighter"])
    hit(state)
    act(state, "play Buzzkill")
    act(state, "Buzzkill: P1's Stash Box")
    act(state, "Buzzkill: Grinder from P1")
    event = {"type": "stash_card_discarded", "player": 1, "card": "Grinder", "by": 0}
    assert events(state, "stash_card_discarded") == [event]
    _seen_by_all(state, event)


def test_point4_a_stash_box_card_taken_by_a_win_action_is_named_to_everybody():
    state = arrange(opened(3), hands={0: ["Session 10"], 1: ["Session 1"], 2: ["Session 2"]},
                    stash={2: ["Bong", "Grinder"]}, pile=["Roach", "Lighter"])
    hit(state)
    session_round(state, "Session 10", {1: "Session 1", 2: "Session 2"})
    act(state, "take a Stash Box card from P2")
    act(state, "take Bong")
    event = {"type": "stash_card_taken", "player": 0, "source": 2, "card": "Bong"}
    assert events(state, "stash_card_taken") == [event]
    _seen_by_all(state, event)


def test_point4_a_card_discarded_by_a_win_action_is_named_to_everybody():
    state = arrange(opened(3), hands={0: ["Session 9"], 1: ["Session 1", "Hotbox", "Bong"], 2: ["Session 2"]},
                    pile=["Roach", "Lighter"])
    hit(state)
    session_round(state, "Session 9", {1: "Session 1", 2: "Session 2"})
    act(state, "P1 discards")
    act(state, "discard Bong")
    assert ashtray(state)[-1] == "Bong"
    event = {"type": "card_discarded", "player": 1, "card": "Bong"}
    assert events(state, "card_discarded") == [event]
    _seen_by_all(state, event)


# ---------------------------------------------------------------- point 5: stated rulings (R5, R8, R9)


def test_point5_a_session_nobody_else_can_join_is_won_by_its_caller_who_performs_the_win_action():
    # P1 and P2 hold no Session card and the pile has none: both search in vain and sit out.
    state = arrange(opened(3), hands={0: ["Session 10", "Lighter"], 1: ["Munchies"], 2: ["Hotbox"]},
                    stash={2: ["Bong", "Grinder"]}, pile=["Rolling Papers", "Roach"])
    hit(state)  # Roach
    act(state, "play Session 10")
    assert [e["player"] for e in events(state, "spark_it_up")] == [1, 2]
    assert events(state, "reveal")[-1]["cards"] == [{"player": 0, "card": "Session 10"}]
    assert events(state, "session_won") == [{"type": "session_won", "player": 0, "card": "Session 10"}]
    # the caller performs the Win Action (a Stash Box card from an Opponent) ...
    assert set(labels(state)) == {"take a Stash Box card from P1", "take a Stash Box card from P2"}
    act(state, "take a Stash Box card from P2")
    act(state, "take Bong")
    assert events(state, "stash_card_taken") == [{"type": "stash_card_taken", "player": 0, "source": 2, "card": "Bong"}]
    # ... and the lone card goes to their Session Pile. The pile ran out (P1's search took its
    # last card), so the round ended with this turn; its scores show where the cards were (R10):
    # P0: Bong 20 + Session 10 20 - Lighter 10 - Roach 5; P1: - Munchies - Rolling Papers, at
    # least 0; P2: Grinder 15 - Hotbox 5
    end = round_end(state)
    assert end["round"] == 1 and end["scores"] == [25, 0, 10]


def test_point5_the_rulings_state_the_lone_session_and_the_reading_of_r9():
    doc = " ".join(DOC.read_text().split())
    assert "nobody else" in doc.lower() and "Win Action" in doc
    # R9 is flagged as an interpretation and gives the other reading
    assert "at least 1 Session card" in doc
    assert "interpretation" in doc.lower()
    assert "a Session card in the Stash Box" in doc
