"""The spec's invariants are checked while bots play (issue 15, point 3): `rulespec simulate` after
every action of every match, and `rulespec validate --play N` on N random matches of every
variant the spec lists. The first violation is reported with the seed and the action number
that reproduce it, and the invariant's message and position; a correct spec reports nothing."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from interpreter.analysis.simulate import match_seeds, run_match, simulate
from interpreter.game import load_game
from tests.conftest import GAMES, ROOT
from tests.support import run

# Two seats take turns adding 1 (step) or 2 (leap) to a counter until it reaches 8; the
# invariant says the counter is never 5, which some random matches break and some do not.
STEPS = """\
rulespec: 1
game: {name: Steps, players: 2}
variables:
  steps: {type: int}
actions:
  step:
    label: step
    do: [steps += 1]
  leap:
    label: leap
    do: [steps += 2]
round:
  turn:
    - choose: [step, leap]
  end_when: steps >= 8
match:
  end_when: steps >= 8
invariants:
  - check: steps >= 0
    message: never negative
  - check: steps != 5
    message: never five steps
variants:
  - {players: 2}
"""
ADDS = {"step": 1, "leap": 2}


def position(path: Path, text: str) -> str:
    """`file:line:col` of the first line holding ``text``, at ``text``."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return f"{path}:{number}:{line.index(text) + 1}"
    raise AssertionError(text)


def seat_name(path: Path, player: int) -> str:
    return load_game(str(path), players=2).seat_names[player]


def first_five(labels: list[str]) -> int | None:
    """The number of the action after which the counter is 5 (1 = the first action), or None."""
    total = 0
    for number, label in enumerate(labels, 1):
        total += ADDS[label]
        if total == 5:
            return number
    return None


