"""docs/rulebooks/ is current: every rulebook there is what `python tools/rulebooks.py` writes
today (the seed games and other games, Markdown and HTML)."""

from __future__ import annotations

import importlib.util

from tests.conftest import ROOT


def _tool():
    spec = importlib.util.spec_from_file_location("rulebooks_tool", ROOT / "tools" / "rulebooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rulebooks_in_docs_are_current():
    tool = _tool()
    expected = tool.expected()
    assert len(tool.GAMES) >= 5 and tool.GAMES[:2] == ("highjack", "highhand")
    stale = [str(p.relative_to(ROOT)) for p, text in expected.items()
             if not p.exists() or p.read_text(encoding="utf-8") != text]
    assert not stale, f"not current: {stale} (run python tools/rulebooks.py)"


def test_the_screenshots_of_both_seed_rulebooks_are_in_docs():
    for game in ("highjack", "highhand"):
        assert (ROOT / "docs" / "img" / f"rulebook-{game}.png").exists()
