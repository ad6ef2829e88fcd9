"""What is in the box: the players, the cards (a table and pictures), the places cards lie, the board."""

from __future__ import annotations

from typing import Any

from ..describe.players import _entry_cards
from ..describe.text import range_text, value_text, words
from ..zones import PER_PLAYER, kind_of
from .document import Para, Picture, Section, Table
from .pictures import board_svg, cards_svg
from .speaker import Speaker, sentence

__all__ = ["components_section", "card_kinds", "players_text"]

_VISIBLE = {
    "public": "face up for everyone to see",
    "owner": "only its owner looks at its cards",
    "hidden": "face down: nobody looks at its cards",
    "top": "face up, only the top card shows",
}
_PICTURED = 24  # at most this many cards are drawn


def players_text(sp: Speaker) -> str:
    counts = list(sp.model.players)
    if len(counts) == 1:
        return f"{counts[0]} players"
    if counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]} players"
    return " or ".join(str(c) for c in counts) + " players"


def card_kinds(sp: Speaker) -> list[tuple[int, list[tuple[str, dict[str, Any]]]]]:
    """Each line of the card list (its index) with its cards."""
    cards = sp.model.cards
    if cards is None:
        return []
    return [(i, _entry_cards(entry, cards)) for i, entry in enumerate(cards.entries)]


def _effect_text(sp: Speaker, index: int, fields: dict[str, Any]) -> str:
    about = sp.about(f"card:{index}")
    if about:
        return about
    cards = sp.model.cards
    texts = []
    for attr in cards.attributes if cards else ():
        if attr.type == "procedure":
            proc = fields.get(attr.name, attr.default)
            text = sp.card_effect(attr.name, proc) if str(proc) in sp.procs else ""
            if text and "nothing" not in text.lower():
                texts.append(text)
    return " ".join(texts)


def _copies_text(sp: Speaker, entry: Any, kinds: int) -> str:
    copies = sp.expr(entry.copies)
    return copies if kinds == 1 else f"{copies} of each"


def components_section(sp: Speaker) -> Section:
    section = Section("Components", main=False, anchor="components")
    cards = sp.model.cards
    if cards is not None:
        kinds = card_kinds(sp)
        total = None
        try:
            total = sum(int(sp.expr(e.copies)) * len(k) for e, (_, k) in zip(cards.entries, kinds))
        except ValueError:
            pass
        decks = sp.known(cards.decks)
        deck_text = ""
        if not (isinstance(decks, int) and decks == 1):
            deck_text = f" How many decks to shuffle together: {sp.expr(cards.decks)}."
        if total is not None:
            section.blocks.append(Para(f"A deck of {total} cards.{deck_text}"))
        plain = [a.name for a in cards.attributes if a.type not in ("procedure",) and a.name != "name"]
        family_attrs = {f for e in cards.entries for f, _, _ in e.family}
        shown = [a for a in plain if any(a in {k for k, _, _ in e.attrs} for e in cards.entries)] + \
            [a for a in sorted(family_attrs) if a not in plain]
        effects = any(sp.about(f"card:{i}") for i in range(len(cards.entries))) or \
            any(a.type == "procedure" for a in cards.attributes)
        header = ["card", "copies"] + [words(a) for a in shown if a not in ("value",) or a in family_attrs]
        keep = [a for a in shown if a not in ("value",) or a in family_attrs]
        if effects:
            header.append("what it does")
        rows = []
        for (index, entry_cards), entry in zip(kinds, cards.entries):
            attrs = {k: v for k, v, _ in entry.attrs}
            family = {n: v for n, v, _ in entry.family}
            names = [n for n, _ in entry_cards]
            what = ", ".join(names) if len(names) <= 3 else f"{names[0]} to {names[-1]}"
            row = [what, _copies_text(sp, entry, len(names))]
            for a in keep:
                row.append(range_text(family[a]) if a in family else value_text(attrs[a]) if a in attrs else "")
            if effects:
                row.append(_effect_text(sp, index, entry_cards[0][1]) if entry_cards else "")
            rows.append(row)
        if len(rows) == 1 and rows[0][0].count(" to ") and cards.entries[0].family:
            fam = cards.entries[0].family
            each = "; ".join(f"{words(n)}: {range_text(v)}" for n, v, _ in fam)
            section.blocks.append(Para(f"One card of each combination ({each})."))
        else:
            section.blocks.append(Table(header, rows, caption="The cards"))
        section.blocks.append(_card_pictures(sp, kinds))
    places = []
    for zone in sp.model.zones:
        about = sp.about(f"zone:{zone.name}")
        kind = kind_of(zone)
        if about is None and zone.label == zone.name and kind is PER_PLAYER and zone.visibility != "owner":
            continue  # a place the rules only use behind the scenes
        each = "one per player" if kind is PER_PLAYER else "one per board space" if kind.located else "one on the table"
        places.append([sentence(zone.label).rstrip("."), each, _VISIBLE.get(zone.visibility, zone.visibility),
                       about or ""])
    if places:
        section.blocks.append(Table(["place", "how many", "who sees the cards", "what it is"], places,
                                    caption="Where the cards lie"))
    board = sp.model.board
    if board is not None and board.rows_rule is None and board.cols_rule is None:
        for piece in sp.model.pieces:
            for count, seats, _ in piece.start:
                starts = {cell: seat for seat, cells in enumerate(seats) for cell in cells}
                svg = board_svg(board.rows, board.cols,
                                lambda r, c: f"{chr(ord('a') + c)}{board.rows - r}", starts,
                                f"the board with {count} players' {piece.label}s on their starting cells")
                where = "; ".join(f"player {i + 1}: {', '.join(cells)}" for i, cells in enumerate(seats))
                sides = "; ".join(f"player {i + 1}: {', '.join(_side(c, board.rows, board.cols) for c in cells)}"
                                  for i, cells in enumerate(seats))
                section.blocks.append(Para(f"The board ({board.rows} by {board.cols}) with {count} players: "
                                           f"{words(piece.label)}s start on {where} ({sides})."))
                section.blocks.append(Picture(svg, f"board, {count} players: {where}"))
    return section


