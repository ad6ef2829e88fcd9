"""The checker's walk of statements: blocks, procedures called with their argument types,
the alternatives of choices; what may wait for a decision or chance (``CHOICE``, ``CHANCE``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ast as A
from .. import types as T
from ..errors import did_you_mean
from ..model import ActionRef
from ..zones import kind_of
from .expressions import ExpressionChecker, unknown_name
from .info import CHANCE, CHOICE, PROC_DEFER_DEPTH, Context, Ref, Scope

__all__ = ["Checker"]


class Checker(ExpressionChecker):
    """Checks a spec's rules: expressions (``ExpressionChecker``) and statements."""

    # ------------------------------------------------------------------ statements
    def block(self, block: A.Block, scope: Scope, ctx: Context, inner: Scope | None = None) -> int:
        """Check a block (its own names in ``inner``, a new child scope unless given); returns
        CHOICE/CHANCE bits when it may wait for a decision or chance."""
        inner = scope.child() if inner is None else inner
        suspends = 0
        for stmt in block.stmts:
            suspends |= self.stmt(stmt, inner, ctx)
        self.info.suspends[id(block)] = suspends
        return suspends

    def stmt(self, node: Any, scope: Scope, ctx: Context) -> int:
        if self.too_deep(node):
            self.info.suspends[id(node)] = CHOICE | CHANCE
            return CHOICE | CHANCE
        method: Callable[[Any, Scope, Context], int] = getattr(self, "stmt_" + type(node).__name__)
        self._depth += 1
        try:
            suspends = int(method(node, scope, ctx) or 0)
        finally:
            self._depth -= 1
        self.info.suspends[id(node)] = suspends
        return suspends

    def zone_expr(self, node: Any, scope: Scope, what: str) -> None:
        self.expect(node, self.expr(node, scope), T.ZONE, what)

    def stmt_Move(self, node: A.Move, scope: Scope, ctx: Context) -> int:
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

    def stmt_Draw(self, node: A.Draw, scope: Scope, ctx: Context) -> int:
        if node.count is not None:
            self.expect(node.count, self.expr(node.count, scope), T.INT, "how many cards to draw")
        self.zone_expr(node.source, scope, "where cards are drawn from")
        self.zone_expr(node.dest, scope, "where drawn cards go")
        return CHANCE

    def stmt_Deal(self, node: A.Deal, scope: Scope, ctx: Context) -> int:
        self.expect(node.count, self.expr(node.count, scope), T.INT, "how many cards to deal")
        self.zone_expr(node.source, scope, "where cards are dealt from")
        zone = self.zones.get(node.family)
        if zone is None:
            self.error(node.family_span, f"unknown zone '{node.family}'", did_you_mean(node.family, self.zones))
        elif kind_of(zone).shared:
            self.error(node.family_span, f"`deal` goes to a zone that exists per player or per cell; "
                       f"'{node.family}' is shared", f"use `draw N from ... to {node.family}`")
        return CHANCE

    def stmt_Shuffle(self, node: A.Shuffle, scope: Scope, ctx: Context) -> int:
        self.zone_expr(node.zone, scope, "what `shuffle` shuffles")
        return 0

    def stmt_Flip(self, node: A.Flip, scope: Scope, ctx: Context) -> int:
        self.expect(node.what, self.expr(node.what, scope), (T.CARD, T.list_of(T.CARD), T.ZONE), "what `flip` turns")
        return 0

    def stmt_Assign(self, node: A.Assign, scope: Scope, ctx: Context) -> int:
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

    def stmt_Let(self, node: A.Let, scope: Scope, ctx: Context) -> int:
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

    def stmt_Emit(self, node: A.Emit, scope: Scope, ctx: Context) -> int:
        for _, value in node.fields:
            self.expr(value, scope)
        if node.to is not None:
            self.expect(node.to, self.expr(node.to, scope), (T.list_of(T.PLAYER), T.PLAYER), "who sees the event")
        if node.name in ("round_end", "match_end", "round_start", "turn_skipped"):
            self.error(node.span, f"'{node.name}' events are emitted by the engine", "pick another event name")
        return 0

    def stmt_End(self, node: A.End, scope: Scope, ctx: Context) -> int:
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

    def stmt_Skip(self, node: A.Skip, scope: Scope, ctx: Context) -> int:
        self.expect(node.player, self.expr(node.player, scope), T.PLAYER, "who skips a turn")
        return 0

    def stmt_Next(self, node: A.Next, scope: Scope, ctx: Context) -> int:
        self.expect(node.player, self.expr(node.player, scope), T.PLAYER, "who takes the next turn")
        return 0

    def stmt_Place(self, node: A.Place, scope: Scope, ctx: Context) -> int:
        if node.kind not in self.piece_kinds:
            self.error(node.span, f"unknown piece kind '{node.kind}'", did_you_mean(node.kind, self.piece_kinds))
        self.expect(node.owner, self.expr(node.owner, scope), T.PLAYER, "the owner of the placed piece")
        self.expect(node.cell, self.expr(node.cell, scope), T.CELL, "where the piece is placed")
        return 0

    def stmt_Remove(self, node: A.Remove, scope: Scope, ctx: Context) -> int:
        self.expect(node.piece, self.expr(node.piece, scope), T.PIECE, "what `remove` takes off the board")
        return 0

    def stmt_CallProc(self, node: A.CallProc, scope: Scope, ctx: Context) -> int:
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
                self.block(proc.body, Scope(dict(zip(proc.params, arg_types))), Context("procedure"))
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
            self.block(proc.body, Scope(dict(zip(proc.params, arg_types))), Context("procedure"))

    def stmt_Pass(self, node: A.Pass, scope: Scope, ctx: Context) -> int:
        return 0

    def stmt_If(self, node: A.If, scope: Scope, ctx: Context) -> int:
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

    def stmt_For(self, node: A.For, scope: Scope, ctx: Context) -> int:
        inner, _ = self.bindings(node.bindings, scope)
        return self.block(node.body, inner, ctx)

    def stmt_Repeat(self, node: A.Repeat, scope: Scope, ctx: Context) -> int:
        inner = scope.child()  # `until` sees the names the body binds with `let`
        suspends = self.block(node.body, scope, ctx, inner)
        self.expect(node.until, self.expr(node.until, inner), T.BOOL, "the condition of `until`")
        return suspends

    def stmt_While(self, node: A.While, scope: Scope, ctx: Context) -> int:
        self.expect(node.cond, self.expr(node.cond, scope), T.BOOL, "the condition of `while`")
        return self.block(node.body, scope, ctx)

    def stmt_Choose(self, node: A.Choose, scope: Scope, ctx: Context) -> int:
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
                           f"starts: '{unknown_name(unknown)}' is not",
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
        self.block(alt.body, inner, Context("action"))


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



def _literal_domain(node: Any) -> bool:
    if isinstance(node, A.ListLit):
        return all(isinstance(i, A.Const) for i in node.items)
    if isinstance(node, A.Call) and node.func == "range":
        return True
    return False
