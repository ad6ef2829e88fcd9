"""Pictures drawn from the spec, as the playground draws a table (interpreter/serve/static/render.js):
a card is a framed box with its name; the board is a grid of named cells with the pieces on their
starting cells, one colour per seat."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["SEAT_COLOURS", "card_svg", "cards_svg", "board_svg"]

# the playground's seat colours (render.js COLOURS)
SEAT_COLOURS = ["#d1495b", "#2e86ab", "#3c9d5d", "#b8860b", "#7b4ea3", "#00798c", "#a05a2c", "#555"]
_CARD_W, _CARD_H = 86, 120


def _accent(group: int | str) -> str:
    """A group's colour: a colour's own name (a card's colour attribute), else one of the seats'."""
    if isinstance(group, str):
        return escape(group.lower(), quote=True)
    return SEAT_COLOURS[group % len(SEAT_COLOURS)]


def _lines(name: str, width: int = 11) -> list[str]:
    out: list[str] = []
    for word in name.split():
        if out and len(out[-1]) + 1 + len(word) <= width:
            out[-1] += " " + word
        else:
            out.append(word)
    return out[:3]


def card_svg(name: str, fields: dict[str, Any], group: int | str, corner: str = "", x: int = 0, y: int = 0) -> str:
    """One card: its name in the middle, ``corner`` (its points or number) at the top left, a
    band in the colour of its ``group`` (its kind: the caller picks the attribute that groups)."""
    colour = _accent(group)
    parts = [f'<g transform="translate({x},{y})">',
             f'<rect x="1" y="1" width="{_CARD_W - 2}" height="{_CARD_H - 2}" rx="8" fill="#fffdf6" '
             f'stroke="{colour}" stroke-width="2"/>',
             f'<rect x="1" y="{_CARD_H - 22}" width="{_CARD_W - 2}" height="21" rx="0" fill="{colour}"/>']
    if corner:
        parts.append(f'<text x="8" y="18" font-size="13" font-weight="bold" fill="{colour}">{escape(corner)}</text>')
    lines = _lines(name)
    top = _CARD_H / 2 - 8 * (len(lines) - 1) - 4
    for i, line in enumerate(lines):
        parts.append(f'<text x="{_CARD_W / 2}" y="{top + 16 * i:.0f}" font-size="12" text-anchor="middle" '
                     f'fill="#222">{escape(line)}</text>')
    parts.append("</g>")
    return "".join(parts)


def cards_svg(cards: list[tuple[str, dict[str, Any], int | str, str]], per_row: int = 7) -> str:
    """A row of cards (name, fields, group, corner), wrapped ``per_row`` to a line."""
    gap = 8
    rows = (len(cards) + per_row - 1) // per_row
    width = min(len(cards), per_row) * (_CARD_W + gap)
    height = rows * (_CARD_H + gap)
    body = "".join(card_svg(n, f, g, c, (i % per_row) * (_CARD_W + gap), (i // per_row) * (_CARD_H + gap))
                   for i, (n, f, g, c) in enumerate(cards))
    names = ", ".join(n for n, _, _, _ in cards)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="cards" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img" aria-label="{escape(names)}" '
            f'font-family="sans-serif">{body}</svg>')


def board_svg(rows: int, cols: int, cell_name: Any, pieces: dict[str, int], label: str) -> str:
    """The board: ``cell_name(row, col)`` names a cell (row 0 at the top); ``pieces`` maps a cell
    to the seat whose piece starts there."""
    size = 44
    margin = 20
    width, height = cols * size + 2 * margin, rows * size + 2 * margin
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" role="img" aria-label="{escape(label)}" font-family="sans-serif">']
    for r in range(rows):
        for c in range(cols):
            x, y = margin + c * size, margin + r * size
            fill = "#efe6d2" if (r + c) % 2 == 0 else "#e2d5b8"
            name = cell_name(r, c)
            out.append(f'<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{fill}" stroke="#8a7a5a"/>')
            out.append(f'<text x="{x + 3}" y="{y + 11}" font-size="9" fill="#6b5d40">{escape(name)}</text>')
            seat = pieces.get(name)
            if seat is not None:
                colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
                out.append(f'<circle cx="{x + size / 2}" cy="{y + size / 2 + 4}" r="12" fill="{colour}" '
                           'stroke="#222"/>')
                out.append(f'<text x="{x + size / 2}" y="{y + size / 2 + 8}" font-size="11" text-anchor="middle" '
                           f'fill="#fff">{seat + 1}</text>')
    out.append("</svg>")
    return "".join(out)
