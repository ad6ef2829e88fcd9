"""Statements that run to completion -> closures ``f(state, env)``, one compiler per construct.

Statements that may wait for a player (or, with explicit chance, for a chance event)
are compiled by ``flow`` into frames instead; everything else lands here, including
whole ``if``/``for``/``repeat`` blocks that cannot wait, fused into single closures.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from rulespec import ast as A
from rulespec import types as T

from . import rng as RNG
from . import zones
from .budget import SMALL, check_grown, log_event, overrun, spend, value_units
from .errors import BudgetError, RuleError
from .expressions import (
    Fn,
    compile_expr,
    compile_list,
    const_value,
    env_of_args,
    is_const,
    json_converter,
    list_difference,
    local_name,
    type_of,
)
from .fold_link import UNKNOWN
from .state import deal_cards, move_card, move_cards, move_piece, move_zone, take_card
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

__all__ = ["EndSignal", "compile_simple", "compile_block_closure", "Stmt", "TOP", "BOTTOM", "RANDOM", "EventSize",
           "event_size", "check_stored", "piece_pools", "place_failure"]

Stmt = Callable[[Any, dict], None]
TOP, BOTTOM, RANDOM = 0, 1, 2


class EndSignal(Exception):
    """Raised by `end turn|phase|round|game` (``EndSignal(level)``); the flow unwinds to the
    matching level. (No ``__init__`` of its own: a short game ends often.)"""

    @property
    def level(self) -> str:
        level: str = self.args[0]
        return level


def compile_simple(node: Any, L: Any) -> Stmt:
    return _STATEMENTS[type(node).__name__](node, L)


PYTHON_ERRORS = (TypeError, IndexError, KeyError, AttributeError, ValueError, ZeroDivisionError, OverflowError,
                 RecursionError)


def rule_failure(exc: Exception, span: Any) -> RuleError:
    """A Python error inside a rule, reported at the rule's position in the rule language's words."""
    if isinstance(exc, RecursionError):
        return BudgetError("the rules nest too deeply here (procedures or defines calling each other)", span)
    return RuleError(f"this rule failed: {python_error_text(exc)}", span)


# the words of the rule language for Python's type names, in Python's own error texts
_TYPE_WORDS = {"NoneType": "none (a missing value)", "int": "a whole number", "float": "a number", "str": "text",
               "list": "a list", "bool": "true/false", "dict": "a record", "tuple": "a list"}
_COMPARE = re.compile(r"'(.+?)' not supported between instances of '(\w+)' and '(\w+)'")
_OPERATOR = re.compile(r"unsupported operand type\(s\) for (.+?): '(\w+)' and '(\w+)'")
_UNARY = re.compile(r"bad operand type for (?:unary )?(.+?)(?:\(\))?: '(\w+)'")
_INDEX = re.compile(r"(?:list|tuple) indices must be integers or slices, not (\w+)")
_NOT_A = re.compile(r"'(\w+)' object is not (subscriptable|iterable)")


def python_error_text(exc: Exception) -> str:
    """What a Python error inside a rule means, said with the rule language's words (a
    missing value, a whole number, a list) rather than Python's type names."""
    text = str(exc)
    words = _TYPE_WORDS.get
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if match := _COMPARE.fullmatch(text):
        op, a, b = match.groups()
        return f"cannot compare {words(a, a)} with {words(b, b)} using '{op}'"
    if match := _OPERATOR.fullmatch(text):
        op, a, b = match.groups()
        op = {"** or pow()": "**"}.get(op, op)
        return f"cannot compute '{op}' of {words(a, a)} and {words(b, b)}"
    if match := _UNARY.fullmatch(text):
        op, a = match.groups()
        return f"cannot apply '{op}' to {words(a, a)}"
    if match := _INDEX.fullmatch(text):
        return f"{words(match.group(1), match.group(1))} used as a position (a seat, a cell, a card or an index)"
    if match := _NOT_A.fullmatch(text):
        kind = match.group(1)
        return f"{words(kind, kind)} used where a list is needed"
    if isinstance(exc, IndexError):
        return "a position outside its list (a seat, a cell or an index out of range)"
    return text


