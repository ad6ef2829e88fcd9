"""Information-set Monte Carlo tree search (single-observer IS-MCTS).

Each iteration samples one world consistent with the agent's own view
(``sampling.Sampler``: hidden cards redealt, future draws re-randomised), then walks
one shared tree of action sequences from the agent's information set: UCT among the
actions legal in that world (each child counts how often it was available), expands one
new action, plays a rollout of at most ``depth`` actions (random, or informed by ``rollout``), and scores the reached
state by the game's heuristic as each seat's margin over the best other seat (or by the
returns, when the match ended). Values are normalised among siblings, so no game needs
a tuned scale. The agent never reads the real hidden cards: only the samples.

    mcts               200 iterations, rollouts of 4 actions
    mcts:1000          1000 iterations
    mcts:500:depth=10  longer rollouts
    mcts:100:prior=1   each new node's actions first scored by one step of lookahead
                       (stronger per iteration, slower per iteration); prior=K counts
                       that score as K visits (a stronger bias towards it)
    mcts:100:rollout=1 informed rollouts: each rollout step plays the mover's best action
                       by one step of lookahead (rollout=0.5: half the steps, the rest
                       random); each such step costs a copy and a step per legal action
    mcts:100:prior=1:rollout=1:baseline=1
                       a control variate: every score of an iteration less its sampled
                       world's own score at the root (the luck of the hidden cards drawn,
                       the same for every action, no longer drowns their differences)
    mcts:1s            as many iterations as one second of CPU allows (also 250ms, time=0.5)
    mcts:1s:reuse=1    keep the subtree of the action played for the bot's next decision
                       when nothing happened in between (its own consecutive decisions)

A time budget counts CPU time of the process (``time.process_time``), so a loaded machine
gives the same budget; the number of iterations it buys varies, so a bot with a time budget
is not reproducible from its seed (an iteration count is). Tree reuse makes a decision
depend on the bot's previous search too: a match resumed from a log can differ from the
uninterrupted one where the bot had a tree to reuse.
"""

from __future__ import annotations

import math
import random
import time
from operator import add
from typing import TYPE_CHECKING, Any

from ..errors import RuleError
from ..sampling import Sampler
from . import Agent, AgentError, evaluate, whole

if TYPE_CHECKING:
    from ..game import Game
    from ..state import State

__all__ = ["MCTSAgent", "DEFAULT_ITERATIONS"]

DEFAULT_ITERATIONS = 200
DEFAULT_DEPTH = 4
DEFAULT_EXPLORATION = 0.7
MAX_ITERATIONS = 1_000_000
MAX_DEPTH = 10_000
MAX_PRIOR = 1000  # visits a new node's one-step score counts as
MAX_TIME = 3600.0  # seconds of CPU per decision


