"""The strength ladder: the Bradley-Terry fit, seat balance, reproducibility, the CLI, ladder files
(saved, read back and hostile) and the ladder line of `rulespec simulate`."""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter

import pytest

from interpreter.analysis.ladder import (
    MAX_LADDER_BYTES,
    LadderError,
    PairResult,
    find_ladder,
    fit_ratings,
    ladder_path,
    match_score,
    read_ladders,
    seat_patterns,
)
from interpreter.analysis.simulate import MatchRecord, seat_agents
from tests.conftest import GAMES
from tests.support import run
from tests.test_cli_hostile import one_line

TICTACTOE = str(GAMES / "tictactoe.yaml")


@pytest.fixture
def spec(tmp_path):
    """A copy of tic-tac-toe in a folder of its own (ladders are saved beside the spec)."""
    path = tmp_path / "ttt.yaml"
    shutil.copy(TICTACTOE, path)
    return path


def ladder(spec_path, *extra: str) -> tuple[int, str, str]:
    return run("ladder", str(spec_path), "--agents", "random,greedy", "--games", "6", "--seed", "4",
               "--no-progress", *extra)


# ---------------------------------------------------------------------- the fit


@pytest.mark.parametrize("wins, draws, losses", [(15, 0, 5), (7, 6, 7), (3, 2, 15), (1, 0, 0), (12, 5, 3)])
def test_two_agents_rate_as_the_closed_form_with_one_virtual_draw(wins, draws, losses):
    w, l = wins + draws / 2, losses + draws / 2  # noqa: E741
    ratings = fit_ratings(2, [(0, 1, w, wins + draws + losses)], anchor=1)
    assert ratings[1] == 0
    assert ratings[0] == pytest.approx(400 * math.log10((w + 0.5) / (l + 0.5)), abs=1e-6)


def test_a_clean_sweep_stays_finite():
    ratings = fit_ratings(3, [(0, 1, 50, 50), (0, 2, 50, 50), (1, 2, 50, 50)], anchor=2)
    assert all(math.isfinite(r) for r in ratings)
    assert ratings[0] > ratings[1] > ratings[2] == 0
    assert ratings[1] == pytest.approx(400 * math.log10(50.5 / 0.5), rel=0.2)


def test_three_agents_are_ordered_by_their_results_and_anchored():
    # agent 2 beats 1 beats 0; 2 beats 0 most
    outcomes = [(0, 1, 6, 20), (1, 2, 5, 20), (0, 2, 2, 20)]
    ratings = fit_ratings(3, outcomes, anchor=0)
    assert ratings[0] == 0 and 0 < ratings[1] < ratings[2]
    assert fit_ratings(3, outcomes, anchor=1)[1] == 0


def test_even_results_rate_everyone_equal():
    ratings = fit_ratings(3, [(0, 1, 5, 10), (1, 2, 5, 10), (0, 2, 5, 10)])
    assert ratings == pytest.approx([0, 0, 0], abs=1e-6)


def _record(agents: list[str], winners: list[int]) -> MatchRecord:
    n = len(agents)
    return MatchRecord(index=0, seed=0, agents=agents, agent_seeds=[0] * n, winners=winners, returns=[0.0] * n,
                       totals=[0.0] * n, rounds=1, actions=1, first_player=0, lead_changes=0)


def test_a_match_scores_the_agent_whose_seat_won_and_draws_as_halves():
    seats = ["a", "b", "a"]
    assert match_score(_record(seats, [2]), "a", "b") == 1.0
    assert match_score(_record(seats, [1]), "a", "b") == 0.0
    assert match_score(_record(seats, []), "a", "b") == 0.5
    assert match_score(_record(seats, [0, 1]), "a", "b") == 0.5
    assert match_score(_record(seats, [0, 2]), "a", "b") == 1.0
    pair = PairResult("a", "b")
    for score in (1.0, 0.0, 0.5, 1.0):
        pair.add(score)
    assert (pair.a_wins, pair.b_wins, pair.draws, pair.a_score, pair.b_score) == (2, 1, 1, 2.5, 1.5)


