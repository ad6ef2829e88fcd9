"""Evaluate the few expressions that must be known before a game starts (option defaults,
copies, decks, pieces per player, limits): only constants, `num_players` and `option.NAME`."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from . import ast as A
from .errors import SourceSpan

__all__ = ["evaluate_static", "StaticEvalError"]


class StaticEvalError(Exception):
    """``definite``: wrong whatever the options (a value too large or not finite), not merely unknown yet."""

    def __init__(self, message: str, span: SourceSpan | None, definite: bool = False):
        super().__init__(message)
        self.message = message
        self.span = span
        self.definite = definite


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "/": operator.truediv, "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_FUNCS: dict[str, Callable[..., Any]] = {"max": max, "min": min, "abs": abs, "int": int}
_ARITH = {"+", "-", "*", "//", "%", "/"}
MAX_INT = 2**63 - 1  # a value known before the game starts is a 64-bit whole number or a finite number


def _number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _bounded(value: Any, span: SourceSpan | None) -> Any:
    """``value``, unless it is a number too large to be a count, or not finite."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and not -MAX_INT - 1 <= value <= MAX_INT:
        raise StaticEvalError(f"this value is too large (the limit is {MAX_INT})", span, definite=True)
    if isinstance(value, float) and not math.isfinite(value):
        raise StaticEvalError("this value is not a finite number", span, definite=True)
    return value


def evaluate_static(node: Any, options: Mapping[str, Any], num_players: int | None,
                    names: Mapping[str, Any] | None = None) -> Any:
    """The value of ``node``; ``names`` are extra known values (a card's own attributes)."""
    if names:
        return _evaluate(node, options, num_players, names)
    return _evaluate(node, options, num_players, {})


def _evaluate(node: Any, options: Mapping[str, Any], num_players: int | None, names: Mapping[str, Any]) -> Any:
    if isinstance(node, A.Const):
        return _bounded(node.value, node.span)
    if isinstance(node, A.Name):
        if node.id == "num_players" and num_players is not None:
            return num_players
        if node.id in names:
            return names[node.id]
        raise StaticEvalError(f"'{node.id}' is not known before the game starts", node.span)
    if isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id == "option":
        if node.name in options:
            return options[node.name]
        raise StaticEvalError(f"option '{node.name}' is not known here", node.span)
    if isinstance(node, A.BinOp):
        if node.op in ("and", "or"):
            left = bool(_evaluate(node.left, options, num_players, names))
            if (node.op == "and") != left:
                return left
            return bool(_evaluate(node.right, options, num_players, names))
        left = _evaluate(node.left, options, num_players, names)
        right = _evaluate(node.right, options, num_players, names)
        if node.op in _ARITH and not (_number(left) and _number(right)) \
                and not (node.op == "+" and isinstance(left, str) and isinstance(right, str)):
            # never text * n or text % x: only numbers are computed (and text joined)
            raise StaticEvalError(f"cannot compute '{node.op}' of these values before the game starts", node.span)
        try:
            return _bounded(_OPS[node.op](left, right), node.span)
        except (KeyError, TypeError, ZeroDivisionError, ValueError, OverflowError) as exc:
            raise StaticEvalError(f"cannot compute this before the game starts ({exc})", node.span) from None
    if isinstance(node, A.Unary):
        value = _evaluate(node.operand, options, num_players, names)
        if node.op == "not":
            return not value
        if not _number(value):
            raise StaticEvalError("cannot negate this value", node.span)
        return _bounded(-value, node.span)
    if isinstance(node, A.Cond):
        test = _evaluate(node.test, options, num_players, names)
        return _evaluate(node.body if test else node.orelse, options, num_players, names)
    if isinstance(node, A.Call) and node.func in _FUNCS and not node.kwargs:
        args = [_evaluate(a, options, num_players, names) for a in node.args]
        if node.func in ("int", "abs") and not all(_number(a) for a in args):
            raise StaticEvalError(f"{node.func}(...) needs a number here", node.span)
        try:
            return _bounded(_FUNCS[node.func](*args), node.span)
        except (TypeError, ValueError, OverflowError) as exc:
            raise StaticEvalError(f"cannot compute {node.func}(...) ({exc})", node.span) from None
    raise StaticEvalError("only numbers, options and num_players can be used here", getattr(node, "span", None))
