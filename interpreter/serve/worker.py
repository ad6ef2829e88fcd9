"""A worker process of ``rulespec serve``: where every engine call a request causes runs.

The server starts workers from a fork server that has imported this module (and so the
engine), hands each one end of a socket, and sends it requests there (``wire``: JSON headers
and raw blobs, no pickle). Kinds:

- ``room``   one live table (``room.Room``), for its whole life;
- ``bots``   the bots of one table (``bots.BotTable``), at a low priority;
- ``replay`` one match log being stepped through (``replays.ReplayRoom``);
- ``job``    one check of editor text or one simulation (``jobs.Jobs``), then it ends.

Budgets: each request runs under a CPU budget (``ITIMER_PROF``: the process's own CPU time;
when it runs out, the request ends with a clear error, and a table is closed, since its rules
would run out again); the process runs under a memory cap (``RLIMIT_AS``; running out is a
clear error too). A worker that stops answering anyway is killed by the server.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import sys
import time
import traceback
from typing import Any, Protocol

from .bots import BotTable
from .errors import ServeError
from .jobs import Jobs
from .limits import ServerLimits
from .replays import ReplayRoom
from .room import Room
from .specs import ServedFiles
from .wire import encode, read_frame

__all__ = ["main", "KINDS", "NICE"]

NICE = {"room": 0, "replay": 5, "job": 5}  # checks and simulations yield to the tables' requests


class Handler(Protocol):
    def handle(self, op: str, header: dict[str, Any], blobs: list[bytes]) -> tuple[dict[str, Any], list[bytes]]: ...


KINDS: dict[str, Any] = {"room": Room, "bots": BotTable, "replay": ReplayRoom, "job": Jobs}


class OverBudget(BaseException):
    """The request's CPU time ran out (raised by the ITIMER_PROF signal, wherever the work was)."""


def _over_budget(signum: int, frame: Any) -> None:
    raise OverBudget


def _limit_memory(megabytes: int) -> None:
    cap = megabytes << 20
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):  # a system without the limit: the CPU budget still holds
        pass


def _lower_priority(nice: int) -> None:
    """Lower this worker's priority to ``nice`` (a process may always lower its own); 20: run only
    on an idle core (SCHED_IDLE), or at nice 19 where the system has no such class."""
    current = os.nice(0)
    if min(nice, 19) > current:
        os.nice(min(nice, 19) - current)
    if nice >= 20 and hasattr(os, "sched_setscheduler"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except (OSError, AttributeError):
            pass


def _answer(handler: Handler, header: dict[str, Any], blobs: list[bytes], budget: float) -> tuple[
        dict[str, Any], list[bytes]]:
    """The handler's answer to one request, or the error it ends in, as a message."""
    op = str(header.get("op"))
    try:
        signal.setitimer(signal.ITIMER_PROF, budget)
        try:
            return handler.handle(op, header, blobs)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except ServeError as exc:
        return {"error": str(exc), "status": exc.status, "fatal": exc.fatal}, []
    except OverBudget:
        return {"error": f"this needed more than {budget:g} s of CPU, the most this server gives one request",
                "status": 422, "fatal": True, "budget": True}, []
    except MemoryError:
        return {"error": "this needed more memory than this server gives a table or a job", "status": 422,
                "fatal": True}, []
    except RecursionError:
        return {"error": "this nests too deeply to be worked out here", "status": 422, "fatal": True}, []
    except Exception:
        traceback.print_exc(file=sys.stderr)  # the server's log; the browser gets no details
        return {"error": "internal error (the server's log has the details)", "status": 500}, []


def main(sock: socket.socket, kind: str) -> None:
    """Serve requests on ``sock`` until the server closes it (or a request ends the worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    signal.signal(signal.SIGPROF, _over_budget)
    try:
        hello, blobs = read_frame(sock)
        limits = ServerLimits.from_json(hello["limits"])
        files = ServedFiles(dict(zip(hello["names"], (b.decode("utf-8") for b in blobs))), dict(hello["specs"]))
        _limit_memory(limits.memory_mb)
        _lower_priority(NICE.get(kind, 0))
        handler: Handler = KINDS[kind](files, limits)
        sock.sendall(encode({"ok": True, "pid": os.getpid()}))
        while True:
            header, blobs = read_frame(sock)
            start = time.process_time()
            budget = float(header.get("budget") or limits.request_cpu)
            out, out_blobs = _answer(handler, header, blobs, budget)
            out["cpu"] = time.process_time() - start
            sock.sendall(encode(out, out_blobs))
            if out.get("fatal"):
                return
            if kind == "bots" and header.get("op") == "open":  # its game opened: it thinks at the bots' priority
                _lower_priority(limits.bot_priority)
    except (EOFError, OSError):
        return
    finally:
        sock.close()
