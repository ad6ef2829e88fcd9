"""A first feasibility measurement for issue 53's native target: tic-tac-toe written by hand
in numba over flat arrays (not generated from a spec, not part of the package).

    python benchmarks/native_ttt.py              # speed and compile times, printed
    python benchmarks/native_ttt.py --json       # the same as one JSON object

It answers two questions before a compiler is written: how fast the native target must be
(and can be) beside the peers of benchmarks/peers.py, and what numba's compile costs here,
cold and from its on-disk cache.

Three ways of playing random matches to the end, the workloads of the issue:

- ``batch``: N matches stepped together in native code (one array per field, one row per
  match), random legal actions drawn in native code; the vector API's "whole matches".
- ``vector``: the same N matches stepped from a Python loop: each step hands Python the
  legal-action mask as a numpy array, numpy picks the actions, native code applies them (an
  RL loop's shape).
- ``step``: one match at a time through the OpenSpiel-shaped per-step API
  (``legal_actions`` / ``apply_action``) from the same Python loop as benchmarks/run.py, each
  method one native call: two calls an action.
- ``step1``: the same API with one native call an action: ``apply_action`` also lists the
  next legal actions, which ``legal_actions`` hands out (numba's dispatch costs about as much
  as the rules of tic-tac-toe, so the number of calls decides the speed).

numba's cache unpickles its index, so it lives only in a folder made here for this user
alone (mode 0700, owned by the user, checked before use): ``~/.cache/rulespec-bench/numba``,
or the folder named by RULESPEC_BENCH_NUMBA_CACHE (checked the same way; the compile-time
probe uses it to start from an empty cache). Nothing is cached beside the source.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CACHE_ENV = "RULESPEC_BENCH_NUMBA_CACHE"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.worker import random_loop  # noqa: E402


def private_dir(path: Path) -> Path:
    """``path`` as a folder for this user alone: made with mode 0700 if missing; refused if it
    is a link, not a folder, someone else's, or open to others."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{path}: not a folder of this user's alone (mode 0700); numba's cache is not used there")
    return path


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulespec-bench" / "numba"


# numba reads NUMBA_CACHE_DIR when it is imported: the folder is checked and set first
os.environ["NUMBA_CACHE_DIR"] = str(private_dir(Path(os.environ.get(CACHE_ENV) or default_cache())))

_IMPORT_START = time.perf_counter(), time.process_time()
import numba  # noqa: E402
import numpy as np  # noqa: E402

IMPORT_NUMBA_S = time.perf_counter() - _IMPORT_START[0]
IMPORT_NUMBA_CPU_S = time.process_time() - _IMPORT_START[1]

# the 8 lines, and for each cell the lines through it (-1 pads)
LINES = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
                 dtype=np.int8)
CELL_LINES = np.full((9, 4), -1, dtype=np.int8)
for _line, _cells in enumerate(LINES):
    for _cell in _cells:
        CELL_LINES[_cell, np.argmax(CELL_LINES[_cell] < 0)] = _line

# a match's status: still playing, won by the player who moved last, drawn
PLAYING, WON, DRAWN = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def _apply(board, info, action):
    """Put the mover's mark on ``action``; info = [player to move (1 or 2), moves made, status,
    winner (0 none)]. Returns the status."""
    mover = info[0]
    board[action] = mover
    info[1] += 1
    for k in range(4):
        line = CELL_LINES[action, k]
        if line < 0:
            break
        if board[LINES[line, 0]] == mover and board[LINES[line, 1]] == mover and board[LINES[line, 2]] == mover:
            info[2] = WON
            info[3] = mover
            return WON
    if info[1] == 9:
        info[2] = DRAWN
        return DRAWN
    info[0] = 3 - mover
    return PLAYING


@numba.njit(cache=True, nogil=True)
def _legal(board, out):
    """The empty cells into ``out``; their count."""
    n = 0
    for cell in range(9):
        if board[cell] == 0:
            out[n] = cell
            n += 1
    return n


@numba.njit(cache=True, nogil=True)
def _apply_then_legal(board, info, action, out):
    """``_apply``, then the legal actions into ``out``: their count, or -1 once the match is over."""
    if _apply(board, info, action) != PLAYING:
        return -1
    return _legal(board, out)


@numba.njit(cache=True, nogil=True)
def reset(boards, infos):
    boards[:] = 0
    for i in range(infos.shape[0]):
        infos[i, 0] = 1
        infos[i, 1] = 0
        infos[i, 2] = PLAYING
        infos[i, 3] = 0


@numba.njit(cache=True, nogil=True)
def play_batch(boards, infos, seed):
    """Every match of the batch to its end with uniformly random legal actions, stepped
    together (one step of every live match, then the next); the actions taken."""
    np.random.seed(seed)
    legal = np.empty(9, dtype=np.int64)
    actions = 0
    live = infos.shape[0]
    while live > 0:
        live = 0
        for i in range(infos.shape[0]):
            if infos[i, 2] != PLAYING:
                continue
            n = _legal(boards[i], legal)
            if _apply(boards[i], infos[i], legal[np.random.randint(n)]) == PLAYING:
                live += 1
            actions += 1
    return actions