@pytest.fixture
def steps(tmp_path: Path) -> Path:
    path = tmp_path / "steps.yaml"
    path.write_text(STEPS, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------- simulate


def test_simulate_reports_the_first_match_and_action_that_break_an_invariant(steps: Path):
    games = 12
    result = simulate(str(steps), games, keep_moves=True)  # the same matches, played here
    found = [(r, first_five([label for _, _, label in r.moves or []])) for r in result.records]
    breaking = [(r, n) for r, n in found if n is not None]
    assert breaking and len(breaking) < games  # some matches break it, some do not
    record, action = breaking[0]
    player, _, label = (record.moves or [])[action - 1]
    status, out, err = run("simulate", str(steps), "--games", str(games), "--no-progress")
    assert status == 1 and out == ""
    assert record.seed == match_seeds(0, record.index, 2)[0]
    assert err == (f"rulespec: error while playing: match {record.index} (seed {record.seed}), after action {action} "
                   f"({seat_name(steps, player)}: {label}): {position(steps, 'check: steps != 5')}: invariant failed: "
                   "never five steps\n")


def test_the_report_is_the_same_with_worker_processes(steps: Path):
    one = run("simulate", str(steps), "--games", "12", "--no-progress", "--seed", "5")
    two = run("simulate", str(steps), "--games", "12", "--no-progress", "--seed", "5", "--jobs", "2")
    assert one[0] == two[0] == 1 and one[2] == two[2] and "invariant failed: never five steps" in one[2]


def test_no_invariants_skips_the_check(steps: Path):
    status, out, err = run("simulate", str(steps), "--games", "12", "--no-progress", "--no-invariants")
    assert status == 0 and "Win rate" in out, err


def test_a_correct_spec_simulates_as_before():
    status, out, err = run("simulate", str(GAMES / "highjack.yaml"), "--players", "4", "--games", "3",
                           "--no-progress", "--json", "/dev/null")
    assert status == 0 and err == "" and "Win rate" in out


def test_checking_changes_no_match(steps: Path, tmp_path: Path):
    good = tmp_path / "good.yaml"
    good.write_text(STEPS.replace("steps != 5", "steps != 50"), encoding="utf-8")
    checked, unchecked = tmp_path / "checked.json", tmp_path / "unchecked.json"
    for out, extra in ((checked, []), (unchecked, ["--no-invariants"])):
        status, _, err = run("simulate", str(good), "--games", "12", "--no-progress", "--jobs", "2",
                             "--json", str(out), *extra)
        assert status == 0, err
    assert checked.read_text(encoding="utf-8") == unchecked.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------- a variant with a changed deck


@pytest.fixture
def bigger_deck(tmp_path: Path) -> tuple[Path, Path]:
    """A Highjack variant with one more Bong, which keeps the base file's "60 cards per deck" invariant."""
    base = tmp_path / "highjack.yaml"
    shutil.copyfile(GAMES / "highjack.yaml", base)
    variant = tmp_path / "more_bongs.yaml"
    variant.write_text("extends: highjack.yaml\n"
                       "patches:\n"
                       "  - {op: replace, path: /cards/list/name=Bong/copies, value: 4}\n"
                       "variants:\n"
                       "  - {players: 3}\n"
                       "  - {name: quitter, players: 4, options: {end_rule: one_hitter_quitter}}\n", encoding="utf-8")
    return base, variant


def test_a_variant_that_changed_the_deck_breaks_the_base_invariant_at_once(bigger_deck: tuple[Path, Path]):
    base, variant = bigger_deck
    status, out, err = run("simulate", str(variant), "--players", "3", "--games", "2", "--no-progress")
    assert status == 1 and out == ""
    where = position(base, "check: count(cards) == 60 * option.decks")
    assert err == (f"rulespec: error while playing: match 0 (seed {match_seeds(0, 0, 3)[0]}), after the setup: "
                   f"{where}: invariant failed: 60 cards per deck\n")


def test_validate_play_reports_every_listed_variant_with_a_command_that_replays_it(bigger_deck: tuple[Path, Path]):
    base, variant = bigger_deck
    status, out, err = run("validate", "--play", "2", str(variant))
    assert status == 1 and out == ""
    where = position(base, "check: count(cards) == 60 * option.decks")
    assert err.splitlines() == [
        f"{variant}: variant '3p': seed 0: after the setup: {where}: invariant failed: 60 cards per deck",
        f"  replay it: rulespec play {variant} --players 3 --agents random --seed 0 --log match.jsonl",
        f"{variant}: variant 'quitter': seed 0: after the setup: {where}: invariant failed: 60 cards per deck",
        f"  replay it: rulespec play {variant} --players 4 --option end_rule=one_hitter_quitter --agents random "
        "--seed 0 --log match.jsonl",
        f"{variant}: 2 problems",
    ]


# ---------------------------------------------------------------------------------- validate --play


def test_validate_play_names_the_seed_and_action_and_its_command_replays_them(steps: Path, tmp_path: Path):
    status, out, err = run("validate", "--play", "30", str(steps))
    assert status == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == 3 and lines[2] == f"{steps}: 1 problem"
    command = shlex.split(lines[1].removeprefix("  replay it: "))
    assert command[:2] == ["rulespec", "play"]
    log = tmp_path / "match.jsonl"
    command[command.index("--log") + 1] = str(log)
    assert run(*command[1:])[0] == 0  # all bots: the whole match is played
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    labels = [e["label"] for e in entries if "action" in e]
    action = first_five(labels)
    seed = int(command[command.index("--seed") + 1])
    assert action is not None
    # the earlier seeds broke nothing: the report is the first failing match
    for earlier in range(seed):
        state_seed, agent_seeds = match_seeds(earlier, 0, 2)
        record = run_match(load_game(str(steps), players=2), ["random", "random"], state_seed, agent_seeds,
                           keep_moves=True)
        assert first_five([label for _, _, label in record.moves or []]) is None
    player = entries[action]["player"]  # entries[0] is the header
    assert lines[0] == (f"{steps}: variant '2p': seed {seed}: after action {action} ({seat_name(steps, player)}: "
                        f"{labels[action - 1]}): {position(steps, 'check: steps != 5')}: invariant failed: "
                        "never five steps")


def test_validate_play_of_correct_specs_reports_nothing():
    status, out, err = run("validate", "--play", "2", str(GAMES / "highjack.yaml"), str(GAMES / "tictactoe.yaml"))
    assert status == 0 and err == ""
    variants = out.count("\n")
    assert variants == 2
    assert "games/highjack.yaml: ok (Highjack); 2 random matches of each of 7 variants: invariants held" in out
    assert "games/tictactoe.yaml: ok (Tic-tac-toe); 2 random matches of each of" in out


def test_validate_play_without_listed_variants_plays_the_defaults(steps: Path, tmp_path: Path):
    plain = tmp_path / "plain.yaml"
    plain.write_text(STEPS.replace("steps != 5", "steps < 100").split("\nvariants:")[0] + "\n", encoding="utf-8")
    status, out, err = run("validate", "--play", "3", str(plain))
    assert (status, err) == (0, "")
    assert out == f"{plain}: ok (Steps); 3 random matches of each of 1 variant: invariants held\n"


def test_validate_without_play_does_not_play(steps: Path):
    status, out, err = run("validate", str(steps))
    assert (status, out, err) == (0, f"{steps}: ok (Steps)\n", "")


@pytest.mark.parametrize("value", ["-1", "x", "1.5", "99999999"])
def test_validate_play_takes_a_whole_number(steps: Path, value: str):
    status, _, err = run("validate", "--play", value, str(steps))
    assert status == 2 and "the number of matches" in err


def test_the_documented_report_is_what_simulate_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    documented = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    (line,) = [x for x in documented.splitlines() if x.startswith("rulespec: error while playing: match 0")]
    monkeypatch.chdir(tmp_path)
    Path("steps.yaml").write_text(STEPS, encoding="utf-8")
    status, _, err = run("simulate", "steps.yaml", "--games", "12", "--no-progress")
    assert status == 1 and err == line + "\n"


def test_validate_play_reports_a_variant_its_spec_refuses(tmp_path: Path):
    refused = tmp_path / "refused.yaml"
    refused.write_text(STEPS.replace("game: {name: Steps, players: 2}",
                                     "game:\n  name: Steps\n  players: 2\n"
                                     "  requires:\n    - {check: option.n > 1, message: n must exceed 1}\n"
                                     "options:\n  n: {type: int, default: 2, min: 0, max: 5}")
                       .replace("  - {players: 2}", "  - {players: 2, options: {n: 1}}"), encoding="utf-8")
    status, out, err = run("validate", "--play", "2", str(refused))
    assert (status, out) == (1, "")
    assert err.splitlines() == [f"{refused}: variant '2p,n=1': n must exceed 1 (2 players, n=1)",
                                f"{refused}: 1 problem"]
