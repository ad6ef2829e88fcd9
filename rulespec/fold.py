"""One constant folder: the value an expression has before it runs, or ``UNKNOWN``.

``fold(node, env)`` is a pass over the checked AST with one case per expression node class.
Its consumers differ only in data, a ``Policy``: which side of `and`/`or` may decide, which
operators, negations, conditionals and functions are computed, how results are bounded, and
how a value that cannot be known surfaces (``UNKNOWN``, or a ``StaticEvalError`` carrying the
message a user reads). The consumers:

- ``STATIC``: what must be known before a game starts (``rulespec.static.evaluate_static``:
  option defaults and bounds, copies, decks, limits, board sizes, action ranges, starting
  patterns). Numbers only (and text joined with `+`), bounded to 64 bits and finite; every
  value it cannot know is an error in the user's words.
- ``DESCRIBE``: what ``rulespec describe --for players`` takes as decided with every option at
  its default: comparisons, `not`, and `and`/`or` decided by either side.
- ``linking(bound)``: what the interpreter folds while it links (its closures' constants, which
  the code generator reads): what Python computes, bounded by the run's size limits; `and`/`or`
  decided by their left side. Its ``FoldEnv.leaf`` hook supplies the values of the names the
  linker knows (zones, rankings, tables, cards, players, cells, ...).

``FoldEnv.leaf(node, fold)`` is asked first for every name, attribute, index and call: it
returns a value, ``UNKNOWN``, or ``DEFER`` to leave the node to the fold's own case
(``fold`` folds a child the same way).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from . import ast as A
from .errors import SourceSpan

__all__ = ["fold", "FoldEnv", "Policy", "STATIC", "DESCRIBE", "linking", "UNKNOWN", "DEFER", "Folder",
           "StaticEvalError", "StaticCell", "StaticSeat", "Defines", "MAX_INT", "MAX_DEPTH", "MAX_WORK"]


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


UNKNOWN: Final = _Marker("UNKNOWN")  # not known before the expression runs
DEFER: Final = _Marker("DEFER")  # a leaf hook's answer: the fold's own case decides

MAX_INT = 2**63 - 1  # a value known before the game starts is a 64-bit whole number or a finite number
MAX_DEPTH = 50  # defines inside defines
MAX_WORK = 100_000  # nodes folded by one static evaluation (defines calling defines fan out)

Defines = Mapping[str, tuple[tuple[str, ...], Any]]  # name: (parameters, body)


class StaticEvalError(Exception):
    """``definite``: wrong whatever the options (a value too large or not finite), not merely unknown yet."""

    def __init__(self, message: str, span: SourceSpan | None, definite: bool = False):
        super().__init__(message)
        self.message = message
        self.span = span
        self.definite = definite


@dataclass(frozen=True)
class StaticCell:
    """A cell where a starting pattern is evaluated: its fields as the rules read them."""

    row: int
    col: int
    name: str


@dataclass(frozen=True)
class StaticSeat:
    """A seat where a starting pattern is evaluated (``p.seat``)."""

    seat: int


_FIELDS: dict[type, tuple[str, ...]] = {StaticCell: ("row", "col", "name"), StaticSeat: ("seat",)}

_ARITH = frozenset({"+", "-", "*", "//", "%", "/"})
_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "/": operator.truediv, "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {"max": max, "min": min, "abs": abs, "int": int}
_NOT_COMPUTED = "only numbers, options and num_players can be used here"
_NOTHING: Mapping[str, Any] = MappingProxyType({})


def _number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _within_64_bits(value: Any) -> str | None:
    """Why ``value`` is too large to be a count, or not finite (None when it is neither)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not -MAX_INT - 1 <= value <= MAX_INT:
        return f"this value is too large (the limit is {MAX_INT})"
    if isinstance(value, float) and not math.isfinite(value):
        return "this value is not a finite number"
    return None


