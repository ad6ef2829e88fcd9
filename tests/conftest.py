"""Shared test settings: hypothesis profiles and paths."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

# quick and reproducible by default (CI: the same examples on every run, so a red run
# means a change broke something); `pytest --hypothesis-profile=thorough` explores anew
settings.register_profile(
    "default",
    max_examples=50,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def require(module: str) -> ModuleType:
    """An optional extra (pyspiel, pettingzoo, ...): a test that needs it is skipped on a
    machine without it, but fails in CI (``CI`` set), where every extra must be installed."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module)
