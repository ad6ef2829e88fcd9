"""How strong are the bots? mcts against random on the two seed games.

    python benchmarks/agents.py                 # 200 matches each, all cores
    python benchmarks/agents.py --games 40      # quicker, wider intervals
    python benchmarks/agents.py --agent greedy  # the same figures for another agent

Two-player High Hand: the agent against one random bot (target: wins >= 60%).
Four-player Highjack: the agent against three random bots (target: wins >= 40%; a random
bot would win 25%). Seats rotate every match, so the agent plays every seat equally
often. Seeds are fixed: the figures are the same on every run and with any --jobs.
A plain script, not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter.simulate import simulate, summarize  # noqa: E402

CASES = [
    # (spec, players, target win rate of the agent)
    ("games/highhand.yaml", 2, 0.60),
    ("games/highjack.yaml", 4, 0.40),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="matches per game (default 200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    parser.add_argument("--agent", default="mcts", help="the agent to measure (default: mcts, its default budget)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    failed = False
    for spec, players, target in CASES:
        agents = [args.agent] + ["random"] * (players - 1)
        start = time.perf_counter()
        result = simulate(str(ROOT / spec), games=args.games, agents=agents, players=players, seed=args.seed,
                          jobs=args.jobs, rotate=True)
        elapsed = time.perf_counter() - start
        summary = summarize(result)
        row = next(a for a in summary["by_agent"] if a["agent"] != "random")
        wins, rate, (low, high) = row["wins"], row["win_rate"], row["ci"]
        verdict = "ok" if rate >= target else "BELOW TARGET"
        failed = failed or rate < target
        print(f"{result.game}, {players} players: {row['agent']} won {wins:g} of {args.games} matches = "
              f"{100 * rate:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%) against {players - 1} random; "
              f"target >= {100 * target:.0f}%: {verdict}; mean {summary['actions']['mean']:.0f} actions per match; "
              f"{elapsed:.0f} s with {args.jobs} jobs", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