@dataclass(frozen=True, slots=True)
class Policy:
    """How one consumer folds (the module's docstring names them)."""

    name: str
    raises: bool  # what cannot be known raises StaticEvalError (else it is UNKNOWN)
    either_side: bool  # `and`/`or` decided by a known side, either one (else only by the left)
    logic_bool: bool  # `a and b` with `a` true is bool(b) (else b's own value)
    operators: frozenset[str]  # the binary operators computed (`and`/`or` aside)
    numbers_only: bool  # arithmetic of numbers only (and text joined with `+`)
    negates: Callable[[Any], bool] | None  # the values unary minus folds (None: never)
    conditionals: bool  # `a if c else b` with c known is the chosen side
    functions: Mapping[str, frozenset[int] | None]  # built-ins computed, and their argument counts (None: any)
    define_arguments: bool  # a define with parameters is folded with its arguments (else only one without)
    bound: Callable[[Any], str | None] | None  # why a value made here is out of bounds (None: it is not)
    bounded: frozenset[str]  # where ``bound`` applies: "literal", "operator", "negation", "function"
    max_work: int | None  # nodes one fold may visit


STATIC: Final = Policy(
    "static", raises=True, either_side=False, logic_bool=True, operators=_ARITH | _COMPARE, numbers_only=True,
    negates=_number, conditionals=True, functions={"max": None, "min": None, "abs": None, "int": None},
    define_arguments=True, bound=_within_64_bits,
    bounded=frozenset({"literal", "operator", "negation", "function"}), max_work=MAX_WORK)

DESCRIBE: Final = Policy(
    "describe", raises=False, either_side=True, logic_bool=True, operators=_COMPARE, numbers_only=False,
    negates=None, conditionals=False, functions={}, define_arguments=False, bound=None, bounded=frozenset(),
    max_work=None)


def _int_or_float(value: Any) -> bool:
    return type(value) in (int, float)  # (`-true` and `-none` are not folded: they fail when they run)


def linking(bound: Callable[[Any], str | None]) -> Policy:
    """The interpreter's folding while it links, with ``bound``: why a value an operator made is
    too large to fold (the run's size limits; it then fails, if ever, when it runs)."""
    two = frozenset({2})  # (`max(xs)` of a list, known or not, is left to run, as its closure is)
    return Policy(
        "link", raises=False, either_side=False, logic_bool=False, operators=_ARITH | _COMPARE,
        numbers_only=False, negates=_int_or_float, conditionals=True, functions={"max": two, "min": two},
        define_arguments=False, bound=bound, bounded=frozenset({"operator"}), max_work=None)


class FoldEnv(NamedTuple):
    """What a fold knows: ``options`` by name, ``num_players`` (None: not known), ``names`` (the
    values of local names: a card's attributes, a starting pattern's cell and seat), the
    ``defines`` it may expand, and the caller's ``leaf`` hook (see the module's docstring)."""

    policy: Policy
    options: Mapping[str, Any] = _NOTHING
    num_players: int | None = None
    names: Mapping[str, Any] = _NOTHING
    defines: Defines = _NOTHING
    leaf: Callable[[Any, Callable[[Any], Any]], Any] | None = None


def fold(node: Any, env: FoldEnv) -> Any:
    """The value of ``node`` under ``env``, or UNKNOWN (a policy that raises raises instead)."""
    return Folder(env).fold(node, env.names)


