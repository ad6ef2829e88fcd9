"""Expressions -> Python closures ``f(state, env)``, one small compiler per construct.

Run-time values: cards, players, cells and pieces are small integers (which one is
known statically from the checker's types), zones are zone indices, lists are lists.
Constant sub-expressions (options, num_players, literals) are folded at link time.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import SMALL, check_grown, overrun, spend
from .errors import BudgetError, RuleError
from .expression_ops import piece_starts, shuffled_order, table_entry

__all__ = ["compile_expr", "closure_of", "text_of_type", "compile_list", "ordered_list", "Fn", "const_value",
           "is_const", "json_converter", "same_value"]

Fn = Callable[[Any, dict], Any]
_NOCONST = object()


def _const(value: Any) -> Fn:
    def f(s: Any, e: dict) -> Any:
        return value

    f.const = value  # type: ignore[attr-defined]
    return f


def is_const(fn: Fn) -> bool:
    return getattr(fn, "const", _NOCONST) is not _NOCONST


def const_value(fn: Fn) -> Any:
    return getattr(fn, "const")  # noqa: B009 - set by _const on folded closures


def compile_expr(node: Any, L: Any) -> Fn:
    """Compile ``node`` in link context ``L`` (a Game under construction): generated code
    when the link generates code (``codegen``), else its closure."""
    gen = getattr(L, "codegen", None)
    if gen is None:
        return _COMPILERS[type(node).__name__](node, L)
    return gen.expr(node)


def closure_of(node: Any, L: Any) -> Fn:
    """``node``'s closure (the reference implementation of generated code)."""
    return _COMPILERS[type(node).__name__](node, L)


def type_of(node: Any, L: Any) -> str:
    return L.info.types.get(id(node), T.ANY)


def compile_list(node: Any, L: Any) -> Fn:
    """Compile an iterable expression to a closure returning a list (zones -> their cards)."""
    fn = compile_expr(node, L)
    if type_of(node, L) == T.ZONE:
        if is_const(fn):
            z = const_value(fn)

            def zone_cards(s: Any, e: dict) -> list:
                return s.zones[z]

            setattr(zone_cards, "zone", fn)  # noqa: B010 - count() can read the length directly
            return zone_cards

        def dyn_zone_cards(s: Any, e: dict) -> list:
            return s.zones[fn(s, e)]

        setattr(dyn_zone_cards, "zone", fn)  # noqa: B010 - count() can read the length directly
        return dyn_zone_cards
    return fn


# ------------------------------------------------------------------ leaves


def c_Const(node: A.Const, L: Any) -> Fn:
    return _const(node.value)


def c_Name(node: A.Name, L: Any) -> Fn:
    ref = L.info.ref(node)
    kind = ref.kind
    if kind == "local":
        name = node.id

        def local(s: Any, e: dict) -> Any:
            return e[name]

        setattr(local, "local", name)  # noqa: B010 - lets consumers read e[name] directly
        return local
    if kind == "var":
        slot = L.var_slots[node.id]

        def var(s: Any, e: dict) -> Any:
            return s.g[slot]

        return var
    if kind == "builtin":
        return _builtin_name(node.id, L)
    if kind == "zone":
        return _const(L.zone_base[node.id])
    if kind == "ranking":
        return _const(L.rankings[node.id])
    if kind == "define":
        return _define_call(node, node.id, (), L)
    raise RuleError(f"cannot resolve name '{node.id}'", node.span)


def _builtin_name(name: str, L: Any) -> Fn:
    if name == "players":
        return _const(list(range(L.num_players)))
    if name == "cards":
        return _const(list(range(L.cards.count)))
    if name == "cells":
        return _const(list(range(L.board.size)) if L.board else [])
    if name == "num_players":
        return _const(L.num_players)
    return _STATE_FIELDS[name]


