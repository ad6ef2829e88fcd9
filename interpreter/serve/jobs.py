"""One-off work of the playground, each in a worker process of its own: checking editor text
(``validate``) and bot simulations of a served spec (``simulate``).

Checking compiles the text exactly as ``rulespec validate`` does, as the file ``editor.yaml``
among the served files (it may `extends:` only them), and compares valid text with its base as
``rulespec diff`` does (the spec it `extends`, else the served spec the editor loaded).
A simulation plays its matches within ``--sim-cpu`` seconds of CPU: when they run out it stops
and reports the matches it finished, A and B alike (a comparison plays match i of both before match i + 1).
"""

from __future__ import annotations

import time
from typing import Any

from rulespec import SpecError
from rulespec.describe import describe
from rulespec.diff import diff_variant
from rulespec.errors import Diagnostic, format_diagnostic

from ..agents import AgentError
from ..analysis.compare import compare
from ..analysis.match_counts import MatchCounter
from ..analysis.simulate import (
    MatchError,
    MatchStopped,
    SimulationResult,
    match_seeds,
    run_match,
    seat_agents,
    simulate_game,
    tally_counts,
)
from ..analysis.summary import summarize
from ..errors import InterpreterError
from ..game import Game
from .bots import BOT_NAMES, capped_agent
from .errors import ServeError
from .limits import ServerLimits
from .room import payload_json
from .specs import EDITOR_FILE, ServedFiles, game_of, options_of, players_of, request_body

__all__ = ["Jobs", "diagnostics_json"]

EDITOR_DIFF_STEPS = 12  # the editor's text's own steps (merged sections, patches) shown one by one


def diagnostics_json(error: SpecError, file: str) -> list[dict[str, Any]]:
    """Each problem with its line and column (in ``file``; 0 when elsewhere) and the text
    ``rulespec validate`` prints for it."""
    return [_diagnostic_json(d, error.sources, file) for d in error.diagnostics]


def _diagnostic_json(d: Diagnostic, sources: dict[str, str], file: str) -> dict[str, Any]:
    here = d.span is not None and d.span.file == file
    return {"line": d.span.line if here and d.span else 0, "col": d.span.col if here and d.span else 0,
            "message": d.message, "hint": d.hint, "severity": d.severity,
            "file": d.span.file if d.span else None, "text": format_diagnostic(d, sources)}


