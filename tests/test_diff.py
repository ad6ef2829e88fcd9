"""`rulespec diff` (issue 54): what a variant changes, in the rulebook's words, and what each of
its patches changes, so a patch that hit the wrong statement, or nothing, shows."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import rulespec
from rulespec.describe import describe
from rulespec.diff import Change, diff_variant
from tests.conftest import GAMES, ROOT
from tests.support import run


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copyfile(GAMES / "highjack.yaml", tmp_path / "highjack.yaml")
    return tmp_path


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def base_option_default(name: str) -> int:
    gamedef = rulespec.compile_file(GAMES / "highjack.yaml")
    return next(o.default for o in gamedef.model.options if o.name == name)


def base_hand_size() -> int:
    """The number the base's round setup deals (from its `deal N from pile to hand`)."""
    found = re.search(r"- deal (\d+) from pile to hand", (GAMES / "highjack.yaml").read_text(encoding="utf-8"))
    assert found
    return int(found.group(1))


def only_number_differs(change: Change, old: int, new: int) -> bool:
    """``change`` is a line that says ``old`` before and ``new`` after, and nothing else differs."""
    return (re.search(rf"\b{old}\b", change.before) is not None
            and re.sub(rf"\b{old}\b", str(new), change.before) == change.after)


HAND_AND_TARGET = """\
extends: highjack.yaml
options:
  target: {{default: {target}}}
patches:
  - op: replace
    path: /round/setup/3
    was: deal {hand} from pile to hand
    value: deal {new_hand} from pile to hand
"""


def test_a_changed_hand_size_and_target_score_are_each_found(folder):
    hand, target = base_hand_size(), base_option_default("target")
    new_hand, new_target = hand + 2, target // 2
    path = write(folder, "v.yaml", HAND_AND_TARGET.format(target=new_target, hand=hand, new_hand=new_hand))
    found = diff_variant(str(path), base_path=str(folder / "highjack.yaml"))
    assert found is not None
    changes = list(found.changes)
    # the option's default, from the structure
    assert Change("changed", "Options, target, default", str(target), str(new_target)) in changes
    # the number in the setup, in the rulebook's words, located in its section
    hands = [c for c in changes if c.kind == "changed" and only_number_differs(c, hand, new_hand)]
    assert len(hands) == 1, changes
    setup_heading = next(line[3:] for line in describe(rulespec.compile_file(path), "players").splitlines()
                         if line.startswith("## ") and "etup" in line and "round" in line)
    assert hands[0].where == f"{setup_heading}, step 4"  # the fourth statement of the round's setup
    # the condition the target is part of (the end of the match), in words
    goals = [c for c in changes if c.kind == "changed" and only_number_differs(c, target, new_target)
             and c.where != "Options, target, default"]
    assert len(goals) == 1, changes
    # nothing else changed
    assert len(changes) == 3, changes
    text = found.text()
    for change in (hands[0], goals[0]):
        assert change.before in text and change.after in text and change.where in text


def test_the_cli_prints_the_changes_and_each_patch(folder):
    hand, target = base_hand_size(), base_option_default("target")
    path = write(folder, "v.yaml", HAND_AND_TARGET.format(target=target + 1, hand=hand, new_hand=hand + 1))
    status, out, err = run("diff", str(folder / "highjack.yaml"), str(path))
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == f"{path} against {folder / 'highjack.yaml'}"
    assert f"  Options, target, default: {target} -> {target + 1}" in out.splitlines()
    assert "Each step of the variant:" in out
    patch_line = next(line for line in out.splitlines() if "patch 1:" in line)
    assert patch_line.startswith(f"  patch 1: replace /round/setup/3 ({path}:5:5): ")
    assert "step 4" in patch_line


def test_the_issues_wrong_index_shows_in_the_diff(folder):
    """Without `was:`, the wrong index still cannot pass unseen: the diff shows the shuffle gone."""
    hand = base_hand_size()
    path = write(folder, "v.yaml", f"extends: highjack.yaml\npatches:\n"
                 f"  - {{op: replace, path: /round/setup/2, value: deal {hand + 1} from pile to hand}}\n")
    found = diff_variant(str(path))
    assert found is not None and found.base == "highjack.yaml"
    [change] = found.changes
    assert change.kind == "changed" and change.where.endswith(", step 3")
    assert "shuffle" in change.before and "shuffle" not in change.after and str(hand + 1) in change.after
    [step] = found.steps
    assert step.label == "patch 1: replace /round/setup/2" and step.changes == found.changes


def test_a_patch_that_changes_nothing_the_rules_show_says_so(folder):
    path = write(folder, "v.yaml", "extends: highjack.yaml\npatches:\n"
                 "  - {op: replace, path: /heuristic, value: p.total}\n"
                 "  - {op: replace, path: /cards/list/name=Bong/copies, value: 1}\n")
    found = diff_variant(str(path))
    assert found is not None
    first, second = found.steps
    assert first.changes == () and first.text() == (
        f"patch 1: replace /heuristic ({path}:3:5): changes nothing the rules show")
    assert [c.where for c in second.changes] == ["Cards, Bong, copies"]
    assert found.changes == second.changes