@numba.njit(cache=True, nogil=True)
def masks(boards, infos, out):
    """The legal-action mask of every match (all False once it has ended); the live count."""
    live = 0
    for i in range(infos.shape[0]):
        playing = infos[i, 2] == PLAYING
        live += playing
        for cell in range(9):
            out[i, cell] = playing and boards[i, cell] == 0
    return live


@numba.njit(cache=True, nogil=True)
def step(boards, infos, actions):
    """One action for every match still playing."""
    for i in range(infos.shape[0]):
        if infos[i, 2] == PLAYING:
            _apply(boards[i], infos[i], actions[i])


KERNELS = (_apply, _legal, _apply_then_legal, reset, play_batch, masks, step)


# ---------------------------------------------------------------------- the three ways


class Batch:
    """N matches as flat arrays: a board row and an info row per match."""

    def __init__(self, n: int) -> None:
        self.boards = np.zeros((n, 9), dtype=np.int8)
        self.infos = np.zeros((n, 4), dtype=np.int8)
        self.mask = np.zeros((n, 9), dtype=np.bool_)

    def play_native(self, seed: int) -> int:
        """Whole matches in native code; the actions taken."""
        reset(self.boards, self.infos)
        return int(play_batch(self.boards, self.infos, seed))

    def play_vector(self, rng: np.random.Generator) -> int:
        """Stepped from Python: mask out, numpy's choice in, until every match has ended."""
        reset(self.boards, self.infos)
        actions = 0
        while (live := masks(self.boards, self.infos, self.mask)) > 0:
            # the largest of uniform draws over the legal cells: a uniformly random legal cell
            step(self.boards, self.infos, np.argmax(self.mask * rng.random(self.mask.shape), axis=1))
            actions += live
        return actions


class TicTacToeState:
    """The per-step API over one match's arrays (what a native ``State`` would wrap)."""

    __slots__ = ("board", "info", "over", "buffer")

    def __init__(self) -> None:
        self.board = np.zeros(9, dtype=np.int8)
        self.info = np.array([1, 0, PLAYING, 0], dtype=np.int8)
        self.over = False
        self.buffer = np.empty(9, dtype=np.int64)

    def is_terminal(self) -> bool:
        return self.over

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        return self.buffer[: _legal(self.board, self.buffer)].tolist()

    def apply_action(self, action: int) -> None:
        self.over = _apply(self.board, self.info, action) != PLAYING


class OneCallState:
    """The per-step API with one native call an action: ``apply_action`` lists the next legal
    actions as it applies one."""

    __slots__ = ("board", "info", "count", "buffer")

    def __init__(self) -> None:
        self.board = np.zeros(9, dtype=np.int8)
        self.info = np.array([1, 0, PLAYING, 0], dtype=np.int8)
        self.buffer = np.arange(9, dtype=np.int64)
        self.count = 9

    def is_terminal(self) -> bool:
        return self.count < 0

    def is_chance_node(self) -> bool:
        return False

    def legal_actions(self) -> list[int]:
        return self.buffer[: self.count].tolist()

    def apply_action(self, action: int) -> None:
        self.count = _apply_then_legal(self.board, self.info, action, self.buffer)


def step_loop(games: int, seed: int, one_call: bool = False) -> int:
    """The per-step API driven by benchmarks/worker.py's loop (the one that drives the engine and
    OpenSpiel); the actions taken."""
    state = OneCallState if one_call else TicTacToeState
    return random_loop(lambda _: state(), games, seed)


# ---------------------------------------------------------------------- measurements


def compile_all() -> tuple[float, float]:
    """Compile (or load from the cache) every kernel by calling it once; (wall, CPU) seconds."""
    start = time.perf_counter(), time.process_time()
    batch = Batch(2)
    batch.play_native(1)
    batch.play_vector(np.random.default_rng(1))
    step_loop(1, 1)
    step_loop(1, 1, one_call=True)
    return time.perf_counter() - start[0], time.process_time() - start[1]


