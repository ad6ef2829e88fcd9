"""Positions in one open document: the compiler's and the editor's.

The compiler counts 1-based lines (split where YAML splits them) and 1-based columns in
characters; the Language Server Protocol counts 0-based lines (split at ``\\n``, ``\\r\\n``
and ``\\r`` only) and columns in the code units the client and server agreed on (UTF-16
unless the client offers UTF-8 or UTF-32). Everything goes through an offset into the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from rulespec.errors import _LINE_BREAK as _YAML_BREAK  # the one definition of YAML's line breaks

__all__ = ["TextMap", "word_at", "WORD", "ENCODINGS"]

_LSP_BREAK = re.compile("\r\n|\r|\n")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


ENCODINGS = ("utf-16", "utf-8", "utf-32")  # the position encodings of the protocol


class TextMap:
    """Offsets, compiler positions and editor positions of one text."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.encoding = encoding if encoding in ENCODINGS else "utf-16"
        self._yaml_starts = [0] + [m.end() for m in _YAML_BREAK.finditer(text)]
        self._lsp_starts = [0] + [m.end() for m in _LSP_BREAK.finditer(text)]

    # ---- the compiler's positions (1-based line and column, in characters)
    def offset_of(self, line: int, col: int) -> int:
        if line < 1:
            return 0
        if line > len(self._yaml_starts):
            return len(self.text)
        start = self._yaml_starts[line - 1]
        return min(start + max(col - 1, 0), self._line_end(self._yaml_starts, line - 1))

    def span_position(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self._yaml_starts, offset) - 1
        return index + 1, offset - self._yaml_starts[index] + 1

    # ---- the editor's positions (0-based line, code units of the encoding)
    def lsp_position(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self._lsp_starts, offset) - 1
        start = self._lsp_starts[index]
        return index, sum(self._units(ch) for ch in self.text[start:offset])

    def lsp_offset(self, line: int, character: int) -> int:
        if line < 0:
            return 0
        if line >= len(self._lsp_starts):
            return len(self.text)
        start = self._lsp_starts[line]
        end = self._line_end(self._lsp_starts, line)
        units = 0
        for i in range(start, end):
            if units >= character:
                return i
            units += self._units(self.text[i])
        return end

    def _units(self, ch: str) -> int:
        if self.encoding == "utf-16":
            return 2 if ord(ch) > 0xFFFF else 1
        if self.encoding == "utf-8":
            return len(ch.encode("utf-8", "surrogatepass"))
        return 1

    def lsp_line(self, line: int) -> str:
        if not 0 <= line < len(self._lsp_starts):
            return ""
        return self.text[self._lsp_starts[line] : self._line_end(self._lsp_starts, line)]

    @property
    def line_count(self) -> int:
        return len(self._lsp_starts)

    def line_start(self, offset: int) -> int:
        return self._lsp_starts[bisect_right(self._lsp_starts, offset) - 1]

    def _line_end(self, starts: list[int], index: int) -> int:
        """The offset of the line break that ends line ``index`` (or of the end of the text)."""
        if index + 1 >= len(starts):
            return len(self.text)
        breaks = "\r\n\x85\u2028\u2029" if starts is self._yaml_starts else "\r\n"
        end = starts[index + 1]
        while end > starts[index] and self.text[end - 1] in breaks:
            end -= 1
        return end


def word_at(text: str, offset: int) -> tuple[int, int] | None:
    """The (start, end) offsets of the name under or just before ``offset``, if any."""
    start = offset
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_") and text[start - 1].isascii():
        start -= 1
    end = offset
    while end < len(text) and (text[end].isalnum() or text[end] == "_") and text[end].isascii():
        end += 1
    match = WORD.match(text, start, end)
    if match is None or match.end() != end:
        return None
    return start, end
