"""What the server knows about one version of one document.

* ``problems``: the compiler's diagnostics (exactly those of ``rulespec validate``), placed
  in the editor's coordinates; a problem in a base file reached through ``extends`` is
  placed on the ``extends`` line of the open file and names its own place.
* ``names``: the names each section declares and where, read from the YAML alone, so
  completion and go to definition work while a rule text is half written.
* ``index``: when the text compiles, every name, call and attribute of every rule, with
  the checker's answer to what it refers to (``CheckInfo.ref``) and its type.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, fields, is_dataclass, replace
from functools import cached_property
from typing import Any, NamedTuple

from rulespec import GameDef, SpecError, compile_text
from rulespec import ast as A
from rulespec.errors import Diagnostic, Diagnostics, SourceSpan
from rulespec.model import ActionRef, SpecModel
from rulespec.source import PosDict, key_span, load_yaml, value_span
from rulespec.variants import load_with_variants

from .text import WORD, TextMap

__all__ = ["Analysis", "Problem", "Location", "Symbol", "Occurrence", "Names", "Index", "SECTION_KINDS"]

# the sections whose keys are names, and the kind of symbol each declares
SECTION_KINDS = {
    "options": "option", "zones": "zone", "variables": "variable", "define": "define", "procedures": "procedure",
    "actions": "action", "rankings": "ranking", "tables": "table", "pieces": "piece",
}
# the checker's Ref kinds and the kind of symbol each names
_REF_KINDS = {
    "var": "variable", "pvar": "variable", "zone": "zone", "family": "zone", "define": "define",
    "proc": "procedure", "option": "option", "ranking": "ranking", "table": "table", "card_attr": "attribute",
    "builtin": "builtin", "player_field": "field", "cell_field": "field", "piece_field": "field",
    "card_name": "field", "local": "local",
}
SEVERITIES = ("error", "warning", "info", "hint")


class Symbol(NamedTuple):
    kind: str  # option, zone, variable, define, procedure, action, ranking, table, piece, attribute, card, ...
    name: str


@dataclass(frozen=True)
class Location:
    """A name's place: a file, the compiler's 1-based line and column, and its length in characters."""

    path: str
    line: int
    col: int
    length: int


@dataclass(frozen=True)
class Problem:
    """One diagnostic in the editor's coordinates (0-based lines, UTF-16 columns)."""

    start: tuple[int, int]
    end: tuple[int, int]
    message: str
    severity: str = "error"
    related: Location | None = None  # its own place, when it lies in a base file
    related_message: str = ""


@dataclass(frozen=True)
class Occurrence:
    """A name in a rule, with what the checker says it refers to."""

    location: Location
    symbol: Symbol
    type: str | None = None


@dataclass
class Names:
    """Declared names, read from the YAML (merged with its base spec when it can be)."""

    sections: dict[str, dict[str, Any]] = field(default_factory=dict)  # symbol kind -> {name: body}
    params: dict[Symbol, tuple[str, ...]] = field(default_factory=dict)  # defines and procedures
    definitions: dict[Symbol, Location] = field(default_factory=dict)

    def of(self, kind: str) -> dict[str, Any]:
        return self.sections.get(kind, {})


def names_of(data: Any) -> Names:
    names = Names()
    if not isinstance(data, dict):
        return names
    for section, kind in SECTION_KINDS.items():
        _add_section(names, data.get(section), kind)
    cards = data.get("cards")
    if isinstance(cards, dict):
        _add_section(names, cards.get("attributes"), "attribute")
    return names


def _add_section(names: Names, section: Any, kind: str) -> None:
    if not isinstance(section, dict):
        return
    table = names.sections.setdefault(kind, {})
    for key, body in section.items():
        text = str(key)
        name, _, rest = text.partition("(")
        name = name.strip()
        if not WORD.fullmatch(name):
            continue
        table[name] = body
        symbol = Symbol(kind, name)
        if kind in ("define", "procedure"):
            names.params[symbol] = tuple(p.strip() for p in rest.rstrip(")").split(",") if p.strip())
        span = key_span(section, key)
        if span is not None and span.line > 0:
            names.definitions[symbol] = Location(span.file, span.line, span.col, len(name))


