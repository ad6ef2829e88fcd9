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
ALLOWED_BUILTINS = frozenset({"len", "bool", "dict", "any", "all", "sum", "max", "min", "list", "range", "abs",
                              "sorted", "TypeError", "ZeroDivisionError", "OverflowError", "IndexError", "KeyError",
                              "ValueError", "AttributeError"})
# the fields of a state the generated code may read or write (``s.<field>``)
STATE_ATTRS = frozenset({"zones", "loc", "face", "shuffled", "g", "pv", "score", "total", "skips", "piece_cell",
                         "cell_piece", "round", "turn", "current", "dealer", "ops", "dirty", "in_play"})
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


def verify(tree: ast.Module, namespace: dict[str, Any]) -> None:
    """Raise CodegenError unless every node of ``tree`` is on the allow-list."""
    defined = set(namespace) | FIXED_NAMES
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            _check_invented(node.name)
            defined.add(node.name)
            for a in node.args.args:
                _check_invented(a.arg)
                defined.add(a.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            _check_invented(node.id)
            defined.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name is not None:
            _check_invented(node.name)
            defined.add(node.name)
    for node in ast.walk(tree):
        if type(node) not in _NODES:
            raise CodegenError(f"generated code uses {type(node).__name__}, which is not allowed")
        _check_node(node, defined)


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
    tree = ast.parse(source, mode="exec")
    verify(tree, namespace)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in ALLOWED_BUILTINS}
    scope: dict[str, Any] = {"__builtins__": {k: getattr(builtins, k) for k in used}}
    scope.update(namespace)
    code = compile(tree, f"<rulespec generated {name}>", "exec", dont_inherit=True)
    exec(code, scope)  # the one exec of the project: verified, generated code only
    functions = {n.name: scope[n.name] for n in tree.body if isinstance(n, ast.FunctionDef)}
    return Unit(name, source, functions)
