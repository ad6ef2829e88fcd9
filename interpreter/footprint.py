"""What a condition reads of a state, so that it is evaluated again only when that changed.

The round's `end_when` is meant to hold "after every statement". Evaluating it after
every statement is exact but costly (a card game spent more than half its time there); it
is enough to evaluate it after the statements that changed something it reads. This
module finds, at link time, the parts of a state a list of expressions reads:

    ("zone", family)   the cards (and order) of the zones of a family
    ("var", name)      a global variable        ("pvar", name)  a per-player variable
    ("field", name)    score / total            ("flow", name)  current / dealer / round / turn
    ("pieces",)        where pieces stand

``None`` means "cannot tell" (the condition is then evaluated every time). Writers mark
the state ``dirty`` when they change a part some condition reads (``Watch``); code that
edits a state's data directly, not through the rules (``sampling``), must mark it too.
"""

from __future__ import annotations

from typing import Any

from rulespec import ast as A

__all__ = ["reads", "Watch"]

Key = tuple[str, ...]

_FLOW_NAMES = ("current", "dealer", "round", "turn")
_CONSTANT_NAMES = ("players", "cards", "cells", "num_players")
_FIXED_FIELDS = {"player_field": ("seat", "name"), "piece_field": ("start",)}
_PIECE_FUNCTIONS = ("piece_at", "slides", "empty_cells", "line", "ray", "pieces")
_PURE_FUNCTIONS = ("count", "sum", "max", "min", "any", "all", "distinct", "first", "last", "top", "bottom", "nth",
                   "left", "right", "others", "seats_from", "player", "cell", "start_cells", "hand_value",
                   "best_cards", "category", "hand_score", "str", "int", "abs", "range", "dict", "neighbours",
                   "directions", "connected", "group")
_PLAIN_NODES = (A.Const, A.Index, A.ListLit, A.ListComp, A.Agg, A.BinOp, A.Unary, A.Cond, A.Comp)


def reads(nodes: Any, L: Any) -> frozenset[Key] | None:
    """The parts of a state that ``nodes`` (expressions) read, defines followed; None if unknown."""
    found: set[Key] = set()
    seen_defines: set[str] = set()
    todo = list(nodes)
    while todo:
        for node in A.walk(todo.pop()):
            key = _read_by(node, L)
            if key is None:
                return None
            if key[0] == "define":
                if key[1] not in seen_defines:
                    seen_defines.add(key[1])
                    todo.append(L.defines[key[1]].body)
            elif key[0] != "":
                found.add(key)
    return frozenset(found)


_NOTHING: Key = ("",)


def _read_by(node: Any, L: Any) -> Key | None:
    """What this one node reads (its children are walked separately)."""
    if isinstance(node, _PLAIN_NODES):
        return _NOTHING
    ref = L.info.ref(node)
    kind = ref.kind
    if isinstance(node, A.Name):
        if kind in ("local", "ranking"):
            return _NOTHING
        if kind in ("var", "zone"):
            return (kind, node.id)
        if kind == "define":
            return ("define", node.id)
        if kind == "builtin":
            if node.id in _FLOW_NAMES:
                return ("flow", node.id)
            return _NOTHING if node.id in _CONSTANT_NAMES else None
        return None
    if isinstance(node, A.Attr):
        if kind in ("option", "card_attr", "card_name", "cell_field"):
            return _NOTHING
        if kind == "pvar":
            return ("pvar", node.name)
        if kind in _FIXED_FIELDS:
            if node.name in _FIXED_FIELDS[kind]:
                return _NOTHING
            return ("pieces",) if kind == "piece_field" else ("field", node.name)
        return None
    if isinstance(node, A.Call):
        if kind == "family":
            return ("zone", node.func)
        if kind == "define":
            return ("define", node.func)
        if node.func in _PIECE_FUNCTIONS:
            return ("pieces",)
        return _NOTHING if node.func in _PURE_FUNCTIONS else None
    return None


class Watch:
    """The parts of a state the round's end conditions read, as tables writers consult."""

    def __init__(self, keys: frozenset[Key] | None, L: Any):
        self.everything = keys is None
        self.keys: frozenset[Key] = keys or frozenset()
        families = {k[1] for k in self.keys if k[0] == "zone"}
        self.zones = tuple(self.everything or fam in families for fam in L.zone_family)

    def __contains__(self, key: Key) -> bool:
        return self.everything or key in self.keys
