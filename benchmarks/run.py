"""Speed measurements (not tests): one table, and benchmarks/RESULTS.md.

    python benchmarks/run.py            # everything (a few minutes)
    python benchmarks/run.py --quick    # fewer repetitions

Every figure is the median of repeated runs of CPU time (time.process_time), so that other
processes on the machine disturb it as little as possible; ratios are taken between figures
measured in the same run, on the same machine, by the same driver loop:

    while not state.is_terminal():
        sample a chance outcome, or a uniformly random legal action; apply it

Compared: High Hand against the hand-written yardstick ../shared/yardstick/highhand_ref.py
(`--impl api`, imported by path, never copied), tic-tac-toe against OpenSpiel's
Python-written `python_tic_tac_toe`, goofspiel against OpenSpiel's C++ `goofspiel` (its
turn-based form, so the same sequential loop drives both).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import interpreter  # noqa: E402
from rulespec import compile_file  # noqa: E402

GAMES = ROOT / "games"
YARDSTICK = ROOT.parent / "shared" / "yardstick" / "highhand_ref.py"


def cpu(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def median_of(runs: int, fn: Callable[[], Any]) -> float:
    return statistics.median(cpu(fn) for _ in range(runs))


def random_loop(new_state: Callable[[int], Any], games: int, seed: int = 1) -> int:
    """The shared driver: plays ``games`` random games; returns the number of actions."""
    rng = random.Random(seed)
    rand = rng.random
    actions = 0
    for i in range(games):
        state = new_state(i)
        while not state.is_terminal():
            if state.is_chance_node():
                action = state.sample_chance_outcome(rng)
            else:
                legal = state.legal_actions()
                action = legal[int(rand() * len(legal))]
            state.apply_action(action)
            actions += 1
    return actions


# ---------------------------------------------------------------------- measurements


def compile_times(runs: int) -> list[dict[str, Any]]:
    rows = []
    compile_file(str(GAMES / "tictactoe.yaml"))  # build the parser once, as a running program would
    for path in sorted(GAMES.glob("*.yaml")):
        seconds = statistics.median(_wall(lambda p=path: compile_file(str(p))) for _ in range(runs))
        rows.append({"spec": path.name, "compile_ms": seconds * 1000})
    return rows


def _wall(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def playouts(games: int, runs: int) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(GAMES.glob("*.yaml")):
        probe = interpreter.load_game(str(path))
        cases = probe.variants or [{"name": "default", "players": None, "options": {}}]
        for case in cases:
            game = interpreter.load_game(str(path), players=case["players"], options=case["options"])
            counter: dict[str, int] = {}

            def run(g: Any = game, c: dict[str, int] = counter) -> None:
                c["actions"] = random_loop(g.new_initial_state, games)

            seconds = median_of(runs, run)
            clone_us, json_us = state_costs(game)
            rows.append({
                "spec": path.name, "variant": case["name"], "games_per_s": games / seconds,
                "actions_per_s": counter["actions"] / seconds, "actions_per_game": counter["actions"] / games,
                "clone_us": clone_us, "to_json_us": json_us,
            })
    return rows


def state_costs(game: Any, samples: int = 200) -> tuple[float, float]:
    """Median cost of clone() and of to_json() over states met in random games."""
    states = []
    rng = random.Random(7)
    seed = 0
    while len(states) < samples:
        state = game.new_initial_state(seed)
        seed += 1
        while not state.is_terminal() and len(states) < samples:
            if rng.random() < 0.2:
                states.append(state.clone())
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
    clone = statistics.median(_per_call(s.clone) for s in states)
    dump = statistics.median(_per_call(s.to_json) for s in states)
    return clone * 1e6, dump * 1e6


def _per_call(fn: Callable[[], Any], repeat: int = 20) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def yardstick_module() -> Any | None:
    if not YARDSTICK.exists():
        return None
    spec = importlib.util.spec_from_file_location("highhand_ref", YARDSTICK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ratio_high_hand(players: int, games: int, runs: int) -> dict[str, Any]:
    ref = yardstick_module()
    options = {"rounds": 1} if players == 2 else {"rounds": 1, "partnerships": False}
    game = interpreter.load_game(str(GAMES / "highhand.yaml"), players=players, options=options)
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(runs):  # interleaved, so both see the same machine
        ours.append(cpu(lambda: random_loop(game.new_initial_state, games)))
        if ref is not None:
            theirs.append(cpu(lambda: ref.run(players, games, 1, impl="api")))
    row: dict[str, Any] = {"comparison": f"High Hand {players}p vs yardstick --impl api",
                           "ours_games_per_s": games / statistics.median(ours), "target": 0.5}
    if theirs:
        row["theirs_games_per_s"] = games / statistics.median(theirs)
        row["ratio"] = row["ours_games_per_s"] / row["theirs_games_per_s"]
    return row


def ratio_openspiel(spec: str, pyspiel_game: Callable[[], Any], label: str, target: float, games: int,
                    runs: int) -> dict[str, Any]:
    game = interpreter.load_game(str(GAMES / spec))
    ours: list[float] = []
    theirs: list[float] = []
    other = pyspiel_game() if pyspiel_game else None
    for _ in range(runs):
        ours.append(cpu(lambda: random_loop(game.new_initial_state, games)))
        if other is not None:
            theirs.append(cpu(lambda: random_loop(lambda i: other.new_initial_state(), games)))
    row: dict[str, Any] = {"comparison": label, "ours_games_per_s": games / statistics.median(ours), "target": target}
    if theirs:
        row["theirs_games_per_s"] = games / statistics.median(theirs)
        row["ratio"] = row["ours_games_per_s"] / row["theirs_games_per_s"]
    return row


def openspiel_games() -> tuple[Callable[[], Any] | None, Callable[[], Any] | None]:
    try:
        import pyspiel
        from open_spiel.python.games import tic_tac_toe  # noqa: F401 - registers python_tic_tac_toe
    except ImportError:
        return None, None
    return (lambda: pyspiel.load_game("python_tic_tac_toe"),
            lambda: pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", {"points_order": "descending"})))


def profile_of(spec: str, players: int | None, options: dict[str, Any], games: int, top: int = 14) -> str:
    """Where a random playout spends its time: the functions with the most time of their own."""
    import cProfile
    import io
    import pstats

    game = interpreter.load_game(str(GAMES / spec), players=players, options=options)
    profiler = cProfile.Profile()
    profiler.enable()
    random_loop(game.new_initial_state, games)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    body = [line.replace(str(ROOT) + "/", "") for line in lines[start:]]
    total = next((line.strip() for line in lines if "function calls" in line), "")
    return "\n".join([f"`{spec}`, {players or 'default'} players, options {options}: {total}", "", "```",
                      *body, "```"])


def simulate_speedup(games: int) -> dict[str, Any] | None:
    """`rulespec simulate --jobs 2` against `--jobs 1`, wall time of the whole command."""
    exe = Path(sys.executable).parent / "rulespec"
    if not exe.exists():
        return None
    times = {}
    for jobs in (1, 2):
        cmd = [str(exe), "simulate", str(GAMES / "highjack.yaml"), "--games", str(games), "--jobs", str(jobs),
               "--seed", "1"]
        start = time.perf_counter()
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            return {"comparison": "simulate --jobs 2 vs --jobs 1", "error": result.stderr.strip()[-300:]}
        times[jobs] = time.perf_counter() - start
    return {"comparison": f"simulate --jobs 2 vs --jobs 1 (Highjack, {games} games, wall time)",
            "ours_games_per_s": games / times[2], "theirs_games_per_s": games / times[1],
            "ratio": times[1] / times[2], "target": 1.7}


# ---------------------------------------------------------------------- report


def machine() -> str:
    cpu_name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{cpu_name}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]]) -> str:
    head = "| " + " | ".join(title for _, title, _ in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    lines = [head, rule]
    for row in rows:
        cells = []
        for key, _, fmt in columns:
            value = row.get(key)
            cells.append("" if value is None else (format(value, fmt) if fmt else str(value)))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="rulespec speed benchmarks (not tests)")
    parser.add_argument("--quick", action="store_true", help="fewer games and repetitions")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "RESULTS.md"), help="where to write the report")
    parser.add_argument("--no-simulate", action="store_true", help="skip the simulate --jobs speed-up")
    args = parser.parse_args()
    runs = 3 if args.quick else 5
    scale = 1 if args.quick else 3

    compiled = compile_times(runs * 2)
    plays = playouts(games=20 * scale, runs=runs)
    ttt_game, goof_game = openspiel_games()
    ratios = [
        ratio_high_hand(4, 300 * scale, runs),
        ratio_high_hand(2, 120 * scale, runs),
        ratio_openspiel("tictactoe.yaml", ttt_game, "tic-tac-toe vs OpenSpiel python_tic_tac_toe", 1.0,
                        1000 * scale, runs),
        ratio_openspiel("goofspiel.yaml", goof_game, "goofspiel vs OpenSpiel C++ goofspiel (turn-based)", 0.25,
                        300 * scale, runs),
    ]
    if not args.no_simulate:
        speedup = simulate_speedup(2000)
        if speedup:
            ratios.append(speedup)
    for row in ratios:
        if "ratio" in row:
            row["met"] = "yes" if row["ratio"] >= row["target"] else "NO"

    report = [
        "# Benchmark results",
        "",
        f"Machine: {machine()}. Measured {time.strftime('%Y-%m-%d')} by `python benchmarks/run.py"
        f"{' --quick' if args.quick else ''}`;",
        "figures are medians of CPU time over repeated runs; ratios compare figures from the same run.",
        "",
        "## Ratios (targets of issue 8)",
        "",
        table(ratios, [("comparison", "comparison", ""), ("ours_games_per_s", "ours games/s", ".0f"),
                       ("theirs_games_per_s", "reference games/s", ".0f"), ("ratio", "ratio", ".2f"),
                       ("target", "target", ".2f"), ("met", "met", "")]),
        "",
        "## Load, validate and compile (median wall time, parser already built)",
        "",
        table(compiled, [("spec", "spec", ""), ("compile_ms", "ms", ".1f")]),
        "",
        "## Random playouts, and the cost of a state copy",
        "",
        table(plays, [("spec", "spec", ""), ("variant", "variant", ""), ("games_per_s", "games/s", ".1f"),
                      ("actions_per_s", "actions/s", ".0f"), ("actions_per_game", "actions/game", ".0f"),
                      ("clone_us", "clone() µs", ".1f"), ("to_json_us", "to_json() µs", ".1f")]),
        "",
    ]
    missed = {row["comparison"].split(" vs ")[0] for row in ratios if row.get("met") == "NO"}
    profiled = [("High Hand 4p", "highhand.yaml", 4, {"rounds": 1, "partnerships": False}, 150),
                ("High Hand 2p", "highhand.yaml", 2, {"rounds": 1}, 50),
                ("goofspiel", "goofspiel.yaml", None, {}, 300)]
    sections = [profile_of(spec, players, options, games)
                for name, spec, players, options, games in profiled if name in missed]
    if sections:
        report += ["## Where the time goes (missed targets)", "",
                   "cProfile of random playouts (profiling slows everything down; the proportions count).", ""]
        for section in sections:
            report += [section, ""]
    text = "\n".join(report)
    print(text)
    Path(args.out).write_text(text, encoding="utf-8")
    (Path(args.out).with_suffix(".json")).write_text(
        json.dumps({"compile": compiled, "playouts": plays, "ratios": ratios}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
