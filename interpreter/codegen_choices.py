"""Generated Python for a choice (the compiler backend, after ``codegen``).

A choice's alternatives enumerate their parameters (``for: card in hand(current) if ...``)
and add the id of each option to a set (to a list sorted at the end, when no id can be added
twice: ``_distinct_ids``). The closure engine specialises this on the shape
(``codes.make_collector``: the reference); here a whole choice becomes two generated
functions: its entry (who decides, every alternative's options with the loops, filters and
id encoding in line and the loop variables as Python locals, the pending decision) and its
resolution (an id decoded back into its parameters, the alternative's body run). The
options pay for their work exactly as the closures do (the inner loop of two, by its
length); finding them changes nothing but the budget, so when Python raises there the
reference collects them again and raises the error as it words it.
"""

from __future__ import annotations

from typing import Any

from .budget import SMALL
from .builtins import slides_rays
from .codegen import Codegen, _fail, _Writer, is_builtin_call
from .codegen_blocks import HELPERS, block_lines, block_writer, has_own_errors
from .effects import compile_block_closure
from .errors import RuleError
from .expressions import local_name
from .frames import BLOCK, PENDING_LEGAL, PENDING_PAYLOAD, STARTED
from .state import Pending

__all__ = ["generate_choice", "generate_lone_turn", "bind_card"]


def _collect_lines(w: _Writer, alt: Any, loops: list[tuple[str, Any]], filters: dict[int, list[Any]],
                   indent: int, direct: bool = False, distinct: bool = False) -> list[str]:
    """The lines adding an alternative's option ids to ``_ids`` (through ``_add``), at ``indent``.
    The names the alternative binds leave the writer's scope afterwards. ``direct``: every
    condition in line, whatever its errors would say (the caller falls back to the reference
    when Python raises). ``distinct``: ``_ids`` is a list (``_distinct_ids`` holds for ``alt``)."""
    scope = dict(w.scope)

    def _condition(w: _Writer, parts: list[Any]) -> str | None:
        return _conditions(w, parts, direct)

    lines: list[str] = []

    def put(depth: int, text: str) -> None:
        lines.append("    " * (indent + depth) + text)

    pre = _condition(w, filters.get(-1, []))
    depth = 0
    if pre is not None:
        put(0, f"if {pre}:")
        depth = 1
    if not loops:
        put(depth, f"_add({alt.offset!r})")
        w.scope = scope
        return lines
    (var0, items0), *rest = loops
    table0, stride0 = alt.encodings[0]
    free = None if rest else _free_cells(w, items0)
    source0 = free or w.listing(items0)
    x = w.bind_item(var0, items0)
    filter0 = _condition(w, filters.get(0, []))
    if not rest:
        # (`0 + x` too: a missing value, none, fails there as in the reference, and is never an id)
        encoded = f"{alt.offset!r} + {_encode(w, x, table0, stride0)}"
        if free is not None:  # `c in empty_cells()`: the board's cells, each tested here (no list made)
            cells = w.temp()
            test = f"{cells}[{x}] < 0" + ("" if filter0 is None else f" and {filter0}")
            put(depth, f"{cells} = s.cell_piece")
            put(depth, f"for {x} in {source0}:")
            put(depth + 1, f"if {test}:")
            put(depth + 2, f"_add({encoded})")
        elif filter0 is None:
            put(depth, f"for {x} in {source0}:")
            put(depth + 1, f"_add({encoded})")
        else:
            put(depth, f"for {x} in {source0}:")
            put(depth + 1, f"if {filter0}:")
            put(depth + 2, f"_add({encoded})")
        w.scope = scope
        return lines
    (var1, items1), = rest
    table1, stride1 = alt.encodings[1]
    put(depth, f"for {x} in {source0}:")
    depth += 1
    if filter0 is not None:
        put(depth, f"if not ({filter0}):")
        put(depth + 1, "continue")
    b = w.temp()
    put(depth, f"{b} = {alt.offset!r} + {_encode(w, x, table0, stride0)}")
    slides = _slides(w, items1) if not filters.get(1) else None
    if slides is not None:
        lines += _slide_lines(w, alt, var1, items1, slides, f"{b} + ", table1, stride1, indent + depth, distinct)
        w.scope = scope
        return lines
    walked = _slides(w, items1)
    source1 = None if walked is not None else w.listing(items1)  # may read the first parameter
    y = w.bind_item(var1, items1)
    filter1 = _condition(w, filters.get(1, []))
    ys = w.temp()
    if walked is None:
        put(depth, f"{ys} = {source1}")
    else:  # the cells `slides` lists, walked here into a list (then paid and filtered as that list)
        lines += _walk_lines(w, walked, ys, indent + depth)
    put(depth, f"s.ops -= len({ys})")
    put(depth, "if s.ops < 0:")
    put(depth + 1, f"_ov(s, {w.name_of(alt.span)})")
    encoded = f"{b} + {_encode(w, y, table1, stride1)}"
    if filter1 is None:
        put(depth, f"for {y} in {ys}:")
        put(depth + 1, f"_add({encoded})")
    else:
        put(depth, f"for {y} in {ys}:")
        put(depth + 1, f"if {filter1}:")
        put(depth + 2, f"_add({encoded})")
    w.scope = scope
    return lines


