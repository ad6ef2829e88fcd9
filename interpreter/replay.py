"""Match logs: JSON lines that replay a match exactly.

A log holds one or more matches. Each match is a header line, then one line per action,
then (when the match ended) an end line::

    {"log": "rulespec-match", "version": 1, "spec": "x.yaml", "game": "X", "players": 2,
     "options": {...}, "seed": 17, "agents": ["human", "mcts"], "agent_seeds": [..], "match": 0, ...}
    {"player": 0, "action": 12, "label": "play 7"}
    ...
    {"end": true, "winners": [1], "totals": [3, 5], "returns": [0.0, 1.0], "actions": 42}

The state seed and the options make the match; agents and their seeds make the bots'
choices reproducible, so an interrupted ``play`` resumes from its log. Each line is
flushed as it is written: a log cut short is still a valid prefix.

A log is untrusted input. ``iter_log`` reads it in binary with bounds (file size, line
length, nesting, number sizes), decodes each line as UTF-8 and checks every field of every
record, so a malformed log is one ``LogError`` naming ``file:line``. The ``spec`` of a
header is a path relative to the log's own folder and is only followed while it stays
below that folder (or below an explicit ``root``): never absolute, never ``..`` out, never
through a symbolic link that leads out. ``check_logged_game``, ``checked_action`` and
``check_rest`` are the one checker shared by ``replay_match`` (and so ``play --resume``)
and the console replay (``rulespec replay``).
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from .errors import InterpreterError, OptionError
from .state import CHANCE, State

__all__ = ["LOG_KIND", "LOG_VERSION", "LogError", "LoggedMatch", "LogWriter", "read_log", "iter_log",
           "load_logged_game", "log_spec_path", "replay_match", "match_header", "end_record", "checked_action",
           "check_logged_game", "check_rest", "MAX_LOG_BYTES", "MAX_LINE_BYTES", "MAX_SEED"]

LOG_KIND = "rulespec-match"
LOG_VERSION = 1

MAX_LOG_BYTES = 256 * 1024 * 1024  # a log file larger than this is refused
MAX_LINE_BYTES = 32 * 1024  # one line (one record)
MAX_SEED = 2**64  # seeds are whole numbers from 0 to 2**64 - 1
MAX_PLAYERS = 1000
MAX_ACTION = 2**63
MAX_NAME = 1000  # characters of a game name, an agent, a label, an option name or text value
MAX_SPEC_PATH = 4096
MAX_INT_DIGITS = 1300  # a 4096-bit number has 1234 digits: the largest integer the rules can make


class LogError(InterpreterError, ValueError):
    """A log that cannot be read, or a replay that does not match its log (names ``file:line``)."""


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


def spec_relative_to(log_path: str, spec: str) -> str:
    """``spec`` as a path relative to the folder of ``log_path`` (how a log names its spec)."""
    try:
        rel = os.path.relpath(os.path.abspath(spec), os.path.dirname(os.path.abspath(log_path)))
    except ValueError:  # another drive (Windows): no relative path exists
        return spec
    return rel.replace(os.sep, "/")


class LogWriter:
    """Writes match logs line by line, flushing each line.

    A header's ``spec`` is written relative to the log's folder, where ``replay`` looks for it.
    """

    def __init__(self, path: str, append: bool = False):
        self.path = path
        self.file: TextIO = open(path, "a" if append else "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self.file.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.file.flush()

    def header(self, header: dict[str, Any]) -> None:
        if isinstance(header.get("spec"), str):
            header = {**header, "spec": spec_relative_to(self.path, header["spec"])}
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


# ====================================================================== reading (untrusted)


def _short(value: Any, limit: int = 80) -> str:
    """A value of a log, shown in a message: repr, cut to ``limit`` characters."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"a number of {len(text)} digits is too large")
    return int(text)


def _loads(text: str) -> Any:
    return json.loads(text, parse_constant=_no_constant, parse_float=_float, parse_int=_int)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value: Any, limit: int = MAX_NAME) -> bool:
    return isinstance(value, str) and len(value) <= limit and value.isprintable()


