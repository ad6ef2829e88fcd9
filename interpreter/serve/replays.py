"""Match logs sent from the browser, to step through from any seat's view.

A log is untrusted: it is read by ``iter_log`` (bounds on size, lines, numbers) from a
private temporary file, its spec must be one the server serves (matched by file name;
the log's path is never followed), and it is checked action by action by ``replay_match``.
States are kept every ``CHECKPOINT`` actions, so a step back replays at most that many.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..replay import LogError, LoggedMatch, check_logged_game, iter_log, replay_match
from ..state import State
from .catalog import Catalog, ServeError
from .tables import SPECTATOR, LogBook, layout, seat_view, snapshot

__all__ = ["Replay", "Replays", "load_replay", "MAX_LOG_TEXT", "CHECKPOINT"]

MAX_LOG_TEXT = 4_000_000  # characters of a log sent to the server
MAX_REPLAY_ACTIONS = 200_000
CHECKPOINT = 64


@dataclass
class Replay:
    id: str
    game: Any
    header: dict[str, Any]
    actions: list[int]
    checkpoints: dict[int, State] = field(default_factory=dict)
    last_active: float = field(default_factory=time.monotonic)

    def state_at(self, step: int) -> tuple[State, LogBook]:
        """The state after ``step`` actions, and the log of those actions."""
        step = max(0, min(step, len(self.actions)))
        base = max(k for k in self.checkpoints if k <= step)
        state = self.checkpoints[base].clone()
        book = LogBook(self.game)
        start = max(0, step - 40)  # the log shows the latest actions: replay them from a checkpoint before
        if start < base:
            base = max(k for k in self.checkpoints if k <= start)
            state = self.checkpoints[base].clone()
        for i in range(base, step):
            player = state.current_player()
            label = state.action_to_string(self.actions[i])
            before = snapshot(state) if i >= start else None
            state.apply_action(self.actions[i])
            if before is not None:
                book.record(player, label, before, state)
        return state, book

    def view(self, step: Any, viewer: Any) -> dict[str, Any]:
        if type(step) is not int or type(viewer) is not int:
            raise ServeError("'step' and 'seat' must be whole numbers")
        n = self.game.num_players
        if not SPECTATOR <= viewer < n:
            raise ServeError(f"'seat' must be from {SPECTATOR} (spectator) to {n - 1}")
        step = max(0, min(step, len(self.actions)))
        state, book = self.state_at(step)
        out = seat_view(state, viewer, book, may_act=False)
        out.update(step=step, total=len(self.actions), layout=layout(self.game), over=state.is_terminal(),
                   seats=[{"seat": p, "name": name, "kind": str((self.header.get("agents") or ["?"] * n)[p])}
                          for p, name in enumerate(self.game.seat_names)],
                   spec=str(self.header.get("spec")), replay=self.id)
        return out


def load_replay(catalog: Catalog, text: Any, match: Any = None, replay_id: str = "") -> Replay:
    """The match ``match`` (default: the first) of a log's text, checked against a served spec."""
    if not isinstance(text, str) or not text.strip():
        raise ServeError("'log' must be the text of a match log")
    if len(text) > MAX_LOG_TEXT:
        raise ServeError(f"the log is longer than {MAX_LOG_TEXT:,} characters", 413)
    if match is not None and (type(match) is not int or match < 0):
        raise ServeError("'match' must be a whole number")
    logged = _read_match(text, match)
    spec = _served_spec_of(catalog, logged)
    header = logged.header
    if len(logged.actions) > MAX_REPLAY_ACTIONS:
        raise ServeError(f"the match has more than {MAX_REPLAY_ACTIONS:,} actions", 413)
    game = catalog.game(spec.gamedef, header["players"], dict(header["options"]), key=spec.id)
    try:
        check_logged_game(logged, game)
        replay = Replay(replay_id, game, header, [])
        replay.checkpoints[0] = game.new_initial_state(header["seed"])

        def keep(state: State, index: int, player: int, action: int) -> None:
            replay.actions.append(action)
            if (index + 1) % CHECKPOINT == 0:
                replay.checkpoints[index + 1] = state.clone()

        replay_match(logged, game, on_action=keep, verify_end=True)
    except LogError as exc:
        raise ServeError(f"the log does not replay: {_without_folder(str(exc))}", 422) from None
    return replay


def _read_match(text: str, match: int | None) -> LoggedMatch:
    folder = tempfile.mkdtemp(prefix="rulespec-log-")
    path = os.path.join(folder, "log.jsonl")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        for k, logged in enumerate(iter_log(path)):
            if match is None and k == 0 or logged.header.get("match") == match:
                return logged
    except LogError as exc:
        raise ServeError(_without_folder(str(exc), folder), 422) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    raise ServeError("the log has no such match", 404)


def _without_folder(message: str, folder: str | None = None) -> str:
    if folder:
        message = message.replace(folder + os.sep, "")
    return message.replace(tempfile.gettempdir() + os.sep, "")


def _served_spec_of(catalog: Catalog, logged: LoggedMatch) -> Any:
    named = logged.header.get("spec")
    base = os.path.basename(str(named).replace("\\", "/"))
    for spec in catalog.specs.values():
        if os.path.basename(spec.path) == base and spec.gamedef is not None:
            return spec
    raise ServeError(f"the log is of {base[:100]!r}, which this server does not serve", 404)


class Replays:
    """Replays kept for stepping (bounded; idle ones expire)."""

    def __init__(self, max_replays: int = 50, idle: float = 3600.0):
        self.max_replays = max_replays
        self.idle = idle
        self.items: dict[str, Replay] = {}
        self.lock = threading.Lock()

    def add(self, replay: Replay) -> None:
        with self.lock:
            now = time.monotonic()
            for key in [k for k, r in self.items.items() if now - r.last_active > self.idle]:
                del self.items[key]
            while len(self.items) >= self.max_replays:
                oldest = min(self.items, key=lambda k: self.items[k].last_active)
                del self.items[oldest]
            self.items[replay.id] = replay

    def get(self, replay_id: Any) -> Replay:
        with self.lock:
            replay = self.items.get(replay_id) if isinstance(replay_id, str) else None
            if replay is None:
                raise ServeError("no such replay (it may have expired)", 404)
            replay.last_active = time.monotonic()
            return replay