def binds_names(block: A.Block) -> bool:
    """Whether a block binds names of its own (a `let` among its statements)."""
    return any(isinstance(stmt, A.Let) for stmt in block.stmts)


def compile_block_closure(block: A.Block, L: Any, own_scope: bool = True) -> Stmt:
    """A whole block as one closure (the block must not wait for anything).

    Python errors of its statements become RuleErrors naming the statement (a block
    of one statement leaves that to the enclosing block). The names it binds with `let`
    go to a copy of the env, unless ``own_scope`` is false (the caller passes a copy it
    reads afterwards: a `repeat` whose `until` sees them).
    """
    generated = L.codegen.block(block, own_scope)
    if generated is not None:
        return generated
    stmts = splice_constant_ifs(block.stmts, L)
    fns = tuple(compile_simple(stmt, L) for stmt in stmts)
    spans = tuple(stmt.span for stmt in stmts)
    scoped = own_scope and any(isinstance(stmt, A.Let) for stmt in stmts)
    check = L.end_check
    if not fns:
        return _noop
    if len(fns) == 1 and not scoped and check is None:
        return fns[0]
    if check is None:
        def run(s: Any, e: dict) -> None:
            if scoped:
                e = dict(e)
            k = 0
            try:
                for f in fns:
                    f(s, e)
                    k += 1
            except PYTHON_ERRORS as exc:
                raise rule_failure(exc, spans[k]) from None

        return run

    def run_checked(s: Any, e: dict) -> None:
        if scoped:
            e = dict(e)
        k = 0
        try:
            for f in fns:
                f(s, e)
                k += 1
                if s.dirty and s.in_play:
                    s.dirty = False
                    if check(s):
                        raise EndSignal("round")
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, spans[k]) from None

    return run_checked


def splice_constant_ifs(stmts: tuple[Any, ...], L: Any) -> list[Any]:
    """Statements with every `if` whose condition is known at link time replaced by its branch."""
    out: list[Any] = []
    for stmt in stmts:
        if isinstance(stmt, A.If):
            compile_expr(stmt.cond, L)  # (its link errors, where the link raises them)
            known = L.codegen.folds.value(stmt.cond)
            if known is not UNKNOWN:
                out.extend(splice_constant_ifs((stmt.then if known else stmt.orelse).stmts, L))
                continue
        out.append(stmt)
    return out


def _noop(s: Any, e: dict) -> None:
    return None


def _face_of(node: Any, L: Any, dest: Fn) -> Callable[[Any, dict, int], int]:
    if node.face is not None:
        value = 1 if node.face == "up" else 0
        return lambda s, e, z: value
    faces = L.zone_face
    return lambda s, e, z: faces[z]


# ------------------------------------------------------------------ cards


