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
from collections.abc import Callable
from importlib import resources
from operator import itemgetter
from typing import Any

import lark
from lark import Lark, Token, Tree
from lark.grammar import Rule
from lark.lexer import TerminalDef
from lark.parse_tree_builder import ExpandSingleChild

__all__ = ["build_parser", "load_parser", "write_table", "grammar_stamp", "shipped_table"]

TABLE = "grammar_table.json"
# positions are not lark's propagate_positions (it records ten attributes per node, and most of
# the parse went to it) but _track_starts: the one attribute the AST reads, the same value
_OPTIONS: dict[str, Any] = {"parser": "lalr", "start": ["expr", "stmt", "bindings"],
                            "propagate_positions": False, "maybe_placeholders": True}


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
    return _track_starts(Lark(_grammar(), cache=False, **_OPTIONS))


def load_parser() -> Lark:
    """The parser from the shipped table when it was built from this grammar with this lark, else built."""
    grammar = _grammar()
    try:
        shipped = shipped_table()
        if shipped.get("grammar") == grammar_stamp(grammar) and shipped.get("lark") == lark.__version__:
            table = shipped["table"]
            return _track_starts(Lark._load_from_dict(table["data"], table["memo"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # a missing or unreadable table: build it
    return build_parser()


class _StartOf:
    """A rule's tree builder, which then gives a new tree the start lark's propagate_positions gives
    it (``meta.start_pos``: its first token's, counting the tokens the tree leaves out, such as an
    opening bracket; ``container_start_pos`` carries that start up through inlined rules)."""

    __slots__ = ("build",)

    def __init__(self, build: Callable[[list[Any]], Any]):
        self.build = build

    def __call__(self, children: list[Any]) -> Any:
        tree = self.build(children)
        if isinstance(tree, Tree):
            for child in children:
                if isinstance(child, Tree):
                    if not child.meta.empty:
                        first = child.meta.container_start_pos  # type: ignore[attr-defined]
                        break
                elif isinstance(child, Token):
                    first = child.start_pos
                    break
            else:
                return tree
            meta = tree.meta
            if meta.empty:
                meta.start_pos = first
                meta.empty = False
            meta.container_start_pos = first  # type: ignore[attr-defined]
        return tree


def _track_starts(parser: Lark) -> Lark:
    """``parser`` with _StartOf around each rule's builder, or, if this lark keeps its callbacks
    elsewhere, a parser with lark's own position tracking (slower, the same positions)."""
    callbacks = getattr(getattr(getattr(parser.parser, "parser", None), "parser", None), "callbacks", None)
    if not isinstance(callbacks, dict):
        return Lark(_grammar(), cache=False, **{**_OPTIONS, "propagate_positions": True})
    for rule, build in list(callbacks.items()):
        if not isinstance(rule, Rule):
            continue
        if type(build) is ExpandSingleChild and len(rule.expansion) == 1:
            callbacks[rule] = itemgetter(0)  # a `?rule` of one kept symbol: its child, whose start is set
        else:
            callbacks[rule] = _StartOf(build)
    return parser


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