# ---------------------------------------------------------------------- seats


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("games", [6, 12, 30])
def test_neither_agent_holds_more_seats_and_each_seat_is_shared(players, games):
    seats: Counter[str] = Counter()
    by_seat: Counter[tuple[int, str]] = Counter()
    patterns = seat_patterns("A", "B", players, games)
    assert sum(count for _, count in patterns) == games
    for pattern, count in patterns:
        assert pattern[:2] in (["A", "B"], ["B", "A"])
        for index in range(count):
            for seat, agent in enumerate(seat_agents(pattern, index, rotate=True)):
                seats[agent] += 1
                by_seat[seat, agent] += 1
    assert seats["A"] == seats["B"] == players * games / 2
    if games % (2 * players) == 0:  # whole rotations of both patterns: every seat half and half
        assert all(by_seat[seat, "A"] == by_seat[seat, "B"] for seat in range(players))


def test_two_and_four_players_play_one_alternating_pattern_and_three_two():
    assert seat_patterns("A", "B", 2, 5) == [(["A", "B"], 5)]
    assert seat_patterns("A", "B", 4, 5) == [(["A", "B", "A", "B"], 5)]
    assert seat_patterns("A", "B", 3, 5) == [(["A", "B", "A"], 3), (["B", "A", "B"], 2)]
    assert seat_patterns("A", "B", 3, 1) == [(["A", "B", "A"], 1)]


# ---------------------------------------------------------------------- the command


def test_the_ladder_prints_ratings_and_the_score_matrix(spec):
    status, out, err = ladder(spec)
    assert status == 0, err
    assert out.startswith("Tic-tac-toe ladder: 2 agents, 2 players, 6 matches per pair, seed 4\noptions: none\n")
    assert "Ratings (Bradley-Terry, Elo scale, random = 0; 95% bootstrap intervals)" in out
    assert "Pairwise score (the row's agent against the column's, of 6 matches)" in out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("1 ", "2 "))]
    assert [row[1] for row in rows] == ["greedy", "random"]
    random_row = rows[1]
    assert random_row[2:5] == ["0", "[0,", "0]"]


def test_the_same_seed_gives_the_same_ladder_whatever_jobs(spec, tmp_path):
    argv = ["ladder", str(spec), "--agents", "random,greedy,mcts:4", "--games", "4", "--seed", "9", "--no-progress"]
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    status1, out1, err1 = run(*argv, "--jobs", "1", "--json", str(first))
    status2, out2, err2 = run(*argv, "--jobs", "2", "--json", str(second))
    assert status1 == status2 == 0, err1 + err2
    assert out1 == out2 and first.read_text() == second.read_text()
    assert run(*argv)[1] == out1
    other = run(*argv[:-2], "--seed", "10", "--no-progress")[1]
    assert other != out1


def test_the_json_holds_the_plan_ratings_and_pairs(spec, tmp_path):
    out_json = tmp_path / "l.json"
    status, _, err = run("ladder", str(spec), "--agents", "greedy,random,mcts:4", "--games", "5", "--seed", "1",
                         "--no-progress", "--json", str(out_json))
    assert status == 0, err
    data = json.loads(out_json.read_text())
    assert {k: data[k] for k in ("rulespec_ladder", "spec", "game", "players", "options", "games", "seed",
                                 "anchor", "prior_draws", "resamples")} == {
        "rulespec_ladder": 1, "spec": "ttt.yaml", "game": "Tic-tac-toe", "players": 2, "options": {}, "games": 5,
        "seed": 1, "anchor": "random", "prior_draws": 1.0, "resamples": 200}
    assert len(data["sha256"]) == 64
    assert [a["rank"] for a in data["agents"]] == [1, 2, 3]
    assert [a["rating"] for a in data["agents"]] == sorted((a["rating"] for a in data["agents"]), reverse=True)
    assert {a["agent"] for a in data["agents"]} == {"greedy", "random", "mcts:4"}
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("greedy", "random"), ("greedy", "mcts:4"),
                                                         ("random", "mcts:4")]
    for p in data["pairs"]:
        assert p["matches"] == p["a_wins"] + p["b_wins"] + p["draws"] == 5
        assert p["a_score"] + p["b_score"] == 5
    for a in data["agents"]:
        assert a["matches"] == 10 and a["interval"][0] <= a["rating"] <= a["interval"][1]
        assert a["score"] == sum(p["a_score"] for p in data["pairs"] if p["a"] == a["agent"]) + sum(
            p["b_score"] for p in data["pairs"] if p["b"] == a["agent"])


