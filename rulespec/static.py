"""Evaluate the few expressions that must be known before a game starts (option defaults,
copies, decks, pieces per player, limits, board sizes, action ranges): only constants,
`num_players`, `option.NAME` and, where the caller passes them, the spec's defines made of
those (`size: option.rows * option.cols`, `cells_of(n): n * n`)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from . import ast as A
from .errors import SourceSpan
from .fold import _FIELDS as _STATIC_FIELDS
from .fold import MAX_DEPTH, MAX_INT, MAX_WORK, Defines, StaticCell, StaticEvalError, StaticSeat

__all__ = ["evaluate_static", "StaticEvalError", "static_defines", "StaticCell", "StaticSeat"]

_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "/": operator.truediv, "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_FUNCS: dict[str, Callable[..., Any]] = {"max": max, "min": min, "abs": abs, "int": int}
_ARITH = {"+", "-", "*", "//", "%", "/"}
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


def static_defines(defines: Any) -> Defines:
    """The spec's defines (``DefineDef``s) as the ``defines`` of ``evaluate_static``, without
    those that call themselves, directly or not (or use one that does): the checker refuses
    them, and they must not run before it says so."""
    found = {d.name: (tuple(d.params), d.body) for d in defines if d.body is not None}
    uses: dict[str, set[str]] = {}
    for name, (params, body) in found.items():
        uses[name] = {n.id if isinstance(n, A.Name) else n.func for n in A.walk(body)
                      if (isinstance(n, A.Name) and n.id not in params) or isinstance(n, A.Call)} & found.keys()
    # peel off the defines that use only peeled ones: what is left calls itself somewhere
    users: dict[str, list[str]] = {}
    for name, used in uses.items():
        for u in used:
            users.setdefault(u, []).append(name)
    waiting = {name: len(used) for name, used in uses.items()}
    ready = [name for name, n in waiting.items() if n == 0]
    done = set()
    while ready:
        name = ready.pop()
        done.add(name)
        for user in users.get(name, ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    return {name: found[name] for name in done}


class _Run:
    """One static evaluation: how deep defines nest, the work done, the values of define calls."""

    __slots__ = ("depth", "work", "memo")

    def __init__(self) -> None:
        self.depth = 0
        self.work = 0
        self.memo: dict[tuple[Any, ...], Any] = {}


def evaluate_static(node: Any, options: Mapping[str, Any], num_players: int | None,
                    names: Mapping[str, Any] | None = None, defines: Defines | None = None) -> Any:
    """The value of ``node``; ``names`` are extra known values (a card's own attributes);
    ``defines`` the spec's defines it may use."""
    return _evaluate(node, options, num_players, names or {}, defines or {}, _Run())


def _define(node: Any, options: Mapping[str, Any], num_players: int | None, names: Mapping[str, Any],
            defines: Defines, run: _Run, args: list[Any]) -> Any:
    name = node.id if isinstance(node, A.Name) else node.func
    params, body = defines[name]
    if len(params) != len(args):
        raise StaticEvalError(f"'{name}' takes {len(params)} values", node.span)
    try:
        key: tuple[Any, ...] = (name, *args)
        hash(key)
    except TypeError:
        key = ()
    if key and key in run.memo:
        return run.memo[key]
    if run.depth >= MAX_DEPTH:
        raise StaticEvalError(f"defines nest more than {MAX_DEPTH} deep here", node.span, definite=True)
    run.depth += 1
    try:
        value = _evaluate(body, options, num_players, dict(zip(params, args)), defines, run)
    finally:
        run.depth -= 1
    if key:
        run.memo[key] = value
    return value


def _evaluate(node: Any, options: Mapping[str, Any], num_players: int | None, names: Mapping[str, Any],
              defines: Defines, run: _Run) -> Any:
    run.work += 1
    if run.work > MAX_WORK:
        raise StaticEvalError(f"this takes more than {MAX_WORK:,} steps to compute before the game starts",
                              getattr(node, "span", None), definite=True)

    def ev(sub: Any) -> Any:
        return _evaluate(sub, options, num_players, names, defines, run)

    if isinstance(node, A.Const):
        return _bounded(node.value, node.span)
    if isinstance(node, A.Name):
        if node.id == "num_players" and num_players is not None:
            return num_players
        if node.id in names:
            return names[node.id]
        if node.id in defines:
            return _define(node, options, num_players, names, defines, run, [])
        raise StaticEvalError(f"'{node.id}' is not known before the game starts", node.span)
    if isinstance(node, A.Attr) and not (isinstance(node.obj, A.Name) and node.obj.id == "option"):
        obj = ev(node.obj)
        if node.name in _STATIC_FIELDS.get(type(obj), ()):
            return getattr(obj, node.name)
        raise StaticEvalError(f"'.{node.name}' is not known before the game starts", node.span)
    if isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id == "option":
        if node.name in options:
            return options[node.name]
        raise StaticEvalError(f"option '{node.name}' is not known here", node.span)
    if isinstance(node, A.BinOp):
        if node.op in ("and", "or"):
            left = bool(ev(node.left))
            if (node.op == "and") != left:
                return left
            return bool(ev(node.right))
        left = ev(node.left)
        right = ev(node.right)
        if node.op in _ARITH and not (_number(left) and _number(right)) \
                and not (node.op == "+" and isinstance(left, str) and isinstance(right, str)):
            # never text * n or text % x: only numbers are computed (and text joined)
            raise StaticEvalError(f"cannot compute '{node.op}' of these values before the game starts", node.span)
        try:
            return _bounded(_OPS[node.op](left, right), node.span)
        except (KeyError, TypeError, ZeroDivisionError, ValueError, OverflowError) as exc:
            raise StaticEvalError(f"cannot compute this before the game starts ({exc})", node.span) from None
    if isinstance(node, A.Unary):
        value = ev(node.operand)
        if node.op == "not":
            return not value
        if not _number(value):
            raise StaticEvalError("cannot negate this value", node.span)
        return _bounded(-value, node.span)
    if isinstance(node, A.Cond):
        test = ev(node.test)
        return ev(node.body if test else node.orelse)
    if isinstance(node, A.Call) and node.func in _FUNCS and not node.kwargs:
        args = [ev(a) for a in node.args]
        if node.func in ("int", "abs") and not all(_number(a) for a in args):
            raise StaticEvalError(f"{node.func}(...) needs a number here", node.span)
        try:
            return _bounded(_FUNCS[node.func](*args), node.span)
        except (TypeError, ValueError, OverflowError) as exc:
            raise StaticEvalError(f"cannot compute {node.func}(...) ({exc})", node.span) from None
    if isinstance(node, A.Call) and node.func in defines and not node.kwargs:
        return _define(node, options, num_players, names, defines, run, [ev(a) for a in node.args])
    raise StaticEvalError("only numbers, options and num_players can be used here", getattr(node, "span", None))
