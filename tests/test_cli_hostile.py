"""Hostile input at the command line: arguments, human answers, match logs, Ctrl-C, failing rules.

Every case ends with one clear line on stderr and a documented exit status, never a
traceback; a log's `spec` is only followed inside the log's folder (or below --root).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interpreter import cli
from interpreter.analysis.simulate import simulate
from interpreter.analysis.summary import plot, summarize
from interpreter.cli import main, parse_options
from interpreter.replay import LogError, iter_log, read_log, replay_match
from tests.conftest import GAMES, ROOT
from tests.support import run

TICTACTOE = str(GAMES / "tictactoe.yaml")
HIGHHAND = str(GAMES / "highhand.yaml")
PASSWD_LINE = re.compile(r"root:.*:0:0:")


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    return err.rstrip("\n")


# ---------------------------------------------------------------------- arguments


@pytest.mark.parametrize("agent, message", [
    ("mcts:1e999", "agent 'mcts' parameter 'iterations': '1e999' is too large"),
    ("mcts:nan", "agent 'mcts' parameter 'iterations': 'nan' is not a number"),
    ("mcts:inf", "agent 'mcts' parameter 'iterations': 'inf' is not a number"),
    ("mcts:-3", "mcts: iterations must be a whole number of at least 1 (and at most 1000000), not -3"),
    ("mcts:", "agent 'mcts': a parameter is missing after ':' in 'mcts:'"),
    ("mcts:c=nan", "agent 'mcts' parameter 'c': 'nan' is not a number"),
    ("mcts:c=1e400", "agent 'mcts' parameter 'c': '1e400' is too large"),
    ("mcts:depth=1:depth=2", "agent 'mcts': parameter 'depth' is given twice"),
    ("mcts:prior=1001", "mcts: prior must be a whole number of at least 0 (and at most 1000), not 1001"),
    ("greedy:1e9", "greedy: samples must be a whole number of at least 1 (and at most 100000), not 1e+09"),
    ("mcts:" + "9" * 5000, "not an agent: 'mcts:99999999999"),
    (":3", "an agent name is missing in ':3'"),
    ("wizard", "unknown agent 'wizard' (agents: random, greedy, mcts)"),
    ("\x1b[2Jrandom", "not an agent: '\\x1b[2Jrandom'"),
])
def test_a_bad_agent_is_a_usage_error(agent, message):
    for argv in (["simulate", TICTACTOE, "--games", "1", "--no-progress", "--agents", agent],
                 ["play", TICTACTOE, "--agents", f"human,{agent}"]):
        status, out, err = run(*argv, stdin="q\n")
        assert status == 2
        assert one_line(err).startswith(f"rulespec: error: {message}")
        assert out == ""


@pytest.mark.parametrize("value, message", [
    ("NaN", "option 'rounds': expected a number, got 'NaN'"),
    ("Infinity", "option 'rounds': expected a number, got 'Infinity'"),
    ("-Infinity", "option 'rounds': expected a number, got '-Infinity'"),
    ("1e999", "option 'rounds': expected a number, got '1e999'"),
    ("9" * 5000, "--option rounds: the number is too large"),
    ("[" * 5000 + "]" * 5000, "--option rounds: the value is nested too deeply"),
    ("x" * 20000, "--option rounds: the value is longer than 10000 characters"),
])
def test_an_option_value_json_cannot_hold_is_a_usage_error(value, message):
    status, _, err = run("play", HIGHHAND, "--agents", "random", "--option", f"rounds={value}")
    assert status == 2
    assert one_line(err).startswith(f"rulespec: error: {message}")


def test_option_text_that_looks_like_a_special_number_stays_text():
    assert parse_options(["a=NaN", "b=Infinity", "c=[NaN]", "d=1e999", "e=2.5"]) == {
        "a": "NaN", "b": "Infinity", "c": "[NaN]", "d": "1e999", "e": 2.5}


@pytest.mark.parametrize("argv, message", [
    (["--players", "2.5"], "argument --players: the player count must be a whole number, not '2.5'"),
    (["--players", "²"], "argument --players: the player count must be a whole number, not '²'"),
    (["--players", "-1"], "argument --players: the player count must be from 1 to 1000, not -1"),
    (["--players", "0"], "argument --players: the player count must be from 1 to 1000, not 0"),
    (["--players", "99999999999"], "argument --players: the player count must be from 1 to 1000, not 99999999999"),
    (["--seed", "-5"], "argument --seed: the seed must be from 0 to 18446744073709551615, not -5"),
    (["--seed", str(2**64)], f"argument --seed: the seed must be from 0 to 18446744073709551615, not {2**64}"),
    (["--seed", "7" * 5000], "argument --seed: the seed must be a whole number, not '7777777777"),
    (["--seed", "1.5"], "argument --seed: the seed must be a whole number, not '1.5'"),
    (["--games", "0"], "argument --games: the number of games must be from 1 to 10000000, not 0"),
    (["--games", "-3"], "argument --games: the number of games must be from 1 to 10000000, not -3"),
    (["--games", "1e9"], "argument --games: the number of games must be a whole number, not '1e9'"),
    (["--jobs", "-1"], "argument --jobs: the number of jobs must be from 0 to 1000000, not -1"),
])
def test_bad_numbers_on_the_command_line_are_usage_errors(argv, message):
    status, out, err = run("simulate", TICTACTOE, "--games", "1", "--no-progress", *argv)
    assert status == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"rulespec simulate: error: {message}"), line
    assert line.endswith("(see rulespec simulate --help)")


def test_the_seed_range_is_the_whole_64_bits():
    for seed in ("0", str(2**64 - 1)):
        status, out, err = run("simulate", TICTACTOE, "--games", "2", "--no-progress", "--seed", seed)
        assert status == 0, err
        assert f"seed {seed}" in out


def test_too_many_jobs_are_capped_and_change_nothing():
    argv = ["simulate", TICTACTOE, "--games", "6", "--no-progress", "--seed", "3", "--agents", "random"]
    status1, out1, _ = run(*argv, "--jobs", "1")
    status2, out2, err2 = run(*argv, "--jobs", "100000")
    assert status1 == status2 == 0, err2
    assert out1 == out2


def test_parser_errors_go_to_the_error_stream_in_one_line():
    status, out, err = run("frobnicate")
    assert status == 2 and out == ""
    assert one_line(err).startswith("rulespec: error: argument COMMAND: invalid choice: 'frobnicate'")
    status, _, err = run("replay", "x.jsonl", "--match", "-1")
    assert status == 2
    assert one_line(err).startswith("rulespec replay: error: argument --match: the match number must be from 0")


@pytest.mark.parametrize("argv, message", [
    (["play", TICTACTOE, "--agents", "random", "--log", "{tmp}/no/such/folder/m.jsonl"],
     "rulespec: error: --log {tmp}/no/such/folder/m.jsonl: no such folder {tmp}/no/such/folder"),
    (["play", TICTACTOE, "--agents", "random", "--log", "{tmp}"], "rulespec: error: --log {tmp}: that is a folder"),
    (["simulate", TICTACTOE, "--games", "1", "--json", "{tmp}"], "rulespec: error: --json {tmp}: that is a folder"),
    (["simulate", TICTACTOE, "--games", "1", "--plot", "{tmp}/none/p.png"], "rulespec: error: --plot {tmp}/none/p.png"),
    (["simulate", TICTACTOE, "--games", "1", "--log", "{tmp}"], "rulespec: error: --log {tmp}: that is a folder"),
    (["describe", TICTACTOE, "-o", "{tmp}/none/r.md"], "rulespec: error: --output {tmp}/none/r.md: no such folder"),
    (["describe", "{tmp}"], "rulespec: error: not a spec file: {tmp} (a folder, a device or a pipe)"),
    (["play", "/dev/zero"], "rulespec: error: not a spec file: /dev/zero"),
    (["simulate", TICTACTOE, "--games", "1", "--root", "{tmp}/none"], "rulespec: error: --root {tmp}/none: no such"),
    (["replay", "/dev/zero"], "rulespec: error: not a log file: /dev/zero"),
    (["replay", "{tmp}"], "rulespec: error: not a log file: {tmp}"),
    (["play", "--resume", "/dev/zero"], "rulespec: error: not a log file: /dev/zero"),
])
def test_files_on_the_command_line_are_checked_before_any_work(tmp_path, argv, message):
    status, out, err = run(*[a.format(tmp=tmp_path) for a in argv])
    assert status == 2 and out == ""
    assert one_line(err).startswith(message.format(tmp=tmp_path))


def test_validate_a_device_is_an_invalid_file_not_a_hang():
    status, _, err = run("validate", "/dev/zero")
    assert status == 1
    assert err == "/dev/zero: error: not a spec file (a folder, a device or a pipe)\n"


# ---------------------------------------------------------------------- human input


@pytest.mark.parametrize("answer", ["²", "٣", "9" * 5000, "", "   ", "-1", "0", "+1", "1.0", "x" * 200_000,
                                    "\x1b[2J\x00\x07", "\ufffd"])
def test_a_human_answer_that_is_not_a_choice_asks_again(answer):
    status, out, err = run("play", TICTACTOE, "--agents", "human,random", "--seed", "1", stdin=f"{answer}\nq\n")
    assert status == 0 and err == ""
    assert out.count("not a choice: enter a number from 1 to 9") == 1
    assert out.endswith("Stopped. (Play with --log FILE to be able to resume.)\n")


def test_the_end_of_the_input_stops_the_match_at_any_prompt():
    for stdin in ("", "\n", "1\n"):
        status, out, err = run("play", str(GAMES / "highjack.yaml"), "--players", "4", "--agents",
                               "human,random,human,random", "--option", "max_rounds=1", stdin=stdin)
        assert status == 0 and err == ""
        assert "Stopped." in out


def test_input_that_is_not_utf8_is_an_answer_that_is_not_a_choice():
    proc = subprocess.run([sys.executable, "-m", "interpreter.cli", "play", TICTACTOE, "--agents", "human,random"],
                          input=b"\xff\xfe\x80\n1\nq\n", capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr + proc.stdout
    assert proc.stdout.count(b"not a choice") == 1 and b"x (human): x(0,0)" in proc.stdout


# ---------------------------------------------------------------------- logs: the spec reference


def _log_lines(spec: str = "tictactoe.yaml", **changes) -> list[str]:
    header = {"log": "rulespec-match", "version": 1, "spec": spec, "game": "Tic-tac-toe", "players": 2,
              "options": {}, "seed": 1281936676, "agents": ["random", "random"],
              "agent_seeds": [3442611343, 3015647666], "match": 0, "base_seed": 4}
    header.update(changes)
    moves = [(0, 5, "x(1,2)"), (1, 6, "o(2,0)"), (0, 1, "x(0,1)"), (1, 7, "o(2,1)"), (0, 2, "x(0,2)"),
             (1, 3, "o(1,0)"), (0, 8, "x(2,2)")]
    return ([json.dumps(header)] + [json.dumps({"player": p, "action": a, "label": t}) for p, a, t in moves]
            + [json.dumps({"end": True, "winners": [0], "totals": [1, 0], "returns": [1.0, -1.0], "actions": 7})])


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """A folder with a copy of tic-tac-toe, as a log's neighbour."""
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(TICTACTOE, folder / "tictactoe.yaml")
    return folder


