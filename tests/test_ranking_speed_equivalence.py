"""interpreter/ranking.py against a copy of the ranking it replaced (kept here, not in the package).

The fast ranking (per-card tables, shared groups, run bitmasks, a memo of tuples) must give the
very same ``(value, best cards, category name)`` for every hand: random hands of 0..12 cards
from every ranking of the seed games and of a hostile spec, hands with many cards of one rank or
of one suit, repeated card ids (many copies too), hands of 128 cards or more, decks of over a
thousand ranks, and random rankings (all four kinds of category, any attribute, ranks with gaps)
over random card tables. The budget is charged on a miss, as before.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interpreter
from interpreter.budget import SMALL
from interpreter.ranking import Ranking
from rulespec.model import CategoryDef, RankingDef
from tests.conftest import GAMES, ROOT

SPECS = sorted(GAMES.glob("*.yaml")) + [ROOT / "tests" / "hostile" / "specs" / "run_ranking_big_hand.yaml"]


# ---------------------------------------------------------------- the reference: the ranking as it was


class Reference:
    """The evaluation of interpreter/ranking.py before it was made fast, verbatim (no memo)."""

    def __init__(self, spec: RankingDef, attrs: dict[str, tuple[Any, ...]]):
        self.spec = spec
        self.size = spec.size
        self.rank = attrs[spec.order]
        self.attrs = attrs
        self.categories = spec.categories

    def evaluate(self, cards: Sequence[int]) -> tuple[list[Any], list[int], str]:
        return self._evaluate(tuple(sorted(cards)))

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


# ---------------------------------------------------------------- the rankings under test


def _spec_rankings() -> list[tuple[str, RankingDef, dict[str, tuple[Any, ...]]]]:
    found = []
    for path in SPECS:
        if "rankings:" not in path.read_text(encoding="utf-8"):
            continue  # (compiling only the specs that rank hands)
        game = interpreter.load_game(str(path))
        for name, ranking in game.link.rankings.items():
            found.append((f"{path.stem}:{name}", ranking.spec, game.link.cards.attrs))
    return found


RANKINGS = _spec_rankings()
IDS = [label for label, _, _ in RANKINGS]


def test_the_seed_games_have_a_ranking():
    assert any(label.startswith("highhand:") for label in IDS)


def same_results(spec: RankingDef, attrs: dict[str, tuple[Any, ...]], hands: Sequence[Sequence[int]]) -> None:
    """Every hand twice (a miss, then a hit of the memo, in another card order) as the reference."""
    fast = Ranking(spec, attrs)
    reference = Reference(spec, attrs)
    for hand in hands:
        want = reference.evaluate(hand)
        assert fast.evaluate(hand) == want, hand
        assert fast.evaluate(list(reversed(hand))) == want, hand


def cards_with(attrs: dict[str, tuple[Any, ...]], attr: str) -> list[list[int]]:
    """The card ids grouped by their value of ``attr``."""
    groups: dict[Any, list[int]] = {}
    for c, value in enumerate(attrs[attr]):
        groups.setdefault(value, []).append(c)
    return list(groups.values())


@st.composite
def spec_hands(draw: Any, attrs: dict[str, tuple[Any, ...]], order: str) -> list[int]:
    """A hand of 0..12 cards: any cards, cards of few ranks, cards of one suit, or repeated ids."""
    count = len(attrs[order])
    how = draw(st.sampled_from(["any", "few ranks", "one suit", "repeats"]))
    if how == "any":
        return draw(st.lists(st.integers(0, count - 1), max_size=12, unique=True))
    if how == "repeats":
        return draw(st.lists(st.integers(0, count - 1), max_size=12))
    if how == "few ranks":
        groups = cards_with(attrs, order)
        chosen = draw(st.lists(st.sampled_from(groups), min_size=1, max_size=4))
        pool = sorted({c for group in chosen for c in group})
    else:
        others = [a for a in attrs if a != order and len(set(attrs[a])) > 1] or [order]
        pool = draw(st.sampled_from(cards_with(attrs, draw(st.sampled_from(sorted(others))))))
    return draw(st.lists(st.sampled_from(pool), max_size=min(12, len(pool)), unique=True))


@pytest.mark.parametrize("label", IDS)
@settings(max_examples=300)
@given(data=st.data())
def test_spec_rankings_match_the_reference(label: str, data: Any):
    _, spec, attrs = RANKINGS[IDS.index(label)]
    hands = [data.draw(spec_hands(attrs, spec.order)) for _ in range(5)]
    same_results(spec, attrs, hands)


@pytest.mark.parametrize("label", IDS)
def test_spec_rankings_match_on_many_seeded_hands(label: str):
    _, spec, attrs = RANKINGS[IDS.index(label)]
    rng = random.Random(12)
    count = len(attrs[spec.order])
    hands = [rng.sample(range(count), rng.randint(0, 12)) for _ in range(3000)]
    hands += [rng.sample(range(count), 7) for _ in range(3000)]
    same_results(spec, attrs, hands)


@pytest.mark.parametrize("label", IDS)
def test_edge_cases(label: str):
    _, spec, attrs = RANKINGS[IDS.index(label)]
    by_rank = cards_with(attrs, spec.order)
    hands: list[list[int]] = [[], [0], [0, 0], [0, 0, 0, 0, 0]]
    hands += [group[:12] for group in by_rank]  # every card of one rank
    hands += [by_rank[0][:4] + by_rank[1][:3], by_rank[-1][:3] + by_rank[-2][:2] + by_rank[0][:2]]
    for attr in attrs:
        for group in cards_with(attrs, attr):  # all of one suit: the longest runs and the biggest "same"
            hands += [group[:12], group[-12:], group[::2][:12]]
    hands += [list(range(len(attrs[spec.order])))]  # every card at once
    same_results(spec, attrs, hands)


# ---------------------------------------------------------------- random rankings over random card tables


@st.composite
def categories(draw: Any, size: int) -> CategoryDef:
    kind = draw(st.sampled_from(["run", "same", "kinds", "highest"]))
    same = draw(st.sampled_from([None, "s", "t"]))
    kinds = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))) if kind == "kinds" else ()
    return CategoryDef(name=draw(st.text("abc", min_size=1, max_size=3)), kind=kind,
                       run=draw(st.integers(2, max(2, size))) if kind == "run" else 0,
                       same=same if kind in ("run", "same") else None,
                       count=draw(st.integers(1, size + 1)), kinds=kinds, span=None)  # type: ignore[arg-type]


@st.composite
def tables(draw: Any) -> tuple[RankingDef, dict[str, tuple[Any, ...]]]:
    count = draw(st.integers(1, 40))
    ranks = draw(st.lists(st.integers(-3, 14), min_size=count, max_size=count))  # gaps, repeats, negatives
    suits = draw(st.lists(st.sampled_from(["x", "y", "z", "w"]), min_size=count, max_size=count))
    other = draw(st.lists(st.sampled_from([0, 1, True, 2]), min_size=count, max_size=count))
    size = draw(st.integers(1, 7))
    spec = RankingDef(name="r", size=size, order="r", unused=draw(st.booleans()), span=None,  # type: ignore[arg-type]
                      categories=tuple(draw(st.lists(categories(size), max_size=6))))
    return spec, {"r": tuple(ranks), "s": tuple(suits), "t": tuple(other)}


@settings(max_examples=300)
@given(table=tables(), data=st.data())
def test_random_rankings_match_the_reference(table: Any, data: Any):
    spec, attrs = table
    count = len(attrs["r"])
    hands = [data.draw(st.lists(st.integers(0, count - 1), max_size=12, unique=data.draw(st.booleans())))
             for _ in range(8)]
    same_results(spec, attrs, hands)


def _classic_ranking() -> RankingDef:
    """Poker's categories over the attributes ``r`` (the order) and ``s`` (the colour)."""
    cats = tuple(CategoryDef(name, kind, run, same, count, kinds, None)  # type: ignore[arg-type]
                 for name, kind, run, same, count, kinds in [
                     ("straight flush", "run", 5, "s", 5, ()), ("quads", "kinds", 0, None, 5, (4, 1)),
                     ("full", "kinds", 0, None, 5, (3, 2)), ("flush", "same", 0, "s", 5, ()),
                     ("straight", "run", 5, None, 5, ()), ("pairs", "kinds", 0, None, 5, (2, 2, 1)),
                     ("pair", "kinds", 0, None, 5, (2, 1, 1, 1)), ("high", "highest", 0, None, 5, ())])
    return RankingDef("r", 5, "r", cats, True, None)  # type: ignore[arg-type]


