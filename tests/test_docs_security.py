"""docs/security.md matches the code: its limits tables are the defaults, its example runs."""

from __future__ import annotations

import re

from interpreter.limits import DEFAULT_LIMITS, RunLimits
from tests.conftest import ROOT

DOC = ROOT / "docs" / "security.md"
TEXT = DOC.read_text(encoding="utf-8")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_every_run_limit_is_documented_with_its_default():
    rows = dict(re.findall(r"^\| `(\w+)` \| ([\d,]+) \|", TEXT, re.M))
    combined = re.search(r"^\| `max_events` / `max_log` \| ([\d,]+) / ([\d,]+) units", TEXT, re.M)
    assert combined is not None
    rows["max_events"], rows["max_log"] = combined.groups()
    for name in RunLimits.__dataclass_fields__:
        assert name in rows, f"RunLimits.{name} is not in docs/security.md"
        assert _number(rows[name]) == getattr(DEFAULT_LIMITS, name), name


def test_the_compile_limits_are_the_codes():
    from interpreter.cards import MAX_CARDS
    from interpreter.link import MAX_PIECES
    from rulespec.check import MAX_ACTIONS
    from rulespec.language import MAX_DEPTH, MAX_TEXT
    from rulespec.source import Limits
    from rulespec.variants import MAX_EXTENDS_DEPTH

    text = " ".join(TEXT.split())
    assert MAX_PIECES == MAX_CARDS  # the table gives one number for both
    for phrase in (
        f"| file size | {Limits.max_bytes // 1_000_000} MB",
        f"{Limits.max_nodes:,} values (aliases expanded) / {Limits.max_aliases} aliases / {Limits.max_depth} levels",
        f"{Limits.max_rules:,}; each at most {MAX_TEXT:,} characters, nesting {MAX_DEPTH} levels",
        f"{Limits.max_number_text} characters at most as written",
        f"| `extends` chain | {MAX_EXTENDS_DEPTH} files deep |",
        f"| cards / pieces | {MAX_CARDS:,} each |",
        f"at most {MAX_ACTIONS:,} in a spec",
    ):
        assert phrase in text, phrase


def test_the_example_runs():
    blocks = re.findall(r"^```python\n(.*?)^```", TEXT, re.S | re.M)
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {})
