"""Generated Python for the statements ``codegen_blocks`` leaves to this module: dealing,
shuffling, flipping, `next`, `repeat`, random `let`, and the assignments its fast forms do
not cover (a list's item, a piece's field, the dealer, values that may grow or nest).

Each function writes one statement for the statement writer ``b`` of a unit
(``codegen_blocks._Statements``), evaluating its parts in the order of the statement's closure
(``effects``), paying the same budget at the same moments and drawing from the state's
generator in the same order; what can fail is a run-time helper the closure calls too, so the
two engines share the words of their errors.
"""

from __future__ import annotations

from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import SMALL, spend
from .effects import binds_names, compile_block_closure, deal_targets, may_nest, splice_constant_ifs
from .expressions import compile_expr, list_difference, type_of
from .fold_link import UNKNOWN
from .statement_ops import (
    check_stored,
    deal_round,
    item_index,
    list_to_set,
    random_item,
    set_piece_field,
    uniform_draw,
    with_item,
)

__all__ = ["write_deal", "write_shuffle", "write_flip", "write_next", "write_repeat", "write_random_let",
           "write_assign", "write_if_binding"]

_FIELDS = {"score": "s.score", "total": "s.total"}


def _env(b: Any, copy: bool) -> str:
    """The env a closure of the unit gets (``_Writer.call``): with the locals bound in line added
    (a new dict), else ``e`` itself, or, with ``copy``, a copy of it."""
    w = b.w
    if w.scope:
        pairs = ", ".join(f"{w.name_of(k)}: {v}" for k, v in w.scope.items())
        return f"{{**e, {pairs}}}"
    return "_cp(e)" if copy else "e"


def write_deal(b: Any, stmt: A.Deal, indent: int) -> None:
    """As ``effects.s_Deal``: the source, the family's zones, then the count (``deal_round``)."""
    w, L = b.w, b.L
    src, zones = w.temp(), w.temp()
    fixed = None if stmt.face is None else (1 if stmt.face == "up" else 0)
    b.put(indent, f"{src} = {b.value(stmt.source)}")
    b.put(indent, f"{zones} = {w.name_of(deal_targets(stmt, L))}(s)")
    b.put(indent, f"{w.name_of(deal_round)}(s, {src}, {zones}, {b.value(stmt.count)}, {w.name_of(L.zone_face)}, "
                  f"{fixed!r}, {w.name_of(stmt.span)})")


def write_shuffle(b: Any, stmt: A.Shuffle, indent: int) -> None:
    """As ``effects.s_Shuffle``: a zone of two cards or more becomes unordered."""
    w = b.w
    z = w.temp()
    b.put(indent, f"{z} = {b.value(stmt.zone)}")
    b.put(indent, f"if len(s.zones[{z}]) > 1:")
    b.put(indent + 1, f"s.shuffled[{z}] = True")
    b.put(indent + 1, f"if {w.name_of(b.L.end_watch.zones)}[{z}]:")
    b.put(indent + 2, "s.dirty = True")


def write_flip(b: Any, stmt: A.Flip, indent: int) -> None:
    """As ``effects.s_Flip``: a card (none: nothing) or each card of a list or a zone."""
    w = b.w
    face = 1 if stmt.face == "up" else 0
    c = w.temp()
    t = type_of(stmt.what, b.L)
    if t == T.CARD:
        b.put(indent, f"{c} = {b.value(stmt.what)}")
        b.put(indent, f"if {c} is not None:")
        b.put(indent + 1, f"s.face[{c}] = {face!r}")
        return
    cards = f"s.zones[{b.value(stmt.what)}]" if t == T.ZONE else b.value(stmt.what)
    b.put(indent, f"for {c} in {cards}:")
    b.put(indent + 1, f"s.face[{c}] = {face!r}")


