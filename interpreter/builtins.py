"""Built-in functions of the rule language, one compiler each (see rulespec.types.FUNCTIONS)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import SMALL, check_grown, check_size, spend
from .errors import BudgetError, RuleError
from .expression_ops import shuffled_order
from .expressions import (
    Fn,
    _const,
    compile_expr,
    compile_list,
    const_value,
    distinct_values,
    is_const,
    json_converter,
    local_name,
    ordered_list,
    type_of,
)

__all__ = ["compile_builtin", "BUILTINS"]


def compile_builtin(node: A.Call, L: Any) -> Fn:
    compiler = BUILTINS.get(node.func)
    if compiler is None:
        raise RuleError(f"unknown function '{node.func}'", node.span)
    return compiler(node, L)


def _args(node: A.Call, L: Any) -> list[Fn]:
    return [compile_expr(a, L) for a in node.args]


def b_count(node: A.Call, L: Any) -> Fn:
    items = compile_list(node.args[0], L)
    zone = getattr(items, "zone", None)  # the count of a zone reads its length directly
    if zone is not None:
        if is_const(zone):
            z = const_value(zone)
            return lambda s, e: len(s.zones[z])
        name = getattr(zone, "local_zone", None)
        if name is not None:
            base, local = name
            return lambda s, e: len(s.zones[base + e[local]])
        return lambda s, e: len(s.zones[zone(s, e)])
    return lambda s, e: len(items(s, e))


def _paid_list(node: Any, L: Any) -> Fn:
    """A list that the caller walks once: a large one is paid for."""
    items = compile_list(node, L)
    span = node.span
    return lambda s, e: paid_items(s, items(s, e), span)


def paid_items(s: Any, xs: Any, span: Any) -> Any:
    """``xs``, a list the caller walks once, paid for when large (generated code calls it too)."""
    if len(xs) > SMALL:
        spend(s, len(xs), span)
    return xs


def b_sum(node: A.Call, L: Any) -> Fn:
    items = _paid_list(node.args[0], L)
    limits = L.limits
    span = node.span
    return lambda s, e: check_grown(s, sum(items(s, e)), limits, span)


def _extreme(pick: Callable[..., Any]) -> Callable[[A.Call, Any], Fn]:
    def compiler(node: A.Call, L: Any) -> Fn:
        if len(node.args) == 1:
            items = _paid_list(node.args[0], L)

            def of_list(s: Any, e: dict) -> Any:
                values = [v for v in items(s, e) if v is not None]
                return pick(values) if values else None

            return of_list
        a, b = _args(node, L)
        if is_const(a) and is_const(b):
            try:
                return _const(pick(const_value(a), const_value(b)))
            except TypeError:
                pass  # (`max(0, none)` fails when it runs, as a rule)
        return lambda s, e: pick(a(s, e), b(s, e))

    return compiler


def b_any(node: A.Call, L: Any) -> Fn:
    items = _paid_list(node.args[0], L)
    return lambda s, e: any(items(s, e))


def b_all(node: A.Call, L: Any) -> Fn:
    items = _paid_list(node.args[0], L)
    return lambda s, e: all(items(s, e))


def b_distinct(node: A.Call, L: Any) -> Fn:
    items = _paid_list(node.args[0], L)
    span = node.span
    return lambda s, e: distinct_values(s, items(s, e), span)


def b_first(node: A.Call, L: Any) -> Fn:
    items = ordered_list(node.args[0], L, "the first card")

    def first(s: Any, e: dict) -> Any:
        xs = items(s, e)
        return xs[0] if xs else None

    return first


def b_last(node: A.Call, L: Any) -> Fn:
    items = ordered_list(node.args[0], L, "the last card")

    def last(s: Any, e: dict) -> Any:
        xs = items(s, e)
        return xs[-1] if xs else None

    return last


def card_from_top(cards: list, i: Any) -> Any:
    """The card ``i`` places below the top of ``cards`` (none past the bottom): `top`, `nth`."""
    return cards[-1 - i] if 0 <= i < len(cards) else None


def card_from_bottom(cards: list, i: Any) -> Any:
    """The card ``i`` places above the bottom of ``cards`` (none past the top): `bottom`."""
    return cards[i] if 0 <= i < len(cards) else None


def _zone_pick(node: A.Call, L: Any, pick: Callable[[list, Any], Any], what: str) -> Fn:
    zone = compile_expr(node.args[0], L)
    depth = compile_expr(node.args[1], L) if len(node.args) > 1 else _const(0)
    span = node.span
    message = shuffled_order(what)

    def zone_card(s: Any, e: dict) -> Any:
        z = zone(s, e)
        if s.shuffled[z]:
            raise RuleError(message, span)
        cards = s.zones[z]
        return pick(cards, depth(s, e))

    return zone_card


def b_top(node: A.Call, L: Any) -> Fn:
    return _zone_pick(node, L, card_from_top, "the top card")


def b_nth(node: A.Call, L: Any) -> Fn:
    return _zone_pick(node, L, card_from_top, "a card")


def b_bottom(node: A.Call, L: Any) -> Fn:
    return _zone_pick(node, L, card_from_bottom, "the bottom card")


def b_left(node: A.Call, L: Any) -> Fn:
    (p,) = _args(node, L)
    n = L.num_players
    table = [(i + 1) % n for i in range(n)]
    return lambda s, e: table[p(s, e)]


def b_right(node: A.Call, L: Any) -> Fn:
    (p,) = _args(node, L)
    n = L.num_players
    table = [(i - 1) % n for i in range(n)]
    return lambda s, e: table[p(s, e)]


def b_others(node: A.Call, L: Any) -> Fn:
    (p,) = _args(node, L)
    n = L.num_players
    table = [[(i + k) % n for k in range(1, n)] for i in range(n)]
    return lambda s, e: table[p(s, e)]


def b_seats_from(node: A.Call, L: Any) -> Fn:
    (p,) = _args(node, L)
    n = L.num_players
    table = [[(i + k) % n for k in range(n)] for i in range(n)]
    return lambda s, e: table[p(s, e)]


def seat_of(x: Any, n: int, span: Any) -> Any:
    """`player(x)` in an ``n``-player game (generated code calls it too)."""
    if not 0 <= x < n:
        raise RuleError(f"there is no seat {x} in a {n}-player game", span)
    return x


def b_player(node: A.Call, L: Any) -> Fn:
    (i,) = _args(node, L)
    n = L.num_players
    span = node.span

    def seat(s: Any, e: dict) -> int:
        return seat_of(i(s, e), n, span)

    if is_const(i):
        x = const_value(i)
        if 0 <= x < n:
            return _const(x)
    return seat


def b_pieces(node: A.Call, L: Any) -> Fn:
    """The pieces a player owns now (of a kind, if given), in piece order."""
    args = _args(node, L)
    owner = args[0]
    every = range(len(L.piece_owner))
    if not L.piece_fields_set and (len(args) == 1 or is_const(args[1])):
        table = pieces_table(L, const_value(args[1]) if len(args) > 1 else None)
        return lambda s, e: table[owner(s, e)]
    if len(args) == 1:
        def pieces(s: Any, e: dict) -> list:
            p = owner(s, e)
            owners = s.piece_owner
            return [x for x in every if owners[x] == p]

        return pieces
    kind_fn = args[1]

    def pieces_of_kind(s: Any, e: dict) -> list:
        p = owner(s, e)
        k = kind_fn(s, e)
        owners, kinds = s.piece_owner, s.piece_kind
        return [x for x in every if owners[x] == p and kinds[x] == k]

    return pieces_of_kind


def pieces_table(L: Any, kind: Any) -> list[list[int]]:
    """Each player's pieces (of ``kind``, unless None) in piece order, for rules that change no
    piece's owner or kind: known when the game is linked (generated code reads it too)."""
    every = range(len(L.piece_owner))
    return [[x for x in every if L.piece_owner[x] == p and kind in (None, L.piece_kind_name[x])]
            for p in range(L.num_players)]


