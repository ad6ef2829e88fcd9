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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches

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
]


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
    lines = [f"{where}: {diag.severity}: {diag.message}"]
    text = sources.get(diag.span.file) if diag.span else None
    if diag.span and text is not None:
        source_lines = text.splitlines()
        if 1 <= diag.span.line <= len(source_lines):
            raw = source_lines[diag.span.line - 1].expandtabs(1)
            lines.append(f"    {raw}")
            caret_col = max(1, min(diag.span.col, len(raw) + 1))
            lines.append("    " + " " * (caret_col - 1) + "^")
    if diag.hint:
        lines.append(f"  hint: {diag.hint}")
    return "\n".join(lines)


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

    def error(self, span: SourceSpan | None, message: str, hint: str | None = None) -> None:
        diag = Diagnostic(span, message, hint)
        if diag not in self.items:
            self.items.append(diag)

    def limit(self, span: SourceSpan | None, message: str, hint: str | None = None) -> None:
        self.limit_hit = True
        self.error(span, message, hint)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, cls: type[SpecError] = SpecError) -> None:
        if self.items:
            items, self.items = self.items, []
            if self.limit_hit:
                self.limit_hit = False
                cls = LimitError
            raise cls(items, self.sources)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidate, or None."""
    pool = sorted({c for c in candidates if isinstance(c, str)})
    close = get_close_matches(name, pool, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    return None
