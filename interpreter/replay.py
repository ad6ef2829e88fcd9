"""Match logs: JSON lines that replay a match exactly.

A log holds one or more matches. Each match is a header line, then one line per action,
then (when the match ended) an end line::

    {"log": "rulespec-match", "version": 1, "spec": "games/x.yaml", "game": "X", "players": 2,
     "options": {...}, "seed": 17, "agents": ["human", "mcts"], "agent_seeds": [..], "match": 0, ...}
    {"player": 0, "action": 12, "label": "play 7"}
    ...
    {"end": true, "winners": [1], "totals": [3, 5], "returns": [0.0, 1.0], "actions": 42}

The state seed and the options make the match; agents and their seeds make the bots'
choices reproducible, so an interrupted ``play`` resumes from its log. Each line is
flushed as it is written: a log cut short is still a valid prefix.
``replay_match`` re-applies the actions and checks every player, label and the result.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from .state import CHANCE, State

__all__ = ["LOG_KIND", "LOG_VERSION", "LogError", "LoggedMatch", "LogWriter", "read_log", "load_logged_game",
           "replay_match", "match_header", "end_record"]

LOG_KIND = "rulespec-match"
LOG_VERSION = 1


class LogError(Exception):
    """A log that cannot be read, or a replay that does not match its log."""


@dataclass
class LoggedMatch:
    header: dict[str, Any]
    actions: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None
    path: str = "<log>"
    line: int = 1  # line of the header

    @property
    def complete(self) -> bool:
        return self.end is not None


def match_header(game: Any, spec: str, seed: int, agents: list[str], agent_seeds: list[int], match: int = 0,
                 base_seed: int | None = None) -> dict[str, Any]:
    header: dict[str, Any] = {
        "log": LOG_KIND, "version": LOG_VERSION, "spec": spec, "game": game.name, "players": game.num_players,
        "options": dict(game.options), "seed": seed, "agents": list(agents), "agent_seeds": list(agent_seeds),
        "match": match,
    }
    if base_seed is not None:
        header["base_seed"] = base_seed
    return header


def end_record(state: State) -> dict[str, Any]:
    return {"end": True, "winners": state.winners(), "totals": state.scores(), "returns": state.returns(),
            "actions": len(state.history)}


class LogWriter:
    """Writes match logs line by line, flushing each line."""

    def __init__(self, path: str, append: bool = False):
        self.path = path
        self.file: TextIO = open(path, "a" if append else "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self.file.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.file.flush()

    def header(self, header: dict[str, Any]) -> None:
        self.write(header)

    def action(self, player: int, action: int, label: str) -> None:
        self.write({"player": player, "action": action, "label": label})

    def end(self, state: State) -> None:
        self.write(end_record(state))

    def close(self) -> None:
        self.file.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def read_log(path: str) -> list[LoggedMatch]:
    """Every match of a log file (the last one may be unfinished)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as exc:
        raise LogError(f"{path}: cannot read the log: {exc.strerror or exc}") from None
    return list(_parse(lines, path))


def _parse(lines: list[str], path: str) -> Iterator[LoggedMatch]:
    current: LoggedMatch | None = None
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text:
            continue
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            if number == len(lines) and not raw.endswith("\n"):
                break  # a line cut short by an interruption: the log ends before it
            raise LogError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
        if not isinstance(record, dict):
            raise LogError(f"{path}:{number}: expected a JSON object")
        if record.get("log") == LOG_KIND:
            if record.get("version") != LOG_VERSION:
                raise LogError(f"{path}:{number}: unknown log version {record.get('version')!r}")
            for key in ("spec", "players", "options", "seed"):
                if key not in record:
                    raise LogError(f"{path}:{number}: the header has no '{key}'")
            if current is not None:
                yield current
            current = LoggedMatch(record, path=path, line=number)
            continue
        if current is None:
            raise LogError(f"{path}:{number}: a match log starts with a header line")
        if record.get("end"):
            current.end = record
        elif "action" in record:
            if current.end is not None:
                raise LogError(f"{path}:{number}: an action after the end of the match")
            current.actions.append(record)
        else:
            raise LogError(f"{path}:{number}: neither a header, an action nor an end line")
    if current is None:
        raise LogError(f"{path}: no match in this log")
    yield current


def _spec_path(logged: LoggedMatch) -> str:
    spec = str(logged.header["spec"])
    if os.path.exists(spec) or os.path.isabs(spec):
        return spec
    beside = os.path.join(os.path.dirname(os.path.abspath(logged.path)), spec)
    return beside if os.path.exists(beside) else spec


def load_logged_game(logged: LoggedMatch) -> Any:
    """The game of a logged match (its spec, player count and options)."""
    from .game import load_game

    header = logged.header
    return load_game(_spec_path(logged), players=int(header["players"]), options=dict(header["options"]))


def replay_match(logged: LoggedMatch, game: Any = None,
                 on_action: Callable[[State, int, int, int], None] | None = None,
                 verify_end: bool = True) -> State:
    """Re-apply a logged match and check it: every action's player and label, and the result.

    ``on_action(state, index, player, action)`` runs after each action.
    """
    if game is None:
        game = load_logged_game(logged)
    header = logged.header
    if header.get("game") not in (None, game.name):
        raise LogError(f"{logged.path}:{logged.line}: the log is of '{header.get('game')}', the spec of '{game.name}'")
    state = game.new_initial_state(int(header["seed"]))
    for i, record in enumerate(logged.actions):
        where = f"{logged.path}: action {i + 1}"
        if state.is_terminal():
            raise LogError(f"{where}: the match is already over, but the log goes on")
        player = state.current_player()
        action = checked_action(state, record, where)
        state.apply_action(action)
        if on_action is not None:
            on_action(state, i, player, action)
    if verify_end and logged.end is not None:
        if not state.is_terminal():
            raise LogError(f"{logged.path}: the log says the match ended, but it goes on after "
                           f"{len(logged.actions)} actions")
        got = end_record(state)
        for key in ("winners", "totals", "returns"):
            if key in logged.end and json.loads(json.dumps(got[key])) != logged.end[key]:
                raise LogError(f"{logged.path}: {key} differ: the log says {logged.end[key]}, the replay gives "
                               f"{got[key]}")
    return state


def checked_action(state: State, record: dict[str, Any], where: str) -> int:
    """The action of a log record, after checking it against the rules of ``state``."""
    player = state.current_player()
    action = record.get("action")
    if "player" in record and record["player"] != player and player != CHANCE:
        raise LogError(f"{where}: the log says player {record['player']} moves, the rules say {player}")
    if not isinstance(action, int) or action not in state.legal_actions():
        raise LogError(f"{where}: action {action!r} ({record.get('label', '?')}) is not legal here")
    label = state.action_to_string(action)
    if "label" in record and record["label"] != label:
        raise LogError(f"{where}: the log says '{record['label']}', the rules call action {action} '{label}'")
    return action