def b_piece_at(node: A.Call, L: Any) -> Fn:
    (cell,) = _args(node, L)

    def piece_at(s: Any, e: dict) -> Any:
        c = cell(s, e)
        if c is None:
            return None
        x = s.cell_piece[c]
        return None if x < 0 else x

    return piece_at


def b_slides(node: A.Call, L: Any) -> Fn:
    (piece,) = _args(node, L)
    kwargs = {k: compile_expr(v, L) for k, v in node.kwargs}
    if "dirs" in kwargs and not is_const(kwargs["dirs"]):
        raise RuleError("slides(dirs=...) must be a constant", node.span)
    dirs = const_value(kwargs["dirs"]) if "dirs" in kwargs else "orthogonal"
    if dirs not in L.board.rays:
        raise RuleError(f"slides(dirs=...) must be orthogonal, diagonal or all, not {dirs!r}", node.span)
    if "max" in kwargs and not is_const(kwargs["max"]):
        raise RuleError("slides(max=...) must be a constant", node.span)
    rays = slides_rays(node, L)
    name = local_name(piece)

    def slides(s: Any, e: dict) -> list:
        return slides_of(s, e[name] if name is not None else piece(s, e), rays)

    return slides


def slides_rays(node: A.Call, L: Any) -> Any:
    """The rays of a `slides(x, dirs=..., max=...)` call whose keywords ``b_slides`` checked
    are constants, each cut to the longest move (the closure and the generated code both read them here)."""
    kwargs = dict(node.kwargs)
    dirs = const_value(compile_expr(kwargs["dirs"], L)) if "dirs" in kwargs else "orthogonal"
    steps = const_value(compile_expr(kwargs["max"], L)) if "max" in kwargs else 10**9
    return L.board.rays_within(dirs, steps)


