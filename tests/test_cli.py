"""The command line, run in-process: play (scripted humans and bots), simulate, describe, replay, errors."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

import interpreter
from interpreter.agents import make_agent
from interpreter.analysis.simulate import match_seeds
from interpreter.cli import parse_options
from interpreter.replay import read_log, replay_match
from tests.conftest import GAMES, ROOT
from tests.support import run

HIGHHAND = str(GAMES / "highhand.yaml")
HIGHJACK = str(GAMES / "highjack.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")


ANSWERS = "1\n" * 3000  # always the first choice (and Enter at every "pass the device" screen)


# ---------------------------------------------------------------------- existing commands


def test_validate_and_schema_still_work():
    status, out, err = run("validate", HIGHHAND, HIGHJACK)
    assert status == 0 and "ok (High Hand)" in out and "ok (Highjack)" in out and err == ""
    status, out, _ = run("schema")
    assert status == 0 and json.loads(out)["type"] == "object"


# ---------------------------------------------------------------------- play


@pytest.mark.parametrize("spec, players, agents, options", [
    (HIGHHAND, 2, "human,mcts:3", ["rounds=1"]),
    (HIGHJACK, 4, "human,random,greedy:1,mcts:3", ["max_rounds=1"]),
])
def test_play_a_human_seat_against_bots_to_the_end(tmp_path, spec, players, agents, options):
    log = tmp_path / "match.jsonl"
    argv = ["play", spec, "--players", str(players), "--agents", agents, "--seed", "5", "--log", str(log)]
    for option in options:
        argv += ["--option", option]
    status, out, err = run(*argv, stdin=ANSWERS)
    assert status == 0, err
    assert err == ""
    assert "P0's view" in out and "P0, choose an action:" in out and "    1. " in out
    assert "Match over" in out and re.search(r"Winners?: ", out)
    assert "Round 1 over" in out and re.search(r"P0\s+round\s+\d+\s+total\s+\d+", out)
    # bots play their seats: their actions are printed with their labels
    assert "P1 (mcts:3): " in out if players == 2 else "P2 (greedy:1): " in out
    # the log replays to the same end
    (logged,) = read_log(str(log))
    assert logged.complete and logged.header["agents"][0] == "human"
    state = replay_match(logged, root=str(ROOT))  # the spec is outside the log's folder
    assert state.is_terminal() and state.winners() == logged.end["winners"]


def test_play_hot_seat_humans_never_see_each_others_hidden_cards():
    status, out, err = run("play", HIGHJACK, "--players", "4", "--agents", "human,random,human,random",
                           "--seed", "2", "--option", "max_rounds=1", stdin=ANSWERS)
    assert status == 0, err
    assert "Pass the device to P2" in out and "Pass the device to P0" in out
    assert "(screen cleared: end of P0's view)" in out
    game = interpreter.load_game(HIGHJACK, players=4)
    names = sorted(set(game.cards.names), key=len, reverse=True)
    views = re.findall(r"(P[02])'s view\n(.*?)\n(P[02]), choose an action", out, flags=re.S)
    assert len(views) > 5
    for viewer, text, chooser in views:
        assert viewer == chooser
        other = "P2" if viewer == "P0" else "P0"
        hand = re.search(r"  hand: (.*)", text).group(1)
        seen = dict(part.split(": ", 1) for part in hand.split(" | "))
        assert re.fullmatch(r"\d+ cards?|empty", seen[other]), hand  # only a count
        assert not any(name in seen[other] for name in names)
    # what the table sees of a face-down choice names no card, unless the card is revealed at once
    assert "commit a card face down" in out
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(("  P0 (human): commit ", "  P2 (human): commit ")):
            assert line.endswith("commit a card face down") or lines[i + 1].startswith("    * reveal: "), line


def test_play_only_bots_prints_the_whole_match_without_input():
    status, out, err = run("play", HIGHJACK, "--players", "4", "--agents", "mcts:5,random,greedy:1,random",
                           "--seed", "1", "--option", "max_rounds=1")
    assert status == 0, err
    assert out.startswith("Highjack - 4 players, seed 1\nSeats: P0 (mcts:5), P1 (random), P2 (greedy:1), P3 (random)")
    assert "choose an action" not in out and "view" not in out
    assert "P0 (mcts:5): play " in out and "Round 1 over" in out and "Match over" in out
    # with no human at the table, secret events are shown (marked) and labels are not hidden
    assert "a card face down" not in out


def test_play_quit_and_resume_from_the_log_gives_the_uninterrupted_match(tmp_path):
    argv = ["play", HIGHHAND, "--players", "2", "--agents", "human,greedy:1", "--seed", "3", "--option", "rounds=1"]
    whole = tmp_path / "whole.jsonl"
    status, _, err = run(*argv, "--log", str(whole), stdin=ANSWERS)
    assert status == 0, err
    cut = tmp_path / "cut.jsonl"
    status, out, _ = run(*argv, "--log", str(cut), stdin="1\n" * 12 + "q\n")
    assert status == 0 and f"Continue with: rulespec play --resume {cut}" in out
    (partial,) = read_log(str(cut))
    assert not partial.complete and len(partial.actions) >= 12
    status, out, err = run("play", "--resume", str(cut), "--root", str(ROOT), stdin=ANSWERS)
    assert status == 0, err
    assert f"Resumed after {len(partial.actions)} actions" in out and "Match over" in out
    assert cut.read_text() == whole.read_text()
    status, out, _ = run("play", "--resume", str(cut), "--root", str(ROOT))
    assert status == 0 and "already over" in out


def test_play_stops_cleanly_when_the_input_ends():
    status, out, err = run("play", TICTACTOE, "--agents", "human,random", stdin="1\n")
    assert status == 0 and err == ""
    assert "Stopped. (Play with --log FILE to be able to resume.)" in out


def test_play_rejects_a_bad_answer_and_asks_again():
    status, out, _ = run("play", TICTACTOE, "--agents", "human,random", "--seed", "1", stdin="0\nx\n99\n1\nq\n")
    assert status == 0
    assert out.count("not a choice: enter a number from 1 to 9") == 3
    assert "  x (human): x(0,0)" in out


# ---------------------------------------------------------------------- simulate

TICTACTOE_TABLE = """\
Tic-tac-toe: 40 matches, 2 players, seed 3
agents: x greedy, o random
options: none

