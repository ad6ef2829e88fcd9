"""The browser playground behind ``rulespec serve``: edit a spec, play it, replay and simulate.

    rulespec serve games/*.yaml --port 8000

A Starlette app served by uvicorn; every page is a static file of this package
(``serve/static/``: plain HTML, JavaScript and CSS, no build step, nothing from the network).
The server's event loop only routes: every engine call runs in a worker process, under the
limits an operator sets (``serve/limits.py``, ``rulespec serve --help``). The parts:

the server's side
- ``app.py``      routes, same-origin checks, seat claims, the WebSocket of each seat;
- ``catalog.py``  the served specs (read once, at the start: the only files the server reads);
- ``live.py``     live, finished and closed tables: views kept per version, bots and chance driven;
- ``clients.py``  each client's budgets (CPU, creations, live tables, jobs);
- ``workers.py``  starting, asking and stopping worker processes;
- ``wire.py``     the messages between them (JSON headers and raw blobs, never pickle);

the workers' side (``worker.py`` runs one of these under its CPU and memory budgets)
- ``room.py``     one table's match, its views and its log;
- ``bots.py``     one table's bots, and the server's cap on what a bot may ask;
- ``replays.py``  one match log being stepped through;
- ``jobs.py``     a check of editor text, or a simulation;
- ``specs.py``    games from the served texts and from editor text (which may extend only them);
- ``tables.py``   what a seat is sent: the engine's projection, its legal actions, the log.

The extra ``serve`` (starlette, uvicorn, websockets) is needed only here: ``missing_extra``
names what is absent so the command line can say it in one line.
"""

from __future__ import annotations

import importlib.util

__all__ = ["missing_extra", "SERVE_MODULES", "WEBSOCKET_MODULES"]

SERVE_MODULES = ("starlette", "uvicorn")
WEBSOCKET_MODULES = ("websockets", "wsproto")  # uvicorn speaks WebSocket through either


def missing_extra() -> str | None:
    """The first module of the ``serve`` extra that is not installed, or None."""
    for name in SERVE_MODULES:
        if importlib.util.find_spec(name) is None:
            return name
    if all(importlib.util.find_spec(name) is None for name in WEBSOCKET_MODULES):
        return WEBSOCKET_MODULES[0]
    return None
