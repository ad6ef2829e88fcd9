"""The Ray backend of a sweep: the same chunks and ``play_chunk`` as the local one, as Ray tasks.

    backend = ray_backend(jobs=2)                    # a Ray instance of 2 CPUs on this machine
    backend = ray_backend(address="auto")            # the cluster this machine belongs to
    records = run_sweep(plan, backend, out="sweep.jsonl")

Ray is an optional extra (``pip install 'rulespec[ray]'``). When this process has already
connected to Ray (``ray.init`` was called), that instance is used and left running; otherwise
one is started (or joined, with ``address``) and shut down at the end. Each spec travels once
into Ray's object store (``ray.put`` of its ``SpecBundle``); a task receives it with its chunk,
and the worker process compiles it once. Workers need rulespec installed (the same version as
this machine: a chunk's answer says which it ran), never the spec files.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from .sweep import Backend, Chunk, SweepError, play_chunk

__all__ = ["ray_backend", "import_ray"]

IN_FLIGHT_PER_CPU = 2  # chunks submitted per CPU of the cluster before waiting for one


def import_ray() -> Any:
    """The ``ray`` module, or a usage error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise SweepError("--backend ray needs Ray: pip install 'rulespec[ray]' (see docs/sweeps.md)", 2) from None
    return ray


def ray_backend(jobs: int = 1, address: str | None = None) -> Backend:
    """Chunks as Ray tasks, on ``jobs`` CPUs of a Ray started here, or on the cluster at ``address``."""
    ray = import_ray()
    return lambda chunks: _play_on_ray(ray, chunks, jobs, address)


def _connect(ray: Any, jobs: int, address: str | None) -> bool:
    """Connect to Ray; True when this call started the connection (and so must end it)."""
    if ray.is_initialized():
        return False
    settings: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                "logging_level": logging.ERROR}
    if address:
        settings["address"] = address
    else:
        settings["num_cpus"] = jobs
    try:
        ray.init(**settings)
    except Exception as exc:  # no cluster there, a refused connection, a Ray that cannot start
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise SweepError(f"cannot reach {where}: {type(exc).__name__}: {_first_line(exc)}", 1) from None
    return True


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[-1 if lines and lines[0].startswith("ray::") else 0][:300] if lines else ""


def _cpus(ray: Any, jobs: int) -> int:
    try:
        return max(1, int(ray.cluster_resources().get("CPU", jobs)))
    except Exception:  # a cluster that does not say
        return max(1, jobs)


def _play_on_ray(ray: Any, chunks: Iterator[Chunk], jobs: int, address: str | None) -> Iterator[tuple[Chunk, Any]]:
    started = _connect(ray, jobs, address)
    running: dict[Any, Chunk] = {}
    try:
        task = ray.remote(num_cpus=1)(play_chunk)
        bundles: dict[str, Any] = {}  # digest -> the bundle in the object store
        limit = IN_FLIGHT_PER_CPU * _cpus(ray, jobs)
        for chunk in chunks:
            while len(running) >= limit:
                yield from _finished(ray, running)
            digest = chunk.bundle.digest
            if digest not in bundles:
                bundles[digest] = ray.put(chunk.bundle)
            running[task.remote(bundles[digest], chunk.players, chunk.options, chunk.tasks)] = chunk
        while running:
            yield from _finished(ray, running)
    finally:
        for ref in running:  # stopped early (an error, Ctrl-C): nothing goes on playing
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already done, or Ray is going away
                pass
        if started:
            ray.shutdown()


def _finished(ray: Any, running: dict[Any, Chunk]) -> Iterator[tuple[Chunk, Any]]:
    done, _ = ray.wait(list(running), num_returns=1)
    for ref in done:
        chunk = running.pop(ref)
        try:
            payload = ray.get(ref)
        except ray.exceptions.RayError as exc:  # a worker without rulespec, a node lost: the cluster's, not a bug
            raise SweepError(f"a Ray task failed (is rulespec installed on every worker? see docs/sweeps.md): "
                             f"{type(exc).__name__}: {_first_line(exc)}", 1) from None
        yield chunk, payload