def _slides(w: _Writer, items: Any) -> tuple[str, str] | None:
    """(the code of the piece, the name of its rays) when ``items`` is `slides(piece, ...)`."""
    if is_builtin_call(items, "slides", w.L):
        return w.expr(items.args[0]), w.name_of(slides_rays(items, w.L))
    return None


def _slide_lines(w: _Writer, alt: Any, var: str, items: Any, slides: tuple[str, str], base: str, table: Any,
                 stride: int, indent: int, distinct: bool = False) -> list[str]:
    """The ids of the cells a piece slides to (``builtins.slides_of``, walked here without
    making the list), paid for as that list would be: by its length, once it is known.
    ``distinct``: ``_ids`` is a list that only grows by these ids, so its growth is the length."""
    piece, rays = slides
    y = w.bind_item(var, items)
    at, ray, count, cells = w.temp(), w.temp(), w.temp(), w.temp()
    pad = "    " * indent
    walk = _ray_walk(piece, rays, at, cells, ray, y)
    add = f"            _add({base}{_encode(w, y, table, stride)})"
    if distinct:
        lines = [f"{count} = len(_ids)", *walk, add, f"s.ops -= len(_ids) - {count}"]
    else:
        lines = [f"{count} = 0", *walk, f"            {count} += 1", add, f"s.ops -= {count}"]
    return [pad + line for line in [*lines, "if s.ops < 0:", f"    _ov(s, {w.name_of(alt.span)})"]]


def _walk_lines(w: _Writer, slides: tuple[str, str], cells: str, indent: int) -> list[str]:
    """The lines making the list ``cells`` of ``builtins.slides_of`` (the same cells, in order)."""
    piece, rays = slides
    at, occupied, ray, c = w.temp(), w.temp(), w.temp(), w.temp()
    lines = [f"{cells} = []", *_ray_walk(piece, rays, at, occupied, ray, c),
             f"            {w.name_of(list.append)}({cells}, {c})"]
    return ["    " * indent + line for line in lines]


def _ray_walk(piece: str, rays: str, at: str, occupied: str, ray: str, cell: str) -> list[str]:
    """The walk of ``slides_of``: each ray of the piece's cell outwards, up to the first piece;
    the caller's line for each ``cell`` reached follows, at three levels in."""
    return [f"{at} = s.piece_cell[{piece}]", f"if {at} >= 0:", f"    {occupied} = s.cell_piece",
            f"    for {ray} in {rays}[{at}]:", f"        for {cell} in {ray}:",
            f"            if {occupied}[{cell}] >= 0:", "                break"]