class Index:
    """Every name the checker resolved in a compiled spec, by file and by symbol."""

    def __init__(self, gamedef: GameDef, names: Names):
        self.gamedef = gamedef
        self.definitions: dict[Symbol, Location] = dict(names.definitions)
        self.occurrences: list[Occurrence] = []
        self.card_entries: dict[str, tuple[Any, dict[str, Any]]] = {}  # card name -> (its entry, its attributes)
        self._collect()

    def at(self, path: str, line: int, col: int) -> Occurrence | None:
        """The occurrence covering the compiler position (``line``, ``col``) of ``path``."""
        for occ in self.occurrences:
            loc = occ.location
            if loc.path == path and loc.line == line and loc.col <= col <= loc.col + loc.length:
                return occ
        return None

    def references(self, symbol: Symbol) -> list[Location]:
        return [occ.location for occ in self.occurrences if occ.symbol == symbol]

    def types_by_name(self) -> dict[str, str]:
        """The type each bare name had where the checker met it (for completion after a dot)."""
        out: dict[str, str] = {}
        for occ in self.occurrences:
            if occ.type and occ.symbol.kind in ("local", "variable", "builtin", "define"):
                out.setdefault(occ.symbol.name, occ.type)
        return out

    # ---- building
    def _collect(self) -> None:
        model, info = self.gamedef.model, self.gamedef.info
        seen: set[int] = set()
        for node in _model_nodes(model):
            if id(node) in seen:
                continue
            seen.add(id(node))
            occ = _occurrence(node, info)
            if occ is not None:
                self.occurrences.append(occ)
            if isinstance(node, A.Alternative):
                self.definitions.setdefault(Symbol("action", node.action), _located(node.span, node.action))
        self._collect_cards(model)

    def _collect_cards(self, model: SpecModel) -> None:
        self.card_entries = _card_entries(model, self.gamedef.info.attr_types)
        for name, (entry, _) in self.card_entries.items():
            self.definitions[Symbol("card", name)] = _located(entry.span, "")
        for node in _model_nodes(model):
            if isinstance(node, A.Const) and isinstance(node.value, str) and node.value in self.card_entries:
                self.occurrences.append(Occurrence(_located(node.span, node.value, quoted=True),
                                                   Symbol("card", node.value), "str"))


def _located(span: SourceSpan, name: str, quoted: bool = False) -> Location:
    return Location(span.file, span.line, span.col, len(name) + (2 if quoted else 0))


def _model_nodes(model: SpecModel) -> Iterator[Any]:
    """Every AST node of the model (and the action names `choose` lists), in no set order."""
    stack: list[Any] = [model]
    while stack:
        value = stack.pop()
        if isinstance(value, A.Node):
            for node in A.walk(value):
                yield node
                if isinstance(node, A.Choose):
                    yield from (alt for alt in node.alternatives if isinstance(alt, ActionRef))
        elif is_dataclass(value) and not isinstance(value, type):
            stack.extend(getattr(value, f.name) for f in fields(value))
        elif isinstance(value, (tuple, list)):
            stack.extend(value)


def _occurrence(node: Any, info: Any) -> Occurrence | None:
    if isinstance(node, ActionRef):
        return Occurrence(_located(node.span, node.name), Symbol("action", node.name))
    if isinstance(node, A.Deal):
        return Occurrence(_located(node.family_span, node.family), Symbol("zone", node.family))
    ref = info.ref(node)
    kind = _REF_KINDS.get(ref.kind)
    if kind is None or getattr(node, "span", None) is None or node.span.line <= 0:
        return None
    if isinstance(node, A.Name):
        word = node.id
    elif isinstance(node, A.Attr):
        word = node.name
    elif isinstance(node, A.Call):
        word = node.func
    else:
        word = ref.name
    return Occurrence(_located(node.span, word), Symbol(kind, ref.name or word), info.types.get(id(node)))