def write_log(folder: Path, lines: list[str] | bytes, name: str = "m.jsonl") -> str:
    path = folder / name
    if isinstance(lines, bytes):
        path.write_bytes(lines)
    else:
        path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_log_beside_its_spec_replays_and_its_header_names_the_spec_relatively(logs):
    log = write_log(logs, _log_lines())
    status, out, err = run("replay", log, "--quiet")
    assert status == 0, err
    assert out == f"Replayed {log} match 0: 7 actions, identical to the log; winners x.\n"
    # play --log writes the spec relative to the log's folder
    written = logs / "played.jsonl"
    status, _, err = run("play", str(logs / "tictactoe.yaml"), "--agents", "random", "--seed", "4", "--log",
                         str(written))
    assert status == 0, err
    assert json.loads(written.read_text().splitlines()[0])["spec"] == "tictactoe.yaml"
    assert run("replay", str(written), "--quiet")[0] == 0


@pytest.mark.parametrize("spec, message", [
    ("/etc/passwd", "the spec '/etc/passwd' is an absolute path; a log names its spec relative to the log's folder"),
    ("/dev/zero", "the spec '/dev/zero' is an absolute path"),
    ("/proc/self/environ", "the spec '/proc/self/environ' is an absolute path"),
    ("../" * 12 + "etc/passwd", "the spec '../../../../../../../../../../../../etc/passwd' is outside the folders a "
                                "log may name: it must be in the log's folder (or below --root DIR)"),
    ("../" * 12 + "dev/zero", "the spec '../../../../../../../../../../../../dev/zero' is outside the folders"),
    ("../outside.yaml", "the spec '../outside.yaml' is outside the folders a log may name"),
    ("link.yaml", "the spec 'link.yaml' is outside the folders a log may name"),
    ("passwd.yaml", "the spec 'passwd.yaml' is outside the folders a log may name"),
    ("nothere.yaml", "the spec 'nothere.yaml' of the log is not there"),
    (".", "the spec '.' of the log is not a file"),
    ("fifo.yaml", "the spec 'fifo.yaml' of the log is not a file"),
])
def test_a_log_cannot_name_a_spec_outside_its_folder(logs, spec, message):
    shutil.copy(TICTACTOE, logs.parent / "outside.yaml")
    os.symlink(logs.parent / "outside.yaml", logs / "link.yaml")
    os.symlink("/etc/passwd", logs / "passwd.yaml")
    os.mkfifo(logs / "fifo.yaml")
    log = write_log(logs, _log_lines(spec))
    for argv in (["replay", log], ["play", "--resume", log]):
        status, out, err = run(*argv)
        assert status == 1
        line = one_line(err)
        assert line.startswith("rulespec: ") and f"{log}:1: {message}" in line, line
        assert not PASSWD_LINE.search(out + err)


