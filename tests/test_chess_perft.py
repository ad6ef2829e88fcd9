"""Chess (games/chess.yaml): deeper perft counts than tests/test_chess.py, the numbers of
move sequences of each length from the standard positions of the Chess Programming Wiki
(https://www.chessprogramming.org/Perft_Results). About two minutes in all: depth 4 from the
start (197,281 sequences, 9,323 positions expanded) and depth 3 of four more positions."""

from __future__ import annotations

import pytest

import interpreter
from tests.conftest import GAMES
from tests.test_chess import perft


@pytest.mark.parametrize("position, depth, count", [
    ("start", 4, 197281),
    ("kiwipete", 3, 97862),
    ("position4", 3, 9467),
    ("position5", 3, 62379),
    ("position6", 3, 89890),
])
def test_deep_perft(position, depth, count):
    state = interpreter.load_game(str(GAMES / "chess.yaml"), options={"position": position}).new_initial_state(0)
    assert perft(state, depth) == count
