"""The one pool of worker processes that runs many matches: ``simulate --jobs`` (and ``ladder``
through it) and the local backend of ``sweep --jobs``.

    with Pool(jobs, partial(MyWorker, ...)) as pool:
        for chunk, result in pool.run(chunks):      # in the chunks' order
            ...
        last = pool.finish()                        # each worker's last word, then they leave

A worker is an object that the process makes once (``start()``: a function a forked process
gets as it is and a fresh process gets pickled) and then asks ``run(chunk)`` for every chunk it
is sent, one at a time, and ``finish()`` when there is no more work (``simulate``: the tally of
every match the worker played). Chunks are numbered as they are sent; a result is given back
when every chunk before it has been, so what a run gives is the same whatever the number of
workers.

Failures, the same for every run:

- an exception in a worker is sent to the parent (``errors(exc)`` says how: it must pickle) and
  raised there, in its chunk's place: the chunks before it are given back first and no chunk
  after it is sent;
- a worker that could not start (``start()`` raised) stops the run at once;
- a worker gone (its pipe closed) is ``lost(exitcode)`` (default ``lost_worker``: killed by a
  signal is ``WorkerLost``, naming the signal; any other end is a ``WorkerError``, a bug);
- Ctrl-C: workers ignore SIGINT, the parent gets one ``KeyboardInterrupt`` (a Ctrl-C while the
  workers start is held until they all have) and leaving the ``with`` ends every worker.

Nothing is shared between the processes but their pipes, so stopping is terminating the
processes: no lock can be left held.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from ..errors import WorkerError, WorkerLost

__all__ = ["Pool", "Worker", "lost_worker", "worker_error", "max_jobs", "chunk_size", "chunked", "forks"]

CHUNK_MATCHES = 16  # the most matches in a chunk (``chunk_size``)
CHUNKS_PER_WORKER = 8  # about this many chunks for each worker


class Worker(Protocol):
    """What a worker process runs: made once in the process, then asked for every chunk."""

    def run(self, chunk: Any) -> Any: ...

    def finish(self) -> Any: ...


def max_jobs() -> int:
    """The most worker processes a run uses: one per core (more would only wait for a core)."""
    return max(1, os.cpu_count() or 1)


def chunk_size(items: int, workers: int) -> int:
    """Matches per chunk: about ``CHUNKS_PER_WORKER`` chunks per worker, of at most
    ``CHUNK_MATCHES`` (chunks keep the traffic between processes small; many of them keep the
    workers busy to the end)."""
    return max(1, min(CHUNK_MATCHES, items // (max(1, workers) * CHUNKS_PER_WORKER)))


def chunked(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``items`` in lists of ``size`` (the last may be shorter)."""
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def forks() -> bool:
    """Whether the pool's processes are forks of this one (a worker may then use what this
    process has already loaded, passed in ``start`` without being pickled)."""
    import multiprocessing

    return multiprocessing.get_context().get_start_method() == "fork"


def lost_worker(exitcode: int | None) -> WorkerError:
    """The error for a worker process gone with ``exitcode``: killed by a signal (negative) is
    ``WorkerLost``, the system's doing; any other end, before its work was done, is a bug."""
    if exitcode is None or exitcode >= 0:
        return WorkerError(f"a worker process stopped unexpectedly (exit code {exitcode})")
    try:
        name = signal.Signals(-exitcode).name
    except ValueError:
        name = f"signal {-exitcode}"
    return WorkerLost(f"a worker process was killed by {name} (out of memory?)")


def worker_error(exc: BaseException) -> BaseException:
    """An exception of a worker as it travels to the parent: a ``WorkerError`` as it is, anything
    else as a ``WorkerError`` naming it (with its traceback when ``RULESPEC_DEBUG`` is set)."""
    if isinstance(exc, WorkerError):
        return exc
    import traceback

    detail = "".join(traceback.format_exception(exc)) if os.environ.get("RULESPEC_DEBUG") else ""
    return WorkerError(f"{type(exc).__name__}: {exc}" + (f"\n{detail}" if detail else ""))