def s_Move(node: A.Move, L: Any) -> Stmt:
    dest = compile_expr(node.dest, L)
    what_type = type_of(node.what, L)
    if node.selector == "one" and what_type == T.PIECE:
        move = _move_piece(node, L, dest)
        return _marking(move) if ("pieces",) in L.end_watch else move
    face = _face_of(node, L, dest)
    bottom = node.bottom
    if node.selector in ("top", "bottom", "random"):
        mode = {"top": TOP, "bottom": BOTTOM, "random": RANDOM}[node.selector]
        if node.selector == "random" and what_type != T.ZONE:
            cards = compile_list(node.what, L)

            def move_random_of(s: Any, e: dict) -> None:
                pool = cards(s, e)
                if pool:
                    s.rng, i = RNG.below(s.rng, len(pool))
                    z = dest(s, e)
                    move_card(s, pool[i], z, face(s, e, z), bottom)

            return move_random_of
        zone = compile_expr(node.what, L)

        def move_one_from(s: Any, e: dict) -> None:
            c = take_card(s, zone(s, e), mode)
            if c is not None:
                z = dest(s, e)
                move_card(s, c, z, face(s, e, z), bottom)

        return move_one_from
    if node.selector == "all" or T.is_list(what_type) or what_type == T.ZONE:
        span = node.span
        if what_type == T.ZONE:
            source = compile_expr(node.what, L)

            def move_zone_all(s: Any, e: dict) -> None:
                z = dest(s, e)
                f = face(s, e, z)
                src = source(s, e)
                if len(s.zones[src]) > SMALL:
                    spend(s, len(s.zones[src]), span)
                move_zone(s, src, z, f, bottom)

            return move_zone_all
        cards = compile_list(node.what, L)

        def move_all(s: Any, e: dict) -> None:
            z = dest(s, e)
            f = face(s, e, z)
            moved = list(cards(s, e))
            if len(moved) > SMALL:
                spend(s, len(moved), span)
            move_cards(s, moved, z, f, bottom)

        return move_all
    card = compile_expr(node.what, L)

    def move_one(s: Any, e: dict) -> None:
        c = card(s, e)
        if c is not None:
            z = dest(s, e)
            move_card(s, c, z, face(s, e, z), bottom)

    return move_one


def _move_piece(node: A.Move, L: Any, dest: Fn) -> Stmt:
    piece = compile_expr(node.what, L)
    span = node.span
    x_name, c_name = local_name(piece), local_name(dest)
    if x_name is not None and c_name is not None:
        def move_locals(s: Any, e: dict) -> None:
            x = e[x_name]
            c = e[c_name]
            if x is None or c is None:
                raise RuleError("cannot move: the piece or the cell is missing (none)", span)
            move_piece(s, x, c, span)

        return move_locals

    def move(s: Any, e: dict) -> None:
        x = piece(s, e)
        c = dest(s, e)
        if x is None or c is None:
            raise RuleError("cannot move: the piece or the cell is missing (none)", span)
        move_piece(s, x, c, span)

    return move


def s_Draw(node: A.Draw, L: Any) -> Stmt:
    count = compile_expr(node.count, L) if node.count is not None else None
    source = compile_expr(node.source, L)
    dest = compile_expr(node.dest, L)
    face = _face_of(node, L, dest)
    span = node.span

    def draw(s: Any, e: dict) -> None:
        n = 1 if count is None else count(s, e)
        if n > SMALL:
            spend(s, n, span)
        src = source(s, e)
        z = dest(s, e)
        deal_cards(s, src, [z], [face(s, e, z)], n)

    return draw


def deal_targets(node: A.Deal, L: Any) -> Callable[[Any], list[int]]:
    return zones.deal_targets(L.zone_defs[node.family], L.zone_base[node.family], L)


def s_Deal(node: A.Deal, L: Any) -> Stmt:
    count = compile_expr(node.count, L)
    source = compile_expr(node.source, L)
    targets = deal_targets(node, L)
    fixed = None if node.face is None else (1 if node.face == "up" else 0)
    faces = L.zone_face

    span = node.span

    def deal(s: Any, e: dict) -> None:
        src = source(s, e)
        zones = targets(s)
        deal_round(s, src, zones, count(s, e), faces, fixed, span)

    return deal



def s_Shuffle(node: A.Shuffle, L: Any) -> Stmt:
    zone = compile_expr(node.zone, L)
    watched = L.end_watch.zones

    def shuffle(s: Any, e: dict) -> None:
        z = zone(s, e)
        if len(s.zones[z]) > 1:
            s.shuffled[z] = True
            if watched[z]:
                s.dirty = True

    return shuffle


