"""Live matches: seats, tokens, bots, and the bounded set of matches a server keeps.

Every human seat has its own unguessable token (``secrets.token_urlsafe``): the URL of
that seat. A hot-seat match has one more token for the device passed around the table:
it acts for whichever human seat is deciding and sees that seat's view only. A spectator
token sees what every seat may see. Bots (``make_agent``: random, greedy, mcts) and chance
are stepped by ``step_bots`` in a worker thread, a bounded number of steps per call, so
the event loop never waits on a search. A match is dropped after ``idle`` seconds without
a request, and no more than ``max_matches`` live at once.
"""

from __future__ import annotations

import json
import math
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agents import Agent, AgentError, derive_seed, make_agent
from ..errors import InterpreterError
from ..game import Game
from ..replay import end_record, match_header
from ..state import CHANCE, State
from .catalog import ServeError
from .tables import SPECTATOR, LogBook, layout, seat_view, snapshot

__all__ = ["HUMAN", "HOT_SEAT", "LiveMatch", "Registry", "BOT_NAMES", "MAX_STEPS_PER_CALL", "payload_json"]

HUMAN = "human"
HOT_SEAT = -2  # the viewer of a hot-seat token: the human seat deciding (or who decided last)
BOT_NAMES = ("random", "greedy", "mcts")
MAX_STEPS_PER_CALL = 50  # bot or chance steps in one call of ``step_bots`` (then the loop may breathe)
MAX_STEP_SECONDS = 0.25  # ... or fewer, once this much time has gone


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def payload_json(data: Any) -> str:
    """JSON text of a payload: a number JSON cannot hold (NaN, an infinity) is sent as null."""
    try:
        return json.dumps(data, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return json.dumps(_finite(data), separators=(",", ":"), allow_nan=False)


@dataclass
class Seat:
    seat: int
    kind: str  # "human" or an agent's label
    token: str | None = None
    agent: Agent | None = None


@dataclass
class LiveMatch:
    id: str
    game: Game
    spec_file: str  # the served spec's file name (shown, and named in the match log)
    seed: int
    seats: list[Seat]
    hot_seat: bool = False
    state: State = field(init=False)
    book: LogBook = field(init=False)
    moves: list[tuple[int, int, str]] = field(default_factory=list)
    version: int = 0
    last_active: float = field(default_factory=time.monotonic)
    lock: threading.RLock = field(default_factory=threading.RLock)
    listeners: set[Callable[[], None]] = field(default_factory=set)
    last_human: int = 0
    error: str | None = None  # a rule that failed while playing: the match stops there
    driving: bool = False  # a task is stepping the bots
    texts: dict[int, tuple[int, str]] = field(default_factory=dict)  # viewer -> (version, payload JSON)

    def __post_init__(self) -> None:
        self.state = self.game.new_initial_state(self.seed)
        self.book = LogBook(self.game)
        self.table_layout = layout(self.game)
        self.chance_rng = random.Random(derive_seed(self.seed, "chance"))
        humans = [s.seat for s in self.seats if s.kind == HUMAN]
        self.last_human = humans[0] if humans else SPECTATOR

    # ------------------------------------------------------------------ reading
    def viewer_seat(self, viewer: int) -> int:
        """The seat whose eyes ``viewer`` has (a hot-seat device: the human deciding)."""
        if viewer != HOT_SEAT:
            return viewer
        current = self.state.current_player()
        if 0 <= current < len(self.seats) and self.seats[current].kind == HUMAN and not self.state.is_terminal():
            self.last_human = current
        return self.last_human

    def payload_text(self, viewer: int) -> str:
        """The payload as JSON text, made once per version for each viewer (the answer to an
        action and the WebSocket push of the same seat share it)."""
        with self.lock:
            hit = self.texts.get(viewer)
            if hit is not None and hit[0] == self.version and viewer != HOT_SEAT:
                return hit[1]
            text = payload_json(self.payload(viewer))
            self.texts[viewer] = (self.version, text)
            return text

    def payload(self, viewer: int) -> dict[str, Any]:
        with self.lock:
            seat = self.viewer_seat(viewer)
            may_act = seat >= 0 and self.seats[seat].kind == HUMAN and (viewer == HOT_SEAT or viewer == seat)
            out = seat_view(self.state, seat, self.book, may_act)
            out.update(version=self.version, layout=self.table_layout, hot_seat=viewer == HOT_SEAT,
                       seats=[{"seat": s.seat, "name": self.game.seat_names[s.seat], "kind": s.kind}
                              for s in self.seats],
                       spec=self.spec_file, error=self.error, over=self.state.is_terminal())
            return out

    # ------------------------------------------------------------------ changing
    def act(self, viewer: int, action: Any) -> None:
        """A person's action: theirs to take, and legal."""
        with self.lock:
            seat = self.viewer_seat(viewer)
            state = self.state
            if state.is_terminal():
                raise ServeError("the match is over", 409)
            if seat < 0 or seat != state.current_player() or self.seats[seat].kind != HUMAN:
                raise ServeError("it is not your turn", 409)
            if type(action) is not int or action not in state.legal_actions():
                raise ServeError("that action is not legal now", 400)
            self._apply(seat, action)

    def _apply(self, player: int, action: int) -> None:
        state = self.state
        label = state.action_to_string(action)
        before = snapshot(state)
        try:
            state.apply_action(action)
        except InterpreterError as exc:
            self.error = f"a rule failed: {str(exc).splitlines()[0][:300]}"
            raise ServeError(self.error, 500) from None
        self.moves.append((player, action, label))
        self.book.record(player, label, before, state)
        self.version += 1

    def bot_due(self) -> bool:
        state = self.state
        if state.is_terminal() or self.error is not None:
            return False
        p = state.current_player()
        return p == CHANCE or (0 <= p < len(self.seats) and self.seats[p].kind != HUMAN)

    def step_bots(self, limit: int = MAX_STEPS_PER_CALL, seconds: float = MAX_STEP_SECONDS) -> int:
        """Up to ``limit`` bot and chance steps (fewer after ``seconds``); how many were made.
        A bot thinks on a copy of the state, without the lock: views are served meanwhile."""
        done = 0
        start = time.monotonic()
        while done < limit and time.monotonic() - start < seconds:
            with self.lock:
                if not self.bot_due():
                    break
                p = self.state.current_player()
                version = self.version
                state = self.state if p == CHANCE else self.state.clone()
            try:
                if p == CHANCE:
                    with self.lock:
                        action = self.state.sample_chance_outcome(self.chance_rng)
                else:
                    agent = self.seats[p].agent
                    assert agent is not None
                    action = agent.step(state)
                with self.lock:
                    if self.version != version:
                        break  # (cannot happen: only this thread moves for bots and chance)
                    self._apply(p, action)
            except (InterpreterError, AgentError) as exc:
                self.error = self.error or f"a rule failed: {str(exc).splitlines()[0][:300]}"
                break
            except ServeError:
                break
            done += 1
        return done

    def notify(self) -> None:
        for listener in list(self.listeners):
            listener()

    def log_lines(self) -> str:
        """The match as a log (``rulespec replay`` and the replay page read it): only when it is over."""
        with self.lock:
            if not self.state.is_terminal():
                raise ServeError("the log of a match is given when the match is over", 409)
            agents = [s.kind for s in self.seats]
            seeds = [derive_seed(self.seed, "agent", s.seat) for s in self.seats]
            lines = [match_header(self.game, self.spec_file, self.seed, agents, seeds)]
            lines += [{"player": p, "action": a, "label": label} for p, a, label in self.moves]
            lines.append(end_record(self.state))
            return "".join(json.dumps(line) + "\n" for line in lines)


class Registry:
    """The live matches and the tokens that lead to them."""

    def __init__(self, max_matches: int = 100, idle: float = 3600.0):
        self.max_matches = max_matches
        self.idle = idle
        self.matches: dict[str, LiveMatch] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # token -> (match id, viewer)
        self.lock = threading.Lock()

    def create(self, game: Game, spec_file: str, seat_kinds: list[Any], seed: Any, hot_seat: bool) -> tuple[
            LiveMatch, dict[str, Any]]:
        n = game.num_players
        kinds = _seat_kinds(seat_kinds, n)
        if seed is None:
            seed = secrets.randbelow(2**63)
        if type(seed) is not int or not 0 <= seed < 2**64:
            raise ServeError("'seed' must be a whole number from 0 to 2**64 - 1")
        seats = []
        for p, kind in enumerate(kinds):
            if kind == HUMAN:
                seats.append(Seat(p, HUMAN, None if hot_seat else secrets.token_urlsafe(18)))
                continue
            try:
                agent = make_agent(kind, game, p, derive_seed(seed, "agent", p))
            except AgentError as exc:
                raise ServeError(f"seat {p}: {exc}") from None
            seats.append(Seat(p, agent.label, None, agent))
        with self.lock:
            self.expire()
            if len(self.matches) >= self.max_matches:
                raise ServeError(f"the server has {self.max_matches} live matches; try again later", 503)
            match = LiveMatch(secrets.token_urlsafe(12), game, spec_file, seed, seats, hot_seat)
            self.matches[match.id] = match
            links: dict[str, Any] = {"match": match.id, "seats": []}
            for s in seats:
                if s.token is not None:
                    self.tokens[s.token] = (match.id, s.seat)
                links["seats"].append({"seat": s.seat, "name": game.seat_names[s.seat], "kind": s.kind,
                                       "token": s.token})
            if hot_seat:
                token = secrets.token_urlsafe(18)
                self.tokens[token] = (match.id, HOT_SEAT)
                links["hot_seat"] = token
            spectator = secrets.token_urlsafe(18)
            self.tokens[spectator] = (match.id, SPECTATOR)
            links["spectator"] = spectator
        return match, links

    def find(self, token: Any) -> tuple[LiveMatch, int]:
        with self.lock:
            found = self.tokens.get(token) if isinstance(token, str) else None
            match = self.matches.get(found[0]) if found is not None else None
            if found is None or match is None:
                raise ServeError("no such seat (the match may have ended and expired)", 404)
            match.last_active = time.monotonic()
            return match, found[1]

    def expire(self, now: float | None = None) -> int:
        """Drop the matches idle longer than ``idle``; how many were dropped."""
        now = time.monotonic() if now is None else now
        gone = [m for m in self.matches.values() if now - m.last_active > self.idle]
        for match in gone:
            del self.matches[match.id]
        if gone:
            ids = {m.id for m in gone}
            for token in [t for t, (mid, _) in self.tokens.items() if mid in ids]:
                del self.tokens[token]
        return len(gone)


def _seat_kinds(given: Any, n: int) -> list[str]:
    if given is None:
        return [HUMAN] + ["random"] * (n - 1)
    if not isinstance(given, list) or len(given) != n or not all(isinstance(k, str) for k in given):
        raise ServeError(f"'seats' must list one of human, {', '.join(BOT_NAMES)} for each of the {n} seats")
    kinds = []
    for kind in given:
        kind = kind.strip().lower()
        if kind != HUMAN and kind.split(":")[0] not in BOT_NAMES or len(kind) > 60:
            raise ServeError(f"'seats': {kind[:60]!r} is not human, {', '.join(BOT_NAMES)}")
        kinds.append(kind)
    return kinds