def timed(fn: Any, min_cpu: float) -> tuple[float, float, int, int]:
    """Calls of ``fn`` (which returns (games, actions)) until ``min_cpu`` CPU seconds have
    passed: (cpu, wall, games, actions)."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    games = actions = 0
    while time.process_time() - cpu0 < min_cpu:
        g, a = fn()
        games += g
        actions += a
    return time.process_time() - cpu0, time.perf_counter() - wall0, games, actions


def speeds(batch: int, reps: int, min_cpu: float) -> dict[str, Any]:
    """Games per CPU second of each way: medians and spreads over ``reps`` repetitions, the
    ways interleaved (one repetition of each in turn) so that all see the same machine."""
    native = Batch(batch)
    vector = Batch(batch)
    rng = np.random.default_rng(7)
    seeds = iter(range(1, 1 << 30))
    ways = {
        "batch": lambda: (batch, native.play_native(next(seeds))),
        "vector": lambda: (batch, vector.play_vector(rng)),
        "step": lambda: (1000, step_loop(1000, next(seeds))),
        "step1": lambda: (1000, step_loop(1000, next(seeds), one_call=True)),
    }
    for fn in ways.values():  # warm-up
        timed(fn, min_cpu / 5)
    runs: dict[str, list[tuple[float, float, int, int]]] = {name: [] for name in ways}
    for _ in range(reps):
        for name, fn in ways.items():
            runs[name].append(timed(fn, min_cpu))
    out = {}
    for name, got in runs.items():
        per_cpu = sorted(g / c for c, _, g, _ in got)
        per_wall = sorted(g / w for _, w, g, _ in got)
        out[name] = {"games_per_cpu_s": statistics.median(per_cpu), "min": per_cpu[0], "max": per_cpu[-1],
                     "games_per_wall_s": statistics.median(per_wall),
                     "actions_per_game": sum(a for *_, a in got) / sum(g for _, _, g, _ in got),
                     "us_per_action": statistics.median(c / a * 1e6 for c, _, _, a in got)}
    return out


def probe() -> dict[str, Any]:
    """In this (fresh) process: the import and compile times, and where the cache is."""
    wall, cpu = compile_all()
    return {"import_numba_s": IMPORT_NUMBA_S, "import_numba_cpu_s": IMPORT_NUMBA_CPU_S, "compile_s": wall,
            "compile_cpu_s": cpu, "cache_dir": os.environ["NUMBA_CACHE_DIR"],
            "cache_files": len(list(Path(os.environ["NUMBA_CACHE_DIR"]).rglob("*.nbi")))}


def compile_times(rounds: int) -> dict[str, Any]:
    """Cold (a fresh process, an empty cache folder) then cached (another fresh process, the
    cache that the cold one left), ``rounds`` times each, each round with a new folder."""
    cold: list[dict[str, Any]] = []
    cached: list[dict[str, Any]] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="rulespec-numba-") as folder:  # made 0700
            env = dict(os.environ, **{CACHE_ENV: str(Path(folder) / "cache")})
            for into in (cold, cached):
                done = subprocess.run([sys.executable, __file__, "--probe"], env=env, capture_output=True,
                                      text=True, check=True)
                into.append(json.loads(done.stdout.strip().splitlines()[-1]))

    def summary(got: list[dict[str, Any]]) -> dict[str, Any]:
        compile_s = sorted(g["compile_s"] for g in got)
        return {"compile_s": statistics.median(compile_s), "min": compile_s[0], "max": compile_s[-1],
                "compile_cpu_s": statistics.median(g["compile_cpu_s"] for g in got),
                "import_numba_s": statistics.median(g["import_numba_s"] for g in got),
                "import_numba_cpu_s": statistics.median(g["import_numba_cpu_s"] for g in got),
                "cache_files": got[-1]["cache_files"]}

    return {"cold": summary(cold), "cached": summary(cached), "kernels": len(KERNELS), "rounds": rounds}


def main() -> int:
    parser = argparse.ArgumentParser(description="hand-written numba tic-tac-toe: speed and compile times")
    parser.add_argument("--batch", type=int, default=1024, help="matches stepped together (default 1024)")
    parser.add_argument("--reps", type=int, default=5, help="repetitions of each measurement (default 5)")
    parser.add_argument("--min-cpu", type=float, default=1.0, help="CPU seconds of each repetition (default 1)")
    parser.add_argument("--compile-rounds", type=int, default=3, help="cold and cached compiles (default 3)")
    parser.add_argument("--compile-only", action="store_true", help="measure the compile times only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe()))
        return 0
    compile_all()
    result: dict[str, Any] = {"numba": numba.__version__, "numpy": np.__version__, "batch": args.batch,
                              "compile": compile_times(args.compile_rounds)}
    if not args.compile_only:
        result["speed"] = speeds(args.batch, args.reps, args.min_cpu)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"numba {result['numba']}, numpy {result['numpy']}, batch {args.batch}")
    for name, got in result.get("speed", {}).items():
        print(f"{name:>7}: {got['games_per_cpu_s']:>12,.0f} games/CPU s (min {got['min']:,.0f}, max {got['max']:,.0f});"
              f" {got['games_per_wall_s']:,.0f} games/wall s; {got['us_per_action']:.3f} µs/action")
    for name in ("cold", "cached"):
        got = result["compile"][name]
        print(f"compile {name}: {got['compile_s']:.2f} s wall (min {got['min']:.2f}, max {got['max']:.2f}), "
              f"{got['compile_cpu_s']:.2f} s CPU, for {result['compile']['kernels']} kernels; "
              f"import numba {got['import_numba_s']:.2f} s wall, {got['import_numba_cpu_s']:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
