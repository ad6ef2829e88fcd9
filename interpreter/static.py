"""Evaluate the few expressions that must be known before a game starts (options,
copies, decks, pieces per player): they may use only constants, `num_players`
and `option.NAME`."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from rulespec import ast as A

from .errors import RuleError

__all__ = ["evaluate_static"]

_OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "/": operator.truediv, "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_FUNCS: dict[str, Callable[..., Any]] = {"max": max, "min": min, "abs": abs, "int": int}


def evaluate_static(node: Any, options: Mapping[str, Any], num_players: int | None) -> Any:
    if isinstance(node, A.Const):
        return node.value
    if isinstance(node, A.Name):
        if node.id == "num_players" and num_players is not None:
            return num_players
        raise RuleError(f"'{node.id}' is not known before the game starts", node.span)
    if isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id == "option":
        if node.name in options:
            return options[node.name]
        raise RuleError(f"option '{node.name}' is not known here", node.span)
    if isinstance(node, A.BinOp):
        if node.op == "and":
            return bool(evaluate_static(node.left, options, num_players)) and bool(
                evaluate_static(node.right, options, num_players))
        if node.op == "or":
            return bool(evaluate_static(node.left, options, num_players)) or bool(
                evaluate_static(node.right, options, num_players))
        left = evaluate_static(node.left, options, num_players)
        right = evaluate_static(node.right, options, num_players)
        try:
            return _OPS[node.op](left, right)
        except (KeyError, TypeError, ZeroDivisionError) as exc:
            raise RuleError(f"cannot compute this before the game starts ({exc})", node.span) from None
    if isinstance(node, A.Unary):
        value = evaluate_static(node.operand, options, num_players)
        return (not value) if node.op == "not" else -value
    if isinstance(node, A.Cond):
        test = evaluate_static(node.test, options, num_players)
        return evaluate_static(node.body if test else node.orelse, options, num_players)
    if isinstance(node, A.Call) and node.func in _FUNCS and not node.kwargs:
        args = [evaluate_static(a, options, num_players) for a in node.args]
        return _FUNCS[node.func](*args)
    raise RuleError("only numbers, options and num_players can be used here", node.span)