_STATE_FIELDS: dict[str, Fn] = {
    "current": lambda s, e: s.current,
    "dealer": lambda s, e: s.dealer,
    "round": lambda s, e: s.round,
    "turn": lambda s, e: s.turn,
}


def c_Attr(node: A.Attr, L: Any) -> Fn:
    ref = L.info.ref(node)
    kind = ref.kind
    if kind == "option":
        return _const(L.options[node.name])
    obj = compile_expr(node.obj, L)
    if kind == "card_attr":
        return _lookup(obj, L.cards.attrs[node.name])
    if kind == "card_name":
        return _lookup(obj, L.cards.names)
    if kind == "pvar":
        slot = L.pvar_slots[node.name]

        def pvar(s: Any, e: dict) -> Any:
            p = obj(s, e)
            return None if p is None else s.pv[slot][p]

        return pvar
    if kind == "player_field":
        return _player_field(node.name, obj, L)
    if kind == "cell_field":
        table = {"row": [i // L.board.cols for i in range(L.board.size)],
                 "col": [i % L.board.cols for i in range(L.board.size)],
                 "name": list(L.board.names)}[node.name]
        return _lookup(obj, table)
    if kind == "piece_field":
        if node.name == "cell":
            def piece_cell(s: Any, e: dict) -> Any:
                x = obj(s, e)
                if x is None:
                    return None
                c = s.piece_cell[x]
                return None if c < 0 else c

            return piece_cell
        if node.name in ("owner", "kind"):  # the state's: a rule may change them
            field = node.name

            def piece_field(s: Any, e: dict) -> Any:
                x = obj(s, e)
                return None if x is None else (s.piece_owner if field == "owner" else s.piece_kind)[x]

            return piece_field
        return _lookup(obj, piece_starts(L))
    span = node.span
    name = node.name

    def unresolved(s: Any, e: dict) -> Any:
        raise RuleError(f"cannot tell what '.{name}' reads here: give the value a known type", span)

    return unresolved



def local_name(fn: Fn) -> str | None:
    """The local variable a closure just reads, if that is all it does."""
    return getattr(fn, "local", None)


def _lookup(obj: Fn, table: Any) -> Fn:
    if is_const(obj):
        v = const_value(obj)
        return _const(None if v is None else table[v])
    name = local_name(obj)
    if name is not None:
        def lookup_local(s: Any, e: dict) -> Any:
            x = e[name]
            return None if x is None else table[x]

        return lookup_local

    def lookup(s: Any, e: dict) -> Any:
        x = obj(s, e)
        return None if x is None else table[x]

    return lookup


def _player_field(name: str, obj: Fn, L: Any) -> Fn:
    if name == "seat":
        return obj
    if name == "name":
        return _lookup(obj, L.seat_names)
    getter = operator.attrgetter(name)

    def field(s: Any, e: dict) -> Any:
        p = obj(s, e)
        return None if p is None else getter(s)[p]

    return field


def c_Index(node: A.Index, L: Any) -> Fn:
    if L.info.ref(node).kind == "table":
        return _table_entry(node, L)
    obj = ordered_list(node.obj, L, "a card's position")
    index = compile_expr(node.index, L)
    span = node.span

    def item(s: Any, e: dict) -> Any:
        xs = obj(s, e)
        i = index(s, e)
        try:
            return xs[i]
        except IndexError:
            raise RuleError(f"index {i} is outside a list of {len(xs)} items", span) from None

    return item


def _table_entry(node: A.Index, L: Any) -> Fn:
    """``table[key]``: the entry of a named table; a key it does not have is a rule error."""
    name = L.info.ref(node).name
    entries = L.tables[name]
    key = compile_expr(node.index, L)
    span = node.span

    def entry(s: Any, e: dict) -> Any:
        return table_entry(entries, key(s, e), name, span)

    if is_const(key):
        k = const_value(key)
        if k in entries:
            return _const(entries[k])
    return entry



def ordered_list(node: Any, L: Any, what: str) -> Fn:
    """A list whose order matters: reading a shuffled zone's order is a rule error."""
    items = compile_list(node, L)
    if type_of(node, L) != T.ZONE:
        return items
    zone = compile_expr(node, L)
    span = node.span

    def zone_in_order(s: Any, e: dict) -> list:
        if s.shuffled[zone(s, e)]:
            raise RuleError(shuffled_order(what), span)
        return items(s, e)

    return zone_in_order


# ------------------------------------------------------------------ collections


def c_ListLit(node: A.ListLit, L: Any) -> Fn:
    items = [compile_expr(i, L) for i in node.items]
    if all(is_const(i) for i in items):
        values = [const_value(i) for i in items]

        def fresh_list(s: Any, e: dict) -> list:
            return list(values)

        return fresh_list

    def build(s: Any, e: dict) -> list:
        return [f(s, e) for f in items]

    return build


def _comp_parts(comp: A.Comp, L: Any) -> tuple[Fn, str, Fn | None, Fn]:
    return compile_list(comp.iter, L), comp.var, (compile_expr(comp.cond, L) if comp.cond else None), \
        compile_expr(comp.elt, L)


def _iterate(comp: A.Comp, L: Any, span: Any) -> Callable[[Any, dict], list]:
    """A closure returning [(item, element value)] for the comprehension (with several
    `for` clauses, item is the first clause's)."""
    if isinstance(comp.elt, A.Comp):
        return _iterate_clauses(comp, L, span)
    items, var, cond, elt = _comp_parts(comp, L)

    if cond is None:
        def pairs(s: Any, e: dict) -> list:
            e2 = dict(e)
            out = []
            for x in _paid_items(s, items(s, e), span):
                e2[var] = x
                out.append((x, elt(s, e2)))
            return out

        return pairs

    def filtered(s: Any, e: dict) -> list:
        e2 = dict(e)
        out = []
        for x in _paid_items(s, items(s, e), span):
            e2[var] = x
            if cond(s, e2):
                out.append((x, elt(s, e2)))
        return out

    return filtered


def _paid_items(s: Any, items: Any, span: Any) -> list:
    """The items a comprehension loops over, each paid for from the step's budget."""
    xs = list(items)
    s.ops -= len(xs)
    if s.ops < 0:
        overrun(s, span)
    return xs


def _iterate_clauses(comp: A.Comp, L: Any, span: Any) -> Callable[[Any, dict], list]:
    """``_iterate`` of a comprehension whose element is the next `for` clause."""
    items = compile_list(comp.iter, L)
    var = comp.var
    cond = compile_expr(comp.cond, L) if comp.cond else None
    inner = _iterate(comp.elt, L, span)

    def clauses(s: Any, e: dict) -> list:
        e2 = dict(e)
        out: list = []
        for x in _paid_items(s, items(s, e), span):
            e2[var] = x
            if cond is None or cond(s, e2):
                out.extend((x, v) for _, v in inner(s, e2))
        return out

    return clauses


def c_ListComp(node: A.ListComp, L: Any) -> Fn:
    pairs = _iterate(node.comp, L, node.span)

    def listcomp(s: Any, e: dict) -> list:
        return [v for _, v in pairs(s, e)]

    return listcomp


def c_Agg(node: A.Agg, L: Any) -> Fn:
    func = node.func
    if func == "count" and not isinstance(node.comp.elt, A.Comp):
        items, var, cond, _ = _comp_parts(node.comp, L)
        if cond is None:
            def count_all(s: Any, e: dict) -> int:
                return len(items(s, e))

            return count_all

        span = node.span

        def count(s: Any, e: dict) -> int:
            e2 = dict(e)
            n = 0
            xs = items(s, e)
            s.ops -= len(xs)
            if s.ops < 0:
                overrun(s, span)
            for x in xs:
                e2[var] = x
                if cond(s, e2):
                    n += 1
            return n

        return count
    pairs = _iterate(node.comp, L, node.span)
    if func == "count":
        return lambda s, e: len(pairs(s, e))
    if func == "sum":
        limits = L.limits
        span = node.span

        def total(s: Any, e: dict) -> Any:
            return check_grown(s, sum(v for _, v in pairs(s, e)), limits, span)

        return total
    if func in ("max", "min"):
        pick = max if func == "max" else min

        def extreme(s: Any, e: dict) -> Any:
            values = [v for _, v in pairs(s, e) if v is not None]
            return pick(values) if values else None

        return extreme
    if func == "any":
        return lambda s, e: any(v for _, v in pairs(s, e))
    if func == "all":
        return lambda s, e: all(v for _, v in pairs(s, e))
    if func in ("argmax", "argmin"):
        pick = max if func == "argmax" else min

        def arg(s: Any, e: dict) -> list:
            found = [(x, v) for x, v in pairs(s, e) if v is not None]
            if not found:
                return []
            best = pick(v for _, v in found)
            return [x for x, v in found if v == best]

        return arg
    if func == "distinct":
        span = node.span

        def distinct(s: Any, e: dict) -> list:
            found = pairs(s, e)
            if len(found) > SMALL:
                return distinct_values(s, [v for _, v in found], span)
            out: list = []
            for _, v in found:
                if v not in out:
                    out.append(v)
            return out

        return distinct
    raise RuleError(f"unknown aggregate '{func}'", node.span)


def distinct_values(s: Any, values: list, span: Any) -> list:
    """The values in first-seen order, each once (linear for hashable values)."""
    out: list = []
    if len(values) <= SMALL:
        for v in values:
            if v not in out:
                out.append(v)
        return out
    try:
        seen: set = set()
        for v in values:
            if v not in seen:
                seen.add(v)
                out.append(v)
        return out
    except TypeError:  # lists of lists: compare one by one, paying for it
        out = []
        for v in values:
            if len(out) > SMALL:
                spend(s, len(out), span)
            if v not in out:
                out.append(v)
        return out


# ------------------------------------------------------------------ operators

_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod}
_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge}


