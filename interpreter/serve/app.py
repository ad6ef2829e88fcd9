"""The Starlette app of ``rulespec serve``: pages, a JSON API and a WebSocket per seat.

The event loop only routes. Every engine call a request causes runs in a worker process
(``workers``): a table's own for its views and actions, a fresh one for a check of editor
text, a simulation or an opened log, each under the limits of ``limits.ServerLimits``.
Request bodies are bounded and passed to the worker unread; answers come back as bytes.

Every request that changes anything (tables, actions, checks, simulations, logs) must be
JSON (``Content-Type: application/json``) and, when the browser names its origin, come from
this server's own pages. A seat's link is claimed by the first browser that opens it (a
cookie it alone holds): another browser gets "seat taken". Every error reaches the browser
as ``{"error": message}`` with a status code; a bug is a 500 with no detail (the traceback
goes to the server's log only).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from .bots import BOT_NAMES
from .catalog import Catalog
from .clients import Clients
from .errors import ServeError
from .limits import ServerLimits
from .live import HOST, Finished, Table, Tables, claim_hash
from .room import HOT_SEAT, payload_json
from .tables import SPECTATOR
from .workers import Launcher, Worker, WorkerGone

__all__ = ["create_app", "MAX_BODY", "MAX_LOG_BODY", "CLOSE"]

MAX_BODY = 2_000_000  # bytes of a request body (editor text, a table, a simulation)
MAX_LOG_BODY = 4_200_000  # bytes of an opened match log
PAGES = {"/": "index.html", "/editor": "editor.html", "/replay": "replay.html", "/simulate": "simulate.html"}
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; connect-src 'self'; "
                                      "frame-ancestors 'none'"}
# WebSocket close codes the table page turns into a message (and stops reconnecting)
CLOSE = {"over": 4100, "forbidden": 4403, "unknown": 4404, "taken": 4409, "closed": 4410, "busy": 4429}
SEND_SECONDS = 10.0  # a browser that takes longer to accept a frame is dropped
COOKIE_AGE = 7 * 24 * 3600
JANITOR_SECONDS = 2.0
log = logging.getLogger("rulespec.serve")


def _json(data: Any, status: int = 200) -> Response:
    return _bytes(payload_json(data), status)


def _bytes(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, media_type="application/json", headers={**HEADERS, **(headers or {})})


def _error(message: str, status: int) -> Response:
    return _json({"error": message}, status)


def _static_files() -> dict[str, bytes]:
    folder = resources.files(__package__).joinpath("static")
    return {item.name: item.read_bytes() for item in folder.iterdir()
            if os.path.splitext(item.name)[1] in TYPES}


def _cookie(token: str) -> str:
    """The name of the cookie that claims the seat of ``token`` (it does not reveal the token)."""
    return "rs_" + hashlib.sha256(token.encode("utf-8")).hexdigest()[:24]


@dataclass
class Replay:
    id: str
    client: str
    worker: Worker
    last_seen: float = field(default_factory=time.monotonic)


class Server:
    """One app's state: the served specs, the limits, the clients, the tables, replays and jobs."""

    def __init__(self, catalog: Catalog, limits: ServerLimits, origins: list[str], proxies: list[str]):
        self.catalog = catalog
        self.limits = limits
        self.origins = set(origins)
        self.proxies = set(proxies)
        self.clients = Clients(limits)
        self.files = _static_files()
        names = list(catalog.files)
        self.launcher = Launcher(limits, names, [catalog.files[n].encode("utf-8") for n in names], catalog.by_id())
        self.tables = Tables(self.launcher, limits, self.clients)
        self.replays: dict[str, Replay] = {}
        self.opening_replays = 0
        self.slots: dict[str, asyncio.Semaphore] = {}  # job kind -> its slots (made in the event loop)
        self.waiting_jobs = 0
        specs = json.loads(catalog.specs_json)
        specs.update(bots=list(BOT_NAMES), limits={"bot_seconds": limits.bot_seconds, "sim_games": limits.sim_games,
                                                    "bot_iterations": limits.bot_iterations})
        self.specs_json = payload_json(specs)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.slots = {"validate": asyncio.Semaphore(self.limits.jobs),
                      "simulate": asyncio.Semaphore(self.limits.sim_jobs)}
        await anyio.to_thread.run_sync(self.launcher.ensure_zygote)
        janitor = asyncio.get_running_loop().create_task(self.janitor())
        try:
            yield
        finally:
            janitor.cancel()
            for table in list(self.tables.live.values()):
                if table.task is not None:
                    table.task.cancel()
            self.launcher.stop_all()

    async def janitor(self) -> None:
        while True:
            await asyncio.sleep(JANITOR_SECONDS)
            try:
                await self.tables.sweep()
                now = time.monotonic()
                for replay in [r for r in self.replays.values() if now - r.last_seen > self.limits.idle]:
                    self._drop_replay(replay)
                self.clients.forget_idle(max(600.0, self.limits.idle))
            except Exception:  # a bug: logged, and the janitor goes on
                log.exception("janitor")

    # ------------------------------------------------------------------ who asks, and may they
    def client(self, connection: HTTPConnection) -> str:
        """The client's key: its address (a trusted proxy's X-Forwarded-For says whose)."""
        host = connection.client.host if connection.client else "unknown"
        if host in self.proxies:
            forwarded = connection.headers.get("x-forwarded-for", "").split(",")[-1].strip()
            if forwarded:
                return forwarded[:100]
        return host

    def same_origin(self, connection: HTTPConnection) -> None:
        """Refuse a request another site's page made (its Origin is not ours)."""
        site = connection.headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            raise ServeError("requests from other sites are refused", 403)
        origin = connection.headers.get("origin")
        if origin is None:
            return  # not a browser's cross-site request (browsers name the origin of those)
        host = connection.headers.get("host", "")
        scheme = "https" if connection.url.scheme in ("https", "wss") else "http"
        if origin != f"{scheme}://{host}" and origin not in self.origins:
            raise ServeError("requests from other sites are refused", 403)

    def changing(self, request: Request) -> str:
        """The client of a request that changes something: JSON, from our own pages."""
        self.same_origin(request)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise ServeError("send JSON (Content-Type: application/json)", 415)
        return self.client(request)

    def seat(self, connection: HTTPConnection) -> tuple[Table | Finished, int, dict[str, str]]:
        """The table and viewer of a request's token, the seat's claim checked, or made now for
        this browser when the seat has none (before any wait: two browsers cannot both claim it).
        The cookie that carries a new claim, for the answer (an error's answer too)."""
        token = connection.path_params["token"]
        table, viewer = self.tables.find(token)
        if viewer < 0 and viewer != HOT_SEAT:
            return table, viewer, {}  # the spectator's and the host's links may be shared
        claim = table.claims.get(viewer)
        if claim is None:
            secret = secrets.token_urlsafe(18)
            table.claims[viewer] = claim_hash(secret)
            secure = "; Secure" if connection.url.scheme in ("https", "wss") else ""
            return table, viewer, {"Set-Cookie": f"{_cookie(token)}={secret}; Max-Age={COOKIE_AGE}; Path=/; "
                                                 f"HttpOnly; SameSite=Strict{secure}"}
        held = connection.cookies.get(_cookie(token))
        if held is None or not secrets.compare_digest(claim_hash(held), claim):
            raise ServeError("seat taken: this seat's link was opened in another browser first", 403)
        return table, viewer, {}

    # ------------------------------------------------------------------ pages
    async def page(self, request: Request) -> Response:
        name = PAGES.get(request.url.path) or ("table.html" if request.url.path.startswith("/t/") else None)
        if name is None:
            raise ServeError("no such page", 404)
        return self._file(name)

    async def static(self, request: Request) -> Response:
        return self._file(request.path_params["name"])

    async def favicon(self, request: Request) -> Response:
        return self._file("favicon.svg")

    def _file(self, name: str) -> Response:
        body = self.files.get(name)
        if body is None:
            raise ServeError("no such file", 404)
        return Response(body, media_type=TYPES[os.path.splitext(name)[1]], headers=HEADERS)

    # ------------------------------------------------------------------ specs and the editor
    async def specs(self, request: Request) -> Response:
        return _bytes(self.specs_json)

    async def spec_text(self, request: Request) -> Response:
        spec_id = request.path_params["spec"]
        text = self.catalog.text(spec_id)
        if text is None:
            raise ServeError("no such spec on this server", 404)
        return _json({"id": spec_id, "text": text})

    async def validate(self, request: Request) -> Response:
        client = self.changing(request)
        with self.clients.busy(client):
            return _bytes(await self.job(client, "validate", await _body(request), self.limits.request_cpu))

    async def simulate(self, request: Request) -> Response:
        client = self.changing(request)
        budget = self.limits.sim_cpu + self.limits.request_cpu
        return _bytes(await self.job(client, "simulate", await _body(request), budget))

    async def job(self, client: str, op: str, body: bytes, budget: float) -> bytes:
        """One job in a process of its own: checks of editor text and simulations each have their
        slots (the rest wait their turn), and a client has a few at once (simulations one)."""
        account = self.clients.get(client)
        if op == "simulate":
            if account.simulations >= 1:
                raise ServeError("you have a simulation running; wait for it", 429)
        elif account.jobs >= self.limits.jobs_per_client:
            raise ServeError(f"you have {account.jobs} checks running, the most this server allows one client; "
                             "wait for them", 429)
        self.clients.check_cpu(client)
        if self.waiting_jobs >= 16 * (self.limits.jobs + self.limits.sim_jobs):
            raise ServeError("the server is busy with other checks and simulations; try again soon", 503)
        counter = "simulations" if op == "simulate" else "jobs"
        setattr(account, counter, getattr(account, counter) + 1)
        self.waiting_jobs += 1
        waiting = True
        try:
            async with self.slots[op]:
                self.waiting_jobs -= 1
                waiting = False
                worker = await self.launcher.start("job")
                try:
                    answer = await worker.call(op, {}, [body], budget, self.launcher.wall(budget))
                except WorkerGone as gone:
                    self.clients.charge(client, gone.cpu)
                    raise
                finally:
                    self.launcher.stop(worker)
        finally:
            setattr(account, counter, getattr(account, counter) - 1)
            self.waiting_jobs -= waiting
        self.clients.charge(client, answer.cpu)
        return answer.raise_error().blobs[0]

    # ------------------------------------------------------------------ tables
    async def new_table(self, request: Request) -> Response:
        client = self.changing(request)
        with self.clients.busy(client):
            return _json(await self.tables.create(client, await _body(request)), 201)

    async def table(self, request: Request) -> Response:
        table, viewer, cookie = self.seat(request)
        with _headers_on_error(cookie):
            return _bytes(await self.tables.view(table, viewer, self.client(request)), headers=cookie)

    async def act(self, request: Request) -> Response:
        client = self.changing(request)
        table, viewer, cookie = self.seat(request)
        with _headers_on_error(cookie):
            return _bytes(await self.tables.act(table, viewer, await _body(request), client), headers=cookie)

    async def match_log(self, request: Request) -> Response:
        table, _, _ = self.seat(request)
        if not isinstance(table, Finished):
            raise ServeError("the log of a match is given when the match is over", 409)
        if not table.log:
            why = table.log_dropped or "it stopped before its end (a rule failed)"
            raise ServeError(f"this match has no log: {why}", 409)
        return Response(table.log, media_type="application/x-ndjson", headers={
            **HEADERS, "Content-Disposition": 'attachment; filename="match.jsonl"'})

    def hosted(self, request: Request) -> Table:
        self.changing(request)
        table, viewer, _ = self.seat(request)
        if viewer != HOST:
            raise ServeError("only the table's host link may do this", 403)
        if not isinstance(table, Table):
            raise ServeError("the match is over", 409)
        return table

    async def close_table(self, request: Request) -> Response:
        table = self.hosted(request)
        self.tables.close(table, "its host closed it")
        return _json({"closed": True})

    async def stop_bots(self, request: Request) -> Response:
        await self.tables.stop_bots(self.hosted(request))
        return _json({"stopped": True})

    # ------------------------------------------------------------------ the WebSocket of a seat
    async def socket(self, websocket: WebSocket) -> None:
        client = self.client(websocket)
        account = self.clients.get(client)
        try:
            self.same_origin(websocket)
            table, viewer, cookie = self.seat(websocket)
            if cookie:
                raise ServeError("open the seat's page first (it claims the seat for your browser)", 403)
            if account.sockets >= self.limits.sockets_per_client:
                raise ServeError(f"you have {account.sockets} pages open, the most this server allows one client",
                                 429)
        except ServeError as exc:
            code = {403: CLOSE["taken"] if "seat taken" in str(exc) else CLOSE["forbidden"], 410: CLOSE["closed"],
                    429: CLOSE["busy"]}
            await websocket.accept()
            await websocket.close(code.get(exc.status, CLOSE["unknown"]), str(exc)[:120])
            return
        await websocket.accept()
        if isinstance(table, Finished):
            await self._last(websocket, table, viewer)
            return
        key = SPECTATOR if viewer == HOST else viewer
        table.watchers[key] += 1
        account.sockets += 1
        receiving = asyncio.ensure_future(_drain(websocket))
        try:
            await self._push(websocket, table, viewer, receiving, client)
        except (WebSocketDisconnect, RuntimeError, OSError, TimeoutError):
            pass
        finally:
            table.watchers[key] -= 1
            account.sockets -= 1
            table.last_seen = time.monotonic()
            receiving.cancel()

    async def _push(self, websocket: WebSocket, table: Table, viewer: int, receiving: asyncio.Future[Any],
                    client: str) -> None:
        """Send the viewer's view at each change, until the browser goes or the table ends (a
        browser that does not take a frame within SEND_SECONDS is dropped)."""
        sent = -1
        while not receiving.done():
            changed = table.changed
            if not table.live:
                finished = self.tables.finished.get(table.id)
                if finished is not None:
                    await self._last(websocket, finished, viewer)
                else:
                    reason = self.tables.closed.get(table.id, ("it is over", 0.0))[0]
                    await websocket.close(CLOSE["closed"], f"this table was closed: {reason}"[:120])
                return
            if table.status["version"] != sent:
                version = table.status["version"]
                try:
                    text = await self.tables.view(table, viewer, client)
                except ServeError as exc:
                    if not table.live:
                        continue  # the table closed: the loop says so
                    if exc.status == 429:  # the client's CPU for now is spent
                        await asyncio.sleep(5)
                        continue
                    text = payload_json({"error": str(exc), "version": version})
                sent = version
                await asyncio.wait_for(websocket.send_text(text.decode("utf-8")), SEND_SECONDS)
                continue
            waiting: asyncio.Future[Any] = asyncio.ensure_future(changed.wait())
            await asyncio.wait({waiting, receiving}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()

    async def _last(self, websocket: WebSocket, table: Finished, viewer: int) -> None:
        await websocket.send_text(table.views[SPECTATOR if viewer == HOST else viewer].decode("utf-8"))
        await websocket.close(CLOSE["over"], "the match is over")

    # ------------------------------------------------------------------ replays
    async def new_replay(self, request: Request) -> Response:
        client = self.changing(request)
        account = self.clients.get(client)
        if account.replays >= self.limits.replays_per_client:
            raise ServeError(f"you have {account.replays} logs open, the most this server allows one client", 429)
        if len(self.replays) + self.opening_replays >= self.limits.max_replays:
            raise ServeError("the server has as many logs open as it allows; try again later", 503)
        self.clients.check_cpu(client)
        account.replays += 1  # reserved before the first wait
        self.opening_replays += 1
        replay: Replay | None = None
        try:
            with self.clients.busy(client):
                body = await _body(request, MAX_LOG_BODY)
                replay_id = secrets.token_urlsafe(12)
                replay = Replay(replay_id, client, await self.launcher.start("replay"))
                answer = await replay.worker.call("open", {"id": replay_id}, [body], self.limits.request_cpu,
                                                  self.launcher.wall(self.limits.request_cpu))
                self.clients.charge(client, answer.cpu)
                head = answer.raise_error().header
        except BaseException as exc:
            self.clients.charge(client, getattr(exc, "cpu", 0.0))
            account.replays -= 1
            if replay is not None:
                self.launcher.stop(replay.worker)
            raise
        finally:
            self.opening_replays -= 1
        self.replays[replay_id] = replay
        return _json({"replay": replay_id, "total": head["total"], "players": head["players"],
                      "seats": head["seats"]}, 201)

    async def replay_view(self, request: Request) -> Response:
        replay_id = request.path_params["replay"]
        replay = self.replays.get(replay_id)
        if replay is None:
            raise ServeError("no such replay (it may have expired)", 404)
        replay.last_seen = time.monotonic()
        client = self.client(request)
        self.clients.check_cpu(client)
        try:
            answer = await replay.worker.call("view", {"step": _int_param(request, "step", 0),
                                                       "seat": _int_param(request, "seat", -1)},
                                              (), self.limits.request_cpu, self.launcher.wall(self.limits.request_cpu))
        except WorkerGone:
            self._drop_replay(replay)
            raise
        self.clients.charge(client, answer.cpu)
        if answer.header.get("fatal"):
            self._drop_replay(replay)
        return _bytes(answer.raise_error().blobs[0])

    def _drop_replay(self, replay: Replay) -> None:
        if self.replays.pop(replay.id, None) is not None:
            account = self.clients.get(replay.client)
            account.replays = max(0, account.replays - 1)
        self.launcher.stop(replay.worker)


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) what the browser sends, until it goes."""
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
    except (WebSocketDisconnect, RuntimeError):
        return


def _int_param(request: Request, name: str, default: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not re.fullmatch(r"-?[0-9]{1,12}", text):
        raise ServeError(f"'{name}' must be a whole number")
    return int(text)


@contextlib.contextmanager
def _headers_on_error(headers: dict[str, str]) -> Iterator[None]:
    """Headers an answer must carry even when it is an error (the cookie of a seat claimed)."""
    try:
        yield
    except ServeError as exc:
        exc.headers = headers  # type: ignore[attr-defined]
        raise


async def _body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The bytes of a request's body, read only up to ``limit`` (the worker parses them)."""
    declared = request.headers.get("content-length")
    if declared is not None and not re.fullmatch(r"[0-9]{1,18}", declared):
        raise ServeError("the request's Content-Length is not a number of bytes")
    if declared is not None and int(declared) > limit:
        raise ServeError(f"the request is larger than {limit:,} bytes", 413)
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ServeError(f"the request is larger than {limit:,} bytes", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def _serve_error(request: Any, exc: Exception) -> Response:
    assert isinstance(exc, ServeError)
    headers = dict(getattr(exc, "headers", {}))
    if exc.status == 429:
        headers["Retry-After"] = "5"
    return _bytes(payload_json({"error": str(exc)}), exc.status, headers)


async def _http_error(request: Any, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(exc.detail or "error", exc.status_code)


async def _internal_error(request: Any, exc: Exception) -> Response:
    log.error("internal error on %s", getattr(request, "url", "?"), exc_info=exc)
    return _error("internal error (the server's log has the details)", 500)


def create_app(specs: list[str], limits: ServerLimits | None = None, allowed_hosts: list[str] | None = None,
               origins: list[str] | None = None, proxies: list[str] | None = None) -> Starlette:
    """The app serving ``specs`` (paths; the only files it reads, when it is made)."""
    server = Server(Catalog(list(specs)), limits or ServerLimits(), origins or [], proxies or [])
    routes = [Route(path, server.page) for path in PAGES] + [
        Route("/t/{token}", server.page),
        Route("/static/{name}", server.static),
        Route("/favicon.ico", server.favicon),
        Route("/api/specs", server.specs),
        Route("/api/specs/{spec}/text", server.spec_text),
        Route("/api/validate", server.validate, methods=["POST"]),
        Route("/api/matches", server.new_table, methods=["POST"]),
        Route("/api/t/{token}", server.table),
        Route("/api/t/{token}/act", server.act, methods=["POST"]),
        Route("/api/t/{token}/log", server.match_log),
        Route("/api/t/{token}/close", server.close_table, methods=["POST"]),
        Route("/api/t/{token}/stop-bots", server.stop_bots, methods=["POST"]),
        Route("/api/replays", server.new_replay, methods=["POST"]),
        Route("/api/replays/{replay}", server.replay_view),
        Route("/api/simulate", server.simulate, methods=["POST"]),
        WebSocketRoute("/ws/{token}", server.socket),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    handlers: dict[Any, Any] = {ServeError: _serve_error, HTTPException: _http_error, Exception: _internal_error}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers, lifespan=server.lifespan)
    app.state.server = server
    return app