def s_Flip(node: A.Flip, L: Any) -> Stmt:
    value = 1 if node.face == "up" else 0
    t = type_of(node.what, L)
    if t == T.CARD:
        card = compile_expr(node.what, L)

        def flip_one(s: Any, e: dict) -> None:
            c = card(s, e)
            if c is not None:
                s.face[c] = value

        return flip_one
    cards = compile_list(node.what, L)

    def flip_all(s: Any, e: dict) -> None:
        for c in cards(s, e):
            s.face[c] = value

    return flip_all


# ------------------------------------------------------------------ variables


def s_Assign(node: A.Assign, L: Any) -> Stmt:
    """An assignment; one that changes what the round's end conditions read marks the state dirty."""
    assign = _assign(node, L)
    target = node.target
    kind = L.info.ref(target).kind
    if kind == "item":
        key: tuple[str, ...] = ("var", target.obj.id)
    elif kind == "var":
        key = ("var", target.id)
    elif kind == "builtin":
        key = ("flow", target.id)
    elif kind == "pvar":
        key = ("pvar", target.name)
    elif kind == "piece_set":
        key = ("pieces",)
    else:
        key = ("field", target.name)
    return _marking(assign) if key in L.end_watch else assign


def _marking(fn: Stmt) -> Stmt:
    """``fn``, then the state is dirty: the round's end conditions read what it changes."""
    def marked(s: Any, e: dict) -> None:
        fn(s, e)
        s.dirty = True

    return marked


def _assign(node: A.Assign, L: Any) -> Stmt:
    value = compile_expr(node.value, L)
    target = node.target
    ref = L.info.ref(target)
    list_typed = T.is_list(type_of(node.value, L)) or type_of(node.value, L) == T.ZONE
    if type_of(node.value, L) == T.ZONE:
        value = compile_list(node.value, L)
    op = node.op
    span = node.span
    if list_typed:
        inner = value

        def value(s: Any, e: dict) -> Any:
            xs = inner(s, e)
            if len(xs) > SMALL:
                spend(s, len(xs), span)
            return list(xs)

    limits = L.limits
    if may_nest(type_of(node.value, L)):
        unchecked = value

        def value(s: Any, e: dict) -> Any:
            v = unchecked(s, e)
            check_stored(s, v, limits, span)
            return v
    grows = type_of(node.value, L) not in (T.INT, T.BOOL)
    if ref.kind == "item":
        return _assign_item(node, L, value, grows)
    if ref.kind == "piece_set":
        return _set_piece(node, L, value)
    if ref.kind in ("var", "builtin"):
        if ref.kind == "builtin":
            def set_dealer(s: Any, e: dict) -> None:
                v = value(s, e)
                if v is None:
                    raise RuleError("the dealer cannot be none", span)
                s.dealer = v

            return set_dealer
        slot = L.var_slots[target.id]
        if op == "=":
            def set_var(s: Any, e: dict) -> None:
                s.g[slot] = value(s, e)

            return set_var
        sign = 1 if op == "+=" else -1
        if list_typed:
            def extend_var(s: Any, e: dict) -> None:
                if sign > 0:
                    s.g[slot] = check_grown(s, s.g[slot] + value(s, e), limits, span)
                else:
                    s.g[slot] = list_difference(s, s.g[slot], value(s, e), span)

            return extend_var
        if grows:
            def add_var_checked(s: Any, e: dict) -> None:
                s.g[slot] = check_grown(s, s.g[slot] + sign * value(s, e), limits, span)

            return add_var_checked

        def add_var(s: Any, e: dict) -> None:
            s.g[slot] += sign * value(s, e)

        return add_var
    owner = compile_expr(target.obj, L)
    if ref.kind == "pvar":
        slot = L.pvar_slots[target.name]

        def column(s: Any) -> list:
            return s.pv[slot]
    else:
        name = target.name

        def column(s: Any) -> list:
            return getattr(s, name)

    if op == "=":
        def set_field(s: Any, e: dict) -> None:
            p = owner(s, e)
            if p is None:
                raise RuleError("cannot set a variable of a missing player (none)", span)
            column(s)[p] = value(s, e)

        return set_field
    sign = 1 if op == "+=" else -1

    def add_field(s: Any, e: dict) -> None:
        p = owner(s, e)
        if p is None:
            raise RuleError("cannot change a variable of a missing player (none)", span)
        col = column(s)
        if list_typed:
            col[p] = check_grown(s, col[p] + value(s, e), limits, span) if sign > 0 \
                else list_difference(s, col[p], value(s, e), span)
        elif grows:
            col[p] = check_grown(s, col[p] + sign * value(s, e), limits, span)
        else:
            col[p] += sign * value(s, e)

    return add_field


