"""One measurement in a fresh process, printed as one JSON object (used by benchmarks/run.py).

    PYTHONPATH=<tree> python benchmarks/worker.py '{"kind": "playout", ...}'

The same file measures the engine of the project and the engine of an older revision (a
`git worktree` of it, given by PYTHONPATH), so both are driven by the same code: nothing here
may use more of the engine than both have (``load_game``, the state's OpenSpiel-shaped API,
``rulespec.compile_file``, ``interpreter.analysis.simulate.run_match``). A fresh process per
measurement means nothing is warm: no memo (hand rankings, parsers) survives from an
earlier repetition. Times are CPU time (``time.process_time``) of the measured call only;
starting Python, importing and loading the game are outside it.

Kinds (each takes the fields shown; ``tree`` is the folder holding ``games/``):

    playout   spec players options games seed [costs]   random games, the shared driver loop
    mcts      spec players agents seed                    one match between the project's bots
    load      specs warm                                   compile_file cold, then its link (Game), then warm
    variants  spec                                         the spec's variants
    yardstick yardstick players games seed                 ../shared/yardstick/highhand_ref.py --impl api
    openspiel game games seed                              an OpenSpiel game, same driver loop
    profile   task top                                     cProfile of another task, top by tottime
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any


def sample_chance(state: Any, rng: random.Random) -> int:
    """A chance outcome by its probability, for states without ``sample_chance_outcome``
    (OpenSpiel's), drawn as ours draws it (one ``rng.random()``, cumulative)."""
    outcomes = state.chance_outcomes()
    x = rng.random()
    acc = 0.0
    for action, probability in outcomes:
        acc += probability
        if x < acc:
            return action
    return outcomes[-1][0]


def random_loop(new_state: Callable[[int], Any], games: int, seed: int, sampler: Callable | None = None) -> int:
    """The shared driver: ``games`` random games from state seeds seed*1e6+i; returns the actions.
    Chance outcomes come from the state's ``sample_chance_outcome``, or from ``sampler``."""
    rng = random.Random(seed)
    rand = rng.random
    actions = 0
    base = seed * 1_000_000
    for i in range(games):
        state = new_state(base + i)
        while not state.is_terminal():
            if state.is_chance_node():
                action = state.sample_chance_outcome(rng) if sampler is None else sampler(state, rng)
            else:
                legal = state.legal_actions()
                action = legal[int(rand() * len(legal))]
            state.apply_action(action)
            actions += 1
    return actions


PROFILER: Any = None  # set by the profile kind: only the measured call is profiled


def cpu(fn: Callable[[], Any]) -> tuple[float, Any]:
    if PROFILER is not None:
        PROFILER.enable()
    start = time.process_time()
    result = fn()
    seconds = time.process_time() - start
    if PROFILER is not None:
        PROFILER.disable()
    return seconds, result


def _engine() -> dict[str, Any]:
    import interpreter

    return {"engine": str(Path(interpreter.__file__).resolve().parent.parent)}


def playout(task: dict[str, Any]) -> dict[str, Any]:
    import interpreter

    game = interpreter.load_game(task["spec"], players=task.get("players"), options=task.get("options") or {})
    games = task["games"]
    seconds, actions = cpu(lambda: random_loop(game.new_initial_state, games, task["seed"]))
    out = {"cpu": seconds, "games": games, "actions": actions, **_engine()}
    if task.get("costs"):
        out["clone_us"], out["to_json_us"] = state_costs(game, task["seed"])
    return out


def state_costs(game: Any, seed: int, samples: int = 200) -> tuple[float, float]:
    """Median cost of clone() and of to_json() over states met in random games."""
    states: list[Any] = []
    rng = random.Random(seed)
    index = seed * 1_000_000
    while len(states) < samples:
        state = game.new_initial_state(index)
        index += 1
        while not state.is_terminal() and len(states) < samples:
            if rng.random() < 0.2:
                states.append(state.clone())
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])

    def per_call(fn: Callable[[], Any], repeat: int = 20) -> float:
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        return (time.perf_counter() - start) / repeat

    return (statistics.median(per_call(s.clone) for s in states) * 1e6,
            statistics.median(per_call(s.to_json) for s in states) * 1e6)


def mcts(task: dict[str, Any]) -> dict[str, Any]:
    import interpreter
    from interpreter.analysis.simulate import run_match

    game = interpreter.load_game(task["spec"], players=task["players"], options=task.get("options") or {})
    seed = task["seed"]
    agents = task["agents"]
    seconds, record = cpu(lambda: run_match(game, agents, seed, [seed * 100 + p for p in range(len(agents))]))
    return {"cpu": seconds, "actions": record.actions, "winners": record.winners, **_engine()}


def load(task: dict[str, Any]) -> dict[str, Any]:
    from interpreter.game import Game  # imported before timing: linking is measured, not importing
    from rulespec import compile_file

    rows = []
    for spec in task["specs"]:  # the first compile of the first spec also builds the parser: cold
        cold, gamedef = cpu(partial(compile_file, spec))
        link, _ = cpu(partial(Game, gamedef))  # tables, closures and (with a backend) generated code
        warm = [cpu(partial(compile_file, spec))[0] for _ in range(task["warm"])]
        rows.append({"spec": spec, "cold_ms": cold * 1000, "link_ms": link * 1000,
                     "warm_ms": statistics.median(warm) * 1000 if warm else None})
    return {"rows": rows, **_engine()}


def variants(task: dict[str, Any]) -> dict[str, Any]:
    import interpreter

    probe = interpreter.load_game(task["spec"])
    cases = probe.variants or [{"name": "default", "players": None, "options": {}}]
    return {"variants": [{"name": c["name"], "players": c["players"], "options": c["options"]} for c in cases]}


def yardstick(task: dict[str, Any]) -> dict[str, Any]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("highhand_ref", task["yardstick"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seconds, result = cpu(lambda: module.run(task["players"], task["games"], task["seed"], impl="api"))
    return {"cpu": seconds, "games": task["games"], "actions": result.get("mean_moves", 0) * task["games"]}


def openspiel(task: dict[str, Any]) -> dict[str, Any]:
    import pyspiel

    name = task["game"]
    if name == "python_tic_tac_toe":
        from open_spiel.python.games import tic_tac_toe  # noqa: F401 - registers python_tic_tac_toe
        game = pyspiel.load_game(name)
    elif name == "goofspiel":
        game = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", {"points_order": "descending"}))
    else:
        game = pyspiel.load_game(name)
    seconds, actions = cpu(lambda: random_loop(lambda i: game.new_initial_state(), task["games"], task["seed"],
                                                  sample_chance))
    return {"cpu": seconds, "games": task["games"], "actions": actions}


def profile(task: dict[str, Any]) -> dict[str, Any]:
    """cProfile of the measured calls of another task (not of its imports and loading)."""
    import cProfile
    import io
    import pstats

    global PROFILER
    inner = task["task"]
    profiler = PROFILER = cProfile.Profile()
    KINDS[inner["kind"]](inner)
    PROFILER = None
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(task.get("top", 15))
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
    total = next((line.strip() for line in lines if "function calls" in line), "")
    return {"total": total, "lines": lines[start:]}


KINDS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "playout": playout, "mcts": mcts, "load": load, "variants": variants, "yardstick": yardstick,
    "openspiel": openspiel, "profile": profile,
}


def main() -> int:
    task = json.loads(sys.argv[1])
    print(json.dumps(KINDS[task["kind"]](task)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