def test_players_options_and_cards(folder):
    path = write(folder, "v.yaml", """\
extends: highjack.yaml
game: {players: {max: 4}}
options:
  fast: {type: bool, default: true, description: a new option}
patches:
  - {op: remove, path: /cards/list/name=Bong}
  - {op: replace, path: /cards/list/name=Lighter/points, value: 11}
""")
    found = diff_variant(str(path))
    assert found is not None
    texts = [c.text() for c in found.changes]
    base = rulespec.compile_file(GAMES / "highjack.yaml").model
    assert f"Players: {min(base.players)} to {max(base.players)} -> {min(base.players)} to 4" in texts
    assert "Options, fast: added: bool, default true" in texts
    assert "Cards, Lighter, points: 10 -> 11" in texts
    removed = [c for c in found.changes if c.kind == "removed" and c.where == "Cards, Bong"]
    assert len(removed) == 1 and removed[0].before == "copies 3, type stash, points 20"


def test_a_spec_without_extends_needs_a_base(folder):
    assert diff_variant(str(folder / "highjack.yaml")) is None
    found = diff_variant(str(folder / "highjack.yaml"), base_path=str(folder / "highjack.yaml"))
    assert found is not None and found.changes == () and "no change the rules show" in found.text()


def test_options_compare_both_specs_with_that_default(folder):
    target = base_option_default("target")
    path = write(folder, "v.yaml", f"extends: highjack.yaml\noptions:\n  target: {{default: {target + 5}}}\n")
    status, out, _ = run("diff", str(folder / "highjack.yaml"), str(path), "-O", f"target={target}")
    assert status == 0 and "no change the rules show" in out
    status, _, err = run("diff", str(folder / "highjack.yaml"), str(path), "-O", "nope=1")
    assert status == 1 and "the spec has no option 'nope'" in err


def test_bad_input_is_a_clear_error(folder):
    status, _, err = run("diff", str(folder / "nope.yaml"), str(folder / "highjack.yaml"))
    assert (status, err) == (2, f"rulespec: error: no such file: {folder / 'nope.yaml'}\n")
    bad = write(folder, "bad.yaml", "extends: highjack.yaml\npatches:\n  - {op: remove, path: /round/setup/x}\n")
    status, _, err = run("diff", str(folder / "highjack.yaml"), str(bad))
    assert status == 1
    assert err.startswith(f"{bad}:3:37: error: patch path: nothing in the list /round/setup is named 'x'")


def test_validate_verbose_shows_what_each_variant_changes(folder):
    target = base_option_default("target")
    path = write(folder, "v.yaml", f"extends: highjack.yaml\noptions:\n  target: {{default: {target + 5}}}\n")
    status, out, _ = run("validate", "-v", str(path), str(folder / "highjack.yaml"))
    assert status == 0
    lines = out.splitlines()
    assert f"    Options, target, default: {target} -> {target + 5}" in lines
    assert "  v.yaml against highjack.yaml" not in lines and f"  {path} against highjack.yaml" in lines
    # the base itself is no variant: nothing after its deck lines
    after_base = lines[lines.index(f"{folder / 'highjack.yaml'}: ok (Highjack)") + 1:]
    assert all(line.startswith("  Deck") for line in after_base)


def test_the_documented_example_is_what_diff_prints(folder, monkeypatch):
    """docs/cli.md's `rulespec diff` example, run: its output is the one documented."""
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = doc[doc.index("## `rulespec diff`"):doc.index("## `rulespec compile`")]
    variant_text = re.search(r"```yaml\n(.*?)```", section, re.S)
    printed = re.search(r"```text\n\$ rulespec diff (\S+) (\S+)\n(.*?)```", section, re.S)
    assert variant_text and printed
    base, name, expected = printed.groups()
    assert base == "highjack.yaml"
    write(folder, name, variant_text.group(1))
    monkeypatch.chdir(folder)
    status, out, err = run("diff", base, name)
    assert (status, err) == (0, "")
    assert out == expected, "docs/cli.md's example is out of date: it prints\n" + out


def test_the_steps_shown_one_by_one_are_bounded(tmp_path):
    from tests.test_variants_named_statements import BASE

    (tmp_path / "base.yaml").write_text(BASE, encoding="utf-8")
    patches = "".join(f"  - {{op: replace, path: /round/end_when, value: turn >= {n}}}\n" for n in range(7, 12))
    path = write(tmp_path, "v.yaml", "extends: base.yaml\npatches:\n" + patches)
    found = diff_variant(str(path), max_steps=3)
    assert found is not None and len(found.steps) == 3
    assert found.notes == ("(only the first 3 of the variant's 5 steps are shown one by one)",)
    assert [s.label for s in found.steps] == [f"patch {n}: replace /round/end_when" for n in (1, 2, 3)]
    assert all(s.changes for s in found.steps)
    # the whole variant is still compared in full
    assert [c.after for c in found.changes if c.kind == "changed"] and "11" in found.text()