def _card_entries(model: SpecModel, attr_types: dict[str, str]) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Card name -> the entry of ``cards.list`` that makes it and its attributes (with the options' defaults)."""
    from ..cards import build_card_table

    cards = model.cards
    if cards is None or not model.players:
        return {}
    options = {o.name: o.default for o in model.options}
    out: dict[str, tuple[Any, dict[str, Any]]] = {}
    for entry in cards.entries:
        one = replace(cards, decks=A.Const(cards.span, 1), entries=(entry,))
        try:
            table = build_card_table(one, attr_types, options, model.players[0])
        except Exception:  # copies that need a define or an option set at load time: no names from it
            continue
        for name, attrs in zip(table.kind_names, table.kind_attrs):
            out.setdefault(name, (entry, attrs))
    return out


class Analysis:
    """One version of an open document: its problems, names and (when it compiles) index."""

    def __init__(self, text: str, path: str, root: str | None = None, encoding: str = "utf-16"):
        self.text = text
        self.path = path
        self.root = root
        self.encoding = encoding  # of the editor's columns
        self.map = TextMap(text, encoding)
        self.gamedef: GameDef | None = None
        self.sources: dict[str, str] = {path: text}

    def check(self) -> list[Problem]:
        """Compile the text: the problems `rulespec validate` reports, none when it is valid."""
        try:
            self.gamedef = compile_text(self.text, self.path, self.root)
        except SpecError as error:
            self.sources.update(error.sources)
            return [self.problem(d) for d in error.diagnostics]
        self.sources.update(self.gamedef.sources)
        return []

    @cached_property
    def data(self) -> Any:
        """The YAML (merged with its base spec when that works), or None when it cannot be read."""
        diags = Diagnostics()
        try:
            data = load_with_variants(self.path, diags, self.text, root=self.root)
        except (SpecError, RecursionError):
            try:
                data = load_yaml(self.text, self.path)
            except (SpecError, RecursionError):
                return None
        for path, text in diags.sources.items():
            self.sources.setdefault(path, text)
        return data

    @cached_property
    def names(self) -> Names:
        return names_of(self.data)

    @cached_property
    def index(self) -> Index | None:
        return Index(self.gamedef, self.names) if self.gamedef is not None else None

    def text_map(self, path: str) -> TextMap | None:
        if path == self.path:
            return self.map
        text = self.sources.get(path)
        if text is None:
            return None
        return TextMap(text, self.encoding)

    # ---- problems
    def problem(self, diag: Diagnostic) -> Problem:
        """A compiler diagnostic in the editor's terms (one in a base file: on the `extends` line)."""
        message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
        severity = diag.severity if diag.severity in SEVERITIES else "error"
        span = diag.span
        if span is None or span.line <= 0 or span.file == self.path:
            offset = self.map.offset_of(span.line, span.col) if span is not None and span.line > 0 else 0
            return Problem(*self._range(offset), message, severity)
        shown = self._shown(span.file)
        where = f"{shown}:{span.line}:{span.col}"
        return Problem(*self._range(self._extends_offset()), f"{where}: {message}", severity,
                       Location(span.file, span.line, span.col, 1), diag.message)

    def _range(self, offset: int) -> tuple[tuple[int, int], tuple[int, int]]:
        end = _token_end(self.text, offset)
        return self.map.lsp_position(offset), self.map.lsp_position(end)

    def _extends_offset(self) -> int:
        try:
            data = load_yaml(self.text, self.path)
        except (SpecError, RecursionError):
            return 0
        span = value_span(data, "extends") if isinstance(data, PosDict) and "extends" in data else None
        return self.map.offset_of(span.line, span.col) if span is not None else 0

    def _shown(self, path: str) -> str:
        """A base file's name as the open file's `extends` would write it."""
        try:
            return os.path.relpath(path, os.path.dirname(self.path) or ".")
        except ValueError:
            return path


def _token_end(text: str, offset: int) -> int:
    """Where the word, number or quoted text starting at ``offset`` ends (one character at least)."""
    if offset >= len(text) or text[offset] in "\r\n":
        return offset
    match = WORD.match(text, offset)
    if match:
        return match.end()
    if text[offset] in "'\"":
        close = text.find(text[offset], offset + 1)
        line_end = min(i for i in (text.find("\n", offset), len(text)) if i >= 0)
        if 0 < close < line_end:
            return close + 1
    return offset + 1