def _set_piece(node: A.Assign, L: Any, value: Fn) -> Stmt:
    """``x.owner = p`` (a piece changes sides: a flip) or ``x.kind = 'king'`` (a piece that changes kind);
    the piece keeps its cell and its number."""
    piece = compile_expr(node.target.obj, L)
    span = node.span
    field = node.target.name
    kinds = L.piece_kinds
    n = L.num_players

    def set_piece(s: Any, e: dict) -> None:
        x = piece(s, e)
        set_piece_field(s, x, value(s, e), field, kinds, n, span)

    return set_piece



def _assign_item(node: A.Assign, L: Any, value: Fn, grows: bool) -> Stmt:
    """``xs[i] = v`` (``+=``, ``-=``) on a list variable: the variable gets a new list (a value
    never shares its list with another), so the work is the list's length."""
    name = node.target.obj.id
    slot = L.var_slots[name]
    index = compile_expr(node.target.index, L)
    op = node.op
    limits = L.limits
    span = node.span
    nested = may_nest(type_of(node.value, L))

    def set_item(s: Any, e: dict) -> None:
        xs = list_to_set(s.g[slot], name, span)
        i = item_index(xs, index(s, e), name, span)
        s.g[slot] = with_item(s, xs, i, value(s, e), op, name, grows, nested, limits, span)

    return set_item



def s_Let(node: A.Let, L: Any) -> Stmt:
    name = node.name
    if id(node) in L.info.random_lets:
        return _random_let(node, L)
    t = type_of(node.value, L)
    if t == T.ZONE:
        cards = compile_list(node.value, L)

        def let_cards(s: Any, e: dict) -> None:
            e[name] = list(cards(s, e))

        return let_cards
    value = compile_expr(node.value, L)

    def let(s: Any, e: dict) -> None:
        e[name] = value(s, e)

    return let


def _random_let(node: A.Let, L: Any) -> Stmt:
    name = node.name
    call = node.value
    if call.func == "chance":
        prob = compile_expr(call.args[0], L)

        def coin(s: Any, e: dict) -> None:
            e[name] = uniform_draw(s) < prob(s, e)

        return coin
    pool = compile_list(call.args[0], L)

    def pick(s: Any, e: dict) -> None:
        e[name] = random_item(s, pool(s, e))

    return pick



class EventSize(NamedTuple):
    """How an `emit` statement's event is measured against the log's budget (known statically)."""

    nested: bool  # a field may hold lists inside lists: the event is checked as a stored value
    sized: list[tuple[str, Callable[[Any], int]]]  # fields measured as they are made, and how
    fixed: int  # units of everything else (the type, the small fields)


def event_size(node: A.Emit, L: Any) -> EventSize:
    fixed = 2
    sized = []
    for k, v in node.fields:
        t = type_of(v, L)
        measure = 1 if t in _SMALL_TYPES else _units_of(t, L)
        if isinstance(measure, int):
            fixed += measure
        else:
            sized.append((k, measure))
    return EventSize(any(may_nest(type_of(v, L)) for _, v in node.fields), sized, fixed)


