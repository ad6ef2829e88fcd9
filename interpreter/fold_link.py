"""The linker's constant folder: rulespec.fold with the ``linking`` policy, and what the link
knows of names, fields, entries and calls (the ``leaf`` hook).

One ``LinkFold`` per link folds every node at most once: the generator asks it whether a node
is a constant (and its value) instead of building the node's closure. It folds what the
closures fold, node by node (tests/test_fold.py checks that over the games and specs):

- literals; the names of zones, rankings, `players`, `cards`, `cells`, `num_players`; `option.X`;
  a card's attribute or name, a seat's `seat` or `name`, a cell's `row`, `col` or `name`, a
  piece's starting cell, of a known card, seat, cell or piece; `table[key]` with a known key the
  table has; `family(k)` with k known; `player(k)` with k a seat; `cell('a1')`;
- an operator of two known values, unless Python fails on them (`1 // 0` stays a run-time error)
  or the result is too large to keep (a text or list longer than budget.SMALL, a number past
  RunLimits); `max`/`min` of two known values;
- `and`/`or` decided by a known left side (else, with the left side true for `and`, the right
  side's own value); `not` of a known value; `-x` of a known int or float only; `a if c else b`
  with c known: the chosen side, known or not;
- a define without parameters whose body is known.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rulespec import ast as A
from rulespec.fold import DEFER, UNKNOWN, FoldEnv, Folder, linking

from .board import parse_cell
from .budget import SMALL, check_grown
from .errors import RuleError

__all__ = ["LinkFold", "link_env", "link_leaf", "UNKNOWN"]


def link_env(L: Any) -> FoldEnv:
    """The fold the linker ``L`` does (its options, player count, defines and what it knows of names)."""
    def small(value: Any) -> str | None:  # (the budget: what is kept for run time instead)
        if type(value) in (str, list):
            return None if len(value) <= SMALL else f"longer than {SMALL}"
        try:
            check_grown(None, value, L.limits, None)
        except RuleError as exc:
            return str(exc)
        return None

    defines = {d.name: (tuple(d.params), d.body) for d in L.model.defines if d.body is not None}
    return FoldEnv(linking(small), L.options, L.num_players, {}, defines, link_leaf(L))


def _lookup(obj: Any, table: Any) -> Any:
    return UNKNOWN if obj is UNKNOWN else None if obj is None else table[obj]


def link_leaf(L: Any) -> Callable[[Any, Callable[[Any], Any]], Any]:
    """What the linker ``L`` knows of a name, field, entry or call (``CheckInfo.ref`` says what
    each refers to)."""
    board = L.board
    names = {"players": lambda: list(range(L.num_players)), "cards": lambda: list(range(L.cards.count)),
             "cells": lambda: list(range(board.size)) if board else [], "num_players": lambda: L.num_players}

    def leaf(node: Any, fold_child: Callable[[Any], Any]) -> Any:
        ref = L.info.ref(node)
        kind = ref.kind
        if isinstance(node, A.Name):
            if kind == "builtin":
                return names[node.id]() if node.id in names else UNKNOWN  # (current, dealer, round, turn: the state's)
            if kind == "zone":
                return L.zone_base[node.id]
            if kind == "ranking":
                return L.rankings[node.id]
            return DEFER if kind == "define" else UNKNOWN  # locals and variables
        if isinstance(node, A.Attr):
            if kind == "option":
                return DEFER
            if kind in ("card_attr", "card_name"):
                return _lookup(fold_child(node.obj), L.cards.attrs[node.name] if kind == "card_attr" else L.cards.names)
            if kind == "player_field" and node.name in ("seat", "name"):
                seat = fold_child(node.obj)
                return seat if node.name == "seat" else _lookup(seat, L.seat_names)
            if kind == "cell_field":
                table = {"row": [i // board.cols for i in range(board.size)],
                         "col": [i % board.cols for i in range(board.size)], "name": list(board.names)}[node.name]
                return _lookup(fold_child(node.obj), table)
            if kind == "piece_field" and node.name not in ("cell", "owner", "kind"):  # (those are the state's)
                return _lookup(fold_child(node.obj), [None if v == -1 else v for v in L.piece_start])
            return UNKNOWN  # per-player variables, other player fields
        if isinstance(node, A.Index):
            if kind != "table":
                return UNKNOWN  # an item of a list: a fresh list, or the state's
            entries = L.tables[ref.name]
            key = fold_child(node.index)
            return entries[key] if key is not UNKNOWN and key in entries else UNKNOWN
        if isinstance(node, A.Call):
            if kind == "family":
                arg = fold_child(node.args[0])
                return UNKNOWN if arg is UNKNOWN else L.zone_base[node.func] + arg
            if kind == "define" or node.func in ("max", "min"):
                return DEFER
            if node.func == "player":
                seat = fold_child(node.args[0])
                return seat if seat is not UNKNOWN and 0 <= seat < L.num_players else UNKNOWN
            if node.func == "cell" and len(node.args) == 1:
                name = fold_child(node.args[0])
                return UNKNOWN if name is UNKNOWN else parse_cell(name, board.rows, board.cols)
            return UNKNOWN  # the other built-ins: the state's, or a fresh list (range)
        return DEFER

    return leaf


class LinkFold(Folder):
    """The folded table of one link: each node folded once (by ``id``: the model's nodes live as
    long as the link), the values of its subtrees kept for the nodes above."""

    __slots__ = ("known",)

    def __init__(self, L: Any):
        super().__init__(link_env(L))
        self.known: dict[int, Any] = {}

    def fold(self, node: Any, names: Mapping[str, Any]) -> Any:
        if names:
            return super().fold(node, names)
        key = id(node)
        value = self.known.get(key, DEFER)
        if value is DEFER:
            value = self.known[key] = super().fold(node, names)
        return value

    def value(self, node: Any) -> Any:
        """``node``'s value when the link knows it, else UNKNOWN."""
        return self.fold(node, {})

    def is_constant(self, node: Any) -> bool:
        return self.fold(node, {}) is not UNKNOWN
