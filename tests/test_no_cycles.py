"""Playing makes no reference cycles: every object a step makes is freed as soon as it is
dropped, never left for Python's cycle collector.

A cycle made per step (a closure that calls itself, made anew at each call, say) costs every
playout the collector's passes over the young objects; this test finds such a cycle by what
it leaves (``gc.DEBUG_SAVEALL``), not by timing.
"""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pytest

import interpreter
from interpreter.analysis.simulate import run_match

GAMES = Path(__file__).resolve().parent.parent / "games"


def _garbage_of(play) -> list:
    """The objects only the cycle collector would have freed, after ``play()``."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        play()
        gc.collect()
        return [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("spec", sorted(p.name for p in GAMES.glob("*.yaml")))
def test_random_games_leave_no_reference_cycles(spec):
    game = interpreter.load_game(str(GAMES / spec))
    rng = random.Random(7)

    def play() -> None:
        for seed in range(3):
            state = game.new_initial_state(seed)
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(state.sample_chance_outcome(rng))
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
            state.clone().to_json()

    assert _garbage_of(play) == []


def test_search_bots_leave_no_reference_cycles():
    game = interpreter.load_game(str(GAMES / "highjack.yaml"), players=4)
    agents = ["mcts:20", "greedy", "random", "mcts:10:prior=1:reuse=1:rollout=1:baseline=1"]
    assert _garbage_of(lambda: run_match(game, agents, 1, [1, 2, 3, 4])) == []
