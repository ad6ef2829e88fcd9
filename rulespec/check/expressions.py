"""The checker's walk of expressions: every name resolved, every node's type recorded
(``CheckInfo``), defines expanded with their argument types; what is known before a game starts."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from .. import ast as A
from .. import types as T
from ..errors import Diagnostics, SourceSpan, did_you_mean
from ..model import SpecModel
from ..static import Defines, static_defines
from ..zones import kind_of
from .info import MAX_DEFINE_DEPTH, MAX_DEFINE_EXPANSIONS, MAX_NESTING, CheckInfo, Ref, Scope

__all__ = ["ExpressionChecker", "STATIC_NAMES", "STATIC_CALLS", "first_not_static", "unknown_name"]


class ExpressionChecker:
    """The checker's state, and its walk of expressions (``Checker`` adds the statements)."""

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
                if d.body is None or first_not_static(d.body, names, frozenset(d.params)) is not None:
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
            return next((u for u in (first_not_static(a, self.static_defines()) for a in parts) if u is not None), None)
        return first_not_static(node, self.static_defines())

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

    def unused_define(self, define: Any) -> None:
        """A define no rule expanded: its body checked once, its parameters of any type."""
        if define.body is not None and define.name not in self._defines_done:
            self._define_stack.append(define.name)
            self.expr(define.body, Scope({p: T.ANY for p in define.params}))
            self._define_stack.pop()

    def _note_height(self, height: int) -> None:
        if self._define_heights and self._define_heights[-1] < height:
            self._define_heights[-1] = height

    def _too_many_defines(self, node: Any) -> None:
        self.error(node.span, f"defines used inside each other more than {MAX_DEFINE_DEPTH} deep",
                   "write the expression with fewer levels of defines")
        self._note_height(MAX_DEFINE_DEPTH)


STATIC_NAMES = frozenset({"num_players", "option"})
STATIC_CALLS = frozenset({"max", "min", "abs", "int"})  # as rulespec.static computes them


def first_not_static(node: Any, defines: frozenset[str] = frozenset(), params: frozenset[str] = frozenset()) -> Any:
    """The first name (or call) in ``node`` that is not known before a game starts, or None:
    numbers, num_players, options and the ``defines`` made only of those are known."""
    for sub in A.walk(node):
        if isinstance(sub, A.Name) and sub.id not in STATIC_NAMES and sub.id not in defines \
                and sub.id not in params:
            return sub
        if isinstance(sub, A.Call) and sub.func not in STATIC_CALLS and sub.func not in defines:
            return sub
    return None


def unknown_name(node: Any) -> str:
    return node.id if isinstance(node, A.Name) else f"{node.func}(...)"