def test_an_odd_player_count_plays(tmp_path):
    pig = tmp_path / "p.yaml"
    shutil.copy(GAMES / "pig.yaml", pig)
    status, out, err = run("ladder", str(pig), "--players", "3", "--option", "winscore=8", "--agents",
                           "greedy,random", "--games", "5", "--no-progress")
    assert status == 0, err
    assert "Pig ladder: 2 agents, 3 players, 5 matches per pair" in out
    assert "options: winscore=8, " in out


@pytest.mark.parametrize("agents, message", [
    ("random", "--agents: a ladder needs at least two different agents"),
    ("mcts,mcts:200", "--agents: 'mcts:200' is listed twice (as mcts:200): list each agent once"),
    ("random,wizard", "unknown agent 'wizard' (agents: random, greedy, mcts)"),
    ("random,,greedy", "--agents: list at least two agents, separated by commas (random,greedy,mcts:200)"),
    ("random,human", "ladder plays bots only: 'human' is for rulespec play"),
    (",".join(f"greedy:{k}" for k in range(1, 14)), "--agents: 13 agents: a ladder has at most 12"),
    ("random,mcts:nan", "agent 'mcts' parameter 'iterations': 'nan' is not a number"),
])
def test_bad_agent_lists_are_usage_errors(agents, message):
    status, out, err = run("ladder", TICTACTOE, "--agents", agents, "--games", "2", "--no-progress")
    assert status == 2 and out == ""
    assert one_line(err) == f"rulespec: error: {message}"


def test_missing_agents_and_bad_games_are_usage_errors():
    status, _, err = run("ladder", TICTACTOE, "--games", "2")
    assert status == 2 and "--agents: list at least two agents" in one_line(err)
    for games, what in (("0", "must be from 1 to"), ("x", "must be a whole number"), ("-3", "must be from 1 to")):
        status, _, err = run("ladder", TICTACTOE, "--agents", "random,greedy", "--games", games)
        assert status == 2 and what in one_line(err)
    status, _, err = run("ladder", TICTACTOE, "--agents", "random,greedy")
    assert status == 2 and "the following arguments are required: --games" in one_line(err)
    status, _, err = run("ladder", TICTACTOE, "--agents", "random,greedy,mcts", "--games", "5000000")
    assert status == 2
    assert one_line(err) == ("rulespec: error: 3 pairs x 5000000 games = 15000000 matches: a ladder plays from 1 "
                             "to 10000000")
    status, _, err = run("ladder", "nope.yaml", "--agents", "random,greedy", "--games", "2")
    assert status == 2 and one_line(err) == "rulespec: error: no such file: nope.yaml"


# ---------------------------------------------------------------------- saved ladders


def test_save_keeps_one_ladder_per_player_count_and_options(tmp_path):
    pig = tmp_path / "p.yaml"
    shutil.copy(GAMES / "pig.yaml", pig)
    saved = tmp_path / "p.ladder.json"
    assert ladder_path(str(pig)) == str(saved)

    def save(*extra: str) -> None:
        status, _, err = run("ladder", str(pig), "--agents", "random,greedy", "--games", "2", "--no-progress",
                             "--save", "--option", "winscore=6", *extra)
        assert status == 0, err
        assert one_line(err) == f"rulespec: saved the ladder in {saved}"

    save()
    save("--players", "3")
    save("--seed", "5")  # the same players and options: replaces the first
    ladders = read_ladders(str(saved))
    assert [(entry["players"], entry["seed"]) for entry in ladders] == [(3, 0), (2, 5)]
    options = {"winscore": 6, "diceoutcomes": 6, "horizon": 1000, "piglet": False}
    assert find_ladder(ladders, 2, options)["seed"] == 5
    assert find_ladder(ladders, 2, {**options, "winscore": 7}) is None
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".ladder-")]


