"""Match logs sent from the browser, to step through from any seat's view (in a worker).

A log is untrusted: it is read by ``iter_log`` (bounds on size, lines, numbers) from a
private temporary file, its spec must be one the server serves (matched by file name;
the log's path is never followed), and it is checked action by action by ``replay_match``.
States are kept every ``CHECKPOINT`` actions, so a step back replays at most that many.
``ReplayRoom`` holds one such log in its worker process and answers its views.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..replay import LogError, LoggedMatch, check_logged_game, iter_log, replay_match
from ..state import State
from .errors import ServeError
from .limits import ServerLimits
from .room import payload_json
from .specs import ServedFiles, game_of, request_body
from .tables import SPECTATOR, LogBook, Wording, layout, seat_view, snapshot

__all__ = ["Replay", "ReplayRoom", "load_replay", "MAX_LOG_TEXT", "CHECKPOINT"]

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

    def __post_init__(self) -> None:
        self.words = Wording(self.game)
        self.layout = layout(self.game)

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
        out = seat_view(state, viewer, book, False, self.words)
        out.update(step=step, total=len(self.actions), layout=self.layout, over=state.is_terminal(),
                   seats=[{"seat": p, "name": name, "kind": str((self.header.get("agents") or ["?"] * n)[p])}
                          for p, name in enumerate(self.game.seat_names)],
                   spec=str(self.header.get("spec")), replay=self.id)
        return out


def load_replay(files: ServedFiles, text: Any, match: Any = None, replay_id: str = "") -> Replay:
    """The match ``match`` (default: the first) of a log's text, checked against a served spec."""
    if not isinstance(text, str) or not text.strip():
        raise ServeError("'log' must be the text of a match log")
    if len(text) > MAX_LOG_TEXT:
        raise ServeError(f"the log is longer than {MAX_LOG_TEXT:,} characters", 413)
    if match is not None and (type(match) is not int or match < 0):
        raise ServeError("'match' must be a whole number")
    logged = _read_match(text, match)
    gamedef = _served_spec_of(files, logged)
    header = logged.header
    if len(logged.actions) > MAX_REPLAY_ACTIONS:
        raise ServeError(f"the match has more than {MAX_REPLAY_ACTIONS:,} actions", 413)
    game = game_of(gamedef, header["players"], dict(header["options"]))
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


def _served_spec_of(files: ServedFiles, logged: LoggedMatch) -> Any:
    named = logged.header.get("spec")
    base = os.path.basename(str(named).replace("\\", "/"))
    for spec_id, name in files.specs.items():
        if name == base:
            return files.served(spec_id)[0]
    raise ServeError(f"the log is of {base[:100]!r}, which this server does not serve", 404)


class ReplayRoom:
    """One log being stepped through."""

    def __init__(self, files: ServedFiles, limits: ServerLimits):
        self.files = files
        self.replay: Replay | None = None

    def handle(self, op: str, header: dict[str, Any], blobs: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        if op == "open":
            body = request_body(blobs)
            replay = load_replay(self.files, body.get("log"), body.get("match"), str(header.get("id", "")))
            self.replay = replay
            return {"total": len(replay.actions), "players": replay.game.num_players,
                    "seats": replay.game.seat_names}, []
        if op == "view" and self.replay is not None:
            return {}, [payload_json(self.replay.view(header.get("step"), header.get("seat")))]
        raise ServeError(f"unknown request {op!r}", 500)
