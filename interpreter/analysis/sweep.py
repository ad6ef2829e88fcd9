"""Sweeps: bot matches over every combination of variants, option values and player counts.

    plan = plan_sweep(["games/x.yaml", "variants/x_short.yaml"], grid=[("rounds", [3, 5])],
                      players=[2, 4], games=500, agents=["random"], seed=1)
    records = run_sweep(plan, local_backend(jobs=2), out="sweep.jsonl")
    rows = summarize_sweep(plan, records)   # one JSON-ready row per combination
    print_sweep(plan, rows, console)

A combination is (variant, player count, option values). Match ``k`` of a combination draws its
seeds from the sweep's seed, the variant's name, the player count, the options and ``k`` through
a SHA-256 based hash (``combination_seed``, then ``simulate.match_seeds``), so the records are
the same whatever the backend, the number of workers or the chunk size. Matches travel in
chunks of one combination each (``Chunk``); every backend runs ``play_chunk``, which plays them
with ``simulate.run_match``. A worker compiles each spec once (a cache per process) from the
text shipped with the chunk (``SpecBundle``: the spec and the files of its `extends:` chain),
never from its own disk.

Results stream to a JSON-lines file as chunks finish (``ResultsFile``): the first line records
the sweep's parameters, each further line one match. Running the same sweep again plays only
the matches the file lacks; a last line cut short by a crash is dropped.

A backend is a function from an iterator of chunks to an iterator of (chunk, payload) pairs in
the order they finish: ``local_backend`` here (this process, or the worker processes of
``pool``, which give them back in the chunks' order), the Ray backend in ``sweep_ray``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import statistics
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from typing import Any

from rulespec import GameDef, SpecError, __version__, compile_file
from rulespec.errors import did_you_mean

from ..agents import AgentError, derive_seed, make_agent
from ..errors import InterpreterError, OptionError, WorkerError, WorkerLost
from ..game import Game, resolve_options
from .pool import Pool, chunk_size, chunked
from .simulate import (
    MAX_GAMES,
    MatchError,
    MatchRecord,
    SimulationResult,
    expand_agents,
    match_seeds,
    run_match,
    seat_agents,
)
from .stats import wilson
from .summary import SIGNIFICANCE, summarize, win_share

__all__ = [
    "SweepError", "SpecBundle", "Combination", "SweepPlan", "Chunk", "Backend", "ResultsFile", "plan_sweep",
    "bundle_spec", "combination_seed", "play_chunk", "local_backend", "run_sweep", "plan_chunks",
    "summarize_sweep", "sweep_json", "print_sweep", "plot_sweep", "MAX_COMBINATIONS", "MAX_CHUNK",
]

MAX_COMBINATIONS = 1000  # combinations in one sweep
MAX_CHUNK = 10_000  # matches in one chunk
RESULTS_FORMAT = 1  # the version of the results file's layout
MAX_RESULT_LINE = 1_000_000  # bytes of one line of a results file
_CACHED_GAMES = 32  # linked games a worker keeps


class SweepError(Exception):
    """A sweep that cannot run as asked: the message, and the exit status the CLI gives it."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


# ====================================================================== what is swept


@dataclass(frozen=True)
class SpecBundle:
    """A spec as text: its file and every file its `extends:` chain reads, relative to one folder.

    ``shown`` is that folder as this machine names it, so a worker's messages name the files
    as the user does; ``digest`` identifies the texts (a results file records it)."""

    name: str
    path: str
    shown: str
    top: str
    files: tuple[tuple[str, str], ...]
    digest: str


@dataclass(frozen=True)
class Combination:
    """One cell of the sweep: a variant, a player count and the options set for it."""

    variant: str
    players: int
    options: dict[str, Any]
    agents: tuple[str, ...]  # one normalised agent label per seat
    seed: int
    game: str
    seat_names: tuple[str, ...]
    resolved: dict[str, Any]  # every option's value, defaults filled in

    def key(self) -> str:
        return _canonical({"variant": self.variant, "players": self.players, "options": self.options})

    def label(self) -> str:
        return f"{self.variant}, {self.players} players" + (f", {_options_line(self.options)}" if self.options else "")


