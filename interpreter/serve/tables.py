"""What a seat is sent: the engine's projection of the state for it, and nothing more.

``seat_view`` is built from ``State.observation(viewer)`` (the one projection rule of the
engine), the seat's own legal actions when it is the seat deciding (their labels are the
ones the terminal shows that player), and an action log in which every card name the
viewer may not see after the action is replaced by "a card" (``LogBook``). The browser
never receives the true state. ``layout`` is the static shape of the table (board, zones,
seats, pieces by the names the log uses, how to play) that the page draws the view into.

Words come from the engine, as ``rulespec play`` prints them: events as its lines
(``EventText``), actions by their labels and the step of a turn by its actions' names and
the spec's ``description:`` of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rulespec import types as T
from rulespec.zones import kind_of

from ..game import Game
from ..play import EventText
from ..state import CHANCE, State
from ..visibility import visible_cards

__all__ = ["SPECTATOR", "layout", "action_targets", "LogBook", "seat_view", "MAX_EVENTS", "MAX_LOG", "Wording",
           "shown"]

SPECTATOR = -1  # the viewer who is no seat: sees what every seat may see
MAX_EVENTS = 40  # the latest events sent with a view
MAX_LOG = 40  # the latest log lines sent with a view
MAX_WORDS = 300  # characters of a label or an event's text shown (a rule may write a megabyte of them)


def shown(text: str) -> str:
    return text if len(text) <= MAX_WORDS else text[: MAX_WORDS - 1] + "\u2026"


def how_to_play(game: Game) -> str:
    """The rulebook (rulespec.rulebook, as Markdown) for this table's player count and options: the
    designer's `about:` texts with the rules generated from the spec (no simulated example here)."""
    from rulespec.rulebook import build, to_markdown

    model = game.gamedef.model
    changed = {o.name: game.options[o.name] for o in model.options
               if o.auto is None and o.name in game.options and game.options[o.name] != o.default}
    return to_markdown(build(game.gamedef, players=game.num_players, options=changed))


def layout(game: Game) -> dict[str, Any]:
    """The static shape of the table: board size and cell names, zones and their kinds, seats,
    each piece by the name the log gives it, and how to play (the rules a player learns from)."""
    link = game.link
    board = game.board
    zones = [{"name": name, "label": z.label or name.replace("_", " "), "kind": kind_of(z).per or "shared",
              "visibility": z.visibility} for name, z in link.zone_defs.items()]
    return {
        "game": game.name,
        "players": game.num_players,
        "seats": game.seat_names,
        "options": dict(game.options),
        "board": None if board is None else {"rows": board.rows, "cols": board.cols, "cells": list(board.names)},
        "zones": zones,
        "pieces": list(link.piece_label),
        "how_to_play": how_to_play(game),
    }


class Wording:
    """The words of a table: events as ``rulespec play`` prints them, actions' names and descriptions."""

    def __init__(self, game: Game):
        self.game = game
        self.events = EventText(game)
        self.about = dict(game.gamedef.model.action_texts)

    def action_name(self, action: int) -> str:
        spec = self.game.link.actions.find(action)
        return spec.name if spec is not None else ""

    def step(self, names: list[str]) -> dict[str, Any]:
        """The step of a turn a seat is at: the actions it may take now, each with its description."""
        return {"actions": names, "about": {n: self.about[n] for n in names if n in self.about}}


def action_targets(game: Game, action: int) -> dict[str, Any] | None:
    """What a click on the table may choose this action by: the last cell it binds, else the
    cell of the piece it binds, else the card it binds (by name); None when it binds none."""
    spec = game.link.actions.find(action)
    if spec is None:
        return None
    digits = spec.decode(action)
    found: dict[str, Any] | None = None
    for (_, t), digit in zip(spec.params, digits):
        if t == T.CELL and game.board is not None and digit < game.board.size:
            found = {"kind": "cell", "name": game.board.names[digit]}
        elif t == T.PIECE and (found is None or found["kind"] != "cell"):
            found = {"kind": "piece", "id": digit}
        elif t == T.CARD and found is None and digit < game.cards.kinds:
            found = {"kind": "card", "name": game.cards.kind_names[digit]}
    return found