def _check_int(record: dict[str, Any], key: str, where: str, low: int, high: int, what: str) -> None:
    value = record[key]
    if not _is_int(value) or not low <= value < high:
        raise LogError(f"{where}: '{key}' must be {what}, not {_short(value)}")


def _check_header(record: dict[str, Any], where: str) -> None:
    version = record.get("version")
    if not _is_int(version) or version != LOG_VERSION:
        raise LogError(f"{where}: unknown log version {_short(version)}")
    for key in ("spec", "players", "options", "seed"):
        if key not in record:
            raise LogError(f"{where}: the header has no '{key}'")
    spec = record["spec"]
    if not _is_text(spec, MAX_SPEC_PATH) or not spec:
        raise LogError(f"{where}: 'spec' must be the path of a spec file, not {_short(spec)}")
    if "game" in record and not _is_text(record["game"]):
        raise LogError(f"{where}: 'game' must be the name of a game, not {_short(record['game'])}")
    _check_int(record, "players", where, 1, MAX_PLAYERS + 1, f"a whole number from 1 to {MAX_PLAYERS}")
    players = record["players"]
    _check_int(record, "seed", where, 0, MAX_SEED, "a whole number from 0 to 2**64 - 1")
    options = record["options"]
    if not isinstance(options, dict):
        raise LogError(f"{where}: 'options' must be a mapping of option names to values, not {_short(options)}")
    for key, value in options.items():
        if not _is_text(key) or not key:
            raise LogError(f"{where}: 'options' has a bad option name {_short(key)}")
        if not (isinstance(value, (bool, int, float)) or _is_text(value)):
            raise LogError(f"{where}: option '{key}' must be a number, true/false or a short text, "
                           f"not {_short(value)}")
    if "agents" in record:
        agents = record["agents"]
        if (not isinstance(agents, list) or len(agents) != players
                or not all(_is_text(a, 200) and a.strip() for a in agents)):
            raise LogError(f"{where}: 'agents' must be a list of {players} agent names, not {_short(agents)}")
    if "agent_seeds" in record:
        seeds = record["agent_seeds"]
        if (not isinstance(seeds, list) or len(seeds) != players
                or not all(_is_int(s) and 0 <= s < MAX_SEED for s in seeds)):
            raise LogError(f"{where}: 'agent_seeds' must be a list of {players} whole numbers from 0 to "
                           f"2**64 - 1, not {_short(seeds)}")
    if "match" in record:
        _check_int(record, "match", where, 0, MAX_ACTION, "a whole number of at least 0")
    if "base_seed" in record:
        _check_int(record, "base_seed", where, 0, MAX_SEED, "a whole number from 0 to 2**64 - 1")


def _check_action_record(record: dict[str, Any], where: str) -> None:
    _check_int(record, "action", where, 0, MAX_ACTION, "an action id (a whole number of at least 0)")
    if "player" in record:
        _check_int(record, "player", where, CHANCE, MAX_PLAYERS, "a seat number (or -1 for chance)")
    if "label" in record and not isinstance(record["label"], str):
        raise LogError(f"{where}: 'label' must be text, not {_short(record['label'])}")


def _check_end_record(record: dict[str, Any], where: str) -> None:
    for key in ("winners", "totals", "returns"):
        if key in record and not isinstance(record[key], list):
            raise LogError(f"{where}: '{key}' must be a list, not {_short(record[key])}")
    if "actions" in record:
        _check_int(record, "actions", where, 0, MAX_ACTION, "a whole number of at least 0")


