"""Highjack: the rulings of issue 13 (points 1-5), each against the rulebook sentence it reads.

1. "Opponent" is another Toker by default (R4); `opponent_may_be_self: true` is the variant.
2. One Hitter Quitter: a match the round guard ends without a bonus is a draw among all (R11).
3. `decks` must seat every Toker: at least ceil(players / 4) decks (R12).
4. Every public movement of a face-up card gets an event naming it, seen by every Toker (R1).
5. Stated rulings: a Session nobody else joins (R5/R8), and what "at least 1 Session card" reads (R9).

Positions are arranged with the helpers of tests/test_highjack.py (see its docstring).
"""

from __future__ import annotations

import pytest

from rulespec import compile_file
from rulespec.describe import describe
from tests.test_highjack import (
    PATH,
    act,
    arrange,
    events,
    game,
    hit,
    labels,
    opened,
    session_round,
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
