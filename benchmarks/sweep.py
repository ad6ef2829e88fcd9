"""The Ray backend of `rulespec sweep` against local processes (issue 18): throughput of each.

    python benchmarks/sweep.py                   # 2,000 Highjack matches, 4 players, random agents
    python benchmarks/sweep.py --games 200       # quicker
    python benchmarks/sweep.py --repeat 2        # local, ray, local, ray: medians

Each measurement runs in a fresh process (so no compiled spec survives from the one before, and
the local backend never forks a process that Ray has threads in), in turn: the local backend with
``--jobs`` worker processes, then Ray started in that process with ``--jobs`` CPUs. A figure is
wall time of ``run_sweep`` (the matches, the workers' start and their compiling the spec);
Ray's own start (``ray.init``) is shown apart, and in the ratio "with start". Both runs must give
the same results (the digest of the sweep's JSON). Target: Ray >= 0.8 of the local throughput.

Not a test: the figures depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 0.8
SPEC = str(ROOT / "games" / "highjack.yaml")


def measure(backend: str, games: int, jobs: int, players: int, agents: str, seed: int) -> dict[str, float | str]:
    """One sweep in this process: its wall time, Ray's start time, and the digest of its results."""
    from interpreter.analysis.sweep import local_backend, plan_sweep, run_sweep, summarize_sweep, sweep_json

    plan = plan_sweep([SPEC], players=[players], games=games, agents=agents.split(","), seed=seed)
    startup = 0.0
    if backend == "ray":
        import ray

        from interpreter.analysis.sweep_ray import ray_backend

        start = time.perf_counter()
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        startup = time.perf_counter() - start
        chosen = ray_backend(jobs)
    else:
        chosen = local_backend(jobs)
    start = time.perf_counter()
    records = run_sweep(plan, chosen, workers=jobs)
    wall = time.perf_counter() - start
    digest = hashlib.sha256(sweep_json(plan, summarize_sweep(plan, records)).encode()).hexdigest()[:16]
    if backend == "ray":
        ray.shutdown()
    return {"backend": backend, "wall": wall, "startup": startup, "digest": digest}


def measure_apart(backend: str, args: argparse.Namespace) -> dict[str, float | str]:
    argv = [sys.executable, __file__, "--one", backend, "--games", str(args.games), "--jobs", str(args.jobs),
            "--players", str(args.players), "--agents", args.agents, "--seed", str(args.seed)]
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the {backend} measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--agents", default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--one", choices=("local", "ray"), help=argparse.SUPPRESS)  # a measurement's own process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.games, args.jobs, args.players, args.agents, args.seed)))
        return
    runs: dict[str, list[dict[str, float | str]]] = {"local": [], "ray": []}
    for _ in range(args.repeat):
        for backend in ("local", "ray"):
            runs[backend].append(measure_apart(backend, args))
            print(f"  {backend}: {runs[backend][-1]}", file=sys.stderr)
    report(args, runs)


def report(args: argparse.Namespace, runs: dict[str, list[dict[str, float | str]]]) -> None:
    wall = {b: statistics.median(float(r["wall"]) for r in rs) for b, rs in runs.items()}
    startup = statistics.median(float(r["startup"]) for r in runs["ray"])
    digests = {str(r["digest"]) for rs in runs.values() for r in rs}
    rate = {b: args.games / w for b, w in wall.items()}
    ratio = rate["ray"] / rate["local"]
    with_start = (args.games / (wall["ray"] + startup)) / rate["local"]
    print(f"Sweep of {args.games} Highjack matches, {args.players} players, agents {args.agents}, "
          f"{args.jobs} workers, median of {args.repeat} (cpu count {os.cpu_count()}, load {os.getloadavg()[0]:.1f})")
    print(f"  local --jobs {args.jobs}: {wall['local']:.1f} s, {rate['local']:.1f} matches/s")
    print(f"  ray, {args.jobs} CPUs:   {wall['ray']:.1f} s, {rate['ray']:.1f} matches/s "
          f"(ray.init took {startup:.1f} s more)")
    print(f"  ray / local throughput: {ratio:.2f} (target >= {TARGET}: {'met' if ratio >= TARGET else 'NOT met'}); "
          f"with Ray's start: {with_start:.2f}")
    print(f"  same results on both: {'yes' if len(digests) == 1 else 'NO: ' + ', '.join(sorted(digests))}")


if __name__ == "__main__":
    main()
