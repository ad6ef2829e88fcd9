"""The Starlette app of ``rulespec serve``: pages, a JSON API and a WebSocket per seat.

Pages are static files of the package; everything else is JSON. Every error reaches the
browser as ``{"error": message}`` with a status code (a bug as a 500 with no detail: the
traceback goes to the server's log only). Bodies are bounded before they are parsed.
Work that may take long (compiling text, bots thinking, simulations) runs in worker
threads through bounded limiters, so the event loop keeps answering; a person's action and
a seat's view are one bounded step of the engine, done on the loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
from importlib import resources
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from rulespec import SpecError
from rulespec.describe import describe

from ..agents import AgentError
from ..errors import InterpreterError
from .catalog import EDITOR_FILE, Catalog, ServeError, diagnostics_json
from .matches import BOT_NAMES, LiveMatch, Registry, payload_json
from .replays import MAX_LOG_TEXT, Replays, load_replay

__all__ = ["create_app", "MAX_BODY", "MAX_SIM_GAMES"]

MAX_BODY = MAX_LOG_TEXT + 100_000  # bytes of a request body
MAX_SIM_GAMES = 200
PAGES = {"/": "index.html", "/editor": "editor.html", "/replay": "replay.html", "/simulate": "simulate.html"}
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8"}
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; connect-src 'self'; "
                                      "frame-ancestors 'none'"}
log = logging.getLogger("rulespec.serve")


def _json(data: Any, status: int = 200) -> Response:
    return _json_text(payload_json(data), status)


def _json_text(body: str, status: int = 200) -> Response:
    return Response(body, status, media_type="application/json", headers=HEADERS)


def _error(message: str, status: int) -> Response:
    return _json({"error": message}, status)


def _static_files() -> dict[str, bytes]:
    folder = resources.files(__package__).joinpath("static")
    return {item.name: item.read_bytes() for item in folder.iterdir()
            if os.path.splitext(item.name)[1] in TYPES}


class Server:
    """The state of one app: the catalogue, live matches, replays, and the work limiters."""

    def __init__(self, catalog: Catalog, registry: Registry, replays: Replays, bot_delay: float):
        self.catalog = catalog
        self.registry = registry
        self.replays = replays
        self.bot_delay = bot_delay
        self.files = _static_files()
        self.compile_limiter = anyio.CapacityLimiter(2)
        self.bot_limiter = anyio.CapacityLimiter(4)
        self.read_limiter = anyio.CapacityLimiter(16)
        self.sim_limiter = anyio.CapacityLimiter(1)
        self.tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ pages
    async def page(self, request: Request) -> Response:
        name = PAGES.get(request.url.path) or ("table.html" if request.url.path.startswith("/t/") else None)
        if name is None:
            raise ServeError("no such page", 404)
        return self._file(name)

    async def static(self, request: Request) -> Response:
        return self._file(request.path_params["name"])

    def _file(self, name: str) -> Response:
        body = self.files.get(name)
        if body is None:
            raise ServeError("no such file", 404)
        return Response(body, media_type=TYPES[os.path.splitext(name)[1]], headers=HEADERS)

    # ------------------------------------------------------------------ specs and the editor
    async def specs(self, request: Request) -> Response:
        return _json({"specs": [s.info() for s in self.catalog.specs.values()], "bots": list(BOT_NAMES)})

    async def spec_text(self, request: Request) -> Response:
        spec_id = request.path_params["spec"]
        text = await anyio.to_thread.run_sync(self.catalog.text, spec_id, limiter=self.read_limiter)
        return _json({"id": spec_id, "text": text})

    async def validate(self, request: Request) -> Response:
        body = await _body(request)
        return _json(await anyio.to_thread.run_sync(self._validate, body.get("text"), body.get("base"),
                                                    limiter=self.compile_limiter))

    def _validate(self, text: Any, base: Any) -> dict[str, Any]:
        try:
            gamedef = self.catalog.compile_editor_text(text, base)
        except SpecError as exc:
            file = exc.diagnostics[0].span.file if exc.diagnostics and exc.diagnostics[0].span else EDITOR_FILE
            editor = next((d.span.file for d in exc.diagnostics if d.span and d.span.file.endswith(EDITOR_FILE)),
                          file)
            count = len(exc.diagnostics)
            return {"ok": False, "diagnostics": diagnostics_json(exc, editor),
                    "summary": f"{EDITOR_FILE}: {count} problem{'s' if count != 1 else ''}"}
        return {"ok": True, "diagnostics": [], "name": gamedef.model.name, "describe": describe(gamedef),
                "summary": f"{EDITOR_FILE}: ok ({gamedef.model.name})"}

    # ------------------------------------------------------------------ matches
    async def new_match(self, request: Request) -> Response:
        body = await _body(request)
        match, links = await anyio.to_thread.run_sync(self._new_match, body, limiter=self.compile_limiter)
        self.drive(match)
        return _json(links, 201)

    def _new_match(self, body: dict[str, Any]) -> tuple[LiveMatch, dict[str, Any]]:
        options = body.get("options", {})
        if options is None:
            options = {}
        if "text" in body:
            try:
                gamedef = self.catalog.compile_editor_text(body.get("text"), body.get("spec"))
            except SpecError as exc:
                raise ServeError(f"the spec is not valid: {len(exc.diagnostics)} problem(s); "
                                 "see the editor's messages", 422) from None
            game = self.catalog.game(gamedef, body.get("players"), options)
            file = EDITOR_FILE
        else:
            spec, game = self.catalog.served_game(body.get("spec"), body.get("players"), options)
            file = os.path.basename(spec.path)
        seats: Any = body.get("seats")
        return self.registry.create(game, file, seats, body.get("seed"), bool(body.get("hot_seat")))

    # A person's action and a view are one bounded step of the engine (a few milliseconds, and at
    # most the step budget of RunLimits): done on the event loop, a thread hop would cost more.
    async def table(self, request: Request) -> Response:
        match, viewer = self.registry.find(request.path_params["token"])
        return _json_text(match.payload_text(viewer))

    async def act(self, request: Request) -> Response:
        match, viewer = self.registry.find(request.path_params["token"])
        body = await _body(request)
        match.act(viewer, body.get("action"))
        match.notify()
        self.drive(match)
        return _json_text(match.payload_text(viewer))

    async def match_log(self, request: Request) -> Response:
        match, _ = self.registry.find(request.path_params["token"])
        text = await anyio.to_thread.run_sync(match.log_lines, limiter=self.read_limiter)
        return Response(text, media_type="application/x-ndjson", headers={
            **HEADERS, "Content-Disposition": 'attachment; filename="match.jsonl"'})

    def drive(self, match: LiveMatch) -> None:
        """Let the bots (and chance) of ``match`` move until a person must, in worker threads."""
        if match.driving or not match.bot_due():
            return
        match.driving = True
        task = asyncio.get_running_loop().create_task(self._drive(match))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _drive(self, match: LiveMatch) -> None:
        try:
            limit = 1 if self.bot_delay > 0 else 50
            while match.bot_due() and match.id in self.registry.matches:
                if self.bot_delay > 0:
                    await asyncio.sleep(self.bot_delay)
                await anyio.to_thread.run_sync(match.step_bots, limit, limiter=self.bot_limiter)
                match.notify()
        except Exception:  # a bug: the match stops, the server goes on
            log.exception("bots of match %s", match.id)
            match.error = match.error or "internal error while the bots played"
            match.notify()
        finally:
            match.driving = False

    async def socket(self, websocket: WebSocket) -> None:
        try:
            match, viewer = self.registry.find(websocket.path_params["token"])
        except ServeError:
            await websocket.close(code=4404)
            return
        await websocket.accept()
        changed = asyncio.Event()
        listener = changed.set
        match.listeners.add(listener)
        receiving = asyncio.ensure_future(_drain(websocket))
        try:
            sent = -1
            while not receiving.done():
                changed.clear()  # before the version is read: a change after it sets the event again
                if match.version != sent:
                    sent = match.version
                    await websocket.send_text(match.payload_text(viewer))
                waiting = asyncio.ensure_future(changed.wait())
                await asyncio.wait({waiting, receiving}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                if match.id not in self.registry.matches:
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            match.listeners.discard(listener)
            receiving.cancel()

    # ------------------------------------------------------------------ replays
    async def new_replay(self, request: Request) -> Response:
        body = await _body(request)
        replay = await anyio.to_thread.run_sync(load_replay, self.catalog, body.get("log"), body.get("match"),
                                                secrets.token_urlsafe(12), limiter=self.compile_limiter)
        self.replays.add(replay)
        return _json({"replay": replay.id, "total": len(replay.actions), "players": replay.game.num_players,
                      "seats": replay.game.seat_names}, 201)

    async def replay_view(self, request: Request) -> Response:
        replay = self.replays.get(request.path_params["replay"])
        step = _int_param(request, "step", 0)
        seat = _int_param(request, "seat", -1)
        return _json(await anyio.to_thread.run_sync(replay.view, step, seat, limiter=self.read_limiter))

    # ------------------------------------------------------------------ simulate
    async def simulate(self, request: Request) -> Response:
        body = await _body(request)
        if self.sim_limiter.borrowed_tokens >= self.sim_limiter.total_tokens:
            raise ServeError("a simulation is running; try again when it is done", 429)
        return _json(await anyio.to_thread.run_sync(self._simulate, body, limiter=self.sim_limiter))

    def _simulate(self, body: dict[str, Any]) -> dict[str, Any]:
        from ..simulate import compare, simulate, summarize

        spec, game = self.catalog.served_game(body.get("spec"), body.get("players"), body.get("options") or {})
        games = body.get("games", 20)
        if type(games) is not int or not 1 <= games <= MAX_SIM_GAMES:
            raise ServeError(f"'games' must be a whole number from 1 to {MAX_SIM_GAMES}")
        agents = body.get("agents") or ["random"]
        if not isinstance(agents, list) or not all(isinstance(a, str) and a.split(":")[0] in BOT_NAMES
                                                   and len(a) <= 60 for a in agents):
            raise ServeError(f"'agents' must list bots: {', '.join(BOT_NAMES)}")
        runs = [dict(game.options)]
        variant = body.get("variant")
        if variant is not None:
            if not isinstance(variant, dict) or len(variant) > 100:
                raise ServeError("'variant' must be an object of options")
            runs.append({**runs[0], **variant})
        seed = body.get("seed", 0)
        if type(seed) is not int or not 0 <= seed < 2**64:
            raise ServeError("'seed' must be a whole number from 0 to 2**64 - 1")
        results = []
        for options in runs:
            self.catalog.game(game.gamedef, game.num_players, options, key=spec.id)  # bad options: a 400
            results.append(simulate(spec.path, games, agents, game.num_players, options, seed))
        summaries = []
        for summary in (summarize(r) for r in results):
            summary["spec"] = os.path.basename(spec.path)
            summaries.append(summary)
        out: dict[str, Any] = {"summaries": summaries}
        if len(results) == 2:
            out["comparison"] = compare(results[0], results[1])
        return out


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
    if not text.lstrip("-").isdigit() or len(text) > 12:
        raise ServeError(f"'{name}' must be a whole number")
    return int(text)


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of a request, read only up to MAX_BODY bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise ServeError(f"the request is larger than {MAX_BODY:,} bytes", 413)
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ServeError(f"the request is larger than {MAX_BODY:,} bytes", 413)
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ServeError("the request must be a JSON object") from None
    if not isinstance(data, dict):
        raise ServeError("the request must be a JSON object")
    return data


async def _serve_error(request: Any, exc: Exception) -> Response:
    assert isinstance(exc, ServeError)
    return _error(str(exc), exc.status)


async def _http_error(request: Any, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(exc.detail or "error", exc.status_code)


async def _usage_error(request: Any, exc: Exception) -> Response:
    return _error(str(exc).splitlines()[0][:500], 400)


async def _rule_error(request: Any, exc: Exception) -> Response:
    return _error(f"error while playing: {str(exc).splitlines()[0][:500]}", 422)


async def _internal_error(request: Any, exc: Exception) -> Response:
    log.error("internal error on %s", getattr(request, "url", "?"), exc_info=exc)
    return _error("internal error (the server's log has the details)", 500)


def create_app(specs: list[str], max_matches: int = 100, idle: float = 3600.0, bot_delay: float = 0.0,
               allowed_hosts: list[str] | None = None) -> Starlette:
    """The app serving ``specs`` (paths; the only files it reads)."""
    server = Server(Catalog(list(specs)), Registry(max_matches, idle), Replays(), bot_delay)
    routes = [Route(path, server.page) for path in PAGES] + [
        Route("/t/{token}", server.page),
        Route("/static/{name}", server.static),
        Route("/api/specs", server.specs),
        Route("/api/specs/{spec}/text", server.spec_text),
        Route("/api/validate", server.validate, methods=["POST"]),
        Route("/api/matches", server.new_match, methods=["POST"]),
        Route("/api/t/{token}", server.table),
        Route("/api/t/{token}/act", server.act, methods=["POST"]),
        Route("/api/t/{token}/log", server.match_log),
        Route("/api/replays", server.new_replay, methods=["POST"]),
        Route("/api/replays/{replay}", server.replay_view),
        Route("/api/simulate", server.simulate, methods=["POST"]),
        WebSocketRoute("/ws/{token}", server.socket),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    handlers: dict[Any, Any] = {ServeError: _serve_error, HTTPException: _http_error, AgentError: _usage_error,
                                InterpreterError: _rule_error, Exception: _internal_error}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
    app.state.server = server
    return app
