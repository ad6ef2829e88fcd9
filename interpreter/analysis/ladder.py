"""A strength ladder: round-robin bot matches between every pair of agents, Bradley-Terry ratings.

    plan = plan_ladder("games/x.yaml", ["random", "greedy", "mcts:200"], games=100, seed=1)
    ladder = run_ladder(plan, jobs=2)                # JSON-ready: ratings, intervals, pairwise results
    print_ladder(ladder, console)
    save_ladder(ladder, ladder_path(plan.path))      # <stem>.ladder.json beside the spec

Each pair (A, B) plays ``games`` matches through ``simulate``, seats filled A, B, A, B, ...
and rotated one seat per match; with an odd player count half the matches start the
pattern with B, so neither agent holds more seats overall. A match scores 1 for the agent
whose seat won, 0 for the other, and 0.5 each for a draw (no winner, or winners of both).
Each pair draws its seeds from the ladder's seed and the two names, so the results do not
depend on the number of worker processes (agents with a time budget excepted).

Ratings are the Bradley-Terry strengths fitted by Hunter's MM algorithm, with one virtual
draw between every pair as a prior (a clean sweep stays finite), on the Elo scale
(400 log10 of the strength), ``random`` (else the first agent) at 0; their 95% intervals
are percentiles of a seeded bootstrap over each pair's matches.

A ladder file read back (``read_ladders``) is untrusted: its size is capped, it must be
JSON of the documented shape, and anything else is one ``LadderError`` line.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..agents import derive_seed, make_agent
from ..game import Game, load_game
from .simulate import MAX_GAMES, MatchError, MatchRecord, simulate
from .summary import options_text, report_table

__all__ = [
    "LadderError", "LadderPlan", "PairResult", "plan_ladder", "parse_agent_list", "seat_patterns", "pair_seed",
    "match_score", "play_pair", "run_ladder", "fit_ratings", "bootstrap_intervals", "ladder_json", "print_ladder",
    "ladder_path", "read_ladders", "save_ladder", "find_ladder", "spec_digest", "ladder_report", "print_report",
    "MAX_AGENTS", "MAX_LADDER_BYTES", "MAX_LADDERS", "RESAMPLES",
]

MAX_AGENTS = 12  # agents on one ladder (66 pairs)
RESAMPLES = 200  # bootstrap resamples for the intervals
LADDER_FORMAT = 1  # the version of a ladder file's layout
MAX_LADDER_BYTES = 2 * 1024 * 1024  # a ladder file larger than this is refused
MAX_LADDERS = 200  # ladders (player counts and options) in one file
MAX_TEXT = 1000  # characters of a name in a ladder file
MAX_INT_DIGITS = 40
PRIOR_DRAWS = 1.0  # virtual drawn matches between every pair
ELO = 400 / math.log(10)  # Elo points per unit of log strength
ANCHOR = "random"
TOLERANCE = 1e-10  # the fit stops when no log strength moves by more
MAX_ITERATIONS = 100_000


class LadderError(Exception):
    """A ladder that cannot be made, read or saved: the message, and the exit status the CLI gives it."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


# ====================================================================== the plan


@dataclass(frozen=True)
class LadderPlan:
    path: str
    game: str
    digest: str
    players: int
    options: dict[str, Any]
    agents: list[str]  # normalised labels (mcts -> mcts:200), in the order given
    games: int  # per pair
    seed: int
    root: str | None = None

    def pairs(self) -> list[tuple[str, str]]:
        return [(a, b) for i, a in enumerate(self.agents) for b in self.agents[i + 1:]]

    def anchor(self) -> str:
        return ANCHOR if ANCHOR in self.agents else self.agents[0]


def parse_agent_list(text: str | None) -> list[str]:
    """``"random,greedy,mcts:200"`` -> the names; an empty item or 'human' is a ``LadderError``."""
    items = [a.strip() for a in (text or "").split(",")]
    if not text or any(not a for a in items):
        raise LadderError("--agents: list at least two agents, separated by commas (random,greedy,mcts:200)")
    if any(a.lower() == "human" for a in items):
        raise LadderError("ladder plays bots only: 'human' is for rulespec play")
    if len(items) > MAX_AGENTS:
        raise LadderError(f"--agents: {len(items)} agents: a ladder has at most {MAX_AGENTS}")
    return items