def _distinct_ids(w: _Writer, alt: Any) -> bool:
    """Whether ``_collect_lines`` adds each of ``alt``'s ids once, so that a list can hold them
    (sorted afterwards) instead of a set: an alternative without parameters, or a piece among
    `pieces(...)` (each piece once) moving to a cell it slides to (a cell's rays share no cell:
    ``Board.rays``), filters or not. Ids encode pieces and cells one-to-one (no table)."""
    loops, _ = alt.source
    if not loops:
        return True
    if len(loops) != 2 or any(table is not None for table, _ in alt.encodings):
        return False
    (_, pieces), (_, cells) = loops
    return is_builtin_call(pieces, "pieces", w.L) and is_builtin_call(cells, "slides", w.L)


def _free_cells(w: _Writer, items: Any) -> str | None:
    """The name of the board's cells when ``items`` is `empty_cells()` (which lists those
    holding no piece), else None."""
    if is_builtin_call(items, "empty_cells", w.L) and w.L.board is not None:
        return w.name_of(range(w.L.board.size))
    return None


def _encode(w: _Writer, x: str, table: Any, stride: int) -> str:
    value = x if table is None else f"{w.name_of(table)}[{x}]"
    return value if stride == 1 else f"{value} * {stride!r}"


def _conditions(w: _Writer, parts: list[Any], direct: bool = False) -> str | None:
    """The conjuncts as one Python condition (short-circuit, as the closures check them)."""
    if not parts:
        return None
    return " and ".join(f"({w.expr(part) if direct else _value(w, part)})" for part in parts)


def _value(w: _Writer, node: Any) -> str:
    if has_own_errors(node, w.L):
        return w.via_unit(node)
    return w.expr(node)


# ---------------------------------------------------------------------- a whole choice


def generate_choice(gen: Codegen, code: Any, push: Any) -> tuple[Any, Any] | None:
    """``enter(state, env)`` and ``resolve_choice(state, pending, index)`` of a choice
    (``codes.ChooseCode``) as generated functions, or None when nothing is generated.

    ``enter`` evaluates who decides, collects the option ids of every alternative in line
    (by tiers of priority: a lower tier only when the higher offer nothing), pays for a
    large choice, and records the pending decision, or enters the `otherwise` block.
    ``resolve_choice`` finds the alternative of an id by its range, binds the parameters
    (seats, cells, pieces and literals by arithmetic; a card by its kind, the first card of
    that kind its collection offers) and runs the alternative's body or enters its frame.
    Both do exactly what ``ChooseCode.enter`` and ``ChooseCode.resolve_choice`` do."""
    if not gen.generating:
        return None
    return _choice_enter(gen, code, push), _choice_resolve(gen, code, push)


def _choice_enter(gen: Codegen, code: Any, push: Any) -> Any:
    w = _Writer(gen, env=True)
    w.answered = True  # a Python error collecting the options: the reference collects them
    lines = ["def _e(s, e):", *_entry_lines(w, code, push)]
    return gen.load(f"n{len(gen.units)}", lines, {"_fail": _fail, **w.names}, "_e")


def _entry_lines(w: _Writer, code: Any, push: Any, own_env: bool = False) -> list[str]:
    """The body of a choice's entry (in a function of ``s`` and ``e``, at one indent); with
    ``own_env``, ``e`` is the entry's own (nothing reads it after), so the record keeps it uncopied."""
    lines = []
    if code.by is None:
        lines.append("    _p = s.current")
    else:
        local = local_name(code.by)  # (`by: me`, a procedure's parameter: read in line)
        by = f"e[{w.name_of(local)}]" if local is not None else f"{w.name_of(code.by)}(s, e)"
        lines += [f"    _p = {by}", "    if _p is None:",
                  f"        _fail({w.name_of('`choose ... by:` names no player (none)')}, {w.name_of(code.span)})"]
    tiers = code.tiers if code.tiers is not None else (code.alts,)
    ordered = _free_cells_in_order(w, tiers)
    distinct = not ordered and all(_distinct_ids(w, alt) for tier in tiers for alt in tier)
    lines += ordered or _collect_all(w, code, tiers, distinct)
    # the env a copy of its own (the block goes on in ``e``: copies of the state share the record)
    env = "e" if own_env else "_cp(e)"
    lines += [f"    if len(_ids) > {SMALL!r}:", f"        {w.name_of(code.check_options)}(s, len(_ids))",
              "    if _ids:",
              # the record made as its class makes it, without the call of its Python constructor
              f"        s.pending = {w.name_of(tuple.__new__)}({w.name_of(Pending)}, (_p, "
              f"{'_ids' if ordered or distinct else 'sorted(_ids)'}, None, {code.index!r}, {env}))"]
    if code.orelse is not None:
        orelse = BLOCK.display(code=repr(code.orelse), pc="0", env="_cp(e)")
        lines += ["    else:", f"        {w.name_of(push)}(s, {orelse})"]
    return lines