def test_root_allows_a_spec_below_it_and_nothing_above(logs):
    shutil.copy(TICTACTOE, logs.parent / "outside.yaml")
    log = write_log(logs, _log_lines("../outside.yaml"))
    assert run("replay", log, "--quiet")[0] == 1
    status, out, err = run("replay", log, "--quiet", "--root", str(logs.parent))
    assert status == 0, err
    assert "identical to the log" in out
    status, _, err = run("replay", log, "--quiet", "--root", str(logs))
    assert status == 1 and "it must be below the --root folder" in err
    # the API confines the same way
    (logged,) = read_log(log)
    with pytest.raises(LogError, match="outside the folders a log may name"):
        replay_match(logged)
    assert replay_match(logged, root=str(logs.parent)).is_terminal()


def test_stopping_a_match_whose_spec_is_elsewhere_says_how_to_resume(tmp_path):
    log = tmp_path / "cut.jsonl"
    status, out, _ = run("play", TICTACTOE, "--agents", "human,random", "--log", str(log), stdin="1\nq\n")
    assert status == 0
    assert f"Stopped. Continue with: rulespec play --resume {log} --root {GAMES}\n" in out
    status, out, err = run("play", "--resume", str(log), "--root", str(GAMES), stdin="q\n")
    assert status == 0, err
    assert "Resumed after 2 actions" in out