HOSTILE = {
    "not_json": (b"{not json", "not a ladder file (not JSON)"),
    "not_utf8": (b"\xff\xfe{}", "not a ladder file (not JSON)"),
    "nan": (b'{"rulespec_ladders": 1, "ladders": [NaN]}', "not a ladder file (not JSON)"),
    "huge_number": (b'{"rulespec_ladders": 1, "ladders": [' + b"9" * 100 + b"]}", "not a ladder file (not JSON)"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "not a ladder file (not JSON)"),
    "a_list": (b"[]", 'not a ladder file (no "rulespec_ladders": 1)'),
    "other_version": (b'{"rulespec_ladders": 2, "ladders": []}', 'not a ladder file (no "rulespec_ladders": 1)'),
    "ladders_not_a_list": (b'{"rulespec_ladders": 1, "ladders": {}}',
                           "'ladders' must be a list of at most 200 ladders"),
    "ladder_not_a_mapping": (b'{"rulespec_ladders": 1, "ladders": [3]}', "ladder 1: a ladder must be a mapping"),
    "ladder_without_agents": (b'{"rulespec_ladders": 1, "ladders": [{"spec": "x"}]}',
                              "ladder 1: a ladder has no 'game'"),
}


def _valid_file(spec) -> dict:
    status, _, err = ladder(spec, "--save")
    assert status == 0, err
    return json.loads(open(ladder_path(str(spec)), encoding="utf-8").read())


