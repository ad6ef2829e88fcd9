"""Run-time helpers of statements, called by their closures (``effects``) and by generated code
(``codegen_blocks``, ``codegen_effects``) alike: what can fail, with its words, and what draws
from the state's generator, in one place for both engines.
"""

from __future__ import annotations

from typing import Any

from . import rng as RNG
from .budget import MAX_NESTING, SMALL, check_grown, nested_size, overrun, spend
from .errors import BudgetError, RuleError
from .state import deal_cards

__all__ = ["deal_round", "set_piece_field", "list_to_set", "item_index", "with_item", "uniform_draw", "random_item",
           "check_stored"]


def deal_round(s: Any, src: int, zones: list[int], n: Any, faces: Any, fixed: Any, span: Any) -> None:
    """`deal n from src to <family>`: ``n`` cards to each of ``zones`` (faced by ``faces`` of
    each zone, or ``fixed``), paid for when many (generated code calls it too)."""
    if n * len(zones) > SMALL:
        spend(s, n * len(zones), span)
    deal_cards(s, src, zones, [faces[z] for z in zones] if fixed is None else [fixed] * len(zones), n)


def set_piece_field(s: Any, x: Any, v: Any, field: str, kinds: Any, n: int, span: Any) -> None:
    """Piece ``x``'s ``field`` (owner or kind) set to ``v`` (generated code calls it too)."""
    if x is None:
        raise RuleError(f"cannot set the {field} of a missing piece (none)", span)
    if field == "owner":
        if type(v) is not int or not 0 <= v < n:
            raise RuleError(f"a piece's owner must be a player, not {v!r}", span)
        s.piece_owner[x] = v
    else:
        if v not in kinds:
            raise RuleError(f"'{v}' is not a kind of piece (kinds: {', '.join(kinds)})", span)
        s.piece_kind[x] = v


def list_to_set(xs: Any, name: str, span: Any) -> list:
    """The list an item of variable ``name`` is set in (generated code calls it too)."""
    if type(xs) is not list:
        raise RuleError(f"'{name}' holds no list here, so it has no items to set", span)
    return xs


def item_index(xs: list, i: Any, name: str, span: Any) -> int:
    """``i``, the index of an item of ``xs`` (the list of variable ``name``) to set."""
    if type(i) is not int or not -len(xs) <= i < len(xs):
        raise RuleError(f"index {i} is outside '{name}' ({len(xs)} items)", span)
    return i


def with_item(s: Any, xs: list, i: int, v: Any, op: str, name: str, grows: bool, nested: bool, limits: Any,
              span: Any) -> list:
    """A new list: ``xs`` with item ``i`` set to ``v`` (or changed by it: ``op``), paid for
    (its length) and checked (generated code calls it too)."""
    new = list(xs)
    if len(new) > SMALL:
        spend(s, len(new), span)
    if op == "=":
        new[i] = v
    else:
        old = new[i]
        if type(old) not in (int, float) or type(v) not in (int, float) or type(old) is bool:
            raise RuleError(f"'{op}' needs numbers: item {i} of '{name}' is {old!r}", span)
        total = old + v if op == "+=" else old - v
        new[i] = check_grown(s, total, limits, span) if grows or type(total) is float else total
    if nested:
        check_stored(s, new, limits, span)
    return new


def uniform_draw(s: Any) -> float:
    """A number drawn uniformly from [0, 1) by the state's generator: `chance(p)` (generated code calls it too)."""
    s.rng, u = RNG.uniform(s.rng)
    return u


def random_item(s: Any, items: Any) -> Any:
    """An item of ``items`` drawn by the state's generator, none (no draw) when there is none:
    `random(xs)` (generated code calls it too)."""
    if not items:
        return None
    s.rng, i = RNG.below(s.rng, len(items))
    return items[i]


def check_stored(s: Any, value: Any, limits: Any, span: Any) -> None:
    """A value kept in the state (so written to JSON and shown in views): bounded in size."""
    size = nested_size(value, limits.max_list)
    if size > limits.max_list:
        raise BudgetError(f"a value kept in the state grew past {limits.max_list:,} items or {MAX_NESTING} "
                          "levels of lists inside lists", span)
    s.ops -= size
    if s.ops < 0:
        overrun(s, span)
