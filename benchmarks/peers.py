"""Random playouts of rulespec's Python engine beside its peers, in one run (issue 53):
benchmarks/PEERS.md (+ .json).

    python benchmarks/peers.py                     # every game, 5 repetitions
    python benchmarks/peers.py --quick             # 3 shorter repetitions, the JAX loop in jit only
    python benchmarks/peers.py --games tictactoe,hex --out /tmp/peers.md

Run it from a venv of its own that holds the project and the peers, never the project's test
venv: the peers are benchmark tools, not dependencies of the package (interpreter/ and
rulespec/ never import them, nor do the tests):

    python3 -m venv ../bench-venv
    ../bench-venv/bin/pip install -e . open_spiel jax jaxlib pgx ludax numba numpy

A peer that is not installed there is skipped, with a line that says so.

The workload is the same for all: uniformly random legal actions (chance outcomes sampled by
their probabilities) until the match ends, counted in finished games per second.

- rulespec: ``interpreter.load_game`` on games/*.yaml, driven by benchmarks/worker.py's loop
  (``legal_actions`` / ``apply_action`` from Python), as benchmarks/run.py does.
- OpenSpiel: its C++ games through pyspiel, driven by the same Python loop (its chance
  outcomes drawn from ``chance_outcomes()`` by the same loop).
- Pgx and Ludax (JAX): a batch of 1,024 matches; every step draws a random legal action for
  each match (a categorical over the legal-action mask) and applies ``jax.vmap(env.step)``,
  until every match of the batch has ended. ``jit`` (the default): the whole loop inside one
  ``jax.jit`` (``lax.while_loop``), the peers' fastest use, as Ludax's own benchmark does;
  ``python`` (also measured unless --quick): a Python loop calling ``jax.jit`` of the vmapped
  step once per step, as an RL loop or Pgx's own benchmark drives it. Compile time is
  measured apart and excluded; one untimed run warms up first.
- High Hand (4p, 1 round, partnerships off) also against the hand-written yardstick
  ../shared/yardstick/highhand_ref.py ``--impl api`` (loaded by path, never copied), and
  Highjack 4p alone: the bases of the issue's targets for the native engine.
- tic-tac-toe also by benchmarks/native_ttt.py (hand-written numba, not a peer): the speed
  the native target can reach.

Robust on a busy 2-core machine: every system runs in a process of its own that is set up
(loaded, compiled, warmed up) once, then asked for one repetition at a time; the systems of a
game take turns, in a rotating order, for each repetition, so that all of them see the same
machine. A repetition lasts at least --min-cpu CPU seconds (whole batches for JAX). The
figure is games per CPU second (``time.process_time``: every thread of the process), the
median over the repetitions with its min and max; games per wall second, the share of the
wall time spent on a CPU, and the threads that did the work are reported beside it. CPU time
is the figure the machine's other load disturbs least; a system that keeps both cores busy
shows it in its threads and its CPU/wall.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
YARDSTICK = ROOT.parent / "shared" / "yardstick" / "highhand_ref.py"
BATCH = 1024
OURS = "rulespec"
PEERS = ("openspiel", "pgx", "ludax")  # the issue's peers: "fastest" is the fastest of these
# (system, the module it needs, what to install)
NEEDS = {"openspiel": ("pyspiel", "open_spiel"), "pgx": ("pgx", "jax jaxlib pgx"),
         "ludax": ("ludax", "jax jaxlib ludax"), "yardstick": (None, None), "numba": ("numba", "numba numpy")}
DISTRIBUTIONS = ("open_spiel", "jax", "jaxlib", "pgx", "ludax", "numba", "llvmlite", "numpy")
# issue 53's table (games/s): rulespec, OpenSpiel C++, Pgx, Ludax
ISSUE_TABLE = {"tictactoe": (27488, 89406, 420422, 291687), "reversi": (214, 3642, 7642, 721),
               "hex": (210, 7940, 2870, 3481), "goofspiel": (5335, 24766, None, None),
               "backgammon": (62, 718, 207, None)}


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    spec: str
    players: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    systems: tuple[tuple[str, str], ...] = ()  # (system, its name for the game)


ROWS = (
    Row("tictactoe", "tic-tac-toe", "tictactoe.yaml",
        systems=(("openspiel", "tic_tac_toe"), ("pgx", "tic_tac_toe"), ("ludax", "tic_tac_toe"),
                 ("numba", "batch"), ("numba", "vector"), ("numba", "step"), ("numba", "step1"))),
    Row("reversi", "Reversi", "reversi.yaml",
        systems=(("openspiel", "othello"), ("pgx", "othello"), ("ludax", "reversi"))),
    Row("hex", "hex 11x11", "hex.yaml", systems=(("openspiel", "hex"), ("pgx", "hex"), ("ludax", "hex"))),
    Row("goofspiel", "goofspiel", "goofspiel.yaml", systems=(("openspiel", "goofspiel"),)),
    Row("backgammon", "backgammon", "backgammon.yaml", systems=(("openspiel", "backgammon"), ("pgx", "backgammon"))),
    Row("highhand", "High Hand 4p (1 round, partnerships off)", "highhand.yaml", 4,
        {"rounds": 1, "partnerships": False}, systems=(("yardstick", "api"),)),
    Row("highjack", "Highjack 4p", "highjack.yaml", 4),
)


# ====================================================================== the worker (one system, one game)


def thread_ticks() -> dict[str, int]:
    """CPU clock ticks (user + system) of each thread of this process, by thread id."""
    ticks = {}
    for task in Path("/proc/self/task").glob("*"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            ticks[task.name] = int(fields[11]) + int(fields[12])
    return ticks


Play = Callable[[int, int], tuple[int, int, int]]  # (units, seed) -> (finished games, actions, unfinished)


def python_play(new_state: Callable[[int], Any], sampler: Callable | None = None) -> Play:
    """benchmarks/worker.py's driver loop: game i of a repetition gets the state seed seed*1e6+i."""
    from benchmarks.worker import random_loop

    def play(games: int, seed: int) -> tuple[int, int, int]:
        return games, random_loop(new_state, games, seed, sampler), 0

    return play


