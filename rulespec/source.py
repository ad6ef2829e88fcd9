"""Safe YAML loading that keeps the position of every node.

PyYAML's composer gives marks; we build plain data from its node graph ourselves so
that we can (1) reject duplicate keys, (2) bound aliases, depth and total size, and
(3) remember where each value came from. Mappings become ``PosDict``, sequences
``PosList`` and strings ``PosStr``; they behave exactly like ``dict``/``list``/``str``
(so JSON Schema and the rest of the pipeline see plain data) and carry positions.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import Diagnostics, LimitError, SourceSpan, YamlSyntaxError

__all__ = [
    "Limits",
    "PosDict",
    "PosList",
    "PosStr",
    "load_yaml",
    "span_of",
    "value_span",
]


class Limits:
    """Resource bounds for untrusted spec files."""

    max_bytes = 1_000_000
    max_depth = 64
    max_aliases = 100
    max_nodes = 200_000
    max_cards = 10_000


class PosStr(str):
    """A string that knows where it was written, character by character."""

    span: SourceSpan
    _raw: str
    _style: str | None

    def __new__(cls, value: str, span: SourceSpan, raw: str = "", style: str | None = None) -> PosStr:
        obj = super().__new__(cls, value)
        obj.span = span
        obj._raw = raw
        obj._style = style
        return obj

    def __reduce__(self):  # pickles (multiprocessing) as a plain str
        return (str, (str(self),))

    def at(self, offset: int) -> SourceSpan:
        """The file position of character ``offset`` of this string's value."""
        offsets = self.__dict__.get("_offsets")
        if offsets is None:
            offsets = self._offsets = _value_offsets(self, self._raw, self._style)
        if not offsets:
            return self.span
        offset = max(0, min(offset, len(offsets) - 1))
        raw_index = offsets[offset]
        return _advance(self.span, self._raw, raw_index)


class PosDict(dict):
    """A mapping with the spans of its keys and values."""

    span: SourceSpan
    key_spans: dict[str, SourceSpan]
    value_spans: dict[str, SourceSpan]

    def __init__(self, *args: Any, span: SourceSpan | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.span = span or SourceSpan("<generated>", 1, 1)
        self.key_spans = {}
        self.value_spans = {}
        self.removed: dict[str, SourceSpan] = {}  # keys a variant's patch removed, and where


class PosList(list):
    """A sequence with the span of each item."""

    span: SourceSpan
    item_spans: list[SourceSpan]
    flow: bool

    def __init__(self, *args: Any, span: SourceSpan | None = None, flow: bool = False) -> None:
        super().__init__(*args)
        self.span = span or SourceSpan("<generated>", 1, 1)
        self.item_spans = []
        self.flow = flow


def span_of(value: Any) -> SourceSpan | None:
    """The span a value carries itself (containers and strings)."""
    return getattr(value, "span", None)


def value_span(container: Any, key: Any) -> SourceSpan | None:
    """The span of ``container[key]``, falling back to the container's own span."""
    if isinstance(container, PosDict):
        span = container.value_spans.get(key)
        if span is not None:
            return span
    elif isinstance(container, PosList) and isinstance(key, int):
        if 0 <= key < len(container.item_spans):
            return container.item_spans[key]
    return span_of(container)


def key_span(container: Any, key: Any) -> SourceSpan | None:
    if isinstance(container, PosDict):
        return container.key_spans.get(key) or container.span
    return span_of(container)


# --------------------------------------------------------------------------- loading


class _LimitHit(Exception):
    def __init__(self, message: str, mark: Any):
        super().__init__(message)
        self.message = message
        self.mark = mark


_C_LOADER = getattr(yaml, "CSafeLoader", None)  # libyaml, when PyYAML was built with it
_OPENERS = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
            yaml.FlowSequenceStartToken)
_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def _scan_limits(text: str, loader: Any) -> list[Any]:
    """Check alias count and nesting on the token stream; returns the marks of the aliases.

    Done before composing, so that neither an alias bomb nor a deeply nested document ever
    reaches the composer.
    """
    aliases = []
    depth = 0
    for token in yaml.scan(text, Loader=loader):
        if isinstance(token, yaml.AliasToken):
            aliases.append(token.start_mark)
            if len(aliases) > Limits.max_aliases:
                raise _LimitHit(f"too many YAML aliases (more than {Limits.max_aliases})", token.start_mark)
        elif isinstance(token, _OPENERS):
            depth += 1
            if depth > Limits.max_depth:
                raise _LimitHit(f"nesting too deep (more than {Limits.max_depth} levels)", token.start_mark)
        elif isinstance(token, _CLOSERS):
            depth -= 1
    return aliases


