"""The server's side of its worker processes: starting them, asking them, stopping them.

Workers are forked by the zygote (``zygote.py``, a process that has imported the engine once),
so a new one costs a fork, not an import. Each gets one end of a socket pair; the server asks
it one request at a time (``Worker.call``) and waits for the answer without blocking its event
loop. A worker that does not answer in time (its CPU budget, a margin, and the wall clock of a
loaded machine) is killed: the caller gets ``WorkerGone``.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import ServeError
from .limits import ServerLimits
from .wire import encode, read_frame_async

__all__ = ["Launcher", "Worker", "WorkerGone", "Answer", "ZYGOTE_MODULE"]

ZYGOTE_MODULE = "interpreter.serve.zygote"
SLACK = 4.0  # a worker has this many times its CPU budget of wall clock (plus START_SECONDS) to answer
START_SECONDS = 10.0


class WorkerGone(ServeError):
    """A worker that ended (or was killed) before it answered; ``cpu``: what it used unreported."""

    def __init__(self, message: str, cpu: float = 0.0):
        super().__init__(message, 503, fatal=True)
        self.cpu = cpu


WHAT = {"room": "this table", "bots": "this table's bots", "job": "this job", "replay": "this log"}
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu(pid: int) -> float | None:
    """The CPU seconds a process has used so far (Linux's /proc), None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class Answer:
    header: dict[str, Any]
    blobs: list[bytes] = field(default_factory=list)

    @property
    def cpu(self) -> float:
        value = self.header.get("cpu", 0.0)
        return float(value) if isinstance(value, (int, float)) else 0.0

    def raise_error(self) -> Answer:
        """The answer itself, or the ServeError it carries."""
        if "error" in self.header:
            error = ServeError(str(self.header["error"]), int(self.header.get("status", 500)),
                               bool(self.header.get("fatal")))
            error.cpu = self.cpu  # type: ignore[attr-defined]
            raise error
        return self


class Worker:
    """One worker process and the server's end of its socket: one request at a time."""

    def __init__(self, kind: str, pid: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.kind = kind
        self.pid = pid
        self.reader = reader
        self.writer = writer
        self.lock = asyncio.Lock()
        self.busy_since: float | None = None
        self.alive = True
        self.reported = 0.0  # the CPU its answers have reported
        # a handle on this very process: a pid may be reused once the process ended (Linux 5.3+)
        self.pidfd = _pidfd(pid)

    async def call(self, op: str, header: dict[str, Any] | None = None, blobs: Sequence[bytes] = (),
                   budget: float | None = None, wall: float | None = None) -> Answer:
        """The worker's answer to one request (its ``error``, if any, is left to the caller). A
        worker that does not answer in time, or whose caller stops waiting, is killed: its
        conversation is lost, and the CPU it used unreported comes with ``WorkerGone``."""
        message = encode({**(header or {}), "op": op, **({"budget": budget} if budget else {})}, blobs)
        async with self.lock:
            if not self.alive:
                raise WorkerGone(f"the worker of {WHAT[self.kind]} has stopped")
            self.busy_since = asyncio.get_running_loop().time()
            try:
                self.writer.write(message)
                await self.writer.drain()
                head, out = await asyncio.wait_for(read_frame_async(self.reader), wall or START_SECONDS)
            except (TimeoutError, EOFError, OSError, ValueError):
                raise WorkerGone(f"the worker of {WHAT[self.kind]} stopped answering", self.kill()) from None
            except BaseException:  # the caller stopped waiting (cancelled): the answer would go astray
                self.kill()
                raise
            finally:
                self.busy_since = None
        answer = Answer(head, out)
        self.reported += answer.cpu
        return answer

    def lower_priority(self, nice: int = 10) -> None:
        """From now on this worker yields the CPU to the others (its requests cost much)."""
        if not self.alive or _ended(self.pidfd):
            return
        try:
            if os.getpriority(os.PRIO_PROCESS, self.pid) < nice:
                os.setpriority(os.PRIO_PROCESS, self.pid, nice)
        except OSError:
            pass

    def kill(self) -> float:
        """Stop the worker; the CPU it used that no answer reported."""
        if not self.alive:
            return 0.0
        self.alive = False
        used = process_cpu(self.pid) if not _ended(self.pidfd) else None
        try:
            self.writer.close()
        except (OSError, RuntimeError):
            pass
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return max(0.0, used - self.reported) if used is not None else 0.0


def _abandon(forked: asyncio.Future[int], child: socket.socket) -> None:
    """A worker forked for a caller that stopped waiting: kill it (just forked, its pid is its own)."""
    child.close()
    if not forked.cancelled() and forked.exception() is None and forked.result() > 0:
        try:
            os.kill(forked.result(), signal.SIGKILL)
        except OSError:
            pass


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _ended(pidfd: int | None) -> bool:
    """Whether the process a pidfd holds has ended (it reads as ready then)."""
    if pidfd is None:
        return False
    return bool(select.select([pidfd], [], [], 0)[0])


class Launcher:
    """Starts workers of every kind, each told the limits and the served files when it starts."""

    def __init__(self, limits: ServerLimits, names: list[str], texts: list[bytes], specs: dict[str, str]):
        self.limits = limits
        self.hello = encode({"limits": limits.to_json(), "names": names, "specs": specs}, texts)
        self.workers: set[Worker] = set()
        self._zygote: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()

    def ensure_zygote(self) -> None:
        """The zygote, started (again) when it is not running. Blocking: call it in a thread."""
        if self._zygote is not None and self._zygote.poll() is None:
            return
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        try:
            self._zygote = subprocess.Popen([sys.executable, "-m", ZYGOTE_MODULE, str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], env=env, stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        if self._control is not None:
            self._control.close()
        self._control = ours

    def _fork(self, kind: str, fd: int) -> int:
        """A new worker's pid (blocking: called in a thread)."""
        with self._lock:
            for _ in range(2):  # a zygote that died is started again, once
                self.ensure_zygote()
                assert self._control is not None
                try:
                    socket.send_fds(self._control, [kind.encode("ascii") + b"\n"], [fd])
                    answer = b""
                    while not answer.endswith(b"\n"):
                        chunk = self._control.recv(64)
                        if not chunk:
                            raise EOFError
                        answer += chunk
                    return int(answer)
                except (OSError, EOFError, ValueError):
                    if self._zygote is not None:
                        self._zygote.kill()
                        self._zygote.wait()
            raise WorkerGone("a worker process could not start")

    async def start(self, kind: str) -> Worker:
        """A new worker of ``kind``, greeted; one whose caller stops waiting is stopped, never left behind."""
        parent, child = socket.socketpair()
        forking = asyncio.get_running_loop().run_in_executor(None, self._fork, kind, child.fileno())
        try:
            pid = await asyncio.shield(forking)
        except BaseException:  # cancelled while the zygote forks: stop the worker once it exists
            parent.close()
            forking.add_done_callback(lambda done: _abandon(done, child))
            raise
        child.close()
        if pid <= 0:
            parent.close()
            raise WorkerGone("a worker process could not start")
        try:
            reader, writer = await asyncio.open_unix_connection(sock=parent)
        except BaseException:
            parent.close()
            os.kill(pid, signal.SIGKILL)  # (just forked: its pid cannot have been reused yet)
            raise
        worker = Worker(kind, pid, reader, writer)
        self.workers.add(worker)
        try:
            writer.write(self.hello)
            await writer.drain()
            head, _ = await asyncio.wait_for(read_frame_async(reader), START_SECONDS)
            if not head.get("ok"):
                raise EOFError
        except (TimeoutError, EOFError, OSError, ValueError):
            self.stop(worker)
            raise WorkerGone("a worker process could not start") from None
        except BaseException:  # cancelled while greeting it
            self.stop(worker)
            raise
        return worker

    def wall(self, budget: float) -> float:
        """The wall-clock time a request with this CPU budget may take before its worker is killed."""
        return budget * SLACK + START_SECONDS

    def stop(self, worker: Worker | None) -> None:
        if worker is not None:
            worker.kill()
            self.workers.discard(worker)

    def stop_all(self) -> None:
        for worker in list(self.workers):
            worker.kill()
        self.workers.clear()
        if self._zygote is not None:
            self._zygote.kill()
            self._zygote.wait()
            self._zygote = None
        if self._control is not None:
            self._control.close()
            self._control = None
