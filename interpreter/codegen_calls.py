"""Generated Python for calls of the language's builtins (the compiler backend, with ``codegen``).

``write_builtin`` writes one builtin call for the expression writer of a unit
(``codegen._Writer``): in line when it is a few operations, or as a call of the run-time
helper its closure calls too (``builtins``, ``expressions``), so the two engines share the
code that can fail and its messages. The discipline is ``codegen``'s.
"""

from __future__ import annotations

import re
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import SMALL
from .builtins import (
    board_path,
    card_from_top,
    direction_steps,
    directions_of,
    fresh_steps,
    group_of,
    line_of,
    neighbours_of,
    paid_items,
    path_targets,
    pieces_table,
    ranking_of,
    ray_of,
    reaches,
    score_of,
    seat_of,
    slides_rays,
    start_cells_table,
    text_of,
    whole_of,
)
from .expression_ops import piece_starts, shuffled_order, table_entry
from .expressions import type_of

__all__ = ["write_builtin", "is_builtin_call", "SIMPLE", "WHOLE"]

SEAT_TABLES = ("left", "right", "others", "seats_from")
WHOLE = re.compile(r"-?[0-9]+\Z")  # the code of a whole number
LINE_RUNS = 16  # `line(p, n)` over at most this many runs (known at link time) is tested in line
# code that names a value (a Python local, a state field, a local of the rules, a number): it may be repeated
SIMPLE = re.compile(r"(-?[0-9]+|None|True|False|_[a-z]+[0-9]*|s\.[a-z_]+|e\[_k[0-9]+\])\Z")
# the types whose values a set tells apart as `distinct` does (by equality; not lists, not numbers
# that may be floats)
HASHED = frozenset({T.STR, T.INT, T.BOOL, T.CARD, T.PLAYER, T.CELL, T.PIECE})


def is_builtin_call(node: Any, name: str, L: Any) -> bool:
    """Is ``node`` a call of the language's builtin ``name``?"""
    return isinstance(node, A.Call) and node.func == name and L.info.ref(node).kind == "builtin"


