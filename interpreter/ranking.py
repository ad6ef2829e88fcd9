"""Hand rankings written in the spec: the best k of n cards under ordered categories.

A category is one pattern: ``run`` (consecutive ranks, optionally all sharing an
attribute), ``same`` (k cards sharing an attribute), ``kinds`` (groups of equal rank,
e.g. [3, 2]; groups of one are kickers, which may be missing when a player holds
fewer cards) or ``highest`` (any cards). Each matcher finds the best match directly
(no search over subsets). A hand's value is ``[category score, tie-break ranks,
unused ranks]`` and compares as a list: higher is better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulespec.model import CategoryDef, RankingDef

from .budget import SMALL, spend

__all__ = ["Ranking", "MAX_CACHED_CARDS"]

MAX_CACHED_CARDS = 500_000  # cards in the keys of one ranking's memo of evaluated hands


class Ranking:
    def __init__(self, spec: RankingDef, attrs: dict[str, tuple[Any, ...]]):
        self.spec = spec
        self.size = spec.size
        self.rank = attrs[spec.order]
        self.attrs = attrs
        self.categories = spec.categories
        self._cache: dict[tuple[int, ...], tuple[list[Any], list[int], str]] = {}
        self._cached_cards = 0  # cards held by the cache's keys: bounds its memory

    def evaluate(self, cards: Sequence[int], s: Any = None, span: Any = None) -> tuple[list[Any], list[int], str]:
        """(value, the cards of the best hand, category name). Evaluating a hand not seen
        before costs the rules' budget of state ``s`` (when given) cards x categories."""
        key = tuple(sorted(cards))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        work = len(key) * len(self.categories)
        if s is not None and work > SMALL:
            spend(s, work, span)
        result = self._evaluate(key)
        if self._cached_cards + len(key) > MAX_CACHED_CARDS:
            self._cache.clear()
            self._cached_cards = 0
        self._cache[key] = result
        self._cached_cards += len(key)
        return result

    def _evaluate(self, cards: tuple[int, ...]) -> tuple[list[Any], list[int], str]:
        rank = self.rank
        ordered = sorted(cards, key=lambda c: (-rank[c], c))
        total = len(self.categories)
        for index, cat in enumerate(self.categories):
            found = self._match(cat, ordered)
            if found is None:
                continue
            tiebreak, used = found
            unused: list[int] = []
            if self.spec.unused:
                left = list(ordered)
                for c in used:
                    left.remove(c)
                unused = [rank[c] for c in left]
            return [total - index, list(tiebreak), unused], used, cat.name
        return [0, [], [rank[c] for c in ordered] if self.spec.unused else []], [], "nothing"

    def _match(self, cat: CategoryDef, ordered: list[int]) -> tuple[list[int], list[int]] | None:
        if cat.kind == "run":
            return self._run(cat, ordered)
        if cat.kind == "same":
            return self._same(cat, ordered)
        if cat.kind == "kinds":
            return self._kinds(cat, ordered)
        chosen = ordered[: min(cat.count, self.size)]
        return [self.rank[c] for c in chosen], chosen

    def _groups(self, attr: str | None, ordered: list[int]) -> list[list[int]]:
        if attr is None:
            return [ordered]
        values = self.attrs[attr]
        groups: dict[Any, list[int]] = {}
        for c in ordered:
            groups.setdefault(values[c], []).append(c)
        return list(groups.values())

    def _run(self, cat: CategoryDef, ordered: list[int]) -> tuple[list[int], list[int]] | None:
        rank = self.rank
        best: tuple[int, list[int]] | None = None
        for group in self._groups(cat.same, ordered):
            by_rank: dict[int, int] = {}
            for c in group:
                by_rank.setdefault(rank[c], c)
            for top in sorted(by_rank, reverse=True):
                if best is not None and top <= best[0]:
                    break
                if all(top - k in by_rank for k in range(cat.run)):
                    best = (top, [by_rank[top - k] for k in range(cat.run)])
                    break
        if best is None:
            return None
        return [best[0]], best[1]

    def _same(self, cat: CategoryDef, ordered: list[int]) -> tuple[list[int], list[int]] | None:
        best: tuple[list[int], list[int]] | None = None
        for group in self._groups(cat.same, ordered):
            if len(group) < cat.count:
                continue
            chosen = group[: cat.count]
            key = [self.rank[c] for c in chosen]
            if best is None or key > best[0]:
                best = (key, chosen)
        return best

    def _kinds(self, cat: CategoryDef, ordered: list[int]) -> tuple[list[int], list[int]] | None:
        rank = self.rank
        by_rank: dict[int, list[int]] = {}
        for c in ordered:
            by_rank.setdefault(rank[c], []).append(c)
        used: list[int] = []
        tiebreak: list[int] = []
        taken: set[int] = set()
        for size in sorted((k for k in cat.kinds if k > 1), reverse=True):
            pick = next((r for r in by_rank if r not in taken and len(by_rank[r]) >= size), None)
            if pick is None:
                return None
            taken.add(pick)
            tiebreak.append(pick)
            used.extend(by_rank[pick][:size])
        kickers = sum(1 for k in cat.kinds if k == 1)
        if kickers:
            rest = [c for c in ordered if c not in used][:kickers]
            used.extend(rest)
            tiebreak.extend(rank[c] for c in rest)
        return tiebreak, used