def _serve(conn: Any, start: Callable[[], Worker], errors: Callable[[BaseException], BaseException]) -> None:
    """A worker process: make the worker, run the chunks it is sent, in order, and at the end
    (None) send what ``finish`` says."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    number = None
    try:
        try:
            worker = start()
            while True:
                item = conn.recv()
                if item is None:
                    conn.send(("done", None, worker.finish()))
                    return
                number, chunk = item
                conn.send(("ok", number, worker.run(chunk)))
        except (EOFError, BrokenPipeError, ConnectionResetError):
            return  # the parent is gone (its end of the pipe closed); any other OSError is reported
        except Exception as exc:  # sent to the parent, which reports it
            conn.send(("error", number, errors(exc)))
    except (EOFError, OSError, KeyboardInterrupt):
        return


def _as_error(payload: Any) -> BaseException:
    return payload if isinstance(payload, BaseException) else WorkerError(f"a worker failed: {payload!r}")


class Pool:
    """``jobs`` worker processes, one pipe each, fed one chunk at a time (see the module's text)."""

    def __init__(self, jobs: int, start: Callable[[], Worker],
                 errors: Callable[[BaseException], BaseException] = worker_error,
                 lost: Callable[[int | None], BaseException] = lost_worker):
        import multiprocessing  # (imported when a run starts workers, not with the module)

        ctx = multiprocessing.get_context()
        self.lost = lost
        self.procs: list[Any] = []
        self.conns: list[Any] = []
        self.finished = False
        interrupted: list[int] = []
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(1)) if main else None
        try:
            for _ in range(jobs):
                parent_end, child_end = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(child_end, start, errors), daemon=True)
                proc.start()
                child_end.close()
                self.procs.append(proc)
                self.conns.append(parent_end)
        except BaseException:
            self.stop()
            raise
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)
        if interrupted:
            self.stop()
            raise KeyboardInterrupt

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(graceful=self.finished)

    def run(self, chunks: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """Each chunk with its worker's result, in the chunks' order."""
        from multiprocessing.connection import wait

        pending = iter(chunks)
        numbers = itertools.count()
        busy: dict[Any, int] = {}
        sent: dict[int, Any] = {}  # chunk number -> the chunk, until given back
        done: dict[int, Any] = {}  # chunk number -> its result, or the error that stopped it
        ready = 0
        failed = False

        def feed(conn: Any) -> None:
            chunk = next(pending, None) if not failed else None
            if chunk is not None:
                number = next(numbers)
                try:
                    conn.send((number, chunk))
                except OSError:
                    pass  # the worker is gone: reading its pipe says why
                busy[conn] = number
                sent[number] = chunk

        for conn in self.conns:
            feed(conn)
        while busy:
            for conn in wait(list(busy)):
                kind, number, payload = self._receive(conn)
                del busy[conn]
                if kind == "error":
                    if number is None:  # the worker could not start
                        raise _as_error(payload)
                    failed = True  # the first failing chunk is reported once every chunk before it is given back
                done[number] = payload
                if kind == "ok":
                    feed(conn)
            while ready in done:
                result = done.pop(ready)
                if isinstance(result, BaseException):
                    raise result
                yield sent.pop(ready), result
                ready += 1

    def finish(self) -> list[Any]:
        """Once every chunk is run: each worker told to stop, and what its ``finish`` answered."""
        out = []
        for conn in self.conns:
            try:
                conn.send(None)
            except (OSError, ValueError):
                pass  # the worker is gone: reading its pipe says so
            kind, _, payload = self._receive(conn)
            if kind != "done":
                raise _as_error(payload)
            out.append(payload)
        self.finished = True
        return out

    def _receive(self, conn: Any) -> tuple[str, Any, Any]:
        """A worker's next message; a worker gone is ``lost(its exit code)``."""
        try:
            return conn.recv()
        except (EOFError, OSError):
            proc = self.procs[self.conns.index(conn)]
            proc.join(1)
            raise self.lost(proc.exitcode) from None

    def stop(self, graceful: bool = False) -> None:
        """Stop the workers: ``graceful`` once ``finish`` has told them to (they are leaving),
        else at once."""
        for proc in self.procs:
            if graceful:
                proc.join(5)
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join(5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self.conns:
            conn.close()
