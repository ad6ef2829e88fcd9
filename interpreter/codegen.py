"""Generated Python for the rule language's expressions (the compiler backend).

Every expression a rule evaluates at run time (a condition, a filter, a label part, a
score) is compiled twice from the checked AST: to a closure tree (``expressions``: the
reference, used for constants and when generated code meets an error) and, when it is
worth it, to one generated Python function ``f(state, env)`` that evaluates the whole
tree in one call. Each define becomes one generated function taking its parameters as
Python arguments, so a chain of define calls costs one call each, with no dictionaries.

The discipline (checked by ``pycode.verify``, not trusted): the generated source is made
of fixed fragments of this module, names it invents (``_d3``, ``_v1``, ``_k7``) and
``repr()`` of values whose type is exactly int, bool or None. Everything else (texts,
names, tables, spans) is a namespace entry under an invented name. Nothing a spec
writes can reach the source: a spec's name of a local, for instance, is a key in the
namespace (``e[_k2]``), never an identifier.

Errors keep their precise positions: helpers that can fail are given the span of their
node, and when Python itself raises inside generated code (a division by zero, a
missing value in arithmetic) the unit evaluates its reference closure again, which
raises the error the closure engine always raised. ``MODE = "strict"`` turns that
fallback off, for tests that compare the two backends.
"""

from __future__ import annotations

import operator
import os
import re
from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import _BIG_INT as _BIG
from .budget import SMALL, check_grown, overrun
from .builtins import (
    slides_any,
    slides_of,
    slides_rays,
    whole_numbers,
)
from .codegen_calls import SIMPLE, WHOLE, in_order, is_builtin_call, piece_start, table_item, write_builtin
from .errors import RuleError
from .expressions import (
    Fn,
    checked_arith,
    closure_of,
    compile_list,
    distinct_values,
    is_const,
    json_converter,
    list_difference,
    local_name,
    paid_comparison,
    same_value,
    type_of,
)
from .fold_link import UNKNOWN, LinkFold
from .pycode import Unit, load_unit

__all__ = ["Codegen", "MODE", "CLOSURE_EXPRESSIONS", "is_builtin_call"]

# "on": generated code with the reference closure as its error path; "off": closures only;
# "strict": generated code without the fallback (tests comparing the two backends)
MODE = os.environ.get("RULESPEC_CODEGEN", "on")

# expression classes with no generated form: their closure is called (with the unit's locals);
# none now (a case may still call its closure for some of its nodes: a table's entry, a zone's item)
CLOSURE_EXPRESSIONS: dict[str, str] = {}

_ERRORS = (TypeError, ZeroDivisionError, OverflowError, IndexError, KeyError, ValueError, AttributeError)
_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "//", "%": "%", "==": "==", "!=": "!=", "<": "<",
        "<=": "<=", ">": ">", ">=": ">="}
_STATE_NAMES = {"current": "s.current", "dealer": "s.dealer", "round": "s.round", "turn": "s.turn"}
_PLAYER_TABLES = {"score": "s.score", "total": "s.total"}
_MIN_NODES = 3  # smaller trees are as fast as closures: not worth a unit
_INLINE_NODES = 40  # a define of fewer nodes that calls no other is written in line where it is called
_FOLDED = {"+": operator.add, "-": operator.sub, "*": operator.mul}  # what the generator computes on two numbers
_VERSIONS = 8  # versions of one define for the numbers its calls pass (Codegen.version)
# a table's item (`c.points` of a card that is never none)
_LOOKUP = re.compile(r"(_k[0-9]+)\[(_[a-z]+[0-9]*)\]\Z")
# a whole number plus a name (a zone of a family, `hand(p)`)
_OFFSET = re.compile(r"\(-?[0-9]+ \+ (_[a-z]+[0-9]*|s\.[a-z_]+|e\[_k[0-9]+\])\)\Z")


def _fail(message: str, span: Any) -> None:
    raise RuleError(message, span)


_NUMBERS = (T.INT, T.NUM)  # types whose values are numbers whatever happens (not a value of any type)


def _charge(s: Any, xs: Any, span: Any) -> Any:
    """A loop over ``xs`` is about to run: pay for its items (the budget of the step)."""
    s.ops -= len(xs)
    if s.ops < 0:
        overrun(s, span)
    return xs


def _charge_kept(s: Any, xs: Any, span: Any) -> Any:
    """The last loop of a `for` statement's bindings: each assignment it makes is kept (four units an item)."""
    s.ops -= 4 * len(xs)
    if s.ops < 0:
        overrun(s, span)
    return xs


