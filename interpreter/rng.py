"""The state's random generator: splitmix64, a single integer of state.

One integer clones for free and serialises exactly; the same seed gives the same
sequence on every platform.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int) -> int:
    return (int(seed) * GOLDEN + 0x5DEECE66D) & MASK


def next_u64(state: int) -> tuple[int, int]:
    """Return (new_state, 64 random bits)."""
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """Return (new_state, a uniform integer in [0, n)) by Lemire's multiply-shift."""
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, ((z ^ (z >> 31)) * n) >> 64


def below_run(state: int, n: int, k: int) -> tuple[int, list[int]]:
    """Return (new_state, [below(n), below(n - 1), ..., below(n - k + 1)]): the draws of k
    cards one after another from a shuffled zone of n, the same numbers as k calls of
    ``below``, in one call."""
    picks = []
    for size in range(n, n - k, -1):
        state = (state + GOLDEN) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        picks.append(((z ^ (z >> 31)) * size) >> 64)
    return state, picks


def uniform(state: int) -> tuple[int, float]:
    """Return (new_state, a float in [0, 1))."""
    state, bits = next_u64(state)
    return state, (bits >> 11) * (1.0 / (1 << 53))