def c_BinOp(node: A.BinOp, L: Any) -> Fn:
    op = node.op
    if op in ("and", "or"):
        return _logic(op, compile_expr(node.left, L), compile_expr(node.right, L))
    if op in ("in", "notin"):
        return _membership(node, L)
    left = compile_expr(node.left, L)
    right = compile_expr(node.right, L)
    span = node.span
    if op == "-" and T.is_list(type_of(node.left, L)):
        return lambda s, e: list_difference(s, left(s, e), right(s, e), span)
    fn = _ARITH.get(op) or _CMP[op]
    if is_const(left) and is_const(right):
        try:
            value = fn(const_value(left), const_value(right))
            if _foldable(value, L):
                return _const(value)
        except (TypeError, ZeroDivisionError, ValueError, OverflowError):
            pass
    if op in _ARITH:
        return _arith(op, fn, left, right, type_of(node, L), L, span)
    if _sized(type_of(node.left, L)) and _sized(type_of(node.right, L)) and not (is_const(left) or is_const(right)):
        return _sized_comparison(fn, left, right, span)  # (a constant side bounds the work by its own size)
    return _comparison(op, fn, left, right, span)


def _sized(t: str) -> bool:
    """Values of this static type may be long (comparing them costs their length)."""
    return t in (T.STR, T.ANY, T.ZONE, T.DICT) or T.is_list(t)