# ---------------------------------------------------------------------- logs: the header, the records, the bytes


HEADER_CASES = [
    ({"players": 2.5}, "'players' must be a whole number from 1 to 1000, not 2.5"),
    ({"players": True}, "'players' must be a whole number from 1 to 1000, not True"),
    ({"players": "2"}, "'players' must be a whole number from 1 to 1000, not '2'"),
    ({"players": 10**30}, "'players' must be a whole number from 1 to 1000, not 1000000000000000000000000000000"),
    ({"players": 3, "agents": ["random"] * 3, "agent_seeds": [1, 2, 3]}, "Tic-tac-toe is played by 2 players, not 3"),
    ({"seed": -1}, "'seed' must be a whole number from 0 to 2**64 - 1, not -1"),
    ({"seed": 2**64}, "'seed' must be a whole number from 0 to 2**64 - 1, not 18446744073709551616"),
    ({"seed": 1.5}, "'seed' must be a whole number from 0 to 2**64 - 1, not 1.5"),
    ({"options": [1]}, "'options' must be a mapping of option names to values, not [1]"),
    ({"options": {"x": {"a": 1}}}, "option 'x' must be a number, true/false or a short text, not {'a': 1}"),
    ({"options": {"nope": 1}}, "Tic-tac-toe has no option 'nope'"),
    ({"agents": ["random"]}, "'agents' must be a list of 2 agent names, not ['random']"),
    ({"agents": [1, 2]}, "'agents' must be a list of 2 agent names, not [1, 2]"),
    ({"agents": ["\x1b[2J", "random"]}, "'agents' must be a list of 2 agent names"),
    ({"agent_seeds": ["a", "b"]}, "'agent_seeds' must be a list of 2 whole numbers from 0 to 2**64 - 1"),
    ({"agent_seeds": [-1, 2]}, "'agent_seeds' must be a list of 2 whole numbers from 0 to 2**64 - 1"),
    ({"match": -1}, "'match' must be a whole number of at least 0, not -1"),
    ({"match": "0"}, "'match' must be a whole number of at least 0, not '0'"),
    ({"base_seed": 1.5}, "'base_seed' must be a whole number from 0 to 2**64 - 1, not 1.5"),
    ({"version": True}, "unknown log version True"),
    ({"game": "Chess"}, "the log is of 'Chess', the spec of 'Tic-tac-toe'"),
    ({"game": ["x"]}, "'game' must be the name of a game, not ['x']"),
    ({"spec": 42}, "'spec' must be the path of a spec file, not 42"),
    ({"spec": "tictactoe.yaml\x00"}, "'spec' must be the path of a spec file"),
]


