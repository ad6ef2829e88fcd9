"""Positions, diagnostics and the one place that formats them.

Exception hierarchy::

    SpecError                      a spec file is wrong; carries every Diagnostic found
    ├── YamlSyntaxError            not YAML at all, or a duplicate key
    ├── LimitError                 too large, too deep, too many aliases or cards
    ├── SchemaError                the structure does not match the JSON Schema
    ├── LanguageError              a rule string is not valid in the rule language
    ├── SemanticError              names, types, reachability
    └── VariantError               `extends`, patches, option overrides

Every diagnostic is printed as ``file:line:col: error: message``, then the source
line and a caret under the column, then an optional ``hint:`` line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import lru_cache

__all__ = [
    "SourceSpan",
    "Diagnostic",
    "Diagnostics",
    "SpecError",
    "YamlSyntaxError",
    "LimitError",
    "SchemaError",
    "LanguageError",
    "SemanticError",
    "VariantError",
    "did_you_mean",
    "format_diagnostic",
    "split_lines",
    "printable",
]

# What YAML (PyYAML and libyaml alike) counts as a line break; the caret display, the
# loader's positions and the rule language's positions all split lines this one way.
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
# Characters never printed raw in a message: C0/C1 controls (but tab), surrogates, line and
# paragraph separators, and the bidirectional overrides that can make text read differently.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e"
                          "\u2066-\u2069\ufeff]")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as YAML counts them (``\\r\\n``, ``\\r``, ``\\n``, U+0085, U+2028, U+2029)."""
    return _split_lines(text)


@lru_cache(maxsize=8)
def _split_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def printable(text: str) -> str:
    """``text`` with control, separator and bidi characters shown as escapes (safe for a terminal)."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                            else f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A place in a file: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def shifted(self, lines: int, col: int) -> SourceSpan:
        return SourceSpan(self.file, self.line + lines, col)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    span: SourceSpan | None
    message: str
    hint: str | None = None
    severity: str = "error"

    def format(self, sources: Mapping[str, str] | None = None) -> str:
        return format_diagnostic(self, sources or {})


def format_diagnostic(diag: Diagnostic, sources: Mapping[str, str]) -> str:
    """The single formatter: location, message, source line, caret, hint."""
    if diag.span is None:
        where = "<spec>"
    elif diag.span.line <= 0:
        where = diag.span.file
    else:
        where = str(diag.span)
    lines = [printable(f"{where}: {diag.severity}: {diag.message}")]
    text = sources.get(diag.span.file) if diag.span else None
    if diag.span and text is not None:
        source_lines = split_lines(text)
        if 1 <= diag.span.line <= len(source_lines):
            raw = source_lines[diag.span.line - 1]
            col = diag.span.col
            if len(raw) > _MAX_SHOWN:  # a very long line: show the part around the caret
                start = max(0, min(col - 1 - _MAX_SHOWN // 2, len(raw) - _MAX_SHOWN))
                raw, col = raw[start : start + _MAX_SHOWN], col - start
            raw = raw.expandtabs(1)  # one space per tab: columns are unchanged
            shown = printable(raw)
            # escapes widen the line: the caret goes under the escaped text of its character
            caret_col = max(1, min(len(printable(raw[: max(0, col - 1)])) + 1, len(shown) + 1))
            lines.append(f"    {shown}")
            lines.append("    " + " " * (caret_col - 1) + "^")
    if diag.hint:
        lines.append(printable(f"  hint: {diag.hint}"))
    return "\n".join(lines)


_MAX_SHOWN = 240  # characters of a source line shown under a message


class SpecError(Exception):
    """A spec could not be loaded; ``diagnostics`` lists every problem found."""

    kind = "spec"

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: Mapping[str, str] | None = None):
        self.diagnostics: list[Diagnostic] = sorted(
            diagnostics,
            key=lambda d: (d.span.file, d.span.line, d.span.col) if d.span else ("", 0, 0),
        )
        self.sources: dict[str, str] = dict(sources or {})
        super().__init__(self.format())

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]

    def format(self) -> str:
        return "\n".join(format_diagnostic(d, self.sources) for d in self.diagnostics)

    def __str__(self) -> str:
        return self.format()


class YamlSyntaxError(SpecError):
    kind = "yaml"


class LimitError(SpecError):
    kind = "limit"


class SchemaError(SpecError):
    kind = "schema"


class LanguageError(SpecError):
    kind = "language"


class SemanticError(SpecError):
    kind = "semantic"


class VariantError(SpecError):
    kind = "variant"


@dataclass
class Diagnostics:
    """Collects problems during one stage; ``raise_if_any`` ends the stage."""

    sources: dict[str, str] = field(default_factory=dict)
    items: list[Diagnostic] = field(default_factory=list)

    limit_hit: bool = False  # a resource limit was exceeded: the stage raises LimitError
    _seen: set[Diagnostic] = field(default_factory=set, repr=False, compare=False)
    work: dict[str, int] = field(default_factory=dict, repr=False, compare=False)  # counted against limits

    def error(self, span: SourceSpan | None, message: str, hint: str | None = None) -> None:
        diag = Diagnostic(span, message, hint)
        if diag not in self._seen:
            self._seen.add(diag)
            self.items.append(diag)

    def limit(self, span: SourceSpan | None, message: str, hint: str | None = None) -> None:
        self.limit_hit = True
        self.error(span, message, hint)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, cls: type[SpecError] = SpecError) -> None:
        if self.items:
            items, self.items = self.items, []
            self._seen = set()
            if self.limit_hit:
                self.limit_hit = False
                cls = LimitError
            raise cls(items, self.sources)


_HINT_NAME = 64  # longest name a hint is looked for
_HINT_POOL = 400  # most candidates compared (those closest in length)
HINT_BUDGET = 2_000_000  # candidates looked at for hints in one compilation
_HINT_WORK: ContextVar[list[int] | None] = ContextVar("rulespec_hint_work", default=None)


@contextmanager
def hint_budget(limit: int = HINT_BUDGET) -> Iterator[None]:
    """Within this block, ``did_you_mean`` looks at ``limit`` candidates in all, then gives no more hints."""
    token = _HINT_WORK.set([limit])
    try:
        yield
    finally:
        _HINT_WORK.reset(token)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, or None.

    Bounded: a long name gets no hint, and only the candidates closest in length are
    compared, so a spec with thousands of names and mistakes stays linear.
    """
    if not isinstance(name, str) or len(name) > _HINT_NAME:
        return None
    work = _HINT_WORK.get()
    if work is not None and work[0] <= 0:
        return None
    seen = 0
    found: set[str] = set()
    for c in candidates:
        seen += 1
        if isinstance(c, str) and len(c) <= _HINT_NAME:
            found.add(c)
    if work is not None:
        work[0] -= seen + min(len(found), _HINT_POOL) * 20  # a comparison costs more than a look
    pool = sorted(found)
    if len(pool) > _HINT_POOL:
        pool = sorted(sorted(pool, key=lambda c: abs(len(c) - len(name)))[:_HINT_POOL])
    close = get_close_matches(name, pool, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    return None