def paid_comparison(s: Any, a: Any, b: Any, span: Any) -> bool:
    """``a`` and ``b`` are about to be compared: two long lists or texts walk each other, which
    costs the shorter one's length. (True: generated code tests it before it compares.)"""
    t = type(a)
    if (t is list or t is str or t is dict) and type(b) is t and len(a) > SMALL and len(b) > SMALL:
        spend(s, min(len(a), len(b)), span)
    return True


def _sized_comparison(fn: Callable[[Any, Any], Any], left: Fn, right: Fn, span: Any) -> Fn:
    """Comparing two values that may be long lists or texts (``paid_comparison``)."""
    def compare(s: Any, e: dict) -> Any:
        a = left(s, e)
        b = right(s, e)
        paid_comparison(s, a, b, span)
        return fn(a, b)

    return compare


def _foldable(value: Any, L: Any) -> bool:
    """A constant small enough to fold at link time (a too large one fails when it runs)."""
    if type(value) in (str, list):
        return len(value) <= SMALL
    try:
        check_grown(None, value, L.limits, None)
    except RuleError:
        return False
    return True


def _grows(op: str, t: str) -> bool:
    """Can ``op`` make a value of static type ``t`` that needs a size check?

    Whole numbers grow one bit per `+`/`-` (loops pay for that), but double with `*`;
    floats can overflow with any operator; text and lists grow with `+`."""
    if t == T.INT:
        return op == "*"
    return t != T.BOOL