@pytest.mark.parametrize("changes, message", HEADER_CASES)
def test_replay_and_resume_refuse_a_tampered_header_with_the_same_message(logs, changes, message):
    lines = _log_lines(**changes)
    for name, log_lines in (("done.jsonl", lines), ("cut.jsonl", lines[:3])):
        log = write_log(logs, log_lines, name)
        before = Path(log).read_bytes()
        lines_seen = []
        for argv in (["replay", log], ["play", "--resume", log]):
            status, _, err = run(*argv, stdin="q\n")
            assert status == 1, (argv, err)
            line = one_line(err)
            assert f"{log}:1: {message}" in line, line
            lines_seen.append(line.split(f"{log}:1: ", 1)[1])
        assert lines_seen[0] == lines_seen[1]
        assert Path(log).read_bytes() == before  # a refused log is not touched


@pytest.mark.parametrize("edit, replay_message, resume_message", [
    (lambda lines: lines[:-1] + [json.dumps({"player": 1, "action": 0, "label": "o(0,0)"})],
     "{log} match 0: action 8: the match is already over, but the log goes on",
     "{log}: action 8: the match is already over, but the log goes on"),
    (lambda lines: lines[:1] + [json.dumps({"player": 0, "action": 99, "label": "x"})],
     "action 1: action 99 ('x') is not legal here", "{log}: action 1: action 99 ('x') is not legal here"),
    (lambda lines: lines[:1] + [json.dumps({"player": 1, "action": 5, "label": "x(1,2)"})],
     "action 1: the log says player 1 moves, the rules say 0",
     "{log}: action 1: the log says player 1 moves, the rules say 0"),
    (lambda lines: lines[:1] + [json.dumps({"player": 0, "action": 5, "label": "x(9,9)"})],
     "action 1: the log says 'x(9,9)', the rules call action 5 'x(1,2)'",
     "{log}: action 1: the log says 'x(9,9)', the rules call action 5 'x(1,2)'"),
])
def test_replay_catches_the_tampering_resume_catches(logs, edit, replay_message, resume_message):
    log = write_log(logs, edit(_log_lines()))
    status, _, err = run("replay", log)
    assert status == 1
    assert one_line(err) == "rulespec: replay failed: " + replay_message.format(log=log)
    status, _, err = run("play", "--resume", log, stdin="q\n")
    assert status == 1
    assert one_line(err) == "rulespec: error: " + resume_message.format(log=log)


