"""A rulebook generated from a spec, as a publisher would print it.

    from rulespec import compile_file
    from rulespec.rulebook import build, to_markdown, to_html
    book = build(compile_file("games/mygame.yaml"))
    print(to_markdown(book))

The sections: the goal, the components (a card table and pictures of the cards and the board),
the setup and a turn as numbered steps, the special cases, hand rankings with their tie-breaks,
the scoring (a formula or a payout table, with a worked example from a simulated round the
caller passes in), the end, the options and variants, a glossary of the game's own words and a
one-page quick reference. Every rule (numbers, conditions, order) comes from the spec's
structure; the spec's `about:` texts add the prose generation cannot: the goal in the
designer's words, what a card or an action is for, the game's own words. Nothing here knows any
particular game.
"""

from __future__ import annotations

from typing import Any

from ..compiler import GameDef
from .components import components_section
from .document import Book, Section
from .flow import setup_section, turn_section
from .render import main_text, to_html, to_markdown
from .scoring import PlayerRound, RoundExample, score_zones, scoring_section
from .sections import (
    end_section,
    glossary_section,
    goal_section,
    options_section,
    quick_section,
    rankings_section,
    special_section,
)
from .speaker import Speaker

__all__ = ["build", "to_markdown", "to_html", "main_text", "RoundExample", "PlayerRound", "score_zones",
           "Book", "Section", "Speaker"]


def build(gamedef: GameDef, example: RoundExample | None = None, players: int | None = None,
          options: dict[str, Any] | None = None, variant: str = "") -> Book:
    """The rulebook of a checked spec; ``players`` and ``options`` fix what the text may take as
    decided (default: every player count, every option at its default)."""
    sp = Speaker(gamedef, players, options)
    goal = goal_section(sp)
    components = components_section(sp)
    setup = setup_section(sp)
    turn = turn_section(sp)
    special = special_section(sp)
    rankings = rankings_section(sp)
    scoring = scoring_section(sp, example)
    end = end_section(sp)
    glossary = glossary_section(sp)  # the game's own words, before the rules use them
    sections = [goal, glossary, components, setup, turn, special]
    sections += [rankings] if rankings is not None else []
    sections += [scoring, end, options_section(sp), quick_section(sp, setup, turn, scoring, end)]
    subtitle = f"Rules for {variant}" if variant else "Rules of play"
    return Book(sp.model.name, subtitle, [s for s in sections if s.blocks])
