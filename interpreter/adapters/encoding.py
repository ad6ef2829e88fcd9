"""A fixed-size numeric encoding of a player's view, shared by the adapters.

Everything is read from ``state.observation(player)`` (what the player may see) and the
game's static tables (card kinds, zones, board, variable types); nothing is specific to
one game. Seats are *relative to the observer*: row 0 of a per-player section is the
observer, row 1 the next seat, and so on, so a learned policy can serve every seat.

Sections (each a named block of the flat float32 vector):

``zones``      per zone instance (shared zones, per-player zones relative to the observer,
               per-cell zones by cell): visible cards counted per card kind, the kind of the
               visible top card (one-hot), and the number of cards the observer cannot see
``board``      per cell: owner of the piece there (relative, one-hot) and its kind (one-hot)
``players``    per seat (relative): round score, match total, then each per-player variable
``variables``  each shared variable
``status``     who decides (relative one-hot, chance, nobody), current player and dealer
               (relative one-hot), round and turn numbers, terminal flag, winners, returns

Variables are encoded by their declared type: numbers and booleans as one value, a player
as a relative one-hot (plus "none"), a list of players as relative counts, a card as a
kind one-hot (plus "none"), a list of cards as counts per kind, a cell or piece as a
one-hot (plus "none"). Text and untyped (``value``) variables have no fixed-size encoding
and appear only in the observation string.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulespec.zones import PER_CELL, PER_PLAYER, ZoneKind, kind_of

from .. import zones as zone_kinds

if TYPE_CHECKING:  # pragma: no cover
    from ..game import Game
    from ..state import State

__all__ = ["ViewEncoder", "view_string", "check_action_space", "MAX_ADAPTER_ACTIONS"]

# the adapters hand out masks and spaces with one entry per action id (and per chance
# outcome): a spec whose ids run past this is refused when it is registered
MAX_ADAPTER_ACTIONS = 1_000_000


def check_action_space(game: Game, adapter: str, chance: bool = False, bound: int = MAX_ADAPTER_ACTIONS) -> None:
    """``OptionError`` when the game has more action ids (or chance outcomes) than ``bound``."""
    from ..errors import OptionError

    sizes = [("action ids", game.num_distinct_actions)]
    if chance:
        sizes.append(("chance outcomes", game.max_chance_outcomes))
    for what, size in sizes:
        if size > bound:
            raise OptionError(f"{game.name} ({game.num_players} players) has {size:,} {what}; the {adapter} "
                              f"adapter takes at most {bound:,} (one mask entry per id)")


def view_string(view: dict[str, Any]) -> str:
    """The canonical compact JSON text of a view (keys in the engine's order)."""
    return json.dumps(view, separators=(",", ":"), ensure_ascii=False)


class ViewEncoder:
    """Encodes ``state.observation(player)`` into a fixed-size float vector."""

    def __init__(self, game: Game):
        link = game.link
        self.game = game
        self.n = n = game.num_players
        cards = game.cards
        self.kinds = k = cards.kinds
        self.kind_of_name = {name: i for i, name in enumerate(cards.kind_names)}
        board = game.board
        self.cells = board.size if board is not None else 0
        self.cell_index = {name: i for i, name in enumerate(board.names)} if board is not None else {}
        self.piece_kinds: list[str] = list(link.piece_kinds)  # every kind declared: a piece may become one
        self.num_pieces = len(link.piece_kind_name)

        # zone instances: (family, per) in the engine's zone order
        self.zone_families: list[tuple[str, ZoneKind]] = [(name, kind_of(z)) for name, z in link.zone_defs.items()]
        self.num_zones = sum(len(zone_kinds.instances(z, link)) for z in link.zone_defs.values())
        self.zone_width = 2 * k + 1

        self.pvar = [(v.name, self._value_encoder(v.type)) for v in link.pvar_defs]
        self.var = [(v.name, self._value_encoder(v.type)) for v in link.var_defs]
        self.player_width = 2 + sum(w for _, (w, _) in self.pvar)
        self.var_width = sum(w for _, (w, _) in self.var)
        # deciding (n seats + chance + nobody), current (n + none), dealer (n + none),
        # round, turn, terminal, winners (n), returns (n)
        self.status_width = (n + 2) + (n + 1) + (n + 1) + 3 + n + n

        shapes: list[tuple[str, tuple[int, ...]]] = []
        if self.num_zones:
            shapes.append(("zones", (self.num_zones, self.zone_width)))
        if self.cells:
            shapes.append(("board", (self.cells, n + len(self.piece_kinds))))
        shapes.append(("players", (n, self.player_width)))
        if self.var_width:
            shapes.append(("variables", (self.var_width,)))
        shapes.append(("status", (self.status_width,)))
        self.shapes = shapes
        self.size = 0
        for _, shape in shapes:
            size = 1
            for d in shape:
                size *= d
            self.size += size

    # ------------------------------------------------------------------ layout
    def views(self, flat: Any) -> dict[str, Any]:
        """Named, reshaped views (no copies) of a flat numpy vector of ``size`` floats."""
        out = {}
        offset = 0
        for name, shape in self.shapes:
            size = 1
            for d in shape:
                size *= d
            out[name] = flat[offset:offset + size].reshape(shape)
            offset += size
        return out

    def observe(self, state: State, player: int) -> dict[str, Any]:
        return state.observation(player, events=False)

    # ------------------------------------------------------------------ values
    def _value_encoder(self, vtype: str) -> tuple[int, Callable[[list, int, Any, int], None]]:
        n, k = self.n, self.kinds
        kind_of_name = self.kind_of_name
        cell_index = self.cell_index

        if vtype in ("int", "number"):
            def number(out: list, at: int, v: Any, me: int) -> None:
                out[at] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0
            return 1, number
        if vtype == "bool":
            def boolean(out: list, at: int, v: Any, me: int) -> None:
                out[at] = 1.0 if v else 0.0
            return 1, boolean
        if vtype == "player":
            def player(out: list, at: int, v: Any, me: int) -> None:
                out[at + (n if v is None else (v - me) % n)] = 1.0
            return n + 1, player
        if vtype == "players":
            def players(out: list, at: int, v: Any, me: int) -> None:
                for p in v or ():
                    out[at + (p - me) % n] += 1.0
            return n, players
        if vtype == "card":
            def card(out: list, at: int, v: Any, me: int) -> None:
                out[at + (k if v is None else kind_of_name[v])] = 1.0
            return k + 1, card
        if vtype == "cards":
            def cards(out: list, at: int, v: Any, me: int) -> None:
                for name in v or ():
                    out[at + kind_of_name[name]] += 1.0
            return k, cards
        if vtype == "cell":
            size = self.cells

            def cell(out: list, at: int, v: Any, me: int) -> None:
                out[at + (size if v is None else cell_index[v])] = 1.0
            return size + 1, cell
        if vtype == "piece":
            size = self.num_pieces

            def piece(out: list, at: int, v: Any, me: int) -> None:
                out[at + (size if v is None else v)] = 1.0
            return size + 1, piece

        def skipped(out: list, at: int, v: Any, me: int) -> None:
            return None
        return 0, skipped

    # ------------------------------------------------------------------ encoding
    def encode(self, view: dict[str, Any], out: Any) -> None:
        """Write the encoding of ``view`` (from ``state.observation(p)``) into ``out``.

        ``out`` is a zeroed, indexable sequence of ``size`` floats (a list or numpy vector).
        """
        n = self.n
        me = view["player"]
        me = me if isinstance(me, int) and 0 <= me < n else 0
        at = 0
        if self.num_zones:
            zones = view["zones"]
            width = self.zone_width
            for family, kind in self.zone_families:
                zview = zones[family]
                if kind is PER_PLAYER:
                    for r in range(n):
                        self._zone(zview[(me + r) % n], out, at + r * width)
                    at += n * width
                elif kind is PER_CELL:
                    cell_index = self.cell_index
                    for cell, cv in zview.items():
                        self._zone(cv, out, at + cell_index[cell] * width)
                    at += self.cells * width
                else:
                    self._zone(zview, out, at)
                    at += width
        if self.cells:
            width = n + len(self.piece_kinds)
            cell_index = self.cell_index
            kinds = self.piece_kinds
            for cell, piece in view.get("board", {}).items():
                base = at + cell_index[cell] * width
                out[base + (piece["owner"] - me) % n] = 1.0
                out[base + n + kinds.index(piece["piece"])] = 1.0
            at += self.cells * width
        players = view["players"]
        width = self.player_width
        for r in range(n):
            entry = players[(me + r) % n]
            base = at + r * width
            out[base] = float(entry["score"])
            out[base + 1] = float(entry["total"])
            pos = base + 2
            for name, (w, enc) in self.pvar:
                enc(out, pos, entry.get(name), me)
                pos += w
        at += n * width
        if self.var_width:
            variables = view["variables"]
            for name, (w, enc) in self.var:
                enc(out, at, variables.get(name), me)
                at += w
        # status
        deciding = view.get("deciding")
        if deciding == "chance":
            out[at + n] = 1.0
        elif isinstance(deciding, int):
            out[at + (deciding - me) % n] = 1.0
        else:
            out[at + n + 1] = 1.0
        at += n + 2
        for key in ("current", "dealer"):
            v = view.get(key)
            out[at + ((v - me) % n if isinstance(v, int) and 0 <= v < n else n)] = 1.0
            at += n + 1
        out[at] = float(view.get("round") or 0)
        out[at + 1] = float(view.get("turn") or 0)
        out[at + 2] = 1.0 if view.get("terminal") else 0.0
        at += 3
        for p in view.get("winners", ()):
            out[at + (p - me) % n] = 1.0
        at += n
        for p, value in enumerate(view.get("returns", ())):
            out[at + (p - me) % n] = float(value)
        at += n

    def _zone(self, zv: Any, out: Any, base: int) -> None:
        k = self.kinds
        kind_of_name = self.kind_of_name
        if isinstance(zv, list):
            hidden = 0
            for name in zv:
                if name is None:
                    hidden += 1
                else:
                    out[base + kind_of_name[name]] += 1.0
            if zv and zv[-1] is not None:
                out[base + k + kind_of_name[zv[-1]]] = 1.0
            out[base + 2 * k] = float(hidden)
            return
        count = zv.get("count", 0)
        shown = zv.get("cards")
        if shown is not None:
            for name in shown:
                out[base + kind_of_name[name]] += 1.0
            out[base + 2 * k] = float(count - len(shown))
            return
        top = zv.get("top")
        if top is not None:
            out[base + kind_of_name[top]] += 1.0
            out[base + k + kind_of_name[top]] = 1.0
            out[base + 2 * k] = float(count - 1)
            return
        out[base + 2 * k] = float(count)