@pytest.mark.parametrize("line, message", [
    ("[" * 30000, "not a log record (JSON nested too deeply)"),
    ('{"a":' * 5000 + "1" + "}" * 5000, "not a log record (JSON nested too deeply)"),
    ('{"player":0,"action":' + "9" * 5000 + "}", "not a JSON line (a number of 5000 digits is too large)"),
    ('{"player":0,"action":NaN}', "not a JSON line (NaN is not a number JSON allows)"),
    ('{"player":0,"action":-Infinity}', "not a JSON line (-Infinity is not a number JSON allows)"),
    ('{"player":0,"action":1e999}', "not a JSON line (the number 1e999 is too large)"),
    ('{"player":0,"action":"5"}', "'action' must be an action id (a whole number of at least 0), not '5'"),
    ('{"player":0,"action":5.0}', "'action' must be an action id (a whole number of at least 0), not 5.0"),
    ('{"player":0,"action":true}', "'action' must be an action id (a whole number of at least 0), not True"),
    ('{"player":0,"action":-2}', "'action' must be an action id (a whole number of at least 0), not -2"),
    ('{"player":"0","action":5}', "'player' must be a seat number (or -1 for chance), not '0'"),
    ('{"player":0,"action":5,"label":7}', "'label' must be text, not 7"),
    ('{"player":0,"action":5,"label":"' + "x" * 40000 + '"}', "the line is longer than 32768 bytes"),
    ('{"end":"yes"}', "'end' must be true, not 'yes'"),
    ('{"end":true,"winners":"x"}', "'winners' must be a list, not 'x'"),
    ("[1, 2]", "expected a JSON object"),
    ('{"what":1}', "neither a header, an action nor an end line"),
    ('{"log":"other"}', "not a rulespec match log (log 'other')"),
    ("hello", "not a JSON line (Expecting value)"),
])
def test_a_malformed_line_is_one_positioned_error(logs, line, message):
    log = write_log(logs, _log_lines()[:1] + [line])
    for argv in (["replay", log], ["play", "--resume", log]):
        status, out, err = run(*argv)
        assert status == 1
        assert one_line(err) == f"rulespec: error: {log}:2: {message}"


@pytest.mark.parametrize("data, message", [
    (b'{"log":"rulespec-match"\xff}\n', "{log}:1: not UTF-8 text (byte 24 of the line)"),
    (b"\xef\xbb\xbf{}\n", "{log}:1: not a JSON line (Unexpected UTF-8 BOM (decode using utf-8-sig))"),
    (b"", "{log}: no match in this log"),
    (b"\n \n", "{log}: no match in this log"),
    (bytes(range(256)) + b"\n", "{log}:1: not a JSON line (Expecting value)"),
])
def test_bytes_that_are_not_a_log(logs, data, message):
    log = write_log(logs, data)
    status, _, err = run("replay", log)
    assert status == 1
    assert one_line(err) == "rulespec: error: " + message.format(log=log)


