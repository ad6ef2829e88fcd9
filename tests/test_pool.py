"""The worker pool of simulate and sweep (interpreter/analysis/pool.py), on its own: results in
the chunks' order whatever the number of workers, a worker's error in its chunk's place, a
worker that cannot start, a worker killed, and the chunk size."""

from __future__ import annotations

import os
import signal
import time

import pytest

from interpreter.analysis.pool import Pool, chunk_size, chunked
from interpreter.errors import WorkerError, WorkerLost


class Square:
    def run(self, chunk: list[int]) -> list[int]:
        time.sleep(0.01 * (chunk[0] % 3))  # chunks finish out of order
        return [x * x for x in chunk]

    def finish(self) -> str:
        return "done"


class FailsAtThree:
    """Chunk 3 fails; the chunks before it are slower, so they finish after it."""

    def run(self, chunk: int) -> int:
        if chunk == 3:
            raise ValueError("three")
        time.sleep(0.1 if chunk < 3 else 0)
        return chunk

    def finish(self) -> None:
        return None


class Killed:
    def run(self, chunk: int) -> int:
        if chunk == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return chunk

    def finish(self) -> None:
        return None


def cannot_start() -> Square:
    raise RuntimeError("no game here")


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_come_back_in_the_chunks_order_whatever_the_workers(jobs):
    chunks = list(chunked(range(40), 3))
    with Pool(jobs, Square) as pool:
        got = list(pool.run(chunks))
        last = pool.finish()
    assert got == [(c, [x * x for x in c]) for c in chunks]
    assert last == ["done"] * jobs
    assert not any(p.is_alive() for p in pool.procs)


def test_a_worker_s_error_comes_in_its_chunk_s_place():
    got = []
    with Pool(2, FailsAtThree) as pool, pytest.raises(WorkerError, match="^ValueError: three$"):
        for _, result in pool.run(range(10)):
            got.append(result)
    assert got == [0, 1, 2]
    assert not any(p.is_alive() for p in pool.procs)


def test_a_worker_that_cannot_start_stops_the_run():
    with Pool(2, cannot_start) as pool, pytest.raises(WorkerError, match="^RuntimeError: no game here$"):
        list(pool.run(range(4)))


def test_a_worker_killed_is_lost_as_its_command_words_it():
    with Pool(2, Killed) as pool, pytest.raises(WorkerLost, match=r"^a worker process was killed by SIGKILL "
                                                                  r"\(out of memory\?\)$"):
        list(pool.run(range(6)))
    with Pool(2, Killed, lost=lambda code: WorkerLost(f"gone ({code})")) as pool, \
            pytest.raises(WorkerLost, match=r"^gone \(-9\)$"):
        list(pool.run(range(6)))


def test_chunks_are_about_eight_per_worker_of_at_most_sixteen():
    assert [chunk_size(n, 2) for n in (0, 15, 16, 100, 1000)] == [1, 1, 1, 6, 16]
    assert list(chunked("abcdefg", 3)) == [list("abc"), list("def"), ["g"]]