def slides_any(s: Any, piece: int, rays: Any) -> bool:
    """``slides_of(...)`` is not empty: some ray's first cell is free."""
    at = s.piece_cell[piece]
    if at < 0:
        return False
    occupied = s.cell_piece
    for ray in rays[at]:
        if occupied[ray[0]] < 0:
            return True
    return False


def slides_of(s: Any, piece: int, rays: Any) -> list:
    """The cells a piece can slide to along ``rays`` (from each cell, the cells in order
    outwards, as far as the move may go: ``Board.rays_within``), stopping before any piece."""
    at = s.piece_cell[piece]
    if at < 0:
        return []
    occupied = s.cell_piece
    out = []
    for ray in rays[at]:
        for c in ray:
            if occupied[c] >= 0:
                break
            out.append(c)
    return out


def b_cell(node: A.Call, L: Any) -> Fn:
    from .board import parse_cell

    args = _args(node, L)
    board = L.board
    span = node.span
    if len(args) == 1:
        name = args[0]
        if is_const(name):
            return _const(parse_cell(const_value(name), board.rows, board.cols))

        def by_name(s: Any, e: dict) -> int:
            try:
                return parse_cell(str(name(s, e)), board.rows, board.cols)
            except (ValueError, IndexError):
                raise RuleError(f"'{name(s, e)}' is not a cell", span) from None

        return by_name
    row, col = args

    def by_position(s: Any, e: dict) -> Any:
        r, c = row(s, e), col(s, e)
        if not (0 <= r < board.rows and 0 <= c < board.cols):
            return None
        return r * board.cols + c

    return by_position


def b_empty_cells(node: A.Call, L: Any) -> Fn:
    size = L.board.size

    def empty_cells(s: Any, e: dict) -> list:
        occupied = s.cell_piece
        return [c for c in range(size) if occupied[c] < 0]

    return empty_cells


def start_cells_table(L: Any) -> list[list[int]]:
    """Each player's pieces' start cells (of those that start on the board), in piece order."""
    return [[L.piece_start[x] for x in range(len(L.piece_owner)) if L.piece_owner[x] == q and L.piece_start[x] >= 0]
            for q in range(L.num_players)]


def b_start_cells(node: A.Call, L: Any) -> Fn:
    (p,) = _args(node, L)
    table = start_cells_table(L)
    return lambda s, e: table[p(s, e)]


def line_of(s: Any, who: Any, windows: Any, span: Any) -> bool:
    """Does ``who`` own the pieces on every cell of one of ``windows`` (runs of cells)?
    The closure of `line` and generated code both call this."""
    if len(windows) > SMALL:
        spend(s, len(windows), span)
    occupied = s.cell_piece
    owner = s.piece_owner
    for window in windows:
        for c in window:
            x = occupied[c]
            if x < 0 or owner[x] != who:
                break
        else:
            return True
    return False


def b_line(node: A.Call, L: Any) -> Fn:
    p, n = _args(node, L)
    windows = L.board.windows
    span = node.span
    return lambda s, e: line_of(s, p(s, e), windows(n(s, e)), span)


def directions_of(node: A.Call, L: Any, default: str = "orthogonal") -> str:
    """The set of directions a geometry function names (a constant: the checker saw to it)."""
    for key, value in node.kwargs:
        if key == "dirs":
            return str(const_value(compile_expr(value, L)))
    return default


def direction_steps(node: A.Call, L: Any) -> list[list[int]]:
    """The steps `directions(name)` lists (its argument is a constant: the checker saw to it)."""
    from .board import DIRECTIONS

    return [list(step) for step in DIRECTIONS[str(const_value(compile_expr(node.args[0], L)))]]


def fresh_steps(steps: list[list[int]]) -> list[list[int]]:
    """A fresh copy of ``steps``: the rules may keep and change it."""
    return [list(step) for step in steps]


def b_directions(node: A.Call, L: Any) -> Fn:
    steps = direction_steps(node, L)
    return lambda s, e: fresh_steps(steps)


