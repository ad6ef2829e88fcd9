"""docs/architecture.md matches the code: every module of the engine is in its module map,
every module it names exists, and what it says about generated code holds."""

from __future__ import annotations

import re
from pathlib import Path

from interpreter import pycode

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _modules() -> set[str]:
    return {p.name for package in ("rulespec", "interpreter") for p in (ROOT / package).glob("*.py")
            if not p.name.startswith("__")}


def test_every_module_is_in_the_map():
    assert sorted(m for m in _modules() if f"`{m}`" not in DOC) == []


def test_every_module_named_exists():
    named = set(re.findall(r"`(\w+\.py)`", DOC))
    assert sorted(named - _modules()) == []


def test_the_generated_code_section_matches_the_code():
    assert "RULESPEC_CODEGEN=off" in DOC and "RULESPEC_CODEGEN=strict" in DOC
    for name in ("s", "e", "frame", "_ids"):
        assert f"`{name}`" in DOC and name in pycode.FIXED_NAMES
    assert "`len`" in DOC and "len" in pycode.ALLOWED_BUILTINS
    assert "rulespec compile --show-python" in DOC
