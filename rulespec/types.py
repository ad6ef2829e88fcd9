"""Types of the rule language and the signatures of its built-in names and functions.

Types are short strings: ``int num bool str none card player cell piece value dict proc
zone ranking any`` and ``list[T]``. A ``zone`` is a place holding cards; it can be
used wherever a ``list[card]`` is read.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "INT", "NUM", "BOOL", "STR", "NONE", "CARD", "PLAYER", "CELL", "PIECE", "VALUE", "DICT", "PROC",
    "ZONE", "RANKING", "ANY", "list_of", "elem", "is_list", "iterable", "compatible", "unify",
    "is_number", "BUILTIN_NAMES", "FUNCTIONS", "AGGREGATES", "RANDOM_FUNCTIONS", "PLAYER_FIELDS",
    "CELL_FIELDS", "PIECE_FIELDS", "VARIABLE_TYPES", "describe", "Signature", "ACTION_PARAM_TYPES", "DIRECTION_SETS",
    "BOARD_FUNCTIONS",
]

INT, NUM, BOOL, STR, NONE = "int", "num", "bool", "str", "none"
CARD, PLAYER, CELL, PIECE = "card", "player", "cell", "piece"
VALUE, DICT, PROC, ZONE, RANKING, ANY = "value", "dict", "proc", "zone", "ranking", "any"


def list_of(t: str) -> str:
    return f"list[{t}]"


def is_list(t: str) -> bool:
    return t.startswith("list[")


def elem(t: str) -> str:
    """The element type when iterating over ``t`` (``any`` if unknown)."""
    if is_list(t):
        return t[5:-1]
    if t == ZONE:
        return CARD
    return ANY


def iterable(t: str) -> bool:
    return is_list(t) or t in (ZONE, ANY)


def is_number(t: str) -> bool:
    return t in (INT, NUM, ANY)


def compatible(a: str, b: str) -> bool:
    """Can a value of type ``a`` stand where ``b`` is expected (or be compared with it)?"""
    if a == b or ANY in (a, b) or NONE in (a, b):
        return True
    if {a, b} <= {INT, NUM}:
        return True
    if {a, b} == {ZONE, list_of(CARD)}:
        return True
    if is_list(a) and is_list(b):
        return compatible(elem(a), elem(b))
    return False


def unify(a: str, b: str) -> str:
    """A common type of two branches (``any`` when they differ)."""
    if a == b:
        return a
    if a == NONE:
        return b
    if b == NONE:
        return a
    if {a, b} <= {INT, NUM}:
        return NUM
    if {a, b} == {ZONE, list_of(CARD)}:
        return list_of(CARD)
    if is_list(a) and is_list(b):
        return list_of(unify(elem(a), elem(b)))
    return ANY


_WORDS = {
    INT: "a whole number", NUM: "a number", BOOL: "true/false", STR: "text", NONE: "none", CARD: "a card",
    PLAYER: "a player", CELL: "a cell", PIECE: "a piece", VALUE: "a hand value", DICT: "a record",
    PROC: "a procedure name", ZONE: "a zone", RANKING: "a ranking", ANY: "a value",
}


def describe(t: str) -> str:
    if is_list(t):
        inner = elem(t)
        return f"a list of {_WORDS.get(inner, inner).replace('a ', '', 1)}s" if inner != ANY else "a list"
    return _WORDS.get(t, t)


# names usable without arguments
BUILTIN_NAMES: dict[str, str] = {
    "players": list_of(PLAYER),
    "cards": list_of(CARD),
    "cells": list_of(CELL),
    "current": PLAYER,
    "dealer": PLAYER,
    "round": INT,
    "turn": INT,
    "num_players": INT,
}

# attributes every player has, besides per-player variables
PLAYER_FIELDS: dict[str, str] = {"score": INT, "total": NUM, "seat": INT, "name": STR}
CELL_FIELDS: dict[str, str] = {"row": INT, "col": INT, "name": STR}
PIECE_FIELDS: dict[str, str] = {"owner": PLAYER, "cell": CELL, "kind": STR, "start": CELL}

VARIABLE_TYPES: dict[str, str] = {
    "int": INT, "number": NUM, "bool": BOOL, "str": STR, "player": PLAYER, "players": list_of(PLAYER),
    "card": CARD, "cards": list_of(CARD), "cell": CELL, "piece": PIECE, "value": ANY,
}

ACTION_PARAM_TYPES = (CARD, PLAYER, CELL, PIECE, STR, INT, BOOL)


@dataclass(frozen=True)
class Signature:
    """``params``: accepted types per position (a tuple of alternatives); ``result``: a type or
    ``"elem0"`` (element of argument 0), ``"arg0"`` (type of argument 0)."""

    params: tuple[tuple[str, ...], ...]
    result: str
    optional: int = 0  # how many trailing params may be left out
    kwargs: tuple[tuple[str, str], ...] = ()
    doc: str = ""


_SEQ = (ZONE, list_of(ANY))
DIRECTION_SETS = ("orthogonal", "diagonal", "all", "hex")  # `dirs=` of the geometry functions
BOARD_FUNCTIONS = ("pieces", "slides", "piece_at", "cell", "empty_cells", "start_cells", "line", "neighbours", "ray",
                   "connected", "group")
FUNCTIONS: dict[str, Signature] = {
    "count": Signature((_SEQ,), INT, doc="number of items"),
    "sum": Signature((_SEQ,), NUM, doc="sum of numbers"),
    "max": Signature(((ANY,), (ANY,)), "max", optional=1, doc="larger of two values, or largest item of a list"),
    "min": Signature(((ANY,), (ANY,)), "max", optional=1, doc="smaller of two values, or smallest item of a list"),
    "any": Signature(((list_of(ANY),),), BOOL, doc="some item is true"),
    "all": Signature(((list_of(ANY),),), BOOL, doc="every item is true"),
    "distinct": Signature((_SEQ,), "listof0", doc="items without repeats, in order"),
    "first": Signature((_SEQ,), "elem0", doc="first item or none"),
    "last": Signature((_SEQ,), "elem0", doc="last item or none"),
    "top": Signature(((ZONE,),), CARD, doc="top card of a zone, or none"),
    "bottom": Signature(((ZONE,),), CARD, doc="bottom card of a zone, or none"),
    "nth": Signature(((ZONE,), (INT,)), CARD, doc="card at depth i from the top (0 = top), or none"),
    "left": Signature(((PLAYER,),), PLAYER, doc="the next player to the left"),
    "right": Signature(((PLAYER,),), PLAYER, doc="the next player to the right"),
    "others": Signature(((PLAYER,),), list_of(PLAYER), doc="every other player, starting at the left"),
    "seats_from": Signature(((PLAYER,),), list_of(PLAYER), doc="every player, starting with this one, going left"),
    "player": Signature(((INT,),), PLAYER, doc="the player in seat i"),
    "pieces": Signature(((PLAYER,), (STR,)), list_of(PIECE), optional=1, doc="pieces a player owns (of a kind)"),
    "piece_at": Signature(((CELL,),), PIECE, doc="the piece on a cell, or none"),
    "slides": Signature(((PIECE,),), list_of(CELL), kwargs=(("dirs", STR), ("max", INT)),
                        doc="cells a piece can reach in a straight line without passing another piece"),
    "cell": Signature(((STR, INT), (INT,)), CELL, optional=1, doc="cell by name ('a1') or by row and column"),
    "empty_cells": Signature((), list_of(CELL), doc="cells without a piece"),
    "start_cells": Signature(((PLAYER,),), list_of(CELL), doc="starting cells of a player's pieces"),
    "line": Signature(((PLAYER,), (INT,)), BOOL, doc="the player's pieces fill n cells in a straight row"),
    "neighbours": Signature(((CELL,),), list_of(CELL), kwargs=(("dirs", STR),),
                            doc="the cells next to a cell (dirs: orthogonal, diagonal, all or hex)"),
    "directions": Signature(((STR,),), list_of(list_of(INT)),
                            doc="the steps [rows, columns] of a set of directions: orthogonal, diagonal, all or hex"),
    "ray": Signature(((CELL,), (INT,), (INT,)), list_of(CELL),
                     doc="the cells from a cell (not included) by steps of (rows, columns) to the edge, "
                         "up to and including the first cell with a piece"),
    "connected": Signature(((list_of(CELL),), (list_of(CELL),), (list_of(CELL),)), BOOL, kwargs=(("dirs", STR),),
                           doc="connected(path, a, b): a cell of a and a cell of b are linked by neighbouring "
                               "cells of path"),
    "group": Signature(((CELL,), (list_of(CELL),)), list_of(CELL), kwargs=(("dirs", STR),),
                       doc="group(c, path): the cells of path linked to c by neighbouring cells of path"),
    "hand_value": Signature(((RANKING,), _SEQ), VALUE, doc="comparable value of the best hand"),
    "best_cards": Signature(((RANKING,), _SEQ), list_of(CARD), doc="the cards of the best hand"),
    "category": Signature(((RANKING,), _SEQ), STR, doc="the category name of the best hand"),
    "hand_score": Signature(((RANKING,), _SEQ), NUM,
                            doc="the best hand as one number (category, then tie-breaks), for heuristics"),
    "str": Signature(((ANY,),), STR, doc="text of a value"),
    "int": Signature(((NUM, STR, BOOL),), INT, doc="whole number of a value"),
    "abs": Signature(((NUM,),), NUM, doc="absolute value"),
    "range": Signature(((INT,), (INT,)), list_of(INT), doc="whole numbers a to b-1"),
    "dict": Signature((), DICT, doc="a record of named values: dict(a=1, b=p)"),
    "chance": Signature(((NUM,),), BOOL, doc="true with probability p (only in `let`)"),
    "random": Signature((_SEQ,), "elem0", kwargs=(("ids", STR),),
                        doc="a uniformly random item (only in `let`); ids='values': a whole number's outcome id "
                            "is the number itself"),
}

AGGREGATES: dict[str, str] = {
    # result: "elt" (type of the element expression), "var" (type of the loop variable) or a type
    "count": INT,
    "sum": "eltnum",
    "max": "elt",
    "min": "elt",
    "any": BOOL,
    "all": BOOL,
    "argmax": "listvar",
    "argmin": "listvar",
    "distinct": "listelt",
}

RANDOM_FUNCTIONS = frozenset({"chance", "random"})
