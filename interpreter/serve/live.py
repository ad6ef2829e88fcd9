"""The tables a server holds: live ones (each a worker process, and one more for its bots),
finished ones (their last views and log, kept as bytes, holding no slot), closed ones (why).

The server's event loop only routes: a seat's view is asked of the table's worker once per
version and kept; a person's action is passed on with the list of views to bring back (every
viewer with a page open), so one round trip answers the action and updates every page. A
table's bots move in a task of their own (``drive``): chance and bot decisions one at a time,
the bots thinking in their niced worker, each decision within ``--bot-seconds`` and the match's
bots within ``--bot-match-cpu`` (then they play at random, and the table says so). Every CPU
second a table's workers report is charged to the table (``--table-cpu``) and to a client
(``--client-cpu``): the one who asked, or for bots the table's creator, whose bots wait while
that client's budget refills.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any

from .bots import HUMAN
from .clients import Clients
from .errors import ServeError
from .limits import ServerLimits
from .room import HOT_SEAT
from .tables import SPECTATOR
from .workers import Answer, Launcher, Worker, WorkerGone

__all__ = ["Table", "Finished", "Tables", "HOST", "claim_hash"]

HOST = -3  # the viewer of a table's host link: the spectator's view, and the right to stop and close it
STATUS = ("version", "deciding", "over", "failed", "hot_viewer")  # a room's status (failed: a rule failed)
SLOW = 0.25  # seconds of wall clock after which a request's worker yields the CPU to the others
MAX_FINISHED_PER_TABLE = 20  # finished tables kept: this many per live table allowed


def claim_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass
class Table:
    id: str
    client: str
    room: Worker
    kinds: list[str]
    seat_names: list[str]
    hot_seat: bool
    seed: int
    status: dict[str, Any]
    bots: Worker | None = None
    tokens: dict[str, int] = field(default_factory=dict)  # token -> viewer
    claims: dict[int, str] = field(default_factory=dict)  # viewer -> hash of its browser's claim
    views: dict[int, bytes] = field(default_factory=dict)  # viewer -> payload at status["version"]
    watchers: Counter[int] = field(default_factory=Counter)  # viewer -> open sockets
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # set (and replaced) at each change
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # a person acted, or the table is ending
    body: bytes = b""  # the request that made it (the bots' worker opens the same game from it)
    moves: list[list[int]] = field(default_factory=list)  # [player, action] of every move so far
    synced: int = 0  # the moves the bots' copy of the match has seen
    cpu: float = 0.0
    bot_cpu: float = 0.0
    bots_random: bool = False  # the bots play at random (their time is spent, or they failed)
    bots_stopped: bool = False  # the host stopped them
    last_seen: float = field(default_factory=time.monotonic)
    task: asyncio.Task[None] | None = None

    @property
    def live(self) -> bool:
        return self.room.alive


@dataclass
class Finished:
    id: str
    views: dict[int, bytes]
    log: bytes
    tokens: dict[str, int]
    claims: dict[int, str]
    error: str | None
    ended: float = field(default_factory=time.monotonic)


class Tables:
    def __init__(self, launcher: Launcher, limits: ServerLimits, clients: Clients):
        self.launcher = launcher
        self.limits = limits
        self.clients = clients
        self.live: dict[str, Table] = {}
        self.finished: OrderedDict[str, Finished] = OrderedDict()
        self.closed: dict[str, tuple[str, float]] = {}  # table id -> why it was closed, when
        self.tokens: dict[str, tuple[str, int]] = {}  # token -> (table id, viewer)

    # ------------------------------------------------------------------ finding
    def find(self, token: Any) -> tuple[Table | Finished, int]:
        found = self.tokens.get(token) if isinstance(token, str) else None
        if found is not None:
            table_id, viewer = found
            table: Table | Finished | None = self.live.get(table_id) or self.finished.get(table_id)
            if table is not None:
                if isinstance(table, Table):
                    table.last_seen = time.monotonic()
                return table, viewer
            if table_id in self.closed:
                raise ServeError(f"this table was closed: {self.closed[table_id][0]}", 410)
        raise ServeError("no such table (it may have ended and expired)", 404)

    # ------------------------------------------------------------------ creating
    async def create(self, client: str, body: bytes) -> dict[str, Any]:
        account = self.clients.check_create(client)
        if len(self.live) >= self.limits.max_tables:
            raise ServeError(f"the server has {self.limits.max_tables} live tables, its most; try again later", 503)
        account.creations.spend(1.0, time.monotonic())
        account.tables += 1
        try:
            return await self._open(client, body)
        except BaseException:
            account.tables -= 1
            raise

    async def _open(self, client: str, body: bytes) -> dict[str, Any]:
        room = await self.launcher.start("room")
        try:
            answer = await self._ask(room, client, "open", {}, [body])
            head = answer.raise_error().header
        except BaseException:
            self.launcher.stop(room)
            raise
        table = Table(secrets.token_urlsafe(12), client, room, list(head["kinds"]), list(head["seat_names"]),
                      bool(head["hot_seat"]), int(head["seed"]), {k: head.get(k) for k in STATUS}, body=body)
        table.cpu = answer.cpu
        if any(kind != HUMAN for kind in table.kinds):
            try:
                await self.start_bots(table)
            except BaseException:
                self.launcher.stop(room)
                raise
        links = self._register(table)
        table.task = asyncio.get_running_loop().create_task(self.drive(table))
        return links

    def _register(self, table: Table) -> dict[str, Any]:
        self.live[table.id] = table

        def token(viewer: int) -> str:
            value = secrets.token_urlsafe(18)
            table.tokens[value] = viewer
            self.tokens[value] = (table.id, viewer)
            return value

        seats = [{"seat": p, "name": table.seat_names[p], "kind": kind,
                  "token": token(p) if kind == HUMAN and not table.hot_seat else None}
                 for p, kind in enumerate(table.kinds)]
        links: dict[str, Any] = {"match": table.id, "seats": seats, "spectator": token(SPECTATOR), "host": token(HOST)}
        if table.hot_seat:
            links["hot_seat"] = token(HOT_SEAT)
        return links

    # ------------------------------------------------------------------ asking a table's workers
    async def _ask(self, worker: Worker, client: str, op: str, header: dict[str, Any], blobs: list[bytes],
                   budget: float | None = None) -> Answer:
        """One request to a worker, paid by ``client``; a slow one lowers the worker's priority."""
        budget = budget or self.limits.request_cpu
        slow = asyncio.get_running_loop().call_later(SLOW, worker.lower_priority)
        try:
            answer = await worker.call(op, header, blobs, budget, self.launcher.wall(budget))
        finally:
            slow.cancel()
        self.clients.charge(client, answer.cpu)
        return answer

    async def ask(self, table: Table, client: str, op: str, header: dict[str, Any] | None = None,
                  blobs: list[bytes] | None = None) -> Answer:
        """A request to the table's room; its CPU charged to the table, which closes when a budget runs out."""
        if not table.live:
            raise self._gone(table)
        try:
            answer = await self._ask(table.room, client, op, header or {}, blobs or [])
        except WorkerGone:
            await self.close(table, "its worker stopped answering")
            raise
        table.cpu += answer.cpu
        error = answer.header.get("error")
        if answer.header.get("fatal"):
            await self.close(table, str(error))
            answer.raise_error()
        if error is None:
            self._update(table, answer)
        if table.cpu > self.limits.table_cpu:
            await self.close(table, f"it used the {self.limits.table_cpu:g} s of CPU this server gives a table")
        return answer.raise_error()

    def _gone(self, table: Table) -> ServeError:
        reason = self.closed.get(table.id, ("it ended", 0.0))[0]
        return ServeError(f"this table was closed: {reason}", 410)

    def _update(self, table: Table, answer: Answer) -> None:
        head = answer.header
        version = head.get("version")
        if not isinstance(version, int) or version < table.status["version"]:
            return  # an answer older than one already taken in
        changed = version != table.status["version"]
        if changed:
            table.views = {}
        table.status = {k: head.get(k) for k in STATUS}
        table.moves += head.get("applied", [])
        for viewer, blob in zip(head.get("viewers", []), answer.blobs):
            table.views[viewer] = blob
        if changed:
            self._notify(table)

    def _notify(self, table: Table) -> None:
        event, table.changed = table.changed, asyncio.Event()
        event.set()

    def watching(self, table: Table, viewer: int) -> list[int]:
        return sorted(set(v for v, n in table.watchers.items() if n > 0) | {viewer})

    # ------------------------------------------------------------------ what a viewer sees and does
    async def view(self, table: Table | Finished, viewer: int, client: str) -> bytes:
        """The viewer's payload now (asked of the table once per version; a table that ends
        meanwhile answers with its last view)."""
        key = SPECTATOR if viewer == HOST else viewer
        while True:
            if isinstance(table, Finished):
                return table.views[key]
            if not table.live:
                finished = self.finished.get(table.id)
                if finished is None:
                    raise self._gone(table)
                table = finished
                continue
            hit = table.views.get(key)
            if hit is not None:
                return hit
            self.clients.check_cpu(client)
            try:
                await self.ask(table, client, "view", {"want": [key]})
            except ServeError:
                if table.id not in self.finished:
                    raise  # (a table that finished meanwhile answers with its last view)

    async def act(self, table: Table | Finished, viewer: int, body: bytes, client: str) -> bytes:
        if isinstance(table, Finished) or table.status["over"] or table.status["failed"]:
            raise ServeError("the match is over", 409)
        seat = table.status["hot_viewer"] if viewer == HOT_SEAT else viewer
        if viewer == HOST or seat is None or seat < 0 or table.status["deciding"] != seat \
                or table.kinds[seat] != HUMAN:
            raise ServeError("it is not your turn", 409)
        self.clients.check_cpu(client)
        await self.ask(table, client, "act", {"viewer": viewer, "want": self.watching(table, viewer)}, [body])
        table.wake.set()
        return await self.view(table, viewer, client)

    # ------------------------------------------------------------------ bots and chance
    async def drive(self, table: Table) -> None:
        """Move for chance and the bots until a person must, the match ends or the table closes."""
        try:
            while table.live:
                status = table.status
                deciding = status["deciding"]
                if status["over"] or status["failed"]:
                    await self.finish(table)
                    return
                if deciding == "chance":
                    await self.ask(table, table.client, "chance", {"want": self.watching(table, SPECTATOR)})
                elif isinstance(deciding, int) and table.kinds[deciding] != HUMAN and not table.bots_stopped:
                    await self.bot_move(table, deciding)
                else:
                    table.wake.clear()
                    await table.wake.wait()
        except ServeError:
            return  # the table closed (the reason is kept for its viewers)

    async def start_bots(self, table: Table) -> None:
        """The table's bots in a worker of their own, with a copy of the match (caught up at their next decision)."""
        bots = {p: kind for p, kind in enumerate(table.kinds) if kind != HUMAN}
        worker = await self.launcher.start("bots")
        try:
            answer = await self._ask(worker, table.client, "open", {"seed": table.seed, "bots": bots}, [table.body])
            answer.raise_error()
        except BaseException:
            self.launcher.stop(worker)
            raise
        table.bots, table.synced = worker, 0

    async def bot_move(self, table: Table, seat: int) -> None:
        """One bot decision: asked of the bots' worker, played by the room; at random when the bots'
        time is spent, and that once when the bot is still thinking after ``--bot-seconds``."""
        limits = self.limits
        if limits.bot_delay:
            await asyncio.sleep(limits.bot_delay)
        while (wait := self.clients.cpu_wait(table.client)) > 0:  # the creator's CPU for now is spent
            await asyncio.sleep(min(wait, 5.0))
            if not table.live or table.bots_stopped:
                return
        want = self.watching(table, SPECTATOR)
        if not table.bots_random and table.bots is None:
            await self.start_bots(table)
        if table.bots_random or table.bots is None:
            await self.ask(table, table.client, "random", {"seat": seat, "want": want})
            return
        budget = limits.request_cpu + 1.5 * limits.bot_seconds + 0.5
        sync = table.moves[table.synced:]
        try:
            answer = await self._ask(table.bots, table.client, "decide", {"seat": seat, "sync": sync}, [], budget)
        except WorkerGone:
            answer = Answer({"error": "the bots stopped answering", "fatal": True})
        table.bot_cpu += answer.cpu
        table.cpu += answer.cpu
        if "error" in answer.header:
            if answer.header.get("fatal"):  # its worker ended: a new one catches up at the next decision
                self.launcher.stop(table.bots)
                table.bots = None
            name = table.seat_names[seat]
            await self.ask(table, table.client, "notice", {"text": f"{name}'s bot did not decide in time and "
                                                                   "played at random", "want": want})
            await self.ask(table, table.client, "random", {"seat": seat, "want": want})
            return
        table.synced += len(sync)
        await self.ask(table, table.client, "bot", {"seat": seat, "action": answer.header["action"], "want": want})
        if table.bot_cpu > limits.bot_match_cpu:
            await self.bots_at_random(table, f"the bots have used the {limits.bot_match_cpu:g} s of thinking this "
                                             "server gives a match: they play at random from now on")

    async def bots_at_random(self, table: Table, notice: str) -> None:
        if table.bots_random:
            return
        table.bots_random = True
        self.launcher.stop(table.bots)
        table.bots = None
        await self.ask(table, table.client, "notice", {"text": notice, "want": self.watching(table, SPECTATOR)})

    async def stop_bots(self, table: Table) -> None:
        """The host's stop: the bots think no more (the table waits at a bot's turn)."""
        if table.bots_stopped:
            return
        table.bots_stopped = True
        self.launcher.stop(table.bots)
        table.bots = None
        await self.ask(table, table.client, "notice", {"text": "the table's host stopped the bots",
                                                       "want": self.watching(table, SPECTATOR)})
        table.wake.set()

    # ------------------------------------------------------------------ the end of a table
    async def finish(self, table: Table) -> None:
        """A match over (or stopped by a failing rule): its views and log kept, its workers and slot freed."""
        answer = await self.ask(table, table.client, "final")
        head = answer.header
        views = dict(zip(head["viewers"], answer.blobs))
        self.finished[table.id] = Finished(table.id, views, answer.blobs[-1], table.tokens, table.claims,
                                           head.get("failed"))
        self._release(table)
        while len(self.finished) > MAX_FINISHED_PER_TABLE * self.limits.max_tables:
            self._forget(self.finished.popitem(last=False)[1].tokens)

    async def close(self, table: Table, reason: str) -> None:
        """A live table ended without finishing: its workers stop, its links say why."""
        if table.id not in self.live:
            return
        self.closed[table.id] = (reason, time.monotonic())
        self._release(table)
        if table.task is not None and table.task is not asyncio.current_task():
            table.task.cancel()

    def _release(self, table: Table) -> None:
        """Its slot and workers freed (its links stay: they lead to its end, or say why it closed)."""
        self.live.pop(table.id, None)
        self.launcher.stop(table.room)
        self.launcher.stop(table.bots)
        table.bots = None
        account = self.clients.get(table.client)
        account.tables = max(0, account.tables - 1)
        table.wake.set()
        self._notify(table)

    def _forget(self, tokens: dict[str, int]) -> None:
        for token in tokens:
            self.tokens.pop(token, None)

    async def sweep(self) -> None:
        """Close tables nobody has open, and forget what has been kept long enough."""
        now = time.monotonic()
        limits = self.limits
        for table in list(self.live.values()):
            if not any(table.watchers.values()) and now - table.last_seen > limits.idle:
                await self.close(table, f"nobody had it open for {limits.idle:g} s")
        for table_id in [k for k, f in self.finished.items() if now - f.ended > limits.keep_finished]:
            self._forget(self.finished.pop(table_id).tokens)
        gone = {k for k, (_, when) in self.closed.items() if now - when > limits.keep_finished}
        for table_id in gone:
            del self.closed[table_id]
        if gone:
            for token in [t for t, (i, _) in self.tokens.items() if i in gone]:
                del self.tokens[token]