@dataclass
class SweepPlan:
    bundles: dict[str, SpecBundle]
    combinations: list[Combination]
    grid: list[tuple[str, list[Any]]]
    players: list[int] | None
    options: dict[str, Any]
    games: int
    agents: list[str]
    seed: int
    rotate: bool
    index: dict[str, int] = field(default_factory=dict)  # combination key -> position

    def __post_init__(self) -> None:
        self.index = {c.key(): i for i, c in enumerate(self.combinations)}

    def parameters(self) -> dict[str, Any]:
        """What a results file records: a rerun must have the same to continue it."""
        return {
            "variants": [[name, b.digest] for name, b in self.bundles.items()],
            "grid": [[name, values] for name, values in self.grid], "players": self.players,
            "options": self.options, "games": self.games, "agents": self.agents, "seed": self.seed,
            "rotate": self.rotate,
        }

    @property
    def total(self) -> int:
        return len(self.combinations) * self.games


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def combination_seed(seed: int, variant: str, players: int, options: dict[str, Any]) -> int:
    """The seed a combination's matches draw theirs from (``match_seeds(this, k, players)``)."""
    return derive_seed(seed, "sweep", variant, players, _canonical(options))


def variant_name(path: str) -> str:
    """A variant is named by its file's name without the extension."""
    return os.path.splitext(os.path.basename(path))[0]


def bundle_spec(path: str, root: str | None = None) -> tuple[SpecBundle, GameDef]:
    """Compile the spec at ``path`` (a ``SpecError`` when it is invalid) and pack its texts."""
    gamedef = compile_file(path, root=root)
    texts = {os.path.abspath(name): text for name, text in gamedef.sources.items()}
    base = os.path.commonpath([os.path.dirname(p) for p in texts])
    files = tuple(sorted((os.path.relpath(p, base), text) for p, text in texts.items()))
    digest = hashlib.sha256(_canonical(files).encode("utf-8")).hexdigest()
    shown = os.path.relpath(base) if not os.path.relpath(base).startswith("..") else base
    bundle = SpecBundle(variant_name(path), path, shown, os.path.relpath(os.path.abspath(path), base), files, digest)
    return bundle, gamedef


def _check_size(specs: Sequence[str], grid: Sequence[tuple[str, list[Any]]], players: Sequence[int] | None,
                games: int) -> None:
    count = len(specs) * math.prod(len(values) for _, values in grid) * max(1, len(players or []))
    if count > MAX_COMBINATIONS:
        raise SweepError(f"{count} combinations: a sweep has at most {MAX_COMBINATIONS} (fewer variants, "
                         "values or player counts)")
    if not 1 <= games <= MAX_GAMES:
        raise SweepError(f"--games must be from 1 to {MAX_GAMES}")
    if count * games > MAX_GAMES:
        raise SweepError(f"{count} combinations x {games} games = {count * games} matches: a sweep plays at most "
                         f"{MAX_GAMES}")


def _check_names(specs: Sequence[str]) -> None:
    seen: dict[str, str] = {}
    for path in specs:
        name = variant_name(path)
        if name in seen:
            raise SweepError(f"two variants are named '{name}' ({seen[name]} and {path}): a variant is named by "
                             "its file name, so rename one")
        seen[name] = path


def _check_option_names(bundle: SpecBundle, gamedef: GameDef, names: Iterable[tuple[str, str]]) -> None:
    known = [o.name for o in gamedef.model.options]
    for flag, name in names:
        if name not in known:
            hint = did_you_mean(name, known)
            raise OptionError(f"{flag} {name}: {bundle.path} has no option '{name}'"
                              + (f" ({hint})" if hint else "") + f"; options: {', '.join(known) or 'none'}")