def write_next(b: Any, stmt: A.Next, indent: int) -> None:
    """As ``effects.s_Next``: the seat that plays next (none: an error)."""
    w = b.w
    p = w.temp()
    b.put(indent, f"{p} = {b.value(stmt.player)}")
    b.put(indent, f"if {p} is None:")
    b.put(indent + 1, f"_fail({w.name_of('`next` names no player (none)')}, {w.name_of(stmt.span)})")
    b.put(indent, f"s.next_seat = {p}")


def write_repeat(b: Any, stmt: A.Repeat, indent: int) -> None:
    """As ``effects.s_Repeat``: each pass pays a unit, runs the body (its block's function, in an
    env of its own when it binds names, which `until` then sees) and tests `until` (its unit);
    the bound reached is an error."""
    w, L = b.w, b.L
    limit = stmt.max or L.loop_limit
    span = w.name_of(stmt.span)
    scoped = binds_names(stmt.body)
    body = compile_block_closure(stmt.body, L, own_scope=not scoped)
    until = compile_expr(stmt.until, L)
    env = w.temp()
    b.put(indent, f"for {w.temp()} in range({limit!r}):")
    b.put(indent + 1, "s.ops -= 1")
    b.put(indent + 1, "if s.ops < 0:")
    b.put(indent + 2, f"_ov(s, {span})")
    b.put(indent + 1, f"{env} = {_env(b, scoped)}")
    b.put(indent + 1, f"{w.name_of(body)}(s, {env})")
    b.put(indent + 1, f"if {w.name_of(until)}(s, {env}):")
    b.put(indent + 2, "break")
    b.put(indent, "else:")
    message = w.name_of(f"`repeat` ran {limit} times without its `until` becoming true")
    b.put(indent + 1, f"_fail({message}, {span})")


def write_random_let(b: Any, stmt: A.Let, indent: int) -> None:
    """As ``effects._random_let``: `chance(p)` draws before its probability is computed;
    `random(xs)` draws only when there is an item."""
    w = b.w
    key = w.name_of(stmt.name)
    call = stmt.value
    if call.func == "chance":
        b.put(indent, f"e[{key}] = {w.name_of(uniform_draw)}(s) < {b.value(call.args[0])}")
        return
    items = b.value(call.args[0])
    if type_of(call.args[0], b.L) == T.ZONE:
        items = f"s.zones[{items}]"
    b.put(indent, f"e[{key}] = {w.name_of(random_item)}(s, {items})")


def write_if_binding(b: Any, stmt: A.If, indent: int) -> None:
    """An `if` one of whose branches binds names (a `let`): that branch runs as its block's
    function, which copies the env (``effects.s_If``); a branch that binds none is in line."""
    w, L = b.w, b.L
    compile_expr(stmt.cond, L)  # (its link errors, where the link raises them)
    known = L.codegen.folds.value(stmt.cond)
    if known is not UNKNOWN:  # (only the branch taken is compiled: the other may never run)
        chosen = stmt.then if known else stmt.orelse
        if splice_constant_ifs(chosen.stmts, L):
            b.put(indent, w.call(compile_block_closure(chosen, L)))
        else:
            b.put(indent, "pass")
        return
    b.put(indent, f"if {b.truth(stmt.cond)}:")
    for k, block in enumerate((stmt.then, stmt.orelse)):
        stmts = splice_constant_ifs(block.stmts, L)
        if k and not stmts:
            break
        if k:
            b.put(indent, "else:")
        if any(isinstance(x, A.Let) for x in stmts):
            b.put(indent + 1, w.call(compile_block_closure(block, L)))
        else:
            b.branch(stmts, indent + 1)


