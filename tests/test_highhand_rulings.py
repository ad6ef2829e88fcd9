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
    events,
    load,
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
