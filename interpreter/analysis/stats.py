"""The statistics of simulated matches: intervals, tests, a multiple-test correction, effect
sizes, histograms, and ``Tally``, the exact running sums of per-match counts.

Everything here is plain arithmetic on numbers (no game, no state). Counts are kept as
integer sums and sums of squares, so merging the tallies of several worker processes gives
the same figures in any order: statistics do not depend on ``--jobs``.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "Z95", "wilson", "normal_p", "two_proportion_p", "one_proportion_p", "welch_p", "describe", "holm",
    "histogram", "histogram_edges", "difference", "Tally",
]

Z95 = 1.959963984540054
Key = tuple[Any, ...]  # a counted thing (``match_counts`` names them)


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportion_p(x1: float, n1: int, x2: float, n2: int) -> float:
    """Two-sided p-value of the pooled two-proportion z-test."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(max(0.0, pooled * (1 - pooled)) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    return normal_p((x1 / n1 - x2 / n2) / se)


def one_proportion_p(x: float, n: int, p0: float) -> float:
    """Two-sided p-value of the z-test of a proportion against ``p0``."""
    if n <= 0 or p0 <= 0 or p0 >= 1:
        return 1.0
    return normal_p((x / n - p0) / math.sqrt(p0 * (1 - p0) / n))


def welch_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of the difference of two means (Welch's statistic, normal approximation)."""
    if len(a) < 2 or len(b) < 2:
        return 1.0
    return _welch_p(statistics.fmean(a), statistics.variance(a), len(a),
                    statistics.fmean(b), statistics.variance(b), len(b))


def _welch_p(mean_a: float, var_a: float, na: int, mean_b: float, var_b: float, nb: int) -> float:
    if na < 2 or nb < 2:
        return 1.0
    se = math.sqrt(var_a / na + var_b / nb)
    diff = mean_a - mean_b
    if se == 0:
        return 1.0 if diff == 0 else 0.0
    return normal_p(diff / se)


def describe(values: Sequence[float]) -> dict[str, float]:
    """Mean, standard deviation, min, median and max (all 0 for no values)."""
    if not values:
        return {"mean": 0.0, "sd": 0.0, "min": 0.0, "median": 0.0, "max": 0.0}
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": float(min(values)),
        "median": float(statistics.median(values)),
        "max": float(max(values)),
    }


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the order given: the i-th smallest of m p-values
    is multiplied by m - i + 1, then made non-decreasing (and at most 1). A difference is
    significant at level a when its adjusted p-value is below a; the chance of any false
    alarm among the m tests is then at most a."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def histogram_edges(values: Iterable[float], bins: int = 20) -> list[float]:
    """Bin edges for whole-number data: equal widths of a whole number, covering min to max."""
    data = list(values)
    if not data:
        return [0.0, 1.0]
    low, high = math.floor(min(data)), math.floor(max(data))
    width = max(1, math.ceil((high - low + 1) / bins))
    edges = [float(low)]
    while edges[-1] <= high:
        edges.append(edges[-1] + width)
    return edges


def histogram(values: Sequence[float], edges: Sequence[float] | None = None, bins: int = 20) -> dict[str, Any]:
    """``{"edges": [...], "counts": [...]}``: bin i holds edges[i] <= x < edges[i + 1]."""
    edges = list(edges) if edges is not None else histogram_edges(values, bins)
    counts = [0] * (len(edges) - 1)
    for x in values:
        i = bisect.bisect_right(edges, x) - 1
        if 0 <= i < len(counts) or x == edges[-1]:
            counts[min(i, len(counts) - 1)] += 1
    return {"edges": edges, "counts": counts}


def difference(kind: str, a: Sequence[float], b: Sequence[float], z: float = Z95) -> dict[str, Any]:
    """B - A for per-match values ``a`` and ``b``: the difference of the means with its interval,
    the standardised effect (the difference over the pooled standard deviation: Cohen's d, which
    for a rate of 0/1 values is its standard deviation) with its interval, and the p-value
    (``kind`` "rate": pooled two-proportion z-test; "mean": Welch's z-test). With no spread in
    either run, the effect is 0 when the means are equal and None (unmeasurable) otherwise."""
    na, nb = len(a), len(b)
    mean_a = statistics.fmean(a) if a else 0.0
    mean_b = statistics.fmean(b) if b else 0.0
    var_a = statistics.variance(a) if na > 1 else 0.0
    var_b = statistics.variance(b) if nb > 1 else 0.0
    return _difference(kind, mean_a, var_a, na, mean_b, var_b, nb, z)


def _difference(kind: str, mean_a: float, var_a: float, na: int, mean_b: float, var_b: float, nb: int,
                z: float = Z95) -> dict[str, Any]:
    diff = mean_b - mean_a
    se = math.sqrt((var_a / na if na else 0.0) + (var_b / nb if nb else 0.0))
    if kind == "rate":
        p = two_proportion_p(mean_a * na, na, mean_b * nb, nb)
    else:
        p = _welch_p(mean_a, var_a, na, mean_b, var_b, nb)
    ci = [diff - z * se, diff + z * se]
    if kind == "rate":  # (a difference of two rates is within -1 and 1)
        ci = [max(-1.0, ci[0]), min(1.0, ci[1])]
    sd = math.sqrt((var_a + var_b) / 2)
    effect: float | None = diff / sd if sd > 0 else 0.0 if diff == 0 else None  # None: no spread to measure it by
    effect_ci = [(diff - z * se) / sd, (diff + z * se) / sd] if sd > 0 else [effect, effect]
    return {"kind": kind, "a": mean_a, "b": mean_b, "difference": diff, "ci": ci,
            "effect": effect, "effect_ci": effect_ci, "p": p}


class Tally:
    """Per-match counts summed over matches: for every key, the sum and the sum of squares
    (integers, so exact), which give the mean per match, its spread and a test of a
    difference. A key missing from a match counted 0 there."""

    def __init__(self) -> None:
        self.matches = 0
        self.sums: dict[Key, list[int]] = {}

    def add(self, counts: Mapping[Key, int]) -> None:
        """One match's counts."""
        self.matches += 1
        sums = self.sums
        for key, value in counts.items():
            entry = sums.get(key)
            if entry is None:
                sums[key] = [value, value * value]
            else:
                entry[0] += value
                entry[1] += value * value

    def merge(self, other: Tally) -> None:
        """Add the matches of another tally (the result does not depend on the order of merging)."""
        self.matches += other.matches
        sums = self.sums
        for key, (total, squares) in other.sums.items():
            entry = sums.get(key)
            if entry is None:
                sums[key] = [total, squares]
            else:
                entry[0] += total
                entry[1] += squares

    def total(self, key: Key) -> int:
        entry = self.sums.get(key)
        return entry[0] if entry else 0

    def mean(self, key: Key) -> float:
        return self.total(key) / self.matches if self.matches else 0.0

    def variance(self, key: Key) -> float:
        """The sample variance of the key's per-match counts."""
        n = self.matches
        entry = self.sums.get(key)
        if n < 2 or entry is None:
            return 0.0
        total, squares = entry
        return (n * squares - total * total) / (n * (n - 1))

    def difference(self, other: Tally, key: Key) -> dict[str, Any]:
        """``difference`` of the key's per-match counts, this tally as A and ``other`` as B."""
        return _difference("mean", self.mean(key), self.variance(key), self.matches,
                           other.mean(key), other.variance(key), other.matches)

    def keys(self) -> list[Key]:
        return list(self.sums)
