"""docs/playground.md matches the server: every limit with its default, every picture there."""

from __future__ import annotations

import io
import re

from tests.conftest import ROOT

DOC = ROOT / "docs" / "playground.md"
TEXT = DOC.read_text(encoding="utf-8")


def test_every_limit_is_documented_with_its_default_and_in_the_help(capsys):
    from interpreter.cli import main
    from interpreter.serve.limits import LIMITS

    rows = {flag: default for flag, default in re.findall(r"^\| `(--[\w-]+) [A-Z]+`[^|]* \| ([\d.,]+) \|", TEXT, re.M)}
    out = io.StringIO()
    try:
        main(["serve", "--help"], out, io.StringIO())
    except SystemExit:
        pass
    help_text = " ".join((out.getvalue() + capsys.readouterr().out).split())
    for limit in LIMITS:
        assert limit.flag in rows, f"{limit.flag} is not in docs/playground.md"
        assert float(rows[limit.flag].replace(",", "")) == limit.default, limit.flag
        assert f"{limit.flag} {limit.metavar}" in help_text and f"(default {limit.default:g})" in help_text


def test_every_picture_is_there_and_every_screenshot_is_shown():
    pictures = re.findall(r"!\[[^\]]*\]\((img/[\w.-]+)\)", TEXT)
    assert pictures
    for picture in pictures:
        assert (ROOT / "docs" / picture).is_file(), picture
    browser_tests = (ROOT / "tests" / "test_serve_browser.py").read_text(encoding="utf-8")
    assert "highhand-2p-1280x800.png" in pictures[0] or "img/highhand-2p-1280x800.png" in pictures
    for width, height in re.findall(r"\((\d+), (\d+)\)", browser_tests.split("SIZES = ")[1].splitlines()[0]):
        for shot in (f"img/highjack-4p-{width}x{height}.png", f"img/highhand-2p-{width}x{height}.png"):
            assert shot in pictures, shot