def write_builtin(w: Any, node: A.Call) -> str | None:
    """A call of a builtin written by the expression writer ``w`` (``codegen._Writer``), or
    None when it has no generated form (its closure runs)."""
    L = w.L
    func = node.func
    args = node.args
    if func in SEAT_TABLES:
        n = L.num_players
        table = {"left": [(i + 1) % n for i in range(n)], "right": [(i - 1) % n for i in range(n)],
                 "others": [[(i + k) % n for k in range(1, n)] for i in range(n)],
                 "seats_from": [[(i + k) % n for k in range(n)] for i in range(n)]}[func]
        return f"{w.name_of(table)}[{w.expr(args[0])}]"
    if func == "count":
        inner = args[0]
        if is_builtin_call(inner, "empty_cells", L):
            # an empty cell holds -1 (a state's cells hold -1 or a piece: state_check): counted in C
            return f"{w.name_of(list.count)}(s.cell_piece, -1)"
        if (isinstance(inner, A.Agg) and inner.func == "distinct" and inner.comp.cond is None
                and not isinstance(inner.comp.elt, A.Comp) and type_of(inner.comp.elt, L) in HASHED):
            elt, loop, var = w.comprehension(inner.comp, inner.span)  # as many as a set of them holds
            looked_up = w.looked_up(inner.comp, elt, loop, var)
            return f"len(set({looked_up or f'[{elt} {loop}]'}))"
        return f"len({w.listing(inner)})"
    if func == "piece_at":
        first, c = w.held(w.expr(args[0]))
        x = w.temp()
        return f"(None if {first} is None or ({x} := s.cell_piece[{c}]) < 0 else {x})"
    if func == "pieces" and not L.piece_fields_set and (len(args) == 1 or w.gen.folds.is_constant(args[1])):
        # no rule changes owners or kinds: each player's pieces are known now
        kind = w.gen.folds.value(args[1]) if len(args) > 1 else None
        return f"{w.name_of(pieces_table(L, kind))}[{w.expr(args[0])}]"
    if func == "pieces" and len(args) == 2:
        p, k, x = w.temp(), w.temp(), w.temp()
        # the owner, then the kind, computed once before the loop (as the closure does)
        every = w.name_of(range(len(L.piece_owner)))
        return (f"(({p} := {w.expr(args[0])}), ({k} := {w.expr(args[1])}), [{x} for {x} in {every} "
                f"if s.piece_owner[{x}] == {p} and s.piece_kind[{x}] == {k}])[2]")
    if func == "pieces" and len(args) == 1:
        p, x = w.temp(), w.temp()
        # the owner is computed once, before the loop (Python evaluates a tuple left to right)
        return (f"(({p} := {w.expr(args[0])}), [{x} for {x} in {w.name_of(range(len(L.piece_owner)))} "
                f"if s.piece_owner[{x}] == {p}])[1]")
    if func == "cell" and len(args) == 2:
        r, c = w.temp(), w.temp()
        rows, cols = L.board.rows, L.board.cols
        return (f"({r} * {cols!r} + {c} if (({r} := {w.expr(args[0])}), ({c} := {w.expr(args[1])})) "
                f"and 0 <= {r} < {rows!r} and 0 <= {c} < {cols!r} else None)")
    if func == "empty_cells" and L.board is not None:
        c = w.temp()
        return f"[{c} for {c} in {w.name_of(range(L.board.size))} if s.cell_piece[{c}] < 0]"
    if func in ("first", "last"):
        code = in_order(w, args[0], f"the {func} card")
        first, xs = w.held(code)
        return f"({xs}[{0 if func == 'first' else -1!r}] if {first} else None)"
    if func == "nth":
        # the zone, whose order must be known, then the depth (as the closure, ``builtins._zone_pick``)
        code = w.expr(args[0])
        zone, z = (code, code) if SIMPLE.match(code) else w.held(code)
        depth = w.expr(args[1]) if len(args) > 1 else "0"
        return (f"(_fail({w.name_of(shuffled_order('a card'))}, {w.name_of(node.span)}) if s.shuffled[{zone}] else "
                f"{w.name_of(card_from_top)}(s.zones[{z}], {depth}))")
    if func in ("top", "bottom") and len(args) == 1:
        # the card at that end of the zone, none when it is empty; a shuffled zone's order is unknown
        what = shuffled_order("the top card" if func == "top" else "the bottom card")
        code = w.expr(args[0])
        zone, z = (code, code) if SIMPLE.match(code) else w.held(code)
        cards = w.temp()
        return (f"(_fail({w.name_of(what)}, {w.name_of(node.span)}) if s.shuffled[{zone}] else "
                f"({cards}[{-1 if func == 'top' else 0!r}] if ({cards} := s.zones[{z}]) else None))")
    if func == "slides":  # (its closure, compiled first, checked that the keywords are constants)
        return f"_sl(s, {w.expr(args[0])}, {w.name_of(slides_rays(node, L))})"
    if func == "line":
        who, n = w.expr(args[0]), w.expr(args[1])
        if WHOLE.match(n):
            runs = L.board.windows(int(n))  # (runs of no cell, for n = 0, have no test to write)
            if int(n) > 0 and SIMPLE.match(who) and 0 < len(runs) <= LINE_RUNS:
                return w.line_in_line(who, runs)
            windows = w.name_of(runs)
        else:  # a length known only in play: the runs by the board's (cached) method
            windows = f"{w.name_of(L.board.windows)}({n})"
        return f"{w.name_of(line_of)}(s, {who}, {windows}, {w.name_of(node.span)})"
    if func in ("connected", "group") and L.board is not None:
        # the shared parts of their closures (builtins), in the closures' order: the path, then
        # the targets, then (only when a target is on the path) where it starts
        links = w.name_of(L.board.neighbours[directions_of(node, L)])
        span = w.name_of(node.span)
        path_of = f"{w.name_of(board_path)}({w.expr(args[0 if func == 'connected' else 1])}, " \
                  f"{w.name_of(range(L.board.size))})"
        if func == "group":
            return f"{w.name_of(group_of)}(s, {path_of}, {w.expr(args[0])}, {links}, {span})"
        path, targets = w.temp(), w.temp()
        return (f"({w.name_of(reaches)}(s, {targets}, {path}, {w.expr(args[1])}, {links}, {span}) "
                f"if ({targets} := {w.name_of(path_targets)}(({path} := {path_of}), {w.expr(args[2])})) "
                f"else False)")
    if func == "range":
        a, b = (w.expr(arg) for arg in args)
        if WHOLE.match(a) and WHOLE.match(b) and int(b) - int(a) <= SMALL:
            return f"list(range({a}, {b}))"
        return f"_rg(s, {a}, {b}, {w.name_of(L.limits.max_list)}, {w.name_of(node.span)})"
    if func == "abs":
        return f"abs({w.expr(args[0])})"
    if func == "int":
        return f"{w.name_of(whole_of)}({w.expr(args[0])}, {w.name_of(node.span)})"
    if func == "dict":  # a record: each field's value as its JSON, as builtins.b_dict
        fields = []
        for key, value in node.kwargs:
            fields.append(f"{w.name_of(key)}: {w.as_json(w.expr(value), type_of(value, L))}")
        return "{" + ", ".join(fields) + "}"
    if func in ("max", "min") and len(args) == 2:
        return f"{func}({w.expr(args[0])}, {w.expr(args[1])})"
    return _more(w, node)


