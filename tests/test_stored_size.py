"""The size of a value kept in the state (``budget.nested_size``): what it charges and where it
stops must not depend on the order it counts in (a level at a time; a level of numbers in C).
Past the limit only "past the limit" counts: the caller stops there."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from interpreter.budget import MAX_NESTING, SMALL, nested_size


def walked_size(value: Any, limit: int, max_depth: int = MAX_NESTING) -> int:
    """The walk of every item, one at a time (nested_size before its shortcut), verbatim."""
    total = 0
    todo = [(value, 0)]
    while todo:
        v, depth = todo.pop()
        total += 1
        if total > limit or depth > max_depth:
            return limit + 1
        if type(v) is list:
            todo.extend((x, depth + 1) for x in v)
        elif type(v) is dict:
            todo.extend((x, depth + 1) for x in v.values())
        elif type(v) is str:
            total += len(v) // SMALL
    return total


plain = st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
texts = st.text(max_size=3 * SMALL)
values = st.recursive(
    st.one_of(plain, texts),
    lambda inner: st.one_of(st.lists(inner, max_size=8), st.dictionaries(st.text(max_size=3), inner, max_size=4)),
    max_leaves=40,
)


def capped(size: int, limit: int) -> int:
    return min(size, limit + 1)


@given(value=values, limit=st.integers(0, 60), max_depth=st.integers(0, 6))
def test_the_size_of_any_value_is_the_walks(value: Any, limit: int, max_depth: int) -> None:
    assert capped(nested_size(value, limit, max_depth), limit) == capped(walked_size(value, limit, max_depth), limit)


@given(value=values, max_depth=st.integers(0, 6))
def test_within_the_limit_the_size_is_exactly_the_walks(value: Any, max_depth: int) -> None:
    assert nested_size(value, 10_000, max_depth) == walked_size(value, 10_000, max_depth)


@given(items=st.lists(plain, max_size=80), limit=st.integers(0, 90), max_depth=st.integers(0, 2))
def test_a_list_of_numbers_counts_itself_and_each_item_up_to_the_limit(items: list, limit: int,
                                                                        max_depth: int) -> None:
    expected = walked_size(items, limit, max_depth)
    assert capped(nested_size(items, limit, max_depth), limit) == expected
    if max_depth > 0:
        assert expected == (1 + len(items) if 1 + len(items) <= limit else limit + 1)


def test_a_list_holding_a_list_or_a_text_is_walked() -> None:
    assert nested_size([1, [2, 3]], 100) == 5
    assert nested_size([1, "x" * (2 * SMALL)], 100) == 3 + 2
    assert nested_size([1, {"a": 2}], 100) == 4
    assert nested_size([[]] * 3, 100, max_depth=1) == 4
    assert nested_size([[1]], 100, max_depth=1) == 101  # nested deeper than allowed: past the limit
    assert nested_size([[1, [2, "x" * 640]], {"k": [3]}], 100) == 9 + 10


def test_a_wide_value_past_the_limit_is_not_gathered_whole() -> None:
    row = list(range(1000))
    board = [row] * 1000  # a million cells, shared: past any limit of a thousand at the second level
    assert nested_size(board, 1000) == 1001
    assert nested_size([board], 1000) == 1001
