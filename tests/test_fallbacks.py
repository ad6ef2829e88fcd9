"""A ratchet on the constructs generated code still leaves to the closures (issue 52).

Every spec in games/ is linked in every variant it lists, and each place where the generator
calls a closure instead of writing code is counted by its kind: an expression node it has no
form for (``_Writer.fallback``: `str(...)`, a table's entry...) or a statement it calls the
closure of (``_Statements.closure``: `deal`, a random `let`...). The kinds found must be among
``ALLOWED``, which only shrinks: when a construct gets its generated form, delete its kind here
(the test says which kinds are no longer found), and never add one.
"""

from __future__ import annotations

import collections
from typing import Any

import pytest

import interpreter
from interpreter import codegen, codegen_blocks
from rulespec import ast as A
from tests.conftest import GAMES

# the kinds of fallback still allowed; an entry goes when its construct is generated (issue 52, step 4)
ALLOWED: frozenset[str] = frozenset()


def _expression_kind(writer: Any, node: Any) -> str:
    info = writer.L.info
    kind = type(node).__name__
    if isinstance(node, A.Call):
        return f"{kind}:{node.func}"
    if isinstance(node, A.Attr):
        return f"{kind}:{info.ref(node).kind}.{node.name}"
    if isinstance(node, A.Name):
        return f"{kind}:{info.ref(node).kind}" + ("" if writer.env else ":noenv")
    if isinstance(node, A.Index):
        ref = info.ref(node).kind
        return f"{kind}:{'table' if ref == 'table' else 'zone'}"
    if isinstance(node, A.Agg):
        return f"{kind}:{node.func}"
    return kind


def _statement_kind(writer: Any, stmt: Any) -> str:
    kind = type(stmt).__name__
    if isinstance(stmt, A.Assign):
        return f"{kind}:{writer.L.info.ref(stmt.target).kind}"
    if isinstance(stmt, A.Move):
        return f"{kind}:{stmt.selector}"
    if isinstance(stmt, A.Let) and id(stmt) in writer.L.info.random_lets:
        return f"{kind}:random"
    if isinstance(stmt, A.Emit) and stmt.to is not None:
        return f"{kind}:to"
    if isinstance(stmt, A.If):
        return f"{kind}:binds"
    return kind


def fallback_kinds(monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    """Each kind of fallback met linking every spec and variant of games/, with the specs that meet it."""
    found: dict[str, set[str]] = collections.defaultdict(set)
    game = [""]
    expression, statement = codegen._Writer.fallback, codegen_blocks._Statements.closure

    def counted_expression(self: Any, node: Any, ref: Any) -> str:
        found[_expression_kind(self, node)].add(game[0])
        return expression(self, node, ref)

    def counted_statement(self: Any, stmt: Any, indent: int) -> None:
        found[_statement_kind(self, stmt)].add(game[0])
        statement(self, stmt, indent)

    monkeypatch.setattr(codegen._Writer, "fallback", counted_expression)
    monkeypatch.setattr(codegen_blocks._Statements, "closure", counted_statement)
    with monkeypatch.context() as m:
        m.setattr(codegen, "MODE", "on")
        for spec in sorted(GAMES.glob("*.yaml")):
            game[0] = spec.stem
            variants = interpreter.load_game(str(spec)).variants or [{"players": None, "options": {}}]
            for variant in variants:
                interpreter.load_game(str(spec), players=variant["players"], options=variant["options"])
    return dict(found)


def test_generated_code_falls_back_to_the_closures_only_for_the_kinds_allowed(monkeypatch):
    found = fallback_kinds(monkeypatch)
    new = {kind: sorted(specs) for kind, specs in found.items() if kind not in ALLOWED}
    assert not new, f"generated code falls back to closures for kinds not allowed: {new}"
    gone = sorted(ALLOWED - set(found))
    assert not gone, f"these kinds no longer fall back: delete them from ALLOWED: {gone}"