def _grid_points(grid: Sequence[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
    names = [name for name, _ in grid]
    return [dict(zip(names, values)) for values in itertools.product(*(values for _, values in grid))]


def plan_sweep(specs: Sequence[str], grid: Sequence[tuple[str, list[Any]]] = (), players: Sequence[int] | None = None,
               games: int = 100, agents: Sequence[str] | None = None, seed: int = 0, rotate: bool = False,
               options: dict[str, Any] | None = None, root: str | None = None) -> SweepPlan:
    """Every combination of the specs (the first, then its variants), the grid's option values
    and the player counts (default: each spec's smallest), checked before any match: unknown
    options, bad values, player counts and agents fail here."""
    fixed = dict(options or {})
    grid = [(name, list(values)) for name, values in grid]
    _check_size(specs, grid, players, games)
    _check_names(specs)
    for name, _ in grid:
        if name in fixed:
            raise SweepError(f"--grid {name} and --option {name}: give the option one way")
    bundles: dict[str, SpecBundle] = {}
    combinations: list[Combination] = []
    for path in specs:
        bundle, gamedef = bundle_spec(path, root)
        bundles[bundle.name] = bundle
        _check_option_names(bundle, gamedef, [("--grid", n) for n, _ in grid] + [("--option", n) for n in fixed])
        combinations += _combinations(bundle, gamedef, grid, players, fixed, list(agents or []), seed)
    return SweepPlan(bundles, combinations, grid, list(players) if players else None, fixed, games,
                     list(agents or []), seed, rotate)


def _combinations(bundle: SpecBundle, gamedef: GameDef, grid: Sequence[tuple[str, list[Any]]],
                  players: Sequence[int] | None, fixed: dict[str, Any], agents: list[str],
                  seed: int) -> list[Combination]:
    out = []
    games: dict[int | None, Game] = {}
    labels: dict[int | None, tuple[str, ...]] = {}
    counts: list[int | None] = list(players) if players else [None]
    for point in _grid_points(grid):
        for count in counts:
            options = {**fixed, **point}
            try:
                if count not in games:  # the player count and the agents, checked once per count
                    games[count] = Game(gamedef, count, options)
                    game = games[count]
                    labels[count] = tuple(make_agent(a, game, p, 0).label
                                          for p, a in enumerate(expand_agents(agents, game.num_players)))
                game = games[count]
                resolved = resolve_options(gamedef, dict(options), game.num_players)
            except (OptionError, AgentError) as exc:
                where = f"{bundle.path}" + (f" with {count} players" if count else "") + "".join(
                    f", {k}={_value_text(v)}" for k, v in point.items())
                raise type(exc)(f"{where}: {exc}") from None
            n = game.num_players
            out.append(Combination(bundle.name, n, options, labels[count], combination_seed(seed, bundle.name, n,
                                   options), game.name, tuple(game.seat_names), resolved))
    return out


# ====================================================================== playing chunks


@dataclass
class Chunk:
    """Some matches of one combination: (index, seat agents, state seed, agent seeds) each."""

    combination: int
    bundle: SpecBundle
    players: int
    options: dict[str, Any]
    tasks: list[tuple[int, list[str], int, list[int]]]


Backend = Callable[[Iterator[Chunk]], Iterator[tuple[Chunk, dict[str, Any]]]]

_COMPILED: dict[str, tuple[GameDef, str]] = {}  # bundle digest -> its definition, and the folder it was read from
_GAMES: dict[tuple[str, int, str], Game] = {}


def _compile_bundle(bundle: SpecBundle) -> tuple[GameDef, str]:
    """Compile the texts of a bundle: written to a fresh folder, read back, the folder removed."""
    with tempfile.TemporaryDirectory(prefix="rulespec-sweep-") as folder:
        folder = os.path.realpath(folder)
        for name, text in bundle.files:
            target = os.path.normpath(os.path.join(folder, name))
            if os.path.commonpath([target, folder]) != folder:
                raise WorkerError(f"a spec bundle names a file outside its folder: {name!r}")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        return compile_file(os.path.join(folder, bundle.top), root=folder), folder


def _worker_game(bundle: SpecBundle, players: int, options: dict[str, Any]) -> Game:
    key = (bundle.digest, players, _canonical(options))
    game = _GAMES.get(key)
    if game is None:
        if bundle.digest not in _COMPILED:
            _COMPILED[bundle.digest] = _compile_bundle(bundle)
        if len(_GAMES) >= _CACHED_GAMES:
            del _GAMES[next(iter(_GAMES))]
        game = _GAMES[key] = Game(_COMPILED[bundle.digest][0], players, options)
    return game


def _as_shown(message: str, bundle: SpecBundle) -> str:
    """A worker's message with the folder it compiled in replaced by the folder the user named."""
    folder = _COMPILED.get(bundle.digest, (None, None))[1]
    if not folder:
        return message
    return message.replace(folder + os.sep, "" if bundle.shown == "." else bundle.shown + os.sep)


def _record_json(record: MatchRecord) -> dict[str, Any]:
    data = asdict(record)
    data.pop("moves", None)
    return data


def play_chunk(bundle: SpecBundle, players: int, options: dict[str, Any],
               tasks: Sequence[tuple[int, Sequence[str], int, Sequence[int]]]) -> dict[str, Any]:
    """Play a chunk's matches (in any process); the records as JSON-ready dicts, or the error as text."""
    try:
        game = _worker_game(bundle, players, options)
        records = [_record_json(run_match(game, list(seats), state_seed, list(agent_seeds), index))
                   for index, seats, state_seed, agent_seeds in tasks]
        return {"version": __version__, "records": records}
    except (InterpreterError, AgentError, SpecError) as exc:
        return {"version": __version__, "error": _as_shown(str(exc).splitlines()[0], bundle), "bug": False}
    except Exception as exc:  # a bug: reported, not hidden
        return {"version": __version__, "error": f"{type(exc).__name__}: {exc}", "bug": True}


def _play_here(chunks: Iterator[Chunk]) -> Iterator[tuple[Chunk, dict[str, Any]]]:
    for chunk in chunks:
        yield chunk, play_chunk(chunk.bundle, chunk.players, chunk.options, chunk.tasks)


class ChunkWorker:
    """A worker process of the local backend (``pool.Pool``): each chunk played by ``play``
    (``play_chunk``; a process compiles each spec once)."""

    def __init__(self, play: Callable[..., dict[str, Any]]):
        self.play = play

    def run(self, chunk: Chunk) -> dict[str, Any]:
        return self.play(chunk.bundle, chunk.players, chunk.options, chunk.tasks)

    def finish(self) -> None:
        return None


def _lost(exitcode: int | None) -> WorkerLost:
    """A worker of a sweep gone, whatever its exit code."""
    return WorkerLost("a worker process was killed (out of memory?)")


def _play_in_processes(chunks: Iterator[Chunk], jobs: int) -> Iterator[tuple[Chunk, dict[str, Any]]]:
    """``jobs`` worker processes (as ``simulate --jobs``: the same pool); results in the chunks' order."""
    with Pool(jobs, partial(ChunkWorker, play_chunk), lost=_lost) as pool:
        yield from pool.run(chunks)
        pool.finish()


def local_backend(jobs: int = 1) -> Backend:
    """Matches in this process (``jobs`` 1) or in ``jobs`` worker processes."""
    if jobs <= 1:
        return _play_here
    return lambda chunks: _play_in_processes(chunks, jobs)


# ====================================================================== the results file


_RECORD_FIELDS = {f.name for f in fields(MatchRecord)}


class ResultsFile:
    """The JSON-lines file a sweep streams its matches to, and resumes from.

    Its first line is ``{"rulespec_sweep": 1, "parameters": {...}}``; every other line is one
    match: ``{"combination": {variant, players, options}, "record": {...}}``. Everything read
    back is checked (it is a file: anyone may have written it)."""

    def __init__(self, path: str, plan: SweepPlan):
        self.path = path
        self.plan = plan
        self.stream: Any = None

    def open(self) -> dict[tuple[int, int], MatchRecord]:
        """The matches the file holds; then the file is ready to append to."""
        found: dict[tuple[int, int], MatchRecord] = {}
        keep = 0
        if os.path.exists(self.path) and os.path.getsize(self.path) > 0:
            found, keep = self._read()
        try:
            self.stream = open(self.path, "r+b" if keep else "wb")
            self.stream.truncate(keep)
            self.stream.seek(keep)
            if not keep:
                self._write({"rulespec_sweep": RESULTS_FORMAT, "parameters": self.plan.parameters()})
        except OSError as exc:
            raise SweepError(f"cannot write {self.path}: {exc.strerror or exc}", 1) from None
        return found

    def append(self, combination: Combination, records: Iterable[dict[str, Any]]) -> None:
        """One line per match, flushed: what is written survives a Ctrl-C or a crash."""
        head = {"variant": combination.variant, "players": combination.players, "options": combination.options}
        try:
            for record in records:
                self.stream.write((_canonical({"combination": head, "record": record}) + "\n").encode("utf-8"))
            self.stream.flush()
        except OSError as exc:
            raise SweepError(f"cannot write {self.path}: {exc.strerror or exc}", 1) from None

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None

    def _write(self, data: dict[str, Any]) -> None:
        self.stream.write((_canonical(data) + "\n").encode("utf-8"))
        self.stream.flush()

    def _read(self) -> tuple[dict[tuple[int, int], MatchRecord], int]:
        """The matches, and how many bytes of the file are whole lines (a cut last line is dropped)."""
        found: dict[tuple[int, int], MatchRecord] = {}
        keep = 0
        try:
            with open(self.path, "rb") as f:
                number = 0
                while True:
                    line = f.readline(MAX_RESULT_LINE + 1)
                    if not line or not line.endswith(b"\n"):
                        if len(line) > MAX_RESULT_LINE:
                            raise self._bad(number + 1, f"a line longer than {MAX_RESULT_LINE} bytes")
                        return found, keep  # the end, or a line cut short by a crash
                    number += 1
                    data = self._parse(line, number)
                    if number == 1:
                        self._check_header(data)
                    else:
                        self._add(found, data, number)
                    keep += len(line)
        except OSError as exc:
            raise SweepError(f"cannot read {self.path}: {exc.strerror or exc}", 1) from None

    def _bad(self, number: int, what: str) -> SweepError:
        return SweepError(f"{self.path}:{number}: {what}", 1)

    def _parse(self, line: bytes, number: int) -> Any:
        try:
            return json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            if number == 1:
                raise SweepError(f"{self.path} is not a sweep's results file: choose another --out", 2) from None
            raise self._bad(number, "not a line of sweep results (JSON)") from None

    def _check_header(self, data: Any) -> None:
        if not isinstance(data, dict) or data.get("rulespec_sweep") != RESULTS_FORMAT:
            raise SweepError(f"{self.path} is not a sweep's results file: choose another --out", 2)
        theirs = data.get("parameters")
        ours = self.plan.parameters()
        if not isinstance(theirs, dict) or theirs != json.loads(_canonical(ours)):
            differ = [k for k in ours if not isinstance(theirs, dict) or
                      _canonical(theirs.get(k)) != _canonical(ours[k])]
            what = {"variants": "the specs (their names or texts)"}.get(differ[0], differ[0]) if differ else "format"
            raise SweepError(f"{self.path} holds the results of another sweep ({what} differ): rerun with the same "
                             "arguments to continue it, or choose another --out", 2)

    def _add(self, found: dict[tuple[int, int], MatchRecord], data: Any, number: int) -> None:
        if not isinstance(data, dict) or set(data) != {"combination", "record"}:
            raise self._bad(number, "not a line of sweep results")
        position = self.plan.index.get(_canonical(data["combination"]))
        if position is None:
            raise self._bad(number, "a match of a combination this sweep does not have")
        combination = self.plan.combinations[position]
        record = _checked_record(data["record"], combination, self.plan)
        if record is None:
            raise self._bad(number, "not a match of this sweep (its fields, seeds or agents differ)")
        key = (position, record.index)
        if key in found and found[key] != record:
            raise self._bad(number, f"match {record.index} of {combination.label()} twice, with different results")
        found[key] = record


def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < high


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _checked_record(data: Any, combination: Combination, plan: SweepPlan) -> MatchRecord | None:
    """A match record read from a file, when every field has its type and the seeds and agents
    are those this sweep gives that match; else None."""
    n = combination.players
    if not isinstance(data, dict) or not {"index", "winners", "returns", "totals"} <= set(data):
        return None
    index = data["index"]
    if not _is_int(index, 0, plan.games):
        return None
    state_seed, agent_seeds = match_seeds(combination.seed, index, n)
    checks = (
        data.get("seed") == state_seed and data.get("agent_seeds") == agent_seeds,
        data.get("agents") == seat_agents(combination.agents, index, plan.rotate),
        isinstance(data["winners"], list) and all(_is_int(w, 0, n) for w in data["winners"])
        and len(set(data["winners"])) == len(data["winners"]),
        all(isinstance(data[k], list) and len(data[k]) == n and all(map(_is_number, data[k]))
            for k in ("returns", "totals")),
        all(_is_int(data.get(k), 0, 2**63) for k in ("rounds", "actions", "lead_changes")),
        data.get("first_player") is None or _is_int(data.get("first_player"), 0, n),
        data.get("moves") is None,
    )
    if not all(checks):
        return None
    try:
        return MatchRecord(**{k: v for k, v in data.items() if k in _RECORD_FIELDS})
    except TypeError:  # a field the record needs is missing
        return None


# ====================================================================== running a sweep


def plan_chunks(plan: SweepPlan, done: Iterable[tuple[int, int]], size: int) -> list[Chunk]:
    """The matches not ``done``, in chunks of at most ``size`` matches of one combination."""
    done = set(done)
    chunks = []
    for position, combination in enumerate(plan.combinations):
        bundle = plan.bundles[combination.variant]
        missing = [i for i in range(plan.games) if (position, i) not in done]
        for indices in chunked(missing, size):
            tasks = []
            for index in indices:
                state_seed, agent_seeds = match_seeds(combination.seed, index, combination.players)
                tasks.append((index, seat_agents(combination.agents, index, plan.rotate), state_seed, agent_seeds))
            chunks.append(Chunk(position, bundle, combination.players, combination.options, tasks))
    return chunks


def run_sweep(plan: SweepPlan, backend: Backend, out: str | None = None, workers: int = 1,
              size: int | None = None, progress: Callable[[int, int], None] | None = None,
              on_resume: Callable[[int, int], None] | None = None) -> dict[tuple[int, int], MatchRecord]:
    """Play every match of the plan that ``out`` does not hold yet; every match's record, by
    (combination, match index). ``progress(done, total)`` after each chunk; ``on_resume(done,
    total)`` once, when ``out`` already held matches."""
    results = ResultsFile(out, plan) if out else None
    records: dict[tuple[int, int], MatchRecord] = results.open() if results else {}
    try:
        if records and on_resume is not None:
            on_resume(len(records), plan.total)
        missing = plan.total - len(records)
        chunks = plan_chunks(plan, records, size or chunk_size(missing, workers))
        if progress is not None:
            progress(len(records), plan.total)
        stream = backend(iter(chunks))
        try:
            for chunk, payload in stream:
                combination = plan.combinations[chunk.combination]
                played = _payload_records(payload, combination)
                if results is not None:
                    results.append(combination, played)
                for data in played:
                    records[(chunk.combination, data["index"])] = MatchRecord(**data)
                if progress is not None:
                    progress(len(records), plan.total)
        finally:
            getattr(stream, "close", lambda: None)()  # the backend stops its workers now, not when collected
    finally:
        if results is not None:
            results.close()
    return records


def _payload_records(payload: Any, combination: Combination) -> list[dict[str, Any]]:
    """A worker's answer, checked: its records, or the error it reports raised here."""
    if not isinstance(payload, dict):
        raise WorkerError(f"a worker answered {type(payload).__name__}, not a chunk's results")
    if payload.get("version") != __version__:
        raise SweepError(f"a worker runs rulespec {payload.get('version')}, this machine {__version__}: install the "
                         "same version everywhere (docs/sweeps.md)", 1)
    if "error" in payload:
        if payload.get("bug"):
            raise WorkerError(f"a worker failed ({combination.label()}): {payload['error']}")
        raise MatchError(f"{combination.label()}: {payload['error']}")
    return list(payload["records"])


# ====================================================================== statistics and output


def _margin(records: Sequence[MatchRecord]) -> dict[str, float] | None:
    """The final score of the best seat minus the second best's (None with one player)."""
    if not records or len(records[0].totals) < 2:
        return None
    margins = [float(top - second) for top, second in (sorted(r.totals, reverse=True)[:2] for r in records)]
    return {"mean": statistics.fmean(margins), "sd": statistics.stdev(margins) if len(margins) > 1 else 0.0}


def _combination_records(plan: SweepPlan, records: dict[tuple[int, int], MatchRecord],
                         position: int) -> list[MatchRecord]:
    return [records[(position, i)] for i in range(plan.games) if (position, i) in records]


def summarize_sweep(plan: SweepPlan, records: dict[tuple[int, int], MatchRecord]) -> list[dict[str, Any]]:
    """One JSON-ready row per combination, in the plan's order; ``summary`` is ``summary.summarize``
    of its matches (statistics that join it there join every sweep's output)."""
    rows = []
    for position, c in enumerate(plan.combinations):
        played = _combination_records(plan, records, position)
        result = SimulationResult(spec=plan.bundles[c.variant].path, game=c.game, players=c.players,
                                  options=c.resolved, seat_names=list(c.seat_names), agents=list(c.agents),
                                  rotate=plan.rotate, seed=c.seed, records=played)
        rows.append({"variant": c.variant, "players": c.players, "options": c.options, "games": len(played),
                     "summary": summarize(result), "margin": _margin(played)})
    return rows


def sweep_json(plan: SweepPlan, rows: list[dict[str, Any]]) -> str:
    return json.dumps({"parameters": plan.parameters(), "combinations": rows}, indent=1) + "\n"


def _rate_cell(rate: float, ci: Sequence[float]) -> str:
    return f"{100 * rate:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _options_line(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_value_text(v)}" for k, v in options.items())


def _first_cell(first: dict[str, Any] | None) -> str:
    if first is None or not first["games"]:
        return "-"
    mark = " *" if first["p"] < SIGNIFICANCE else ""
    return f"{_rate_cell(first['win_rate'], first['ci'])}{mark}\nfair {100 * first['expected']:.1f}%"


def print_sweep(plan: SweepPlan, rows: list[dict[str, Any]], console: Any) -> None:
    """The sweep as one table: a row per combination."""
    from rich import box
    from rich.table import Table

    agents = ", ".join(dict.fromkeys(a for c in plan.combinations for a in c.agents))
    console.print(f"[bold]Sweep[/bold]: {len(rows)} combinations x {plan.games} matches, seed {plan.seed}, "
                  f"agents {agents}" + (" (rotated one seat each match)" if plan.rotate else ""), highlight=False)
    if plan.options:
        console.print(f"options in every combination: {_options_line(plan.options)}", highlight=False)
    table = Table(box=box.SIMPLE, show_edge=False)
    names = [name for name, _ in plan.grid]
    for column in ("variant", "players", *names, "win rate (95% CI)", "first player", "actions", "rounds",
                   "margin"):
        table.add_column(column, justify="right" if column in ("players", "actions", "rounds", "margin") else "left",
                         no_wrap=column in ("win rate (95% CI)", "first player"), min_width=min(len(column), 12))
    for row in rows:
        s = row["summary"]
        seats = "\n".join(f"{seat['name']} {_rate_cell(seat['win_rate'], seat['ci'])}" for seat in s["seats"])
        margin = row["margin"]
        table.add_row(row["variant"], str(row["players"]), *(_value_text(row["options"][n]) for n in names),
                      seats, _first_cell(s["first_player"]),
                      f"{s['actions']['mean']:.1f}", f"{s['rounds']['mean']:.1f}",
                      "-" if margin is None else f"{margin['mean']:.1f}")
    console.print(table)
    console.print("first player: how often the seat that moved first won, against a fair share "
                  f"(* = differs, p < {SIGNIFICANCE}); margin: the winner's final score minus the next best's "
                  "(mean)", highlight=False)


# ====================================================================== plots


def _dimensions(plan: SweepPlan) -> list[tuple[str, list[Any], Callable[[Combination], Any]]]:
    """The grid's dimensions: the variants and player counts when they vary, and every option."""
    dims: list[tuple[str, list[Any], Callable[[Combination], Any]]] = []
    if len(plan.bundles) > 1:
        dims.append(("variant", list(plan.bundles), lambda c: c.variant))
    for name, values in plan.grid:
        dims.append((name, values, _option_of(name)))
    if plan.players and len(plan.players) > 1:
        dims.append(("players", list(plan.players), lambda c: c.players))
    return dims or [("combination", ["all"], lambda c: "all")]


def _option_of(name: str) -> Callable[[Combination], Any]:
    return lambda c: c.options[name]


def _pooled(matches: list[MatchRecord]) -> dict[str, Any]:
    """Win rate per seat (each seat over the matches that had it), the first player's win rate and
    the mean match length of some matches of several combinations."""
    seats = max((len(r.totals) for r in matches), default=0)
    rates = []
    for p in range(seats):
        had = [r for r in matches if p < len(r.totals)]
        wins = sum(win_share(r, p) for r in had)
        rates.append((wins / len(had), wilson(wins, len(had))))
    firsts = [r for r in matches if r.first_player is not None and len(r.totals) > 1]
    first_wins = sum(win_share(r, r.first_player) for r in firsts if r.first_player is not None)
    first = (first_wins / len(firsts), wilson(first_wins, len(firsts))) if firsts else None
    length = statistics.fmean(r.actions for r in matches) if matches else 0.0
    return {"seats": rates, "first": first, "actions": length}


def plot_sweep(plan: SweepPlan, records: dict[tuple[int, int], MatchRecord], path: str) -> None:
    """A PNG with a row per grid dimension: win rate per seat, the first player's win rate (95%
    CIs) and the mean match length, each against the dimension's values, pooled over the rest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = _dimensions(plan)
    fig, axes = plt.subplots(len(dims), 3, figsize=(16, 4.5 * len(dims)), squeeze=False)
    for row, (name, values, value_of) in enumerate(dims):
        pooled = [_pooled([r for position, c in enumerate(plan.combinations) if value_of(c) == value
                           for r in _combination_records(plan, records, position)]) for value in values]
        _plot_dimension(axes[row], name, [_value_text(v) for v in values], pooled)
    fig.suptitle(f"Sweep: {len(plan.combinations)} combinations x {plan.games} matches (seed {plan.seed})")
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_dimension(axes: Any, name: str, labels: list[str], pooled: list[dict[str, Any]]) -> None:
    xs = list(range(len(labels)))
    seats = max((len(p["seats"]) for p in pooled), default=0)
    width = 0.8 / max(1, seats)
    ax = axes[0]
    for seat in range(seats):
        points = [(x, p["seats"][seat]) for x, p in zip(xs, pooled) if seat < len(p["seats"])]
        ax.bar([x + (seat - (seats - 1) / 2) * width for x, _ in points], [100 * r for _, (r, _) in points],
               width=width, yerr=_error_bars([(r, ci) for _, (r, ci) in points]), capsize=3,
               color=f"C{seat}", alpha=0.8, label=f"seat {seat}")
    ax.set_title(f"Win rate per seat by {name} (95% CI)")
    ax.legend(fontsize="small")
    ax = axes[1]
    firsts = [(x, p["first"]) for x, p in zip(xs, pooled) if p["first"] is not None]
    ax.errorbar([x for x, _ in firsts], [100 * r for _, (r, _) in firsts],
                yerr=_error_bars([f for _, f in firsts]), fmt="o", capsize=4)
    ax.set_title(f"First player's win rate by {name} (95% CI)")
    ax = axes[2]
    ax.bar(xs, [p["actions"] for p in pooled], color="C7")
    ax.set_title(f"Actions per match by {name} (mean)")
    for ax in axes:
        ax.set_xticks(xs, labels)
        ax.set_xlim(-0.5, len(xs) - 0.5)
        ax.set_xlabel(name)
    for ax in axes[:2]:
        ax.set_ylim(0, 100)
        ax.set_ylabel("%")


def _error_bars(rates: Sequence[tuple[float, Sequence[float]]]) -> list[list[float]]:
    return [[max(0.0, 100 * (r - ci[0])) for r, ci in rates], [max(0.0, 100 * (ci[1] - r)) for r, ci in rates]]