def setup_rulespec(task: dict[str, Any]) -> tuple[Play, int, dict[str, Any]]:
    import interpreter

    game = interpreter.load_game(str(ROOT / "games" / task["spec"]), players=task.get("players"),
                                 options=task.get("options") or {})
    return python_play(game.new_initial_state), 1, {
        "engine": str(Path(interpreter.__file__).resolve().parent.parent)}


def setup_openspiel(task: dict[str, Any]) -> tuple[Play, int, dict[str, Any]]:
    import pyspiel

    from benchmarks.worker import sample_chance

    name = task["game"]
    if name == "goofspiel":  # as games/goofspiel.yaml: descending prizes, bids one player at a time
        game = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", {"points_order": "descending"}))
    else:
        game = pyspiel.load_game(name)
    return python_play(lambda _: game.new_initial_state(), sample_chance), 1, {}


def setup_yardstick(task: dict[str, Any]) -> tuple[Play, int, dict[str, Any]]:
    spec = importlib.util.spec_from_file_location("highhand_ref", YARDSTICK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    players = task["players"]

    def play(games: int, seed: int) -> tuple[int, int, int]:
        result = module.run(players, games, seed, impl="api")
        return games, round(result.get("mean_moves", 0) * games), 0

    return play, 1, {}


def setup_numba(task: dict[str, Any]) -> tuple[Play, int, dict[str, Any]]:
    import numpy as np

    from benchmarks import native_ttt

    compiled, _ = native_ttt.compile_all()
    way = task["game"]
    batch = native_ttt.Batch(BATCH)
    rng = np.random.default_rng(1)
    info = {"compile_s": compiled, "cache_dir": os.environ.get("NUMBA_CACHE_DIR")}
    if way in ("step", "step1"):
        return lambda games, seed: (games, native_ttt.step_loop(games, seed, way == "step1"), 0), 1, info

    def play(units: int, seed: int) -> tuple[int, int, int]:
        actions = 0
        for i in range(units):
            actions += batch.play_native(seed * 100_000 + i) if way == "batch" else batch.play_vector(rng)
        return units * BATCH, actions, 0

    return play, BATCH, info


def setup_jax(task: dict[str, Any]) -> tuple[Play, int, dict[str, Any]]:
    import jax
    import jax.numpy as jnp

    if task["system"] == "pgx":
        import pgx

        env = pgx.make(task["game"])
        steps_of = lambda s: s._step_count
    else:
        import ludax
        import ludax.games

        env = ludax.LudaxEnvironment(game_str=getattr(ludax.games, task["game"]))
        steps_of = lambda s: s.global_step_count
    batch = task.get("batch", BATCH)
    init = jax.vmap(env.init)
    step = jax.vmap(env.step)

    def choose_and_step(state: Any, key: Any) -> Any:
        pick, keys = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)  # uniform over the legal actions
        action = jax.random.categorical(pick, logits, axis=-1)
        return step(state, action, jax.random.split(keys, batch))

    def ended(state: Any) -> Any:
        return state.terminated | state.truncated

    def summary(state: Any) -> Any:
        return (state.terminated.sum(), steps_of(state).astype(jnp.int32).sum(), state.truncated.sum())

    start = time.perf_counter()
    cpu0 = time.process_time()
    if task.get("loop", "jit") == "jit":
        def playout(key: Any) -> Any:
            key, first = jax.random.split(key)

            def body(carry: Any) -> Any:
                state, key = carry
                key, now = jax.random.split(key)
                return choose_and_step(state, now), key

            start_state = init(jax.random.split(first, batch))
            state, _ = jax.lax.while_loop(lambda c: ~ended(c[0]).all(), body, (start_state, key))
            return summary(state)

        compiled = jax.jit(playout).lower(jax.random.PRNGKey(0)).compile()

        def run(key: Any) -> tuple[int, int, int]:
            done, steps, cut = jax.block_until_ready(compiled(key))
            return int(done), int(steps), int(cut)
    else:
        init_j = jax.jit(init).lower(jax.random.split(jax.random.PRNGKey(0), batch)).compile()
        sample = init_j(jax.random.split(jax.random.PRNGKey(0), batch))
        step_j = jax.jit(choose_and_step).lower(sample, jax.random.PRNGKey(0)).compile()
        all_ended = jax.jit(lambda s: ended(s).all()).lower(sample).compile()
        summary_j = jax.jit(summary).lower(sample).compile()

        def run(key: Any) -> tuple[int, int, int]:
            key, first = jax.random.split(key)
            state = init_j(jax.random.split(first, batch))
            while not bool(all_ended(state)):  # the test syncs every step, as an RL loop's would
                key, now = jax.random.split(key)
                state = step_j(state, now)
            done, steps, cut = summary_j(state)
            return int(done), int(steps), int(cut)

    compile_s, compile_cpu = time.perf_counter() - start, time.process_time() - cpu0

    def play(units: int, seed: int) -> tuple[int, int, int]:
        totals = [0, 0, 0]
        for i in range(units):
            for k, v in enumerate(run(jax.random.PRNGKey(seed * 100_000 + i))):
                totals[k] += v
        return totals[0], totals[1], totals[2]

    return play, batch, {"compile_s": compile_s, "compile_cpu_s": compile_cpu, "jax_devices": str(jax.devices())}


