"""The ```python blocks of docs/embedding.md run, in order, from the project root.

Blocks share one namespace (later examples use names from earlier ones). A block that
needs an optional extra which is not installed is skipped, and so are the blocks after
it that depend on it (they fail with NameError on its names).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from typing import Any

import pytest

from tests.conftest import ROOT

DOC = ROOT / "docs" / "embedding.md"
OPTIONAL = ("pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy")


def _blocks() -> list[tuple[int, str]]:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        line = text.count("\n", 0, match.start()) + 2
        out.append((line, match.group(1)))
    return out


BLOCKS = _blocks()


def test_the_page_has_examples_of_every_topic():
    text = DOC.read_text(encoding="utf-8")
    for heading in ("Loading a game", "States and actions", "Chance", "Observations", "Events", "Copying and saving",
                    "Errors", "OpenSpiel", "PettingZoo"):
        assert f"## {heading}" in text
    code = "\n".join(code for _, code in BLOCKS)
    for name in ("load_game", "new_initial_state", "legal_actions", "apply_action", "chance_outcomes",
                 "observation(", "events", "clone()", "to_json()", "state_from_json", "IllegalActionError",
                 "register(", "random_sim_test", "MCTSBot", "api_test", "seed_test"):
        assert name in code, name


@pytest.fixture(scope="module")
def results() -> dict[int, Any]:
    """Run every block once, in order; the outcome of each (None, an exception, or a skip reason)."""
    namespace: dict[str, Any] = {"__name__": "embedding_doc"}
    outcomes: dict[int, Any] = {}
    missing: list[str] = []
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for line, code in BLOCKS:
            needs = [m for m in OPTIONAL if re.search(rf"\b(import|from) {m}\b", code)]
            absent = [m for m in needs if not _available(m)]
            if absent:
                missing.extend(absent)
                outcomes[line] = f"needs {', '.join(absent)} (optional extra not installed)"
                continue
            try:
                with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                    # PettingZoo's api_test warns about dict observations of games it does not know
                    warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
                    warnings.filterwarnings("ignore", message="Observation space for each agent probably")
                    exec(compile(code, f"{DOC}:{line}", "exec"), namespace)
                outcomes[line] = None
            except NameError as exc:
                outcomes[line] = f"skipped after {missing}: {exc}" if missing else exc
            except Exception as exc:  # reported by the block's test
                outcomes[line] = exc
    finally:
        os.chdir(cwd)
    return outcomes


def _available(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("line", [line for line, _ in BLOCKS], ids=[f"line{line}" for line, _ in BLOCKS])
def test_example_runs(results: dict[int, Any], line: int):
    outcome = results[line]
    if isinstance(outcome, str):
        if os.environ.get("CI"):
            pytest.fail(f"CI must install every extra: {outcome}")
        pytest.skip(outcome)
    if outcome is not None:
        raise AssertionError(f"the example at docs/embedding.md:{line} failed: "
                             f"{type(outcome).__name__}: {outcome}") from outcome