class Jobs:
    """The one-off requests a job worker answers."""

    def __init__(self, files: ServedFiles, limits: ServerLimits):
        self.files = files
        self.limits = limits

    def handle(self, op: str, header: dict[str, Any], blobs: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        body = request_body(blobs)
        if op == "validate":
            return {}, [payload_json(self.validate(body.get("text"), body.get("base")))]
        if op == "simulate":
            return {}, [payload_json(self.simulate(body))]
        raise ServeError(f"unknown request {op!r}", 500)

    # ------------------------------------------------------------------ the editor
    def validate(self, text: Any, base: Any = None) -> dict[str, Any]:
        try:
            gamedef = self.files.editor_text(text)
        except SpecError as exc:
            count = len(exc.diagnostics)
            return {"ok": False, "diagnostics": diagnostics_json(exc, EDITOR_FILE),
                    "summary": f"{EDITOR_FILE}: {count} problem{'s' if count != 1 else ''}"}
        return {"ok": True, "diagnostics": [], "name": gamedef.model.name, "describe": describe(gamedef),
                "summary": f"{EDITOR_FILE}: ok ({gamedef.model.name})", "diff": self._diff(text, base)}

    def _diff(self, text: str, base: Any) -> dict[str, Any] | None:
        """What the valid editor text changes in its base: the spec its `extends` names, else the
        served spec ``base`` (the one the editor loaded); None when it has neither."""
        name = self.files.specs.get(base) if isinstance(base, str) else None
        try:
            found = diff_variant(EDITOR_FILE, text=text, files=self.files.files, max_steps=EDITOR_DIFF_STEPS)
            if found is None and name is not None:
                found = diff_variant(EDITOR_FILE, base_path=name, text=text, files=self.files.files,
                                     max_steps=EDITOR_DIFF_STEPS)
        except SpecError as exc:
            return {"problem": f"cannot compare with the base: {str(exc).splitlines()[0][:300]}"}
        return None if found is None else found.as_dict()

    # ------------------------------------------------------------------ simulations
    def simulate(self, body: dict[str, Any]) -> dict[str, Any]:
        limits = self.limits
        gamedef, file = self.files.served(body.get("spec"))
        game = game_of(gamedef, body.get("players"), body.get("options"))
        games = body.get("games", 20)
        if type(games) is not int or not 1 <= games <= limits.sim_games:
            raise ServeError(f"'games' must be a whole number from 1 to {limits.sim_games}")
        agents = body.get("agents") or ["random"]
        if not isinstance(agents, list) or not 1 <= len(agents) <= 64:
            raise ServeError(f"'agents' must list bots: {', '.join(BOT_NAMES)}")
        agents = [capped_agent(a, game, limits) for a in agents]
        seed = body.get("seed", 0)
        if type(seed) is not int or not 0 <= seed < 2**64:
            raise ServeError("'seed' must be a whole number from 0 to 2**64 - 1")
        games_to_run = [game]
        if body.get("variant") is not None or body.get("variant_players") is not None:
            games_to_run.append(self._variant(game, gamedef, body))
        for one in games_to_run:
            if len(agents) not in (1, one.num_players):
                raise ServeError(f"'agents': {len(agents)} bots for {one.num_players} players: give one bot for "
                                 "every seat, or one for all")
        deadline = time.process_time() + limits.sim_cpu
        results = self._run(games_to_run, file, games, agents, seed, deadline)
        if not results[0].records:
            raise ServeError(f"not one match finished within the {limits.sim_cpu:g} s of CPU this server gives a "
                             "simulation (--sim-cpu)", 422)
        summaries = []
        for result in results:
            summary = summarize(result)
            summary["spec"] = file
            summaries.append(summary)
        out: dict[str, Any] = {"summaries": summaries, "asked": games}
        played = len(results[0].records)
        if played < games:
            out["stopped"] = (f"stopped after {played} of {games} matches: this server gives a simulation "
                              f"{limits.sim_cpu:g} s of CPU (--sim-cpu)")
        if len(results) == 2:
            out["comparison"] = compare(results[0], results[1])
        return out

    def _variant(self, game: Game, gamedef: Any, body: dict[str, Any]) -> Game:
        """B of a comparison: the game as set, with the variant's options and player count."""
        variant = options_of(body.get("variant"))
        players = players_of(body.get("variant_players")) or game.num_players
        other = game_of(gamedef, players, {**game.options, **variant})
        if other.num_players == game.num_players and other.options == game.options:
            raise ServeError("the variant is the game as set: it changes neither an option nor the players, "
                             "so there is nothing to compare")
        return other

    def _run(self, games: list[Game], file: str, count: int, agents: list[str], seed: int,
             deadline: float) -> list[SimulationResult]:
        """Match i of every game, then match i + 1, until ``count`` matches or the deadline (a match
        the deadline stops is not counted, nor its twin of the other game)."""
        def spent() -> bool:
            return time.process_time() >= deadline

        try:
            results = [simulate_game(game, file, 0, agents, seed) for game in games]
            counters = [MatchCounter(game) for game in games]
            for index in range(count):
                records = []
                for game, result, counter in zip(games, results, counters):
                    state_seed, agent_seeds = match_seeds(seed, index, game.num_players)
                    records.append(run_match(game, seat_agents(result.agents, index, False), state_seed,
                                             agent_seeds, index, False, counter, stop=spent))
                for result, record in zip(results, records):
                    tally_counts([record], result.tally)
                    result.records.append(record)
        except MatchStopped:
            pass
        except (MatchError, InterpreterError, AgentError) as exc:
            raise ServeError(f"a match failed: {str(exc).splitlines()[0][:300]}", 422) from None
        return results