def _labels(game: Game, agents: Sequence[str]) -> list[str]:
    """Each agent's normalised label; two that name the same bot, or fewer than two, are a ``LadderError``."""
    labels: list[str] = []
    for spec in agents:
        label = make_agent(spec, game, 0, 0).label  # a bad name or parameter is an AgentError here
        if label in labels:
            raise LadderError(f"--agents: '{spec}' is listed twice (as {label}): list each agent once")
        labels.append(label)
    if len(labels) < 2:
        raise LadderError("--agents: a ladder needs at least two different agents")
    return labels


def spec_digest(game: Game, path: str) -> str:
    """The SHA-256 of the spec's text and of every file its `extends:` chain reads."""
    base = os.path.dirname(os.path.abspath(path))
    files = sorted((os.path.relpath(os.path.abspath(name), base), text) for name, text in game.gamedef.sources.items())
    return hashlib.sha256(_canonical(files).encode("utf-8")).hexdigest()


def plan_ladder(path: str, agents: Sequence[str], games: int, players: int | None = None,
                options: dict[str, Any] | None = None, seed: int = 0, root: str | None = None) -> LadderPlan:
    """Load the spec and check everything a ladder needs before any match."""
    game = load_game(path, players=players, options=options or {}, root=root)
    labels = _labels(game, agents)
    pairs = len(labels) * (len(labels) - 1) // 2
    if not 1 <= games or pairs * games > MAX_GAMES:
        raise LadderError(f"{pairs} pairs x {games} games = {pairs * games} matches: a ladder plays from 1 to "
                          f"{MAX_GAMES}")
    return LadderPlan(path, game.name, spec_digest(game, path), game.num_players, dict(game.options), labels,
                      games, seed, root)


# ====================================================================== playing the pairs


@dataclass
class PairResult:
    a: str
    b: str
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0

    @property
    def matches(self) -> int:
        return self.a_wins + self.b_wins + self.draws

    @property
    def a_score(self) -> float:
        return self.a_wins + self.draws / 2

    @property
    def b_score(self) -> float:
        return self.b_wins + self.draws / 2

    def add(self, score: float) -> None:
        if score == 1.0:
            self.a_wins += 1
        elif score == 0.0:
            self.b_wins += 1
        else:
            self.draws += 1


