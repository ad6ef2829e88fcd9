"""The rules of a spec as readable Markdown, generated from its model, for proofreading.

    from rulespec import compile_file
    from rulespec.describe import describe
    print(describe(compile_file("games/mygame.yaml")))

Every construct renders itself in English: the components (cards, zones with their
visibility, board, pieces, variables, definitions, rankings), the options with their
defaults, the match and round setup, the turn, every action with its parameters,
condition and effects, the scoring and the end conditions. Statements and expressions
read as sentences: ``draw 2 from pile to hand(opp)`` becomes "draw 2 cards from the pile
to opp's hand". Nothing here knows any particular game.
"""

from __future__ import annotations

from ..compiler import GameDef
from .designers import Describer
from .players import PlayerDescriber
from .rules import RuleDescriber

__all__ = ["describe", "Describer", "PlayerDescriber", "RuleDescriber", "AUDIENCES"]

AUDIENCES = ("designers", "players")  # the readers ``describe`` writes for


def describe(gamedef: GameDef, audience: str = "designers") -> str:
    """The Markdown text of a checked spec: every rule for its designers (the default), or the
    rules a player learns from (``audience="players"``)."""
    if audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}, not {audience!r}")
    describer = PlayerDescriber(gamedef) if audience == "players" else Describer(gamedef)
    return describer.document()