def neighbours_of(c: Any, table: Any) -> list:
    """The neighbours of cell ``c`` in ``table`` (a fresh list); not a cell: no neighbours."""
    return list(table[c]) if type(c) is int and 0 <= c < len(table) else []


def b_neighbours(node: A.Call, L: Any) -> Fn:
    (cell,) = _args(node, L)
    table = L.board.neighbours[directions_of(node, L)]
    return lambda s, e: neighbours_of(cell(s, e), table)


def ray_of(s: Any, c: Any, dr: Any, dc: Any, rows: int, cols: int) -> list:
    """The cells from ``c`` by steps (``dr``, ``dc``), up to the board's edge or the first piece
    (included)."""
    if type(c) is not int or not 0 <= c < rows * cols or (dr == 0 and dc == 0) \
            or type(dr) is not int or type(dc) is not int:
        return []
    occupied = s.cell_piece
    r, k = divmod(c, cols)
    out = []
    r, k = r + dr, k + dc
    while 0 <= r < rows and 0 <= k < cols:
        c = r * cols + k
        out.append(c)
        if occupied[c] >= 0:
            break
        r, k = r + dr, k + dc
    return out


def b_ray(node: A.Call, L: Any) -> Fn:
    cell, drow, dcol = _args(node, L)
    rows, cols = L.board.rows, L.board.cols
    return lambda s, e: ray_of(s, cell(s, e), drow(s, e), dcol(s, e), rows, cols)


def _flood(s: Any, table: Any, path: set, starts: Any, span: Any) -> set:
    """The cells of ``path`` linked to ``starts`` (those in ``path``) through neighbours in
    ``path``; each cell reached costs a unit of the step's budget."""
    seen = {c for c in starts if c in path}
    todo = list(seen)
    while todo:
        c = todo.pop()
        for n in table[c]:
            if n in path and n not in seen:
                seen.add(n)
                todo.append(n)
    if len(seen) > SMALL:
        spend(s, len(seen), span)
    return seen


def board_path(xs: Any, cells: range) -> set:
    """The cells of ``xs`` a path may go through: cells of the board (not none)."""
    return {c for c in xs if type(c) is int and c in cells}


def path_targets(path: set, xs: Any) -> set:
    """The cells of ``xs`` on ``path`` (what `connected` must reach)."""
    return {c for c in xs if c in path}


def reaches(s: Any, targets: set, path: set, starts: Any, table: Any, span: Any) -> bool:
    """Does ``path`` link one of ``starts`` to one of ``targets``?"""
    return not targets.isdisjoint(_flood(s, table, path, starts, span))


def group_of(s: Any, path: set, cell: Any, table: Any, span: Any) -> list:
    """The cells of ``path`` linked to ``cell``, in order."""
    return sorted(_flood(s, table, path, [cell], span))


def b_connected(node: A.Call, L: Any) -> Fn:
    path_fn, a_fn, b_fn = _args(node, L)
    table = L.board.neighbours[directions_of(node, L)]
    span = node.span

    cells = range(L.board.size)

    def connected(s: Any, e: dict) -> bool:
        path = board_path(path_fn(s, e), cells)
        targets = path_targets(path, b_fn(s, e))
        if not targets:
            return False
        return reaches(s, targets, path, a_fn(s, e), table, span)

    return connected


def b_group(node: A.Call, L: Any) -> Fn:
    cell_fn, path_fn = _args(node, L)
    table = L.board.neighbours[directions_of(node, L)]
    span = node.span

    cells = range(L.board.size)

    def group(s: Any, e: dict) -> list:
        return group_of(s, board_path(path_fn(s, e), cells), cell_fn(s, e), table, span)

    return group


def ranking_of(node: A.Call, L: Any) -> Any:
    """The ranking a ranking function's first argument names (a constant, or a link-time error)."""
    ranking_fn = compile_expr(node.args[0], L)
    if not is_const(ranking_fn):
        raise RuleError("the first argument must name a ranking", node.span)
    return const_value(ranking_fn)


def _ranking_fn(node: A.Call, L: Any, pick: int) -> Fn:
    ranking = ranking_of(node, L)
    cards = _paid_list(node.args[1], L)
    evaluate = ranking.evaluate
    span = node.span
    return lambda s, e: evaluate(cards(s, e), s, span)[pick]


def b_hand_value(node: A.Call, L: Any) -> Fn:
    return _ranking_fn(node, L, 0)


def b_best_cards(node: A.Call, L: Any) -> Fn:
    return _ranking_fn(node, L, 1)


def b_category(node: A.Call, L: Any) -> Fn:
    return _ranking_fn(node, L, 2)


