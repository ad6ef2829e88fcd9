"""The tables a server holds: live ones (each a worker process, and one more for its bots),
finished ones (their last views and log, kept as bytes, holding no slot), closed ones (why).

The server's event loop only routes: a seat's view is asked of the table's worker once per
version (concurrent askers wait for the one answer) and kept; a person's action is passed on
with the list of views to bring back (every viewer with a page open), so one round trip
answers the action and updates every page. A table's bots move in a task of their own
(``drive``): chance and bot decisions one at a time, the bots thinking in their worker (which
runs only on a core the tables leave idle), each decision within ``--bot-seconds`` (a bot still
thinking then plays at random that once, and its worker starts anew) and the match's bots
within ``--bot-match-cpu`` (then they play at random, and the table says so). Every CPU second
a table's workers use is charged to the table (``--table-cpu``) and to a client
(``--client-cpu``): the one who asked, or for bots the table's creator, whose bots wait while
that client's budget refills. Slots are reserved before any wait, so concurrent requests
cannot pass a limit together.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
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
SLOW = 0.25  # CPU seconds of one request after which a table's worker yields the CPU to the others
MAX_FINISHED_PER_TABLE = 20  # finished tables kept: this many per live table allowed
log = logging.getLogger("rulespec.serve")


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
    body: bytes = b""  # the request that made it (the bots' worker opens the same game from it)
    bots: Worker | None = None
    tokens: dict[str, int] = field(default_factory=dict)  # token -> viewer
    claims: dict[int, str] = field(default_factory=dict)  # viewer -> hash of its browser's claim
    views: dict[int, bytes] = field(default_factory=dict)  # viewer -> payload at status["version"]
    asking: dict[tuple[int, int], asyncio.Future[None]] = field(default_factory=dict)  # views being worked out
    watchers: Counter[int] = field(default_factory=Counter)  # viewer -> open sockets
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # set (and replaced) at each change
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # a person acted, or the table is ending
    moves: list[list[int]] = field(default_factory=list)  # [player, action] of every move so far
    synced: int = 0  # the moves the bots' copy of the match has seen
    cpu: float = 0.0
    bot_cpu: float = 0.0
    bots_random: bool = False  # the bots play at random (their time for the match is spent)
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
    log_dropped: str | None = None  # why it has no log, when the log was too large to keep
    ended: float = field(default_factory=time.monotonic)

    @property
    def size(self) -> int:
        return len(self.log) + sum(len(v) for v in self.views.values())


class Tables:
    def __init__(self, launcher: Launcher, limits: ServerLimits, clients: Clients):
        self.launcher = launcher
        self.limits = limits
        self.clients = clients
        self.live: dict[str, Table] = {}
        self.opening = 0  # tables being opened: they hold a slot already
        self.finished: OrderedDict[str, Finished] = OrderedDict()
        self.finished_bytes = 0
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
        if len(self.live) + self.opening >= self.limits.max_tables:
            raise ServeError(f"the server has {self.limits.max_tables} live tables, its most; try again later", 503)
        account.creations.spend(1.0, time.monotonic())
        account.tables += 1  # both reserved before the first wait
        self.opening += 1
        try:
            return await self._open(client, body)
        except BaseException:
            account.tables -= 1
            raise
        finally:
            self.opening -= 1

    async def _open(self, client: str, body: bytes) -> dict[str, Any]:
        room = await self.launcher.start("room")
        try:
            answer = await self._ask(room, client, "open", {}, [body])
            head = answer.raise_error().header
            table = Table(secrets.token_urlsafe(12), client, room, list(head["kinds"]), list(head["seat_names"]),
                          bool(head["hot_seat"]), int(head["seed"]), {k: head.get(k) for k in STATUS}, body=body)
            table.cpu = answer.cpu
            if any(kind != HUMAN for kind in table.kinds):
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
        """One request to a worker, paid by ``client`` (a killed worker's CPU too); a costly one
        lowers the worker's priority from then on."""
        budget = budget or self.limits.request_cpu
        try:
            answer = await worker.call(op, header, blobs, budget, self.launcher.wall(budget))
        except WorkerGone as gone:
            self.clients.charge(client, gone.cpu)
            raise
        self.clients.charge(client, answer.cpu)
        if answer.cpu > SLOW and op != "open" and worker.kind == "room":
            worker.lower_priority()
        return answer

    async def ask(self, table: Table, client: str, op: str, header: dict[str, Any] | None = None,
                  blobs: list[bytes] | None = None) -> Answer:
        """A request to the table's room; its CPU charged to the table, which closes when a budget runs out."""
        if not table.live:
            raise self._gone(table)
        try:
            answer = await self._ask(table.room, client, op, header or {}, blobs or [])
        except WorkerGone as gone:
            table.cpu += gone.cpu
            if table.live:
                self.close(table, "its worker stopped answering")
            raise self._gone(table) from None
        table.cpu += answer.cpu
        error = answer.header.get("error")
        if answer.header.get("fatal"):
            self.close(table, str(error))
            answer.raise_error()
        if error is None:
            self._update(table, answer)
        if table.cpu > self.limits.table_cpu:
            self.close(table, f"it used the {self.limits.table_cpu:g} s of CPU this server gives a table")
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
        """The viewer's payload now: asked of the table once per version (concurrent askers wait
        for that one answer); a table that ends meanwhile answers with its last view."""
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
            slot = (key, table.status["version"])
            waiting = table.asking.get(slot)
            if waiting is not None:
                await asyncio.shield(waiting)
                continue
            self.clients.check_cpu(client)
            table.asking[slot] = asyncio.get_running_loop().create_future()
            try:
                with self.clients.busy(client):
                    await self.ask(table, client, "view", {"want": [key]})
            except ServeError:
                if table.id not in self.finished:
                    raise  # (a table that finished meanwhile answers with its last view)
            finally:
                table.asking.pop(slot).set_result(None)

    async def act(self, table: Table | Finished, viewer: int, body: bytes, client: str) -> bytes:
        if isinstance(table, Finished) or table.status["over"] or table.status["failed"]:
            raise ServeError("the match is over", 409)
        seat = table.status["hot_viewer"] if viewer == HOT_SEAT else viewer
        if viewer == HOST or seat is None or seat < 0 or table.status["deciding"] != seat \
                or table.kinds[seat] != HUMAN:
            raise ServeError("it is not your turn", 409)
        self.clients.check_cpu(client)
        with self.clients.busy(client):
            await self.ask(table, client, "act", {"viewer": viewer, "want": self.watching(table, viewer)}, [body])
        table.wake.set()
        return await self.view(table, viewer, client)

    # ------------------------------------------------------------------ bots and chance
    async def drive(self, table: Table) -> None:
        """Move for chance and the bots until a person must, the match ends or the table closes.
        A request of its own that fails (not fatally) is tried again a second later; the third
        failure in a row closes the table with its message."""
        failures = 0
        while table.live:
            try:
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
                failures = 0
            except ServeError as exc:
                failures += 1
                if failures >= 3:
                    self.close(table, str(exc))
                await asyncio.sleep(1.0)
            except Exception:  # a bug: the table closes, the server goes on
                log.exception("the driver of table %s", table.id)
                self.close(table, "an internal error of the server (its log has the details)")

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
        if table.bots_stopped or table.bots_random or not table.live:  # changed while it started
            self.launcher.stop(worker)
            return
        table.bots, table.synced = worker, 0

    async def bot_move(self, table: Table, seat: int) -> None:
        """One bot decision: asked of the bots' worker, played by the room; at random when the bots'
        time is spent, and that once when the bot is still thinking after ``--bot-seconds``."""
        limits = self.limits
        if limits.bot_delay:
            await asyncio.sleep(limits.bot_delay)
        while (wait := self.clients.cpu_wait(table.client)) > 0:  # the creator's CPU for now is spent
            await asyncio.sleep(min(wait, 5.0))
        want = self.watching(table, SPECTATOR)
        if not (table.live and table.status["deciding"] == seat) or table.bots_stopped:
            return
        action = None if table.bots_random else await self.decide(table, seat)
        if not table.live or table.bots_stopped or table.status["deciding"] != seat:
            return  # the host stopped the bots (or the table ended) meanwhile
        if action is None:
            await self.ask(table, table.client, "random", {"seat": seat, "want": want})
        else:
            await self.ask(table, table.client, "bot", {"seat": seat, "action": action, "want": want})
        if table.bot_cpu > limits.bot_match_cpu and not table.bots_random:
            await self.bots_at_random(table, f"the bots have used the {limits.bot_match_cpu:g} s of thinking this "
                                             "server gives a match: they play at random from now on")

    async def decide(self, table: Table, seat: int) -> int | None:
        """The action the seat's bot chooses, or None (then it plays at random, once): its worker
        failed or thought past ``--bot-seconds`` (a new worker catches up at the next decision)."""
        limits = self.limits
        try:
            if table.bots is None:
                await self.start_bots(table)
            worker = table.bots
            if worker is None:
                return None
            sync = table.moves[table.synced:]
            if sync:
                (await self._ask(worker, table.client, "sync", {"moves": sync}, [])).raise_error()
                table.synced += len(sync)
            answer = await self._ask(worker, table.client, "decide", {"seat": seat}, [],
                                     1.25 * limits.bot_seconds + 0.1)
        except ServeError as exc:
            answer = Answer({"error": str(exc), "fatal": True, "cpu": getattr(exc, "cpu", 0.0)})
        table.bot_cpu += answer.cpu
        table.cpu += answer.cpu
        if "error" not in answer.header:
            return int(answer.header["action"])
        self.launcher.stop(table.bots)  # its copy of the match may be behind: a new one starts next time
        table.bots = None
        if table.live and not table.bots_stopped:
            await self.ask(table, table.client, "notice", {
                "text": f"{table.seat_names[seat]}'s bot did not decide in time and played at random",
                "want": self.watching(table, SPECTATOR)})
        return None

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
        table.wake.set()
        await self.ask(table, table.client, "notice", {"text": "the table's host stopped the bots",
                                                       "want": self.watching(table, SPECTATOR)})

    # ------------------------------------------------------------------ the end of a table
    async def finish(self, table: Table) -> None:
        """A match over (or stopped by a failing rule): its views and log kept, its workers and slot freed."""
        answer = await self.ask(table, table.client, "final")
        if not table.live:
            return  # the last request closed it (its budget)
        head = answer.header
        done = Finished(table.id, dict(zip(head["viewers"], answer.blobs)), answer.blobs[-1], table.tokens,
                        table.claims, head.get("failed"), head.get("log_dropped"))
        self.finished[table.id] = done
        self.finished_bytes += done.size
        self._release(table)
        budget = self.limits.finished_mb << 20
        while self.finished and (len(self.finished) > MAX_FINISHED_PER_TABLE * self.limits.max_tables
                                 or self.finished_bytes > budget):
            self._drop_finished(next(iter(self.finished)))

    def close(self, table: Table, reason: str) -> None:
        """A live table ended without finishing: its workers stop, its links say why."""
        if table.id not in self.live:
            return
        self.closed[table.id] = (reason, time.monotonic())
        self._release(table)
        if table.task is not None and table.task is not asyncio.current_task():
            table.task.cancel()

    def _release(self, table: Table) -> None:
        """Its slot and workers freed (its links stay: they lead to its end, or say why it closed)."""
        if self.live.pop(table.id, None) is None:
            return
        self.launcher.stop(table.room)
        self.launcher.stop(table.bots)
        table.bots = None
        account = self.clients.get(table.client)
        account.tables = max(0, account.tables - 1)
        table.wake.set()
        self._notify(table)

    def _drop_finished(self, table_id: str) -> None:
        done = self.finished.pop(table_id)
        self.finished_bytes -= done.size
        for token in done.tokens:
            self.tokens.pop(token, None)

    async def sweep(self) -> None:
        """Close tables nobody has open, and forget what has been kept long enough."""
        now = time.monotonic()
        limits = self.limits
        for table in list(self.live.values()):
            if not any(table.watchers.values()) and now - table.last_seen > limits.idle:
                self.close(table, f"nobody had it open for {limits.idle:g} s")
        for table_id in [k for k, f in self.finished.items() if now - f.ended > limits.keep_finished]:
            self._drop_finished(table_id)
        gone = {k for k, (_, when) in self.closed.items() if now - when > limits.keep_finished}
        for table_id in gone:
            del self.closed[table_id]
        if gone:
            for token in [t for t, (i, _) in self.tokens.items() if i in gone]:
                del self.tokens[token]
