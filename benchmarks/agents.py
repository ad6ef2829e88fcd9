"""How strong are the bots? One agent against the others on the two seed games (issue 19).

    python benchmarks/agents.py                          # 200 matches per case, all cores
    python benchmarks/agents.py --games 40               # quicker, wider intervals
    python benchmarks/agents.py --agent mcts:1s:prior=1  # another agent
    python benchmarks/agents.py --case highjack-greedy   # one case (repeat --case for more)
    python benchmarks/agents.py --out benchmarks/RESULTS.md   # also append the table there
    python benchmarks/agents.py --oracle --agent mcts:400 --case highjack-greedy   # an upper bound

With ``--oracle`` the measured mcts agent cheats: its sampled worlds are copies of the real
state (every hidden card as it is; only the future draws re-randomised), so it measures how
far search at that budget could go if hidden information cost nothing, a bound on any honest
bot. The opponents are unchanged. Such a bot exists only here, never in the package.

Each case seats the agent once and fills the other seats with the opponent; the agent's
seat rotates every match, so it plays every seat equally often. Seeds are fixed: with an
iteration budget the figures are the same on every run and with any --jobs (a time
budget, `mcts:1s`, buys more or fewer iterations on another machine). The CPU time of
the agent's own decisions is measured per move and per match (issue 19: a Highjack 4p
match with the bot costs at most 2 s). High Hand matches are one round (`rounds=1`): a
round is what decides a winner, and a five-round match only amplifies the per-round
edge. A plain script, not a test: it takes tens of minutes.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import interpreter  # noqa: E402
from interpreter.agents import derive_seed, make_agent  # noqa: E402
from interpreter.analysis.stats import wilson  # noqa: E402

DEFAULT_AGENT = "mcts:prior=1"


class Case(NamedTuple):
    name: str
    spec: str
    players: int
    options: dict[str, Any]
    opponent: str
    target: float          # win share of the agent
    cpu_per_match: float | None = None  # seconds of the agent's CPU, at most


CASES = [
    Case("highhand2-greedy", "games/highhand.yaml", 2, {"rounds": 1}, "greedy", 0.75),
    Case("highhand4-greedy", "games/highhand.yaml", 4, {"rounds": 1, "partnerships": False}, "greedy", 0.40),
    Case("highjack-greedy", "games/highjack.yaml", 4, {}, "greedy", 0.60, 2.0),
    Case("highhand2-random", "games/highhand.yaml", 2, {}, "random", 0.60),
    Case("highjack-random", "games/highjack.yaml", 4, {}, "random", 0.40),
]


class OracleSampler:
    """``sampling.Sampler`` for a cheating search (``--oracle``): each world is the real state
    with a fresh random generator (it knows the hidden cards, not the draws to come)."""

    def __init__(self, state: Any, player: int):
        self.state = state

    def sample(self, rng: random.Random) -> Any:
        from interpreter import rng as RNG

        world = self.state.clone()
        world.rng = RNG.seed_state(rng.getrandbits(62))
        return world


class Outcome(NamedTuple):
    share: float   # 1 for a win, 1/k for a win shared by k seats, else 0
    cpu: float     # seconds the agent spent deciding
    moves: int     # decisions the agent made


_GAMES: dict[tuple[str, int, str], Any] = {}


def play(task: tuple[Case, str, int, int]) -> Outcome:
    case, agent, seed, index = task
    key = (case.spec, case.players, repr(sorted(case.options.items())))
    if key not in _GAMES:
        _GAMES[key] = interpreter.load_game(str(ROOT / case.spec), players=case.players, options=case.options)
    game = _GAMES[key]
    match_seed = derive_seed(seed, case.name, index)
    seat = index % case.players
    bots = [make_agent(agent if p == seat else case.opponent, game, p, derive_seed(match_seed, "agent", p))
            for p in range(case.players)]
    state = game.new_initial_state(match_seed % 2**31)
    chance = random.Random(derive_seed(match_seed, "chance"))
    cpu, moves = 0.0, 0
    while not state.is_terminal():
        player = state.current_player()
        if player < 0:
            action = state.sample_chance_outcome(chance)
        elif player == seat:
            start = time.process_time()
            action = bots[player].step(state)
            cpu += time.process_time() - start
            moves += 1
        else:
            action = bots[player].step(state)
        state.apply_action(action)
    winners = state.winners()
    return Outcome(1.0 / len(winners) if seat in winners else 0.0, cpu, moves)


def describe(case: Case) -> str:
    game = "High Hand" if "highhand" in case.spec else "Highjack"
    options = ", ".join(f"{k}={v}" for k, v in case.options.items())
    return f"{game} {case.players}p{f' ({options})' if options else ''}"


def run_case(case: Case, agent: str, games: int, jobs: int, seed: int, oracle: bool = False) -> tuple[str, bool]:
    tasks = [(case, agent, seed, i) for i in range(games)]
    start = time.perf_counter()
    outcomes: list[Outcome] = []
    with multiprocessing.Pool(jobs) if jobs > 1 else contextlib.nullcontext() as pool:
        for outcome in pool.imap(play, tasks) if pool is not None else map(play, tasks):
            outcomes.append(outcome)
            print(f"  {case.name}: {len(outcomes)}/{games} matches, agent won {sum(o.share for o in outcomes):g}",
                  end="\r", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    wall = time.perf_counter() - start
    wins = sum(o.share for o in outcomes)
    cpu = sum(o.cpu for o in outcomes)
    moves = sum(o.moves for o in outcomes)
    low, high = wilson(wins, games)
    rate = wins / games
    met = rate >= case.target
    cpu_match = cpu / games
    cpu_note = f"{cpu_match:.2f} s"
    if case.cpu_per_match is not None:
        met = met and cpu_match <= case.cpu_per_match
        cpu_note += f" (target <= {case.cpu_per_match:g} s)"
    shown = f"`{agent}` (oracle: sees the real state)" if oracle else f"`{agent}`"
    row = (f"| {describe(case)} | {case.players - 1} `{case.opponent}` | {shown} | {wins:g} of {games} = "
           f"{100 * rate:.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%) | >= {100 * case.target:.0f}% | "
           f"{1000 * cpu / max(moves, 1):.0f} ms | {cpu_note} | {'yes' if met else 'NO'} |")
    print(row, f"  [{wall:.0f} s wall, {jobs} jobs]", flush=True)
    return row, met


HEADER = ("| game | opponents | agent | agent won | target | agent CPU per move | agent CPU per match | met |\n"
          "|---|---|---|---|---|---|---|---|")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="matches per case (default 200)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: all cores)")
    parser.add_argument("--agent", default=DEFAULT_AGENT, help=f"the agent to measure (default: {DEFAULT_AGENT})")
    parser.add_argument("--case", action="append", choices=[c.name for c in CASES],
                        help="a case to run (default: the three against greedy)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", help="append the table to this Markdown file")
    parser.add_argument("--oracle", action="store_true",
                        help="the measured mcts agent sees the real state: a bound, not a bot")
    args = parser.parse_args()
    if args.oracle:
        if not args.agent.startswith("mcts"):
            parser.error("--oracle measures an mcts agent")
        from interpreter.agents import mcts

        mcts.Sampler = OracleSampler  # type: ignore[misc, assignment]  # before the workers fork
    chosen = [c for c in CASES if c.name in args.case] if args.case else [c for c in CASES if c.opponent == "greedy"]
    print(HEADER, flush=True)
    rows, failed = [], False
    for case in chosen:
        row, met = run_case(case, args.agent, args.games, args.jobs, args.seed, args.oracle)
        rows.append(row)
        failed = failed or not met
    if args.out:
        with open(args.out, "a", encoding="utf-8") as f:
            f.write(f"\n{HEADER}\n" + "\n".join(rows) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