SETUPS = {"rulespec": setup_rulespec, "openspiel": setup_openspiel, "yardstick": setup_yardstick,
          "numba": setup_numba, "pgx": setup_jax, "ludax": setup_jax}


def measure(play: Play, units: int, seed: int) -> dict[str, Any]:
    before = thread_ticks()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    games, actions, unfinished = play(units, seed)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    after = thread_ticks()
    spent = sorted((after[t] - before.get(t, 0) for t in after), reverse=True)
    busy = sum(1 for s in spent if spent[0] and s >= 0.1 * spent[0])  # threads with a tenth of the busiest's CPU
    return {"cpu": cpu, "wall": wall, "games": games, "actions": actions, "unfinished": unfinished,
            "threads": busy, "load": os.getloadavg()[0]}


def serve(task: dict[str, Any]) -> None:
    """Set up, warm up and calibrate; then one repetition for each line read, one JSON line back."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever else writes to stdout (a library's prints) goes to stderr
    sys.path.insert(0, str(ROOT))

    def answer(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    try:
        start, cpu0 = time.perf_counter(), time.process_time()
        play, grain, info = SETUPS[task["system"]](task)
        setup_s, setup_cpu = time.perf_counter() - start, time.process_time() - cpu0
        # warm-up: the first run after a compile (JAX also compiles its eager calls then)
        got = measure(play, 1, 0)
        # how many units (games, or batches) make a repetition of --min-cpu CPU seconds; a unit that
        # took twice that to warm up (a JAX batch of long games) is a repetition on its own
        units = 1
        while got["cpu"] < 2 * task["min_cpu"]:
            got = measure(play, units, 1_000)
            if got["cpu"] >= min(0.2, task["min_cpu"] / 4) or units * grain >= 1 << 24:
                break
            units *= 4
        per_unit = max(got["cpu"], 1e-6) / units
        reps_units = max(1, math.ceil(task["min_cpu"] / per_unit))
        answer({"ready": True, "setup_s": setup_s, "setup_cpu_s": setup_cpu, "units": reps_units, "grain": grain,
                "warmup": got, **info})
    except Exception as exc:  # the driver reports it and goes on
        answer({"ready": False, "error": f"{type(exc).__name__}: {exc}"[:500]})
        return
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("stop"):
            break
        answer(measure(play, reps_units, command["seed"]))


# ====================================================================== the driver


class Worker:
    """One system on one game in a process of its own."""

    def __init__(self, name: str, task: dict[str, Any], timeout: float) -> None:
        self.name = name
        self.timeout = timeout
        self.log = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(task)], cwd=str(ROOT),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        self.buffer = b""
        self.ready = self.read()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.stop()
                return {"ready": False, "error": f"no answer in {self.timeout:.0f} s"}
            chunk = os.read(fd, 65536)
            if not chunk:
                return {"ready": False, "error": self.failure()}
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def failure(self) -> str:
        self.proc.wait()
        self.log.seek(0)
        tail = [line for line in self.log.read().decode(errors="replace").splitlines() if line.strip()][-1:]
        return f"exit {self.proc.returncode}: {tail[0][:300] if tail else ''}"

    def ask(self, seed: int) -> dict[str, Any]:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps({"seed": seed}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return {"ready": False, "error": self.failure()}
        return self.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError, OSError):
                assert self.proc.stdin is not None
                self.proc.stdin.write(b'{"stop": true}\n')
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def missing(system: str) -> str | None:
    """Why ``system`` cannot run here, or None."""
    module, install = NEEDS.get(system, (None, None))
    if system == "yardstick" and not YARDSTICK.exists():
        return f"no {YARDSTICK}"
    if module is not None and importlib.util.find_spec(module) is None:
        return f"not installed here (pip install {install} in this venv)"
    return None


def label_of(system: str, game: str, loop: str | None) -> str:
    if system == "numba":
        return {"batch": "numba by hand: batch in native code", "vector": "numba by hand: batch stepped from Python",
                "step": "numba by hand: per-step API from Python, 2 native calls an action",
                "step1": "numba by hand: per-step API from Python, 1 native call an action"}[game]
    names = {"rulespec": "rulespec (Python engine)", "openspiel": f"OpenSpiel C++ `{game}`",
             "pgx": f"Pgx `{game}`", "ludax": f"Ludax `{game}`", "yardstick": "yardstick --impl api"}
    return names[system] + (f", loop in {loop}" if loop else "")


def measure_row(row: Row, args: argparse.Namespace, progress: Callable[[str], None]) -> dict[str, Any]:
    """Every system of ``row``: set up one after another, then the repetitions, taking turns."""
    plans: list[tuple[str, dict[str, Any]]] = [
        (OURS, {"system": OURS, "spec": row.spec, "players": row.players, "options": row.options})]
    for system, game in row.systems:
        loops = args.jax_loops if system in ("pgx", "ludax") else [None]
        for loop in loops:
            task = {"system": system, "game": game, "players": row.players, "batch": args.batch}
            if loop:
                task["loop"] = loop
            plans.append((system, task))
    results: dict[str, Any] = {"key": row.key, "label": row.label, "systems": []}
    workers: list[tuple[dict[str, Any], Worker]] = []
    try:
        for system, task in plans:
            task["min_cpu"] = args.min_cpu
            entry = {"system": system, "game": task.get("game", row.spec), "loop": task.get("loop"),
                     "label": label_of(system, task.get("game", row.spec), task.get("loop")), "reps": []}
            results["systems"].append(entry)
            why = missing(system)
            if why:
                entry["skipped"] = why
                progress(f"  skip {entry['label']}: {why}")
                continue
            progress(f"  set up {entry['label']}")
            worker = Worker(entry["label"], task, args.timeout)
            if not worker.ready.get("ready"):
                entry["skipped"] = f"failed: {worker.ready.get('error')}"
                progress(f"  skip {entry['label']}: {entry['skipped']}")
                worker.stop()
                continue
            entry["setup"] = worker.ready
            workers.append((entry, worker))
        for rep in range(args.reps):
            turn = workers[rep % len(workers):] + workers[:rep % len(workers)] if workers else []
            for entry, worker in turn:
                if "skipped" in entry:
                    continue
                got = worker.ask(rep + 1)
                if "error" in got:
                    entry["skipped"] = f"failed in repetition {rep + 1}: {got['error']}"
                    progress(f"  {entry['label']}: {entry['skipped']}")
                    continue
                got["round"] = rep
                entry["reps"].append(got)
            progress(f"  repetition {rep + 1}/{args.reps} done (load {os.getloadavg()[0]:.1f})")
    finally:
        for _, worker in workers:
            worker.stop()
    for entry in results["systems"]:
        summarise(entry)
    return results


def summarise(entry: dict[str, Any]) -> None:
    reps = entry["reps"]
    if not reps:
        return
    per_cpu = sorted(r["games"] / r["cpu"] for r in reps)
    per_wall = sorted(r["games"] / r["wall"] for r in reps)
    entry.update({
        "games_per_cpu_s": statistics.median(per_cpu), "cpu_min": per_cpu[0], "cpu_max": per_cpu[-1],
        "games_per_wall_s": statistics.median(per_wall), "wall_min": per_wall[0], "wall_max": per_wall[-1],
        "cpu_share": statistics.median(r["cpu"] / r["wall"] for r in reps),
        "threads": statistics.median(r["threads"] for r in reps),
        "actions_per_game": sum(r["actions"] for r in reps) / max(1, sum(r["games"] for r in reps)),
        "games_per_rep": reps[0]["games"], "unfinished": sum(r["unfinished"] for r in reps),
        "cpu_per_rep": statistics.median(r["cpu"] for r in reps),
    })


def paired(ours: dict[str, Any], theirs: dict[str, Any]) -> list[float]:
    """ours / theirs in each round alone (measured back to back), games per CPU second."""
    by_round = {r["round"]: r for r in theirs["reps"]}
    return sorted((a["games"] / a["cpu"]) / (by_round[a["round"]]["games"] / by_round[a["round"]]["cpu"])
                  for a in ours["reps"] if a["round"] in by_round)


def numba_compile(rounds: int, progress: Callable[[str], None]) -> dict[str, Any] | None:
    if missing("numba"):
        return None
    progress("numba compile times (benchmarks/native_ttt.py)")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "native_ttt.py"), "--compile-only",
                           "--compile-rounds", str(rounds), "--json"], cwd=str(ROOT), capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1][:300]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------- report


def environment() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions: dict[str, str | None] = {}
    for name in DISTRIBUTIONS:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}", "versions": versions,
            "venv": sys.prefix}


def machine_load() -> dict[str, Any]:
    """The load average, and how much of the last minute some task waited for a CPU."""
    load = os.getloadavg()
    pressure = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        first = Path("/proc/pressure/cpu").read_text().splitlines()[0]
        pressure = float(dict(part.split("=") for part in first.split()[1:])["avg60"])
    running = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        running = int(Path("/proc/loadavg").read_text().split()[3].split("/")[0])
    return {"load1": load[0], "load5": load[1], "load15": load[2], "cpu_pressure_avg60": pressure,
            "running": running, "at": time.strftime("%H:%M:%S")}


def fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    if value >= 100 or digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


def fastest_peer(row: dict[str, Any], loop: str = "jit") -> dict[str, Any] | None:
    measured = [s for s in row["systems"] if s["system"] in PEERS and "games_per_cpu_s" in s
                and s.get("loop") in (None, loop)]
    return max(measured, key=lambda s: s["games_per_cpu_s"], default=None)


def system_of(row: dict[str, Any], system: str, loop: str | None = "jit") -> dict[str, Any] | None:
    for entry in row["systems"]:
        if entry["system"] == system and entry.get("loop") in (None, loop):
            return entry
    return None


def cell(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return ""
    if "games_per_cpu_s" not in entry:
        return "skipped" if "skipped" in entry else "-"
    return f"{fmt(entry['games_per_cpu_s'])} ({fmt(entry['cpu_min'])}–{fmt(entry['cpu_max'])})"


def report(rows: list[dict[str, Any]], env: dict[str, Any], loads: list[dict[str, Any]],
           compile_times: dict[str, Any] | None, args: argparse.Namespace, seconds: float) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v) or "none"
    absent = [k for k, v in env["versions"].items() if not v]
    pressure = [x["cpu_pressure_avg60"] for x in loads if x["cpu_pressure_avg60"] is not None]
    lines = [
        "# Peers: random playouts beside OpenSpiel, Pgx and Ludax (issue 53)",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} by `python benchmarks/peers.py{' --quick' if args.quick else ''}` "
        f"in {seconds:.0f} s: {args.reps} repetitions of at least {args.min_cpu:g} CPU s each (whole batches for "
        f"JAX), batch {args.batch} for Pgx, Ludax and numba.",
        "",
        f"Machine: {env['cpu']}, {env['cores']} cores, Python {env['python']}, {env['system']}. Packages: {versions}"
        + (f"; not installed: {', '.join(absent)}" if absent else "") + ".",
        "",
        f"Load (shared machine, other work running): load average {min(x['load1'] for x in loads):.1f} to "
        f"{max(x['load1'] for x in loads):.1f} over the run (1-minute, on {env['cores']} cores)"
        + (f"; some task waiting for a CPU {min(pressure):.0f}% to {max(pressure):.0f}% of the time "
           "(/proc/pressure/cpu, avg60)" if pressure else "")
        + ". Hence games per CPU second as the figure (`time.process_time`, every thread of the "
          "process); wall-time figures are in the second table.",
        "",
        "## Games per CPU second: median (min–max over the repetitions)",
        "",
        "| game | rulespec | OpenSpiel C++ | Pgx | Ludax | rulespec / fastest peer | rounds' own ratios |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ours = system_of(row, OURS)
        best = fastest_peer(row)
        ratio = ratios = ""
        if ours and best and "games_per_cpu_s" in ours:
            ratio = f"{ours['games_per_cpu_s'] / best['games_per_cpu_s']:.3f} ({best['system']})"
            own = paired(ours, best)
            ratios = ", ".join(f"{r:.3f}" for r in own)
        lines.append(f"| {row['label']} | {cell(ours)} | {cell(system_of(row, 'openspiel'))} | "
                     f"{cell(system_of(row, 'pgx'))} | {cell(system_of(row, 'ludax'))} | {ratio} | {ratios} |")
    lines += ["", "Pgx and Ludax here: the loop in one `jax.jit`; a blank cell: the peer does not have the game.", ""]

    extra = [r for r in rows if any(s["system"] in ("yardstick", "numba") for s in r["systems"])
             or not r["systems"][1:]]
    if extra:
        lines += ["## Bases of the native engine's targets", "",
                  "| game | system | games/CPU s (min–max) | against rulespec | µs/action |", "|---|---|---|---|---|"]
        for row in extra:
            ours = system_of(row, OURS)
            for entry in row["systems"]:
                if entry["system"] not in (OURS, "yardstick", "numba"):
                    continue
                against = ""
                if ours and "games_per_cpu_s" in entry and "games_per_cpu_s" in ours and entry is not ours:
                    against = f"{entry['games_per_cpu_s'] / ours['games_per_cpu_s']:.2f}x"
                per_action = (f"{entry['cpu_per_rep'] / (entry['games_per_rep'] * entry['actions_per_game']) * 1e6:.3f}"
                              if "games_per_cpu_s" in entry and entry["actions_per_game"] else "")
                lines.append(f"| {row['label']} | {entry['label']} | {cell(entry)} | {against} | {per_action} |")
        lines.append("")

    lines += ["## Every measurement", "",
              "games/wall s: games per second of wall time (what the machine's other load left); CPU/wall: the "
              "share of the wall time on a CPU (the sum over threads; above 1 with two cores busy); threads: "
              "those that did a tenth or more of the busiest thread's work; setup: load, or compile and warm-up.",
              "", "| game | system | games/CPU s | games/wall s (min–max) | CPU/wall | threads | actions/game | "
              "games a repetition | setup s | compile s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for entry in row["systems"]:
            if "games_per_cpu_s" not in entry:
                lines.append(f"| {row['label']} | {entry['label']} | {entry.get('skipped', 'no figure')} "
                             "| | | | | | | |")
                continue
            setup = entry.get("setup", {})
            compile_s = setup.get("compile_s")
            lines.append(
                f"| {row['label']} | {entry['label']} | {fmt(entry['games_per_cpu_s'])} | "
                f"{fmt(entry['games_per_wall_s'])} ({fmt(entry['wall_min'])}–{fmt(entry['wall_max'])}) | "
                f"{entry['cpu_share']:.2f} | {entry['threads']:g} | {entry['actions_per_game']:.1f} | "
                f"{entry['games_per_rep']:,} | {setup.get('setup_s', 0):.1f} | "
                f"{'' if compile_s is None else f'{compile_s:.1f}'} |"
                + (f" ({entry['unfinished']} cut short)" if entry["unfinished"] else ""))
    lines.append("")

    lines += ["## Beside issue 53's table", "",
              "The issue's figures (games/s, measured on this kind of machine earlier) and this run's "
              "(games per CPU second).", "",
              "| game | rulespec: issue / now | OpenSpiel: issue / now | Pgx: issue / now | Ludax: issue / now |",
              "|---|---|---|---|---|"]
    for row in rows:
        if row["key"] not in ISSUE_TABLE:
            continue
        cells = []
        for then, system in zip(ISSUE_TABLE[row["key"]], (OURS, *PEERS)):
            entry = system_of(row, system)
            now = fmt(entry["games_per_cpu_s"]) if entry and "games_per_cpu_s" in entry else "-"
            cells.append(f"{fmt(then)} / {now}" if then is not None or now != "-" else "-")
        lines.append(f"| {row['label']} | " + " | ".join(cells) + " |")
    lines.append("")

    if compile_times:
        lines += ["## numba's compile time (benchmarks/native_ttt.py, its kernels)", ""]
        if "error" in compile_times:
            lines.append(f"Not measured: {compile_times['error']}")
        else:
            c = compile_times["compile"]
            lines.append(
                f"numba {compile_times['numba']}: {c['kernels']} kernels, each compile in a fresh process, "
                f"{c['rounds']} rounds, medians (wall min–max): cold (empty cache) {c['cold']['compile_s']:.2f} s "
                f"wall ({c['cold']['min']:.2f}–{c['cold']['max']:.2f}), {c['cold']['compile_cpu_s']:.2f} s CPU; "
                f"from the cache {c['cached']['compile_s']:.2f} s wall "
                f"({c['cached']['min']:.2f}–{c['cached']['max']:.2f}), {c['cached']['compile_cpu_s']:.2f} s CPU; "
                f"`import numba` on top: {c['cold']['import_numba_s']:.2f} s wall, "
                f"{c['cold']['import_numba_cpu_s']:.2f} s CPU. The cache: a folder of the user's, "
                "mode 0700, checked before use.")
        lines.append("")
    lines += ["## Load during the run", "", "| at | load 1 / 5 / 15 min | running tasks | CPU pressure avg60 % |",
              "|---|---|---|---|"]
    for x in loads:
        lines.append(f"| {x['at']} {x.get('what', '')} | {x['load1']:.1f} / {x['load5']:.1f} / {x['load15']:.1f} | "
                     f"{x['running'] if x['running'] is not None else '-'} | "
                     f"{'-' if x['cpu_pressure_avg60'] is None else format(x['cpu_pressure_avg60'], '.0f')} |")
    lines.append("")
    return "\n".join(lines)


NOTES = "## Reading"


def kept_section(path: Path) -> str:
    """The hand-written reading of the figures at the end of the report, kept as it was."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    at = old.find("\n" + NOTES)
    return old[at:] if at >= 0 else ""


