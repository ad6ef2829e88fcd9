"""What each kind of zone (``rulespec.zones``) does at run time: the zone instances a family
makes, where `deal` puts cards, and how a player's view lists them.

    instances(zone, L)          [(owner seat or -1, label), ...] in zone-index order
    deal_targets(zone, base, L) the zones a deal fills, in dealing order, given a state
    view(zone, base, s, see)    the family's part of an observation
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulespec.zones import PER_CELL, PER_PLAYER, SHARED, ZoneKind, kind_of

__all__ = ["instances", "deal_targets", "view"]


def instances(zone: Any, L: Any) -> list[tuple[int, str]]:
    return _RUNTIME[kind_of(zone)].instances(zone, L)


def deal_targets(zone: Any, base: int, L: Any) -> Callable[[Any], list[int]]:
    return _RUNTIME[kind_of(zone)].deal_targets(zone, base, L)


def view(zone: Any, base: int, s: Any, see: Callable[[int], Any]) -> Any:
    """The view of a family: ``see(z)`` is the view of one zone instance."""
    return _RUNTIME[kind_of(zone)].view(zone, base, s, see)


class _Shared:
    @staticmethod
    def instances(zone: Any, L: Any) -> list[tuple[int, str]]:
        return [(-1, zone.name)]

    @staticmethod
    def deal_targets(zone: Any, base: int, L: Any) -> Callable[[Any], list[int]]:
        raise ValueError(f"`deal` needs a zone per player or per cell, not the shared '{zone.name}'")

    @staticmethod
    def view(zone: Any, base: int, s: Any, see: Callable[[int], Any]) -> Any:
        return see(base)


class _PerPlayer:
    @staticmethod
    def instances(zone: Any, L: Any) -> list[tuple[int, str]]:
        return [(p, f"{zone.name}({L.seat_names[p]})") for p in range(L.num_players)]

    @staticmethod
    def deal_targets(zone: Any, base: int, L: Any) -> Callable[[Any], list[int]]:
        n = L.num_players
        return lambda s: [base + (s.dealer + 1 + k) % n for k in range(n)]  # from the dealer's left

    @staticmethod
    def view(zone: Any, base: int, s: Any, see: Callable[[int], Any]) -> Any:
        return [see(z) for z in range(base, base + s.game.num_players)]


class _PerCell:
    @staticmethod
    def instances(zone: Any, L: Any) -> list[tuple[int, str]]:
        return [(-1, f"{zone.name}({name})") for name in L.board.names]

    @staticmethod
    def deal_targets(zone: Any, base: int, L: Any) -> Callable[[Any], list[int]]:
        targets = [base + c for c in range(L.board.size)]
        return lambda s: targets

    @staticmethod
    def view(zone: Any, base: int, s: Any, see: Callable[[int], Any]) -> Any:
        names = s.game.board.names
        return {names[c]: see(base + c) for c in range(len(names)) if s.zones[base + c]}  # cells with cards


_RUNTIME: dict[ZoneKind, Any] = {SHARED: _Shared, PER_PLAYER: _PerPlayer, PER_CELL: _PerCell}
