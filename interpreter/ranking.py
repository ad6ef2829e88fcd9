"""Hand rankings written in the spec: the best k of n cards under ordered categories.

A category is one pattern: ``run`` (consecutive ranks, optionally all sharing an
attribute), ``same`` (k cards sharing an attribute), ``kinds`` (groups of equal rank,
e.g. [3, 2]; groups of one are kickers, which may be missing when a player holds
fewer cards) or ``highest`` (any cards). Each matcher finds the best match directly
(no search over subsets). A hand's value is ``[category score, tie-break ranks,
unused ranks]`` and compares as a list: higher is better.

Speed: tables per card are built once: each card's place in the order "highest rank
first, then lowest id", and its rank's number among the distinct ranks, so that the
ranks of a group of cards are the bits of one integer and a run of k is k - 1 shifts
(the ranks are whole numbers: the checker makes sure). A hand is sorted once into
that order; its groups of equal rank and its groups by an attribute are built at most
once and shared by every category that needs them. The memo holds tuples only (no
lists for the garbage collector to walk); each call returns fresh lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rulespec.model import CategoryDef, RankingDef

from .budget import SMALL, spend

__all__ = ["Ranking", "MAX_CACHED_CARDS"]

MAX_CACHED_CARDS = 500_000  # cards in the keys of one ranking's memo of evaluated hands

_NOTHING = object()  # equal to no rank; the key of the rank groups in a hand's shared groups
Match = tuple[list[Any], list[int]]
Matcher = Callable[[tuple[int, ...], dict], "Match | None"]
Result = tuple[list[Any], list[int], str]
Known = tuple[int, tuple[Any, ...], tuple[Any, ...], tuple[int, ...], str]  # score, tie-break, unused, used, name


class Ranking:
    def __init__(self, spec: RankingDef, attrs: dict[str, tuple[Any, ...]]):
        self.spec = spec
        self.size = spec.size
        self.rank = rank = attrs[spec.order]
        self.attrs = attrs
        self.categories = spec.categories
        self._cache: dict[tuple[int, ...], Known] = {}
        self._cached_cards = 0  # cards held by the cache's keys: bounds its memory
        order = sorted(range(len(rank)), key=lambda c: (-rank[c], c))
        place = [0] * len(rank)
        for i, c in enumerate(order):
            place[c] = i
        self._place = tuple(place).__getitem__  # sort key: highest rank first, then lowest id
        self._values = values = sorted(set(rank))  # the distinct ranks, low to high
        index_of = {v: i for i, v in enumerate(values)}
        self._index = tuple(index_of[r] for r in rank)  # a card's rank as a bit number
        total = len(self.categories)
        self._matchers = [(total - i, cat.name, self._matcher(cat)) for i, cat in enumerate(self.categories)]

    def evaluate(self, cards: Sequence[int], s: Any = None, span: Any = None) -> Result:
        """(value, the cards of the best hand, category name). Evaluating a hand costs the
        rules' budget of state ``s`` (when given) cards x categories, whether the memo knows
        the hand or not: what a step may do must not depend on what earlier steps (of any
        match of the game) left in the memo."""
        key = tuple(sorted(cards))
        work = len(key) * len(self.categories)
        if s is not None and work > SMALL:
            spend(s, work, span)
        known = self._cache.get(key)
        if known is None:
            known = self._evaluate(tuple(sorted(key, key=self._place)))
            if self._cached_cards + len(key) > MAX_CACHED_CARDS:
                self._cache.clear()
                self._cached_cards = 0
            self._cache[key] = known
            self._cached_cards += len(key)
        score, tiebreak, unused, used, name = known
        return [score, list(tiebreak), list(unused)], list(used), name

    def _evaluate(self, ordered: tuple[int, ...]) -> Known:
        """``ordered``: the hand, highest rank first (then lowest id). The result is made of
        tuples only, so that the memo holds no lists (the garbage collector skips it)."""
        shared: dict[Any, Any] = {}  # groups of this hand, built by the first category that needs them
        for score, name, match in self._matchers:
            found = match(ordered, shared)
            if found is not None:
                tiebreak, used = found
                return score, tuple(tiebreak), self._unused(ordered, used), tuple(used), name
        return 0, (), self._unused(ordered, ()), (), "nothing"

    def _unused(self, ordered: tuple[int, ...], used: Sequence[int]) -> tuple[Any, ...]:
        if not self.spec.unused:
            return ()
        left = list(ordered)
        for c in used:
            left.remove(c)
        return tuple(map(self.rank.__getitem__, left))

    # ------------------------------------------------------------ one matcher per category

    def _matcher(self, cat: CategoryDef) -> Matcher:
        if cat.kind == "run":
            return self._run_matcher(cat.run, cat.same)
        if cat.kind == "same":
            return self._same_matcher(cat.count, cat.same)
        if cat.kind == "kinds":
            return self._kinds_matcher(cat.kinds)
        return self._highest_matcher(min(cat.count, self.size))

    def _highest_matcher(self, count: int) -> Matcher:
        rank = self.rank

        def highest(ordered: tuple[int, ...], shared: dict) -> Match:
            chosen = list(ordered[:count])
            return [rank[c] for c in chosen], chosen

        return highest

    def _same_matcher(self, count: int, attr: str | None) -> Matcher:
        rank = self.rank
        group_by = self._grouper(attr)

        def same(ordered: tuple[int, ...], shared: dict) -> Match | None:
            best: Match | None = None
            for group in group_by(ordered, shared):
                if len(group) < count:
                    continue
                chosen = list(group[:count])
                key = [rank[c] for c in chosen]
                if best is None or key > best[0]:
                    best = (key, chosen)
            return best

        return same

    def _run_matcher(self, length: int, attr: str | None) -> Matcher:
        group_by = self._grouper(attr)
        index = self._index
        runs = self._run_starts(length)
        need = max(length, 1)

        def run(ordered: tuple[int, ...], shared: dict) -> Match | None:
            best = -1  # bit number of the highest rank of the best run so far
            best_group: Sequence[int] = ()
            for group in group_by(ordered, shared):
                if len(group) < need:
                    continue
                ranks = 0  # the group's ranks, one bit each
                for c in group:
                    ranks |= 1 << index[c]
                starts = runs & ranks  # the lowest ranks of the runs the group holds
                for shift in range(1, length):
                    starts &= ranks >> shift
                top = starts.bit_length() + need - 2
                if starts and top > best:
                    best, best_group = top, group
            if best < 0:
                return None
            return self._run_cards(best, length, best_group)

        return run

    def _run_starts(self, length: int) -> int:
        """Bit i set when the distinct ranks i .. i + length - 1 are consecutive numbers."""
        values = self._values
        if length <= 1:
            return (1 << len(values)) - 1
        starts = "".join("1" if values[i + length - 1] - values[i] == length - 1 else "0"
                         for i in range(len(values) - length, -1, -1))
        return int(starts or "0", 2)

    def _run_cards(self, top: int, length: int, group: Sequence[int]) -> Match:
        rank = self.rank
        value = self._values[top]
        first: dict[Any, int] = {}
        for c in group:
            first.setdefault(rank[c], c)
        return [value], [first[value - k] for k in range(length)]

    def _kinds_matcher(self, kinds: tuple[int, ...]) -> Matcher:
        sizes = sorted((k for k in kinds if k > 1), reverse=True)
        kickers = sum(1 for k in kinds if k == 1)
        rank = self.rank
        rank_groups = self._rank_groups

        def match(ordered: tuple[int, ...], shared: dict) -> Match | None:
            pairs = shared.get(_NOTHING)
            if pairs is None:
                pairs = rank_groups(ordered, shared)
            tiebreak: list[Any] = []
            used: list[int] = []
            for size in sizes:
                for value, group in pairs:
                    if len(group) >= size and value not in tiebreak:
                        break
                else:
                    return None
                tiebreak.append(value)
                used.extend(group[:size])
            if kickers:
                rest = [c for c in ordered if c not in used][:kickers]
                used.extend(rest)
                tiebreak.extend(rank[c] for c in rest)
            return tiebreak, used

        return match

    # ------------------------------------------------------------ groups shared by the categories of one hand

    def _rank_groups(self, ordered: tuple[int, ...], shared: dict) -> list[tuple[Any, list[int]]]:
        """The groups of two or more cards of equal rank, highest rank first (kept in ``shared``)."""
        pairs = shared[_NOTHING] = []
        rank = self.rank
        last: Any = _NOTHING
        group: list[int] = []
        for c in ordered:  # equal ranks are next to each other
            value = rank[c]
            if value != last:
                last, group = value, [c]
            else:
                group.append(c)
                if len(group) == 2:
                    pairs.append((value, group))
        return pairs

    def _grouper(self, attr: str | None) -> Callable[[tuple[int, ...], dict], list[Sequence[int]]]:
        """The groups of a hand's cards by ``attr`` (all cards when None), in the order of their
        highest card, kept in ``shared`` under ``attr``."""
        if attr is None:
            def whole(ordered: tuple[int, ...], shared: dict) -> list[Sequence[int]]:
                found = shared.get(None)
                if found is None:
                    found = shared[None] = [ordered]
                return found

            return whole
        values = self.attrs[attr]

        def group_by(ordered: tuple[int, ...], shared: dict) -> list[Sequence[int]]:
            found = shared.get(attr)
            if found is None:
                groups: dict[Any, list[int]] = {}
                for c in ordered:
                    groups.setdefault(values[c], []).append(c)
                found = shared[attr] = list(groups.values())
            return found

        return group_by