def test_the_bounds_of_a_log_are_checked_while_reading(logs, monkeypatch):
    import interpreter.replay as replay

    log = write_log(logs, _log_lines())
    monkeypatch.setattr(replay, "MAX_LOG_BYTES", 400)
    with pytest.raises(LogError, match=r"m\.jsonl:\d+: the log is longer than 400 bytes"):
        list(iter_log(log))


def test_a_line_cut_short_ends_the_log_and_resume_drops_it(logs):
    lines = _log_lines()
    log = write_log(logs, ("\n".join(lines[:3]) + '\n{"player":0,"act').encode())
    status, out, err = run("replay", log, "--quiet")
    assert status == 0, err
    assert "2 actions, the log stops here" in out
    # cut inside a UTF-8 character too
    log2 = write_log(logs, ("\n".join(lines[:3]) + "\n").encode() + '{"label":"é'.encode()[:-1], "cut2.jsonl")
    assert run("replay", log2, "--quiet")[0] == 0
    status, out, err = run("play", "--resume", log, "--agents", "human,random", stdin="q\n")
    assert status == 0, err
    assert Path(log).read_text() == "\n".join(lines[:3]) + "\n"


# ---------------------------------------------------------------------- errors, whatever they are


def test_an_unexpected_error_is_one_line_with_status_70(monkeypatch):
    def broken(*args):
        raise ZeroDivisionError("something went wrong\nsecond line")

    monkeypatch.setitem(cli.COMMANDS, "schema", broken)
    monkeypatch.delenv("RULESPEC_DEBUG", raising=False)
    status, out, err = run("schema")
    assert status == 70 and out == ""
    assert one_line(err) == ("rulespec: internal error: ZeroDivisionError: something went wrong "
                             "(please report; set RULESPEC_DEBUG=1 for the traceback)")
    monkeypatch.setenv("RULESPEC_DEBUG", "1")
    status, _, err = run("schema")
    assert status == 70 and "Traceback" in err and "ZeroDivisionError" in err


@pytest.mark.parametrize("exc, status, message", [
    (KeyboardInterrupt(), 130, "rulespec: interrupted"),
    (MemoryError(), 1, "rulespec: error: out of memory"),
    (OSError(28, "No space left on device", "out.json"), 1, "rulespec: error: out.json: No space left on device"),
    (UnicodeEncodeError("ascii", "é", 0, 1, "ordinal not in range(128)"), 1,
     "rulespec: error: 'ascii' codec can't encode character"),
    (LogError("m.jsonl:3: bad"), 1, "rulespec: error: m.jsonl:3: bad"),
])
def test_every_known_error_has_its_line_and_status(monkeypatch, exc, status, message):
    def failing(*args):
        raise exc

    monkeypatch.setitem(cli.COMMANDS, "schema", failing)
    got, _, err = run("schema")
    assert got == status
    assert one_line(err).startswith(message)


def spec_failing_at_turn(tmp_path: Path, turn: int) -> str:
    path = tmp_path / "failing.yaml"
    path.write_text(f"""\
rulespec: 1
game:
  name: Failing
  players: 2
variables:
  n: {{type: int}}
actions:
  go: {{do: [pass]}}
  stay: {{do: [pass]}}
round:
  turn:
    - choose: [go, stay]
    - if: turn >= {turn}
      then:
        - n = 7 // (turn - turn)
  end_when: turn >= 6
match:
  end_when: round >= 1
""")
    return str(path)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_rule_failing_in_a_match_names_the_match_and_the_rule(tmp_path, jobs):
    spec = spec_failing_at_turn(tmp_path, 3)
    status, out, err = run("simulate", spec, "--games", "20", "--no-progress", "--jobs", jobs)
    assert status == 1 and out == ""
    line = one_line(err)
    assert re.fullmatch(rf"rulespec: error while playing: match 0 \(seed \d+\): {re.escape(spec)}:15:15: "
                        r"division by zero", line), line
    status, _, err = run("play", spec, "--agents", "random")
    assert status == 1
    assert one_line(err) == f"rulespec: error while playing: {spec}:15:15: division by zero"