class _Node:
    __slots__ = ("children", "visits", "avail", "value")

    def __init__(self, players: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.value = [0.0] * players


class MCTSAgent(Agent):
    """``mcts[:ITERATIONS|:SECONDSs][:depth=D][:c=C][:prior=K][:rollout=P][:baseline=1][:time=T][:reuse=1]``."""

    name = "mcts"
    params = ("iterations", "depth", "c", "prior", "time", "reuse", "rollout", "baseline")

    def __init__(self, game: Game, player: int, seed: int = 0, iterations: Any = None,
                 depth: Any = DEFAULT_DEPTH, c: Any = DEFAULT_EXPLORATION, prior: Any = 0, time: Any = None,
                 reuse: Any = 0, rollout: Any = 0, baseline: Any = 0):
        super().__init__(game, player, seed)
        if time is not None and not (isinstance(time, (int, float)) and 0.001 <= time <= MAX_TIME):
            raise AgentError(f"mcts: time must be from 1ms to {MAX_TIME:g}s, not {time:g}s")
        self.time = None if time is None else float(time)
        if iterations is None:
            iterations = MAX_ITERATIONS if self.time is not None else DEFAULT_ITERATIONS
        iterations = whole(iterations, "mcts: iterations", 1, MAX_ITERATIONS)
        depth = whole(depth, "mcts: depth", 0, MAX_DEPTH)
        if not (math.isfinite(c) and 0 <= c <= 1000):
            raise AgentError(f"mcts: c must be a number from 0 to 1000, not {c:g}")
        prior = whole(prior, "mcts: prior", 0, MAX_PRIOR)
        self.iterations = int(iterations)
        self.depth = int(depth)
        self.c = float(c)
        self.prior = int(prior)
        self.reuse = bool(whole(reuse, "mcts: reuse", 0, 1))
        if not (isinstance(rollout, (int, float)) and math.isfinite(rollout) and 0 <= rollout <= 1):
            raise AgentError(f"mcts: rollout must be a share from 0 to 1, not {rollout:g}")
        #: the share of rollout steps that play the mover's best action by one step of lookahead
        self.rollout = float(rollout)
        #: score each iteration relative to its own sampled world's position at the root
        self.baseline = bool(whole(baseline, "mcts: baseline", 0, 1))
        #: iterations dropped because the rules failed in their sampled world
        self.worlds_dropped = 0
        #: with reuse: the history at the last decision plus the action played, and its subtree
        self._kept: tuple[list[int], _Node] | None = None

    @property
    def label(self) -> str:
        if self.time is None:
            budget = str(self.iterations)
        else:
            budget = _duration_text(self.time)
            if self.iterations != MAX_ITERATIONS:
                budget = f"{self.iterations}:{budget}"
        extra = ""
        if self.prior:
            extra += f":prior={self.prior}"
        if self.reuse:
            extra += ":reuse=1"
        if self.rollout:
            extra += f":rollout={self.rollout:g}"
        if self.baseline:
            extra += ":baseline=1"
        if self.depth != DEFAULT_DEPTH:
            extra += f":depth={self.depth}"
        if self.c != DEFAULT_EXPLORATION:
            extra += f":c={self.c:g}"
        return f"{self.name}:{budget}{extra}"

    def choose(self, state: State, legal: list[int], rng: random.Random) -> int:
        n = self.game.num_players
        root = self._kept_root(state) or _Node(n)
        worlds = Sampler(state, self.player)
        deadline = None if self.time is None else time.process_time() + self.time
        for _ in range(self.iterations):
            self._iterate(root, worlds.sample(rng), rng, n)
            if deadline is not None and time.process_time() >= deadline:
                break
        if not any(child.visits for child in root.children.values()):
            return legal[rng.randrange(len(legal))]  # the rules failed in every world sampled
        # the most visited action; among equals, the best average for this seat
        def rank(action: int) -> tuple[int, float]:
            child = root.children.get(action)
            if child is None or child.visits == 0:
                return (0, -math.inf)
            return (child.visits, child.value[self.player] / child.visits)

        action = max(legal, key=rank)
        if self.reuse and action in root.children:
            self._kept = (state.history + [action], root.children[action])
        return action

    def _kept_root(self, state: State) -> _Node | None:
        """The subtree kept from the last decision when this one follows it directly."""
        kept, self._kept = self._kept, None
        if kept is None or kept[0] != state.history:
            return None
        return kept[1]

    def _iterate(self, root: _Node, world: State, rng: random.Random, n: int) -> None:
        """One iteration in ``world``. A world in which the rules fail is not a possible one (a
        redeal ignores what the rules imply about hidden cards: two hidden placements may
        overlap): the iteration is dropped, and the nodes it added with it."""
        path = [root]
        try:
            self._play_out(root, world, rng, n, path)
        except RuleError:
            self.worlds_dropped += 1
            for node in path:
                for action in [a for a, child in node.children.items() if not child.visits]:
                    del node.children[action]

    def _play_out(self, root: _Node, world: State, rng: random.Random, n: int, path: list[_Node]) -> None:
        game = self.game
        prior = self.prior
        # the world's own score at the root: subtracted from every score of this iteration, it
        # cancels what the sampled hidden cards add or take away, the same for every action
        base = evaluate(game, world) if self.baseline else [0.0] * n
        node = root
        # selection, then expansion of the first node with actions never tried
        while not world.over:
            pending = world.pending
            if pending is None or pending.player < 0:  # a chance node: sample it, it is not a decision
                world.apply_action(world.sample_chance_outcome(rng))
                continue
            mover = pending.player
            legal = pending.legal  # only read here (legal_actions() would copy it)
            children = node.children
            fresh = []
            for a in legal:
                child = children.get(a)
                if child is None:
                    fresh.append(a)
                else:
                    child.avail += 1
            if fresh and not prior:
                action = fresh[rng.randrange(len(fresh))]
                children[action] = _Node(n)
                children[action].avail = 1
            else:
                for a in fresh:  # one step of lookahead seeds each new child with `prior` visits
                    child = children[a] = _Node(n)
                    after = world.clone()
                    after.apply_action(a)
                    child.value = [(v - b) * prior for v, b in zip(evaluate(game, after), base)]
                    child.visits = prior
                    child.avail = 1
                action = self._select(node, legal, mover, rng)
            node = children[action]
            world.apply_action(action)
            path.append(node)
            if fresh:
                break
        # rollout
        informed = self.rollout
        getrandbits = rng.getrandbits
        steps = 0
        while not world.over and steps < self.depth:
            pending = world.pending
            if pending is None or pending.player < 0:
                world.apply_action(world.sample_chance_outcome(rng))
            else:
                legal = pending.legal
                if informed and len(legal) > 1 and (informed >= 1 or rng.random() < informed):
                    world.apply_action(self._best_step(world, legal, pending.player, rng))
                else:  # rng.randrange(len(legal)), written out: the same draws, two calls fewer a step
                    size = len(legal)
                    k = size.bit_length()
                    i = getrandbits(k)
                    while i >= size:
                        i = getrandbits(k)
                    world.apply_action(legal[i])
            steps += 1
        values = evaluate(game, world)
        if self.baseline:
            values = [v - b for v, b in zip(values, base)]
        for node in path:
            node.visits += 1
            node.value = list(map(add, node.value, values))

    def _best_step(self, world: State, legal: list[int], mover: int, rng: random.Random) -> int:
        """The mover's best action in this world by one step of lookahead (ties at random)."""
        game = self.game
        best_value = -math.inf
        best: list[int] = []
        for a in legal:
            after = world.clone()
            after.apply_action(a)
            value = evaluate(game, after)[mover]
            if value > best_value + 1e-9:
                best_value, best = value, [a]
            elif value >= best_value - 1e-9:
                best.append(a)
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

    def _select(self, node: _Node, legal: list[int], mover: int, rng: random.Random) -> int:
        kids = list(map(node.children.__getitem__, legal))
        means = [child.value[mover] / child.visits for child in kids]
        low = min(means)
        spread = max(means) - low
        best_score = -math.inf
        best: list[int] = []
        c = self.c
        log, sqrt = math.log, math.sqrt
        for a, mean, child in zip(legal, means, kids):
            q = (mean - low) / spread if spread > 0 else 0.5
            score = q + c * sqrt(log(child.avail) / child.visits)
            if score > best_score + 1e-12:
                best_score, best = score, [a]
            elif score >= best_score - 1e-12:
                best.append(a)
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


def _duration_text(seconds: float) -> str:
    if seconds < 1 and round(seconds * 1000) == seconds * 1000:
        return f"{seconds * 1000:g}ms"
    return f"{seconds:g}s"
