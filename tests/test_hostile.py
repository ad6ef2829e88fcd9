"""The hostile-input corpus (issue 11): no spec, saved state, log or command line may read
files, run code, hang or crash the engine.

Every file of ``tests/hostile/`` is one case, run in its own subprocess from the repository
root under a 512 MB address-space limit, a 10 s CPU limit and a 10 s wall-clock limit (see
``tests/hostile/README.md`` for the format and how to reproduce a case by hand):

* ``specs/NAME.yaml`` (or ``specs/NAME/main.yaml``): ``rulespec validate`` exits 0, or 1 with a
  positioned ``FILE:LINE:COL: error:`` message. A spec whose first line is ``# hostile: play``
  must be valid, and ``rulespec simulate`` of two random matches (with ``--log``, so every
  chosen action's label is rendered) must exit 0, or 1 with a message naming the failing
  rule's ``FILE:LINE:COL``; when it exits 0, ``rulespec replay`` of that log must exit 0;
* ``logs/NAME.jsonl``: ``rulespec replay`` exits 0, or 1 with a message;
* ``states/NAME.json``: ``tests/hostile/run_case.py state`` loads the saved state (or gets a
  ``StateError``) and plays it to the end;
* ``cli/NAME.json``: ``rulespec ARGV...`` with the given stdin exits 0, 1, 2 or 130.

Nowhere may a traceback appear, the process be killed (CPU limit, signal) or the wall-clock
limit pass: those are the failures this file exists to catch.

Then every command of a case must exit and print exactly as recorded in
``tests/golden/hostile.json`` (the case's temporary folder written ``{tmp}``, the repository
``{root}``; an output over ``LONG_OUTPUT`` characters as its sha256, size and start), so every
message and position the corpus provokes stays as it is while the engine changes underneath
(issue 52). When an answer changes on purpose, record again and say why in the commit:

    python -m tests.test_hostile --write
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_golden

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "hostile"
SPECS, LOGS, STATES, CLI = CORPUS / "specs", CORPUS / "logs", CORPUS / "states", CORPUS / "cli"
RUN_CASE = CORPUS / "run_case.py"

MEMORY_BYTES = 512 * 2**20  # RLIMIT_AS of every case
CPU_SECONDS = 10  # RLIMIT_CPU: a backstop, the wall-clock limit normally comes first
WALL_SECONDS = 10.0
MAX_CASE_BYTES = 64 * 1024
MIN_CASES = {"specs": 60, "logs": 20, "states": 20, "cli": 20}
MIN_TOTAL = 150

PLAY_MARKER = "# hostile: play"
TRACEBACK = "Traceback (most recent call last)"
POSITIONED_ERROR = re.compile(r"^\S.*:\d+:\d+: error:", re.MULTILINE)
# an uncaught error's last line, or a one-line message ending in one (echoed spec lines are indented)
RUNAWAY = re.compile(r"^(?:\S.*?: )?(MemoryError|RecursionError)\b", re.MULTILINE)
INTERNAL_ERROR = re.compile(r"^rulespec: internal error", re.MULTILINE)  # the CLI's last-resort handler
POSITION = re.compile(r"(?<![\w/.-])([\w./-]+):(\d+):(\d+):")
CLI_EXIT = (0, 1, 2, 130)
ENV = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
for _name in ("PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONBREAKPOINT"):
    ENV.pop(_name, None)


# ---------------------------------------------------------------------- the corpus


def _spec_cases() -> list[Path]:
    if not SPECS.is_dir():
        return []
    cases = []
    for entry in sorted(SPECS.iterdir()):
        if entry.is_file() and entry.suffix == ".yaml":
            cases.append(entry)
        elif entry.is_dir() and (entry / "main.yaml").is_file():
            cases.append(entry / "main.yaml")
    return cases


def _files(folder: Path, suffix: str) -> list[Path]:
    return sorted(p for p in folder.glob(f"*{suffix}") if p.is_file()) if folder.is_dir() else []


CASES = {
    "specs": _spec_cases(),
    "logs": _files(LOGS, ".jsonl"),
    "states": _files(STATES, ".json"),
    "cli": _files(CLI, ".json"),
}


def _id(path: Path) -> str:
    return path.relative_to(SPECS).as_posix() if path.is_relative_to(SPECS) else path.name


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ---------------------------------------------------------------------- running one command


def _limit_resources() -> None:  # runs in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 2))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class Run:
    argv: list[str]
    status: int | None  # None: killed after the wall-clock limit
    out: str
    err: str
    wall: float

    @property
    def command(self) -> str:
        shown = ["python" if a == sys.executable else a for a in self.argv]
        return " ".join(shown)

    def report(self, problem: str) -> str:
        def tail(text: str) -> str:
            text = text.strip()
            return text if len(text) <= 3000 else "...\n" + text[-3000:]

        return (f"{problem}\n  command: {self.command}\n  exit status: {self.status}\n"
                f"  stdout:\n{tail(self.out)}\n  stderr:\n{tail(self.err)}")


def run(argv: list[str], stdin: str = "", wall: float = WALL_SECONDS) -> Run:
    """Run ``argv`` from the repository root under the limits; never waits past ``wall`` seconds."""
    proc = subprocess.Popen(argv, cwd=ROOT, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=_limit_resources, start_new_session=True)
    try:
        out, err = proc.communicate(stdin.encode("utf-8"), timeout=wall)
        status: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole session: simulate --jobs starts workers
        out, err = proc.communicate()
        status = None
    return Run(argv, status, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), wall)


def cli(*args: str, stdin: str = "") -> Run:
    return run([sys.executable, "-m", "interpreter.cli", *args], stdin)


def check_survived(result: Run, allowed: tuple[int, ...]) -> None:
    """Fail unless the process ended by itself, without a traceback, with an allowed status."""
    text = result.out + result.err
    if result.status is None:
        pytest.fail(result.report(f"hung: still running after {result.wall:g} s"))
    if result.status < 0:
        number = -result.status
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = str(number)
        why = " (the CPU limit)" if number == signal.SIGXCPU else ""
        pytest.fail(result.report(f"killed: by signal {name}{why}"))
    runaway = RUNAWAY.search(text)
    if runaway and runaway.group(1) == "MemoryError":
        pytest.fail(result.report(f"memory: the {MEMORY_BYTES // 2**20} MB limit was reached"))
    if runaway:
        pytest.fail(result.report("recursion: Python's recursion limit was reached"))
    if TRACEBACK in text:
        pytest.fail(result.report("traceback"))
    if INTERNAL_ERROR.search(result.err):
        pytest.fail(result.report("crash: the command line reported an internal error"))
    if result.status not in allowed:
        pytest.fail(result.report(f"exit status {result.status}, expected one of {allowed}"))


# ---------------------------------------------------------------------- the cases


@contextmanager
def case_folder() -> Iterator[Path]:
    """A new empty folder for a case's files, always named /tmp/tmpXXXXXXXX: a message that
    shortens a long text quoting the path then cuts it at the same place in every run, so what
    the case prints is the same once the path is written ``{tmp}``."""
    folder = tempfile.mkdtemp(dir="/tmp")
    try:
        yield Path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tmp() -> Iterator[Path]:
    with case_folder() as folder:
        yield folder



def _is_play_case(path: Path) -> bool:
    with path.open(encoding="utf-8", errors="replace") as f:
        return f.readline().strip() == PLAY_MARKER


def _names_a_position_in(text: str, case: Path) -> bool:
    """``text`` names ``FILE:LINE:COL`` of the case file (or a file of its directory case)."""
    home = case.parent if case.name == "main.yaml" and case.parent != SPECS else None
    for match in POSITION.finditer(text):
        where = (ROOT / match.group(1)).resolve()
        if where == case.resolve() or (home is not None and where.is_relative_to(home.resolve())):
            return True
    return False


def spec_runs(case: Path, tmp: Path) -> list[Run]:
    """A spec case's commands: validate; for a play case that validates, simulate; when that
    succeeds, replay of its log."""
    path = _rel(case)
    runs = [cli("validate", path)]
    if not _is_play_case(case) or runs[-1].status != 0:
        return runs
    log = str(tmp / "matches.jsonl")  # writing the log renders every chosen action's label
    runs.append(cli("simulate", path, "--games", "2", "--seed", "1", "--no-progress", "--log", log))
    if runs[-1].status != 0:
        return runs
    runs.append(cli("replay", log, "--quiet", "--root", "."))  # the log names a spec outside its folder
    return runs


def log_runs(case: Path, tmp: Path) -> list[Run]:
    return [cli("replay", _rel(case))]


def state_runs(case: Path, tmp: Path) -> list[Run]:
    return [run([sys.executable, _rel(RUN_CASE), "state", _rel(case)])]


def cli_runs(case: Path, tmp: Path) -> list[Run]:
    spec = json.loads(case.read_text(encoding="utf-8"))
    argv, stdin = spec.get("argv"), spec.get("stdin", "")
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), f"{case}: argv must be a list of texts"
    assert isinstance(stdin, str), f"{case}: stdin must be a text"
    return [cli(*[a.replace("{tmp}", str(tmp)) for a in argv], stdin=stdin)]


RUNS = {"specs": spec_runs, "logs": log_runs, "states": state_runs, "cli": cli_runs}


@pytest.mark.parametrize("case", CASES["specs"], ids=_id)
def test_spec(case: Path, tmp: Path) -> None:
    path = _rel(case)
    runs = spec_runs(case, tmp)
    checked = runs[0]
    check_survived(checked, (0, 1))
    if checked.status == 1 and not POSITIONED_ERROR.search(checked.err):
        pytest.fail(checked.report("an invalid spec without a FILE:LINE:COL: error: message"))
    if _is_play_case(case):
        if checked.status != 0:
            pytest.fail(checked.report(f"a `{PLAY_MARKER}` case must be a valid spec (it attacks the interpreter, "
                                       "not the checker)"))
        played = runs[1]
        check_survived(played, (0, 1))
        if played.status == 1:
            if not _names_a_position_in(played.err, case):
                pytest.fail(played.report(f"a failed match must name the rule's place: {path}:LINE:COL"))
        else:
            replayed = runs[2]
            check_survived(replayed, (0, 1))
            if replayed.status != 0:
                pytest.fail(replayed.report("the log of a finished simulation does not replay"))
    check_as_recorded("specs", case, runs, tmp)


@pytest.mark.parametrize("case", CASES["logs"], ids=_id)
def test_log(case: Path, tmp: Path) -> None:
    runs = log_runs(case, tmp)
    replayed = runs[0]
    check_survived(replayed, (0, 1))
    if replayed.status == 1 and not replayed.err.strip():
        pytest.fail(replayed.report("a failed replay without a message"))
    check_as_recorded("logs", case, runs, tmp)


@pytest.mark.parametrize("case", CASES["states"], ids=_id)
def test_state(case: Path, tmp: Path) -> None:
    runs = state_runs(case, tmp)
    played = runs[0]
    check_survived(played, (0, 1))
    if played.status == 1 and not played.err.strip():
        pytest.fail(played.report("a StateError without a message"))
    check_as_recorded("states", case, runs, tmp)


@pytest.mark.parametrize("case", CASES["cli"], ids=_id)
def test_cli(case: Path, tmp: Path) -> None:
    runs = cli_runs(case, tmp)
    check_survived(runs[0], CLI_EXIT)
    check_as_recorded("cli", case, runs, tmp)


# ---------------------------------------------------------------------- the corpus itself


def test_corpus_size() -> None:
    counts = {kind: len(cases) for kind, cases in CASES.items()}
    short = {kind: f"{counts[kind]} < {least}" for kind, least in MIN_CASES.items() if counts[kind] < least}
    assert not short, f"too few hostile cases: {short} (all: {counts})"
    assert sum(counts.values()) >= MIN_TOTAL, f"{sum(counts.values())} hostile cases, expected {MIN_TOTAL}: {counts}"


def test_cases_are_small() -> None:
    files = [p for p in CORPUS.rglob("*") if p.is_file() and p.name != "README.md"]
    big = [f"{_rel(p)}: {p.stat().st_size} bytes" for p in files if p.stat().st_size >= MAX_CASE_BYTES]
    assert not big, f"hostile cases must stay under {MAX_CASE_BYTES} bytes: {big}"


def test_play_marker_only_on_first_line() -> None:
    """A `# hostile: play` anywhere but the first line would silently skip the simulate run."""
    misplaced = []
    for case in CASES["specs"]:
        lines = case.read_text(encoding="utf-8", errors="replace").splitlines()
        if any(line.strip() == PLAY_MARKER for line in lines[1:]):
            misplaced.append(_rel(case))
    assert not misplaced, f"`{PLAY_MARKER}` must be the first line: {misplaced}"


@pytest.mark.parametrize(("code", "problem"), [
    ("raise ValueError('boom')", "traceback"),
    ("import sys; sys.setrecursionlimit(100); f = lambda: f(); f()", "recursion"),
    ("bytearray(1024 * 2**20)", "memory"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "killed: by signal SIGSEGV"),
    ("import time; time.sleep(60)", "hung"),
    ("import sys; sys.exit(3)", "exit status 3"),
    ("import sys; sys.stderr.write('rulespec: internal error: KeyError'); sys.exit(1)", "internal error"),
], ids=["traceback", "recursion", "memory", "signal", "hang", "status", "internal"])
def test_runner_catches(code: str, problem: str) -> None:
    """The harness itself: each way a case can go wrong makes the case fail."""
    result = run([sys.executable, "-c", code], wall=2.0)
    with pytest.raises(pytest.fail.Exception, match=problem):
        check_survived(result, (0, 1))


def test_runner_passes_a_clean_exit() -> None:
    check_survived(run([sys.executable, "-c", "print('fine')"], wall=5.0), (0, 1))


# ---------------------------------------------------------------------- golden outputs


GOLDEN = ROOT / "tests" / "golden" / "hostile.json"
LONG_OUTPUT = 2000  # characters: a longer output is recorded as its digest, its size and its start


def _recorded(text: str) -> str | dict[str, Any]:
    if len(text) <= LONG_OUTPUT:
        return text
    return {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "chars": len(text), "start": text[:500]}


def outcome(runs: list[Run], tmp: Path) -> list[dict[str, Any]]:
    """How each of a case's commands exited and what it printed, with the case's temporary
    folder written ``{tmp}`` and the repository's root ``{root}``."""
    def normal(text: str) -> str | dict[str, Any]:
        return _recorded(text.replace(str(tmp), "{tmp}").replace(str(ROOT), "{root}"))

    return [{"status": r.status, "stdout": normal(r.out), "stderr": normal(r.err)} for r in runs]