def test_the_classic_categories_on_a_deck_with_gaps_in_its_ranks():
    ranks = tuple(r for _ in range(4) for r in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 20))
    suits = tuple(s for s in "abcd" for _ in range(11))
    spec = _classic_ranking()
    attrs = {"r": ranks, "s": suits}
    rng = random.Random(3)
    same_results(spec, attrs, [rng.sample(range(44), rng.randint(0, 12)) for _ in range(3000)])
    assert Ranking(spec, attrs).evaluate([0, 1, 2, 3, 4])[2] == "straight flush"
    assert Ranking(spec, attrs).evaluate([3, 4, 5, 6, 7])[2] == "flush"  # 5 6 8 9 10: no run across the gap


@settings(max_examples=100)
@given(table=tables(), data=st.data())
def test_random_rankings_match_on_many_copies_and_long_hands(table: Any, data: Any):
    """Hands of many copies of a few cards (more cards of a kind than any deck holds), and hands
    of 128 cards or more."""
    spec, attrs = table
    count = len(attrs["r"])
    hands = []
    for _ in range(3):
        pool = data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=6, unique=True))
        hands.append(data.draw(st.lists(st.sampled_from(pool), min_size=13, max_size=127)))
        hands.append(data.draw(st.lists(st.integers(0, count - 1), min_size=128, max_size=200)))
    same_results(spec, attrs, hands)


