"""docs/architecture.md matches the code: every module of the engine is in its module map,
every module it names exists, and what it says about generated code holds."""

from __future__ import annotations

import re
import tomllib
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


def _subpackage_modules(package: str) -> set[str]:
    """The modules of ``package``'s sub-packages, as ``sub/name.py``."""
    return {p.relative_to(ROOT / package).as_posix() for p in (ROOT / package).glob("*/*.py")
            if not p.name.startswith("__")}


def test_the_subpackages_of_rulespec_are_in_the_map():
    """Each module of a sub-package of rulespec (``rulespec/check/``, ``rulespec/describe/``) is named
    (``check/info.py``)."""
    table = _map_of("rulespec")
    modules = _subpackage_modules("rulespec")
    assert len(modules) >= 10 and sorted(m for m in modules if f"`{m}`" not in table) == []
    named = {n for n in re.findall(r"`(\w+)/(\w+\.py)`", table) if (ROOT / "rulespec" / n[0]).is_dir()}
    assert sorted(f"{sub}/{name}" for sub, name in named if f"{sub}/{name}" not in modules) == []


def test_every_package_is_shipped():
    """pyproject.toml lists the packages one by one: a new sub-package must be added there."""
    packages = {".".join(p.parent.relative_to(ROOT).parts) for name in ("rulespec", "interpreter")
                for p in (ROOT / name).rglob("__init__.py")}
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    assert sorted(packages ^ listed) == []


def test_every_module_named_exists():
    named = set(re.findall(r"`(\w+\.py)`", DOC))
    assert sorted(named - _modules("rulespec") - _modules("interpreter")) == []


def test_the_generated_code_section_matches_the_code():
    assert "RULESPEC_CODEGEN=off" in DOC and "RULESPEC_CODEGEN=strict" in DOC
    for name in ("s", "e", "frame", "_ids"):
        assert f"`{name}`" in DOC and name in pycode.FIXED_NAMES
    assert "`len`" in DOC and "len" in pycode.ALLOWED_BUILTINS
    assert "rulespec compile --show-python" in DOC
