"""The browser playground behind ``rulespec serve``: edit a spec, play it, replay and simulate.

    rulespec serve games/*.yaml --port 8000

A Starlette app (``serve/app.py``) served by uvicorn; every page is a static file of this
package (``serve/static/``: plain HTML, JavaScript and CSS, no build step, nothing from the
network). The parts:

- ``serve/catalog.py``  the specs served (the only files the server reads) and the text of the
  editor compiled under the same limits as a file;
- ``serve/tables.py``   what one seat is sent: the engine's projection (``State.observation``)
  plus the seat's legal actions with their labels and targets, and an action log whose
  card names the seat may not see are replaced;
- ``serve/matches.py``  live matches: seats (people by unguessable token, bots), a bounded
  number of matches with idle expiry, bots stepped in worker threads;
- ``serve/replays.py``  match logs uploaded to step through, from any seat's view.

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
