"""The documentation the server shows on hover, read from the language reference itself.

``docs/language.md`` is the one source: this module reads its tables of built-in names and
functions, its aggregate list and its statement sections (the package ships the page as
``interpreter/lsp/language.md``, a link to ``docs/language.md``), so a hover and the page
cannot say different things.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = ["Reference", "load_reference", "parse_reference", "reference_path", "statement_keywords"]

_HERE = Path(__file__).resolve().parent
_CODE = re.compile(r"`([^`]+)`")
_CALLED = re.compile(r"^([a-z_][a-z0-9_]*)\(")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_STMT_RULE = re.compile(r'^(\w+)_stmt:\s*"(\w+)"', re.M)
MAX_STATEMENT_LINES = 14  # prose lines of a statement's section shown on hover


@dataclass(frozen=True)
class Reference:
    """Markdown documentation per word: built-in functions, built-in names, aggregates, statements."""

    functions: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    aggregates: dict[str, str] = field(default_factory=dict)
    statements: dict[str, str] = field(default_factory=dict)

    def builtin(self, word: str) -> str | None:
        """The documentation of a built-in function, aggregate or name (None if it has none)."""
        parts = [text for table in (self.functions, self.aggregates, self.names) if (text := table.get(word))]
        return "\n\n".join(parts) or None


def reference_path() -> Path | None:
    """The language reference: shipped with the package, else the repository's docs/ folder."""
    for path in (_HERE / "language.md", _HERE.parent.parent / "docs" / "language.md"):
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=1)
def load_reference() -> Reference:
    path = reference_path()
    if path is None:
        return Reference()
    return parse_reference(path.read_text(encoding="utf-8"))


def statement_keywords() -> tuple[str, ...]:
    """The word each statement of ``rulespec/grammar.lark`` starts with (``move``, ``draw``, ...)."""
    return _statement_keywords()


@lru_cache(maxsize=1)
def _statement_keywords() -> tuple[str, ...]:
    from importlib.resources import files

    grammar = files("rulespec").joinpath("grammar.lark").read_text(encoding="utf-8")
    return tuple(dict.fromkeys(word for _, word in _STMT_RULE.findall(grammar)))


def parse_reference(text: str) -> Reference:
    sections = _sections(text)
    ref = Reference()
    for line in _table_rows(sections.get("Built-in functions", ("", []))[1]):
        _add_row(ref.functions, line, called=True)
    for line in _table_rows(sections.get("Built-in names", ("", []))[1]):
        _add_row(ref.names, line, called=False)
    for bullet in _bullets(sections.get("Aggregates", ("", []))[1]):
        for code in _CODE.findall(bullet.split(":", 1)[0]):
            match = _CALLED.match(code)
            if match:
                _append(ref.aggregates, match.group(1), bullet)
    keywords = set(statement_keywords()) | {"if", "for", "repeat", "while", "choose"}
    for title, (part, lines) in sections.items():
        if part == "Statements":
            for word in title.split():
                if word in keywords:
                    ref.statements[word] = _prose(lines)
    return ref


def _sections(text: str) -> dict[str, tuple[str, list[str]]]:
    """``## Title`` -> (the ``#`` title above it, the lines below it up to the next heading)."""
    out: dict[str, tuple[str, list[str]]] = {}
    part = ""
    current: list[str] | None = None
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            current = out.setdefault(line[3:].strip(), (part, []))[1]
            continue
        if not fence and line.startswith("# "):
            part, current = line[2:].strip(), None
            continue
        if current is not None:
            current.append(line)
    return out


def _table_rows(lines: list[str]) -> list[str]:
    rows = [line for line in _unfenced(lines) if line.startswith("| ")]
    return [row for row in rows if not row.startswith("| ---") and not _is_header(row)]


def _is_header(row: str) -> bool:
    first = row.split("|")[1].strip()
    return not first.startswith("`")


def _add_row(table: dict[str, str], row: str, called: bool) -> None:
    cells = [cell.strip() for cell in row.strip().strip("|").split(" | ")]
    forms = _CODE.findall(cells[0])
    doc = f"{cells[0]}: {' — '.join(cells[1:])}"
    for form in forms:
        match = _CALLED.match(form) if called else _NAME.match(form)
        if match:
            _append(table, match.group(1) if called else form, doc)


def _append(table: dict[str, str], word: str, doc: str) -> None:
    if doc not in table.get(word, ""):
        table[word] = f"{table[word]}\n\n{doc}" if word in table else doc


def _bullets(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in _unfenced(lines):
        if line.startswith("* "):
            out.append(line[2:].strip())
        elif line.startswith("  ") and out and line.strip():
            out[-1] += " " + line.strip()
        elif not line.strip() and out and not out[-1].endswith("\n"):
            out[-1] += "\n"
    return [b.strip() for b in out]


def _unfenced(lines: list[str]) -> list[str]:
    out, fence = [], False
    for line in lines:
        if line.startswith("```"):
            fence = not fence
            continue
        if not fence:
            out.append(line)
    return out


def _prose(lines: list[str]) -> str:
    """A statement section's text without its examples, at most MAX_STATEMENT_LINES lines."""
    kept = [line.rstrip() for line in _unfenced(lines)]
    while kept and not kept[0]:
        kept.pop(0)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip().splitlines()
    if len(text) > MAX_STATEMENT_LINES:
        text = text[:MAX_STATEMENT_LINES] + ["…"]
    return "\n".join(text)
