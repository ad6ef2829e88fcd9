"""The bots of one table, in a worker process of their own, at a low priority.

The worker keeps a copy of the match (the same seed, then every action the table applied:
``sync``), so a decision needs nothing but the seat: ``decide`` answers with the action the
seat's bot chooses, within the decision's CPU budget (``--bot-seconds``). A bot thinks on a
copy of that copy, so a decision cut short leaves the match as it was. ``capped_agent`` is the server's rule for what
a seat (or a simulation) may ask of a bot: no more than ``--bot-seconds`` per decision and
``--bot-iterations`` of search.
"""

from __future__ import annotations

from typing import Any

from ..agents import Agent, AgentError, derive_seed, make_agent, parse_agent_spec
from ..errors import InterpreterError
from ..game import Game
from ..state import State
from .errors import ServeError
from .limits import ServerLimits
from .specs import ServedFiles, game_of, request_body

__all__ = ["capped_agent", "BotTable", "HUMAN", "BOT_NAMES"]

HUMAN = "human"
BOT_NAMES = ("random", "greedy", "mcts")


def capped_agent(text: Any, game: Game, limits: ServerLimits) -> str:
    """An agent spec within the server's limits, as the agent names itself (``mcts`` ->
    ``mcts:200:1s``); a ServeError naming the limit when it asks for more."""
    if not isinstance(text, str):
        raise ServeError(f"a bot is one of {', '.join(BOT_NAMES)}")
    try:
        name, params = parse_agent_spec(text.strip())
    except AgentError as exc:
        raise ServeError(str(exc)) from None
    if name not in BOT_NAMES:
        raise ServeError(f"{text[:60]!r} is not a bot of this server ({', '.join(BOT_NAMES)})")
    seconds = limits.bot_seconds
    if name == "mcts":
        asked = params.get("time")
        if asked is not None and asked > seconds:
            raise ServeError(f"{text[:60]!r} asks {asked:g} s per decision; this server allows a bot at most "
                             f"{seconds:g} s (--bot-seconds)")
        params["time"] = min(asked if asked is not None else seconds, seconds)
        params.setdefault("iterations", min(200 if asked is None else limits.bot_iterations, limits.bot_iterations))
    what = "samples" if name == "greedy" else "iterations"
    search = params.get(what, 0)
    if isinstance(search, (int, float)) and search > limits.bot_iterations:
        raise ServeError(f"{text[:60]!r} asks for {search:g} {what}; this server allows at most "
                         f"{limits.bot_iterations} (--bot-iterations)")
    spec = name + "".join(f":{key}={value}" for key, value in params.items())
    try:
        return make_agent(spec, game, 0).label
    except AgentError as exc:
        raise ServeError(str(exc)) from None


class BotTable:
    """A table's bots: a copy of its match and one agent per bot seat."""

    def __init__(self, files: ServedFiles, limits: ServerLimits):
        self.files = files
        self.limits = limits
        self.game: Game | None = None
        self.state: State | None = None
        self.agents: dict[int, Agent] = {}

    def handle(self, op: str, header: dict[str, Any], blobs: list[bytes]) -> tuple[dict[str, Any], list[bytes]]:
        if op == "open":
            return self.open(header, request_body(blobs)), []
        if op == "sync":
            return self.sync(header.get("moves", [])), []
        if op == "decide":
            return self.decide(header), []
        raise ServeError(f"unknown request {op!r}", 500)

    def open(self, header: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        gamedef, _ = self.files.requested(body)
        game = game_of(gamedef, body.get("players"), body.get("options"))
        seed = int(header["seed"])
        self.game = game
        self.state = game.new_initial_state(seed)
        self.agents = {int(p): make_agent(str(kind), game, int(p), derive_seed(seed, "agent", int(p)))
                       for p, kind in header["bots"].items()}
        return {}

    def sync(self, moves: list[list[int]]) -> dict[str, Any]:
        """The moves the table applied since the last decision, applied to the copy."""
        if self.state is None:
            raise ServeError("the bots have no table", 500, fatal=True)
        try:
            for _, action in moves:
                self.state.apply_action(action)
        except (InterpreterError, TypeError, ValueError):
            raise ServeError("the bots lost track of the match", 500, fatal=True) from None
        return {}

    def decide(self, header: dict[str, Any]) -> dict[str, Any]:
        state = self.state
        if state is None:
            raise ServeError("the bots have no table", 500, fatal=True)
        seat = header["seat"]
        agent = self.agents.get(seat)
        if agent is None or state.current_player() != seat:
            raise ServeError("the bots lost track of the match", 500, fatal=True)
        try:
            return {"action": agent.step(state.clone())}
        except (InterpreterError, AgentError) as exc:
            raise ServeError(f"the bot of seat {seat} failed: {str(exc).splitlines()[0][:300]}", 422) from None