def _within(s: Any, xs: Any, span: Any) -> Any:
    """``x in xs``: a long ``xs`` is paid for."""
    if len(xs) > SMALL:
        s.ops -= len(xs)
        if s.ops < 0:
            overrun(s, span)
    return xs


def _arg(pick: Callable[..., Any]) -> Callable[[list], list]:
    """argmax / argmin of (item, value) pairs: every item with the best value (none ignored)."""
    def of(found: list) -> list:
        found = [(x, v) for x, v in found if v is not None]
        if not found:
            return []
        best = pick(v for _, v in found)
        return [x for x, v in found if v == best]

    return of


def _extreme(pick: Callable[..., Any]) -> Callable[[list], Any]:
    def of(values: list) -> Any:
        present = [v for v in values if v is not None]
        return pick(present) if present else None

    return of


class Codegen:
    """The generated code of one linked game: its units, and the functions of its defines."""

    def __init__(self, L: Any, mode: str | None = None):
        self.L = L
        self.mode = MODE if mode is None else mode
        self.enabled = self.mode in ("on", "strict")
        self.units: list[Unit] = []
        self._closures: dict[int, Fn] = {}
        self._generated: dict[int, Fn] = {}
        self._closures_only = 0
        self._folds: LinkFold | None = None
        # a define's function (key: its name, ()), and its versions for numbers (None: not made)
        self._defines: dict[tuple[str, tuple[tuple[int, int], ...]], Callable[..., Any] | None] = {}
        self.generate_block: Callable[[Codegen, Any, bool], Any] | None = None  # installed by the link
        self._helpers: dict[str, Any] = {
            "_ch": _charge, "_ck": _charge_kept, "_sl": slides_of, "_sa": slides_any, "_wi": _within,
            "_cg": check_grown, "_ov": overrun, "_rg": whole_numbers,
            "_ld": list_difference, "_mx": _extreme(max), "_mn": _extreme(min),
            "_ax": _arg(max), "_an": _arg(min), "_dv": distinct_values, "_lim": L.limits, "_errs": _ERRORS,
            "_fail": _fail, "_cp": dict.copy,  # (an env's copy: dict.copy is quicker than dict())
            "_cmp": paid_comparison,
        }

    # ------------------------------------------------------------------ entry points
    def expr(self, node: Any) -> Fn:
        """``node`` compiled: its reference closure, or generated code."""
        if not self.enabled or self._closures_only:
            return self._reference(node)
        fn = self._generated.get(id(node))
        if fn is None:  # once per node: a condition is compiled where it is tested and where it runs
            ref = self.reference(node)
            if is_const(ref) or local_name(ref) is not None or (_size(node) < _MIN_NODES
                                                                and not self._calls_define(node)):
                fn = ref
            else:
                fn = self._unit_for(node, ref)
            self._generated[id(node)] = fn
        return fn

    @property
    def folds(self) -> LinkFold:
        """The link's constant folder (made when first asked: the link knows its tables by then)."""
        if self._folds is None:
            self._folds = LinkFold(self.L)
        return self._folds

    def _calls_define(self, node: Any) -> bool:
        """Does ``node`` call a define? Its closure would run the define's body as closures too,
        so even a small call (`f(p)` of a define `f`) is worth a unit."""
        return any(isinstance(n, A.Call) and self.L.info.ref(n).kind == "define" for n in A.walk(node))

    @property
    def generating(self) -> bool:
        """Is code generated now (not a reference closure being built)?"""
        return self.enabled and not self._closures_only

    def block(self, block: Any, own_scope: bool = True) -> Any:
        """A block that cannot wait as one generated function, or None (use its closure)."""
        if self.generate_block is None or not self.generating:
            return None
        return self.generate_block(self, block, own_scope)

    def reference(self, node: Any) -> Fn:
        """The closure of ``node`` (its children closures too): the reference implementation."""
        self._closures_only += 1
        try:
            return self._reference(node)
        finally:
            self._closures_only -= 1

    def _reference(self, node: Any) -> Fn:
        fn = self._closures.get(id(node))
        if fn is None:
            fn = closure_of(node, self.L)
            self._closures[id(node)] = fn
        return fn

    def source(self) -> str:
        """All generated code of the game, for a reader (``rulespec compile --show-python``)."""
        return "\n".join(f"# unit {u.name}\n{u.source}" for u in self.units)

    # ------------------------------------------------------------------ units
    def _unit_for(self, node: Any, ref: Fn) -> Fn:
        writer = _Writer(self, env=True)
        writer.answered = self.mode != "strict"
        body = writer.expr(node)
        if writer.fell_back(body):
            return ref  # nothing was generated: the closure is as fast
        writer.names["_o"] = ref
        if self.mode == "strict":
            lines = ["def _f(s, e):", f"    return {body}"]
        else:
            lines = ["def _f(s, e):", "    try:", f"        return {body}", "    except _errs:",
                     "        return _o(s, e)"]
        return self.load(f"e{len(self.units)}", lines, writer.names, "_f") or ref

    def load(self, name: str, lines: list[str], names: dict[str, Any], function: str) -> Any:
        """The generated ``function`` of a unit, or None when Python cannot compile it (its
        own limits on nesting): the caller then keeps the closure."""
        namespace = dict(self._helpers)
        namespace.update(names)
        try:
            unit = load_unit(name, "\n".join(lines) + "\n", namespace)
        except SyntaxError:
            if self.mode == "strict":
                raise  # in the tests' mode, a unit Python refuses is a bug of the generator until shown otherwise
            return None
        except (RecursionError, MemoryError):
            return None
        self.units.append(unit)
        return unit.functions[function]

    def each_seat(self, node: Any, local: str, given: str | None = None) -> Callable[..., list[Any] | None] | None:
        """``float`` of ``node`` for every seat in seat order, the seat named ``local``, as one
        generated function. Without ``given``, ``f(state, ops)``: each seat's evaluation is a
        step of its own (``ops`` units); with it, ``f(state, value)``: the rule's local
        ``given`` holds ``value``, and the seats share the step under way. It answers None when
        Python raises, and the caller then evaluates seat by seat, where the error is worded.
        None when no code is generated. (A search scores every seat of every position it
        reaches, and a short game ends often: one call, no dictionary per seat.)"""
        if not self.generating:
            return None
        writer = _Writer(self, env=False)
        writer.answered = self.mode != "strict"  # (a Python error: the caller evaluates seat by seat)
        seat = writer.bind(local)
        writer.present.add(seat)  # a seat is never none
        second = "_ops" if given is None else writer.bind(given)
        body = writer.expr(node)
        n = self.L.num_players
        loop = [f"for {seat} in {writer.value(range(n))}:", f"    _out[{seat}] = float({body})"]
        if given is None:
            loop.insert(1, "    s.ops = _ops")
        head = [f"def _h(s, {second}):", f"    _out = [None] * {n!r}"]
        if self.mode == "strict":  # (no fallback: a Python error is the generator's)
            lines = [*head, *("    " + line for line in loop)]
        else:
            lines = [*head, "    try:", *("        " + line for line in loop), "    except _errs:",
                     "        return None"]
        lines.append("    return _out")
        return self.load(f"h{len(self.units)}", lines, writer.names, "_h")

    def define(self, name: str) -> Callable[..., Any]:
        """The generated function of define ``name``: ``f(state, *arguments)``."""
        fn = self._defines.get((name, ()))
        if fn is None:
            fn = self._define_function(name, ())
        assert fn is not None
        return fn

    def version(self, name: str, fixed: tuple[tuple[int, int], ...]) -> Callable[..., Any] | None:
        """A version of define ``name`` for calls that pass whole numbers (``fixed``: pairs of
        a parameter's index and its number): the numbers are written into its code, where the
        generator folds them, and the function takes the other arguments only. None when no
        number folds (the version would be no faster) or the define has its most versions."""
        key = (name, fixed)
        if key in self._defines:
            return self._defines[key]
        if sum(1 for other in self._defines if other[0] == name and other[1]) >= _VERSIONS:
            return None
        return self._define_function(name, fixed)

    def _define_function(self, name: str, fixed: tuple[tuple[int, int], ...]) -> Callable[..., Any] | None:
        define = self.L.defines[name]
        writer = _Writer(self, env=False)
        numbers = dict(fixed)
        params = []
        for i, param in enumerate(define.params):
            if i in numbers:
                writer.scope[param] = repr(numbers[i])
            else:
                params.append(writer.bind(param))
        body = writer.expr(define.body)  # (a known body is its value)
        if fixed and not writer.folded:
            self._defines[(name, fixed)] = None
            return None
        if self.L.define_paid(name):
            # a define that calls others (and is no constant) costs one unit per call, at the
            # calling position (a chain of them is paid for); the caller passes that position
            lines = [f"def _g({', '.join(['s', '_sp', *params])}):", "    s.ops -= 1", "    if s.ops < 0:",
                     "        _ov(s, _sp)", f"    return {body}"]
        else:
            lines = [f"def _g({', '.join(['s', *params])}):", f"    return {body}"]
        fn = self.load(f"d{len(self.units)}", lines, writer.names, "_g") or _define_by_closure(
            self.reference(define.body), define.params, self.L.define_paid(name), numbers)
        self._defines[(name, fixed)] = fn
        return fn


