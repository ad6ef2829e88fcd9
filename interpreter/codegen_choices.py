"""Generated Python for the options of a choice (the compiler backend, after ``codegen``).

A choice's alternative enumerates its parameters (``for: card in hand(current) if ...``)
and adds the id of each option to a set. The closure engine specialises this on the
shape (``flow.make_collector``); here the same shapes (no parameter, one, two) become one
generated function ``collect(state, env, ids)`` with the loops, filters and id encoding in
line and the loop variables as Python locals. It pays for its work exactly as the
closures do (the inner loop of two, by its length), and evaluates an expression whose
closure has error messages of its own through that expression's unit.
"""

from __future__ import annotations

from typing import Any

from .codegen import Codegen, _Writer
from .codegen_blocks import has_own_errors

__all__ = ["generate_collector"]


def generate_collector(gen: Codegen, alt: Any, loops: list[tuple[str, Any]], filters: dict[int, list[Any]]) -> Any:
    """``collect(state, env, ids)`` of an alternative, or None for a shape left to the closures.

    ``loops``: (variable, iterable node) per parameter; ``filters``: the conjuncts of its
    conditions by the level at which they can be checked (-1: before any loop)."""
    if not gen.generating or len(loops) > 2:
        return None
    w = _Writer(gen, env=True)
    lines = ["def _c(s, e, _ids):"]
    pre = _condition(w, filters.get(-1, []))
    if pre is not None:
        lines += [f"    if not ({pre}):", "        return"]
    if not loops:
        lines.append(f"    _ids.add({alt.offset!r})")
        return gen.load(f"c{len(gen.units)}", lines, w.names, "_c")
    lines.append("    _add = _ids.add")
    (var0, items0), *rest = loops
    table0, stride0 = alt.encodings[0]
    source0 = w.listing(items0)
    x = w.bind(var0)
    filter0 = _condition(w, filters.get(0, []))
    if not rest:
        encoded = f"{alt.offset!r} + {_encode(w, x, table0, stride0)}"
        if filter0 is None and ":=" not in source0:  # (no assignment expression in a comprehension's iterable)
            lines.append(f"    _ids.update([{encoded} for {x} in {source0}])")
        elif filter0 is None:
            lines += [f"    for {x} in {source0}:", f"        _add({encoded})"]
        else:
            lines += [f"    for {x} in list({source0}):", f"        if {filter0}:", f"            _add({encoded})"]
        return gen.load(f"c{len(gen.units)}", lines, w.names, "_c")
    (var1, items1), = rest
    table1, stride1 = alt.encodings[1]
    lines.append(f"    for {x} in list({source0}):")
    if filter0 is not None:
        lines += [f"        if not ({filter0}):", "            continue"]
    lines.append(f"        _b = {alt.offset!r} + {_encode(w, x, table0, stride0)}")
    source1 = w.listing(items1)  # may read the first parameter
    y = w.bind(var1)
    filter1 = _condition(w, filters.get(1, []))
    lines += [f"        _ys = {source1}", "        s.ops -= len(_ys)", "        if s.ops < 0:",
              f"            _ov(s, {w.name_of(alt.span)})"]
    encoded = f"_b + {_encode(w, y, table1, stride1)}"
    if filter1 is None:
        lines += [f"        for {y} in _ys:", f"            _add({encoded})"]
    else:
        lines += [f"        for {y} in list(_ys):", f"            if {filter1}:", f"                _add({encoded})"]
    return gen.load(f"c{len(gen.units)}", lines, w.names, "_c")


def _encode(w: _Writer, x: str, table: Any, stride: int) -> str:
    value = x if table is None else f"{w.name_of(table)}[{x}]"
    return value if stride == 1 else f"{value} * {stride!r}"


def _condition(w: _Writer, parts: list[Any]) -> str | None:
    """The conjuncts as one Python condition (short-circuit, as the closures check them)."""
    if not parts:
        return None
    return " and ".join(f"({_value(w, part)})" for part in parts)


def _value(w: _Writer, node: Any) -> str:
    if has_own_errors(node, w.L):
        return w.via_unit(node)
    return w.expr(node)
