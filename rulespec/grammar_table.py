"""The rule language's parser: its LALR table is built from grammar.lark once, by the developers.

Building the table costs most of a cold compile (about 200 ms), so the package ships it as plain
JSON data (grammar_table.json), stamped with the hash of the grammar and the lark version it was
built with. When either differs (the grammar was edited, another lark is installed), the table is
built in memory from the grammar instead: slower, never wrong. Regenerate after editing the
grammar with ``python tools/grammar_table.py``.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from typing import Any

import lark
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

__all__ = ["build_parser", "load_parser", "write_table", "grammar_stamp", "shipped_table"]

TABLE = "grammar_table.json"
_OPTIONS: dict[str, Any] = {"parser": "lalr", "start": ["expr", "stmt", "bindings"],
                            "propagate_positions": True, "maybe_placeholders": True}


def _grammar() -> str:
    return resources.files("rulespec").joinpath("grammar.lark").read_text(encoding="utf-8")


def grammar_stamp(grammar: str) -> str:
    """What the table depends on besides lark: the grammar and the parser's options."""
    return hashlib.sha256(f"{grammar}\0{sorted(_OPTIONS.items())}".encode()).hexdigest()


def shipped_table() -> dict[str, Any]:
    """The shipped table, its tuples and integer-keyed dicts restored as JSON is read."""
    return json.loads(resources.files("rulespec").joinpath(TABLE).read_text(encoding="utf-8"), object_hook=_restore)


def build_parser() -> Lark:
    """The parser built from the grammar (computes the LALR table)."""
    return Lark(_grammar(), cache=False, **_OPTIONS)


def load_parser() -> Lark:
    """The parser from the shipped table when it was built from this grammar with this lark, else built."""
    grammar = _grammar()
    try:
        shipped = shipped_table()
        if shipped.get("grammar") == grammar_stamp(grammar) and shipped.get("lark") == lark.__version__:
            table = shipped["table"]
            return Lark._load_from_dict(table["data"], table["memo"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # a missing or unreadable table: build it
    return Lark(grammar, cache=False, **_OPTIONS)


def write_table(path: str) -> None:
    parser = build_parser()
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    table = {"grammar": grammar_stamp(_grammar()), "lark": lark.__version__,
             "table": _encode({"data": data, "memo": memo})}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(table, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")


# JSON has neither tuples nor integer keys; lark's serialised table has both.
def _encode(x: Any) -> Any:
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: _encode(v) for k, v in x.items()}
        return {"__items__": [[_encode(k), _encode(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {"__tuple__": [_encode(v) for v in x]}
    if isinstance(x, list):
        return [_encode(v) for v in x]
    return x


def _restore(x: dict[str, Any]) -> Any:
    """One JSON object of the table as ``_encode`` wrote it (its members are restored already)."""
    if "__items__" in x:
        return dict(x["__items__"])
    if "__tuple__" in x:
        return tuple(x["__tuple__"])
    return x