Win rate per seat
 seat   agent    wins   win rate         95% CI
────────────────────────────────────────────────
 x      greedy     32      80.0%   [65.2, 89.5]
 o      random      8      20.0%   [10.5, 34.8]

Win rate per agent (per seat played)
 agent    seats played   wins   win rate         95% CI
────────────────────────────────────────────────────────
 greedy             40     32      80.0%   [65.2, 89.5]
 random             40      8      20.0%   [10.5, 34.8]

Final score per seat
 seat   mean    sd   min   median   max
────────────────────────────────────────
 x       0.8   0.4     0        1     1
 o       0.1   0.4     0        0     1

Per match
                  mean    sd   min   median   max
──────────────────────────────────────────────────
 rounds            1.0   0.0     1        1     1
 actions           6.4   1.5     5      6.5     9
 lead changes      0.0   0.0     0        0     0
 winning margin    1.0   0.0     1        1     1

Match length (actions per match)
 from   to   matches
────────────────────────────────────────────────────────────────
    5    5        19   ########################################
    6    6         1   ##
    7    7        10   #####################
    8    8         5   ###########
    9    9         5   ###########

Actions chosen per match
 action      x      o    all
─────────────────────────────
 mark     3.62   2.77   6.40

First-player advantage: not tested (the seats run different agents: the first seat's wins would measure its agent \
too; use --rotate)
Shared wins: 4 of 40 matches (10.0%)
"""


def test_simulate_prints_the_exact_table_for_a_fixed_seed():
    status, out, err = run("simulate", TICTACTOE, "--games", "40", "--agents", "greedy,random", "--seed", "3",
                           "--no-progress")
    assert status == 0, err
    make = f"rulespec ladder {shlex.quote(TICTACTOE)} --players 2 --agents greedy,random --save"
    assert out == TICTACTOE_TABLE + f"Ladder: none beside the spec; make one: {make}\n"


def test_simulate_figures_agree_with_matches_played_through_the_api():
    game = interpreter.load_game(TICTACTOE)
    outright, shared, actions = [0, 0], 0, []
    for index in range(40):
        state_seed, agent_seeds = match_seeds(3, index, 2)
        bots = [make_agent(a, game, p, agent_seeds[p]) for p, a in enumerate(["greedy", "random"])]
        state = game.new_initial_state(state_seed)
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        winners = state.winners()
        if len(winners) == 1:
            outright[winners[0]] += 1
        else:
            shared += 1
        actions.append(len(state.history))
    assert outright == [30, 6] and shared == 4  # 30 + 4/2 = 32 and 6 + 4/2 = 8 wins in the table
    assert (min(actions), max(actions), sum(actions)) == (5, 9, 256)  # mean 6.4


def test_simulate_is_identical_whatever_jobs_and_shows_a_progress_bar():
    argv = ["simulate", HIGHJACK, "--players", "4", "--games", "6", "--seed", "11", "--option", "max_rounds=2",
            "--agents", "random,greedy:1,random,random"]
    status1, out1, err1 = run(*argv, "--jobs", "1")
    status2, out2, err2 = run(*argv, "--jobs", "2")
    assert status1 == status2 == 0
    assert out1 == out2
    assert "simulating highjack.yaml" in err1 and "6/6" in err1 and "6/6" in err2
    assert "Win rate per seat" in out1 and "95% CI" in out1 and "First-player advantage" in out1


def test_simulate_json_plot_and_log(tmp_path):
    out_json, out_png, out_log = tmp_path / "s.json", tmp_path / "s.png", tmp_path / "s.jsonl"
    status, out, err = run("simulate", TICTACTOE, "--games", "12", "--agents", "mcts:8,random", "--rotate",
                           "--seed", "2", "--no-progress", "--json", str(out_json), "--plot", str(out_png),
                           "--log", str(out_log))
    assert status == 0, err
    data = json.loads(out_json.read_text())
    assert data["summary"]["games"] == 12 and len(data["matches"]) == 12
    assert {a["agent"] for a in data["summary"]["by_agent"]} == {"mcts:8", "random"}
    assert sum(s["wins"] for s in data["summary"]["seats"]) == pytest.approx(12)
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    matches = read_log(str(out_log))
    assert [m.header["match"] for m in matches] == list(range(12))
    for logged, record in zip(matches, data["matches"]):
        assert logged.header["agents"] == record["agents"]
        assert replay_match(logged, root=str(ROOT)).winners() == record["winners"]


def test_simulate_compare_prints_the_significant_differences():
    status, out, err = run("simulate", TICTACTOE, "--games", "30", "--agents", "random", "--seed", "1",
                           "--no-progress", "--compare", TICTACTOE)
    assert status == 0, err
    assert "No significant difference among the 11 metrics compared, Holm-adjusted p < 0.05." in out
    status, out, err = run("simulate", HIGHHAND, "--players", "2", "--games", "8", "--agents", "random",
                           "--option", "rounds=1", "--compare-option", "rounds=2", "--no-progress")
    assert status == 0, err
    assert "A = " in out and "B = " in out and "with rounds=2" in out
    assert "Significant differences, " in out
    assert "  rounds per match: 1.0 -> 2.0 (+1.0 [+1.00, +1.00], adjusted p < 0.001)" in out


# ---------------------------------------------------------------------- replay


def test_replay_prints_the_match_as_played_and_checks_it(tmp_path):
    log = tmp_path / "ttt.jsonl"
    status, played, _ = run("play", TICTACTOE, "--agents", "random", "--seed", "4", "--log", str(log))
    assert status == 0
    status, replayed, err = run("replay", str(log), "--root", str(ROOT))
    assert status == 0, err
    assert replayed == played + f"Replayed {log} match 0: 7 actions, identical to the log; winners x.\n"
    assert played == """\
Tic-tac-toe - 2 players, seed 4
Seats: x (random), o (random)
Options: none
───────────────────────────────────────────── Round 1 ──────────────────────────────────────────────
  x (random): x(1,2)
  o (random): o(2,0)
  x (random): x(0,1)
  o (random): o(2,1)
  x (random): x(0,2)
  o (random): o(1,0)
  x (random): x(2,2)
Round 1 over
         x  round      1  total      1
         o  round      0  total      0
──────────────────────────────────────────── Match over ────────────────────────────────────────────
After 1 round(s) and 7 actions. Winner: x
         x  total      1
         o  total      0
"""
    status, quiet, _ = run("replay", str(log), "--quiet", "--root", str(ROOT))
    assert quiet == f"Replayed {log} match 0: 7 actions, identical to the log; winners x.\n"


def test_replay_reports_a_log_that_does_not_match(tmp_path):
    log = tmp_path / "ttt.jsonl"
    run("play", TICTACTOE, "--agents", "random", "--seed", "4", "--log", str(log))
    lines = log.read_text().splitlines()
    record = json.loads(lines[2])
    record["label"] = "o(9,9)"
    lines[2] = json.dumps(record)
    log.write_text("\n".join(lines) + "\n")
    status, _, err = run("replay", str(log), "--root", str(ROOT))
    assert status == 1
    assert err == "rulespec: replay failed: action 2: the log says 'o(9,9)', the rules call action 6 'o(2,0)'\n"


def test_replay_of_an_unfinished_log(tmp_path):
    log = tmp_path / "cut.jsonl"
    run("play", TICTACTOE, "--agents", "human,random", "--seed", "1", "--log", str(log), stdin="1\nq\n")
    status, out, _ = run("replay", str(log), "--quiet", "--root", str(ROOT))
    assert status == 0
    assert out == (f"Replayed {log} match 0: 2 actions, the log stops here, the match is not over "
                   f"(continue it with rulespec play --resume {log}).\n")


# ---------------------------------------------------------------------- describe


def test_describe_prints_markdown_and_writes_a_file(tmp_path):
    status, out, err = run("describe", HIGHJACK)
    assert status == 0, err
    assert out.startswith("# Highjack\n") and "## Procedures" in out
    assert "- draw 2 cards from the pile to opp's hand" in out
    target = tmp_path / "rules.md"
    status, out2, _ = run("describe", HIGHJACK, "-o", str(target))
    assert status == 0 and out2 == "" and target.read_text() == out


# ---------------------------------------------------------------------- errors: one line, exit 2 or 1


@pytest.mark.parametrize("argv, status, message", [
    (["play", "nope.yaml"], 2, "rulespec: error: no such file: nope.yaml\n"),
    (["simulate", "nope.yaml", "--games", "3"], 2, "rulespec: error: no such file: nope.yaml\n"),
    (["describe", "nope.yaml"], 2, "rulespec: error: no such file: nope.yaml\n"),
    (["replay", "nope.jsonl"], 2, "rulespec: error: no such log: nope.jsonl\n"),
    (["simulate", TICTACTOE, "--games", "2", "--agents", "wizard"], 2,
     "rulespec: error: unknown agent 'wizard' (agents: random, greedy, mcts)\n"),
    (["simulate", TICTACTOE, "--games", "2", "--agents", "random,random,random"], 2,
     "rulespec: error: 3 agents for 2 players: give one agent for every seat, or just one\n"),
    (["simulate", TICTACTOE, "--games", "2", "--agents", "human"], 2,
     "rulespec: error: simulate plays bots only: 'human' is for rulespec play\n"),
    (["simulate", TICTACTOE, "--games", "2", "--agents", "mcts:lots"], 2,
     "rulespec: error: agent 'mcts' parameter 'iterations': 'lots' is not a number\n"),
    (["play", HIGHHAND, "--option", "rounds"], 2,
     "rulespec: error: --option 'rounds': write K=V, for example --option rounds=3\n"),
    (["play", HIGHHAND, "--option", "rounds=0", "--agents", "random"], 2,
     "rulespec: error: option 'rounds': 0 is below the minimum 1\n"),
    (["play", HIGHHAND, "--option", "roundz=2", "--agents", "random"], 2, "rulespec: error: High Hand has no option"),
    (["play", HIGHHAND, "--players", "3", "--agents", "random"], 2,
     "rulespec: error: High Hand is played by 2 or 4 players, not 3\n"),
])
def test_errors_are_one_line_with_a_usage_status(argv, status, message):
    got, out, err = run(*argv)
    assert got == status
    assert err.startswith(message) and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_an_invalid_spec_is_one_line_and_status_1():
    spec = str(ROOT / "tests" / "specs" / "invalid" / "bad_enum_value.yaml")
    for argv in (["play", spec, "--agents", "random"], ["simulate", spec, "--games", "1"], ["describe", spec]):
        status, _, err = run(*argv)
        assert status == 1
        assert err.count("\n") == 1 and "bad_enum_value.yaml:" in err and "error:" in err


def test_option_values_are_json_when_they_can_be():
    assert parse_options(["a=true", "b=3", "c=0.5", "d=text", "e=", 'f="3"', "g=[1, 2]"]) == {
        "a": True, "b": 3, "c": 0.5, "d": "text", "e": "", "f": "3", "g": [1, 2]}


def test_the_readme_main_job_command_is_a_bots_only_play():
    readme = (Path(ROOT) / "README.md").read_text()
    command = re.search(r"\.venv/bin/rulespec (play [^\n`]*)", readme)
    assert command is not None
    words = command.group(1).split()
    assert words[:2] == ["play", "games/highjack.yaml"] and "human" not in command.group(1)


_SOLO = """\
rulespec: 1
game: {name: Solo, players: 1, limits: {actions: 10}}
variables:
  n: {type: int, initial: 0}
round:
  first: player(0)
  turn:
    - choose:
        action: go
        label: go
        do: [n += 1]
    - if: n >= 3
      then: [current.score = n, end game]
match: {}
"""


def test_simulate_of_a_one_player_game_reports_no_first_player_advantage(tmp_path):
    """With one player the seat that moved first always "wins": the test does not apply, in
    the table, the JSON and a comparison (issue 14, found while trying)."""
    spec = tmp_path / "solo.yaml"
    spec.write_text(_SOLO)
    out_json = tmp_path / "solo.json"
    status, out, err = run("simulate", str(spec), "--games", "4", "--agents", "random", "--no-progress",
                           "--json", str(out_json))
    assert status == 0, err
    assert "Shared wins" in out and "First-player" not in out
    assert json.loads(out_json.read_text())["summary"]["first_player"] is None
    status, out, err = run("simulate", str(spec), "--games", "4", "--agents", "random", "--no-progress",
                           "--compare", str(spec))
    assert status == 0, err
    assert "first player" not in out.lower() and "actions per match" in out