def _define_by_closure(body: Fn, params: tuple[str, ...], paid: bool,
                       numbers: dict[int, int] | None = None) -> Callable[..., Any]:
    """A define's closure behind the calling convention of generated defines (for a body
    Python could not compile); ``numbers`` are the arguments a version of it has fixed."""
    numbers = numbers or {}
    fixed = {params[i]: value for i, value in numbers.items()}
    free = tuple(p for i, p in enumerate(params) if i not in numbers)
    if paid:
        def paid_call(s: Any, span: Any, *args: Any) -> Any:
            s.ops -= 1
            if s.ops < 0:
                overrun(s, span)
            return body(s, {**fixed, **dict(zip(free, args))})

        return paid_call
    return lambda s, *args: body(s, {**fixed, **dict(zip(free, args))})


def _size(node: Any, limit: int = _MIN_NODES) -> int:
    """The number of nodes under ``node`` (counted up to ``limit``)."""
    count = 0
    for _ in A.walk(node):
        count += 1
        if count >= limit:
            break
    return count


class _Writer:
    """Python source for one unit: expressions, with the names they need."""

    def __init__(self, gen: Codegen, env: bool):
        self.gen = gen
        self.L = gen.L
        self.env = env  # the unit has the caller's environment ``e``
        # the unit's Python errors are answered by its reference closure (which words them), so
        # its code need not test for them itself
        self.answered = False
        self.names: dict[str, Any] = {}
        self._ids: dict[int, str] = {}
        self._getters: dict[str, str] = {}  # a table's name -> the name of its ``__getitem__``
        self.scope: dict[str, str] = {}  # a rule's local -> the Python local holding it
        self.present: set[str] = set()  # Python locals that are never none (a card of a zone)
        self._count = 0
        self.folded = 0  # operations on two numbers the generator computed itself

    # ------------------------------------------------------------------ names
    def _invent(self, prefix: str) -> str:
        self._count += 1
        return f"_{prefix}{self._count}"

    def name_of(self, value: Any) -> str:
        """A namespace name holding ``value`` (the same object once per unit)."""
        key = id(value)
        name = self._ids.get(key)
        if name is None:
            name = self._invent("k")
            self._ids[key] = name
            self.names[name] = value
        return name

    def getter(self, table: str) -> str:
        """The name of the ``__getitem__`` of the table named ``table`` (one per unit)."""
        name = self._getters.get(table)
        if name is None:
            name = self._getters[table] = self.name_of(self.names[table].__getitem__)
        return name

    def value(self, value: Any) -> str:
        if type(value) in (int, bool) or value is None:
            return repr(value)
        return self.name_of(value)

    def bind(self, local: str) -> str:
        name = self._invent("v")
        self.scope[local] = name
        return name

    def bind_item(self, local: str, items: Any) -> str:
        """``bind`` of a loop's variable over ``items`` (an expression node) that nothing but
        the loop assigns: the variable of a zone's cards is never none."""
        name = self.bind(local)
        if type_of(items, self.L) == T.ZONE:
            self.present.add(name)
        return name

    def temp(self) -> str:
        return self._invent("t")

    # ------------------------------------------------------------------ expressions
    def expr(self, node: Any) -> str:
        known = self.gen.folds.value(node)
        if known is not UNKNOWN:
            return self.value(known)
        method = getattr(self, "x_" + type(node).__name__, None)
        code = method(node) if method is not None else None
        return code if code is not None else self.fallback(node, self.gen.reference(node))

    def fell_back(self, code: str) -> bool:
        """Is ``code`` only a call of a closure (nothing generated)?"""
        return code.endswith("(s, e)") and code[:-6].isidentifier()

    def fallback(self, node: Any, ref: Fn) -> str:
        """Call ``node``'s closure, with the locals this unit binds added to its environment."""
        return self.call(ref)

    def via_unit(self, node: Any) -> str:
        """Evaluate ``node`` through its own compiled function (a generated unit, whose errors
        fall back to its closure), with this unit's bound locals added to the environment."""
        from .expressions import compile_expr

        return self.call(compile_expr(node, self.L))

    def call(self, fn: Fn) -> str:
        name = self.name_of(fn)
        if not self.scope:
            return f"{name}(s, e)" if self.env else f"{name}(s, {self.name_of({})})"
        pairs = ", ".join(f"{self.name_of(k)}: {v}" for k, v in self.scope.items())
        return f"{name}(s, {{**e, {pairs}}})" if self.env else f"{name}(s, {{{pairs}}})"

    def listing(self, node: Any) -> str:
        """An iterable expression: a zone gives its cards."""
        code = self.expr(node)
        return f"s.zones[{code}]" if type_of(node, self.L) == T.ZONE else code

    def line_in_line(self, who: str, runs: tuple[tuple[int, ...], ...]) -> str:
        """`line(who, n)` over a few runs known now (of one cell or more), each cell tested in
        line (as ``line_of`` does: a piece, owned by who), the first run that is who's ending the test."""
        occupied, owner, piece = self.temp(), self.temp(), self.temp()  # (the first two bound by the test's head)
        tests = [" and ".join(f"({piece} := {occupied}[{c!r}]) >= 0 and {owner}[{piece}] == {who}" for c in run)
                 for run in runs]
        return (f"(({occupied} := s.cell_piece) is not None and ({owner} := s.piece_owner) is not None and "
                f"({' or '.join(f'({test})' for test in tests)}))")

    def held(self, code: str) -> tuple[str, str]:
        """(the code that computes a value once, a name to read it by) for ``code``."""
        if code.isidentifier():
            return code, code
        t = self.temp()
        return f"({t} := {code})", t

    def lookup(self, code: str, table: Any) -> str:
        """``table[x]``, none for a missing x."""
        return self.unless_none(code, lambda x: f"{self.value(table)}[{x}]")

    def as_json(self, code: str, t: str) -> str:
        """The JSON of the value of ``code``, of type ``t``, as ``json_converter`` makes it (a
        card's name read in line)."""
        if t == T.CARD:
            return self.lookup(code, self.L.cards.names)
        if T.is_list(t) and T.elem(t) == T.CARD:  # (each card's name read in line too)
            first, cards = self.held(code)
            x = self.temp()
            return f"(None if {first} is None else [{self.lookup(x, self.L.cards.names)} for {x} in {cards}])"
        convert = json_converter(t, self.L)
        return code if convert is same_value else f"{self.name_of(convert)}(s, {code})"

    def unless_none(self, code: str, of: Callable[[str], str]) -> str:
        """``of(x)`` for the value of ``code``, none when that is none (not tested for a local
        that is never none)."""
        if code in self.present:
            return of(code)
        first, x = self.held(code)
        return f"(None if {first} is None else {of(x)})"

    def x_Const(self, node: A.Const) -> str:
        return self.value(node.value)

    def x_Name(self, node: A.Name) -> str | None:
        kind = self.L.info.ref(node).kind
        if kind == "local":
            bound = self.scope.get(node.id)
            if bound is not None:
                return bound
            return f"e[{self.name_of(node.id)}]" if self.env else None
        if kind == "var":
            return f"s.g[{self.L.var_slots[node.id]!r}]"
        if kind == "builtin":
            return _STATE_NAMES.get(node.id)
        if kind == "define":
            return self.define_call(node, node.id, ())
        return None

    def x_Attr(self, node: A.Attr) -> str | None:
        L = self.L
        kind = L.info.ref(node).kind
        if kind == "card_attr":
            return self.lookup(self.expr(node.obj), L.cards.attrs[node.name])
        if kind == "card_name":
            return self.lookup(self.expr(node.obj), L.cards.names)
        if kind == "pvar":
            return self.unless_none(self.expr(node.obj), lambda p: f"s.pv[{L.pvar_slots[node.name]!r}][{p}]")
        if kind == "cell_field" and node.name in ("row", "col", "name"):
            size, cols = L.board.size, L.board.cols
            table = {"row": [i // cols for i in range(size)], "col": [i % cols for i in range(size)],
                     "name": list(L.board.names)}[node.name]
            return self.lookup(self.expr(node.obj), table)
        if kind == "player_field":
            if node.name == "seat":
                return self.expr(node.obj)
            if node.name == "name":
                return self.lookup(self.expr(node.obj), L.seat_names)
            field = _PLAYER_TABLES.get(node.name)
            if field is None:
                return None
            return self.unless_none(self.expr(node.obj), lambda p: f"{field}[{p}]")
        if kind == "piece_field":
            if node.name == "cell":
                first, x = self.held(self.expr(node.obj))
                c = self.temp()
                return f"(None if {first} is None or ({c} := s.piece_cell[{x}]) < 0 else {c})"
            if node.name in ("owner", "kind"):  # the state's: a rule may change them
                return self.unless_none(self.expr(node.obj), lambda x: f"s.piece_{node.name}[{x}]")
            if node.name == "start":
                return piece_start(self, node)
        return None

    def x_Index(self, node: A.Index) -> str | None:
        """``xs[i]`` of a list, a text or a zone (whose order may be unknown: an error) in line,
        or a table's entry (``table_item``); an index outside the list raises, and the unit
        falls back to the closure for its message (``codegen_blocks.has_own_errors``)."""
        L = self.L
        if L.info.ref(node).kind == "table":
            return table_item(self, node)
        t = type_of(node.obj, L)
        if not (T.is_list(t) or t in (T.STR, T.ANY, T.ZONE)):
            return None
        items = in_order(self, node.obj, "a card's position")
        return f"{items}[{self.expr(node.index)}]"

    def x_ListLit(self, node: A.ListLit) -> str:
        return "[" + ", ".join(self.expr(i) for i in node.items) + "]"

    def x_BinOp(self, node: A.BinOp) -> str | None:
        op = node.op
        L = self.L
        if op in ("and", "or"):
            left_known = self.gen.folds.value(node.left)
            if left_known is not UNKNOWN and bool(left_known) != (op == "or"):
                # a known left side (an option, say) that leaves the answer to the right side (one
                # that decides makes the whole a constant already)
                right = self.expr(node.right)
                return right if self.always_bool(node.right) else f"bool({right})"
            left, right = self.expr(node.left), self.expr(node.right)
            if not self.always_bool(node.left):
                left = f"bool({left})"
            if not self.always_bool(node.right):
                right = f"bool({right})"
            return f"({left} {op} {right})"
        if op in ("in", "notin"):
            items = self.listing(node.right) if type_of(node.right, L) != T.STR else self.expr(node.right)
            t = self.temp()
            word = "in" if op == "in" else "not in"
            # the list first, as the closure does (it may be what fails)
            return f"(({t} := _wi(s, {items}, {self.name_of(node.span)})) is not None and {self.expr(node.left)} " \
                   f"{word} {t})"
        moves = self.has_slides(node)
        if moves is not None:
            return moves
        left_type, right_type = type_of(node.left, L), type_of(node.right, L)
        if op == "-" and T.is_list(left_type):
            return f"_ld(s, {self.expr(node.left)}, {self.expr(node.right)}, {self.name_of(node.span)})"
        symbol = _OPS[op]
        if op in ("+", "-", "*", "/", "//", "%"):
            left, right = self.expr(node.left), self.expr(node.right)
            if op == "*" and not (left_type in _NUMBERS and right_type in _NUMBERS):
                # a text or a list may be repeated (a value of any type may be one): bounded before
                # it is made, as the closure does it
                return (f"{self.name_of(checked_arith)}(s, {self.name_of(op)}, {self.name_of(operator.mul)}, {left}, "
                        f"{right}, _lim, {self.name_of(node.span)})")
            if op in _FOLDED and WHOLE.match(left) and WHOLE.match(right):
                value = _FOLDED[op](int(left), int(right))
                if -_BIG < value < _BIG:
                    self.folded += 1
                    return repr(value)  # folded: two numbers (a define's version fixes some)
            code = f"({left} {symbol} {right})"
            t = type_of(node, L)
            if (t == T.INT and op != "*") or t == T.BOOL:
                return code
            return self.grown(code, t, node.span)
        if _sized(left_type) and _sized(right_type):
            folds = self.gen.folds
            if not (folds.is_constant(node.left) or folds.is_constant(node.right)):
                # two values that may be long, paid for (both computed, in order) before they are compared
                a, b = self.temp(), self.temp()
                left, right = self.expr(node.left), self.expr(node.right)
                span = self.name_of(node.span)
                return f"({a} {symbol} {b} if _cmp(s, ({a} := {left}), ({b} := {right}), {span}) else None)"
        return f"({self.expr(node.left)} {symbol} {self.expr(node.right)})"

    def always_bool(self, node: Any, depth: int = 0) -> bool:
        """Is the value of ``node`` a bool whatever happens (``_always_bool``), looking into
        the body of a define it calls?"""
        if isinstance(node, (A.Call, A.Name)) and depth < 8 and self.L.info.ref(node).kind == "define":
            name = node.func if isinstance(node, A.Call) else node.id
            return self.always_bool(self.L.defines[name].body, depth + 1)
        return _always_bool(node)

    def has_slides(self, node: A.BinOp) -> str | None:
        """`count(slides(x)) > 0` (or `!= 0`, `== 0`): whether the piece can move, without
        listing its moves (the first cell of each ray is enough)."""
        L = self.L
        left, right = node.left, node.right
        if node.op not in (">", "!=", "==") or not (isinstance(right, A.Const) and type(right.value) is int
                                                     and right.value == 0):
            return None
        if not (isinstance(left, A.Call) and left.func == "count" and len(left.args) == 1
                and L.info.ref(left).kind == "builtin"):
            return None
        inner = left.args[0]
        if not (isinstance(inner, A.Call) and inner.func == "slides" and L.info.ref(inner).kind == "builtin"):
            return None
        code = f"_sa(s, {self.expr(inner.args[0])}, {self.name_of(slides_rays(inner, L))})"
        return f"(not {code})" if node.op == "==" else code

    def grown(self, code: str, t: str, span: Any) -> str:
        """A value an operator just made, checked as ``check_grown`` does; a number within
        +-2**62 (an int, or a finite float) passes without the call."""
        if not T.is_number(t) or t == T.ANY:
            return f"_cg(s, {code}, _lim, {self.name_of(span)})"
        v = self.temp()
        return f"({v} if {-_BIG!r} < ({v} := {code}) < {_BIG!r} else _cg(s, {v}, _lim, {self.name_of(span)}))"

    def x_Unary(self, node: A.Unary) -> str:
        if node.op == "not":
            return f"(not {self.expr(node.operand)})"
        return f"(-{self.expr(node.operand)})"

    def x_Cond(self, node: A.Cond) -> str:
        return f"({self.expr(node.body)} if {self.expr(node.test)} else {self.expr(node.orelse)})"

    def comprehension(self, comp: A.Comp, span: Any) -> tuple[str, str, str]:
        """(element, ``for ... in ... if ...``, the loop's variable) of a comprehension, paying
        for its items."""
        items = self.listing(comp.iter)
        if ":=" in items:  # Python allows no assignment expression in a comprehension's iterable
            items = self.call(compile_list(comp.iter, self.L))
        outer = self.scope.get(comp.var)
        var = self.bind_item(comp.var, comp.iter)
        cond = f" if {self.expr(comp.cond)}" if comp.cond is not None else ""
        more = ""
        if isinstance(comp.elt, A.Comp):  # the next `for` clause, with this one's name bound
            elt, more, _ = self.comprehension(comp.elt, span)
            more = " " + more
        else:
            elt = self.expr(comp.elt)
        if outer is None:
            del self.scope[comp.var]
        else:
            self.scope[comp.var] = outer
        return elt, f"for {var} in _ch(s, {items}, {self.name_of(span)}){cond}{more}", var

    def x_ListComp(self, node: A.ListComp) -> str:
        elt, loop, var = self.comprehension(node.comp, node.span)
        looked_up = self.looked_up(node.comp, elt, loop, var)
        return f"list({looked_up})" if looked_up else f"[{elt} {loop}]"

    def x_Agg(self, node: A.Agg) -> str | None:
        func = node.func
        if func == "count" and node.comp.cond is None and not isinstance(node.comp.elt, A.Comp):
            return f"len({self.listing(node.comp.iter)})"
        if func not in ("count", "sum", "max", "min", "any", "all", "distinct", "argmax", "argmin"):
            return None
        elt, loop, var = self.comprehension(node.comp, node.span)
        looked_up = self.looked_up(node.comp, elt, loop, var) if func in ("sum", "max", "min", "any", "all") else None
        if looked_up is not None:  # (a list for all but sum: each item is looked up, as the closure does)
            return self.aggregate(func, looked_up if func == "sum" else f"list({looked_up})", node)
        if func == "distinct":
            return f"_dv(s, [{elt} {loop}], {self.name_of(node.span)})"
        if func in ("argmax", "argmin"):
            return f"_{'ax' if func == 'argmax' else 'an'}([({var}, {elt}) {loop}])"
        if func == "count":
            return f"sum([1 {loop}])"
        return self.aggregate(func, f"[{elt} {loop}]", node)

    def aggregate(self, func: str, items: str, node: A.Agg) -> str:
        """sum, max, min, any or all of the items of ``items`` (every item is evaluated, as the
        closure does)."""
        if func == "sum":
            return self.grown(f"sum({items})", type_of(node, self.L), node.span)
        if func in ("max", "min"):
            return f"_{'mx' if func == 'max' else 'mn'}({items})"
        return f"{func}({items})"

    def looked_up(self, comp: A.Comp, elt: str, loop: str, var: str) -> str | None:
        """``map(<table's __getitem__>, <items>)`` when a comprehension (``elt``, ``loop``) only
        looks each item up in a table (`c.points for c in hand(p)`): the same values in the same
        order, and the same errors, without a comprehension's function."""
        head = f"for {var} in "
        found = _LOOKUP.match(elt)
        if (comp.cond is not None or isinstance(comp.elt, A.Comp) or found is None or found.group(2) != var
                or not loop.startswith(head)):
            return None
        return f"map({self.getter(found.group(1))}, {loop[len(head):]})"

    def x_Call(self, node: A.Call) -> str | None:
        L = self.L
        ref = L.info.ref(node)
        if ref.kind == "family":
            return self.family_zone(node)
        if ref.kind == "define":
            return self.define_call(node, node.func, node.args)
        return self.builtin(node)

    def family_zone(self, node: A.Call) -> str:
        """A zone of a family (`hand(p)`), with the error of its closure
        (``expressions._family``) when the player is none."""
        base = self.L.zone_base[node.func]
        player = self.expr(node.args[0])
        if self.answered or player.isdigit() or player == "s.current":  # never none (or answered)
            return f"({base!r} + {player})"
        first, x = self.held(player)
        message = self.name_of(f"{node.func}(...) of a missing value (none)")
        return f"({base!r} + {x} if {first} is not None else _fail({message}, {self.name_of(node.span)}))"

    def define_call(self, node: Any, name: str, args: tuple[Any, ...]) -> str:
        codes = [self.expr(a) for a in args]
        inline = self.inline_define(name, codes)
        if inline is not None:
            return inline
        span = [self.name_of(node.span)] if self.L.define_paid(name) else []
        numbers = {i: int(code) for i, code in enumerate(codes) if WHOLE.match(code)}
        version = self.gen.version(name, tuple(numbers.items())) if numbers else None
        if version is not None:
            rest = [code for i, code in enumerate(codes) if i not in numbers]
            return f"{self.name_of(version)}({', '.join(['s', *span, *rest])})"
        return f"{self.name_of(self.gen.define(name))}({', '.join(['s', *span, *codes])})"

    def inline_define(self, name: str, codes: list[str]) -> str | None:
        """The body of a small define that calls no other (so a call of it costs nothing of
        the budget) written in place of the call, its parameters replaced by the arguments'
        code, when each argument is a name or a number (evaluating it again costs nothing).
        An argument that is a name plus a number (a zone of a family, `points(hand(p))`) is
        computed first, once, as the call would (``(_t := ...) is not None and <body>``: a
        number is never none)."""
        L = self.L
        define = L.defines[name]
        if L.define_fans_out(name) or _size(define.body, _INLINE_NODES) >= _INLINE_NODES \
                or not all(SIMPLE.match(code) or _OFFSET.match(code) for code in codes):
            return None
        first = []
        for i, code in enumerate(codes):
            if not SIMPLE.match(code):
                t = self.temp()
                first.append(f"({t} := {code}) is not None")
                codes[i] = t
        scope, env = self.scope, self.env
        self.scope, self.env = dict(zip(define.params, codes)), False  # a define sees its parameters only
        try:
            return f"({' and '.join([*first, f'({self.expr(define.body)})'])})"
        finally:
            self.scope, self.env = scope, env

    def builtin(self, node: A.Call) -> str | None:
        return write_builtin(self, node)


def _always_bool(node: Any) -> bool:
    """Is the value of ``node`` a bool whatever happens (a comparison, `not`, `and`/`or`)?
    (A value only typed bool may still be none: a missing card's attribute.)"""
    if isinstance(node, A.BinOp):
        return node.op not in ("+", "-", "*", "/", "//", "%")
    if isinstance(node, A.Unary):
        return node.op == "not"
    return isinstance(node, A.Const) and type(node.value) is bool


def _sized(t: str) -> bool:
    return t in (T.STR, T.ANY, T.ZONE, T.DICT) or T.is_list(t)
