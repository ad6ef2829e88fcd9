"""The kinds of zone a spec may declare, and what each means; the one home of this mechanism.

    zones:
      deck: {}                 # shared: one zone
      hand: {per: player}      # one per seat, written hand(p)
      tableau: {per: cell}     # one per board cell, written tableau(c)

The checker, `describe` and the interpreter (``interpreter/zones.py``, which adds the
run-time behaviour of each kind) ask the kind instead of testing ``per`` themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import types as T

__all__ = ["ZoneKind", "SHARED", "PER_PLAYER", "PER_CELL", "ZONE_KINDS", "kind_of"]


@dataclass(frozen=True)
class ZoneKind:
    per: str | None  # the spec's `per:` value
    arg: str | None  # the argument in messages: hand(p), tableau(c)
    arg_type: str | None  # the type of that argument
    described: str  # the `describe` column "one per"
    needs_board: bool
    each: str  # how `describe` says "every zone of the family": "each player's {}"
    located: bool  # one zone at each place (a cell) rather than of an owner (a player)

    @property
    def shared(self) -> bool:
        return self.per is None


SHARED = ZoneKind(None, None, None, "table (one)", False, "each {}", False)
PER_PLAYER = ZoneKind("player", "p", T.PLAYER, "player", False, "each player's {}", False)
PER_CELL = ZoneKind("cell", "c", T.CELL, "board cell", True, "each cell's {}", True)
ZONE_KINDS: dict[str | None, ZoneKind] = {k.per: k for k in (SHARED, PER_PLAYER, PER_CELL)}


def kind_of(zone: object) -> ZoneKind:
    """The kind of a zone declaration (anything with a ``per`` attribute)."""
    return ZONE_KINDS[getattr(zone, "per")]  # noqa: B009 - ZoneDef, without importing the model here