def _lines(path: str) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, ended by a newline) for each line of the file, within the bounds."""
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise LogError(f"{path}: cannot read the log: {exc.strerror or exc}") from None
    with handle:
        try:
            info = os.fstat(handle.fileno())
        except OSError as exc:
            raise LogError(f"{path}: cannot read the log: {exc.strerror or exc}") from None
        if not stat.S_ISREG(info.st_mode):
            raise LogError(f"{path}: not a log file (a log is a regular file of JSON lines)")
        total = 0
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise LogError(f"{path}: cannot read the log: {exc.strerror or exc}") from None
            if not raw:
                return
            number += 1
            total += len(raw)
            if total > MAX_LOG_BYTES:
                raise LogError(f"{path}:{number}: the log is longer than {MAX_LOG_BYTES:,} bytes")
            ended = raw.endswith(b"\n")
            if len(raw) > MAX_LINE_BYTES and not (ended and len(raw) == MAX_LINE_BYTES + 1):
                raise LogError(f"{path}:{number}: the line is longer than {MAX_LINE_BYTES} bytes")
            yield number, raw, ended


def iter_log(path: str) -> Iterator[LoggedMatch]:
    """Every match of a log file, one at a time (the last one may be unfinished).

    Raises ``LogError`` (``file:line: ...``) at the first line that is not a valid record.
    """
    current: LoggedMatch | None = None
    for number, raw, ended in _lines(path):
        where = f"{path}:{number}"
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            if not ended:
                break  # a line cut short (inside a character) by an interruption: the log ends before it
            raise LogError(f"{where}: not UTF-8 text (byte {exc.start + 1} of the line)") from None
        if not text:
            continue
        try:
            record = _loads(text)
        except RecursionError:
            raise LogError(f"{where}: not a log record (JSON nested too deeply)") from None
        except ValueError as exc:
            if not ended:
                break  # a line cut short by an interruption: the log ends before it
            message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise LogError(f"{where}: not a JSON line ({message})") from None
        if not isinstance(record, dict):
            raise LogError(f"{where}: expected a JSON object")
        if record.get("log") == LOG_KIND:
            _check_header(record, where)
            if current is not None:
                yield current
            current = LoggedMatch(record, path=path, line=number)
            continue
        if "log" in record:
            raise LogError(f"{where}: not a rulespec match log (log {_short(record['log'])})")
        if current is None:
            raise LogError(f"{where}: a match log starts with a header line")
        if "end" in record:
            if record["end"] is not True:
                raise LogError(f"{where}: 'end' must be true, not {_short(record['end'])}")
            if current.end is not None:
                raise LogError(f"{where}: a second end line for the match")
            _check_end_record(record, where)
            current.end = record
        elif "action" in record:
            if current.end is not None:
                raise LogError(f"{where}: an action after the end of the match")
            _check_action_record(record, where)
            current.actions.append(record)
        else:
            raise LogError(f"{where}: neither a header, an action nor an end line")
    if current is None:
        raise LogError(f"{path}: no match in this log")
    yield current


def read_log(path: str) -> list[LoggedMatch]:
    """Every match of a log file (the last one may be unfinished)."""
    return list(iter_log(path))


def _below(path: str, top: str) -> bool:
    try:
        return os.path.commonpath([path, top]) == top
    except ValueError:
        return False


def log_spec_path(logged: LoggedMatch, root: str | None = None) -> str:
    """The spec file a log names, resolved inside the log's folder (or below ``root``).

    The ``spec`` of a header is untrusted: it must be a relative path that, joined to the
    log's folder and with every symbolic link followed, stays below ``root`` (default: the
    log's folder) and names a regular file. The file is not opened here.
    """
    spec = logged.header["spec"]
    where = f"{logged.path}:{logged.line}"
    shown = _short(spec)
    if not isinstance(spec, str) or not spec or "\0" in spec:
        raise LogError(f"{where}: 'spec' must be the path of a spec file, not {shown}")
    if os.path.isabs(spec) or spec.startswith(("/", "\\")) or os.path.splitdrive(spec)[0]:
        raise LogError(f"{where}: the spec {shown} is an absolute path; a log names its spec relative to "
                       f"the log's folder")
    folder = os.path.dirname(os.path.abspath(logged.path))
    top = os.path.realpath(root if root is not None else folder)
    real = os.path.realpath(os.path.join(folder, spec))
    if not _below(real, top):
        allowed = "below the --root folder" if root is not None else "in the log's folder (or below --root DIR)"
        raise LogError(f"{where}: the spec {shown} is outside the folders a log may name: it must be {allowed}")
    try:
        mode = os.stat(real).st_mode
    except OSError:
        raise LogError(f"{where}: the spec {shown} of the log is not there") from None
    if not stat.S_ISREG(mode):
        raise LogError(f"{where}: the spec {shown} of the log is not a file")
    return real


def load_logged_game(logged: LoggedMatch, root: str | None = None, spec: str | None = None) -> Any:
    """The game of a logged match (its spec, player count and options).

    The spec is the one the log names, found by ``log_spec_path`` (inside the log's folder
    or below ``root``), unless ``spec`` gives a trusted path; a player count or options the
    spec does not allow are a ``LogError`` at the header.
    """
    from .game import load_game

    header = logged.header
    if spec is None:
        spec = log_spec_path(logged, root)
        if root is None:
            root = os.path.dirname(os.path.abspath(logged.path))
    try:
        return load_game(spec, players=header["players"], options=dict(header["options"]), root=root)
    except OptionError as exc:
        raise LogError(f"{logged.path}:{logged.line}: {exc}") from None


# ====================================================================== checking (one checker for every replay)


def check_logged_game(logged: LoggedMatch, game: Any) -> None:
    """The header agrees with the game it is replayed with (name, players, options)."""
    header = logged.header
    where = f"{logged.path}:{logged.line}"
    if header.get("game") not in (None, game.name):
        raise LogError(f"{where}: the log is of '{header.get('game')}', the spec of '{game.name}'")
    if header.get("players") != game.num_players:
        raise LogError(f"{where}: the log is of {_short(header.get('players'))} players, the game of "
                       f"{game.num_players}")
    options = header.get("options") or {}
    for key, value in options.items():
        if key in game.options and game.options[key] != value:
            raise LogError(f"{where}: option '{key}' is {_short(value)} in the log, {_short(game.options[key])} "
                           f"in the game")


def checked_action(state: State, record: dict[str, Any], where: str) -> int:
    """The action of a log record, after checking it against the rules of ``state``."""
    if state.is_terminal():
        raise LogError(f"{where}: the match is already over, but the log goes on")
    player = state.current_player()
    action = record.get("action")
    if "player" in record and record["player"] != player and player != CHANCE:
        raise LogError(f"{where}: the log says player {_short(record['player'])} moves, the rules say {player}")
    if not _is_int(action) or action not in state.legal_actions():
        raise LogError(f"{where}: action {_short(action)} ({_short(record.get('label', '?'))}) is not legal here")
    label = state.action_to_string(action)
    if "label" in record and record["label"] != label:
        raise LogError(f"{where}: the log says {_short(record['label'], 200)}, the rules call action {action} "
                       f"'{label}'")
    return action


def check_rest(logged: LoggedMatch, state: State, applied: int, where: str, verify_end: bool = True) -> None:
    """After ``applied`` actions of the log: nothing left over, and the end agrees with the log."""
    if applied < len(logged.actions):
        raise LogError(f"{where}: action {applied + 1}: the match is already over, but the log goes on")
    if not verify_end or logged.end is None:
        return
    if not state.is_terminal():
        raise LogError(f"{where}: the log says the match ended, but it goes on after {applied} actions")
    got = end_record(state)
    for key in ("winners", "totals", "returns", "actions"):
        if key in logged.end and json.loads(json.dumps(got[key])) != logged.end[key]:
            raise LogError(f"{where}: {key} differ: the log says {_short(logged.end[key], 200)}, the replay gives "
                           f"{got[key]}")


def replay_match(logged: LoggedMatch, game: Any = None,
                 on_action: Callable[[State, int, int, int], None] | None = None,
                 verify_end: bool = True, root: str | None = None) -> State:
    """Re-apply a logged match and check it: the header, every action's player and label, and the result.

    ``on_action(state, index, player, action)`` runs after each action. Without ``game``,
    the game is the log's spec (``load_logged_game(logged, root)``).
    """
    if game is None:
        game = load_logged_game(logged, root)
    check_logged_game(logged, game)
    state = game.new_initial_state(logged.header["seed"])
    for i, record in enumerate(logged.actions):
        player = state.current_player()
        action = checked_action(state, record, f"{logged.path}: action {i + 1}")
        state.apply_action(action)
        if on_action is not None:
            on_action(state, i, player, action)
    check_rest(logged, state, len(logged.actions), logged.path, verify_end)
    return state