def test_a_copy_of_a_group_card_is_no_kicker():
    """A hand whose group leaves a copy of one of its cards must not take that copy for a kicker,
    whichever hand of the same shape the memo saw first."""
    cats = (CategoryDef("pair", "kinds", 0, None, 4, (2, 1, 1, 1), None),)  # type: ignore[arg-type]
    spec = RankingDef("r", 4, "r", cats, True, None)  # type: ignore[arg-type]
    attrs = {"r": (9, 9, 9, 5, 3, 2)}
    # 0 1 2 3 4: the pair 0 1, kickers 2 3 4; 0 1 1 3 4: the pair 0 1, kickers 3 4 (not the second 1)
    hands = [[0, 1, 2, 3, 4], [0, 1, 1, 3, 4], [1, 0, 1, 4, 3], [0, 0, 0, 3, 4, 5], [0, 1, 2, 3, 4, 5]]
    same_results(spec, attrs, hands)
    same_results(spec, attrs, hands[::-1])
    assert Ranking(spec, attrs).evaluate([0, 1, 1, 3, 4])[1] == [0, 1, 3, 4]


def test_a_deck_of_many_distinct_ranks():
    """Over a thousand distinct ranks (with gaps): short hands, hands of near ranks, long hands."""
    count = 2100
    ranks = tuple(c // 2 + c // 80 for c in range(count))
    suits = tuple("abcd"[c % 4] for c in range(count))
    spec = _classic_ranking()
    rng = random.Random(4)
    hands = [rng.sample(range(count), rng.randint(0, 12)) for _ in range(100)]
    for _ in range(200):
        start = rng.randrange(count - 40)
        hands.append(rng.sample(range(start, start + 40), rng.randint(5, 14)))
    hands += [rng.sample(range(count), rng.randint(128, 160)) for _ in range(5)]
    same_results(spec, {"r": ranks, "s": suits}, hands)


# ---------------------------------------------------------------- memo and budget


def test_a_hand_is_charged_to_the_budget_whether_the_memo_knows_it_or_not():
    """A hit is fast but not free: the budget a step spends must not depend on what earlier
    steps left in the memo (the same seed and actions give the same game, budget errors too)."""
    _, spec, attrs = RANKINGS[0]
    ranking = Ranking(spec, attrs)
    state = SimpleNamespace(ops=10**6)
    cards = list(range(min(12, len(attrs[spec.order]))))
    work = len(cards) * len(spec.categories)
    assert work > SMALL
    ranking.evaluate(cards, state)
    assert state.ops == 10**6 - work
    ranking.evaluate(list(reversed(cards)), state)  # the same hand: a hit
    assert state.ops == 10**6 - 2 * work
    small = cards[:1]
    before = state.ops
    ranking.evaluate(small, state)
    assert state.ops == before  # small work is free


def test_results_are_fresh_lists_so_a_caller_cannot_change_the_memo():
    _, spec, attrs = RANKINGS[0]
    ranking = Ranking(spec, attrs)
    value, best, name = ranking.evaluate([0, 1, 2, 3, 4, 5, 6])
    want = Reference(spec, attrs).evaluate([0, 1, 2, 3, 4, 5, 6])
    value[1].append(99)
    value.append(0)
    best.clear()
    assert ranking.evaluate([6, 5, 4, 3, 2, 1, 0]) == want


def test_the_memo_stays_bounded(monkeypatch: pytest.MonkeyPatch):
    import interpreter.ranking as module

    monkeypatch.setattr(module, "MAX_CACHED_CARDS", 20)
    _, spec, attrs = RANKINGS[0]
    ranking = Ranking(spec, attrs)
    reference = Reference(spec, attrs)
    for start in range(30):
        hand = list(range(start, start + 5))
        assert ranking.evaluate(hand) == reference.evaluate(hand)
        assert ranking._cached_cards <= 20 and sum(map(len, ranking._cache)) == ranking._cached_cards