def s_Emit(node: A.Emit, L: Any) -> Stmt:
    fields = [(k, compile_expr(v, L), json_converter(type_of(v, L), L)) for k, v in node.fields]
    kind = node.name
    to = None
    if node.to is not None:
        to_fn = compile_expr(node.to, L)
        to = (lambda s, e: [to_fn(s, e)]) if type_of(node.to, L) == T.PLAYER else to_fn

    limits = L.limits
    span = node.span
    nested, sized, fixed = event_size(node, L)

    def emit(s: Any, e: dict) -> None:
        event: dict[str, Any] = {"type": kind}
        for k, f, conv in fields:
            event[k] = conv(s, f(s, e))
        units = fixed
        if to is not None:
            event["to"] = sorted(set(to(s, e)))
            units += len(event["to"])
        s.ops -= 1
        if s.ops < 0:
            overrun(s, span)
        if nested:
            check_stored(s, event, limits, span)
        for k, measure in sized:
            units += measure(event[k])
        log_event(s, event, span, units)

    return emit


_SMALL_TYPES = (T.INT, T.NUM, T.BOOL, T.CELL, T.NONE)  # one unit in an event (names are measured)


def _units_of(t: str, L: Any) -> int | Callable[[Any], int]:
    """How to measure an event field of static type ``t`` in the log's units: a name in
    constant units (its longest text is known), a flat list of them in constant time, the
    rest by walking."""
    if t in (T.CARD, T.PLAYER, T.PIECE) or (T.is_list(t) and T.elem(t) in (T.CARD, T.PLAYER, T.PIECE, T.INT, T.NUM,
                                                                             T.BOOL, T.CELL)):
        names = {T.CARD: L.cards.names, T.PLAYER: L.seat_names, T.PIECE: L.piece_label}
        longest = max((len(n) for n in names.get(T.elem(t) if T.is_list(t) else t, ())), default=0)
        each = 1 + (longest >> 4)
        if T.is_list(t):
            return lambda v: 1 + each * len(v) if type(v) is list else value_units(v)
        return each
    return value_units


def may_nest(t: str) -> bool:
    """Values of this static type may hold lists inside lists (shared, so small in memory
    but huge once written out)."""
    return t == T.ANY or (T.is_list(t) and may_nest(T.elem(t)))



def s_End(node: A.End, L: Any) -> Stmt:
    level = node.level

    def end(s: Any, e: dict) -> None:
        raise EndSignal(level)

    return end


def s_Skip(node: A.Skip, L: Any) -> Stmt:
    player = compile_expr(node.player, L)

    def skip(s: Any, e: dict) -> None:
        p = player(s, e)
        if p is not None:
            s.skips[p] += 1

    return skip


def s_Next(node: A.Next, L: Any) -> Stmt:
    player = compile_expr(node.player, L)
    span = node.span

    def next_turn(s: Any, e: dict) -> None:
        p = player(s, e)
        if p is None:
            raise RuleError("`next` names no player (none)", span)
        s.next_seat = p

    return next_turn


# ------------------------------------------------------------------ pieces


def s_Place(node: A.Place, L: Any) -> Stmt:
    place = _place(node, L)
    return _marking(place) if ("pieces",) in L.end_watch else place


def s_Remove(node: A.Remove, L: Any) -> Stmt:
    remove = _remove(node, L)
    return _marking(remove) if ("pieces",) in L.end_watch else remove


def piece_pools(L: Any, kind: str) -> list[list[int]]:
    """Each player's pieces of ``kind``, in order (for rules that never change owners or kinds)."""
    every = range(len(L.piece_owner))
    return [[x for x in every if L.piece_owner[x] == p and L.piece_kind_name[x] == kind]
            for p in range(L.num_players)]


