"""The shipped LALR table (rulespec/grammar_table.json) parses exactly as the grammar does."""

from __future__ import annotations

import glob
from importlib import resources

import lark

import rulespec.language as language
from rulespec import compile_file
from rulespec.errors import SpecError
from rulespec.grammar_table import _OPTIONS, _grammar, build_parser, grammar_stamp, load_parser, shipped_table

SPECS = sorted(glob.glob("games/*.yaml")) + sorted(glob.glob("tests/specs/invalid/*.yaml"))


def test_the_table_is_built_from_the_grammar_in_the_package():
    grammar = resources.files("rulespec").joinpath("grammar.lark").read_text(encoding="utf-8")
    assert shipped_table()["grammar"] == grammar_stamp(grammar), "run: python tools/grammar_table.py"


def test_the_shipped_table_is_used_only_with_the_lark_it_was_built_with():
    loaded = load_parser().source_path == "<deserialized>"
    assert loaded == (shipped_table()["lark"] == lark.__version__)


def _compile_all() -> list[object]:
    results: list[object] = []
    for path in SPECS:
        try:
            results.append(compile_file(path).model)
        except SpecError as exc:
            results.append(str(exc))
    return results


def test_every_spec_compiles_to_the_same_model_and_errors_with_either_parser(monkeypatch):
    language._parser.cache_clear()
    shipped = _compile_all()
    built = build_parser()
    monkeypatch.setattr(language, "_parser", lambda: built)
    assert _compile_all() == shipped


def test_every_node_starts_where_larks_own_position_tracking_puts_it(monkeypatch):
    """The parser tracks only the start of each node, by its own callbacks: the models (every span)
    and the error positions are those of lark's propagate_positions."""
    language._parser.cache_clear()
    ours = _compile_all()
    lark_positions = lark.Lark(_grammar(), cache=False, **{**_OPTIONS, "propagate_positions": True})
    monkeypatch.setattr(language, "_parser", lambda: lark_positions)
    assert _compile_all() == ours