def _operands_error(op: str, a: Any, b: Any, span: Any) -> RuleError:
    """The error of ``a op b`` on values the operator does not take, in the language's words."""
    if a is None or b is None:
        return RuleError(f"cannot compute '{op}' with a missing value (none)", span)
    return RuleError(f"cannot compute '{op}' of {_kind_word(a)} and {_kind_word(b)}", span)


def _kind_word(v: Any) -> str:
    kind = type(v)
    if kind is bool:
        return "true/false"
    return {int: "a whole number", float: "a number", str: "text", list: "a list", dict: "a record"}.get(
        kind, "a value")


def _arith(op: str, fn: Callable[[Any, Any], Any], left: Fn, right: Fn, t: str, L: Any, span: Any) -> Fn:
    if not _grows(op, t):
        def arith(s: Any, e: dict) -> Any:
            a = left(s, e)
            b = right(s, e)
            try:
                return fn(a, b)
            except ZeroDivisionError:
                raise RuleError("division by zero", span) from None
            except TypeError:
                raise _operands_error(op, a, b, span) from None

        return arith
    limits = L.limits

    def arith_checked(s: Any, e: dict) -> Any:
        return checked_arith(s, op, fn, left(s, e), right(s, e), limits, span)

    return arith_checked


def checked_arith(s: Any, op: str, fn: Callable[[Any, Any], Any], a: Any, b: Any, limits: Any, span: Any) -> Any:
    """``a op b`` whose result may grow (a text or a list repeated, a large number), checked;
    an operand the operator does not take is a rule error in the language's words. (Generated
    code calls it for a `*` of values whose type is known only in play.)"""
    if op == "*" and (type(a) in (str, list) or type(b) in (str, list)):
        _check_repeat(s, a, b, limits, span)
    try:
        return check_grown(s, fn(a, b), limits, span)
    except ZeroDivisionError:
        raise RuleError("division by zero", span) from None
    except TypeError:
        raise _operands_error(op, a, b, span) from None
    except OverflowError:
        raise RuleError(f"the result of '{op}' is too large for a number", span) from None


def _check_repeat(s: Any, a: Any, b: Any, limits: Any, span: Any) -> None:
    """`text * n` or `list * n` (values of unknown type): bounded before it is made."""
    seq, n = (a, b) if type(a) in (str, list) else (b, a)
    if type(n) is int and n > 0:
        limit = limits.max_text if type(seq) is str else limits.max_list
        if len(seq) * n > limit:
            raise BudgetError(f"a {'text' if type(seq) is str else 'list'} would grow past {limit:,} items", span)


