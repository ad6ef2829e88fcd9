"""The per-step resource budget, as the compiled rules spend it (see ``limits``).

Closures spend work with two inline statements where a loop starts or a large value
is handled::

    s.ops -= n
    if s.ops < 0:
        overrun(s, span)

so the common path costs a subtraction and a comparison. Loops always spend (once
per loop, the number of items); primitives that are linear in a value's size spend
only when the value is large (``SMALL``), so small work stays free while the work
between two checks stays bounded. Values that can grow (text, lists, integers,
floats) are checked where they are made.
"""

from __future__ import annotations

from typing import Any

from .errors import BudgetError, RuleError
from .limits import RunLimits

__all__ = ["SMALL", "MAX_NESTING", "overrun", "spend", "start_step", "check_grown", "check_size", "nested_size",
           "event_units", "value_units", "log_event"]

SMALL = 64  # linear work below this many items is not counted
MAX_NESTING = 100  # lists inside lists, in a value kept in the state
_BIG_INT = 1 << 62


def start_step(s: Any) -> None:
    """A new step: the state's budget is full again."""
    s.ops = s.game.step_ops


def overrun(s: Any, span: Any) -> None:
    limit = s.game.link.limits.step_ops
    raise BudgetError(f"this rule ran away: the rules did more than {limit:,} units of work without a decision "
                      "(a loop, an aggregate, a procedure or a growing value); RunLimits.step_ops sets the bound",
                      span)


def spend(s: Any, n: int, span: Any) -> None:
    s.ops -= n
    if s.ops < 0:
        overrun(s, span)


def check_size(s: Any, n: int, limit: int, what: str, span: Any) -> None:
    """Before making a value of ``n`` items: bounded, and paid for when large."""
    if n > limit:
        raise BudgetError(f"{what} would have {n:,} items, more than the limit of {limit:,}", span)
    if n > SMALL:
        spend(s, n, span)


def check_grown(s: Any, value: Any, limits: RunLimits, span: Any) -> Any:
    """A value that an operator just made: within the size limits, else an error."""
    t = type(value)
    if t is int:
        if -_BIG_INT < value < _BIG_INT or value.bit_length() <= limits.max_int_bits:
            return value
        raise BudgetError(f"a whole number grew past {limits.max_int_bits:,} bits", span)
    if t is float:
        if value - value == 0.0:
            return value
        raise RuleError("a number became infinite or undefined (overflow, or inf - inf)", span)
    if t is str:
        if len(value) > SMALL:
            if len(value) > limits.max_text:
                raise BudgetError(f"a text grew past {limits.max_text:,} characters", span)
            spend(s, len(value) // SMALL, span)
        return value
    if t is list:
        if len(value) > SMALL:
            if len(value) > limits.max_list:
                raise BudgetError(f"a list grew past {limits.max_list:,} items", span)
            spend(s, len(value), span)
        return value
    return value


def event_units(event: dict) -> int:
    """The size of an event in the match's log, in units of about 16 bytes."""
    units = 1
    for v in event.values():
        t = type(v)
        if t is str:
            units += 1 + (len(v) >> 4)
        elif t is list or t is dict:
            units += _units(v)
        else:
            units += 1
    return units


def _units(value: Any) -> int:
    """One unit for the list or dict and for each item inside, at any depth; a text one more
    per 16 characters (iterative: a value may be nested deeper than Python's recursion)."""
    units = 1
    todo = [value]
    while todo:
        v = todo.pop()
        for item in (v if type(v) is list else v.values()):
            units += 1
            t = type(item)
            if t is str:
                units += len(item) >> 4
            elif t is list or t is dict:
                todo.append(item)
    return units


def value_units(value: Any) -> int:
    """The size of one value of an event, in the units of ``event_units``."""
    t = type(value)
    if t is str:
        return 1 + (len(value) >> 4)
    if t is list or t is dict:
        return _units(value)
    return 1


def log_event(s: Any, event: dict, span: Any, units: int = 0) -> None:
    """Append ``event`` to the match's log, which is bounded in events and in size.
    ``units``: the event's size when the caller knows it (else it is measured)."""
    limits = s.game.link.limits
    units = units or event_units(event)
    if len(s.events) >= limits.max_events or s.log_size + units > limits.max_log:
        raise BudgetError(f"the match's event log is full ({limits.max_events:,} events or "
                          f"{limits.max_log * 16 // 1_000_000:,} MB of events)", span)
    s.log_size += units
    s.events.append(event)


_PLAIN = frozenset({int, float, bool, type(None)})  # values that count one item and hold none


def nested_size(value: Any, limit: int, max_depth: int = MAX_NESTING) -> int:
    """Items in a value counted through nested lists and dicts, as its JSON would hold them
    (shared sublists count each time), a text one more per ``SMALL`` characters; past ``limit``
    (or nested deeper than ``max_depth``) the answer is only some number above ``limit``.

    The value is counted a level at a time: a level of numbers alone (the cells of a board, a
    list of ids) is counted in C, without a Python step per item."""
    if type(value) is list:  # (the usual value: its items are the first level)
        total, level, depth = 1, value, 1
    else:
        total, level, depth = 0, [value], 0
    while level:
        if depth > max_depth:
            return limit + 1
        total += len(level)
        if total > limit:
            return limit + 1
        if _PLAIN.issuperset(map(type, level)):
            return total
        deeper: list = []
        for v in level:
            kind = type(v)
            if kind is list or kind is dict:
                deeper.extend(v if kind is list else v.values())
                if total + len(deeper) > limit:  # (the next level is past the limit: not gathered whole)
                    return limit + 1
            elif kind is str:
                total += len(v) // SMALL
        level = deeper
        depth += 1
    return total