@functools.cache
def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def check_as_recorded(kind: str, case: Path, runs: list[Run], tmp: Path) -> None:
    """The case's commands exit and print exactly as recorded in tests/golden/hostile.json (every
    message and position the corpus provokes; issue 52 changes the engine, not its answers)."""
    key = f"{kind}/{_id(case)}"
    want = _golden()["cases"].get(key)
    assert want is not None, f"{key}: not recorded in {_rel(GOLDEN)} (python -m tests.test_hostile --write)"
    got = outcome(runs, tmp)
    if got != want:
        shown = [json.dumps(o, indent=1, ensure_ascii=False).splitlines() for o in (want, got)]
        diff = "\n".join(difflib.unified_diff(*shown, "recorded", "now", lineterm=""))
        pytest.fail(f"{key}: the commands answer differently from {_rel(GOLDEN)} (if intended, record again: "
                    f"python -m tests.test_hostile --write)\n{diff}")


def test_the_recording_covers_the_corpus() -> None:
    recorded = set(_golden()["cases"])
    cases = {f"{kind}/{_id(case)}" for kind, paths in CASES.items() for case in paths}
    assert recorded == cases, f"record again: not recorded {sorted(cases - recorded)}, gone {sorted(recorded - cases)}"


def write(jobs: int) -> None:
    """Run every case and record its outcome in tests/golden/hostile.json."""
    def one(item: tuple[str, Path]) -> tuple[str, list[dict[str, Any]]]:
        kind, case = item
        with case_folder() as tmp:
            return f"{kind}/{_id(case)}", outcome(RUNS[kind](case, tmp), tmp)

    items = [(kind, case) for kind, paths in CASES.items() for case in paths]
    with ThreadPoolExecutor(jobs) as pool:
        outcomes = dict(pool.map(one, items))
    write_golden(GOLDEN, "exit status and output of every case of tests/hostile: see tests/test_hostile.py; "
                 "record with its --write", outcomes)
    print(f"wrote {GOLDEN} ({len(outcomes)} cases)", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_hostile --write")
    write(jobs=2)
