"""What a spec's deck holds with the default options: the total and the count of each card,
for each player count (the number of decks or a card's copies may depend on it).

    deck_lines(compile_file("games/mygame.yaml").model)
    ["Deck for 2 to 4 players (default options): 52 cards: Ace ×4, ..."]

Counted before any game exists, from the values known then (constants, options at their
defaults, the player count, the spec's defines of those), as ``rulespec describe`` and
``rulespec validate -v`` show them.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from .check import default_options
from .model import CardsDef, SpecModel
from .static import StaticEvalError, evaluate_static, static_defines

__all__ = ["deck_counts", "deck_lines"]

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _card_name(cards: CardsDef, attrs: dict[str, Any]) -> str:
    """A card's display name: the list's name template, else its `name` with `{attr}` filled in."""
    if cards.name_template is not None:
        return "".join(part if isinstance(part, str) else str(attrs.get(getattr(part, "id", ""), "?"))
                       for part in cards.name_template.parts)
    name = str(attrs.get("name", "card"))
    return _FIELD.sub(lambda m: str(attrs.get(m.group(1), m.group(0))), name)


def deck_counts(model: SpecModel, num_players: int, options: dict[str, Any] | None = None
                ) -> list[tuple[str, int]] | None:
    """Each card's name and its number of copies in the whole deck (all decks), in list order;
    None when something the count needs is only known once a game is loaded."""
    cards = model.cards
    if cards is None:
        return []
    options = default_options(model, num_players) if options is None else options
    defines = static_defines(model.defines)
    defaults = {a.name: a.default for a in cards.attributes}
    counts: dict[str, int] = {}
    try:
        decks = evaluate_static(cards.decks, options, num_players, defines=defines)
        for entry in cards.entries:
            names = [n for n, _, _ in entry.family]
            for combo in itertools.product(*(values for _, values, _ in entry.family)):
                attrs = {**defaults, **dict(zip(names, combo)), **{k: v for k, v, _ in entry.attrs}}
                copies = evaluate_static(entry.copies, options, num_players, attrs, defines)
                if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
                    return None
                name = _card_name(cards, attrs)
                counts[name] = counts.get(name, 0) + copies
    except StaticEvalError:
        return None
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 0:
        return None
    return [(name, n * decks) for name, n in counts.items() if n]


def _players_text(counts: list[int]) -> str:
    if len(counts) == 1:
        return f"{counts[0]} player" + ("" if counts[0] == 1 else "s")
    if counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]} to {counts[-1]} players"
    return ", ".join(str(n) for n in counts[:-1]) + f" or {counts[-1]} players"


def _counts_text(counts: tuple[tuple[str, int], ...]) -> str:
    """`: A ×3, B ×1`, or `, 2 of each: A, B` when every card has as many copies."""
    if not counts:
        return ""
    same = {n for _, n in counts}
    if len(same) == 1 and len(counts) > 1:
        return f", {counts[0][1]} of each: " + ", ".join(name for name, _ in counts)
    return ": " + ", ".join(f"{name} ×{n}" for name, n in counts)


def deck_lines(model: SpecModel) -> list[str]:
    """One line per group of player counts with the same deck: its total and each card's count."""
    if model.cards is None:
        return []
    groups: dict[tuple[tuple[str, int], ...], list[int]] = {}
    for num_players in model.players:
        found = deck_counts(model, num_players)
        if found is not None:
            groups.setdefault(tuple(found), []).append(num_players)
    lines = []
    for counts, seats in groups.items():
        total = sum(n for _, n in counts)
        who = "" if len(groups) == 1 else f" for {_players_text(seats)}"
        lines.append(f"Deck{who} (default options): {total} card{'' if total == 1 else 's'}{_counts_text(counts)}.")
    return lines