def list_difference(s: Any, xs: list, drop: Any, span: Any) -> list:
    """``xs - drop``: the items of xs not in drop (linear when the items can be hashed)."""
    if len(xs) > SMALL or len(drop) > SMALL:
        spend(s, len(xs) + len(drop), span)
        try:
            drop = set(drop)
        except TypeError:
            spend(s, len(xs) * len(drop), span)
    return [x for x in xs if x not in drop]


def _comparison(op: str, fn: Callable[[Any, Any], Any], left: Fn, right: Fn, span: Any) -> Fn:
    """Comparisons, specialised for a constant or local operand (the common shapes).

    Ordering a missing value (none) raises TypeError, which the enclosing block turns
    into a RuleError naming the rule.
    """
    if is_const(right):
        c = const_value(right)
        name = local_name(left)
        if name is not None:
            return lambda s, e: fn(e[name], c)
        return lambda s, e: fn(left(s, e), c)
    if is_const(left):
        c = const_value(left)
        return lambda s, e: fn(c, right(s, e))
    return lambda s, e: fn(left(s, e), right(s, e))


def _logic(op: str, left: Fn, right: Fn) -> Fn:
    if is_const(left):
        value = const_value(left)
        if op == "and":
            return right if value else _const(False)
        return _const(True) if value else right
    if op == "and":
        return lambda s, e: bool(left(s, e)) and bool(right(s, e))
    return lambda s, e: bool(left(s, e)) or bool(right(s, e))


def _membership(node: A.BinOp, L: Any) -> Fn:
    left = compile_expr(node.left, L)
    right = compile_list(node.right, L) if type_of(node.right, L) != T.STR else compile_expr(node.right, L)
    span = node.span

    def contained(s: Any, e: dict) -> bool:
        xs = right(s, e)
        if len(xs) > SMALL:
            spend(s, len(xs), span)
        return left(s, e) in xs

    if node.op == "in":
        return contained
    return lambda s, e: not contained(s, e)


def c_Unary(node: A.Unary, L: Any) -> Fn:
    operand = compile_expr(node.operand, L)
    if node.op == "not":
        if is_const(operand):
            return _const(not const_value(operand))
        return lambda s, e: not operand(s, e)
    if is_const(operand) and type(const_value(operand)) in (int, float):
        return _const(-const_value(operand))  # (`-none` fails when it runs, as a rule)
    return lambda s, e: -operand(s, e)


def c_Cond(node: A.Cond, L: Any) -> Fn:
    test = compile_expr(node.test, L)
    body = compile_expr(node.body, L)
    orelse = compile_expr(node.orelse, L)
    if is_const(test):
        return body if const_value(test) else orelse
    return lambda s, e: body(s, e) if test(s, e) else orelse(s, e)


# ------------------------------------------------------------------ calls


def c_Call(node: A.Call, L: Any) -> Fn:
    ref = L.info.ref(node)
    if ref.kind == "family":
        return _family(node, L)
    if ref.kind == "define":
        return _define_call(node, node.func, node.args, L)
    return L.builtin(node)  # the link knows the built-in functions (they compile their arguments here)


def _family(node: A.Call, L: Any) -> Fn:
    base = L.zone_base[node.func]
    arg = compile_expr(node.args[0], L)
    span = node.span
    if is_const(arg):
        return _const(base + const_value(arg))
    name = local_name(arg)
    if name is not None:
        def zone_of_local(s: Any, e: dict) -> int:
            x = e[name]
            if x is None:
                raise RuleError(f"{node.func}(...) of a missing value (none)", span)
            return base + x

        setattr(zone_of_local, "local_zone", (base, name))  # noqa: B010 - for direct reads
        return zone_of_local
    if arg is _STATE_FIELDS["current"]:
        return lambda s, e: base + s.current

    def zone_of(s: Any, e: dict) -> int:
        x = arg(s, e)
        if x is None:
            raise RuleError(f"{node.func}(...) of a missing value (none)", span)
        return base + x

    return zone_of