def _place(node: A.Place, L: Any) -> Stmt:
    owner = compile_expr(node.owner, L)
    cell = compile_expr(node.cell, L)
    every = range(len(L.piece_owner))
    if not L.piece_fields_set:
        pools = piece_pools(L, node.kind)
    span = node.span
    kind = node.kind

    def place(s: Any, e: dict) -> None:
        p = owner(s, e)
        c = cell(s, e)
        if p is None or c is None:
            raise place_failure(p, c, kind, span)
        owners, kinds, cells = s.piece_owner, s.piece_kind, s.piece_cell
        for x in every if L.piece_fields_set else pools[p]:  # the first of them off the board
            if cells[x] < 0 and owners[x] == p and kinds[x] == kind:
                move_piece(s, x, c, span)
                return
        raise place_failure(p, c, kind, span)

    return place


def place_failure(p: Any, c: Any, kind: str, span: Any) -> RuleError:
    """Why `place` could not place a piece of ``kind`` for player ``p`` on cell ``c`` (the
    closure's words, and generated code's: ``codegen_blocks._Statements.s_Place``)."""
    if p is None or c is None:
        return RuleError(f"cannot place a {kind}: the {'player' if p is None else 'cell'} is missing (none)"
                         + ("" if p is None else ", for example a cell off the board"), span)
    return RuleError(f"player {p} has no {kind} left to place", span)


def _remove(node: A.Remove, L: Any) -> Stmt:
    piece = compile_expr(node.piece, L)

    def remove(s: Any, e: dict) -> None:
        x = piece(s, e)
        if x is None:
            return
        c = s.piece_cell[x]
        if c >= 0:
            s.cell_piece[c] = -1
            s.piece_cell[x] = -1

    return remove


# ------------------------------------------------------------------ control


def late_procedure(L: Any, name: str) -> Stmt:
    """A procedure's closure, found when first called (procedures may call each other, so
    it may not exist yet when the call is compiled). A plain function, not an object with
    ``__call__``: Python calls a function faster, and this runs for every call."""
    fn: Stmt | None = None

    def call(s: Any, e: dict) -> None:
        nonlocal fn
        if fn is None:
            fn = L.proc_closure(name)
        fn(s, e)

    return call


def s_CallProc(node: A.CallProc, L: Any) -> Stmt:
    args = [compile_expr(a, L) for a in node.args]
    target = node.target
    span = node.span
    if L.info.ref(target).kind == "proc":
        name = target.id
        params = L.procs[name].params
        run = late_procedure(L, name)

        # each call costs one unit: a procedure calling another twice, 40 deep, must not run
        # 2**40 times for free
        if not params:
            def call_plain(s: Any, e: dict) -> None:
                s.ops -= 1
                if s.ops < 0:
                    overrun(s, span)
                run(s, {})

            return call_plain
        if len(params) == 1:
            p0 = params[0]
            a0 = args[0]

            def call_one(s: Any, e: dict) -> None:
                s.ops -= 1
                if s.ops < 0:
                    overrun(s, span)
                run(s, {p0: a0(s, e)})

            return call_one
        bound = env_of_args(params, args)

        def call_static(s: Any, e: dict) -> None:
            s.ops -= 1
            if s.ops < 0:
                overrun(s, span)
            run(s, bound(s, e))

        return call_static
    which = compile_expr(target, L)

    def call_dynamic(s: Any, e: dict) -> None:
        s.ops -= 1
        if s.ops < 0:
            overrun(s, span)
        name = which(s, e)
        proc = L.procs.get(name)
        if proc is None:
            raise RuleError(f"'{name}' is not a procedure", span)
        L.proc_closure(name)(s, {p: a(s, e) for p, a in zip(proc.params, args)})

    return call_dynamic


def s_Pass(node: A.Pass, L: Any) -> Stmt:
    return _noop