def write_assign(b: Any, stmt: A.Assign, indent: int) -> tuple[str, ...] | None:
    """As ``effects._assign``, for any target: the value computed as its closure computes it
    (a list paid for and copied, a nested one checked), the target's parts in the closure's
    order. The key of what it writes (the caller marks the state dirty when the end conditions
    read it), or None for a target it has no form for (a player's field other than score and
    total)."""
    w, L = b.w, b.L
    target = stmt.target
    kind = L.info.ref(target).kind
    t = type_of(stmt.value, L)
    list_typed = T.is_list(t) or t == T.ZONE
    grows = t not in (T.INT, T.BOOL)
    nested = may_nest(t)
    op = stmt.op
    sign = 1 if op == "+=" else -1
    span = w.name_of(stmt.span)

    def value() -> str:
        v = w.temp()
        code = b.value(stmt.value)
        b.put(indent, f"{v} = {f's.zones[{code}]' if t == T.ZONE else code}")
        if list_typed:
            b.put(indent, f"if len({v}) > {SMALL!r}:")
            b.put(indent + 1, f"{w.name_of(spend)}(s, len({v}), {span})")
            b.put(indent, f"{v} = list({v})")
        if nested:
            b.put(indent, f"{w.name_of(check_stored)}(s, {v}, _lim, {span})")
        return v

    def changed(old: str, v: str) -> str:
        """The new value of ``old`` (`+=`, `-=`), as the closure computes it."""
        if list_typed:
            if sign > 0:
                return f"_cg(s, {old} + {v}, _lim, {span})"
            return f"{w.name_of(list_difference)}(s, {old}, {v}, {span})"
        return f"_cg(s, {old} + {sign!r} * {v}, _lim, {span})"

    def store(column: str) -> None:
        if op == "=":
            b.put(indent, f"{column} = {value()}")
        elif list_typed or grows:
            v = value()
            b.put(indent, f"{column} = {changed(column, v)}")
        else:
            b.put(indent, f"{column} += {sign!r} * {value()}")

    if kind == "item":
        name = target.obj.id
        key: tuple[str, ...] = ("var", name)
        xs, i = w.temp(), w.temp()
        b.put(indent, f"{xs} = {w.name_of(list_to_set)}(s.g[{L.var_slots[name]!r}], {w.name_of(name)}, {span})")
        b.put(indent, f"{i} = {w.name_of(item_index)}({xs}, {b.value(target.index)}, {w.name_of(name)}, {span})")
        v = value()
        b.put(indent, f"s.g[{L.var_slots[name]!r}] = {w.name_of(with_item)}(s, {xs}, {i}, {v}, {w.name_of(op)}, "
                      f"{w.name_of(name)}, {grows!r}, {nested!r}, _lim, {span})")
    elif kind == "piece_set":
        key = ("pieces",)
        x = w.temp()
        b.put(indent, f"{x} = {b.value(target.obj)}")
        v = value()
        b.put(indent, f"{w.name_of(set_piece_field)}(s, {x}, {v}, {w.name_of(target.name)}, "
                      f"{w.name_of(L.piece_kinds)}, {L.num_players!r}, {span})")
    elif kind == "builtin":
        key = ("flow", target.id)
        v = value()
        b.put(indent, f"if {v} is None:")
        b.put(indent + 1, f"_fail({w.name_of('the dealer cannot be none')}, {span})")
        b.put(indent, f"s.dealer = {v}")
    elif kind == "var":
        key = ("var", target.id)
        store(f"s.g[{L.var_slots[target.id]!r}]")
    elif kind == "pvar" or (kind == "player_field" and target.name in _FIELDS):
        key = ("pvar", target.name) if kind == "pvar" else ("field", target.name)
        p, column = w.temp(), w.temp()
        what = "set" if op == "=" else "change"
        b.put(indent, f"{p} = {b.value(target.obj)}")
        b.put(indent, f"if {p} is None:")
        b.put(indent + 1, f"_fail({w.name_of(f'cannot {what} a variable of a missing player (none)')}, {span})")
        table = f"s.pv[{L.pvar_slots[target.name]!r}]" if kind == "pvar" else _FIELDS[target.name]
        b.put(indent, f"{column} = {table}")
        store(f"{column}[{p}]")
    else:
        return None
    return key
