"""What happened in one match, counted without knowing the game: the actions chosen (by name
and by each parameter's value: a card's kind, a player, a cell...), the cards that moved from
one zone to another (by kind), and the events the rules emitted.

    counter = MatchCounter(game)
    counter.start(state)                 # the cards the setup moved
    ...  counter.chose(player, action); state.apply_action(action); counter.moved(state)
    counts = counter.finish(state)       # {key: count}, keys below

Keys (``seat`` is a seat number; ``-1`` for a move between zones nobody owns; ``None`` counts
every seat together):

- ``("action", name, seat)``: decisions of action ``name`` by ``seat``;
- ``("choice", name, param, type, value, seat)``: decisions of ``name`` whose parameter
  ``param`` (of ``type``) had ``value``: for a card, its kind's name;
- ``("move", from_zone, to_zone, kind, seat)``: cards of ``kind`` that moved from a zone of
  the family ``from_zone`` to one of ``to_zone``; the seat is the owner of the zone it entered
  (of the one it left when the zone it entered has no owner). A move is seen from one decision
  to the next: a card moved twice between two decisions counts once, from where it was to
  where it ended. The setup's deal counts as moves from the zone the cards start in;
- ``("enter", to_zone, kind, seat)``: the same moves summed over the zones left;
- ``("event", type, seat)``: events the rules emitted, per the seat in the event's
  ``player`` field (``-1`` when it has none).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress
from operator import ne
from typing import Any

from ..actions import param_name
from .stats import Tally

__all__ = ["MatchCounter", "NO_SEAT", "ENGINE_EVENTS", "summarize_counts", "compared_counts"]

NO_SEAT = -1
ENGINE_EVENTS = ("round_start", "round_end", "match_end")  # the engine's own events (rounds count them)


class MatchCounter:
    """Counts one match at a time for one game (reusable: ``start`` begins the next match).

    During a match it only appends small integers (a choice: action and seat; a move: zones
    and card); ``finish`` counts them and turns each distinct one into its keys, which are
    cached for the next matches."""

    def __init__(self, game: Any):
        link = game.link
        self.game = game
        self.players: int = game.num_players
        self.family: list[str] = list(link.zone_family)
        self.owner: list[int] = list(link.zone_owner)
        self.start_zone: int = link.start_zone
        cards = game.cards
        self.kind_name: list[str] = [cards.kind_names[k] for k in cards.kind_of]
        self.seat_of: dict[Any, int] = {name: p for p, name in enumerate(link.seat_names)}
        self.seat_of.update({p: p for p in range(game.num_players)})
        self.chosen: list[int] = []  # action * players + seat, per decision
        self.moves: list[int] = []  # (from zone * zones + to zone) * cards + card, per card moved
        self.loc: list[int] = []
        self.keys: dict[Any, list[tuple[Any, ...]]] = {}  # a choice, move or event: the keys it adds 1 to

    # ------------------------------------------------------------------ a match
    def start(self, state: Any) -> None:
        """A new match: every card starts where the engine first puts it, so the setup's moves count."""
        self.chosen = []
        self.moves = []
        self.loc = [self.start_zone] * len(self.kind_name)
        self.moved(state)

    def chose(self, player: int, action: int) -> None:
        """``player`` chose ``action`` (called before it is applied)."""
        self.chosen.append(action * self.players + player)

    def moved(self, state: Any) -> None:
        """Note the cards that are in another zone than at the last call."""
        now = state.loc
        before = self.loc
        cards = len(now)
        zones = len(self.family)
        for card in compress(range(cards), map(ne, before, now)):  # (map reads a card before it is updated)
            self.moves.append((before[card] * zones + now[card]) * cards + card)
            before[card] = now[card]

    def finish(self, state: Any) -> dict[tuple[Any, ...], int]:
        """The match's counts, per seat and over all seats (``None``), emitted events included."""
        counts: dict[tuple[Any, ...], int] = {}
        noted: list[tuple[Any, int]] = [(("c", code), n) for code, n in Counter(self.chosen).items()]
        noted += [(("m", code), n) for code, n in Counter(self.moves).items()]
        noted += Counter(("e", self._event_type(e), self._event_seat(e)) for e in state.events).items()
        get = counts.get
        for note, n in noted:
            keys = self.keys.get(note)
            if keys is None:
                keys = self.keys[note] = self._keys_of(note)
            for key in keys:
                counts[key] = get(key, 0) + n
        return counts

    # ------------------------------------------------------------------ helpers
    def _keys_of(self, note: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if note[0] == "c":
            action, player = divmod(note[1], self.players)
            name, params = self._parts(action)
            keys: list[tuple[Any, ...]] = [("action", name, player)]
            keys += [("choice", name, param, kind, value, player) for param, kind, value in params]
        elif note[0] == "m":
            rest, card = divmod(note[1], len(self.kind_name))
            old, new = divmod(rest, len(self.family))
            old_family, new_family, kind = self.family[old], self.family[new], self.kind_name[card]
            seat = self._seat(old, new)
            keys = [("move", old_family, new_family, kind, seat), ("enter", new_family, kind, seat)]
        else:
            keys = [("event", note[1], note[2])]
        return keys + [key[:-1] + (None,) for key in keys]

    def _event_type(self, event: dict[str, Any]) -> str:
        return str(event.get("type"))

    def _event_seat(self, event: dict[str, Any]) -> int:
        player = event.get("player")
        return self.seat_of.get(player, NO_SEAT) if _hashable(player) else NO_SEAT

    def _seat(self, old: int, new: int) -> int:
        owner = self.owner[new]
        if owner < 0 and old >= 0:
            owner = self.owner[old]
        return owner if owner >= 0 else NO_SEAT

    def _parts(self, action: int) -> tuple[str, list[tuple[str, str, str]]]:
        """The action's name and each parameter's (name, type, value label)."""
        spec = self.game.link.actions.find(action)
        if spec is None:
            return (f"action {action}", [])
        digits = spec.decode(action)
        return (spec.name, [(var, t, param_name(self.game.link, t, digit, lits))
                            for (var, t), digit, lits in zip(spec.params, digits, spec.literals)])


def _hashable(value: Any) -> bool:
    return type(value) in (str, int)


# ---------------------------------------------------------------------- summaries of tallied counts


def summarize_counts(tally: Tally, players: int, card_kinds: Sequence[str], action_names: Sequence[str],
                     zone_names: Sequence[str], seat_names: Sequence[str]) -> dict[str, Any]:
    """JSON-ready tables of a run's tallied counts: every entry has its total over the run, its
    mean per match (``per_match``, with ``sd``) and its total per seat (``seats``, and ``no_seat``
    where a move or an event has no seat)."""
    order = _Order(card_kinds, action_names, zone_names, seat_names)
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for key in tally.keys():
        if key[-1] is None:
            groups.setdefault(str(key[0]), []).append(key)
    for keys in groups.values():
        keys.sort(key=order.of)

    def entry(key: tuple[Any, ...], fields: dict[str, Any], with_no_seat: bool) -> dict[str, Any]:
        head = key[:-1]
        out = {**fields, "total": tally.total(key), "per_match": tally.mean(key),
               "sd": tally.variance(key) ** 0.5, "seats": [tally.total(head + (p,)) for p in range(players)]}
        if with_no_seat:
            out["no_seat"] = tally.total(head + (NO_SEAT,))
        return out

    return {
        "actions_chosen": [entry(k, {"action": k[1]}, False) for k in groups.get("action", [])],
        "parameters": [entry(k, {"action": k[1], "param": k[2], "type": k[3], "value": k[4]}, False)
                       for k in groups.get("choice", [])],
        "cards": {
            "kinds": list(card_kinds),
            "moved": [entry(k, {"from": k[1], "to": k[2], "kind": k[3]}, True) for k in groups.get("move", [])],
            "entered": [entry(k, {"zone": k[1], "kind": k[2]}, True) for k in groups.get("enter", [])],
        },
        "events": [entry(k, {"event": k[1]}, True) for k in groups.get("event", [])],
    }


def compared_counts(a: Tally, b: Tally) -> list[tuple[str, str, tuple[Any, ...]]]:
    """The counts worth comparing between two runs, as (group, metric label, key): every action
    name, every card kind per card-valued parameter and per zone entered, every event type the
    rules emitted, all seats together; counts that are zero in both runs are left out (there is nothing to test)."""
    keys = [k for k in dict.fromkeys(a.keys() + b.keys())
            if k[-1] is None and not (k[0] == "event" and k[1] in ENGINE_EVENTS)]
    out = []
    for key in sorted(keys, key=lambda k: tuple(map(str, k))):
        if a.total(key) == 0 and b.total(key) == 0:
            continue
        label = _metric_label(key)
        if label is not None:
            out.append((label[0], label[1], key))
    return out


def _metric_label(key: tuple[Any, ...]) -> tuple[str, str] | None:
    """(group, label) of a compared count (a mean per match)."""
    what = key[0]
    if what == "action":
        return "actions", f"'{key[1]}' chosen"
    if what == "choice" and key[3] == "card":
        return "cards", f"{key[4]} in '{key[1]}'"
    if what == "enter":
        return "cards", f"{key[2]} into {key[1]}"
    if what == "event":
        return "events", f"event {key[1]}"
    return None


class _Order:
    """Sort keys of tables: cards, actions and zones in the spec's order, seats by number,
    numbers by value, other values alphabetically."""

    def __init__(self, card_kinds: Sequence[str], action_names: Sequence[str], zone_names: Sequence[str],
                 seat_names: Sequence[str]):
        self.cards = {name: i for i, name in enumerate(card_kinds)}
        self.actions = {name: i for i, name in enumerate(action_names)}
        self.zones = {name: i for i, name in enumerate(zone_names)}
        self.seats = {name: i for i, name in enumerate(seat_names)}

    def of(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        what = key[0]
        if what == "action":
            return (self._rank(self.actions, key[1]),)
        if what == "choice":
            table = self.cards if key[3] == "card" else self.seats if key[3] == "player" else {}
            return (self._rank(self.actions, key[1]), str(key[2]), self._rank(table, key[4]))
        if what == "move":
            return (self._rank(self.cards, key[3]), self._rank(self.zones, key[1]), self._rank(self.zones, key[2]))
        if what == "enter":
            return (self._rank(self.cards, key[2]), self._rank(self.zones, key[1]))
        return (self._rank({}, key[1]),)

    @staticmethod
    def _rank(table: dict[str, int], value: Any) -> tuple[int, float, str]:
        if value in table:
            return (0, float(table[value]), "")
        try:
            return (1, float(value), "")
        except (TypeError, ValueError):
            return (2, 0.0, str(value))