def _side(cell: str, rows: int, cols: int) -> str:
    """Where a cell lies as seen on the picture: "top left", "bottom", "middle"."""
    col, row = ord(cell[0]) - ord("a"), int(cell[1:]) if cell[1:].isdigit() else 0
    vertical = "top" if row == rows else "bottom" if row == 1 else ""
    horizontal = "left" if col == 0 else "right" if col == cols - 1 else ""
    return " ".join(w for w in (vertical, horizontal) if w) or "middle"


def _grouping(sp: Speaker) -> str | None:
    """The attribute that sorts the cards into kinds for their pictures' colours: what a ranking
    calls a suit (`same:`), else a `type` attribute."""
    for r in sp.model.rankings:
        for c in r.categories:
            if c.same:
                return str(c.same)
    cards = sp.model.cards
    names = {a.name for a in cards.attributes} if cards else set()
    return "type" if "type" in names else None


def _card_pictures(sp: Speaker, kinds: list[tuple[int, list[tuple[str, dict[str, Any]]]]]) -> Picture:
    chosen: list[tuple[str, dict[str, Any], int | str, str]] = []
    many = sum(len(k) for _, k in kinds) > _PICTURED
    grouping = _grouping(sp)
    groups = sorted({str(f.get(grouping, i)) if grouping else str(i) for i, k in kinds for _, f in k})
    for index, entry_cards in kinds:
        picks = entry_cards if not many else entry_cards[: max(1, _PICTURED // max(1, len(kinds)))]
        if many and len(kinds) == 1:
            picks = entry_cards[:: max(1, len(entry_cards) // _PICTURED)][:_PICTURED]
        for name, fields in picks:
            corner = fields.get("points", fields.get("value", fields.get("number", "")))
            group: int | str = groups.index(str(fields.get(grouping, index)) if grouping else str(index))
            if grouping in ("colour", "color") and str(fields.get(grouping, "")).isalpha():
                group = str(fields[grouping])  # a colour attribute names the colour to draw
            chosen.append((name, fields, group, value_text(corner) if corner not in ("", None, 0) else ""))
    chosen = chosen[:_PICTURED]
    total = sum(len(k) for _, k in kinds)
    some = f"some of the {total} different cards" if len(chosen) < total else "the cards"
    return Picture(cards_svg(chosen), f"pictures of {some}: " + ", ".join(n for n, _, _, _ in chosen))