def score_of(value: Any) -> float:
    """`hand_score`: a hand's value (category, tiebreak ranks, ...) as one number."""
    category, tiebreak, _ = value
    total = float(category)
    scale = 1.0
    for rank in tiebreak:
        scale /= 32.0
        total += rank * scale
    return total


def b_hand_score(node: A.Call, L: Any) -> Fn:
    value = _ranking_fn(node, L, 0)
    return lambda s, e: score_of(value(s, e))


def b_str(node: A.Call, L: Any) -> Fn:
    (value,) = _args(node, L)
    convert = json_converter(type_of(node.args[0], L), L)
    t = type_of(node.args[0], L)
    if t == T.PLAYER:
        names = L.seat_names
        return lambda s, e: names[value(s, e)]
    if t == T.PIECE:
        label = L.piece_label
        return lambda s, e: label[value(s, e)]

    limits = L.limits
    span = node.span
    return lambda s, e: text_of(s, convert(s, value(s, e)), limits, span)


def text_of(s: Any, v: Any, limits: Any, span: Any) -> str:
    """`str` of ``v``, a value as its JSON (generated code calls it too)."""
    if isinstance(v, list):
        return _joined(s, v, limits, span)
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _joined(s: Any, values: list, limits: Any, span: Any) -> str:
    """``str`` of a list: its items joined, bounded as it grows (nested lists too)."""
    check_size(s, len(values), limits.max_list, "a list", span)
    parts = []
    size = 0
    for x in values:
        part = _joined(s, x, limits, span) if isinstance(x, list) else str(x)
        size += len(part) + 2
        if size > limits.max_text:
            raise BudgetError(f"a text grew past {limits.max_text:,} characters", span)
        parts.append(part)
    return ", ".join(parts)


def whole_of(v: Any, span: Any) -> int:
    """`int(v)` (generated code calls it too)."""
    try:
        return int(v)
    except OverflowError:
        raise RuleError(f"int() of {v}: not a finite number", span) from None
    except ValueError:
        raise RuleError(f"int() of {str(v)[:40]!r}: not a whole number", span) from None


def b_int(node: A.Call, L: Any) -> Fn:
    (value,) = _args(node, L)
    span = node.span

    def whole(s: Any, e: dict) -> int:
        return whole_of(value(s, e), span)

    return whole


def b_abs(node: A.Call, L: Any) -> Fn:
    (value,) = _args(node, L)
    return lambda s, e: abs(value(s, e))


def whole_numbers(s: Any, start: int, stop: int, limit: int, span: Any) -> list:
    """``range(start, stop)`` as a list, bounded and paid for when long."""
    if stop - start > SMALL:
        check_size(s, stop - start, limit, f"range({start}, {stop})", span)
    return list(range(start, stop))


def b_range(node: A.Call, L: Any) -> Fn:
    a, b = _args(node, L)
    limit = L.limits.max_list
    span = node.span
    if is_const(a) and is_const(b) and const_value(b) - const_value(a) <= SMALL:
        values = list(range(const_value(a), const_value(b)))
        return lambda s, e: list(values)
    return lambda s, e: whole_numbers(s, a(s, e), b(s, e), limit, span)


def b_dict(node: A.Call, L: Any) -> Fn:
    fields = [(k, compile_expr(v, L), json_converter(type_of(v, L), L)) for k, v in node.kwargs]

    def record(s: Any, e: dict) -> dict:
        return {k: conv(s, f(s, e)) for k, f, conv in fields}

    return record


def _random_only(node: A.Call, L: Any) -> Fn:
    raise RuleError(f"{node.func}() can only be used as `let x = {node.func}(...)`", node.span)


BUILTINS: dict[str, Callable[[A.Call, Any], Fn]] = {
    "count": b_count, "sum": b_sum, "max": _extreme(max), "min": _extreme(min), "any": b_any, "all": b_all,
    "distinct": b_distinct, "first": b_first, "last": b_last, "top": b_top, "bottom": b_bottom, "nth": b_nth,
    "left": b_left, "right": b_right, "others": b_others, "seats_from": b_seats_from, "player": b_player,
    "pieces": b_pieces, "piece_at": b_piece_at, "slides": b_slides, "cell": b_cell, "empty_cells": b_empty_cells,
    "start_cells": b_start_cells, "line": b_line, "neighbours": b_neighbours, "directions": b_directions,
    "ray": b_ray, "connected": b_connected, "group": b_group, "hand_value": b_hand_value, "best_cards": b_best_cards,
    "category": b_category, "hand_score": b_hand_score, "str": b_str, "int": b_int, "abs": b_abs,
    "range": b_range, "dict": b_dict, "chance": _random_only, "random": _random_only,
}