def _piece_cell(state: State, target: dict[str, Any] | None) -> dict[str, Any] | None:
    if target is None or target["kind"] != "piece":
        return target
    piece = target["id"]
    board = state.game.board
    cell = state.piece_cell[piece] if 0 <= piece < len(state.piece_cell) else -1
    if board is None or cell < 0:
        return None
    return {"kind": "cell", "name": board.names[cell]}


@dataclass
class LogBook:
    """The actions of a match as each viewer may read them (seats 0..n-1, then the spectator)."""

    game: Game
    entries: list[tuple[int, list[str]]] = field(default_factory=list)
    pattern: re.Pattern[str] | None = None

    def __post_init__(self) -> None:
        names = sorted(set(self.game.cards.names), key=len, reverse=True)
        if names:
            self.pattern = re.compile("|".join(rf"(?<![\w]){re.escape(name)}(?![\w])" for name in names))

    def record(self, player: int, label: str, before: tuple[list[int], list[int]], after: State) -> None:
        """After ``player`` took the action ``label``: its text for every viewer."""
        loc, face = before
        touched = [c for c in range(len(loc)) if loc[c] != after.loc[c] or face[c] != after.face[c]]
        n = self.game.num_players
        texts = [shown(self._for(label, touched, after, v, player)) for v in range(n)]
        texts.append(shown(self._for(label, touched, after, SPECTATOR, player)))
        self.entries.append((player, texts))

    def _for(self, label: str, touched: list[int], after: State, viewer: int, actor: int) -> str:
        if viewer == actor or not touched or self.pattern is None:
            return label
        seen = visible_cards(after, viewer)
        names = self.game.cards.names
        secret = {names[c] for c in touched if c not in seen}
        if not secret:
            return label
        return self.pattern.sub(lambda m: "a card" if m.group(0) in secret else m.group(0), label)

    def lines(self, viewer: int, limit: int = MAX_LOG) -> list[dict[str, Any]]:
        column = viewer if viewer >= 0 else self.game.num_players
        start = max(0, len(self.entries) - limit)
        return [{"n": start + i + 1, "player": p, "text": texts[column]}
                for i, (p, texts) in enumerate(self.entries[start:])]


def seat_view(state: State, viewer: int, book: LogBook, may_act: bool, words: Wording) -> dict[str, Any]:
    """The view of ``viewer`` (a seat, or SPECTATOR): the observation (its events with their
    text), the seat's legal actions and the step it is at (when ``may_act`` and it is
    deciding), and the log as it may read it."""
    game = state.game
    obs = state.observation(viewer)
    events = obs.pop("events", [])
    obs["events"] = [{**e, "text": shown(words.events.line(e))} for e in events[-MAX_EVENTS:]]
    obs["events_total"] = len(events)
    out: dict[str, Any] = {"view": obs, "you": viewer, "log": book.lines(viewer), "actions": [], "step": None}
    pending = state.pending
    if may_act and not state.is_terminal() and pending is not None and pending.player == viewer >= 0:
        out["actions"] = [{"id": a, "label": shown(state.action_to_string(a)), "name": words.action_name(a),
                           "target": _piece_cell(state, action_targets(game, a))}  # type: ignore[arg-type]
                          for a in state.legal_actions()]
        out["step"] = words.step(list(dict.fromkeys(a["name"] for a in out["actions"])))
    deciding = state.current_player()
    out["deciding"] = None if state.is_terminal() else ("chance" if deciding == CHANCE else deciding)
    return out


def snapshot(state: State) -> tuple[list[int], list[int]]:
    """Where every card is and how it faces (to find the cards an action touched)."""
    return list(state.loc), list(state.face)
