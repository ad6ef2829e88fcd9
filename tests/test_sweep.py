"""`rulespec sweep`: the same results on every backend, resuming, checked input, and its output.

The sweeps here are of Pig (a base spec and a variant file that extends it, in a temporary
folder) with two values of one option: 2 variants x 2 values x 6 matches, a few seconds.
The Ray test starts a local Ray instance of 2 CPUs; it is skipped on a machine without Ray,
and fails in CI (``CI`` set), where the `ray` extra must be installed.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import re
import signal
import sys

import pytest

from interpreter.analysis import sweep as sweep_module
from interpreter.analysis.simulate import match_seeds
from interpreter.analysis.sweep import (
    ResultsFile,
    combination_seed,
    local_backend,
    plan_sweep,
    run_sweep,
    summarize_sweep,
    sweep_json,
)
from tests.conftest import GAMES, require
from tests.support import run

GAMES_PER_COMBINATION = 6


@pytest.fixture
def specs(tmp_path):
    """A base spec and a variant of it with an eight-sided die."""
    base = tmp_path / "pig.yaml"
    base.write_text((GAMES / "pig.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    variant = tmp_path / "pig_d8.yaml"
    variant.write_text("extends: pig.yaml\noptions:\n  diceoutcomes: {default: 8}\n", encoding="utf-8")
    return [str(base), str(variant)]


def sweep_args(specs, tmp_path, name, *extra):
    return ["sweep", *specs, "--grid", "winscore=10,15", "--players", "2", "--games", str(GAMES_PER_COMBINATION),
            "--seed", "3", "--no-progress", "--out", str(tmp_path / f"{name}.jsonl"),
            "--json", str(tmp_path / f"{name}.json"), *extra]


def outputs(tmp_path, name, out):
    """What a sweep produced: its table, its JSON, and its results file's lines (in any order)."""
    lines = (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return out, (tmp_path / f"{name}.json").read_bytes(), lines[0], sorted(lines[1:])


def sweep(specs, tmp_path, name, *extra):
    status, out, err = run(*sweep_args(specs, tmp_path, name, *extra))
    assert status == 0, err
    return outputs(tmp_path, name, out)


# ---------------------------------------------------------------------- one result, whatever runs it


def test_a_sweep_covers_every_combination_with_seeds_derived_from_it(specs, tmp_path):
    table, data, header, lines = sweep(specs, tmp_path, "one")
    result = json.loads(data)
    combos = [(c["variant"], c["options"]["winscore"]) for c in result["combinations"]]
    assert combos == [("pig", 10), ("pig", 15), ("pig_d8", 10), ("pig_d8", 15)]
    assert [c["summary"]["options"]["diceoutcomes"] for c in result["combinations"]] == [6, 6, 8, 8]
    assert all(c["games"] == GAMES_PER_COMBINATION for c in result["combinations"])
    assert len(lines) == 4 * GAMES_PER_COMBINATION and json.loads(header)["parameters"]["games"] == 6
    for line in map(json.loads, lines):
        combo, record = line["combination"], line["record"]
        seed = combination_seed(3, combo["variant"], combo["players"], combo["options"])
        assert (record["seed"], record["agent_seeds"]) == tuple(match_seeds(seed, record["index"], 2))
    for variant, winscore in combos:
        assert any(row.split()[:3] == [variant, "2", str(winscore)] for row in table.splitlines())


def test_results_are_byte_identical_on_ray_and_on_local_processes_and_chunks(specs, tmp_path):
    one = sweep(specs, tmp_path, "jobs1")
    assert sweep(specs, tmp_path, "jobs2", "--jobs", "2") == one
    assert sweep(specs, tmp_path, "jobs2_chunk1", "--jobs", "2", "--chunk-size", "1") == one
    assert sweep(specs, tmp_path, "chunk5", "--chunk-size", "5") == one
    assert not multiprocessing.active_children()  # the workers are gone
    ray = require("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        assert sweep(specs, tmp_path, "ray", "--backend", "ray", "--jobs", "2") == one
        assert sweep(specs, tmp_path, "ray_chunk1", "--backend", "ray", "--chunk-size", "1") == one
        assert ray.is_initialized()  # an instance the caller started is left to the caller
    finally:
        ray.shutdown()


def test_without_ray_the_ray_backend_is_a_clear_usage_error(specs, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as when it is not installed
    status, out, err = run(*sweep_args(specs, tmp_path, "noray", "--backend", "ray"))
    assert status == 2 and out == ""
    assert err == "rulespec: error: --backend ray needs Ray: pip install 'rulespec[ray]' (see docs/sweeps.md)\n"
    assert not (tmp_path / "noray.jsonl").exists()


class FakeRay:
    """What the Ray backend uses of ``ray``, playing each task at once in this process."""

    class exceptions:  # (as ray names it)
        class RayError(Exception):
            pass

    class Ref:
        def __init__(self, value):
            self.value = value

    def __init__(self, fail_tasks=False, fail_init=False):
        self.inits, self.shutdowns, self.puts, self.initialized = [], 0, 0, False
        self.fail_tasks, self.fail_init = fail_tasks, fail_init

    def is_initialized(self):
        return self.initialized

    def init(self, **settings):
        if self.fail_init:
            raise ConnectionError("could not connect to the cluster")
        self.inits.append(settings)
        self.initialized = True

    def shutdown(self):
        self.shutdowns += 1
        self.initialized = False

    def cluster_resources(self):
        return {"CPU": 3}

    def put(self, value):
        self.puts += 1
        return self.Ref(value)

    def remote(self, num_cpus):
        assert num_cpus == 1

        class Task:
            def __init__(self, function):
                self.function = function

            def remote(task, bundle, *args):
                return self.Ref(task.function(bundle.value, *args))

        return Task

    def wait(self, refs, num_returns):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        if self.fail_tasks:
            raise self.exceptions.RayError("ray::play_chunk() (pid=7)\n"
                                           "ModuleNotFoundError: No module named 'interpreter'")
        return ref.value

    def cancel(self, ref, force):
        pass


def test_the_ray_backend_starts_ray_with_the_jobs_or_joins_the_address_and_ends_what_it_started(specs, tmp_path,
                                                                                                monkeypatch):
    one = sweep(specs, tmp_path, "local")
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    assert sweep(specs, tmp_path, "fake", "--backend", "ray", "--jobs", "2") == one
    assert sweep(specs, tmp_path, "fake_cluster", "--backend", "ray", "--address", "ray://head:10001") == one
    assert [s.get("num_cpus") for s in fake.inits] == [min(2, multiprocessing.cpu_count()), None]
    assert [s.get("address") for s in fake.inits] == [None, "ray://head:10001"]
    assert fake.shutdowns == 2 and fake.puts == 2 * 2  # each spec sent once per sweep


def test_a_ray_that_cannot_start_or_a_task_that_fails_is_one_line(specs, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", FakeRay(fail_init=True))
    status, _, err = run(*sweep_args(specs, tmp_path, "down", "--backend", "ray", "--address", "ray://head:10001"))
    assert (status, err) == (1, "rulespec: error: cannot reach the Ray cluster at ray://head:10001: "
                                "ConnectionError: could not connect to the cluster\n")
    fake = FakeRay(fail_tasks=True)
    monkeypatch.setitem(sys.modules, "ray", fake)
    status, _, err = run(*sweep_args(specs, tmp_path, "broken", "--backend", "ray"))
    assert status == 1 and err.startswith("rulespec: error: a Ray task failed (is rulespec installed on every "
                                          "worker? see docs/sweeps.md): RayError: ModuleNotFoundError: No module "
                                          "named 'interpreter'")
    assert fake.shutdowns == 1


def _killed(*args: object) -> None:
    """A chunk's play that ends its worker process as the system's OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_process_killed_is_one_line_and_not_a_bug(specs, tmp_path, monkeypatch):
    """A worker of the local pool killed (by a signal, or by the system when memory runs out)
    ends the run with exit status 1 and one line: the system's doing, not a bug to report.
    (The pool is sent ``_killed`` by name, in place of the chunk's play.)"""
    monkeypatch.setattr(sweep_module, "play_chunk", _killed)
    status, out, err = run(*sweep_args(specs, tmp_path, "killed", "--jobs", "2"))
    assert (status, out, err) == (1, "", "rulespec: error: a worker process was killed (out of memory?)\n")


def test_workers_compile_the_shipped_text_not_the_files(specs, tmp_path, monkeypatch):
    plan = plan_sweep(specs, [("winscore", [10, 15])], [2], 4, seed=3)
    expected = sweep_json(plan, summarize_sweep(plan, run_sweep(plan, local_backend(1))))
    for path in specs:
        (tmp_path / path).unlink()
    monkeypatch.setattr(sweep_module, "_COMPILED", {})  # no compiled spec is left over in this process
    monkeypatch.setattr(sweep_module, "_GAMES", {})
    again = sweep_json(plan, summarize_sweep(plan, run_sweep(plan, local_backend(1))))
    assert again == expected and len(sweep_module._COMPILED) == 2


# ---------------------------------------------------------------------- resuming


def interrupt_after(monkeypatch, chunks):
    """Ctrl-C after ``chunks`` chunks have been written to the results file."""
    written = []
    append = ResultsFile.append

    def append_then_stop(self, combination, records):
        append(self, combination, records)
        written.append(1)
        if len(written) == chunks:
            raise KeyboardInterrupt

    monkeypatch.setattr(ResultsFile, "append", append_then_stop)


def held(tmp_path, name):
    lines = (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    keys = [(json.dumps(json.loads(line)["combination"], sort_keys=True), json.loads(line)["record"]["index"])
            for line in lines]
    return keys


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_interrupted_sweep_resumes_without_repeating_or_losing_a_match(specs, tmp_path, monkeypatch, jobs):
    whole = sweep(specs, tmp_path, "whole")
    with monkeypatch.context() as patch:
        interrupt_after(patch, 3)
        status, _, err = run(*sweep_args(specs, tmp_path, "cut", "--jobs", jobs, "--chunk-size", "2"))
    assert status == 130 and "run the same command to continue" in err and "rulespec: interrupted" in err
    assert not multiprocessing.active_children()
    before = held(tmp_path, "cut")
    assert len(before) == 3 * 2 and len(set(before)) == len(before)
    status, out, err = run(*sweep_args(specs, tmp_path, "cut", "--jobs", jobs))
    total = 4 * GAMES_PER_COMBINATION
    assert status == 0 and f"holds {len(before)} of the {total} matches: playing the other {total - len(before)}" \
        in err
    after = held(tmp_path, "cut")
    assert after[: len(before)] == before and len(after) == len(set(after)) == total
    assert outputs(tmp_path, "cut", out) == whole


def test_a_last_line_cut_short_by_a_crash_is_dropped_and_played_again(specs, tmp_path):
    whole = sweep(specs, tmp_path, "whole")
    sweep(specs, tmp_path, "crash")
    path = tmp_path / "crash.jsonl"
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:10]) + lines[10][:25])  # 9 whole matches, and part of a tenth
    status, out, err = run(*sweep_args(specs, tmp_path, "crash"))
    assert status == 0 and "holds 9 of the 24 matches: playing the other 15" in err
    assert outputs(tmp_path, "crash", out) == whole
    assert len(held(tmp_path, "crash")) == 24


def test_a_finished_sweep_runs_again_without_playing(specs, tmp_path):
    whole = sweep(specs, tmp_path, "done")
    status, out, err = run(*sweep_args(specs, tmp_path, "done"))
    assert status == 0 and "holds 24 of the 24 matches: playing the other 0" in err
    assert outputs(tmp_path, "done", out) == whole


@pytest.mark.parametrize("change, what", [
    (["--games", "7"], "games"),
    (["--seed", "4"], "seed"),
    (["--agents", "greedy:1"], "agents"),
])
def test_a_results_file_of_another_sweep_is_refused(specs, tmp_path, change, what):
    sweep(specs, tmp_path, "other")
    before = (tmp_path / "other.jsonl").read_bytes()
    status, _, err = run(*sweep_args(specs, tmp_path, "other", *change))  # (the last --games or --seed counts)
    assert status == 2 and f"holds the results of another sweep ({what} differ)" in err
    assert (tmp_path / "other.jsonl").read_bytes() == before


def test_a_changed_spec_does_not_continue_its_old_results(specs, tmp_path):
    sweep(specs, tmp_path, "edit")
    with open(specs[1], "a", encoding="utf-8") as f:
        f.write("# edited\n")
    status, _, err = run(*sweep_args(specs, tmp_path, "edit"))
    assert status == 2 and "(the specs (their names or texts) differ)" in err


def test_a_file_that_is_not_a_sweep_s_results_is_left_alone(specs, tmp_path):
    (tmp_path / "notes.jsonl").write_text("my notes\n", encoding="utf-8")
    status, _, err = run(*sweep_args(specs, tmp_path, "notes"))
    assert status == 2 and "is not a sweep's results file" in err
    assert (tmp_path / "notes.jsonl").read_text(encoding="utf-8") == "my notes\n"


@pytest.mark.parametrize("edit, message", [
    (lambda line: "{not json\n", ":3: not a line of sweep results (JSON)"),
    (lambda line: line.replace('"seed":', '"seed":1,"x":'), ":3: not a match of this sweep"),
    (lambda line: line.replace('"winners":[', '"winners":[7,'), ":3: not a match of this sweep"),
    (lambda line: line.replace('"index":', '"index":1000+'), ":3: not a line of sweep results (JSON)"),
    (lambda line: line.replace('"seed":', '"seed":1'), ":3: not a match of this sweep"),
    (lambda line: line.replace('"winscore":10', '"winscore":11'), ":3: a match of a combination this sweep "
                                                                  "does not have"),
])
def test_a_damaged_line_inside_a_results_file_is_an_error_naming_it(specs, tmp_path, edit, message):
    sweep(specs, tmp_path, "bad")
    path = tmp_path / "bad.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = edit(lines[2])
    path.write_text("".join(lines), encoding="utf-8")
    status, _, err = run(*sweep_args(specs, tmp_path, "bad"))
    assert status == 1 and message in err and "Traceback" not in err


# ---------------------------------------------------------------------- untrusted input


@pytest.mark.parametrize("argv, message", [
    (["--grid", "winscor=10,15"], "--grid winscor: {spec} has no option 'winscor' (did you mean 'winscore'?)"),
    (["--grid", "winscore=0,15"], "{spec}, winscore=0: option 'winscore': 0 is below the minimum 1"),
    (["--grid", "winscore=10,,15"], "--grid 'winscore': an empty value"),
    (["--grid", "winscore=10,10"], "--grid 'winscore': a value is given twice"),
    (["--grid", "winscore=10", "--grid", "winscore=15"], "--grid 'winscore' is given twice"),
    (["--grid", "10,15"], "--grid '10,15': write NAME=V1,V2,..."),
    (["--grid", "winscore=10", "--option", "winscore=5"], "--grid winscore and --option winscore"),
    (["--grid", "winscore=" + ",".join(str(v) for v in range(1, 1002))], "1001 combinations: a sweep has at most "
                                                                         "1000"),
    (["--grid", "winscore=1,2", "--games", "6000000"], "2 combinations x 6000000 games = 12000000 matches: a "
                                                       "sweep plays at most 10000000"),
    (["--players", "2,11"], "{spec} with 11 players: Pig is played by 2 to 10 players, not 11"),
    (["--players", "2,2"], "a player count is given twice"),
    (["--agents", "random,random,random"], "3 agents for 2 players"),
    (["--agents", "human"], "sweep plays bots only"),
    (["--address", "auto"], "--address names a Ray cluster: it goes with --backend ray"),
    (["--chunk-size", "0"], "the chunk size must be from 1 to 10000, not 0"),
    (["--out", "{tmp}"], "--out {tmp}: that is a folder, not a file"),
    (["--plot", "{tmp}/no/such/p.png"], "--plot {tmp}/no/such/p.png: no such folder"),
    (["--grid", "winscore=" + "9" * 10_001], "--grid winscore: the value is longer than 10000 characters"),
    (["--backend", "spark"], "argument --backend: invalid choice: 'spark'"),
])
def test_bad_arguments_are_one_line_usage_errors(specs, tmp_path, argv, message):
    status, out, err = run("sweep", specs[0], "--games", "2", "--no-progress", *(a.format(tmp=tmp_path) for a in argv))
    assert status == 2 and out == ""
    assert message.format(spec=specs[0], tmp=tmp_path) in err and len(err.strip().splitlines()) == 1, err


FAILING = """\
rulespec: 1
game:
  name: Failing
  players: 2
options:
  at: {type: int, default: 3, min: 1, max: 9}
variables:
  n: {type: int}
actions:
  go: {do: [pass]}
  stay: {do: [pass]}
round:
  turn:
    - choose: [go, stay]
    - if: turn >= option.at
      then:
        - n = 7 // (turn - turn)
  end_when: turn >= 6
match:
  end_when: round >= 1
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_rule_failing_names_the_combination_the_match_and_the_rule_in_the_file_as_named(tmp_path, monkeypatch,
                                                                                          jobs):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "failing.yaml").write_text(FAILING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, err = run("sweep", "rules/failing.yaml", "--grid", "at=2,9", "--games", "3", "--jobs", jobs)
    assert status == 1 and out == ""
    assert re.fullmatch(r"rulespec: error while playing: failing, 2 players, at=2: match \d \(seed \d+\): "
                        r"rules/failing.yaml:17:15: division by zero\n", err), err


def test_two_variants_with_one_name_are_refused(specs, tmp_path):
    other = tmp_path / "sub"
    other.mkdir()
    (other / "pig.yaml").write_text("extends: ../pig.yaml\n", encoding="utf-8")
    status, _, err = run("sweep", specs[0], str(other / "pig.yaml"), "--games", "2", "--root", str(tmp_path))
    assert status == 2 and "two variants are named 'pig'" in err


# ---------------------------------------------------------------------- output


def test_the_table_has_a_row_per_combination_with_rates_and_intervals(specs, tmp_path):
    table, data, _, _ = sweep(specs, tmp_path, "table")
    result = json.loads(data)
    for row in result["combinations"]:
        first = row["summary"]["first_player"]
        seat = row["summary"]["seats"][0]
        cell = f"{100 * seat['win_rate']:.1f}% [{100 * seat['ci'][0]:.1f}, {100 * seat['ci'][1]:.1f}]"
        assert f"P0 {cell}" in table
        assert f"{100 * first['win_rate']:.1f}% [" in table and f"fair {100 * first['expected']:.1f}%" in table
        margins = [max(t) - min(t) for t in (line["record"]["totals"] for line in map(json.loads, _lines(tmp_path))
                                             if line["combination"]["variant"] == row["variant"]
                                             and line["combination"]["options"] == row["options"])]
        assert row["margin"]["mean"] == pytest.approx(sum(margins) / len(margins))
    assert "win rate (95% CI)" in table and "first player" in table and "margin" in table


def _lines(tmp_path):
    return (tmp_path / "table.jsonl").read_text(encoding="utf-8").splitlines()[1:]


def test_the_plot_has_a_row_per_grid_dimension(specs, tmp_path):
    require("matplotlib")
    status, _, err = run(*sweep_args(specs, tmp_path, "plot", "--plot", str(tmp_path / "sweep.png")))
    assert status == 0, err
    from PIL import Image

    with Image.open(tmp_path / "sweep.png") as image:
        width, height = image.size
    assert width == 1600 and height == 900  # two dimensions (variant, winscore): two rows of 450 pixels


def test_a_progress_bar_with_an_eta_only_on_a_terminal(specs, tmp_path):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    argv = [a for a in sweep_args(specs, tmp_path, "bar") if a != "--no-progress"]
    status, _, err = run(*argv, err=Terminal())
    assert status == 0 and "sweeping" in err and "eta" in err and "24/24" in err
    status, _, err = run(*argv[:-4], "--games", "7")  # not a terminal: no bar
    assert status == 0 and err == ""