class Folder:
    """One fold: the work done, how deep defines nest, the values of define calls. A define's
    value depends on its arguments only, so a ``Folder`` may fold one node after another (the
    linker's: every node of a game); its work counts from its start."""

    __slots__ = ("policy", "options", "num_players", "defines", "hook", "depth", "work", "memo")

    def __init__(self, env: FoldEnv):
        self.policy, self.options, self.num_players, _, self.defines, self.hook = env
        self.depth = 0
        self.work = 0
        self.memo: dict[tuple[Any, ...], Any] = {}

    def fold(self, node: Any, names: Mapping[str, Any]) -> Any:
        limit = self.policy.max_work
        if limit is not None:
            self.work += 1
            if self.work > limit:
                return self.fail(f"this takes more than {limit:,} steps to compute before the game starts",
                                 getattr(node, "span", None), definite=True)
        case = _CASES.get(type(node))
        if case is None:  # not an expression (a missing one, a comprehension's inside)
            return self.fail(_NOT_COMPUTED, getattr(node, "span", None))
        return case(self, node, names)

    def fail(self, message: str, span: SourceSpan | None, definite: bool = False) -> Any:
        """What cannot be known: UNKNOWN, or the policy's error."""
        if self.policy.raises:
            raise StaticEvalError(message, span, definite)
        return UNKNOWN

    def bounded(self, value: Any, span: SourceSpan | None, where: str) -> Any:
        bound = self.policy.bound
        if bound is not None and where in self.policy.bounded:
            reason = bound(value)
            if reason is not None:
                return self.fail(reason, span, definite=True)
        return value

    def leaf(self, node: Any, names: Mapping[str, Any]) -> Any:
        """The caller's value of ``node``, or DEFER."""
        assert self.hook is not None
        return self.hook(node, lambda sub: self.fold(sub, names))

    # ------------------------------------------------------------------ one case per node class
    def f_Const(self, node: A.Const, names: Mapping[str, Any]) -> Any:
        return self.bounded(node.value, node.span, "literal")

    def f_Name(self, node: A.Name, names: Mapping[str, Any]) -> Any:
        if self.hook is not None:
            value = self.leaf(node, names)
            if value is not DEFER:
                return value
        if node.id == "num_players" and self.num_players is not None:
            return self.num_players
        if node.id in names:
            return names[node.id]
        if node.id in self.defines:
            return self.define(node, node.id, (), names)
        return self.fail(f"'{node.id}' is not known before the game starts", node.span)

    def f_Attr(self, node: A.Attr, names: Mapping[str, Any]) -> Any:
        if self.hook is not None:
            value = self.leaf(node, names)
            if value is not DEFER:
                return value
        if isinstance(node.obj, A.Name) and node.obj.id == "option":
            if node.name in self.options:
                return self.options[node.name]
            return self.fail(f"option '{node.name}' is not known here", node.span)
        obj = self.fold(node.obj, names)
        if obj is UNKNOWN:
            return UNKNOWN
        if node.name in _FIELDS.get(type(obj), ()):
            return getattr(obj, node.name)
        return self.fail(f"'.{node.name}' is not known before the game starts", node.span)

    def f_Index(self, node: A.Index, names: Mapping[str, Any]) -> Any:
        value = DEFER if self.hook is None else self.leaf(node, names)
        return self.fail(_NOT_COMPUTED, node.span) if value is DEFER else value

    def f_Call(self, node: A.Call, names: Mapping[str, Any]) -> Any:
        if self.hook is not None:
            value = self.leaf(node, names)
            if value is not DEFER:
                return value
        functions = self.policy.functions
        if node.func in functions and not node.kwargs:
            counts = functions[node.func]
            if counts is None or len(node.args) in counts:
                return self.function(node, names)
        if node.func in self.defines and not node.kwargs:
            return self.define(node, node.func, node.args, names)
        return self.fail(_NOT_COMPUTED, node.span)

    def f_ListLit(self, node: A.ListLit, names: Mapping[str, Any]) -> Any:
        return self.fail(_NOT_COMPUTED, node.span)  # (a fresh list each time it runs)

    def f_ListComp(self, node: A.ListComp, names: Mapping[str, Any]) -> Any:
        return self.fail(_NOT_COMPUTED, node.span)

    def f_Agg(self, node: A.Agg, names: Mapping[str, Any]) -> Any:
        return self.fail(_NOT_COMPUTED, node.span)

    def f_BinOp(self, node: A.BinOp, names: Mapping[str, Any]) -> Any:
        op = node.op
        if op in ("and", "or"):
            return self.logic(node, names)
        left = self.fold(node.left, names)
        if left is UNKNOWN:
            return UNKNOWN
        right = self.fold(node.right, names)
        if right is UNKNOWN:
            return UNKNOWN
        policy = self.policy
        if policy.numbers_only and op in _ARITH and not (_number(left) and _number(right)) \
                and not (op == "+" and isinstance(left, str) and isinstance(right, str)):
            # never text * n or text % x: only numbers are computed (and text joined)
            return self.fail(f"cannot compute '{op}' of these values before the game starts", node.span)
        if op not in policy.operators:
            return self.fail(f"cannot compute this before the game starts ({op!r})", node.span)
        try:
            value = _BINARY[op](left, right)
        except (TypeError, ZeroDivisionError, ValueError, OverflowError) as exc:
            return self.fail(f"cannot compute this before the game starts ({exc})", node.span)
        return self.bounded(value, node.span, "operator")

    def f_Unary(self, node: A.Unary, names: Mapping[str, Any]) -> Any:
        value = self.fold(node.operand, names)
        if value is UNKNOWN:
            return UNKNOWN
        if node.op == "not":
            return not value
        negates = self.policy.negates
        if negates is None or not negates(value):
            return self.fail("cannot negate this value", node.span)
        return self.bounded(-value, node.span, "negation")

    def f_Cond(self, node: A.Cond, names: Mapping[str, Any]) -> Any:
        if not self.policy.conditionals:
            return self.fail(_NOT_COMPUTED, node.span)
        test = self.fold(node.test, names)
        if test is UNKNOWN:
            return UNKNOWN
        return self.fold(node.body if test else node.orelse, names)

    # ------------------------------------------------------------------ parts of the cases
    def logic(self, node: A.BinOp, names: Mapping[str, Any]) -> Any:
        decisive = node.op == "or"  # the value of a side that decides `or` (True) or `and` (False)
        left = self.fold(node.left, names)
        if left is not UNKNOWN and bool(left) == decisive:
            return decisive
        if left is UNKNOWN and not self.policy.either_side:
            return UNKNOWN
        right = self.fold(node.right, names)
        if right is UNKNOWN:
            return UNKNOWN
        if left is UNKNOWN:
            return decisive if bool(right) == decisive else UNKNOWN
        return bool(right) if self.policy.logic_bool else right

    def function(self, node: A.Call, names: Mapping[str, Any]) -> Any:
        args = []
        for arg in node.args:
            value = self.fold(arg, names)
            if value is UNKNOWN:
                return UNKNOWN
            args.append(value)
        if node.func in ("int", "abs") and not all(_number(a) for a in args):
            return self.fail(f"{node.func}(...) needs a number here", node.span)
        try:
            value = _FUNCTIONS[node.func](*args)
        except (TypeError, ValueError, OverflowError) as exc:
            return self.fail(f"cannot compute {node.func}(...) ({exc})", node.span)
        return self.bounded(value, node.span, "function")

    def define(self, node: Any, name: str, arg_nodes: tuple[Any, ...], names: Mapping[str, Any]) -> Any:
        """A define's body with its parameters bound to the arguments' values."""
        params, body = self.defines[name]
        if params and not self.policy.define_arguments:
            return UNKNOWN
        args = []
        for arg in arg_nodes:
            value = self.fold(arg, names)
            if value is UNKNOWN:
                return UNKNOWN
            args.append(value)
        if len(params) != len(args):
            return self.fail(f"'{name}' takes {len(params)} values", node.span)
        try:
            key: tuple[Any, ...] = (name, *args)
            hash(key)
        except TypeError:
            key = ()
        if key and key in self.memo:
            return self.memo[key]
        if self.depth >= MAX_DEPTH:
            return self.fail(f"defines nest more than {MAX_DEPTH} deep here", node.span, definite=True)
        self.depth += 1
        try:
            value = self.fold(body, dict(zip(params, args)))
        finally:
            self.depth -= 1
        if key:
            self.memo[key] = value
        return value


_CASES: dict[type, Callable[[Folder, Any, Mapping[str, Any]], Any]] = {
    getattr(A, name[2:]): case for name, case in vars(Folder).items() if name.startswith("f_")}