def _compose(text: str, fast: bool) -> tuple[Any, list[Any]]:
    """The node graph of ``text`` and the marks of its aliases (C parser when ``fast``)."""
    yaml.reader.Reader(text)  # refuses unprintable characters, with PyYAML's message
    loader = _C_LOADER if fast and _C_LOADER is not None else yaml.SafeLoader
    aliases = _scan_limits(text, loader)
    composer = loader(text)
    try:
        return composer.get_single_node(), aliases
    finally:
        composer.dispose()


def _yaml_hint(problem: str) -> str | None:
    if "but got '['" in problem or "but got '{'" in problem:
        return "a [ or { inside a [ ] list starts a nested list or mapping: quote the whole item"
    if "<block mapping start>" in problem or "<block end>" in problem:
        return "check the indentation of this line against the lines above it"
    if "mapping values are not allowed" in problem:
        return "a ': ' inside plain text starts a mapping: quote the whole text"
    if "found character '\\t'" in problem:
        return "YAML indentation must use spaces, not tabs"
    return None


def _line_col(text: str, index: int) -> tuple[int, int]:
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1


def _reader_problem(exc: Any) -> str:
    character = exc.character
    code = ord(character) if isinstance(character, str) else int(character)
    return f"unacceptable character #x{code:04x}: {exc.reason}"


def _span(file: str, mark: Any) -> SourceSpan:
    return SourceSpan(file, mark.line + 1, mark.column + 1)


def load_yaml(text: str, file: str, diags: Diagnostics | None = None) -> Any:
    """Parse ``text`` into position-carrying plain data, or raise a SpecError."""
    diags = diags if diags is not None else Diagnostics()
    diags.sources[file] = text
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > Limits.max_bytes:
        diags.error(
            SourceSpan(file, 1, 1),
            f"file too large ({size} bytes; the limit is {Limits.max_bytes})",
        )
        diags.raise_if_any(LimitError)
    try:
        try:
            node, aliases = _compose(text, fast=True)
        except yaml.YAMLError:
            node, aliases = _compose(text, fast=False)  # PyYAML's own words for the mistake
    except _LimitHit as hit:
        diags.error(_span(file, hit.mark), hit.message, "spec files may not nest or alias this much")
        diags.raise_if_any(LimitError)
    except yaml.reader.ReaderError as exc:
        line, col = _line_col(text, exc.position)
        diags.error(SourceSpan(file, line, col), f"YAML syntax: {_reader_problem(exc)}")
        diags.raise_if_any(YamlSyntaxError)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if mark is not None and exc.context_mark is not None and mark.line >= text.count("\n"):
            mark = exc.context_mark  # an error at the end of the file: show where the unclosed thing opened
        message = (exc.problem or exc.context or "invalid YAML").strip()
        if exc.context and exc.problem:
            message = f"{exc.problem} ({exc.context})"
        diags.error(_span(file, mark) if mark else SourceSpan(file, 1, 1), f"YAML syntax: {message}",
                    _yaml_hint(str(exc.problem or "")))
        diags.raise_if_any(YamlSyntaxError)
    except (yaml.YAMLError, ValueError, UnicodeError, RecursionError) as exc:
        diags.error(SourceSpan(file, 1, 1), f"YAML syntax: {exc}")
        diags.raise_if_any(YamlSyntaxError)
    if node is None:
        return PosDict(span=SourceSpan(file, 1, 1))
    builder = _Builder(file, text, aliases, diags)
    data = builder.build(node)
    if builder.limit_hit:
        diags.raise_if_any(LimitError)
    diags.raise_if_any(YamlSyntaxError)
    return data


