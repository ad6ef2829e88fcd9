"""Hover, go to definition, find references and the outline of a document.

What a name refers to is the checker's answer (``Analysis.index``) when the text compiles;
while it does not, the name is looked up among the names the sections declare.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rulespec import types as T
from rulespec.errors import SpecError
from rulespec.source import PosDict, PosList, key_span, load_yaml, value_span

from .analysis import SECTION_KINDS, Analysis, Location, Occurrence, Symbol
from .complete import rule_text, signature
from .reference import load_reference, statement_keywords
from .text import word_at
from .yamlpath import place_at, schema_node

__all__ = ["hover", "definition", "references", "outline", "symbol_at", "OutlineSymbol"]

# the kinds a bare name is looked up in, in this order, when the checker has no answer
_LOOKUP_ORDER = ("define", "procedure", "zone", "variable", "action", "ranking", "table", "piece", "option")
_FIELD_OWNERS = (("player", T.PLAYER_FIELDS), ("cell", T.CELL_FIELDS), ("piece", T.PIECE_FIELDS))


@dataclass(frozen=True)
class OutlineSymbol:
    name: str
    kind: str  # section, option, zone, variable, define, procedure, action, ranking, table, piece, phase, key
    start: int  # offsets into the text
    end: int
    name_end: int
    children: tuple[OutlineSymbol, ...] = ()


# ---------------------------------------------------------------------------------- what is at a place


def symbol_at(analysis: Analysis, offset: int) -> tuple[Symbol | None, Occurrence | None, tuple[int, int] | None]:
    """The symbol of the name at ``offset``, the checker's occurrence of it (if any) and the word's offsets."""
    text = analysis.text
    word = word_at(text, offset)
    if word is None:
        return None, None, None
    line, col = analysis.map.span_position(word[0])
    index = analysis.index
    if index is not None:
        occ = index.at(analysis.path, line, col)
        if occ is not None:
            return occ.symbol, occ, word
    definitions = index.definitions if index is not None else analysis.names.definitions
    for symbol, loc in definitions.items():
        if loc.path == analysis.path and loc.line == line and loc.col <= col < loc.col + max(loc.length, 1):
            return symbol, None, word
    return _symbol_by_name(analysis, word), None, word


def _symbol_by_name(analysis: Analysis, word: tuple[int, int]) -> Symbol | None:
    text = analysis.text
    name = text[word[0]:word[1]]
    before = text[analysis.map.line_start(word[0]):word[0]]
    names = analysis.names
    if re.search(r"\boption\s*\.\s*$", before):
        return Symbol("option", name)
    if re.search(r"\bcall\s+$", before):
        return Symbol("procedure", name)
    if before.rstrip().endswith("."):
        if name in names.of("attribute"):
            return Symbol("attribute", name)
        if name in names.of("variable"):
            return Symbol("variable", name)
        return Symbol("field", name)
    if re.search(r"\bend\s+$", before):
        return Symbol("statement", "end")
    first = not rule_text(place_at(analysis.map, analysis.map.lsp_position(word[0])[0], before).text).strip()
    if first and name in statement_keywords():
        return Symbol("statement", name)
    for kind in _LOOKUP_ORDER:
        if name in names.of(kind):
            return Symbol(kind, name)
    if name in T.FUNCTIONS or name in T.BUILTIN_NAMES or name in T.AGGREGATES:
        return Symbol("builtin", name)
    if name in load_reference().statements:
        return Symbol("statement", name)
    return None


# ---------------------------------------------------------------------------------- hover


def hover(analysis: Analysis, offset: int) -> tuple[str, tuple[int, int]] | None:
    """Markdown about the name at ``offset``, and the offsets of that name."""
    symbol, occ, word = symbol_at(analysis, offset)
    if word is None:
        return None
    if occ is None and _is_key(analysis, word) and not _declared_at(analysis, symbol, word):
        doc = _key_doc(analysis, word)
        return (doc, word) if doc else None
    if symbol is None:
        return None
    text = _describe(analysis, symbol, occ)
    type_ = _type_of(analysis, symbol, occ)
    if type_ and symbol.kind not in ("builtin", "card", "local", "option"):
        text += f"\n\ntype: `{type_}` ({T.describe(type_)})"
    return (text, word) if text else None


def _type_of(analysis: Analysis, symbol: Symbol, occ: Occurrence | None) -> str | None:
    """The type the checker gave this use of the name, else the type its declaration says."""
    if occ is not None and occ.type:
        return occ.type
    body = analysis.names.of(symbol.kind).get(symbol.name)
    if occ is not None and symbol.kind == "variable" and isinstance(body, dict):
        return T.VARIABLE_TYPES.get(str(body.get("type")))
    return None


def _is_key(analysis: Analysis, word: tuple[int, int]) -> bool:
    return re.match(r"[ \t]*:(\s|$)", analysis.text[word[1]:word[1] + 40] + "\n") is not None


def _declared_at(analysis: Analysis, symbol: Symbol | None, word: tuple[int, int]) -> bool:
    """Is ``word`` the key that declares ``symbol`` (a name of `options:`, `zones:`, ...)?"""
    index = analysis.index
    found = (index.definitions if index is not None else analysis.names.definitions).get(symbol) if symbol else None
    return found is not None and found.path == analysis.path and \
        analysis.map.offset_of(found.line, found.col) == word[0]


def _key_doc(analysis: Analysis, word: tuple[int, int]) -> str | None:
    """The schema's description of a YAML key (a statement's documentation for `if:`, `for:`, ...)."""
    text = analysis.text
    before = text[analysis.map.line_start(word[0]):word[0]]
    place = place_at(analysis.map, analysis.map.lsp_position(word[0])[0], before)
    if place.key is not None:
        return None
    name = text[word[0]:word[1]]
    if name in load_reference().statements and schema_node(place.path).is_statement:
        return load_reference().statements[name]
    doc = schema_node(place.path).keys().get(name)
    return f"`{name}`: {doc}" if doc else None


def _describe(analysis: Analysis, symbol: Symbol, occ: Occurrence | None) -> str:
    kind, name = symbol
    body = analysis.names.of(kind).get(name)
    if kind == "builtin":
        doc = load_reference().builtin(name) or ""
        if name in T.FUNCTIONS:
            return f"```\n{signature(name)}\n```\n\n{doc}".strip()
        return doc or f"`{name}`: {T.BUILTIN_NAMES.get(name, T.AGGREGATES.get(name, ''))}"
    if kind == "statement":
        return load_reference().statements.get(name, "")
    if kind == "card":
        return _card_doc(analysis, name)
    if kind == "local":
        return _local_doc(analysis, name, occ.type if occ else None)
    if kind == "field":
        owners = [f"{owner}s: `{fields[name]}`" for owner, fields in _FIELD_OWNERS if name in fields]
        return f"**field** `{name}` of " + ", ".join(owners) if owners else f"**field** `{name}`"
    if kind in ("define", "procedure"):
        params = analysis.names.params.get(symbol, ())
        shown = f"{name}({', '.join(params)})" if params else name
        text = f"**{kind}** `{shown}`"
        if kind == "define" and isinstance(body, dict):  # {value, about}
            about, body = body.get("about"), body.get("value")
            if about:
                text += f"\n\nreads: \"{' '.join(str(about).split())}\""
        if kind == "define" and isinstance(body, str):
            text += f"\n\n```\n{' '.join(body.split())}\n```"
        return text
    return _section_doc(kind, name, body)


_DETAILS = {
    "option": ("type", "default", "values", "min", "max", "auto"),
    "variable": ("type", "per", "initial", "reset", "visibility"),
    "zone": ("per", "visibility", "face", "label"),
    "attribute": ("type", "default"),
    "action": ("for", "if", "label"),
    "piece": ("per_player", "label"),
    "ranking": ("size", "order"),
}
_TITLES = {"attribute": "card attribute"}


def _section_doc(kind: str, name: str, body: Any) -> str:
    lines = [f"**{_TITLES.get(kind, kind)}** `{name}`"]
    if isinstance(body, dict):
        details = [f"{key}: `{_shown(body[key])}`" for key in _DETAILS.get(kind, ()) if key in body]
        if details:
            lines.append(", ".join(details))
        if body.get("description"):
            lines.append(str(body["description"]))
        if isinstance(body.get("about"), str) and body["about"].strip():  # the designer's prose for readers
            lines.append(" ".join(body["about"].split()))
    return "\n\n".join(lines)


def _shown(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    except (TypeError, ValueError):
        return str(value)


def _card_doc(analysis: Analysis, name: str) -> str:
    index = analysis.index
    found = index.card_entries.get(name) if index is not None else None
    if found is None:
        return f"**card** `{name}`"
    attrs = ", ".join(f"{k}: `{_shown(v)}`" for k, v in sorted(found[1].items()) if k != "name")
    about = None
    if analysis.gamedef is not None and analysis.gamedef.model.cards is not None:
        entries = analysis.gamedef.model.cards.entries
        at = next((i for i, e in enumerate(entries) if e is found[0]), None)
        about = dict(analysis.gamedef.model.abouts).get(f"card:{at}") if at is not None else None
    return f"**card** `{name}`\n\n{attrs}" + (f"\n\n{about}" if about else "")


def _local_doc(analysis: Analysis, name: str, type_: str | None) -> str:
    text = f"`{name}`: {T.describe(type_) if type_ else 'a local name'}"
    if type_ == T.CARD and analysis.gamedef is not None:
        attrs = analysis.gamedef.info.attr_types
        text += "\n\ncard attributes: " + ", ".join(f"`{a}` ({t})" for a, t in sorted(attrs.items()))
    return text


# ---------------------------------------------------------------------------------- definition and references


def definition(analysis: Analysis, offset: int) -> Location | None:
    symbol, _, _ = symbol_at(analysis, offset)
    if symbol is None:
        return None
    index = analysis.index
    definitions = index.definitions if index is not None else analysis.names.definitions
    return definitions.get(symbol)


def references(analysis: Analysis, offset: int, include_declaration: bool = True) -> list[Location]:
    symbol, _, _ = symbol_at(analysis, offset)
    if symbol is None or symbol.kind in ("builtin", "statement", "local", "field"):
        return []
    index = analysis.index
    found = index.references(symbol) if index is not None else _mentions(analysis, symbol)
    declared = (index.definitions if index is not None else analysis.names.definitions).get(symbol)
    if include_declaration and declared is not None and declared not in found:
        found = [declared] + found
    return found


def _mentions(analysis: Analysis, symbol: Symbol) -> list[Location]:
    """While the text does not compile: the places the name is written in the open file."""
    pattern = rf"\boption\s*\.\s*({re.escape(symbol.name)})\b" if symbol.kind == "option" else \
        rf"(?<![\w.])({re.escape(symbol.name)})\b(?!\s*:)"
    out = []
    for match in re.finditer(pattern, analysis.text):
        line, col = analysis.map.span_position(match.start(1))
        out.append(Location(analysis.path, line, col, len(symbol.name)))
    return out


# ---------------------------------------------------------------------------------- outline


def outline(analysis: Analysis) -> list[OutlineSymbol]:
    """The sections of the open file, the names each declares, and the phases of the round."""
    try:
        data = load_yaml(analysis.text, analysis.path)
    except (SpecError, RecursionError):
        return _outline_by_lines(analysis.text)
    if not isinstance(data, PosDict):
        return []
    return _children(analysis, data, len(analysis.text), top=True)


def _children(analysis: Analysis, mapping: PosDict, end: int, top: bool = False) -> list[OutlineSymbol]:
    starts = []
    for key in mapping:
        span = key_span(mapping, key)
        if span is not None and span.file == analysis.path and span.line > 0:
            starts.append((analysis.map.offset_of(span.line, span.col), str(key)))
    starts.sort()
    out = []
    for i, (start, key) in enumerate(starts):
        stop = starts[i + 1][0] if i + 1 < len(starts) else end
        stop = len(analysis.text[:stop].rstrip())
        value = mapping.get(key)
        kind = "section" if top else "key"
        children: list[OutlineSymbol] = []
        if top and key in SECTION_KINDS and isinstance(value, PosDict):
            children = [_with_kind(c, SECTION_KINDS[key]) for c in _children(analysis, value, stop)]
        elif top and key == "round" and isinstance(value, PosDict):
            children = _children(analysis, value, stop) + _phases(analysis, value.get("phases"), stop)
        out.append(OutlineSymbol(key.split("(")[0], kind, start, max(stop, start + len(key)), start + len(key),
                                 tuple(children)))
    return out


def _with_kind(symbol: OutlineSymbol, kind: str) -> OutlineSymbol:
    return OutlineSymbol(symbol.name, kind, symbol.start, symbol.end, symbol.name_end, ())


def _phases(analysis: Analysis, phases: Any, end: int) -> list[OutlineSymbol]:
    if not isinstance(phases, PosList):
        return []
    out = []
    for i, phase in enumerate(phases):
        span = value_span(phases, i)
        if not isinstance(phase, PosDict) or span is None or span.file != analysis.path:
            continue
        start = analysis.map.offset_of(span.line, span.col)
        stop = analysis.map.offset_of(*_next_span(phases, i, span)) if i + 1 < len(phases) else end
        name = str(phase.get("name", f"phase {i + 1}"))
        out.append(OutlineSymbol(name, "phase", start, max(stop, start + 1), start + 1))
    return out


def _next_span(items: PosList, i: int, fallback: Any) -> tuple[int, int]:
    span = value_span(items, i + 1) or fallback
    return span.line, span.col


def _outline_by_lines(text: str) -> list[OutlineSymbol]:
    """A file that is not YAML yet: its top-level keys, each up to the next."""
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"^([A-Za-z_]\w*)[ \t]*:", text, re.M)]
    out = []
    for i, (start, key) in enumerate(starts):
        stop = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out.append(OutlineSymbol(key, "section", start, len(text[:stop].rstrip()), start + len(key)))
    return out
