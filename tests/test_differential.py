"""Our games through our OpenSpiel adapter against OpenSpiel's own games, move by move.

Tic-tac-toe against pyspiel's `tic_tac_toe`; goofspiel against pyspiel's `goofspiel` in
its turn-based form (`convert_to_turn_based`), for several parameter sets. At every step
both engines must offer the same legal actions (same ids: our action ids were designed to
be OpenSpiel's), or the same chance outcomes with the same probabilities, and at the end
give the same returns. 500+ seeded random games per game.
"""

from __future__ import annotations

import random

import pytest

from tests.conftest import require

pyspiel = require("pyspiel")

from interpreter.adapters.openspiel import register  # noqa: E402
from tests.conftest import GAMES  # noqa: E402
from tests.support import lockstep  # noqa: E402


def play_both(ours, theirs, seed: int) -> None:
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    for _ in lockstep(a, b, random.Random(seed), f"seed {seed}"):
        pass
    assert a.returns() == pytest.approx(b.returns()), f"seed {seed}"


def test_tictactoe_matches_openspiel_on_500_games():
    ours = register(str(GAMES / "tictactoe.yaml"))
    theirs = pyspiel.load_game("tic_tac_toe")
    assert ours.num_distinct_actions() == theirs.num_distinct_actions()
    assert (ours.min_utility(), ours.max_utility()) == (theirs.min_utility(), theirs.max_utility())
    for seed in range(500):
        play_both(ours, theirs, seed)


GOOFSPIEL_CASES = [
    (2, {}, 500),  # OpenSpiel's defaults with points_order=descending
    (2, {"points_order": "random"}, 200),
    (3, {"points_order": "ascending"}, 100),
    (4, {"points_order": "random", "num_cards": 6}, 100),
    (3, {"returns_type": "point_difference"}, 50),
    (2, {"returns_type": "total_points", "num_cards": 8}, 50),
]


@pytest.mark.parametrize("players, options, games", GOOFSPIEL_CASES)
def test_goofspiel_matches_openspiel(players, options, games):
    ours = register(str(GAMES / "goofspiel.yaml"), players=players, options=options)
    params = {"players": players, "points_order": options.get("points_order", "descending"),
              "num_cards": options.get("num_cards", 13), "returns_type": options.get("returns_type", "win_loss")}
    theirs = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", params))
    assert ours.num_distinct_actions() == theirs.num_distinct_actions()
    assert (ours.min_utility(), ours.max_utility()) == pytest.approx((theirs.min_utility(), theirs.max_utility()))
    for seed in range(games):
        play_both(ours, theirs, seed)