class _Builder:
    """Turns a composed node graph into PosDict/PosList/PosStr data."""

    def __init__(self, file: str, text: str, aliases: list[Any], diags: Diagnostics):
        self.file = file
        self.text = text
        self.constructor = yaml.constructor.SafeConstructor()
        self.diags = diags
        self.nodes = 0
        self.limit_hit = False
        self.active: set[int] = set()
        self.built: set[int] = set()  # collections met before: meeting one again is an alias
        self.alias_marks = list(reversed(aliases))  # aliases in the text, next one last
        self.aliases: list[Any] = []  # marks of the aliases being expanded, outermost first

    def child(self, parent: Node, key: Any, node: Node) -> Any:
        # Building follows the text, so each node met again outside an expansion is the
        # next alias written in the text.
        if id(node) in self.built and not self.aliases and self.alias_marks:
            self.aliases.append(self.alias_marks.pop())
            try:
                return self.build(node)
            finally:
                self.aliases.pop()
        return self.build(node)

    def build(self, node: Node) -> Any:
        self.nodes += 1
        if self.nodes > Limits.max_nodes:
            if not self.limit_hit:
                self.limit_hit = True
                self.diags.error(
                    _span(self.file, self.aliases[0] if self.aliases else node.start_mark),
                    f"document too large after expanding aliases (more than {Limits.max_nodes} values)",
                    "remove the aliases that repeat large parts of the file",
                )
            return None
        if self.limit_hit:
            return None
        if id(node) in self.active:
            self.diags.error(_span(self.file, node.start_mark), "a YAML alias refers to itself (recursive structure)")
            return None
        self.built.add(id(node))
        if isinstance(node, ScalarNode):
            return self.scalar(node)
        self.active.add(id(node))
        try:
            if isinstance(node, SequenceNode):
                return self.sequence(node)
            if isinstance(node, MappingNode):
                return self.mapping(node)
        finally:
            self.active.discard(id(node))
        self.diags.error(_span(self.file, node.start_mark), "unsupported YAML node")
        return None

    def scalar(self, node: ScalarNode) -> Any:
        span = _span(self.file, node.start_mark)
        try:
            value = self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            self.diags.error(span, f"unsupported YAML value: {getattr(exc, 'problem', exc)}")
            return None
        if isinstance(value, str):
            raw = self.text[node.start_mark.index : node.end_mark.index]
            return PosStr(value, span, raw, node.style)
        if value is None or isinstance(value, (bool, int, float)):
            if isinstance(value, float) and value != value:
                self.diags.error(span, "'.nan' is not allowed in a spec")
            return value
        self.diags.error(
            span,
            f"unsupported YAML value of type {type(value).__name__}",
            "quote it to make it text",
        )
        return None

    def sequence(self, node: SequenceNode) -> PosList:
        out = PosList(span=_span(self.file, node.start_mark), flow=bool(node.flow_style))
        for i, item in enumerate(node.value):
            out.append(self.child(node, i, item))
            out.item_spans.append(_span(self.file, item.start_mark))
        return out

    def mapping(self, node: MappingNode) -> PosDict:
        out = PosDict(span=_span(self.file, node.start_mark))
        for key_node, value_node in node.value:
            key_span = _span(self.file, key_node.start_mark)
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.diags.error(key_span, "YAML merge keys ('<<') are not supported", "use `extends:` and patches")
                continue
            if not isinstance(key_node, ScalarNode):
                self.diags.error(key_span, "a mapping key must be plain text")
                continue
            key = self.scalar(key_node)
            if isinstance(key, bool) or key is None or isinstance(key, float):
                self.diags.error(key_span, f"a mapping key must be text, not {key!r}", "quote the key")
                continue
            if isinstance(key, int):
                key = PosStr(str(key), key_span, str(key), None)
            if key in out:
                first = out.key_spans[key]
                self.diags.error(
                    key_span,
                    f"duplicate key '{key}' (first defined at line {first.line})",
                    "YAML would silently keep only the last one; remove or rename one of them",
                )
                continue
            out[key] = self.child(node, id(key_node), value_node)
            out.key_spans[key] = key_span
            out.value_spans[key] = _span(self.file, value_node.start_mark)
        return out


# --------------------------------------------------------------------------- offsets


_ESCAPE_LENGTH = {"x": 4, "u": 6, "U": 10}


def _value_offsets(value: str, raw: str, style: str | None) -> list[int]:
    """For each character of ``value`` (plus one past the end), its index in ``raw``."""
    if not raw:
        return [0] * (len(value) + 1)
    out: list[int] = []
    i = 0
    if style in ("'", '"'):
        i = 1
    elif style in ("|", ">"):
        i = raw.find("\n") + 1 if "\n" in raw else len(raw)
    for ch in value:
        if style == '"' and i < len(raw) and raw[i] == "\\":
            out.append(i)
            nxt = raw[i + 1] if i + 1 < len(raw) else ""
            i += _ESCAPE_LENGTH.get(nxt, 2)
            continue
        j = raw.find(ch, i)
        if ch in " \n" and (j < 0 or raw[i:j].strip()):
            j = i  # a folded line break: the value's space stands for raw whitespace
        if j < 0:
            j = i
        out.append(j)
        i = j + 1
        if style == "'" and ch == "'" and raw[j : j + 2] == "''":
            i = j + 2
    out.append(min(i, len(raw)))
    return out


def _advance(start: SourceSpan, raw: str, index: int) -> SourceSpan:
    before = raw[:index]
    newlines = before.count("\n")
    if newlines == 0:
        return SourceSpan(start.file, start.line, start.col + index)
    return SourceSpan(start.file, start.line + newlines, index - before.rfind("\n"))
