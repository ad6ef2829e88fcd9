"""The one place generated Python is checked, compiled and run (see docs/architecture.md).

The code generator (``codegen``) writes Python source from fixed fragments of its own,
names it invents (``_d3``, ``_v1``, ``_k7``) and ``repr()`` of values whose type is
exactly int, bool or None. Every other value a rule needs (text, names, tables,
positions) reaches the code through the namespace, under an invented name. This module
enforces that discipline instead of trusting it: each unit is parsed and its syntax tree
checked against an allow-list before it is compiled; anything else (a string literal, an
attribute or a name outside the allowed set, an import, a class) fails the load with
``CodegenError``. The code runs with only the builtins it is allowed and a filename
that names no file.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from typing import Any

__all__ = ["CodegenError", "Unit", "load_unit", "verify", "ALLOWED_BUILTINS", "STATE_ATTRS"]


class CodegenError(Exception):
    """Generated code broke the allow-list (a bug of the generator, never a spec's fault)."""


# names the generator invents: an underscore, letters, digits (no dunder, no spec text)
INVENTED = re.compile(r"_[a-z]+[0-9]*\Z")
# the state, the environment of locals, a block's frame, the set of a choice's option ids
FIXED_NAMES = frozenset({"s", "e", "frame", "_ids"})
_IDS_METHODS = frozenset({"add", "update"})
ALLOWED_BUILTINS = frozenset({"len", "bool", "dict", "set", "any", "all", "sum", "max", "min", "list", "range", "abs",
                              "sorted", "TypeError", "ZeroDivisionError", "OverflowError", "IndexError", "KeyError",
                              "ValueError", "AttributeError"})
# the fields of a state the generated code may read or write (``s.<field>``)
STATE_ATTRS = frozenset({"zones", "loc", "face", "shuffled", "g", "pv", "score", "total", "skips", "piece_cell",
                         "cell_piece", "piece_owner", "piece_kind", "round", "turn", "current", "dealer", "ops",
                         "dirty", "in_play", "pending"})
_NODES: frozenset[type] = frozenset({
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.If, ast.For, ast.Assign,
    ast.AugAssign, ast.Expr, ast.Pass, ast.Continue, ast.Try, ast.Raise, ast.ExceptHandler, ast.Tuple, ast.List,
    ast.Dict, ast.Call,
    ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Compare, ast.BoolOp, ast.BinOp, ast.UnaryOp,
    ast.IfExp, ast.NamedExpr, ast.GeneratorExp, ast.ListComp, ast.comprehension, ast.Load, ast.Store,
    ast.And, ast.Or, ast.Not, ast.USub, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Eq,
    ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
})
_CONSTANT_TYPES = (int, bool, type(None))


class Unit:
    """A verified unit of generated code: its source (for readers) and what it defines."""

    __slots__ = ("name", "source", "functions")

    def __init__(self, name: str, source: str, functions: dict[str, Callable[..., Any]]):
        self.name = name
        self.source = source
        self.functions = functions


def verify(tree: ast.Module, namespace: dict[str, Any]) -> set[str]:
    """Raise CodegenError unless every node of ``tree`` is on the allow-list; return the
    builtins it uses."""
    nodes = _nodes(tree)
    defined = set(namespace) | FIXED_NAMES
    for node in nodes:
        kind = type(node)
        if kind not in _NODES:
            raise CodegenError(f"generated code uses {kind.__name__}, which is not allowed")
        if kind is ast.FunctionDef:
            _check_invented(node.name)  # type: ignore[attr-defined]
            defined.add(node.name)  # type: ignore[attr-defined]
            for a in node.args.args:  # type: ignore[attr-defined]
                _check_invented(a.arg)
                defined.add(a.arg)
        elif kind is ast.Name and type(node.ctx) is ast.Store:  # type: ignore[attr-defined]
            _check_invented(node.id)  # type: ignore[attr-defined]
            defined.add(node.id)  # type: ignore[attr-defined]
        elif kind is ast.ExceptHandler and node.name is not None:  # type: ignore[attr-defined]
            _check_invented(node.name)  # type: ignore[attr-defined]
            defined.add(node.name)  # type: ignore[attr-defined]
    used: set[str] = set()
    for node in nodes:
        if type(node) in _CHECKED:
            _check_node(node, defined)
            if type(node) is ast.Name and node.id in ALLOWED_BUILTINS:  # type: ignore[attr-defined]
                used.add(node.id)  # type: ignore[attr-defined]
    return used


def _nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` (a faster ``ast.walk``, in no particular order)."""
    out = []
    stack = [tree]
    AST = ast.AST
    while stack:
        node = stack.pop()
        out.append(node)
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(x for x in value if isinstance(x, AST))
            elif isinstance(value, AST):
                stack.append(value)
    return out


_CHECKED = frozenset({ast.Constant, ast.Name, ast.Attribute, ast.FunctionDef})


def _check_node(node: ast.AST, defined: set[str]) -> None:
    if isinstance(node, ast.Constant) and type(node.value) not in _CONSTANT_TYPES:
        raise CodegenError(f"generated code holds a {type(node.value).__name__} literal")
    if isinstance(node, ast.Name) and node.id not in defined and node.id not in ALLOWED_BUILTINS:
        raise CodegenError(f"generated code names '{node.id}', which is neither invented nor allowed")
    if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name) and (
            (node.value.id == "s" and node.attr in STATE_ATTRS)
            or (node.value.id == "_ids" and node.attr in _IDS_METHODS))):
        raise CodegenError(f"generated code reads the attribute '{node.attr}', which is not allowed")
    if isinstance(node, ast.FunctionDef) and (node.decorator_list or node.returns or node.args.defaults
                                              or node.args.vararg or node.args.kwarg or node.args.kwonlyargs
                                              or node.args.posonlyargs):
        raise CodegenError("generated functions are plain: no decorators, defaults or variable arguments")


def _check_invented(name: str) -> None:
    if name not in FIXED_NAMES and not INVENTED.match(name):
        raise CodegenError(f"generated code defines '{name}', which is not an invented name")


def load_unit(name: str, source: str, namespace: dict[str, Any]) -> Unit:
    """Verify ``source`` (generated, with its namespace) and run it: the functions it defines."""
    for key in namespace:
        _check_invented(key)
    cache_key = (source, frozenset(namespace))
    cached = _VERIFIED.get(cache_key)
    if cached is None:
        tree = ast.parse(source, mode="exec")
        builtins_used = verify(tree, namespace)
        code = compile(tree, f"<rulespec generated {name}>", "exec", dont_inherit=True)
        cached = (code, frozenset(builtins_used), tuple(n.name for n in tree.body if isinstance(n, ast.FunctionDef)))
        if len(_VERIFIED) >= _CACHE_SIZE:
            _VERIFIED.clear()
        _VERIFIED[cache_key] = cached
    code, used, names = cached
    scope: dict[str, Any] = {"__builtins__": {k: getattr(builtins, k) for k in used}}
    scope.update(namespace)
    exec(code, scope)  # the one exec of the project: verified, generated code only
    return Unit(name, source, {n: scope[n] for n in names})


# Verified code by (source, namespace names): the same spec linked again (another player count,
# other options) mostly generates the same units; the code is checked and compiled once.
_VERIFIED: dict[tuple[str, frozenset[str]], tuple[Any, frozenset[str], tuple[str, ...]]] = {}
_CACHE_SIZE = 20_000