def _define_call(node: Any, name: str, args: tuple[Any, ...], L: Any) -> Fn:
    define = L.defines[name]
    body = L.define_body(name)
    compiled = [compile_expr(a, L) for a in args]
    params = define.params
    if L.define_paid(name):
        body = _paid(body, node.span)
    if not params:
        return body
    if len(params) == 1:
        p0 = params[0]
        a0 = compiled[0]
        return lambda s, e: body(s, {p0: a0(s, e)})
    env = env_of_args(params, compiled)
    return lambda s, e: body(s, env(s, e))


def env_of_args(params: Any, args: list[Fn]) -> Callable[[Any, dict], dict]:
    """The env a call of a define or procedure gives its body: each parameter bound to its
    argument (a dict display for one or two, cheaper than a comprehension)."""
    if not params:
        return lambda s, e: {}
    if len(params) == 1:
        p0, a0 = params[0], args[0]
        return lambda s, e: {p0: a0(s, e)}
    if len(params) == 2:
        p0, p1, a0, a1 = params[0], params[1], args[0], args[1]
        return lambda s, e: {p0: a0(s, e), p1: a1(s, e)}
    pairs = tuple(zip(params, args))
    return lambda s, e: {p: a(s, e) for p, a in pairs}


def _paid(body: Fn, span: Any) -> Fn:
    """A define that calls other defines: each call costs one unit, so a chain of defines
    that each use the one before twice cannot run 2**n times for free."""
    def call(s: Any, e: dict) -> Any:
        s.ops -= 1
        if s.ops < 0:
            overrun(s, span)
        return body(s, e)

    return call


_COMPILERS: dict[str, Callable[[Any, Any], Fn]] = {
    "Const": c_Const, "Name": c_Name, "Attr": c_Attr, "Index": c_Index, "ListLit": c_ListLit,
    "ListComp": c_ListComp, "Agg": c_Agg, "BinOp": c_BinOp, "Unary": c_Unary, "Cond": c_Cond, "Call": c_Call,
}


def json_converter(t: str, L: Any) -> Callable[[Any, Any], Any]:
    """A function turning a run-time value of static type ``t`` into JSON (cards -> names)."""
    if t == T.CARD:
        names = L.cards.names
        return lambda s, v: None if v is None else names[v]
    if t == T.CELL:
        cells = L.board.names if L.board else ()
        return lambda s, v: None if v is None else cells[v]
    if t == T.ZONE:
        names = L.cards.names

        def zone_names(s: Any, v: Any) -> list:
            shown = [names[c] for c in s.zones[v]]
            return sorted(shown) if s.shuffled[v] else shown  # no order for a shuffled zone

        return zone_names
    if T.is_list(t):
        inner = json_converter(T.elem(t), L)
        if inner is same_value:  # (a list of numbers or players: a copy)
            return lambda s, v: None if v is None else list(v)
        return lambda s, v: None if v is None else [inner(s, x) for x in v]
    if t == T.RANKING:
        return lambda s, v: v.spec.name
    return same_value


def same_value(s: Any, v: Any) -> Any:
    """The JSON of a value that is its own JSON (a number, a truth value, a name, a player)."""
    return v


def text_of_type(t: str, link: Any) -> Callable[[Any, Any], str]:
    """How a value of static type ``t`` reads in a label: ``f(state, value) -> str``."""
    if t == T.PLAYER:
        names = link.seat_names
        return lambda s, v: "none" if v is None else names[v]
    if t == T.list_of(T.PLAYER):
        names = link.seat_names
        return lambda s, v: ", ".join(names[p] for p in v)
    if t == T.PIECE:
        labels = link.piece_label
        return lambda s, v: "none" if v is None else labels[v]
    convert = json_converter(t, link)

    def text(s: Any, v: Any) -> str:
        out = convert(s, v)
        if isinstance(out, list):
            return ", ".join(str(x) for x in out)
        return "none" if out is None else str(out)

    return text
