"""One live table, in a worker process of its own: its match, its seats' views, its log.

The server sends every request about the table here (``Room.handle``) and keeps only what
it needs to route them: the status after each change and the views it was sent. A person's
action is taken back when a rule fails during it (the state is a copy made before), so the
table is exactly as it was and the person may choose again; a bot's or chance's failing
action ends the match with the message. The seed of a table with more than one person is
drawn here and leaves this process only in the finished match's log.

Viewers: a seat (0..n-1), the spectator (``SPECTATOR``) or the hot-seat device (``HOT_SEAT``:
it acts for, and sees as, whichever person's seat is deciding, or decided last).
"""

from __future__ import annotations

import json
import math
import random
import secrets
from typing import Any

from ..agents import derive_seed
from ..errors import InterpreterError
from ..game import Game
from ..replay import end_record, match_header
from ..state import CHANCE
from .bots import HUMAN, capped_agent
from .errors import ServeError
from .limits import ServerLimits
from .specs import ServedFiles, game_of, request_body
from .tables import SPECTATOR, LogBook, Wording, layout, seat_view, snapshot

__all__ = ["Room", "HOT_SEAT", "payload_json", "SEED_LIMIT"]

HOT_SEAT = -2
SEED_LIMIT = 2**64
MAX_VIEW = 1_000_000  # bytes of one view: a larger one closes the table
MAX_LOG = 4_000_000  # bytes of a finished match's log kept (what the replay page may open)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def payload_json(data: Any) -> bytes:
    """JSON of a payload: a number JSON cannot hold (NaN, an infinity) is sent as null."""
    try:
        text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    except ValueError:
        text = json.dumps(_finite(data), separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__


class Room:
    """A table's match and what its viewers are sent."""

    def __init__(self, files: ServedFiles, limits: ServerLimits):
        self.files = files
        self.limits = limits
        self.game: Game | None = None
        self.version = 0
        self.moves: list[tuple[int, int, str]] = []
        self.notices: list[str] = []
        self.error: str | None = None
        self.last_human = SPECTATOR

    # ------------------------------------------------------------------ requests
    def handle(self, op: str, header: dict[str, Any], blobs: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        if op == "open":
            return self.open(request_body(blobs)), []
        if self.game is None:
            raise ServeError("the table is not open", 500)
        if op == "view":
            return self.views(header.get("want", []))
        moves = len(self.moves)
        if op == "act":
            self.act(header["viewer"], request_body(blobs))
        elif op == "chance":
            self.move(CHANCE, self.state.sample_chance_outcome(self.chance_rng))
        elif op == "bot":
            self.move(header["seat"], header["action"])
        elif op == "random":
            legal = self.state.legal_actions(header["seat"])
            rng = random.Random(derive_seed(self.seed, "fallback", len(self.state.history)))
            self.move(header["seat"], legal[rng.randrange(len(legal))])
        elif op == "notice":
            self.notices.append(str(header["text"])[:300])
            self.version += 1
        elif op == "final":
            return self.final()
        elif op == "inspect":
            return {"seed": self.seed, "history": list(self.state.history), "state": self.state.to_json()}, []
        else:
            raise ServeError(f"unknown request {op!r}", 500)
        out, views = self.views(header.get("want", []))
        out["applied"] = [list(m[:2]) for m in self.moves[moves:]]
        return out, views

    # ------------------------------------------------------------------ opening
    def open(self, body: dict[str, Any]) -> dict[str, Any]:
        """The match a creation request asks for: spec, players, options, seats, seed, hot seat."""
        gamedef, file = self.files.requested(body)
        game = game_of(gamedef, body.get("players"), body.get("options"))
        kinds = self.seat_kinds(body.get("seats"), game)
        humans = kinds.count(HUMAN)
        hot = bool(body.get("hot_seat"))
        seed = body.get("seed")
        if humans > 1 and seed is not None:
            raise ServeError("a table with more than one person gets its deal from the server: leave 'seed' out "
                             "(it is in the match's log when the match is over)")
        if seed is None:
            seed = secrets.randbelow(2**63)
        if type(seed) is not int or not 0 <= seed < SEED_LIMIT:
            raise ServeError("'seed' must be a whole number from 0 to 2**64 - 1")
        self.game = game
        self.file = file
        self.seed = seed
        self.kinds = kinds
        self.hot_seat = hot
        self.state = game.new_initial_state(seed)
        self.book = LogBook(game)
        self.words = Wording(game)
        self.chance_rng = random.Random(derive_seed(seed, "chance"))
        self.layout_json = json.dumps(layout(game), separators=(",", ":"))
        self.last_human = kinds.index(HUMAN) if humans else SPECTATOR
        return {"players": game.num_players, "seat_names": game.seat_names, "kinds": kinds, "hot_seat": hot,
                "seed": seed, "file": file, "game": game.name, **self.status()}

    def seat_kinds(self, given: Any, game: Game) -> list[str]:
        n = game.num_players
        if given is None:
            return [HUMAN] + ["random"] * (n - 1)
        if not isinstance(given, list) or len(given) != n or not all(isinstance(k, str) for k in given):
            raise ServeError(f"'seats' must list a person ('human') or a bot for each of the {n} seats")
        kinds = []
        for p, kind in enumerate(given):
            kind = kind.strip().lower()
            if kind == HUMAN:
                kinds.append(HUMAN)
                continue
            try:
                kinds.append(capped_agent(kind, game, self.limits))
            except ServeError as exc:
                raise ServeError(f"seat {p}: {exc}") from None
        return kinds

    # ------------------------------------------------------------------ status and views
    def status(self) -> dict[str, Any]:
        state = self.state
        over = state.is_terminal()
        current = state.current_player()
        deciding = None if over or self.error else ("chance" if current == CHANCE else current)
        return {"version": self.version, "deciding": deciding, "over": over, "failed": self.error,
                "hot_viewer": self.viewer_seat(HOT_SEAT) if self.hot_seat else None}

    def viewer_seat(self, viewer: int) -> int:
        """The seat whose eyes ``viewer`` has (a hot-seat device: the person deciding, or who decided last)."""
        if viewer != HOT_SEAT:
            return viewer
        current = self.state.current_player()
        if 0 <= current < len(self.kinds) and self.kinds[current] == HUMAN and not self.state.is_terminal():
            self.last_human = current
        return self.last_human

    def views(self, want: list[int]) -> tuple[dict[str, Any], list[bytes]]:
        viewers = [v for v in dict.fromkeys(want) if isinstance(v, int) and HOT_SEAT <= v < len(self.kinds)]
        return {**self.status(), "viewers": viewers}, [self.payload(v) for v in viewers]

    def payload(self, viewer: int) -> bytes:
        seat = self.viewer_seat(viewer)
        may_act = seat >= 0 and self.kinds[seat] == HUMAN and viewer in (HOT_SEAT, seat) and self.error is None
        out = seat_view(self.state, seat, self.book, may_act, self.words)
        out.update(version=self.version, hot_seat=viewer == HOT_SEAT,
                   seats=[{"seat": p, "name": name, "kind": kind}
                          for p, (name, kind) in enumerate(zip(self.game.seat_names, self.kinds))],  # type: ignore[union-attr]
                   spec=self.file, error=self.error, over=self.state.is_terminal(), notices=self.notices[-5:])
        body = b'{"layout":' + self.layout_json.encode("utf-8") + b"," + payload_json(out)[1:]
        if len(body) > MAX_VIEW:
            raise ServeError(f"a view of this table is larger than {MAX_VIEW:,} bytes, the most this server sends",
                             422, fatal=True)
        return body

    # ------------------------------------------------------------------ changing
    def act(self, viewer: int, body: dict[str, Any]) -> None:
        """A person's action: theirs to take, and legal; taken back when a rule fails during it."""
        action = body.get("action")
        seat = self.viewer_seat(viewer)
        state = self.state
        if state.is_terminal() or self.error is not None:
            raise ServeError("the match is over", 409)
        if seat < 0 or seat != state.current_player() or self.kinds[seat] != HUMAN:
            raise ServeError("it is not your turn", 409)
        if type(action) is not int or action not in state.legal_actions():
            raise ServeError("that action is not legal now", 400)
        before = state.clone()
        try:
            self.apply(seat, action)
        except InterpreterError as exc:
            self.state = before
            raise ServeError(f"that move could not be played, and was taken back: {_first_line(exc)}", 422) from None

    def move(self, player: int, action: Any) -> None:
        """A bot's or chance's action; a rule failing during it ends the match with the message."""
        state = self.state
        if self.error is not None or state.is_terminal() or state.current_player() != player:
            raise ServeError("no move is due from that seat", 409)
        if type(action) is not int or action not in state.legal_actions():
            raise ServeError("that action is not legal now", 400)
        try:
            self.apply(player, action)
        except InterpreterError as exc:
            self.error = f"a rule failed: {_first_line(exc)}"
            self.version += 1

    def apply(self, player: int, action: int) -> None:
        state = self.state
        label = state.action_to_string(action)
        before = snapshot(state)
        state.apply_action(action)
        self.moves.append((player, action, label))
        self.book.record(player, label, before, state)
        self.version += 1

    # ------------------------------------------------------------------ the end
    def final(self) -> tuple[dict[str, Any], list[bytes]]:
        """Every viewer's last view, and the match's log (when it reached its end)."""
        viewers = list(range(len(self.kinds))) + [SPECTATOR] + ([HOT_SEAT] if self.hot_seat else [])
        header, views = self.views(viewers)
        log = self.log_text() if self.state.is_terminal() else b""
        if len(log) > MAX_LOG:
            header["log_dropped"] = f"its log is larger than {MAX_LOG:,} bytes, the most this server keeps"
            log = b""
        return header, views + [log]

    def log_text(self) -> bytes:
        """The match as a log (``rulespec replay`` and the replay page read it), its seed included."""
        game = self.game
        assert game is not None
        seeds = [derive_seed(self.seed, "agent", p) for p in range(len(self.kinds))]
        lines: list[Any] = [match_header(game, self.file, self.seed, list(self.kinds), seeds)]
        lines += [{"player": p, "action": a, "label": label} for p, a, label in self.moves]
        lines.append(end_record(self.state))
        return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")

