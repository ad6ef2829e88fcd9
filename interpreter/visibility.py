"""What a player may see of each zone and card: the one visibility rule of the engine.

A zone's visibility (``public``, ``owner``, ``hidden``, ``top``) and owner give each
player a *sight* of it:

``COUNT``     the number of cards only: a ``hidden`` zone, or an ``owner`` zone not the player's
              (a shared one too)
``TOP_CARD``  a ``top`` zone: the number of cards, and the top card's name when it is face up
              and the zone is not shuffled (whoever owns it)
``FACE_UP``   a ``public`` zone not the player's: its face-up cards
``ALL``       a ``public`` or ``owner`` zone of the player's own: every card, face down too

A shuffled zone shows no order: the cards seen, sorted by name, and the count. Views show
card names, never ids, so copies are indistinguishable. Events addressed to some players
(``emit ... to``) reach only them.

``observe`` and ``render_text`` (views), ``sample_consistent`` (sampling) and the adapters
all decide through this module; nothing else reads the visibility tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol
from weakref import WeakKeyDictionary

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

__all__ = [
    "PUBLIC", "OWNER", "HIDDEN", "TOP", "COUNT", "TOP_CARD", "FACE_UP", "ALL",
    "zone_sight", "zone_sights", "top_seen", "seen_in_zone", "zone_view", "visible_cards",
    "seen_events", "player_variable_seen",
]

# zone visibility codes, as ``Link.zone_visibility`` holds them
PUBLIC, OWNER, HIDDEN, TOP = 0, 1, 2, 3
# what one player sees of one zone
COUNT, TOP_CARD, FACE_UP, ALL = 0, 1, 2, 3


class ZoneTables(Protocol):
    """The static tables the rule reads (a ``Link``)."""

    num_players: int
    zone_visibility: list[int]
    zone_owner: list[int]


Sights = tuple[int, ...]
_SIGHTS: WeakKeyDictionary[Any, dict[int, Sights]] = WeakKeyDictionary()


def zone_sight(visibility: int, owner: int, player: int) -> int:
    """The sight ``player`` has of a zone with this visibility and owner (-1: shared)."""
    if visibility == HIDDEN or (visibility == OWNER and owner != player):
        return COUNT
    if visibility == TOP:
        return TOP_CARD
    return ALL if owner == player and owner >= 0 else FACE_UP


def zone_sights(link: ZoneTables, player: int) -> Sights:
    """The sight ``player`` has of every zone instance, in zone order (cached per game)."""
    if type(player) is not int:  # a numpy integer, say: not cached
        return _sights(link, player)
    n = link.num_players
    key = player if -1 <= player < n else n  # every other number is nobody's seat, as n is
    cache = _SIGHTS.get(link)
    if cache is None:
        cache = _SIGHTS[link] = {}
    sights = cache.get(key)
    if sights is None:
        sights = cache[key] = _sights(link, key)
    return sights


def _sights(link: ZoneTables, player: int) -> Sights:
    return tuple(zone_sight(v, o, player) for v, o in zip(link.zone_visibility, link.zone_owner))


def top_seen(s: State, z: int) -> int | None:
    """The id of the top card of ``top`` zone ``z`` when it may be seen, else None."""
    cards = s.zones[z]
    if not cards:
        return None
    top = cards[-1]
    return top if s.face[top] and not s.shuffled[z] else None


def seen_in_zone(s: State, z: int, sight: int) -> list[int]:
    """Ids of the cards of zone ``z`` whose identity a player with ``sight`` sees, bottom to top."""
    if sight == COUNT:
        return []
    if sight == TOP_CARD:
        top = top_seen(s, z)
        return [] if top is None else [top]
    if sight == ALL:
        return list(s.zones[z])
    face = s.face
    return [c for c in s.zones[z] if face[c]]


def zone_view(s: State, z: int, sight: int) -> Any:
    """The JSON view of zone ``z`` for a player with ``sight`` of it."""
    cards = s.zones[z]
    if sight == COUNT:
        return {"count": len(cards)}
    names = s.game.link.cards.names
    if sight == TOP_CARD:
        top = top_seen(s, z)
        return {"count": len(cards), "top": None if top is None else names[top]}
    if s.shuffled[z]:
        return {"count": len(cards), "cards": sorted(names[c] for c in seen_in_zone(s, z, sight))}
    if sight == ALL:
        return [names[c] for c in cards]
    face = s.face
    return [names[c] if face[c] else None for c in cards]


def visible_cards(s: State, player: int) -> set[int]:
    """Ids of the cards whose identity ``player`` sees (for samplers and tests)."""
    out: set[int] = set()
    for z, sight in enumerate(zone_sights(s.game.link, player)):
        if sight != COUNT and s.zones[z]:
            out.update(seen_in_zone(s, z, sight))
    return out


def seen_events(events: list[dict[str, Any]], player: int) -> list[dict[str, Any]]:
    """The events that reach ``player``, in order: all but those addressed (``to``) to others only."""
    return [e for e in events if "to" not in e or player in e["to"]]


def player_variable_seen(visibility: str, owner: int, player: int) -> bool:
    """Whether ``player`` sees ``owner``'s value of a per-player variable (``visibility``
    ``public`` or ``owner``)."""
    return visibility != "owner" or owner == player