def paid(w: Any, node: Any, span: Any) -> str:
    """The items of ``node`` (a zone's cards), paid for when many (``builtins.paid_items``)."""
    return f"{w.name_of(paid_items)}(s, {w.listing(node)}, {w.name_of(span)})"


def in_order(w: Any, node: Any, what: str) -> str:
    """``node``'s items, a list whose order matters: a shuffled zone's order is unknown, an
    error (as ``expressions.ordered_list``, which reads the zone twice: so does this)."""
    code = w.expr(node)
    if type_of(node, w.L) != T.ZONE:
        return code
    message = w.name_of(shuffled_order(what))
    return f"(_fail({message}, {w.name_of(node.span)}) if s.shuffled[{code}] else s.zones[{code}])"


def table_item(w: Any, node: A.Index) -> str:
    """``table[key]`` of a named table (``expressions.table_entry`` when the key is missing)."""
    L = w.L
    name = L.info.ref(node).name
    entries = w.name_of(L.tables[name])
    key = w.expr(node.index)
    fail = w.name_of(table_entry)
    if type_of(node.index, L) in HASHED:  # (a key that may be a list: no `in` before the helper's test)
        k = w.temp()
        return (f"({entries}[{k}] if ({k} := {key}) in {entries} else "
                f"{fail}({entries}, {k}, {w.name_of(name)}, {w.name_of(node.span)}))")
    return f"{fail}({entries}, {key}, {w.name_of(name)}, {w.name_of(node.span)})"


def piece_start(w: Any, node: A.Attr) -> str:
    """`x.start`: the piece's start cell, none off the board (``expressions.piece_starts``)."""
    return w.lookup(w.expr(node.obj), piece_starts(w.L))


def _more(w: Any, node: A.Call) -> str | None:
    """The builtins written as a call of the helper their closure calls (``builtins``)."""
    L = w.L
    func, args = node.func, node.args
    span = w.name_of(node.span)
    if func in ("sum", "any", "all", "distinct", "max", "min") and len(args) == 1:
        items = paid(w, args[0], node.span)
        if func == "sum":
            return w.grown(f"sum({items})", type_of(node, L), node.span)
        if func == "distinct":
            return f"_dv(s, {items}, {span})"
        if func in ("max", "min"):
            return f"_{'mx' if func == 'max' else 'mn'}({items})"
        return f"{func}({items})"
    if func == "player":
        return f"{w.name_of(seat_of)}({w.expr(args[0])}, {L.num_players!r}, {span})"
    if func == "start_cells":
        return f"{w.name_of(start_cells_table(L))}[{w.expr(args[0])}]"
    if func == "neighbours":
        return f"{w.name_of(neighbours_of)}({w.expr(args[0])}, {w.name_of(L.board.neighbours[directions_of(node, L)])})"
    if func == "directions":
        return f"{w.name_of(fresh_steps)}({w.name_of(direction_steps(node, L))})"
    if func == "ray":
        cell, drow, dcol = (w.expr(a) for a in args)
        return f"{w.name_of(ray_of)}(s, {cell}, {drow}, {dcol}, {L.board.rows!r}, {L.board.cols!r})"
    if func in ("hand_value", "best_cards", "category", "hand_score"):
        evaluate = w.name_of(ranking_of(node, L).evaluate)
        value = f"{evaluate}({paid(w, args[1], node.span)}, s, {span})"
        if func == "hand_score":
            return f"{w.name_of(score_of)}({value}[0])"
        return f"{value}[{('hand_value', 'best_cards', 'category').index(func)!r}]"
    if func == "str":
        t = type_of(args[0], L)
        value = w.expr(args[0])
        if t == T.PLAYER:
            return f"{w.name_of(L.seat_names)}[{value}]"
        if t == T.PIECE:
            return f"{w.name_of(L.piece_label)}[{value}]"
        return f"{w.name_of(text_of)}(s, {w.as_json(value, t)}, _lim, {span})"
    return None
