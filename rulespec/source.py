"""Safe YAML loading that keeps the position of every node.

PyYAML's composer gives marks; we build plain data from its node graph ourselves so
that we can (1) reject duplicate keys, (2) bound aliases, depth and total size, and
(3) remember where each value came from. Mappings become ``PosDict``, sequences
``PosList`` and strings ``PosStr``; they behave exactly like ``dict``/``list``/``str``
(so JSON Schema and the rest of the pipeline see plain data) and carry positions.
"""

from __future__ import annotations

import bisect
import math
import os
import re
import stat
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import _LINE_BREAK, Diagnostics, LimitError, SourceSpan, YamlSyntaxError, printable, split_lines

__all__ = [
    "Limits",
    "PosDict",
    "PosList",
    "PosStr",
    "load_yaml",
    "read_spec_file",
    "span_of",
    "value_span",
]


class Limits:
    """Resource bounds for untrusted spec files."""

    max_bytes = 1_000_000
    max_depth = 64
    max_aliases = 100
    max_nodes = 50_000
    max_cards = 10_000
    max_rules = 10_000  # rule texts (expressions, statements, bindings, parts of labels) in one spec
    max_number_text = 100  # characters of one YAML number
    max_int = 2**63 - 1  # whole numbers lie in [-max_int - 1, max_int]


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
        breaks = self.__dict__.get("_breaks")
        if breaks is None:
            breaks = self._breaks = [m.end() for m in _LINE_BREAK.finditer(self._raw)]
        return _advance(self.span, self._raw, raw_index, breaks)


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


class _TagsFound(Exception):
    def __init__(self, tags: list[tuple[str, Any]]):
        super().__init__("explicit YAML tags")
        self.tags = tags


def _scan_limits(text: str, loader: Any) -> list[Any]:
    """Check alias count and nesting on the token stream; returns the marks of the aliases.

    Done before composing, so that neither an alias bomb nor a deeply nested document ever
    reaches the composer. Explicit tags (``!!int "x"``, ``!foo``) are refused here too: a
    spec's values are plain YAML, typed by how they are written.
    """
    aliases = []
    tags: list[tuple[str, Any]] = []
    depth = 0
    for token in yaml.scan(text, Loader=loader):
        if isinstance(token, yaml.TagToken):
            handle, suffix = token.value
            tags.append(((handle or "") + (suffix or ""), token.start_mark))
        elif isinstance(token, yaml.AliasToken):
            aliases.append(token.start_mark)
            if len(aliases) > Limits.max_aliases:
                raise _LimitHit(f"too many YAML aliases (more than {Limits.max_aliases})", token.start_mark)
        elif isinstance(token, _OPENERS):
            depth += 1
            if depth > Limits.max_depth:
                raise _LimitHit(f"nesting too deep (more than {Limits.max_depth} levels)", token.start_mark)
        elif isinstance(token, _CLOSERS):
            depth -= 1
    if tags:
        raise _TagsFound(tags)
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
    """1-based line and column of ``text[index]``, lines split as YAML splits them."""
    line, start = 1, 0
    for match in _LINE_BREAK.finditer(text, 0, index):
        line += 1
        start = match.end()
    return line, index - start + 1


def _clamp(span: SourceSpan, text: str) -> SourceSpan:
    """``span``, or the end of the last line when it lies past the end of the file."""
    lines = split_lines(text)
    if lines and span.line > len(lines):
        return SourceSpan(span.file, len(lines), len(lines[-1]) + 1)
    return span