def generate_lone_turn(gen: Codegen, code: Any, push: Any, step_by: int, num_players: int, general: Any,
                       span: Any) -> Any:
    """``step(state, frame)`` of a phase whose turn is choice ``code`` alone, as one generated
    function (``PhaseCode.plain_step`` and the choice's entry in one call): the next seat in
    order starts its turn with the decision (its errors at the turn's statement); the phase's
    first turn, a seat `next` chose and a seat with turns to skip go to ``general``. None when
    nothing is generated."""
    if not gen.generating:
        return None
    w = _Writer(gen, env=True)
    w.answered = True
    call = f"{w.name_of(general)}(s, frame)"
    lines = ["def _t(s, frame):", f"    if frame[{STARTED!r}] == 0 or s.next_seat >= 0:", f"        {call}",
             "        return",
             f"    _p = (s.current + {step_by!r}) % {num_players!r}", "    if s.skips[_p] > 0:", f"        {call}",
             "        return", "    s.current = _p", "    s.turn += 1", "    e = {}", "    try:",
             *("    " + line for line in _entry_lines(w, code, push, own_env=True)),
             "    except _perr as _x:", f"        raise _rf(_x, {w.name_of(span)}) from None"]
    return gen.load(f"t{len(gen.units)}", lines, {**HELPERS, **w.names}, "_t")


def _free_cells_in_order(w: _Writer, tiers: Any) -> list[str]:
    """A choice of one empty cell (`for: c in empty_cells()`, no filter, one alternative): its ids
    as a list made in the order of the cells, so already sorted and without a repeat (nothing
    in it can raise: every cell is a cell). Else no lines."""
    if len(tiers) != 1 or len(tiers[0]) != 1:
        return []
    alt = tiers[0][0]
    loops, filters = alt.source
    if len(loops) != 1 or any(filters.values()) or alt.encodings[0][0] is not None:
        return []
    var, items = loops[0]
    cells = _free_cells(w, items)
    if cells is None:
        return []
    scope = dict(w.scope)
    x, occupied = w.bind_item(var, items), w.temp()
    encoded = _encode(w, x, None, alt.encodings[0][1])
    w.scope = scope
    if alt.offset:
        encoded = f"{alt.offset!r} + {encoded}"
    return [f"    {occupied} = s.cell_piece", f"    _ids = [{encoded} for {x} in {cells} if {occupied}[{x}] < 0]"]


def _collect_all(w: _Writer, code: Any, tiers: Any, distinct: bool = False) -> list[str]:
    """The lines collecting the option ids of every alternative into the set ``_ids``, or, when
    each is added once (``distinct``), into the list ``_ids``, sorted at the end (alternatives
    have ranges of ids of their own)."""
    # the options are found by expressions alone (nothing changes but the budget): in line,
    # and when Python raises there, the reference collects them and raises the error as it words it
    lines = ["    _ids = []" if distinct else "    _ids = set()", f"    _add = _ids.{'append' if distinct else 'add'}",
             "    _ops = s.ops", "    try:"]
    for depth, tier in enumerate(tiers):
        if depth:
            lines.append("    " * (depth + 1) + "if not _ids:")
        for alt in tier:
            loops, filters = alt.source
            if len(loops) <= 2:  # (deeper loops: the reference's collector, called)
                lines += _collect_lines(w, alt, loops, filters, depth + 2, direct=True, distinct=distinct)
            else:
                lines.append("    " * (depth + 2) + f"{w.name_of(alt.collect)}(s, e, _ids)")
    if distinct:
        lines.append("        _ids.sort()")
    # the reference pays for the options again, from where the step stood
    options = f"{w.name_of(code.options)}(s, e)"
    return lines + ["    except _errs:", "        s.ops = _ops",
                    f"        _ids = {f'sorted({options})' if distinct else options}"]