def main() -> int:
    parser = argparse.ArgumentParser(description="rulespec's random playouts beside OpenSpiel, Pgx and Ludax")
    parser.add_argument("--quick", action="store_true", help="3 shorter repetitions; the JAX loop in jit only")
    parser.add_argument("--games", default=",".join(r.key for r in ROWS),
                        help=f"which rows (default all: {','.join(r.key for r in ROWS)})")
    parser.add_argument("--reps", type=int, help="repetitions (default 5, --quick 3)")
    parser.add_argument("--min-cpu", type=float, help="least CPU seconds of a repetition (default 1, --quick 0.3)")
    parser.add_argument("--batch", type=int, default=BATCH, help=f"the JAX peers' batch (default {BATCH})")
    parser.add_argument("--jax-loop", choices=("jit", "python", "both"),
                        help="the JAX peers' loop: in jit, in Python, or both (default both, --quick jit)")
    parser.add_argument("--timeout", type=float, default=1200, help="seconds a worker may take to answer")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "PEERS.md"), help="where to write the report")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve(json.loads(args.worker))
        return 0
    args.reps = args.reps or (3 if args.quick else 5)
    args.min_cpu = args.min_cpu or (0.3 if args.quick else 1.0)
    loop = args.jax_loop or ("jit" if args.quick else "both")
    args.jax_loops = ["jit", "python"] if loop == "both" else [loop]
    wanted = args.games.split(",")
    unknown = set(wanted) - {r.key for r in ROWS}
    if unknown:
        parser.error(f"unknown games: {', '.join(sorted(unknown))}")
    started = time.perf_counter()

    def progress(text: str) -> None:
        print(f"[{time.perf_counter() - started:5.0f} s] {text}", file=sys.stderr, flush=True)

    env = environment()
    progress(f"{env['cpu']}, {env['cores']} cores; {sys.prefix}")
    for system in (*PEERS, "numba", "yardstick"):
        why = missing(system)
        if why:
            print(f"skip {system}: {why}", flush=True)
    loads = [{**machine_load(), "what": "start"}]
    rows = []
    for row in ROWS:
        if row.key not in wanted:
            continue
        progress(row.label)
        rows.append(measure_row(row, args, progress))
        loads.append({**machine_load(), "what": f"after {row.key}"})
    compile_times = numba_compile(2 if args.quick else 3, progress) if "tictactoe" in wanted else None
    loads.append({**machine_load(), "what": "end"})
    text = report(rows, env, loads, compile_times, args, time.perf_counter() - started)
    print(text)
    out = Path(args.out)
    out.write_text(text + kept_section(out), encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(
        {"environment": env, "args": {k: v for k, v in vars(args).items() if k != "worker"}, "loads": loads,
         "rows": rows, "numba_compile": compile_times}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
