"""`compile_text(..., files=...)`: `extends` may name only the files given, and nothing is
read from disk (how the playground compiles pasted text against the specs it serves)."""

from __future__ import annotations

import pytest

from rulespec import SpecError, compile_text
from tests.conftest import ROOT

HIGHHAND = (ROOT / "games" / "highhand.yaml").read_text(encoding="utf-8")


def _problem(text: str, files: dict[str, str]) -> str:
    with pytest.raises(SpecError) as caught:
        compile_text(text, "editor.yaml", files=files)
    return str(caught.value)


def test_a_given_spec_is_extended_by_its_name():
    gamedef = compile_text("extends: highhand.yaml\ngame: {name: Mine}\n", "editor.yaml",
                           files={"highhand.yaml": HIGHHAND})
    assert gamedef.name == "Mine" and gamedef.path == "editor.yaml"
    assert set(gamedef.sources) == {"editor.yaml", "highhand.yaml"}


def test_a_base_file_extends_relative_to_itself():
    files = {"v/variant.yaml": "extends: ../base.yaml\ngame: {name: Deeper}\n", "base.yaml": HIGHHAND}
    assert compile_text("extends: v/variant.yaml\n", "editor.yaml", files=files).name == "Deeper"


@pytest.mark.parametrize("ref", ["secrets.yaml", "chess.yaml", "../highhand.yaml", "sub/../../highhand.yaml"])
def test_no_other_file_is_read_and_none_is_quoted(ref, tmp_path, monkeypatch):
    (tmp_path / "secrets.yaml").write_text("password: hunter2\n", encoding="utf-8")
    (tmp_path / "chess.yaml").write_text(HIGHHAND, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the files are there, next to where the text is compiled
    message = _problem(f"extends: {ref}\n", {"highhand.yaml": HIGHHAND})
    assert message.startswith(f"editor.yaml:1:10: error: `extends` may name only a spec given here, not {ref}\n")
    assert "hint: the specs: highhand.yaml" in message
    assert "hunter2" not in message and str(tmp_path) not in message


def test_absolute_paths_and_cycles_are_refused_at_the_extends_line():
    assert "not an absolute path" in _problem("extends: /etc/passwd.yaml\n", {"highhand.yaml": HIGHHAND})
    cycle = _problem("extends: a.yaml\n", {"a.yaml": "extends: b.yaml\n", "b.yaml": "extends: a.yaml\n"})
    assert "b.yaml:1:10: error: `extends` makes a cycle: editor.yaml -> a.yaml -> b.yaml -> a.yaml" in cycle


def test_with_no_files_given_nothing_can_be_extended():
    message = _problem("extends: highhand.yaml\n", {})
    assert "may name only a spec given here" in message and "hint: no spec is given to extend" in message