def test_the_plot_of_a_sure_win_has_no_negative_error_bars(tmp_path):
    result = simulate(TICTACTOE, 1, ["random"], seed=1)
    summary = summarize(result)
    # the rounding of a Wilson bound can put it a hair beyond the rate: the bar is then 0, not an error
    for seat in summary["seats"]:
        seat["ci"] = [seat["win_rate"] + 1e-17, seat["ci"][1]] if seat["win_rate"] == 0 else \
            [seat["ci"][0], seat["win_rate"] - 1e-17]
    for agent in summary["by_agent"]:
        agent["ci"] = [agent["win_rate"] + 1e-17, agent["win_rate"] - 1e-17]
    out = tmp_path / "p.png"
    plot([summary], [result], str(out))
    assert out.read_bytes()[:4] == b"\x89PNG"
    status, _, err = run("simulate", TICTACTOE, "--games", "1", "--no-progress", "--plot", str(tmp_path / "q.png"))
    assert status == 0, err


# ---------------------------------------------------------------------- Ctrl-C


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc to see the worker processes")
@pytest.mark.parametrize("target", ["group", "group", "parent"])
def test_ctrl_c_during_simulate_jobs_ends_cleanly(target):
    _interrupt_workers(["simulate", str(GAMES / "highjack.yaml"), "--players", "4", "--games", "5000", "--jobs", "2",
                        "--agents", "random"], target)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc to see the worker processes")
@pytest.mark.parametrize("target", ["group", "parent"])
def test_ctrl_c_during_sweep_jobs_ends_cleanly(target, tmp_path):
    """The sweep's workers are simulate's pool: the same Ctrl-C, the same clean end."""
    _interrupt_workers(["sweep", str(GAMES / "highjack.yaml"), "--players", "4", "--games", "5000", "--jobs", "2",
                        "--no-progress", "--out", str(tmp_path / "s.jsonl")], target)


def _interrupt_workers(argv: list[str], target: str) -> None:
    """Ctrl-C (to the process group, or to the parent alone) once two workers play: exit status
    130, one line, no traceback, and no worker left behind."""
    proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        workers = _children(proc.pid)
        time.sleep(1.0)  # the workers are playing
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C at a terminal does
        else:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    assert b"Traceback" not in out + err
    assert err.decode().rstrip().endswith("rulespec: interrupted")
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)  # no worker is left behind


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (OSError, IndexError):
        return False


class _InterruptedInput(io.StringIO):
    def readline(self, *args):  # the player presses Ctrl-C at the prompt
        raise KeyboardInterrupt


def test_ctrl_c_at_the_prompt_says_how_to_resume_and_exits_130(tmp_path):
    shutil.copy(TICTACTOE, tmp_path / "t.yaml")
    log = tmp_path / "m.jsonl"
    out, err = io.StringIO(), io.StringIO()
    status = main(["play", str(tmp_path / "t.yaml"), "--agents", "human,random", "--log", str(log)], out=out, err=err,
                  stdin=_InterruptedInput())
    assert status == 130
    assert out.getvalue().endswith(f"Stopped. Continue with: rulespec play --resume {log}\n")
    assert err.getvalue() == "rulespec: interrupted\n"
    (logged,) = read_log(str(log))
    assert logged.header["spec"] == "t.yaml" and not logged.actions


def test_the_spec_of_a_log_extends_only_below_the_same_folder(logs):
    shutil.copy(TICTACTOE, logs.parent / "base.yaml")
    (logs / "variant.yaml").write_text("rulespec: 1\nextends: ../base.yaml\n")
    log = write_log(logs, _log_lines("variant.yaml"))
    status, _, err = run("replay", log, "--quiet")
    assert status == 1
    assert one_line(err).startswith(f"{logs / 'variant.yaml'}:2:10: error: `extends` leads outside the folder")
    status, out, err = run("replay", log, "--quiet", "--root", str(logs.parent))
    assert status == 0, err
    assert "identical to the log" in out
