"""Run-time helpers of expressions, called by their closures (``expressions``, ``builtins``) and
by generated code (``codegen_calls``) alike, so both engines word their errors the same way.
"""

from __future__ import annotations

from typing import Any

from .errors import RuleError

__all__ = ["piece_starts", "table_entry", "shuffled_order"]


def piece_starts(L: Any) -> list[Any]:
    """Each piece's start cell (none for a piece that starts off the board): `x.start`."""
    return [None if v == -1 else v for v in L.piece_start]


def table_entry(entries: Any, k: Any, name: str, span: Any) -> Any:
    """Entry ``k`` of table ``name``; a key it does not have is a rule error (generated code
    calls it too)."""
    try:
        return entries[k]
    except (KeyError, TypeError):
        shown = ", ".join(repr(x) for x in list(entries)[:8]) + (", ..." if len(entries) > 8 else "")
        raise RuleError(f"table '{name}' has no entry {k!r} (its keys: {shown})", span) from None


def shuffled_order(what: str) -> str:
    """The message of reading the order of a shuffled zone (``what``: the first card...)."""
    return f"{what} of a shuffled zone is not known: draw from it instead"