def _break_count(text: str) -> int:
    return sum(1 for _ in _LINE_BREAK.finditer(text))


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
    except _TagsFound as found:
        for tag, mark in found.tags:
            shown = printable(tag if len(tag) <= 40 else tag[:40] + "...")
            diags.error(_span(file, mark), f"YAML tags are not allowed in a spec (found '{shown}')",
                        "remove the tag: values are typed by how they are written; quote a value to make it text")
        diags.raise_if_any(YamlSyntaxError)
    except yaml.reader.ReaderError as exc:
        line, col = _line_col(text, exc.position)
        diags.error(SourceSpan(file, line, col), f"YAML syntax: {_reader_problem(exc)}")
        diags.raise_if_any(YamlSyntaxError)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if mark is not None and exc.context_mark is not None and mark.line >= _break_count(text):
            mark = exc.context_mark  # an error at the end of the file: show where the unclosed thing opened
        message = (exc.problem or exc.context or "invalid YAML").strip()
        if exc.context and exc.problem:
            message = f"{exc.problem} ({exc.context})"
        message = message if len(message) <= 300 else message[:300] + "..."
        diags.error(_clamp(_span(file, mark), text) if mark else SourceSpan(file, 1, 1), f"YAML syntax: {message}",
                    _yaml_hint(str(exc.problem or "")))
        diags.raise_if_any(YamlSyntaxError)
    except (yaml.YAMLError, ValueError, UnicodeError, RecursionError, MemoryError) as exc:
        text_of = str(exc)
        diags.error(SourceSpan(file, 1, 1), f"YAML syntax: {text_of[:300]}")
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
                if self.aliases:
                    self.diags.error(
                        _span(self.file, self.aliases[0]),
                        f"document too large after expanding aliases (more than {Limits.max_nodes} values)",
                        "remove the aliases that repeat large parts of the file",
                    )
                else:
                    self.diags.error(_span(self.file, node.start_mark),
                                     f"document too large (more than {Limits.max_nodes} values)",
                                     "a spec this large is not needed for any game: say things once with "
                                     "`define:`, `procedures:` and card families")
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
        if node.tag in (_INT_TAG, _FLOAT_TAG) and len(node.value) > Limits.max_number_text:
            # int() of thousands of digits is refused by Python, and base 60 (1:2:3) is quadratic
            self.diags.error(span, f"number too long ({len(node.value)} characters; the limit is "
                             f"{Limits.max_number_text})", "quote it to make it text")
            return None
        try:
            value = self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            self.diags.error(span, f"unsupported YAML value: {getattr(exc, 'problem', exc)}")
            return None
        except (ValueError, ArithmeticError, TypeError):
            self.diags.error(span, f"unsupported YAML value: this is not a valid {_TAG_WORDS.get(node.tag, 'value')}",
                             "quote it to make it text")
            return None
        if isinstance(value, str):
            raw = self.text[node.start_mark.index : node.end_mark.index]
            text = PosStr(value, span, raw, node.style)
            bad = _BAD_CHARACTER.search(value)
            if bad is not None:
                code = ord(bad.group())
                if 0xD800 <= code <= 0xDFFF:
                    self.diags.error(text.at(bad.start()), f"text holds a lone surrogate (\\u{code:04x}), "
                                     "which is not a character", "write the character itself, not its UTF-16 halves")
                else:
                    self.diags.error(text.at(bad.start()), f"text holds a control character (\\x{code:02x})",
                                     "a spec's text may hold tabs and line breaks, but no other control characters")
            return text
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            if not -Limits.max_int - 1 <= value <= Limits.max_int:
                self.diags.error(span, f"number out of range: whole numbers in a spec lie between "
                                 f"{-Limits.max_int - 1} and {Limits.max_int}")
                return None
            return value
        if isinstance(value, float):
            if value != value:
                self.diags.error(span, "'.nan' is not allowed in a spec")
            elif not math.isfinite(value):
                self.diags.error(span, "an infinite number is not allowed in a spec")
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


_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_TAG_WORDS = {_INT_TAG: "whole number", _FLOAT_TAG: "number", "tag:yaml.org,2002:timestamp": "date",
              "tag:yaml.org,2002:bool": "true or false"}
# what a double-quoted escape can write but no spec text may hold: control characters other than
# tab and line breaks (a terminal obeys them), and lone surrogates (not characters; not even UTF-8)
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff]")


# --------------------------------------------------------------------------- reading files


def read_spec_file(path: str, diags: Diagnostics, span: SourceSpan | None = None, shown: str | None = None,
                   file: str | None = None) -> str | None:
    """The text of the spec file at ``path``, or None with the problem recorded in ``diags``.

    Only a regular file is read (a pipe, device or directory is refused before reading, so
    nothing blocks or streams forever), at most ``Limits.max_bytes`` of it, and it must be
    UTF-8. Problems are reported at ``span`` (the `extends:` naming the file) when given, else
    at the file itself; ``shown`` is how the path is named in messages, ``file`` the name its
    positions use. Nothing of the file's content is ever quoted.
    """
    shown = shown if shown is not None else path
    file = file if file is not None else path
    where = span or SourceSpan(file, 1, 1)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        diags.error(span or SourceSpan(file, 0, 0), f"file not found: {shown}")
        return None
    except IsADirectoryError:
        diags.error(where, f"{shown} is a directory, not a spec file")
        return None
    except (OSError, ValueError) as exc:
        diags.error(where, f"cannot read {shown}: {getattr(exc, 'strerror', None) or 'not a file name'}")
        return None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            diags.error(where, f"{shown} is a directory, not a spec file")
            return None
        if not stat.S_ISREG(info.st_mode):
            diags.error(where, f"{shown} is not a regular file (a device, pipe or socket), not a spec file")
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= Limits.max_bytes:
            chunk = os.read(fd, min(1 << 20, Limits.max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        diags.error(where, f"cannot read {shown}: {exc.strerror}")
        return None
    finally:
        os.close(fd)
    if size > Limits.max_bytes:
        total = max(size, info.st_size)
        diags.limit(span or SourceSpan(file, 1, 1),
                    f"file too large ({total} bytes; the limit is {Limits.max_bytes})" if span is None
                    else f"{shown} is too large ({total} bytes; the limit is {Limits.max_bytes})")
        return None
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[: exc.start].decode("utf-8", "replace")
        line, col = _line_col(good, len(good))
        diags.error(SourceSpan(file, line, col), f"invalid UTF-8 (byte 0x{data[exc.start]:02x}): "
                    "a spec file must be UTF-8 text")
        return None


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
        j = raw.find(ch, i, i + _FIND_WINDOW)  # bounded: never quadratic in a long text
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


_FIND_WINDOW = 512  # how far a value's next character is looked for in its raw text


def _advance(start: SourceSpan, raw: str, index: int, breaks: list[int] | None = None) -> SourceSpan:
    """The position of ``raw[index]``, ``raw`` starting at ``start``; ``breaks``: where its lines start."""
    if breaks is None:
        breaks = [m.end() for m in _LINE_BREAK.finditer(raw, 0, index)]
    newlines = bisect.bisect_right(breaks, index)
    line_start = breaks[newlines - 1] if newlines else 0
    if newlines == 0:
        return SourceSpan(start.file, start.line, start.col + index)
    return SourceSpan(start.file, start.line + newlines, index - line_start + 1)