def _choice_resolve(gen: Codegen, code: Any, push: Any) -> Any:
    statements = block_writer(gen)  # (an alternative's body is written in line, by the same writer)
    w = statements.w
    lines = ["def _r(s, _pn, _ix):", f"    _a = _pn[{PENDING_LEGAL!r}][_ix]", f"    e = _cp(_pn[{PENDING_PAYLOAD!r}])"]
    for alt in code.alts:
        lines.append(f"    if {alt.offset!r} <= _a < {alt.offset + alt.size!r}:")
        if alt.steps:
            lines.append(f"        _q = _a - {alt.offset!r}")
        last = len(alt.steps) - 1
        for i, (var, stride, kind, data) in enumerate(alt.steps):
            key = w.name_of(var)
            digit = f"_q // {stride!r}" if stride != 1 else "_q"
            if kind == "id":
                lines.append(f"        e[{key}] = {digit}")
            elif kind == "literal":
                lines.append(f"        e[{key}] = {w.name_of(data)}[{digit}]")
            else:
                lines += _bind_card_lines(w, alt, i, key, digit, data)
            if i < last:
                lines.append(f"        _q = _q % {stride!r}")
        if alt.body_code < 0:
            # in line (``e`` is the decision's own copy: the body binds its names in it), or its closures
            body = block_lines(statements, alt.body, 2, private_env=True)
            lines += body if body is not None else [f"        {w.name_of(_body_closure(gen, alt))}(s, e)"]
        else:
            lines.append(f"        {w.name_of(push)}(s, {BLOCK.display(code=repr(alt.body_code), pc='0', env='e')})")
        lines.append("        return")
    lines.append(f"    _fail({w.name_of('internal: the action belongs to no alternative')}, {w.name_of(code.span)})")
    return gen.load(f"r{len(gen.units)}", lines, {**HELPERS, "_cd": bind_card, **w.names}, "_r")


def _body_closure(gen: Codegen, alt: Any) -> Any:
    """The closures of a body that nothing is written in line for (as ``generate_block`` answers)."""
    if alt.body_fn is None:
        alt.body_fn = compile_block_closure(alt.body, gen.L)
    return alt.body_fn


def _bind_card_lines(w: _Writer, alt: Any, i: int, key: str, digit: str, data: Any) -> list[str]:
    """``bind_card`` in line: the first card of the kind among the parameter's collection
    (written as the collector writes it), that passes the filter. When Python raises there,
    or no card is found, ``bind_card`` itself binds it or raises as it words it."""
    items, filt, kind_of = data
    reference = (f"_cd(s, e, {key}, {w.name_of(items)}, {w.name_of(filt) if filt else 'None'}, "
                 f"{w.name_of(kind_of)}, {digit}, {w.name_of(alt.span)})")
    source = w.listing(alt.source[0][i][1])
    kind, card = w.temp(), w.temp()
    lines = [f"        {kind} = {digit}", "        try:", f"            for {card} in {source}:",
             f"                if {w.name_of(kind_of)}[{card}] == {kind}:", f"                    e[{key}] = {card}"]
    if filt is not None:
        lines += [f"                    if not {w.name_of(filt)}(s, e):", "                        continue"]
    lines += ["                    break", "            else:", f"                {reference}",
              "        except _errs:", f"            {reference}"]
    return lines


def bind_card(s: Any, env: dict, var: str, items: Any, filt: Any, kind_of: Any, digit: int, span: Any) -> None:
    """Bind ``var`` to the card of kind ``digit`` an option's parameter stands for: the first
    of that kind its collection offers (with its filter), the card enumeration met first."""
    for card in items(s, env):  # (a filter changes nothing: the list need not be copied)
        if kind_of[card] == digit:
            env[var] = card
            if filt is None or filt(s, env):
                return
    raise RuleError(f"internal: no card of kind {digit} for '{var}'", span)
