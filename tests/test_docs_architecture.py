"""docs/architecture.md matches the code: every module of the engine is in its module map,
every module it names exists, and what it says about generated code holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from interpreter import pycode

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _modules(package: str) -> set[str]:
    return {p.name for p in (ROOT / package).glob("*.py") if not p.name.startswith("__")}


def _map_of(package: str) -> str:
    """The module map's table of ``package`` (a module of the same name in the other package
    must not stand in for it)."""
    start = DOC.index(f"`{package}/` —")
    end = min(i for i in (DOC.find("`interpreter/` —", start + 1), DOC.find("\n## ", start)) if i > 0)
    return DOC[start:end]


@pytest.mark.parametrize("package", ["rulespec", "interpreter"])
def test_every_module_is_in_the_map(package):
    table = _map_of(package)
    assert sorted(m for m in _modules(package) if f"`{m}`" not in table) == []


@pytest.mark.parametrize("package", ["rulespec", "interpreter"])
def test_every_module_in_the_map_exists(package):
    rows = [line.split("|")[1] for line in _map_of(package).splitlines() if line.startswith("| `")]
    named = {name for cell in rows for name in re.findall(r"`(\w+\.py)`", cell)}  # (the first column)
    assert len(named) > 10 and sorted(named - _modules(package)) == []


def test_every_module_named_exists():
    named = set(re.findall(r"`(\w+\.py)`", DOC))
    assert sorted(named - _modules("rulespec") - _modules("interpreter")) == []


def test_the_generated_code_section_matches_the_code():
    assert "RULESPEC_CODEGEN=off" in DOC and "RULESPEC_CODEGEN=strict" in DOC
    for name in ("s", "e", "frame", "_ids"):
        assert f"`{name}`" in DOC and name in pycode.FIXED_NAMES
    assert "`len`" in DOC and "len" in pycode.ALLOWED_BUILTINS
    assert "rulespec compile --show-python" in DOC