MUTATIONS = {
    "escape_code_name": (lambda lad: lad["agents"][0].update(agent="\x1b[31mgreedy"),
                         "'agent' must be a name of at most 200 printable characters"),
    "bad_digest": (lambda lad: lad.update(sha256="xyz"), "'sha256' must be 64 hexadecimal digits"),
    "rank_out_of_order": (lambda lad: lad["agents"][0].update(rank=2), "has rank 2 in place 1"),
    "interval_upside_down": (lambda lad: lad["agents"][0].update(interval=[5, -5]), "low end is above its high"),
    "rating_text": (lambda lad: lad["agents"][0].update(rating="high"), "'rating' must be a number"),
    "players_bool": (lambda lad: lad.update(players=True), "'players' must be a whole number from 1 to 1000"),
    "one_agent": (lambda lad: lad.update(agents=lad["agents"][:1]), "'agents' must be a list of 2 to 12 agents"),
    "pair_does_not_add_up": (lambda lad: lad["pairs"][0].update(draws=99), "do not add up to its matches"),
    "pair_of_a_stranger": (lambda lad: lad["pairs"][0].update(a="wizard"), "a pair must name two different"),
    "twice": (lambda lad: None, "ladder 2: a second ladder for the same players and options"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_ladder_files_are_one_line_errors(spec, case):
    content, message = HOSTILE[case]
    saved = ladder_path(str(spec))
    with open(saved, "wb") as f:
        f.write(content)
    _refused(spec, saved, message)


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_ladder_files_of_the_wrong_shape_are_one_line_errors(spec, case):
    data = _valid_file(spec)
    mutate, message = MUTATIONS[case]
    entry = data["ladders"][0]
    if case == "twice":
        data["ladders"].append(json.loads(json.dumps(entry)))
    else:
        mutate(entry)
    saved = ladder_path(str(spec))
    with open(saved, "w", encoding="utf-8") as f:
        json.dump(data, f)
    _refused(spec, saved, message)


def _refused(spec, saved: str, message: str) -> None:
    """The file is refused in one line by ladder --save (exit 1, before any match, left as it was)
    and by read_ladders; simulate says so in its ladder line and goes on."""
    regular = os.path.isfile(saved) and not os.path.islink(saved)
    before = open(saved, "rb").read() if regular else None  # (reading a pipe would wait for a writer)
    status, out, err = ladder(spec, "--save")
    assert status == 1 and out == ""
    line = one_line(err)
    assert line.startswith(f"rulespec: error: {saved}: ") and message in line, line
    if regular:
        assert open(saved, "rb").read() == before
    with pytest.raises(LadderError, match="^" + saved):
        read_ladders(saved)
    status, out, err = run("simulate", str(spec), "--games", "2", "--no-progress")
    assert status == 0, err
    assert out.splitlines()[-1] == f"Ladder: cannot use it: {line.removeprefix('rulespec: error: ')}"


def test_a_ladder_file_too_big_a_folder_a_pipe_or_a_link_is_refused(spec, tmp_path):
    saved = ladder_path(str(spec))
    with open(saved, "wb") as f:
        f.write(b" " * (MAX_LADDER_BYTES + 1))
    _refused(spec, saved, f"larger than {MAX_LADDER_BYTES} bytes: not a ladder file")
    os.remove(saved)
    os.mkdir(saved)
    status, _, err = ladder(spec, "--save")
    assert status == 2 and one_line(err) == f"rulespec: error: --save {saved}: that is a folder, not a file"
    status, out, _ = run("simulate", str(spec), "--games", "1", "--no-progress")
    assert status == 0
    assert out.splitlines()[-1] == (f"Ladder: cannot use it: {saved}: not a ladder file (a folder, a device or a "
                                    "pipe)")
    os.rmdir(saved)
    os.mkfifo(saved)  # a pipe nobody writes to: refused, not waited on
    _refused(spec, saved, "not a ladder file (a folder, a device or a pipe)")
    os.remove(saved)
    secret = tmp_path / "elsewhere.json"
    secret.write_text('{"rulespec_ladders": 1, "ladders": []}')
    os.symlink(secret, saved)
    _refused(spec, saved, "a link: a ladder file must be a regular file")


# ---------------------------------------------------------------------- the ladder in simulate


def test_simulate_states_each_agents_place_on_the_ladder(spec, tmp_path):
    status, _, err = run("ladder", str(spec), "--agents", "random,greedy,mcts:4", "--games", "4", "--seed", "2",
                         "--no-progress", "--save")
    assert status == 0, err
    table = read_ladders(ladder_path(str(spec)))[0]
    place = {row["agent"]: row for row in table["agents"]}
    out_json = tmp_path / "s.json"
    status, out, err = run("simulate", str(spec), "--games", "4", "--agents", "greedy,mcts:7", "--no-progress",
                           "--json", str(out_json))
    assert status == 0, err
    g = place["greedy"]
    ordinal = {1: "1st", 2: "2nd", 3: "3rd"}[g["rank"]]
    assert out.splitlines()[-3:] == [
        f"Ladder ({ladder_path(str(spec))}):",
        f"  greedy: {ordinal} of 3 on the ladder (rating {g['rating']:.0f}, 95% {g['interval'][0]:.0f} to "
        f"{g['interval'][1]:.0f}; 4 matches per pair)",
        "  mcts:7: not on the ladder"]
    report = json.loads(out_json.read_text())["ladder"]
    assert report["found"] and not report["stale"] and report["error"] is None
    assert [(a["agent"], a["rank"]) for a in report["agents"]] == [("greedy", g["rank"]), ("mcts:7", None)]
    assert set(json.loads(out_json.read_text())) == {"summary", "matches", "ladder"}


def test_simulate_says_a_ladder_is_stale_or_missing(spec):
    assert ladder(spec, "--save")[0] == 0
    spec.write_text(spec.read_text() + "\n# an edit\n")
    status, out, _ = run("simulate", str(spec), "--games", "2", "--agents", "random", "--no-progress")
    assert status == 0
    lines = out.splitlines()
    assert lines[-2].startswith("  random: 2nd of 2 on the ladder (rating 0, 95% 0 to 0; 6 matches per pair)")
    assert lines[-1].startswith("  stale: measured on another version of the spec (its sha256 differs); remake it: "
                                f"rulespec ladder {spec} --players 2 --agents random,greedy --save")


def test_simulate_without_a_ladder_for_its_player_count_says_how_to_make_one(tmp_path):
    pig = tmp_path / "p.yaml"
    shutil.copy(GAMES / "pig.yaml", pig)
    status, out, _ = run("simulate", str(pig), "--games", "1", "--agents", "greedy", "--option", "winscore=5",
                         "--no-progress")
    assert out.splitlines()[-1] == (f"Ladder: none beside the spec; make one: rulespec ladder {pig} --players 2 "
                                    "--agents greedy,random --option winscore=5 --save")
    assert run("ladder", str(pig), "--agents", "random,greedy", "--games", "2", "--no-progress", "--save",
               "--option", "winscore=5")[0] == 0
    status, out, _ = run("simulate", str(pig), "--games", "1", "--agents", "greedy", "--players", "3",
                         "--option", "winscore=5", "--no-progress")
    assert status == 0
    assert out.splitlines()[-1] == (f"Ladder: {ladder_path(str(pig))} has none for 3 players with these options; "
                                    f"make one: rulespec ladder {pig} --players 3 --agents greedy,random --option "
                                    "winscore=5 --save")
