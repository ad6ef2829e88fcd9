"""Static checks: every name resolves, types agree, phases are reachable, rounds can end.

Each ``check_*`` function owns one concern and appends diagnostics; the expression and
statement walkers record, for every node, its type and what its name refers to, so the
interpreter can link without guessing (cards, players, cells and pieces are all small
integers at run time).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import ast as A
from . import types as T
from .errors import Diagnostics, SourceSpan, did_you_mean
from .model import ActionRef, SpecModel
from .source import Limits
from .static import MAX_INT, Defines, StaticEvalError, evaluate_static, static_defines
from .zones import kind_of

__all__ = ["CheckInfo", "check_model", "Scope", "CHOICE", "CHANCE", "option_value_error", "option_bound_error"]


class Ref(NamedTuple):
    """What a name, attribute, call or statement target refers to: the checker's answer, read by
    the compilers through ``CheckInfo.ref(node)``.

    kind: "local", "var", "builtin", "zone", "family", "ranking", "define", "option", "card_name",
    "card_attr", "pvar", "player_field", "cell_field", "piece_field", "dynamic", "proc", "choose", "item"
    (an item of a list variable set), "table", "piece_set" (a piece's owner or kind set).
    """

    kind: str
    name: str = ""
    alternatives: tuple[Any, ...] = ()  # of a "choose": the alternatives it offers


UNKNOWN = Ref("?")


@dataclass
class CheckInfo:
    """What the checker learnt about the nodes of the spec (node identity is the key)."""

    types: dict[int, str] = field(default_factory=dict)
    refs: dict[int, Ref] = field(default_factory=dict)
    attr_types: dict[str, str] = field(default_factory=dict)
    action_params: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    action_order: list[str] = field(default_factory=list)
    proc_params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # per procedure and parameter, the argument types of every call (the body is checked with the
    # first call's: a later call may pass what those do not hold, such as any value for a player)
    proc_arg_types: dict[str, tuple[set[str], ...]] = field(default_factory=dict)
    random_lets: set[int] = field(default_factory=set)
    # per statement/block: CHOICE when it may wait for a player, CHANCE when it may draw at random
    suspends: dict[int, int] = field(default_factory=dict)

    def ref(self, node: Any) -> Ref:
        """What ``node`` refers to (``UNKNOWN`` when the checker recorded nothing)."""
        return self.refs.get(id(node), UNKNOWN)

    def choices(self) -> list[Ref]:
        """The references of every `choose` statement."""
        return [r for r in self.refs.values() if r.kind == "choose"]


CHOICE = 1
CHANCE = 2
MAX_DEFINE_DEPTH = 40
# The checker walks the AST recursively; these bounds keep that walk far from Python's
# recursion limit and linear in the spec's size, whatever the spec:
MAX_NESTING = 200  # statements and expressions nested, define bodies included (a LimitError beyond)
MAX_ACTIONS = 10_000_000  # the largest game.limits.actions (the schema's maximum for a number)
PROC_DEFER_DEPTH = 40  # a procedure first called deeper than this is checked later, from the top
MAX_DEFINE_EXPANSIONS = 20_000  # define bodies checked, over all (name, argument types) pairs


class Scope:
    """Local names (bindings, lets, parameters) and their types."""

    __slots__ = ("names", "parent")

    def __init__(self, names: dict[str, str] | None = None, parent: Scope | None = None):
        self.names = names or {}
        self.parent = parent

    def lookup(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def child(self, names: dict[str, str] | None = None) -> Scope:
        return Scope(dict(names or {}), self)

    def all_names(self) -> list[str]:
        out: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out


class _Context:
    """Where a block runs: decides which `end` statements make sense."""

    def __init__(self, where: str):
        self.where = where  # turn, setup, scoring, match, procedure, action


class Checker:
    def __init__(self, model: SpecModel, diags: Diagnostics):
        self.m = model
        self.d = diags
        self.info = CheckInfo()
        self.checked_alternatives: set[tuple[int, int]] = set()  # (alternative, scope) pairs checked
        self.zones = {z.name: z for z in model.zones}
        self.variables = {v.name: v for v in model.variables if v.per is None}
        self.pvars = {v.name: v for v in model.variables if v.per == "player"}
        self.defines = {d.name: d for d in model.defines}
        self._static_defines: frozenset[str] | None = None
        self._define_table: Defines | None = None
        self.procs = {p.name: p for p in model.procedures}
        self.actions = {a.action: a for a in model.actions}
        self.rankings = {r.name: r for r in model.rankings}
        self.tables = {t.name: t for t in model.tables}
        self.table_types: dict[str, tuple[str, str]] = {}  # table name -> (key type, value type)
        self.options = {o.name: o for o in model.options}
        self.piece_kinds = {p.name for p in model.pieces}
        self._define_stack: list[str] = []
        self._define_checked: set[tuple[str, tuple[str, ...]]] = set()
        self._defines_done: set[str] = set()  # names of the defines whose body was checked
        # (name, argument types) -> (type, height: defines nested in its expansion, itself included)
        self._define_memo: dict[tuple[str, tuple[str, ...]], tuple[str, int]] = {}
        self._define_heights: list[int] = []  # the deepest nested expansion below each open define
        self._expansions = 0
        self._proc_checked: set[str] = set()
        self._pending_procs: list[tuple[Any, tuple[str, ...]]] = []
        self._depth = 0  # statements and expressions being checked, one inside the other
        self.parse_failed = False

    # ------------------------------------------------------------------ helpers
    def error(self, span: SourceSpan | None, message: str, hint: str | None = None) -> None:
        self.d.error(span, message, hint)

    def known_names(self, scope: Scope) -> Iterable[str]:
        return itertools.chain(scope.all_names(), T.BUILTIN_NAMES, self.variables, self.zones, self.defines,
                               self.rankings, self.tables, ["option"])

    def too_deep(self, node: Any) -> bool:
        """Whether ``node`` lies deeper than MAX_NESTING (then it is reported, and not checked)."""
        if self._depth < MAX_NESTING:
            return False
        self.d.limit(getattr(node, "span", None), f"rules nested too deeply (more than {MAX_NESTING} levels, "
                     "counting the bodies of the defines they use)", "use fewer levels of defines inside each other")
        return True

    def expect(self, node: Any, got: str, want: str | tuple[str, ...], what: str) -> None:
        wants = want if isinstance(want, tuple) else (want,)
        if not any(T.compatible(got, w) for w in wants):
            words = " or ".join(T.describe(w) for w in wants)
            self.error(node.span, f"{what} must be {words}, not {T.describe(got)}")

    # ------------------------------------------------------------------ expressions
    def expr(self, node: Any, scope: Scope) -> str:
        if node is None:
            return T.ANY
        if self.too_deep(node):
            self.info.types[id(node)] = T.ANY
            return T.ANY
        method: Callable[[Any, Scope], str] = getattr(self, "expr_" + type(node).__name__)
        self._depth += 1
        try:
            result = method(node, scope)
        finally:
            self._depth -= 1
        self.info.types[id(node)] = result
        return result

    def expr_Const(self, node: A.Const, scope: Scope) -> str:
        value = node.value
        if value is None:
            return T.NONE
        if isinstance(value, bool):
            return T.BOOL
        if isinstance(value, int):
            return T.INT
        if isinstance(value, float):
            return T.NUM
        return T.STR

    def expr_Name(self, node: A.Name, scope: Scope) -> str:
        name = node.id
        local = scope.lookup(name)
        if local is not None:
            self.info.refs[id(node)] = Ref("local", name)
            return local
        if name in self.variables:
            self.info.refs[id(node)] = Ref("var", name)
            return T.VARIABLE_TYPES[self.variables[name].type]
        if name in T.BUILTIN_NAMES:
            self.info.refs[id(node)] = Ref("builtin", name)
            if name in self.zones or name in self.defines:
                return T.ANY  # the clash is reported once, where the name is declared; no follow-on error per use
            return T.BUILTIN_NAMES[name]
        if name in self.zones:
            zone = self.zones[name]
            kind = kind_of(zone)
            if not kind.shared:
                self.error(node.span, f"zone '{name}' is one per {kind.per}: write {name}({kind.arg})")
                return T.ZONE
            self.info.refs[id(node)] = Ref("zone", name)
            return T.ZONE
        if name in self.defines:
            return self.call_define(node, name, (), scope)
        if name in self.rankings:
            self.info.refs[id(node)] = Ref("ranking", name)
            return T.RANKING
        if name in self.tables:
            self.error(node.span, f"'{name}' is a table: read one entry with {name}[KEY]")
            return T.ANY
        if name == "option":
            self.error(node.span, "write option.NAME to read an option")
            return T.ANY
        if name in self.procs:
            self.error(node.span, f"'{name}' is a procedure: run it with `call {name}`")
            return T.ANY
        if name in self.pvars:
            self.error(node.span, f"'{name}' is a per-player variable: write p.{name}")
            return T.ANY
        self.error(node.span, f"unknown name '{name}'", did_you_mean(name, self.known_names(scope)))
        return T.ANY

    def expr_Attr(self, node: A.Attr, scope: Scope) -> str:
        if isinstance(node.obj, A.Name) and node.obj.id == "option" and scope.lookup("option") is None:
            option = self.options.get(node.name)
            self.info.refs[id(node)] = Ref("option", node.name)
            if option is None:
                self.error(node.span, f"unknown option '{node.name}'", did_you_mean(node.name, self.options))
                return T.ANY
            return {"int": T.INT, "number": T.NUM, "bool": T.BOOL, "enum": T.STR}[option.type]
        base = self.expr(node.obj, scope)
        if base == T.CARD:
            if node.name == "name":
                self.info.refs[id(node)] = Ref("card_name")
                return T.STR
            if node.name in self.info.attr_types:
                self.info.refs[id(node)] = Ref("card_attr", node.name)
                attr_type = self.info.attr_types[node.name]
                return T.PROC if attr_type == "procedure" else attr_type
            self.error(node.span, f"cards have no attribute '{node.name}'",
                       did_you_mean(node.name, list(self.info.attr_types) + ["name"]))
            return T.ANY
        if base == T.PLAYER:
            if node.name in self.pvars:
                self.info.refs[id(node)] = Ref("pvar", node.name)
                return T.VARIABLE_TYPES[self.pvars[node.name].type]
            if node.name in T.PLAYER_FIELDS:
                self.info.refs[id(node)] = Ref("player_field", node.name)
                return T.PLAYER_FIELDS[node.name]
            self.error(node.span, f"players have no variable '{node.name}'",
                       did_you_mean(node.name, list(self.pvars) + list(T.PLAYER_FIELDS))
                       or "declare it under `variables:` with `per: player`")
            return T.ANY
        if base == T.CELL:
            return self._field(node, T.CELL_FIELDS, "cell_field", "cells")
        if base == T.PIECE:
            return self._field(node, T.PIECE_FIELDS, "piece_field", "pieces")
        if base == T.ANY:
            return self._attr_by_name(node)
        self.error(node.span, f"{T.describe(base)} has no attribute '{node.name}'")
        return T.ANY

    def _attr_by_name(self, node: A.Attr) -> str:
        """An attribute of a value of unknown type (a parameter of a procedure nothing calls
        with typed arguments): resolved by its name where the name says what it is."""
        if node.name in self.pvars:
            self.info.refs[id(node)] = Ref("pvar", node.name)
            return T.VARIABLE_TYPES[self.pvars[node.name].type]
        if node.name in T.PLAYER_FIELDS and node.name != "name":
            self.info.refs[id(node)] = Ref("player_field", node.name)
            return T.PLAYER_FIELDS[node.name]
        if node.name in self.info.attr_types:
            self.info.refs[id(node)] = Ref("card_attr", node.name)
            attr_type = self.info.attr_types[node.name]
            return T.PROC if attr_type == "procedure" else attr_type
        self.info.refs[id(node)] = Ref("dynamic", node.name)
        return T.ANY

    def _field(self, node: A.Attr, fields: dict[str, str], kind: str, what: str) -> str:
        if node.name in fields:
            self.info.refs[id(node)] = Ref(kind, node.name)
            return fields[node.name]
        self.error(node.span, f"{what} have no attribute '{node.name}'", did_you_mean(node.name, fields))
        return T.ANY

    def expr_Index(self, node: A.Index, scope: Scope) -> str:
        table = self.table_named(node.obj, scope)
        if table is not None:
            key_type, value_type = self.table_types.get(table, (T.ANY, T.ANY))
            self.info.refs[id(node)] = Ref("table", table)
            self.expect(node.index, self.expr(node.index, scope), key_type, f"a key of table '{table}'")
            return value_type
        base = self.expr(node.obj, scope)
        index = self.expr(node.index, scope)
        if base == T.STR:  # one character of a text
            self.expect(node.index, index, T.INT, "an index")
            return T.STR
        if not T.iterable(base):
            self.error(node.span, f"cannot index {T.describe(base)}")
            return T.ANY
        self.expect(node.index, index, T.INT, "an index")
        return T.elem(base)

    def table_named(self, node: Any, scope: Scope) -> str | None:
        """The table ``node`` names (a bare name not hidden by a local or a variable), if any."""
        if isinstance(node, A.Name) and node.id in self.tables and scope.lookup(node.id) is None \
                and node.id not in self.variables:
            return node.id
        return None

    def expr_ListLit(self, node: A.ListLit, scope: Scope) -> str:
        item = T.NONE
        for entry in node.items:
            item = T.unify(item, self.expr(entry, scope))
        # `[]` is a list of nothing yet: `[] if c else hand(p)` is a list of cards
        return T.list_of(item)

    def comp(self, comp: A.Comp, scope: Scope) -> tuple[str, str, Scope]:
        """(the first variable's type, the element's type, the innermost scope)."""
        iter_type = self.expr(comp.iter, scope)
        if not T.iterable(iter_type):
            self.error(comp.iter.span, f"cannot loop over {T.describe(iter_type)}")
        var_type = T.elem(iter_type)
        if var_type == T.NONE:  # `[]`: a list of nothing yet, whose items could be anything
            var_type = T.ANY
        inner = scope.child({comp.var: var_type})
        if comp.cond is not None:
            self.expect(comp.cond, self.expr(comp.cond, inner), T.BOOL, "a filter")
        if isinstance(comp.elt, A.Comp):  # the next `for` clause
            _, elt, inner = self.comp(comp.elt, inner)
            return var_type, elt, inner
        elt = self.expr(comp.elt, inner)
        return var_type, elt, inner

    def static_defines(self) -> frozenset[str]:
        """The defines known before a game starts: made only of numbers, num_players, options
        and other such defines (so they may size a board or bound an action's values)."""
        if self._static_defines is None:
            # one walk per define: a define is not static if it reads anything else, or uses
            # a define that is not (spread along the uses, so a long chain stays linear)
            names = frozenset(self.defines)
            users: dict[str, list[str]] = {}
            bad = []
            for d in self.defines.values():
                if d.body is None or _not_static(d.body, names, frozenset(d.params)) is not None:
                    bad.append(d.name)
                    continue
                for sub in A.walk(d.body):
                    used = sub.id if isinstance(sub, A.Name) else getattr(sub, "func", None)
                    if used in names and used not in d.params:
                        users.setdefault(used, []).append(d.name)
            seen = set(bad)
            while bad:
                for user in users.get(bad.pop(), ()):
                    if user not in seen:
                        seen.add(user)
                        bad.append(user)
            self._static_defines = (names - seen) & self.define_table().keys()  # none calls itself
        return self._static_defines

    def define_table(self) -> Defines:
        """The defines static evaluation may call (computed once: card counts call it per card)."""
        if self._define_table is None:
            self._define_table = static_defines(self.m.defines)
        return self._define_table

    def not_static(self, node: Any) -> Any:
        """The first name or call in ``node`` not known before a game starts, or None (the
        values of a `range(a, b)` or a literal list are looked at, not the list itself)."""
        if isinstance(node, A.Call) and node.func == "range" or isinstance(node, A.ListLit):
            parts = node.args if isinstance(node, A.Call) else node.items
            return next((u for u in (_not_static(a, self.static_defines()) for a in parts) if u is not None), None)
        return _not_static(node, self.static_defines())

    def check_random_ids(self, node: A.Call, arg_types: list[str]) -> None:
        """`random(xs, ids='values')`: the outcome ids of whole numbers are the numbers."""
        for key, value in node.kwargs:
            if key != "ids":
                continue
            if not (isinstance(value, A.Const) and value.value in ("values", "positions")):
                self.error(value.span, "random(ids=...) is 'values' or 'positions'")
            elif value.value == "values" and arg_types and arg_types[0] not in (T.list_of(T.INT), T.ANY):
                self.error(value.span, f"random(ids='values') needs a list of whole numbers, not "
                           f"{T.describe(arg_types[0])}")

    def check_directions(self, node: A.Call) -> None:
        """A set of directions (`dirs=` of the geometry functions, the argument of
        directions()) is a constant naming one of them."""
        values = [v for k, v in node.kwargs if k == "dirs"]
        if node.func == "directions" and node.args:
            values.append(node.args[0])
        for value in values:
            if not (isinstance(value, A.Const) and isinstance(value.value, str)):
                self.error(value.span, f"the directions of {node.func}() must be written as text, such as 'orthogonal'")
            elif value.value not in T.DIRECTION_SETS:
                self.error(value.span, f"unknown directions '{value.value}'",
                           did_you_mean(value.value, T.DIRECTION_SETS) or f"one of: {', '.join(T.DIRECTION_SETS)}")

    def expr_ListComp(self, node: A.ListComp, scope: Scope) -> str:
        _, elt, _ = self.comp(node.comp, scope)
        return T.list_of(elt)

    def expr_Agg(self, node: A.Agg, scope: Scope) -> str:
        if node.func not in T.AGGREGATES:
            self.error(node.span, f"'{node.func}' cannot take a `for` clause",
                       did_you_mean(node.func, T.AGGREGATES) or f"aggregates: {', '.join(T.AGGREGATES)}")
            return T.ANY
        var_type, elt, _ = self.comp(node.comp, scope)
        rule = T.AGGREGATES[node.func]
        if node.func in ("any", "all"):
            self.expect(node.comp.elt, elt, T.BOOL, f"the item of {node.func}()")
        if rule == "eltnum":
            self.expect(node.comp.elt, elt, (T.INT, T.NUM), f"the item of {node.func}()")
            return T.INT if elt == T.INT else T.NUM
        if rule == "elt":
            return elt
        if rule == "listvar":
            if isinstance(node.comp.elt, A.Comp):
                self.error(node.comp.elt.span, f"{node.func}() takes one `for` clause: it gives the items of its loop")
            return T.list_of(var_type)
        if rule == "listelt":
            return T.list_of(elt)
        return rule

    def expr_Unary(self, node: A.Unary, scope: Scope) -> str:
        operand = self.expr(node.operand, scope)
        if node.op == "not":
            self.expect(node.operand, operand, T.BOOL, "the operand of `not`")
            return T.BOOL
        self.expect(node.operand, operand, (T.INT, T.NUM), "the operand of '-'")
        return operand

    def expr_Cond(self, node: A.Cond, scope: Scope) -> str:
        self.expect(node.test, self.expr(node.test, scope), T.BOOL, "the condition")
        return T.unify(self.expr(node.body, scope), self.expr(node.orelse, scope))

    def expr_BinOp(self, node: A.BinOp, scope: Scope) -> str:
        left = self.expr(node.left, scope)
        right = self.expr(node.right, scope)
        op = node.op
        if op in ("and", "or"):
            self.expect(node.left, left, T.BOOL, f"the left side of `{op}`")
            self.expect(node.right, right, T.BOOL, f"the right side of `{op}`")
            return T.BOOL
        if op in ("in", "notin"):
            if not T.iterable(right) and right != T.STR:
                self.error(node.right.span, f"`in` needs a list or zone on the right, not {T.describe(right)}")
            elif right != T.STR and not T.compatible(left, T.elem(right)):
                self.error(node.span, f"{T.describe(left)} can never be in {T.describe(right)}")
            return T.BOOL
        if op in ("==", "!="):
            if not T.compatible(left, right):
                self.error(node.span, f"comparing {T.describe(left)} with {T.describe(right)} is always "
                           f"{'false' if op == '==' else 'true'}")
            return T.BOOL
        if op in ("<", "<=", ">", ">="):
            ok = (T.is_number(left) and T.is_number(right)) or (left == right and left in (T.STR, T.VALUE))
            if not ok and T.ANY not in (left, right):
                self.error(node.span, f"cannot order {T.describe(left)} and {T.describe(right)} with '{op}'")
            return T.BOOL
        if op == "+" and (left == T.STR or right == T.STR):
            if left != right and T.ANY not in (left, right):
                self.error(node.span, f"cannot add {T.describe(left)} and {T.describe(right)}",
                           "turn the value into text with str(...)")
            return T.STR
        if op == "+" and T.is_list(left) and T.is_list(right):
            return T.unify(left, right)
        if op == "+" and T.ANY in (left, right) and (T.is_list(left) or T.is_list(right)):
            return T.ANY  # a list kept in a `value` variable, and a list added to it
        if op == "+" and (T.is_list(left) or T.is_list(right)):
            self.error(node.span, f"cannot add {T.describe(left)} and {T.describe(right)}",
                       "add lists to lists: xs + [x]")
            return T.ANY
        if op == "-" and T.is_list(left) and T.is_list(right):
            return left
        for side, t in (("left", left), ("right", right)):
            if not T.is_number(t):
                self.error(node.span, f"the {side} side of '{op}' must be a number, not {T.describe(t)}")
                return T.ANY
        if op == "/":
            return T.NUM
        return T.INT if left == right == T.INT else (T.NUM if T.ANY not in (left, right) else T.ANY)

    def expr_Call(self, node: A.Call, scope: Scope) -> str:
        name = node.func
        if scope.lookup(name) is not None:
            self.error(node.span, f"'{name}' is a local value, not a function")
            return T.ANY
        if name in self.zones:
            return self.zone_family(node, scope)
        if name in self.defines:
            return self.call_define(node, name, node.args, scope)
        if name in T.RANDOM_FUNCTIONS:
            self.error(node.span, f"{name}() is random: use it only as `let x = {name}(...)`")
        if name not in T.FUNCTIONS:
            self.error(node.span, f"unknown function '{name}'",
                       did_you_mean(name, list(T.FUNCTIONS) + list(self.zones) + list(self.defines)))
            for arg in node.args:
                self.expr(arg, scope)
            return T.ANY
        return self.call_builtin(node, scope)

    def zone_family(self, node: A.Call, scope: Scope) -> str:
        zone = self.zones[node.func]
        kind = kind_of(zone)
        self.info.refs[id(node)] = Ref("family", zone.name)
        if kind.shared:
            self.error(node.span, f"zone '{zone.name}' is shared: write {zone.name} without (...)")
            return T.ZONE
        if len(node.args) != 1 or node.kwargs:
            self.error(node.span, f"{zone.name}(...) takes one {kind.per}")
            return T.ZONE
        assert kind.arg_type is not None
        self.expect(node.args[0], self.expr(node.args[0], scope), kind.arg_type, f"the argument of {zone.name}()")
        return T.ZONE

    def call_builtin(self, node: A.Call, scope: Scope, random_ok: bool = False) -> str:
        sig = T.FUNCTIONS[node.func]
        self.info.refs[id(node)] = Ref("builtin", node.func)
        arg_types = [self.expr(arg, scope) for arg in node.args]
        lo, hi = len(sig.params) - sig.optional, len(sig.params)
        if node.func == "dict":
            for _, value in node.kwargs:
                self.expr(value, scope)
            if node.args:
                self.error(node.span, "dict() takes only named values: dict(a=1)")
            return T.DICT
        if not lo <= len(arg_types) <= hi:
            count = f"{lo}" if lo == hi else f"{lo} to {hi}"
            self.error(node.span, f"{node.func}() takes {count} argument{'s' if hi != 1 else ''}, not {len(arg_types)}")
            return T.ANY
        allowed_kwargs = dict(sig.kwargs)
        for key, value in node.kwargs:
            vtype = self.expr(value, scope)
            if key not in allowed_kwargs:
                self.error(value.span, f"{node.func}() has no option '{key}'",
                           did_you_mean(key, allowed_kwargs) or None)
            else:
                self.expect(value, vtype, allowed_kwargs[key], f"{node.func}({key}=...)")
        for i, (arg, got) in enumerate(zip(node.args, arg_types)):
            want = sig.params[i]
            if node.func in ("max", "min"):
                continue
            if T.list_of(T.ANY) in want and T.is_list(got):
                continue
            self.expect(arg, got, want, f"argument {i + 1} of {node.func}()")
        if node.func in ("max", "min"):
            if len(arg_types) == 1:
                if not T.iterable(arg_types[0]):
                    self.error(node.span, f"{node.func}() of one value needs a list")
                return T.elem(arg_types[0])
            return T.unify(arg_types[0], arg_types[1])
        if node.func in ("any", "all") and arg_types and not T.is_list(arg_types[0]) and arg_types[0] != T.ANY:
            self.error(node.args[0].span, f"{node.func}() needs a list, or a `for` clause")
        if node.func == "pieces" and len(node.args) == 2 and isinstance(node.args[1], A.Const):
            if node.args[1].value not in self.piece_kinds:
                self.error(node.args[1].span, f"unknown piece kind '{node.args[1].value}'",
                           did_you_mean(str(node.args[1].value), self.piece_kinds))
        if node.func in T.BOARD_FUNCTIONS and self.m.board is None:
            self.error(node.span, f"{node.func}() needs a `board:` section")
        self.check_directions(node)
        if node.func == "random":
            self.check_random_ids(node, arg_types)
        first = node.args[0] if node.args else None
        if node.func == "cell" and isinstance(first, A.Const) and isinstance(first.value, str):
            self.check_cell_name(node.args[0].value, node.args[0].span)
        result = sig.result
        if result == "elem0":
            return T.elem(arg_types[0]) if arg_types else T.ANY
        if result == "listof0":
            return T.list_of(T.elem(arg_types[0])) if arg_types else T.ANY
        return result

    def check_cell_name(self, name: str, span: SourceSpan) -> None:
        board = self.m.board
        if board is None:
            return
        ok = len(name) >= 2 and name[0].isalpha() and name[1:].isdigit()
        if ok:
            col = ord(name[0]) - ord("a")
            row = int(name[1:])
            ok = 0 <= col < board.cols and 1 <= row <= board.rows
        if not ok:
            last = chr(ord("a") + board.cols - 1) + str(board.rows)
            if board.rows_rule is not None or board.cols_rule is not None:
                self.error(span, f"'{name}' is not a cell of any board this spec can have (a1 to at most {last})")
            else:
                self.error(span, f"'{name}' is not a cell of the {board.rows}x{board.cols} board (a1 to {last})")

    def call_define(self, node: Any, name: str, args: tuple[Any, ...], scope: Scope) -> str:
        define = self.defines[name]
        self.info.refs[id(node)] = Ref("define", name)
        arg_types = tuple(self.expr(arg, scope) for arg in args)
        if len(args) != len(define.params):
            count = len(define.params)
            self.error(node.span, f"'{name}' takes {count} argument{'s' if count != 1 else ''}, not {len(args)}")
            return T.ANY
        if define.body is None:
            return T.ANY
        if name in self._define_stack:
            self.error(node.span, f"define '{name}' refers to itself", "defines are expanded, so they cannot recurse")
            return T.ANY
        key = (name, arg_types)
        memo = self._define_memo.get(key)
        if memo is not None:  # checked before with these argument types: its type and depth are known
            result, height = memo
            if len(self._define_stack) + height > MAX_DEFINE_DEPTH:
                self._too_many_defines(node)
                return T.ANY
            self._note_height(height)
            return result
        if len(self._define_stack) >= MAX_DEFINE_DEPTH:
            self._too_many_defines(node)
            return T.ANY
        self._expansions += 1
        if self._expansions > MAX_DEFINE_EXPANSIONS:
            self.d.limit(node.span, f"defines expand too many times (more than {MAX_DEFINE_EXPANSIONS})",
                         "use each define with fewer different kinds of arguments")
            return T.ANY
        self._define_stack.append(name)
        self._define_heights.append(0)
        try:
            result = self.expr(define.body, Scope(dict(zip(define.params, arg_types))))
        finally:
            self._define_stack.pop()
            height = self._define_heights.pop() + 1
        self._define_memo[key] = (result, height)
        self._note_height(height)
        self._define_checked.add(key)
        self._defines_done.add(name)
        return result

    def _note_height(self, height: int) -> None:
        if self._define_heights and self._define_heights[-1] < height:
            self._define_heights[-1] = height

    def _too_many_defines(self, node: Any) -> None:
        self.error(node.span, f"defines used inside each other more than {MAX_DEFINE_DEPTH} deep",
                   "write the expression with fewer levels of defines")
        self._note_height(MAX_DEFINE_DEPTH)

    # ------------------------------------------------------------------ statements
    def block(self, block: A.Block, scope: Scope, ctx: _Context, inner: Scope | None = None) -> int:
        """Check a block (its own names in ``inner``, a new child scope unless given); returns
        CHOICE/CHANCE bits when it may wait for a decision or chance."""
        inner = scope.child() if inner is None else inner
        suspends = 0
        for stmt in block.stmts:
            suspends |= self.stmt(stmt, inner, ctx)
        self.info.suspends[id(block)] = suspends
        return suspends

    def stmt(self, node: Any, scope: Scope, ctx: _Context) -> int:
        if self.too_deep(node):
            self.info.suspends[id(node)] = CHOICE | CHANCE
            return CHOICE | CHANCE
        method: Callable[[Any, Scope, _Context], int] = getattr(self, "stmt_" + type(node).__name__)
        self._depth += 1
        try:
            suspends = int(method(node, scope, ctx) or 0)
        finally:
            self._depth -= 1
        self.info.suspends[id(node)] = suspends
        return suspends

    def zone_expr(self, node: Any, scope: Scope, what: str) -> None:
        self.expect(node, self.expr(node, scope), T.ZONE, what)

    def stmt_Move(self, node: A.Move, scope: Scope, ctx: _Context) -> int:
        what = self.expr(node.what, scope)
        dest = self.expr(node.dest, scope)
        if node.selector == "one" and what == T.PIECE:
            self.expect(node.dest, dest, T.CELL, "where a piece moves")
            if self.m.board is None:
                self.error(node.span, "moving pieces needs a `board:` section")
            return 0
        if node.selector == "one":
            self.expect(node.what, what, (T.CARD, T.list_of(T.CARD), T.PIECE),
                        "what `move` moves (for a whole zone write `move all ZONE`)")
        elif node.selector == "all":
            self.expect(node.what, what, (T.ZONE, T.list_of(T.CARD)), "what `move all` moves")
        elif node.selector == "random":
            self.expect(node.what, what, (T.ZONE, T.list_of(T.CARD)), "what `move random` picks from")
        else:
            self.expect(node.what, what, T.ZONE, f"what `move {node.selector}` takes from")
        self.expect(node.dest, dest, T.ZONE, "where cards move")
        # top/bottom of a shuffled zone, or a random card, is a chance event
        return CHANCE if node.selector in ("random", "top", "bottom") else 0

    def stmt_Draw(self, node: A.Draw, scope: Scope, ctx: _Context) -> int:
        if node.count is not None:
            self.expect(node.count, self.expr(node.count, scope), T.INT, "how many cards to draw")
        self.zone_expr(node.source, scope, "where cards are drawn from")
        self.zone_expr(node.dest, scope, "where drawn cards go")
        return CHANCE

    def stmt_Deal(self, node: A.Deal, scope: Scope, ctx: _Context) -> int:
        self.expect(node.count, self.expr(node.count, scope), T.INT, "how many cards to deal")
        self.zone_expr(node.source, scope, "where cards are dealt from")
        zone = self.zones.get(node.family)
        if zone is None:
            self.error(node.family_span, f"unknown zone '{node.family}'", did_you_mean(node.family, self.zones))
        elif kind_of(zone).shared:
            self.error(node.family_span, f"`deal` goes to a zone that exists per player or per cell; "
                       f"'{node.family}' is shared", f"use `draw N from ... to {node.family}`")
        return CHANCE

    def stmt_Shuffle(self, node: A.Shuffle, scope: Scope, ctx: _Context) -> int:
        self.zone_expr(node.zone, scope, "what `shuffle` shuffles")
        return 0

    def stmt_Flip(self, node: A.Flip, scope: Scope, ctx: _Context) -> int:
        self.expect(node.what, self.expr(node.what, scope), (T.CARD, T.list_of(T.CARD), T.ZONE), "what `flip` turns")
        return 0

    def stmt_Assign(self, node: A.Assign, scope: Scope, ctx: _Context) -> int:
        target = node.target
        value = self.expr(node.value, scope)
        if isinstance(target, A.Name):
            if scope.lookup(target.id) is not None:
                self.error(target.span, f"'{target.id}' is a local value and cannot change",
                           "declare a variable under `variables:`")
                return 0
            if target.id == "dealer":
                self.info.refs[id(target)] = Ref("builtin", "dealer")
                want = T.PLAYER
            elif target.id in self.variables:
                self.info.refs[id(target)] = Ref("var", target.id)
                want = T.VARIABLE_TYPES[self.variables[target.id].type]
            else:
                if target.id in T.BUILTIN_NAMES:
                    self.error(target.span, f"'{target.id}' is kept by the engine and cannot be set")
                else:
                    self.error(target.span, f"unknown variable '{target.id}'",
                               did_you_mean(target.id, list(self.variables) + ["dealer"])
                               or "declare it under `variables:`")
                return 0
        elif isinstance(target, A.Attr) and self.expr(target.obj, scope) == T.PIECE:
            if target.name not in ("owner", "kind") or node.op != "=":
                self.error(target.span, "a piece's `owner` and `kind` can be set (with '='), nothing else",
                           "x.owner = p, x.kind = 'king'")
                return 0
            self.info.refs[id(target)] = Ref("piece_set", target.name)
            want = T.PLAYER if target.name == "owner" else T.STR
            if target.name == "kind" and isinstance(node.value, A.Const) and node.value.value not in self.piece_kinds:
                self.error(node.value.span, f"unknown piece kind '{node.value.value}'",
                           did_you_mean(str(node.value.value), self.piece_kinds))
        elif isinstance(target, A.Attr):
            owner = self.expr(target.obj, scope)
            if owner not in (T.PLAYER, T.ANY):
                self.error(target.span, f"only player variables can be set with '.': {T.describe(owner)} has none")
                return 0
            if target.name in self.pvars:
                self.info.refs[id(target)] = Ref("pvar", target.name)
                want = T.VARIABLE_TYPES[self.pvars[target.name].type]
            elif target.name in ("score", "total"):
                self.info.refs[id(target)] = Ref("player_field", target.name)
                want = T.PLAYER_FIELDS[target.name]
            else:
                self.error(target.span, f"players have no variable '{target.name}'",
                           did_you_mean(target.name, list(self.pvars) + ["score", "total"])
                           or "declare it under `variables:` with `per: player`")
                return 0
        elif isinstance(target, A.Index) and isinstance(target.obj, A.Name) and target.obj.id in self.variables \
                and scope.lookup(target.obj.id) is None:
            name = target.obj.id
            whole = T.VARIABLE_TYPES[self.variables[name].type]
            if not (T.is_list(whole) or whole == T.ANY):
                self.error(target.span, f"only a list's items can be set: '{name}' is {T.describe(whole)}")
                return 0
            self.info.refs[id(target)] = Ref("item", name)
            self.expect(target.index, self.expr(target.index, scope), T.INT, "an index")
            want = T.elem(whole) if T.is_list(whole) else T.ANY
        else:
            self.error(target.span, "only variables, and the items of list variables, can be assigned")
            return 0
        if node.op in ("+=", "-="):
            if want == T.ANY and (T.is_list(value) or value == T.ZONE):
                pass  # a list kept in a `value` variable, and items added to or taken from it
            elif T.is_list(want):
                self.expect(node.value, value, want, f"the value added to '{_target_name(target)}'")
            else:
                self.expect(node.value, value, (T.INT, T.NUM), f"the value of '{node.op}'")
                self.expect(target, want, (T.INT, T.NUM), f"'{_target_name(target)}' with '{node.op}'")
        else:
            self.expect(node.value, value, want, f"the value of '{_target_name(target)}'")
        return 0

    def stmt_Let(self, node: A.Let, scope: Scope, ctx: _Context) -> int:
        if isinstance(node.value, A.Call) and node.value.func in T.RANDOM_FUNCTIONS \
                and scope.lookup(node.value.func) is None:
            value = self.call_builtin(node.value, scope, random_ok=True)
            self.info.types[id(node.value)] = value
            self.info.random_lets.add(id(node))
            random = CHANCE
        else:
            value = self.expr(node.value, scope)
            random = 0
        if node.name in scope.names:
            self.error(node.span, f"'{node.name}' is already defined in this block")
        elif scope.lookup(node.name) is not None:
            self.error(node.span, f"'{node.name}' is already defined in an enclosing block or as a parameter",
                       "pick another name: a `let` cannot hide a name that is already visible")
        if value == T.ZONE:
            value = T.list_of(T.CARD)  # `let` keeps the cards the zone holds now, not the zone
        if node.name in T.BUILTIN_NAMES or node.name in self.variables or node.name in self.zones:
            what = "variable" if node.name in self.variables else "built-in or zone"
            self.error(node.span, f"'{node.name}' already names a {what}",
                       "pick another name")
        scope.names[node.name] = value
        return random

    def stmt_Emit(self, node: A.Emit, scope: Scope, ctx: _Context) -> int:
        for _, value in node.fields:
            self.expr(value, scope)
        if node.to is not None:
            self.expect(node.to, self.expr(node.to, scope), (T.list_of(T.PLAYER), T.PLAYER), "who sees the event")
        if node.name in ("round_end", "match_end", "round_start", "turn_skipped"):
            self.error(node.span, f"'{node.name}' events are emitted by the engine", "pick another event name")
        return 0

    def stmt_End(self, node: A.End, scope: Scope, ctx: _Context) -> int:
        allowed = {
            "turn": {"turn", "round", "game", "phase"},
            "procedure": {"turn", "round", "game", "phase"},
            "action": {"turn", "round", "game", "phase"},
            "setup": {"game"},
            "match": {"game"},
            "scoring": {"game"},
        }[ctx.where]
        if node.level not in allowed:
            self.error(node.span, f"`end {node.level}` cannot be used in {_CTX_WORDS[ctx.where]}")
        return 0

    def stmt_Skip(self, node: A.Skip, scope: Scope, ctx: _Context) -> int:
        self.expect(node.player, self.expr(node.player, scope), T.PLAYER, "who skips a turn")
        return 0

    def stmt_Next(self, node: A.Next, scope: Scope, ctx: _Context) -> int:
        self.expect(node.player, self.expr(node.player, scope), T.PLAYER, "who takes the next turn")
        return 0

    def stmt_Place(self, node: A.Place, scope: Scope, ctx: _Context) -> int:
        if node.kind not in self.piece_kinds:
            self.error(node.span, f"unknown piece kind '{node.kind}'", did_you_mean(node.kind, self.piece_kinds))
        self.expect(node.owner, self.expr(node.owner, scope), T.PLAYER, "the owner of the placed piece")
        self.expect(node.cell, self.expr(node.cell, scope), T.CELL, "where the piece is placed")
        return 0

    def stmt_Remove(self, node: A.Remove, scope: Scope, ctx: _Context) -> int:
        self.expect(node.piece, self.expr(node.piece, scope), T.PIECE, "what `remove` takes off the board")
        return 0

    def stmt_CallProc(self, node: A.CallProc, scope: Scope, ctx: _Context) -> int:
        arg_types = tuple(self.expr(a, scope) for a in node.args)
        if isinstance(node.target, A.Name) and scope.lookup(node.target.id) is None:
            name = node.target.id
            self.info.refs[id(node.target)] = Ref("proc", name)
            if name not in self.procs:
                self.error(node.target.span, f"unknown procedure '{name}'", did_you_mean(name, self.procs))
                return 0
            return self.check_proc_call(node, [name], arg_types)
        target = self.expr(node.target, scope)
        if target not in (T.PROC, T.ANY):
            self.error(node.target.span, f"`call` needs a procedure name, not {T.describe(target)}")
            return 0
        candidates = list(self.procs)
        if isinstance(node.target, A.Attr) and self.info.ref(node.target).kind == "card_attr":
            attr = node.target.name
            candidates = sorted({str(v) for v in self._attr_values(attr)})
        return self.check_proc_call(node, candidates, arg_types)

    def _attr_values(self, attr: str) -> set[Any]:
        """Every value a card attribute takes in the card list (with its default)."""
        cards = self.m.cards
        values: set[Any] = set()
        if cards is None:
            return values
        defaults = {a.name: a.default for a in cards.attributes}
        for entry in cards.entries:
            present = False
            for name, value, _ in entry.attrs:
                if name == attr:
                    values.add(value)
                    present = True
            for name, family_values, _ in entry.family:
                if name == attr:
                    values.update(family_values)
                    present = True
            if not present and defaults.get(attr) is not None:
                values.add(defaults[attr])
        return values

    def check_proc_call(self, node: A.CallProc, names: list[str], arg_types: tuple[str, ...]) -> int:
        suspends = 0
        for name in names:
            proc = self.procs.get(name)
            if proc is None:
                continue
            if len(proc.params) != len(arg_types):
                self.error(node.span, f"procedure '{name}' takes {len(proc.params)} argument"
                           f"{'s' if len(proc.params) != 1 else ''}, not {len(arg_types)}")
                continue
            suspends |= self.check_proc(proc, arg_types)
        return suspends

    def check_proc(self, proc: Any, arg_types: tuple[str, ...]) -> int:
        seen = self.info.proc_arg_types.setdefault(proc.name, tuple(set() for _ in arg_types))
        for types, t in zip(seen, arg_types):
            types.add(t)
        known = self.info.proc_params.get(proc.name)
        if known is None:
            self.info.proc_params[proc.name] = arg_types
            self._proc_checked.add(proc.name)
            self.info.suspends[id(proc.body)] = CHOICE | CHANCE  # assumed while checking recursion
            if self._depth > PROC_DEFER_DEPTH:
                # a long chain of procedures calling each other: check this one later, from the top
                # (its callers keep the cautious assumption that it may wait, as for recursion)
                self._pending_procs.append((proc, arg_types))
            else:
                self.block(proc.body, Scope(dict(zip(proc.params, arg_types))), _Context("procedure"))
        else:
            for i, (a, b) in enumerate(zip(known, arg_types)):
                if not T.compatible(a, b):
                    self.error(proc.span, f"procedure '{proc.name}' is called with {T.describe(a)} and with "
                               f"{T.describe(b)} as argument {i + 1}")
        return self.info.suspends.get(id(proc.body), CHOICE | CHANCE)

    def check_pending_procs(self) -> None:
        """Check the procedures put off by check_proc (each may put off more), from the top."""
        while self._pending_procs:
            proc, arg_types = self._pending_procs.pop()
            self.block(proc.body, Scope(dict(zip(proc.params, arg_types))), _Context("procedure"))

    def stmt_Pass(self, node: A.Pass, scope: Scope, ctx: _Context) -> int:
        return 0

    def stmt_If(self, node: A.If, scope: Scope, ctx: _Context) -> int:
        self.expect(node.cond, self.expr(node.cond, scope), T.BOOL, "the condition of `if`")
        return self.block(node.then, scope, ctx) | self.block(node.orelse, scope, ctx)

    def bindings(self, bindings: A.Bindings, scope: Scope) -> tuple[Scope, list[tuple[str, str, Any]]]:
        inner = scope.child()
        params = []
        for binding in bindings.items:
            iter_type = self.expr(binding.iter, inner)
            if not T.iterable(iter_type):
                self.error(binding.iter.span, f"cannot loop over {T.describe(iter_type)}")
            var_type = T.elem(iter_type)
            if var_type == T.NONE:  # `[]`: a list of nothing yet
                var_type = T.ANY
            if binding.var in inner.names:
                self.error(binding.span, f"'{binding.var}' is bound twice")
            inner.names[binding.var] = var_type
            params.append((binding.var, var_type, binding))
            if binding.cond is not None:
                self.expect(binding.cond, self.expr(binding.cond, inner), T.BOOL, "the filter")
        return inner, params

    def stmt_For(self, node: A.For, scope: Scope, ctx: _Context) -> int:
        inner, _ = self.bindings(node.bindings, scope)
        return self.block(node.body, inner, ctx)

    def stmt_Repeat(self, node: A.Repeat, scope: Scope, ctx: _Context) -> int:
        inner = scope.child()  # `until` sees the names the body binds with `let`
        suspends = self.block(node.body, scope, ctx, inner)
        self.expect(node.until, self.expr(node.until, inner), T.BOOL, "the condition of `until`")
        return suspends

    def stmt_While(self, node: A.While, scope: Scope, ctx: _Context) -> int:
        self.expect(node.cond, self.expr(node.cond, scope), T.BOOL, "the condition of `while`")
        return self.block(node.body, scope, ctx)

    def stmt_Choose(self, node: A.Choose, scope: Scope, ctx: _Context) -> int:
        if node.by is not None:
            self.expect(node.by, self.expr(node.by, scope), T.PLAYER, "who chooses (`by`)")
        names = set()
        resolved = []
        for alt in node.alternatives:
            if isinstance(alt, ActionRef):
                action = self.actions.get(alt.name)
                if action is None:
                    self.error(alt.span, f"unknown action '{alt.name}'", did_you_mean(alt.name, self.actions))
                    continue
                alt = action
            if alt.action in names:
                self.error(alt.span, f"action '{alt.action}' is offered twice in one choice")
            names.add(alt.action)
            resolved.append(alt)
            self.alternative(alt, scope)
        bits = CHOICE
        if node.orelse is not None:
            bits |= self.block(node.orelse, scope, ctx)
        self.info.refs[id(node)] = Ref("choose", alternatives=tuple(resolved))
        return bits

    def alternative(self, alt: A.Alternative, scope: Scope) -> None:
        key = (id(alt), id(scope))
        if key in self.checked_alternatives:
            return
        self.checked_alternatives.add(key)
        if alt.broken:
            return  # its parameters are unknown: every use of them would be a false alarm
        inner = scope
        params: list[tuple[str, str, Any]] = []
        if alt.bindings is not None:
            inner, params = self.bindings(alt.bindings, scope)
        if alt.cond is not None:
            self.expect(alt.cond, self.expr(alt.cond, inner), T.BOOL, "the condition of an action")
        signature = tuple((name, t) for name, t, _ in params)
        for name, t, binding in params:
            if t not in T.ACTION_PARAM_TYPES and t != T.ANY:
                self.error(binding.span, f"action parameter '{name}' is {T.describe(t)}; actions choose "
                           "cards, players, cells, pieces, or values from a literal list or range()")
            if t in (T.STR, T.INT, T.BOOL) and not _literal_domain(binding.iter):
                self.error(binding.iter.span, f"the values of action parameter '{name}' must be a literal list "
                           "or range(a, b)")
            elif t in (T.STR, T.INT, T.BOOL) and (unknown := self.not_static(binding.iter)) is not None:
                self.error(unknown.span, f"the values of action parameter '{name}' must be known before the game "
                           f"starts: '{_unknown_name(unknown)}' is not",
                           "use numbers, num_players, option.NAME and defines made of them")
        known = self.info.action_params.get(alt.action)
        if known is None:
            self.info.action_params[alt.action] = signature
            self.info.action_order.append(alt.action)
        elif [t for _, t in known] != [t for _, t in signature]:
            self.error(alt.span, f"action '{alt.action}' is used with different parameters "
                       f"({_sig_text(known)} and {_sig_text(signature)})", "give the actions different names")
        if alt.label is not None:
            for part in alt.label.parts:
                if not isinstance(part, str):
                    self.expr(part, inner)
        self.block(alt.body, inner, _Context("action"))


_CTX_WORDS = {
    "setup": "setup", "match": "the match section", "scoring": "scoring", "turn": "a turn",
    "procedure": "a procedure", "action": "an action",
}


def _target_name(node: Any) -> str:
    if isinstance(node, A.Index):
        return f"{_target_name(node.obj)}[...]"
    return node.id if isinstance(node, A.Name) else getattr(node, "name", "?")


def _sig_text(sig: tuple[tuple[str, str], ...]) -> str:
    return "(" + ", ".join(f"{n}: {t}" for n, t in sig) + ")"


_STATIC_NAMES = frozenset({"num_players", "option"})
_STATIC_CALLS = frozenset({"max", "min", "abs", "int"})  # as rulespec.static computes them


def _not_static(node: Any, defines: frozenset[str] = frozenset(), params: frozenset[str] = frozenset()) -> Any:
    """The first name (or call) in ``node`` that is not known before a game starts, or None:
    numbers, num_players, options and the ``defines`` made only of those are known."""
    for sub in A.walk(node):
        if isinstance(sub, A.Name) and sub.id not in _STATIC_NAMES and sub.id not in defines \
                and sub.id not in params:
            return sub
        if isinstance(sub, A.Call) and sub.func not in _STATIC_CALLS and sub.func not in defines:
            return sub
    return None


def _unknown_name(node: Any) -> str:
    return node.id if isinstance(node, A.Name) else f"{node.func}(...)"


def _literal_domain(node: Any) -> bool:
    if isinstance(node, A.ListLit):
        return all(isinstance(i, A.Const) for i in node.items)
    if isinstance(node, A.Call) and node.func == "range":
        return True
    return False


# ====================================================================== sections


def check_requirements(c: Checker) -> None:
    """`game.requires`: conditions of options and num_players; the default options must meet them."""
    for cond, message, span in c.m.requires:
        c.expect(cond, c.expr(cond, Scope({"num_players": T.INT})), T.BOOL, "a requirement")
        unknown = c.not_static(cond)
        if unknown is not None:
            c.error(unknown.span, "a requirement can only use numbers, num_players, options and defines made of "
                    f"them, not '{_unknown_name(unknown)}'")
            continue
        for players in c.m.players:
            try:
                ok = evaluate_static(cond, default_options(c.m, players), players, defines=c.define_table())
            except StaticEvalError:
                break  # known only when a game is loaded
            if not ok:
                c.error(span, f"the default options break this requirement for {players} players: {message}")
                break


def check_limits(c: Checker) -> None:
    scope = Scope({"num_players": T.INT})
    c.expect(c.m.max_actions, c.expr(c.m.max_actions, scope), T.INT, "game.limits.actions")
    unknown = c.not_static(c.m.max_actions)
    if unknown is not None:
        c.error(unknown.span, "game.limits.actions can only use numbers, num_players, options and defines made of "
                f"them, not '{_unknown_name(unknown)}'")
        return
    players = max(c.m.players) if c.m.players else 1
    try:
        value = evaluate_static(c.m.max_actions, default_options(c.m, players), players,
                                defines=c.define_table())
    except StaticEvalError as exc:
        if exc.definite:
            c.error(exc.span, exc.message)
        return  # otherwise it depends on options set when a game is loaded: checked then
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_ACTIONS:
        c.error(c.m.max_actions.span, f"game.limits.actions is {_shown(value)} with the default options; "
                f"the limit is {MAX_ACTIONS}")


def check_options(c: Checker) -> None:
    for opt in c.m.options:
        if opt.type == "enum" and not opt.values:
            c.error(opt.span, f"option '{opt.name}' is an enum without values")
        for key, rule in (("min", opt.min_rule), ("max", opt.max_rule)):
            if rule is None:
                continue
            if opt.type not in ("int", "number"):
                c.error(rule[0].span, f"option '{opt.name}' is {opt.type}: only int and number options have a {key}")
            else:
                _check_option_expr(c, opt, rule[0], key, T.NUM, f"the {key} of option '{opt.name}'")
        default = opt.default
        if default == "auto":
            if opt.auto is None:
                c.error(opt.default_span, f"option '{opt.name}' has default auto but no `auto:` expression")
            else:
                _check_auto(c, opt)
            continue
        if default is None:
            c.error(opt.span, f"option '{opt.name}' needs a default")
            continue
        problem = option_value_problem(opt, default)
        if problem:
            c.error(opt.default_span, f"default of option '{opt.name}': {problem[0]}", problem[1])


def option_value_problem(opt: Any, value: Any) -> tuple[str, str | None] | None:
    """Why ``value`` is not valid for option ``opt``, and a hint (None when it is valid)."""
    if opt.type == "bool":
        return None if isinstance(value, bool) else (f"expected true or false, got {_shown(value)}", None)
    if opt.type == "enum":
        if value in opt.values:
            return None
        return f"expected one of {', '.join(opt.values)}, got {_shown(value)}", did_you_mean(str(value), opt.values)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number, got {_shown(value)}", None
    if isinstance(value, float) and not math.isfinite(value):
        return f"expected a finite number, got {value!r}", None
    if opt.type == "int" and not isinstance(value, int):
        return f"expected a whole number, got {value!r}", None
    if isinstance(value, int) and not -MAX_INT - 1 <= value <= MAX_INT:
        return f"{_shown(value)} is too large", None
    if opt.min is not None and value < opt.min:
        return f"{value} is below the minimum {opt.min:g}", None
    if opt.max is not None and value > opt.max:
        return f"{value} is above the maximum {opt.max:g}", None
    return None


def _shown(value: Any) -> str:
    """``repr(value)`` for a message: short, whatever the value (a huge number is not spelled out)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    try:
        text = repr(value)
    except ValueError:
        return "a value"
    return text if len(text) <= 60 else text[:57] + "..."


def option_bound_error(opt: Any, value: Any, options: Any, num_players: int) -> str | None:
    """Why ``value`` is outside a bound of ``opt`` written as an expression (`min: (num_players + 3) // 4`),
    with the other ``options`` resolved (None when it is inside). Raises ``StaticEvalError``
    when a bound cannot be computed."""
    for key, rule in (("min", opt.min_rule), ("max", opt.max_rule)):
        if rule is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        expr, text = rule
        bound = evaluate_static(expr, options, num_players)
        if isinstance(bound, bool) or not isinstance(bound, (int, float)):
            raise StaticEvalError(f"the {key} of option '{opt.name}' is {_shown(bound)}, not a number", expr.span)
        if value < bound if key == "min" else value > bound:
            side = "below the minimum" if key == "min" else "above the maximum"
            shown = f"{bound:g}" if isinstance(bound, float) else _shown(bound)
            return f"{value} is {side} {shown} for {num_players} players ({key}: {text})"
    return None


def option_value_error(opt: Any, value: Any) -> str | None:
    """Why ``value`` is not valid for option ``opt``, in one sentence (None when it is)."""
    problem = option_value_problem(opt, value)
    if problem is None:
        return None
    message, hint = problem
    return f"{message} ({hint})" if hint else message


def _check_auto(c: Checker, opt: Any) -> None:
    want = {"int": T.INT, "number": T.NUM, "bool": T.BOOL, "enum": T.STR}[opt.type]
    _check_option_expr(c, opt, opt.auto, "auto", want, f"the auto value of option '{opt.name}'")


def _check_option_expr(c: Checker, opt: Any, expr: Any, key: str, want: Any, what: str) -> None:
    """An option's `auto`, `min` or `max` expression: known before the game starts."""
    what_key = "`auto` value" if key == "auto" else f"`{key}`"
    hint = None
    if key != "auto":
        hint = "a bound is a number, or an expression such as `num_players // 2` or `option.NAME`"
    _check_before_the_game(c, expr, f"an option's {what_key}", "other options", hint, want, what)


def _check_before_the_game(c: Checker, expr: Any, subject: str, others: str, hint: str | None, want: Any,
                           what: str, defines: frozenset[str] = frozenset()) -> None:
    """An expression known before the game starts: it reads only num_players, options and
    the ``defines`` made of them."""
    for node in A.walk(expr):  # a name first: it says most about what the expression reads
        if isinstance(node, A.Name) and node.id not in _STATIC_NAMES and node.id not in defines:
            c.error(node.span, f"{subject} can only use num_players and {others}, not '{node.id}'", hint)
            return
    for node in A.walk(expr):
        if isinstance(node, A.Call) and node.func not in _STATIC_CALLS and node.func not in defines:
            c.error(node.span, f"{subject} can only use num_players, {others} and defines made of them, "
                    f"not '{node.func}(...)'", hint)
            return
    c.expect(expr, c.expr(expr, Scope({"num_players": T.INT})), want, what)


def check_cards(c: Checker) -> None:
    cards = c.m.cards
    if cards is None:
        return
    declared = {a.name: a for a in cards.attributes}
    seen: dict[str, set[str]] = {}
    for entry in cards.entries:
        for name, values, _ in entry.family:
            seen.setdefault(name, set()).update(_value_type(v) for v in values)
        for name, value, _ in entry.attrs:
            seen.setdefault(name, set()).add(_value_type(value))
    for name, kinds in seen.items():
        attr = declared.get(name)
        if attr is not None and attr.type is not None:
            want = "str" if attr.type == "procedure" else attr.type
            c.info.attr_types[name] = "procedure" if attr.type == "procedure" else want
            continue
        if len(kinds) > 1:
            c.error(cards.span, f"card attribute '{name}' mixes {' and '.join(sorted(kinds))} values",
                    "declare its type under cards.attributes")
        c.info.attr_types[name] = sorted(kinds)[0]
    for name, attr in declared.items():
        if name not in c.info.attr_types:
            c.info.attr_types[name] = attr.type or _value_type(attr.default)
    if "name" in c.info.attr_types and c.info.attr_types["name"] != T.STR:
        c.error(cards.span, "the card attribute 'name' must be text")
    c.info.attr_types.pop("name", None)
    for entry in cards.entries:
        present = {n for n, _, _ in entry.attrs} | {n for n, _, _ in entry.family}
        for name in c.info.attr_types:
            if name not in present and (declared.get(name) is None or declared[name].default is None):
                label = _entry_label(entry)
                c.error(entry.span, f"card {label} has no value for attribute '{name}'",
                        f"give it one, or declare a default under cards.attributes.{name}")
        for name, value, span in entry.attrs:
            _check_attr_value(c, declared.get(name), name, value, span)
        for name, values, span in entry.family:
            for value in values:
                _check_attr_value(c, declared.get(name), name, value, span)
    for attr in cards.attributes:
        if attr.default is not None:
            _check_attr_value(c, attr, attr.name, attr.default, attr.default_span or attr.span)
    named = any(n == "name" for e in cards.entries for n, _, _ in e.attrs + e.family)
    if cards.name_template is None and not named:
        c.error(cards.span, "cards need names",
                "give each card a `name`, or a template like `cards.name: \"{colour} {number}\"`")
    for entry in cards.entries:
        for name, value, span in entry.attrs:
            if name == "name" and isinstance(value, str) and "{" in value:
                _check_name_template(c, value, span, entry)
    if cards.name_template is not None:
        for part in cards.name_template.parts:
            if not isinstance(part, str):
                if not (isinstance(part, A.Name) and (part.id in c.info.attr_types)):
                    c.error(part.span, "a card name template can only use card attributes, like {colour}",
                            did_you_mean(getattr(part, "id", ""), c.info.attr_types))
    c.expect(cards.decks, c.expr(cards.decks, Scope({"num_players": T.INT})), T.INT, "cards.decks")
    for entry in cards.entries:
        own = {n: c.info.attr_types.get(n, T.ANY) for n, _, _ in entry.attrs + entry.family}
        for name in own:
            if own[name] == "procedure":
                own[name] = T.STR
        c.expect(entry.copies, c.expr(entry.copies, Scope({"num_players": T.INT, **own})), T.INT, "copies")
        unknown = _not_static(entry.copies, c.static_defines(), frozenset(own))
        if unknown is not None:
            c.error(unknown.span, "copies can only use the card's attributes, numbers, num_players, options and "
                    f"defines made of them, not '{_unknown_name(unknown)}'")
    for unknown in (c.not_static(cards.decks),):
        if unknown is not None:
            c.error(unknown.span, "cards.decks can only use numbers, num_players, options and defines made of them, "
                    f"not '{_unknown_name(unknown)}'")
    _check_card_count(c)


def default_options(model: SpecModel, num_players: int) -> dict[str, Any]:
    """Every option at its default (auto options computed), for checks before a game exists."""
    values = {o.name: o.default for o in model.options if o.default != "auto"}
    for opt in model.options:
        if opt.default == "auto" and opt.auto is not None:
            try:
                values[opt.name] = evaluate_static(opt.auto, values, num_players)
            except StaticEvalError:
                pass
    return values


def _check_card_count(c: Checker) -> None:
    """With default options and the most players, the card list must stay within the limit."""
    cards = c.m.cards
    assert cards is not None
    players = max(c.m.players) if c.m.players else 1
    options = default_options(c.m, players)
    limit = Limits.max_cards
    total = 0
    try:
        for entry in cards.entries:
            names = [n for n, _, _ in entry.family]
            constants = {n: v for n, v, _ in entry.attrs}
            combinations = 1
            for _, values, _ in entry.family:
                combinations *= len(values)
            if combinations > limit:
                c.d.limit(entry.span, f"more than {limit} cards")
                return
            for combo in itertools.product(*(values for _, values, _ in entry.family)):
                copies = evaluate_static(entry.copies, options, players, {**constants, **dict(zip(names, combo))},
                                         c.define_table())
                if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
                    c.error(entry.copies.span, f"copies must be a whole number, not {copies!r}")
                    return
                total += copies
                if total > limit:
                    break
            if total > limit:
                c.d.limit(entry.span, f"more than {limit} cards")
                return
        decks = evaluate_static(cards.decks, options, players, defines=c.define_table())
    except StaticEvalError as exc:
        if exc.definite:
            c.error(exc.span, exc.message)
        return  # otherwise it depends on something only known when a game is loaded
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 0:
        c.error(cards.decks.span, f"cards.decks must be a whole number, not {decks!r}")
    elif total * decks > limit:
        c.d.limit(cards.decks.span, f"more than {limit} cards ({decks} decks of {total})")


def _check_name_template(c: Checker, value: str, span: SourceSpan, entry: Any) -> None:
    import re

    names = {n for n, _, _ in entry.family} | {n for n, _, _ in entry.attrs}
    for match in re.finditer(r"\{([^}]*)\}", value):
        if match.group(1) not in names:
            c.error(span, f"unknown attribute '{match.group(1)}' in card name", did_you_mean(match.group(1), names))


def _entry_label(entry: Any) -> str:
    for name, value, _ in entry.attrs:
        if name == "name":
            return f"'{value}'"
    return f"at line {entry.span.line}"


def _check_attr_value(c: Checker, attr: Any, name: str, value: Any, span: SourceSpan) -> None:
    if attr is None or attr.type is None:
        return
    if attr.type == "procedure":
        if str(value) not in c.procs:
            c.error(span, f"'{value}' is not a procedure (card attribute '{name}' names procedures)",
                    did_you_mean(str(value), c.procs))
        return
    if _value_type(value) != attr.type:
        c.error(span, f"card attribute '{name}' must be {T.describe(attr.type)}, not {value!r}")


def _value_type(value: Any) -> str:
    if isinstance(value, bool):
        return T.BOOL
    if isinstance(value, int):
        return T.INT
    return T.STR


def check_zones_board_pieces(c: Checker) -> None:
    board = c.m.board
    for key, rule in (("rows", board.rows_rule if board else None), ("cols", board.cols_rule if board else None)):
        if rule is not None:
            _check_static_size(c, rule, f"board.{key}")
    for zone in c.m.zones:
        if kind_of(zone).needs_board and c.m.board is None:
            c.error(zone.span, f"zone '{zone.name}' is per cell, but there is no `board:`")
        if zone.name in T.BUILTIN_NAMES or zone.name in T.FUNCTIONS:
            c.error(zone.span, f"'{zone.name}' is a built-in name; pick another zone name")
    for piece in c.m.pieces:
        if c.m.board is None:
            c.error(piece.span, "pieces need a `board:`")
            continue
        _check_static_size(c, piece.per_player, "per_player")
        if piece.start_when is not None:
            _check_start_pattern(c, piece)
        for count, seats, span in piece.start:
            if count not in c.m.players:
                c.error(span, f"starting cells for {count} players, but the game allows {_players_text(c.m.players)}")
            if len(seats) != count:
                plural = "s" if len(seats) != 1 else ""
                c.error(span, f"starting cells for {count} players list {len(seats)} seat{plural}")
            for seat in seats:
                for cell in seat:
                    c.check_cell_name(cell, span)


_PATTERN_FIELDS = {"c": ("row", "col", "name"), "p": ("seat",)}


def _check_start_pattern(c: Checker, piece: Any) -> None:
    """`start_when`: a condition on a cell `c` and a seat `p`, known before the game starts."""
    cond = piece.start_when
    if piece.start:
        c.error(cond.span, f"piece '{piece.name}' has both `start` and `start_when`: give one")
    c.expect(cond, c.expr(cond, Scope({"c": T.CELL, "p": T.PLAYER, "num_players": T.INT})), T.BOOL, "`start_when`")
    unknown = _not_static(cond, c.static_defines(), frozenset(_PATTERN_FIELDS))
    if unknown is not None:
        c.error(unknown.span, "a starting pattern can only use c, p, numbers, num_players, options and defines made "
                f"of them, not '{_unknown_name(unknown)}'")
        return
    for node in A.walk(cond):
        if isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id in _PATTERN_FIELDS \
                and node.name not in _PATTERN_FIELDS[node.obj.id]:
            fields = ", ".join(f"{node.obj.id}.{f}" for f in _PATTERN_FIELDS[node.obj.id])
            c.error(node.span, f"a starting pattern can read {fields}, not '{node.obj.id}.{node.name}'")


def _check_static_size(c: Checker, expr: Any, what: str) -> None:
    """A size written as an expression: a whole number known before the game starts."""
    _check_before_the_game(c, expr, what, "options",
                           "write a number, or an expression such as `option.size` or `num_players + 4`", T.INT, what,
                           c.static_defines())


def _players_text(players: tuple[int, ...]) -> str:
    if len(players) > 2 and players == tuple(range(players[0], players[-1] + 1)):
        return f"{players[0]} to {players[-1]}"
    return " or ".join(str(p) for p in players)


def check_variables(c: Checker) -> None:
    names: dict[str, Any] = {}
    for var in c.m.variables:
        if var.name in T.BUILTIN_NAMES or var.name in c.zones or var.name in T.FUNCTIONS:
            c.error(var.span, f"variable '{var.name}' hides a built-in or zone of the same name")
        if var.per == "player" and var.name in T.PLAYER_FIELDS:
            c.error(var.span, f"'{var.name}' is a built-in player field")
        if var.visibility == "owner" and var.per != "player":
            c.error(var.span, f"variable '{var.name}' is seen by its owner only, but it belongs to no player",
                    "add `per: player`")
        names[var.name] = var
        if var.initial is not None:
            scope = Scope({"p": T.PLAYER}) if var.per == "player" else Scope()
            got = c.expr(var.initial, scope)
            c.expect(var.initial, got, T.VARIABLE_TYPES[var.type], f"the initial value of '{var.name}'")


def check_tables(c: Checker) -> None:
    """Each table: keys all texts or all whole numbers, values of one type, a name of its own."""
    for table in c.m.tables:
        if table.name in T.BUILTIN_NAMES or table.name in T.FUNCTIONS or table.name in c.zones \
                or table.name in c.variables or table.name in c.defines:
            c.error(table.span, f"table '{table.name}' hides a built-in, zone, variable or define of the same name")
        keys = {T.INT if type(k) is int else T.STR for k, _ in table.entries}
        values = {_table_value_type(v) for _, v in table.entries}
        if len(keys) > 1:
            c.error(table.span, f"table '{table.name}' mixes whole-number and text keys", "quote the numbers: '10'")
        if values == {T.INT, T.NUM}:
            values = {T.NUM}
        if len(values) > 1:
            words = " and ".join(sorted(T.describe(v) for v in values))
            c.error(table.span, f"table '{table.name}' mixes {words} values")
        c.table_types[table.name] = (keys.pop() if len(keys) == 1 else T.ANY,
                                     values.pop() if len(values) == 1 else T.ANY)


def _table_value_type(value: Any) -> str:
    if type(value) is bool:
        return T.BOOL
    if type(value) is int:
        return T.INT
    if type(value) is float:
        return T.NUM
    return T.STR


def check_defines(c: Checker) -> None:
    for define in c.m.defines:
        if define.name in T.FUNCTIONS or define.name in T.BUILTIN_NAMES:
            c.error(define.span, f"define '{define.name}' hides a built-in of the same name")
        if define.body is not None and define.name not in c._defines_done:
            c._define_stack.append(define.name)
            c.expr(define.body, Scope({p: T.ANY for p in define.params}))
            c._define_stack.pop()


def check_rankings(c: Checker) -> None:
    for ranking in c.m.rankings:
        if ranking.order not in c.info.attr_types:
            c.error(ranking.span, f"ranking '{ranking.name}' orders by unknown card attribute '{ranking.order}'",
                    did_you_mean(ranking.order, c.info.attr_types))
        elif c.info.attr_types[ranking.order] != T.INT:
            c.error(ranking.span, f"ranking '{ranking.name}' must order by a whole-number attribute")
        for cat in ranking.categories:
            if cat.same is not None and cat.same not in c.info.attr_types:
                c.error(cat.span, f"unknown card attribute '{cat.same}'", did_you_mean(cat.same, c.info.attr_types))
            if cat.kind == "run" and cat.run > ranking.size:
                c.error(cat.span, f"a run of {cat.run} is longer than the hand size {ranking.size}")


def check_flow(c: Checker) -> None:
    m = c.m
    c.block(m.match.setup, Scope(), _Context("match"))
    c.block(m.round.setup, Scope(), _Context("setup"))
    for cond in m.round.end_when:
        c.expect(cond, c.expr(cond, Scope()), T.BOOL, "round.end_when")
    phase_names = {}
    for phase in m.round.phases:
        if phase.name in phase_names:
            c.error(phase.span, f"two phases are named '{phase.name}'")
        phase_names[phase.name] = phase
        if phase.first is not None:
            c.expect(phase.first, c.expr(phase.first, Scope()), T.PLAYER, "`first`")
        c.block(phase.turn, Scope(), _Context("turn"))
        for cond in phase.end_when:
            c.expect(cond, c.expr(cond, Scope()), T.BOOL, "the phase's end_when")
        if phase.skip_when is not None:
            c.expect(phase.skip_when, c.expr(phase.skip_when, Scope({"p": T.PLAYER})), T.BOOL, "`skip_when`")
        if not phase.turn.stmts and not c.parse_failed:
            c.error(phase.span, f"phase '{phase.name}' has an empty turn")
    for phase in m.round.phases:
        if phase.next is not None and phase.next not in phase_names:
            c.error(phase.next_span, f"unknown phase '{phase.next}'", did_you_mean(phase.next, phase_names))
    _check_reachable(c)
    c.block(m.round.scoring, Scope(), _Context("scoring"))
    for _, expr in m.round.report:
        c.expr(expr, Scope())
    for cond in m.match.end_when:
        c.expect(cond, c.expr(cond, Scope()), T.BOOL, "match.end_when")
    if m.match.winners is not None:
        c.expect(m.match.winners, c.expr(m.match.winners, Scope()), T.list_of(T.PLAYER), "match.winners")
    if m.match.returns is not None:
        scope = Scope({"p": T.PLAYER, "winners": T.list_of(T.PLAYER)})
        c.expect(m.match.returns.value, c.expr(m.match.returns.value, scope), (T.INT, T.NUM), "match.returns.value")
        static = Scope({"num_players": T.INT})
        for key in ("min", "max", "sum"):
            bound = getattr(m.match.returns, key)
            if bound is None:
                continue
            c.expect(bound, c.expr(bound, static), (T.INT, T.NUM), f"match.returns.{key}")
            unknown = c.not_static(bound)
            if unknown is not None:
                c.error(unknown.span, f"match.returns.{key} can only use numbers, num_players, options and defines "
                        "made of them")
    for _, expr in m.match.report:
        c.expr(expr, Scope({"winners": T.list_of(T.PLAYER)}))
    for inv in m.invariants:
        c.expect(inv.expr, c.expr(inv.expr, Scope()), T.BOOL, "an invariant")
    if m.heuristic is not None:
        c.expect(m.heuristic, c.expr(m.heuristic, Scope({"p": T.PLAYER})), (T.INT, T.NUM), "the heuristic")
    for proc in m.procedures:
        if proc.name not in c.info.proc_params:
            c.check_proc(proc, tuple(T.ANY for _ in proc.params))
    for action in m.actions:
        if action.action not in c.info.action_params:
            c.alternative(action, Scope())
    c.check_pending_procs()
    if not c.parse_failed:
        _check_ends(c)


def _check_reachable(c: Checker) -> None:
    phases = c.m.round.phases
    index = {p.name: i for i, p in enumerate(phases)}
    reached = set()
    todo = [0]
    while todo:
        i = todo.pop()
        if i in reached or i >= len(phases):
            continue
        reached.add(i)
        phase = phases[i]
        if phase.next is not None and phase.next in index:
            todo.append(index[phase.next])
        else:
            todo.append(i + 1)
    for i, phase in enumerate(phases):
        if i not in reached:
            c.error(phase.span, f"phase '{phase.name}' can never be reached",
                    "name it in another phase's `next:`, or remove it")


def _all_blocks(m: SpecModel) -> Iterable[Any]:
    yield m.match.setup
    yield m.round.setup
    yield m.round.scoring
    for phase in m.round.phases:
        yield phase.turn
    for proc in m.procedures:
        yield proc.body
    for action in m.actions:
        yield action.body


def _has_end(m: SpecModel, levels: set[str]) -> bool:
    for block in _all_blocks(m):
        for node in A.walk(block):
            if isinstance(node, A.End) and node.level in levels:
                return True
    return False


def _check_ends(c: Checker) -> None:
    m = c.m
    phase_can_end = any(p.end_when or p.skip_when is not None for p in m.round.phases) or _has_end(m, {"phase"})
    if not (m.round.end_when or phase_can_end or _has_end(m, {"round", "game"})):
        c.error(m.round.span, "this round can never end",
                "add round.end_when, a phase end_when, or an `end round` statement")
    if not (m.match.end_when or _has_end(m, {"game"})):
        c.error(m.match.span if m.match.span.file != "<spec>" else m.round.span,
                "this match can never end", "add match.end_when (checked after each round) or an `end game` statement")


def check_variants(c: Checker) -> None:
    for case in c.m.variants:
        if case.players is not None and case.players not in c.m.players:
            allowed = _players_text(c.m.players)
            c.error(case.span, f"variant '{case.name}' has {case.players} players; the game allows {allowed}")
        for name, value in case.options:
            opt = c.options.get(name)
            if opt is None:
                c.error(case.span, f"variant '{case.name}' sets unknown option '{name}'", did_you_mean(name, c.options))
            elif value != "auto":
                error = option_value_error(opt, value)
                if error:
                    c.error(case.span, f"variant '{case.name}', option '{name}': {error}")


def check_model(model: SpecModel, diags: Diagnostics, parse_failed: bool = False) -> CheckInfo:
    """Run every check; all problems are collected in ``diags``.

    After syntax errors (``parse_failed``) the checks that reason about the whole spec
    (can a round end?) are skipped: a rule that did not parse would make them wrong.
    """
    c = Checker(model, diags)
    c.parse_failed = parse_failed
    check_options(c)
    check_limits(c)
    check_requirements(c)
    check_cards(c)
    check_zones_board_pieces(c)
    check_tables(c)
    check_variables(c)
    check_rankings(c)
    check_flow(c)
    check_defines(c)
    c.check_pending_procs()
    check_variants(c)
    return c.info
