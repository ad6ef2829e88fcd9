"""The card table: every physical card of a game, as small integers.

Card ids index per-attribute tuples. Cards equal in every attribute share a *kind*:
actions and chance outcomes name kinds, so two copies of a card are one choice.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulespec import ast as A
from rulespec.model import CardsDef
from rulespec.source import Limits
from rulespec.static import Defines

from .errors import RuleError
from .static import evaluate_static

__all__ = ["CardTable", "build_card_table", "MAX_CARDS"]

MAX_CARDS = Limits.max_cards


@dataclass(frozen=True)
class CardTable:
    count: int
    kind_of: tuple[int, ...]
    kind_names: tuple[str, ...]
    kind_attrs: tuple[dict[str, Any], ...]
    attrs: dict[str, tuple[Any, ...]]  # attribute -> value per card id
    names: tuple[str, ...]  # display name per card id

    @property
    def kinds(self) -> int:
        return len(self.kind_names)


def _card_name(template: A.Template | None, attrs: dict[str, Any]) -> str:
    if template is None:
        return str(attrs.get("name", "card"))
    out = []
    for part in template.parts:
        if isinstance(part, str):
            out.append(part)
        else:
            out.append(str(attrs.get(part.id, "?")))
    return "".join(out)


def build_card_table(cards: CardsDef | None, attr_types: Mapping[str, str], options: Mapping[str, Any],
                     num_players: int, defines: Defines | None = None) -> CardTable:
    if cards is None:
        return CardTable(0, (), (), (), {}, ())
    defaults = {a.name: a.default for a in cards.attributes}
    decks = evaluate_static(cards.decks, options, num_players, defines=defines)
    if not isinstance(decks, int) or decks < 0:
        raise RuleError(f"cards.decks must be a whole number, got {decks!r}", cards.decks.span)
    rows: list[dict[str, Any]] = []
    for _ in range(decks):
        for entry in cards.entries:
            names = [n for n, _, _ in entry.family]
            combos = itertools.product(*(values for _, values, _ in entry.family)) if names else [()]
            for combo in combos:
                attrs = dict(defaults)
                attrs.update(zip(names, combo))
                for name, value, _ in entry.attrs:
                    attrs[name] = value
                # copies may depend on the card's own attributes: "2 if value > 10 else 1"
                copies = evaluate_static(entry.copies, options, num_players, attrs, defines)
                if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
                    raise RuleError(f"copies must be a whole number, got {copies!r}", entry.copies.span)
                if isinstance(attrs.get("name"), str) and "{" in attrs["name"]:
                    attrs["name"] = attrs["name"].format(**attrs)
                for _ in range(copies):
                    rows.append(attrs)
                if len(rows) > MAX_CARDS:
                    raise RuleError(f"more than {MAX_CARDS} cards", entry.span)
    kinds: dict[tuple[Any, ...], int] = {}
    kind_of = []
    kind_names: list[str] = []
    kind_attrs: list[dict[str, Any]] = []
    names = []
    attr_names = sorted(set(attr_types) | {"name"})
    for attrs in rows:
        display = _card_name(cards.name_template, attrs)
        key = (display,) + tuple(repr(attrs.get(a)) for a in attr_names)
        if key not in kinds:
            kinds[key] = len(kind_names)
            kind_names.append(display)
            kind_attrs.append({a: attrs.get(a) for a in attr_names if a in attrs})
        kind_of.append(kinds[key])
        names.append(display)
    if len(set(kind_names)) != len(kind_names):
        seen: set[str] = set()
        dup = next(n for n in kind_names if n in seen or seen.add(n))  # type: ignore[func-returns-value]
        raise RuleError(f"two different cards are both named '{dup}'; give each kind of card its own name",
                        cards.span)
    table_attrs = {a: tuple(row.get(a) for row in rows) for a in attr_types}
    return CardTable(len(rows), tuple(kind_of), tuple(kind_names), tuple(kind_attrs), table_attrs, tuple(names))
