"""Golden playthroughs: behaviour may change only together with the files in tests/playthroughs.

After an intended change of behaviour, run ``python -m interpreter.playthrough --regenerate``
and review the diff.
"""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

import pytest

from interpreter import playthrough
from tests.conftest import ROOT

DIRECTORY = ROOT / "tests" / "playthroughs"

# one seeded match per seed game and mode
EXPECTED = {
    "highhand_4p.txt": ("games/highhand.yaml", 4, {"rounds": 1}),
    "highhand_4p_no_partnerships.txt": ("games/highhand.yaml", 4, {"rounds": 1, "partnerships": False}),
    "highhand_2p.txt": ("games/highhand.yaml", 2, {"rounds": 1}),
    "highjack_2p.txt": ("games/highjack.yaml", 2, {"max_rounds": 1}),
    "highjack_4p.txt": ("games/highjack.yaml", 4, {"max_rounds": 1}),
    "tictactoe.txt": ("games/tictactoe.yaml", 2, {}),
}

HINT = "behaviour changed: if intended, run `python -m interpreter.playthrough --regenerate` and review the diff"


def test_every_mode_has_a_playthrough():
    for name, (spec, players, options) in EXPECTED.items():
        path = DIRECTORY / name
        assert path.exists(), f"missing {path}"
        header = playthrough.read_header(path.read_text(encoding="utf-8"), str(path))
        assert (header["spec"], header["players"], header["options"]) == (spec, players, options)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_playthrough_is_up_to_date(name: str):
    path = DIRECTORY / name
    text = path.read_text(encoding="utf-8")
    fresh = playthrough.generate(playthrough.read_header(text, str(path)), ROOT)
    if fresh != text:
        diff = "".join(list(difflib.unified_diff(text.splitlines(True), fresh.splitlines(True), str(path),
                                                 "regenerated", n=1))[:40])
        pytest.fail(f"{path.name}: {HINT}\n{diff}")


def test_a_playthrough_lists_each_action_with_the_actors_observation():
    text = (DIRECTORY / "tictactoe.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    actions = [i for i, line in enumerate(lines) if line.startswith("action: ")]
    assert actions
    for i in actions:
        assert lines[i - 1].startswith("observation: ")
        view = json.loads(lines[i - 1][len("observation: "):])
        action_id, label = lines[i][len("action: "):].split(" ", 1)
        assert int(action_id) in view["legal_actions"] and json.loads(label)
        assert "events" not in view
    assert lines[-2].startswith("returns: ") and lines[-1].startswith("winners: ")


def test_a_changed_file_is_detected_and_regenerated(tmp_path: Path):
    directory = tmp_path / "tests" / "playthroughs"
    directory.mkdir(parents=True)
    shutil.copytree(ROOT / "games", tmp_path / "games")
    target = directory / "tictactoe.txt"
    original = (DIRECTORY / "tictactoe.txt").read_text(encoding="utf-8")
    target.write_text(original.replace("action: ", "action:  ", 1), encoding="utf-8")
    (directory / "notes.txt").write_text("not a playthrough\n", encoding="utf-8")
    assert playthrough.out_of_date(directory, tmp_path) == [target]
    assert playthrough.main(["--check", "--dir", str(directory)]) == 1
    assert playthrough.main(["--regenerate", "--dir", str(directory)]) == 0
    assert target.read_text(encoding="utf-8") == original
    assert playthrough.out_of_date(directory, tmp_path) == []
    assert playthrough.main(["--check", "--dir", str(directory)]) == 0


def test_a_new_playthrough_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "new.txt"
    assert playthrough.main([str(ROOT / "games" / "tictactoe.yaml"), "--seed", "1", "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (DIRECTORY / "tictactoe.txt").read_text(encoding="utf-8")