def seat_patterns(a: str, b: str, players: int, games: int) -> list[tuple[list[str], int]]:
    """(the agent of each seat, matches) of a pair: A, B, A, B... for every match with an even
    player count; with an odd one, half the matches (the larger half) so and half starting with B."""
    first = [(a, b)[p % 2] for p in range(players)]
    if players % 2 == 0:
        return [(first, games)]
    second = [(b, a)[p % 2] for p in range(players)]
    return [(pattern, count) for pattern, count in ((first, games - games // 2), (second, games // 2)) if count]


def pair_seed(seed: int, a: str, b: str) -> int:
    """The seed the matches of the pair (a, b) draw theirs from."""
    return derive_seed(seed, "ladder", a, b)


def match_score(record: MatchRecord, a: str, b: str) -> float:
    """A's score in a match: 1 when only A's seats won, 0 when only B's did, 0.5 otherwise (a draw)."""
    a_won = any(record.agents[w] == a for w in record.winners)
    b_won = any(record.agents[w] == b for w in record.winners)
    if a_won == b_won:
        return 0.5
    return 1.0 if a_won else 0.0


def play_pair(plan: LadderPlan, a: str, b: str, jobs: int = 1,
              progress: Callable[[int], None] | None = None) -> PairResult:
    """The ``plan.games`` matches of one pair, seats rotated (``simulate(..., rotate=True)``)."""
    result = PairResult(a, b)
    base = pair_seed(plan.seed, a, b)
    done = 0
    for half, (pattern, count) in enumerate(seat_patterns(a, b, plan.players, plan.games)):
        seed = base if half == 0 else derive_seed(base, "b first")
        step = None if progress is None else (lambda n, done=done: progress(done + n))
        try:
            run = simulate(plan.path, count, pattern, plan.players, plan.options, seed, jobs, rotate=True,
                           progress=step, root=plan.root)
        except MatchError as exc:
            raise MatchError(f"{a} against {b}: {exc}") from None
        for record in run.records:
            result.add(match_score(record, a, b))
        done += count
    return result


def run_ladder(plan: LadderPlan, jobs: int = 1, progress: Callable[[int], None] | None = None,
               resamples: int = RESAMPLES) -> dict[str, Any]:
    """Play every pair and fit the ratings: the ladder as JSON-ready data (``ladder_json``)."""
    results: list[PairResult] = []
    for a, b in plan.pairs():
        offset = len(results) * plan.games
        step = None if progress is None else (lambda n, offset=offset: progress(offset + n))
        results.append(play_pair(plan, a, b, jobs, step))
    return ladder_json(plan, results, resamples)


# ====================================================================== ratings


Outcome = tuple[int, int, float, int]  # (agent i, agent j, i's score, matches)


def _outcomes(agents: Sequence[str], results: Sequence[PairResult]) -> list[Outcome]:
    index = {name: i for i, name in enumerate(agents)}
    return [(index[r.a], index[r.b], r.a_score, r.matches) for r in results]


def fit_ratings(count: int, outcomes: Sequence[Outcome], anchor: int = 0) -> list[float]:
    """Bradley-Terry ratings on the Elo scale (``anchor`` at 0) by Hunter's MM algorithm, with
    ``PRIOR_DRAWS`` virtual draws between every pair of the ``count`` agents."""
    wins = [PRIOR_DRAWS / 2 * (count - 1)] * count
    played = [[PRIOR_DRAWS if i != j else 0.0 for j in range(count)] for i in range(count)]
    for i, j, score, matches in outcomes:
        wins[i] += score
        wins[j] += matches - score
        played[i][j] += matches
        played[j][i] += matches
    strength = _mm(wins, played)
    return [ELO * (math.log(s) - math.log(strength[anchor])) for s in strength]


def _mm(wins: list[float], played: list[list[float]]) -> list[float]:
    """Hunter's MM iteration to the maximum-likelihood strengths (geometric mean 1)."""
    count = len(wins)
    strength = [1.0] * count
    for _ in range(MAX_ITERATIONS):
        new = [wins[i] / sum(played[i][j] / (strength[i] + strength[j]) for j in range(count) if played[i][j])
               for i in range(count)]
        scale = math.exp(sum(math.log(s) for s in new) / count)
        new = [s / scale for s in new]
        moved = max(abs(math.log(n / s)) for n, s in zip(new, strength))
        strength = new
        if moved < TOLERANCE:
            break
    return strength


def _resample(result: PairResult, rng: random.Random) -> float:
    """A's score over the pair's matches drawn again with replacement."""
    n = result.matches
    if not n:
        return 0.0
    cumulative = [result.a_wins, result.a_wins + result.draws, n]
    return sum(rng.choices((1.0, 0.5, 0.0), cum_weights=cumulative, k=n))


def bootstrap_intervals(agents: Sequence[str], results: Sequence[PairResult], anchor: int, seed: int,
                        resamples: int = RESAMPLES) -> list[tuple[float, float]]:
    """Each agent's 95% percentile interval over ``resamples`` bootstrap resamples of every pair's matches."""
    rng = random.Random(derive_seed(seed, "ladder", "bootstrap"))
    samples: list[list[float]] = [[] for _ in agents]
    observed = list(zip(_outcomes(agents, results), results))
    for _ in range(resamples):
        outcomes = [(i, j, _resample(r, rng), n) for (i, j, _, n), r in observed]
        for k, rating in enumerate(fit_ratings(len(agents), outcomes, anchor)):
            samples[k].append(rating)
    return [(_quantile(s, 0.025), _quantile(s, 0.975)) for s in samples]


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ladder_json(plan: LadderPlan, results: Sequence[PairResult], resamples: int = RESAMPLES) -> dict[str, Any]:
    """The ladder as data: the plan, each agent's rank, rating, interval and score, each pair's results."""
    agents = plan.agents
    anchor = agents.index(plan.anchor())
    ratings = fit_ratings(len(agents), _outcomes(agents, results), anchor)
    intervals = bootstrap_intervals(agents, results, anchor, plan.seed, resamples)
    scores = {name: [0.0, 0] for name in agents}
    for r in results:
        scores[r.a][0] += r.a_score
        scores[r.b][0] += r.b_score
        scores[r.a][1] += r.matches
        scores[r.b][1] += r.matches
    order = sorted(range(len(agents)), key=lambda k: (-ratings[k], k))
    rows = [{"agent": agents[k], "rank": rank, "rating": round(ratings[k], 2),
             "interval": [round(intervals[k][0], 2), round(intervals[k][1], 2)],
             "score": scores[agents[k]][0], "matches": scores[agents[k]][1]} for rank, k in enumerate(order, 1)]
    pairs = [{"a": r.a, "b": r.b, "matches": r.matches, "a_wins": r.a_wins, "b_wins": r.b_wins, "draws": r.draws,
              "a_score": r.a_score, "b_score": r.b_score} for r in results]
    return {"rulespec_ladder": LADDER_FORMAT, "spec": os.path.basename(plan.path), "game": plan.game,
            "sha256": plan.digest, "players": plan.players, "options": plan.options, "games": plan.games,
            "seed": plan.seed, "anchor": plan.anchor(), "prior_draws": PRIOR_DRAWS, "resamples": resamples,
            "agents": rows, "pairs": pairs}


# ====================================================================== printing


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def print_ladder(ladder: dict[str, Any], console: Any) -> None:
    """The ratings table, sorted by rating, and the pairwise score matrix."""
    console.print(f"[bold]{ladder['game']}[/bold] ladder: {len(ladder['agents'])} agents, {ladder['players']} "
                  f"players, {ladder['games']} matches per pair, seed {ladder['seed']}", highlight=False)
    console.print(f"options: {options_text(ladder['options'])}", highlight=False, markup=False)
    console.print()
    table = report_table(f"Ratings (Bradley-Terry, Elo scale, {ladder['anchor']} = 0; 95% bootstrap intervals)")
    for name, justify in (("rank", "right"), ("agent", "left"), ("rating", "right"), ("95% interval", "right"),
                          ("score", "right"), ("", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in ladder["agents"]:
        low, high = row["interval"]
        share = row["score"] / row["matches"] if row["matches"] else 0.0
        table.add_row(str(row["rank"]), row["agent"], f"{row['rating']:.0f}", f"[{low:.0f}, {high:.0f}]",
                      f"{_number(row['score'])} / {row['matches']}", f"{100 * share:.1f}%")
    console.print(table)
    console.print()
    _print_matrix(ladder, console)


def _print_matrix(ladder: dict[str, Any], console: Any) -> None:
    names = [row["agent"] for row in ladder["agents"]]
    scores: dict[tuple[str, str], float] = {}
    for pair in ladder["pairs"]:
        scores[pair["a"], pair["b"]] = pair["a_score"]
        scores[pair["b"], pair["a"]] = pair["b_score"]
    table = report_table(f"Pairwise score (the row's agent against the column's, of {ladder['games']} matches)")
    table.add_column("")
    for name in names:
        table.add_column(name, justify="right")
    for row in names:
        table.add_row(row, *("-" if row == col else _number(scores.get((row, col), 0.0)) for col in names))
    console.print(table)


# ====================================================================== ladder files


def ladder_path(spec_path: str) -> str:
    """Where ``--save`` keeps the ladders of a spec: ``<stem>.ladder.json`` in the spec's own folder."""
    folder, name = os.path.split(spec_path)
    return os.path.join(folder, os.path.splitext(name)[0] + ".ladder.json")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _key(players: int, options: dict[str, Any]) -> str:
    return _canonical([players, options])


def find_ladder(ladders: Sequence[dict[str, Any]], players: int, options: dict[str, Any]) -> dict[str, Any] | None:
    """The ladder measured with this player count and these options, if any."""
    key = _key(players, options)
    return next((ladder for ladder in ladders if _key(ladder["players"], ladder["options"]) == key), None)


def save_ladder(ladder: dict[str, Any], path: str) -> None:
    """Add the ladder to the file at ``path`` (created when missing), replacing the one of the same
    player count and options; the file is replaced whole, never left half written."""
    key = _key(ladder["players"], ladder["options"])
    ladders = [entry for entry in read_ladders(path) if _key(entry["players"], entry["options"]) != key]
    if len(ladders) >= MAX_LADDERS:
        raise LadderError(f"{path} holds {len(ladders)} ladders already: at most {MAX_LADDERS}", 1)
    text = json.dumps({"rulespec_ladders": LADDER_FORMAT, "ladders": [*ladders, ladder]}, indent=1) + "\n"
    if len(text.encode("utf-8")) > MAX_LADDER_BYTES:
        raise LadderError(f"{path} would be larger than {MAX_LADDER_BYTES} bytes: remove some ladders from it", 1)
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, prefix=".ladder-", suffix=".tmp",
                                         delete=False) as f:
            f.write(text)
        os.replace(f.name, path)
    except OSError as exc:
        raise LadderError(f"cannot write {path}: {exc.strerror or exc}", 1) from None


def read_ladders(path: str) -> list[dict[str, Any]]:
    """The ladders of a file written by ``save_ladder`` ([] when there is none), checked as untrusted
    input: a regular file, not a link, at most ``MAX_LADDER_BYTES``, JSON of the documented shape."""
    data = _read_json(path)
    if data is None:
        return []
    if not isinstance(data, dict) or data.get("rulespec_ladders") != LADDER_FORMAT:
        raise LadderError(f"{path}: not a ladder file (no \"rulespec_ladders\": {LADDER_FORMAT})", 1)
    ladders = data.get("ladders")
    if not isinstance(ladders, list) or len(ladders) > MAX_LADDERS:
        raise LadderError(f"{path}: 'ladders' must be a list of at most {MAX_LADDERS} ladders", 1)
    seen: set[str] = set()
    for number, ladder in enumerate(ladders, 1):
        try:
            _check_ladder(ladder)
        except _Bad as exc:
            raise LadderError(f"{path}: ladder {number}: {exc}", 1) from None
        key = _key(ladder["players"], ladder["options"])
        if key in seen:
            raise LadderError(f"{path}: ladder {number}: a second ladder for the same players and options", 1)
        seen.add(key)
    return ladders


def _read_json(path: str) -> Any:
    """The file's JSON, or None when there is no file; refused: a link, a folder, a device, too big."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise LadderError(f"{path}: a link: a ladder file must be a regular file", 1) from None
        raise LadderError(f"cannot read {path}: {exc.strerror or exc}", 1) from None
    try:
        raw = _read_regular(fd, path)
    finally:
        os.close(fd)
    if len(raw) > MAX_LADDER_BYTES:
        raise LadderError(f"{path}: larger than {MAX_LADDER_BYTES} bytes: not a ladder file", 1)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_refuse, parse_int=_int, parse_float=_float)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise LadderError(f"{path}: not a ladder file (not JSON)", 1) from None


def _read_regular(fd: int, path: str) -> bytes:
    """At most ``MAX_LADDER_BYTES`` + 1 bytes of an open regular file (a folder or a device is refused)."""
    import stat

    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LadderError(f"{path}: not a ladder file (a folder, a device or a pipe)", 1)
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(MAX_LADDER_BYTES + 1)
    except OSError as exc:
        raise LadderError(f"cannot read {path}: {exc.strerror or exc}", 1) from None


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise ValueError("a number too large")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("a number too large")
    return value


class _Bad(ValueError):
    """What is wrong with one ladder of a file."""


def _text(value: Any, what: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str) or not value or len(value) > limit or not value.isprintable():
        raise _Bad(f"'{what}' must be a name of at most {limit} printable characters")
    return value


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _Bad(f"'{what}' must be a whole number from {low} to {high}")
    return value


def _real(value: Any, what: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise _Bad(f"'{what}' must be a number")
    return float(value)


def _fields(value: Any, what: str, keys: Sequence[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad(f"{what} must be a mapping")
    missing = [k for k in keys if k not in value]
    if missing:
        raise _Bad(f"{what} has no '{missing[0]}'")
    return value


LADDER_KEYS = ("spec", "game", "sha256", "players", "options", "games", "seed", "anchor", "agents", "pairs")
AGENT_KEYS = ("agent", "rank", "rating", "interval", "score", "matches")
PAIR_KEYS = ("a", "b", "matches", "a_wins", "b_wins", "draws")


def _check_ladder(ladder: Any) -> None:
    _fields(ladder, "a ladder", LADDER_KEYS)
    for key in ("spec", "game", "anchor"):
        _text(ladder[key], key)
    digest = ladder["sha256"]
    if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise _Bad("'sha256' must be 64 hexadecimal digits")
    _whole(ladder["players"], "players", 1, 1000)
    _whole(ladder["games"], "games", 1, MAX_GAMES)
    _whole(ladder["seed"], "seed", 0, 2**64 - 1)
    if not isinstance(ladder["options"], dict):
        raise _Bad("'options' must be a mapping of option names to values")
    for name in ladder["options"]:
        _text(name, "options")
    names = _check_agents(ladder["agents"])
    _check_pairs(ladder["pairs"], names)


def _check_agents(rows: Any) -> list[str]:
    if not isinstance(rows, list) or not 2 <= len(rows) <= MAX_AGENTS:
        raise _Bad(f"'agents' must be a list of 2 to {MAX_AGENTS} agents")
    names: list[str] = []
    for rank, row in enumerate(rows, 1):
        _fields(row, "an agent", AGENT_KEYS)
        name = _text(row["agent"], "agent", 200)
        if name in names:
            raise _Bad(f"agent '{name}' is listed twice")
        names.append(name)
        if _whole(row["rank"], "rank", 1, MAX_AGENTS) != rank:
            raise _Bad(f"agent '{name}' has rank {row['rank']} in place {rank}: agents are listed by rank")
        interval = row["interval"]
        if not isinstance(interval, list) or len(interval) != 2:
            raise _Bad(f"agent '{name}': 'interval' must be [low, high]")
        _real(row["rating"], "rating")
        if _real(interval[0], "interval") > _real(interval[1], "interval"):
            raise _Bad(f"agent '{name}': its interval's low end is above its high end")
        matches = _whole(row["matches"], "matches", 0, MAX_GAMES)
        if not 0 <= _real(row["score"], "score") <= matches:
            raise _Bad(f"agent '{name}': 'score' must be from 0 to its matches")
    return names


def _check_pairs(pairs: Any, names: list[str]) -> None:
    if not isinstance(pairs, list) or len(pairs) > MAX_AGENTS * (MAX_AGENTS - 1) // 2:
        raise _Bad("'pairs' must be a list of the pairs' results")
    for pair in pairs:
        _fields(pair, "a pair", PAIR_KEYS)
        if pair["a"] not in names or pair["b"] not in names or pair["a"] == pair["b"]:
            raise _Bad("a pair must name two different agents of the ladder")
        counts = [_whole(pair[k], k, 0, MAX_GAMES) for k in ("a_wins", "b_wins", "draws")]
        if sum(counts) != _whole(pair["matches"], "matches", 0, MAX_GAMES):
            raise _Bad(f"the pair {pair['a']}, {pair['b']}: wins and draws do not add up to its matches")


# ====================================================================== the ladder in simulate


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _position(ladder: dict[str, Any], agent: str) -> dict[str, Any]:
    rows = ladder["agents"]
    row = next((r for r in rows if r["agent"] == agent), None)
    if row is None:
        return {"agent": agent, "rank": None, "text": f"{agent}: not on the ladder"}
    low, high = row["interval"]
    text = (f"{agent}: {_ordinal(row['rank'])} of {len(rows)} on the ladder (rating {row['rating']:.0f}, "
            f"95% {low:.0f} to {high:.0f}; {ladder['games']} matches per pair)")
    return {"agent": agent, "rank": row["rank"], "of": len(rows), "rating": row["rating"],
            "interval": [low, high], "games": ladder["games"], "text": text}


def _make_command(spec: str, players: int, agents: Sequence[str], options: Sequence[str]) -> str:
    suggested = list(dict.fromkeys([*agents, "random", "greedy"]))[: max(2, len(set(agents)))]
    words = ["rulespec", "ladder", spec, "--players", str(players), "--agents", ",".join(suggested)]
    for option in options:
        words += ["--option", option]
    return shlex.join([*words, "--save"])


def ladder_report(spec: str, game: Game, agents: Sequence[str], options: Sequence[str] = ()) -> dict[str, Any]:
    """Where the run's agents stand on the spec's ladder file (for ``simulate``): JSON-ready, with
    the lines to print. ``options``: the --option arguments given, to suggest a ladder command.
    A missing, unreadable or hostile file is said in a line, never raised."""
    path = ladder_path(spec)
    distinct = list(dict.fromkeys(agents))
    command = _make_command(spec, game.num_players, distinct, options)
    report: dict[str, Any] = {"file": path, "found": False, "stale": False, "error": None, "agents": []}
    try:
        ladders = read_ladders(path)
    except LadderError as exc:
        report["error"] = str(exc)
        return {**report, "lines": [f"Ladder: cannot use it: {exc}"]}
    if not ladders and not os.path.lexists(path):
        return {**report, "lines": [f"Ladder: none beside the spec; make one: {command}"]}
    ladder = find_ladder(ladders, game.num_players, dict(game.options))
    if ladder is None:
        return {**report, "lines": [f"Ladder: {path} has none for {game.num_players} players with these options; "
                                    f"make one: {command}"]}
    positions = [_position(ladder, agent) for agent in distinct]
    stale = ladder["sha256"] != spec_digest(game, spec)
    lines = [f"Ladder ({path}):"] + [f"  {p['text']}" for p in positions]
    if stale:
        lines.append(f"  stale: measured on another version of the spec (its sha256 differs); remake it: {command}")
    return {**report, "found": True, "stale": stale, "agents": positions, "lines": lines}


def print_report(report: dict[str, Any], console: Any) -> None:
    for line in report["lines"]:
        console.print(line, highlight=False, markup=False)