def s_If(node: A.If, L: Any) -> Stmt:
    cond = compile_expr(node.cond, L)
    then = compile_block_closure(node.then, L)
    orelse = compile_block_closure(node.orelse, L)
    if is_const(cond):
        return then if const_value(cond) else orelse
    if orelse is _noop:
        def if_then(s: Any, e: dict) -> None:
            if cond(s, e):
                then(s, e)

        return if_then

    def if_(s: Any, e: dict) -> None:
        if cond(s, e):
            then(s, e)
        else:
            orelse(s, e)

    return if_


def bindings_iterator(bindings: A.Bindings, L: Any) -> Callable[[Any, dict], list[dict]]:
    """All assignments of the bindings (nested loops, each filtered), as env dicts."""
    loops = [(b.var, compile_list(b.iter, L), compile_expr(b.cond, L) if b.cond is not None else None)
             for b in bindings.items]
    span = bindings.span

    def assignments(s: Any, e: dict) -> list[dict]:
        out: list[dict] = []
        _walk_bindings(s, loops, span, 0, dict(e), out)
        return out

    return assignments


def _walk_bindings(s: Any, loops: list[tuple[str, Any, Any]], span: Any, depth: int, env: dict, out: list) -> None:
    """The assignments from binding ``depth`` on, added to ``out`` (a function of the module,
    not a closure made per call: a closure calling itself is a cycle only the GC frees)."""
    if depth == len(loops):
        out.append(dict(env))
        return
    var, items, cond = loops[depth]
    xs = list(items(s, env))
    s.ops -= len(xs) if depth < len(loops) - 1 else 4 * len(xs)  # each assignment made is a dict kept
    if s.ops < 0:
        overrun(s, span)
    for x in xs:
        env[var] = x
        if cond is None or cond(s, env):
            _walk_bindings(s, loops, span, depth + 1, env, out)


def s_For(node: A.For, L: Any) -> Stmt:
    envs = bindings_iterator(node.bindings, L)
    body = compile_block_closure(node.body, L)

    def for_(s: Any, e: dict) -> None:
        for env in envs(s, e):
            body(s, env)

    return for_


def s_Repeat(node: A.Repeat, L: Any) -> Stmt:
    until = compile_expr(node.until, L)
    limit = node.max or L.loop_limit
    span = node.span
    # a body binding names gets a copy of the env from here, so that `until` sees them
    scoped = binds_names(node.body)
    body = compile_block_closure(node.body, L, own_scope=not scoped)

    def repeat(s: Any, e: dict) -> None:
        for _ in range(limit):
            s.ops -= 1
            if s.ops < 0:
                overrun(s, span)
            inner = dict(e) if scoped else e
            body(s, inner)
            if until(s, inner):
                return
        raise RuleError(f"`repeat` ran {limit} times without its `until` becoming true", span)

    return repeat


def s_While(node: A.While, L: Any) -> Stmt:
    body = compile_block_closure(node.body, L)
    cond = compile_expr(node.cond, L)
    limit = node.max or L.loop_limit
    span = node.span

    def while_(s: Any, e: dict) -> None:
        for _ in range(limit):
            s.ops -= 1
            if s.ops < 0:
                overrun(s, span)
            if not cond(s, e):
                return
            body(s, e)
        if cond(s, e):
            raise RuleError(f"`while` ran {limit} times and its condition still holds", span)

    return while_


def s_Choose(node: A.Choose, L: Any) -> Stmt:
    raise RuleError("internal: a choice cannot run as a simple statement", node.span)


_STATEMENTS: dict[str, Callable[[Any, Any], Stmt]] = {
    "Move": s_Move, "Draw": s_Draw, "Deal": s_Deal, "Shuffle": s_Shuffle, "Flip": s_Flip, "Assign": s_Assign,
    "Let": s_Let, "Emit": s_Emit, "End": s_End, "Skip": s_Skip, "Next": s_Next, "Place": s_Place, "Remove": s_Remove,
    "CallProc": s_CallProc, "Pass": s_Pass, "If": s_If, "For": s_For, "Repeat": s_Repeat, "While": s_While,
    "Choose": s_Choose,
}
