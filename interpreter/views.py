"""The one projection of a state for a player: what that player may see, as JSON.

What is seen of each zone, card and event is decided in ``visibility`` (zones show card
names only where the zone's visibility and the card's facing allow, otherwise counts;
shuffled zones show no order; addressed events reach only their players). Another
player's pending options are never shown (they would reveal that player's hidden
cards), only who is deciding.
"""

from __future__ import annotations

from typing import Any

from . import zones
from .state import CHANCE, State
from .visibility import player_variable_seen, seen_events, visible_cards, zone_sights, zone_view

__all__ = ["observe", "render_text", "visible_cards"]


def _zones(s: State, player: int) -> dict[str, Any]:
    link = s.game.link
    sights = zone_sights(link, player)
    out: dict[str, Any] = {}
    for name, zone in link.zone_defs.items():
        out[name] = zones.view(zone, link.zone_base[name], s, lambda z: zone_view(s, z, sights[z]))
    return out


def _pieces(s: State) -> dict[str, Any]:
    link = s.game.link
    out = {}
    for x, cell in enumerate(s.piece_cell):
        if cell >= 0:
            out[link.board.names[cell]] = {"piece": s.piece_kind[x], "owner": s.piece_owner[x],  # type: ignore[union-attr]
                                           "id": x}
    return out


def observe(s: State, player: int, events: bool = True) -> dict[str, Any]:
    link = s.game.link
    n = link.num_players
    pending = s.pending
    view: dict[str, Any] = {
        "game": s.game.name,
        "player": player,
        "round": s.round,
        "turn": s.turn,
        "current": s.current,
        "dealer": s.dealer,
        "zones": _zones(s, player),
        "players": [
            {"seat": p, "name": link.seat_names[p], "score": s.score[p], "total": s.total[p],
             **{v.name: link.pvar_json[i](s, s.pv[i][p]) for i, v in enumerate(link.pvar_defs)
                if player_variable_seen(v.visibility, p, player)}}
            for p in range(n)
        ],
        "variables": {v.name: link.var_json[i](s, s.g[i]) for i, v in enumerate(link.var_defs)},
        "terminal": s.over,
    }
    if link.board is not None:
        view["board"] = _pieces(s)
    if s.over:
        view["winners"] = list(s.winners_)
        view["returns"] = list(s.returns_)
    elif pending is not None:
        deciding = "chance" if pending.player == CHANCE else pending.player
        view["deciding"] = deciding
        if pending.player == player:
            view["legal_actions"] = list(pending.legal)
    if events:
        view["events"] = seen_events(s.events, player)
    return view


def render_text(s: State, player: int | None) -> str:
    """A plain-text picture of a state (omniscient when player is None)."""
    link = s.game.link
    lines = [f"{s.game.name}: round {s.round}, turn {s.turn}, "
             f"{'over' if s.over else 'to play: ' + str(s.current_player())}"]
    names = link.cards.names
    sights = None if player is None else zone_sights(link, player)
    for z, cards in enumerate(s.zones):
        if not cards:
            continue
        if sights is None:
            shown = ", ".join(names[c] + ("" if s.face[c] else "*") for c in cards)
        else:
            shown = str(zone_view(s, z, sights[z]))
        lines.append(f"  {link.zone_label[z]}: {shown}")
    if link.board is not None:
        lines.append(render_board(s))
    scores = " ".join(f"{link.seat_names[p]}={s.score[p]}/{s.total[p]}" for p in range(link.num_players))
    lines.append(f"  scores {scores}")
    return "\n".join(lines)


def render_board(s: State) -> str:
    link = s.game.link
    board = link.board
    rows = []
    for r in range(board.rows):  # type: ignore[union-attr]
        cells = []
        for c in range(board.cols):  # type: ignore[union-attr]
            index = r * board.cols + c  # type: ignore[union-attr]
            x = s.cell_piece[index]
            cells.append("." if x < 0 else str(s.piece_owner[x]))
        rows.append(f"  {board.rows - r} " + " ".join(cells))  # type: ignore[union-attr]
    rows.append("    " + " ".join(chr(ord("a") + c) for c in range(board.cols)))  # type: ignore[union-attr]
    return "\n".join(rows)
