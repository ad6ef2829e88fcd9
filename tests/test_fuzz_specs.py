"""Mutated seed games: the compiler either accepts them or reports positioned errors.

Lines are deleted, duplicated and swapped, characters changed, inserted and deleted, and
files truncated. Every outcome must be a compiled spec or a ``SpecError`` whose every
diagnostic has a place in the file; any other exception, or a hang, is a bug.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulespec import SpecError, compile_text
from tests.support import bounded

GAMES = Path(__file__).resolve().parent.parent / "games"
SEEDS = tuple(sorted(p.name for p in GAMES.glob("*.yaml")))
TEXTS = {name: (GAMES / name).read_text(encoding="utf-8") for name in SEEDS}
TIMEOUT = 10  # seconds per example: generous, a hang guard only

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs POSIX signal.alarm")

# characters that matter to YAML or to the rule language, and a few awkward ones
CHARS = list(" \t\n:-[]{}()\"'#&*!|>%@`,.=<+/\\?~") + ["a", "Z", "0", "9", "é", "\x00", "\ufeff", "\u2028"]

_index = st.integers(min_value=0, max_value=10**6)
MUTATION = st.one_of(
    st.tuples(st.just("delete_line"), _index),
    st.tuples(st.just("duplicate_line"), _index),
    st.tuples(st.just("swap_lines"), _index, _index),
    st.tuples(st.just("replace_char"), _index, st.sampled_from(CHARS)),
    st.tuples(st.just("insert_char"), _index, st.sampled_from(CHARS)),
    st.tuples(st.just("delete_char"), _index),
    st.tuples(st.just("truncate"), _index),
)


def mutate(text: str, mutation: tuple[Any, ...]) -> str:
    kind = mutation[0]
    if kind in ("delete_line", "duplicate_line", "swap_lines"):
        lines = text.splitlines(keepends=True)
        if not lines:
            return text
        i = mutation[1] % len(lines)
        if kind == "delete_line":
            del lines[i]
        elif kind == "duplicate_line":
            lines.insert(i, lines[i])
        else:
            j = mutation[2] % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)
    k = mutation[1] % (len(text) + 1)
    if kind == "replace_char":
        return text[:k] + mutation[2] + text[k + 1:]
    if kind == "insert_char":
        return text[:k] + mutation[2] + text[k:]
    if kind == "delete_char":
        return text[:k] + text[k + 1:]
    return text[:k]  # truncate


def compile_guarded(text: str, path: str) -> Any:
    """compile_text under a SIGALRM guard; fails the example when it takes too long."""
    with bounded(TIMEOUT):
        return compile_text(text, path)


def check_error(error: SpecError, text: str, path: str) -> None:
    assert error.diagnostics, "a SpecError without diagnostics"
    last_line = len(text.splitlines()) + 1  # the end of the file may be one line past the text
    for diag in error.diagnostics:
        span = diag.span
        assert span is not None, f"no position: {diag.message}"
        assert isinstance(diag.message, str) and diag.message.strip(), diag
        assert span.file == path, f"position in {span.file!r}, not in the spec: {diag.message}"
        if span.line == 0:  # a whole-file problem
            assert span.col == 0, diag
        else:
            assert 1 <= span.line <= last_line, diag
            assert span.col >= 1, diag
    formatted = error.format()
    assert formatted.count(": error: ") >= len(error.diagnostics)


THOROUGH = getattr(settings, "_current_profile", "default") == "thorough"


@settings(
    max_examples=2000 if THOROUGH else 500,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(seed=st.sampled_from(SEEDS), mutations=st.lists(MUTATION, min_size=1, max_size=4))
def test_mutated_seed_games_compile_or_fail_with_positions(seed: str, mutations: list[tuple[Any, ...]]) -> None:
    text = TEXTS[seed]
    for mutation in mutations:
        text = mutate(text, mutation)
    path = str(GAMES / seed)
    try:
        gamedef = compile_guarded(text, path)
    except SpecError as error:
        check_error(error, text, path)
    else:
        assert gamedef.name


def test_unmutated_seed_games_compile() -> None:
    for seed in SEEDS:
        assert compile_guarded(TEXTS[seed], str(GAMES / seed)).name


def test_mutations_change_the_text() -> None:
    text = "a: 1\nb: 2\nc: 3\n"
    assert mutate(text, ("delete_line", 1)) == "a: 1\nc: 3\n"
    assert mutate(text, ("duplicate_line", 4)) == "a: 1\nb: 2\nb: 2\nc: 3\n"
    assert mutate(text, ("swap_lines", 0, 2)) == "c: 3\nb: 2\na: 1\n"
    assert mutate(text, ("replace_char", 0, "x")) == "x: 1\nb: 2\nc: 3\n"
    assert mutate(text, ("insert_char", 2, "[")) == "a:[ 1\nb: 2\nc: 3\n"
    assert mutate(text, ("delete_char", 1)) == "a 1\nb: 2\nc: 3\n"
    assert mutate(text, ("truncate", 7)) == "a: 1\nb:"
