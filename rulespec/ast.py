"""Frozen AST nodes of the rule language and of the spec's structure.

Every node carries ``span``: the file position it was written at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import SourceSpan

# ============================================================== expressions


@dataclass(frozen=True, slots=True)
class Node:
    span: SourceSpan


@dataclass(frozen=True, slots=True)
class Const(Node):
    value: Any  # int, float, str, bool or None


@dataclass(frozen=True, slots=True)
class Name(Node):
    id: str


@dataclass(frozen=True, slots=True)
class Attr(Node):
    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Index(Node):
    obj: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Call(Node):
    func: str
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Comp(Node):
    """``elt for var in iter if cond`` inside an aggregate or a list. With several ``for``
    clauses, ``elt`` is the comprehension of the next clause (a Comp is never an expression
    of its own)."""

    elt: Expr
    var: str
    iter: Expr
    cond: Expr | None


@dataclass(frozen=True, slots=True)
class Agg(Node):
    func: str
    comp: Comp


@dataclass(frozen=True, slots=True)
class ListLit(Node):
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ListComp(Node):
    comp: Comp


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    op: str  # + - * / // % == != < <= > >= in notin and or
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Unary(Node):
    op: str  # not, neg
    operand: Expr


@dataclass(frozen=True, slots=True)
class Cond(Node):
    test: Expr
    body: Expr
    orelse: Expr


# An expression node: Const, Name, Attr, Index, Call, Agg, ListLit, ListComp, BinOp, Unary or Cond.
# (Typed as Any: the compilers dispatch on the node class at run time.)
Expr = Any


@dataclass(frozen=True, slots=True)
class Binding(Node):
    """``var in iter [if cond]``: the filter may use this and earlier variables."""

    var: str
    iter: Expr
    cond: Expr | None = None


@dataclass(frozen=True, slots=True)
class Bindings(Node):
    items: tuple[Binding, ...]


@dataclass(frozen=True, slots=True)
class Template(Node):
    """Text with ``{expr}`` parts: a tuple of str and Expr."""

    parts: tuple[Any, ...]


# ============================================================== statements


@dataclass(frozen=True, slots=True)
class Move(Node):
    selector: str  # one, all, top, bottom, random
    what: Expr
    dest: Expr
    face: str | None  # up, down or None (the zone's default)
    bottom: bool


@dataclass(frozen=True, slots=True)
class Draw(Node):
    count: Expr | None
    source: Expr
    dest: Expr
    face: str | None


@dataclass(frozen=True, slots=True)
class Deal(Node):
    count: Expr
    source: Expr
    family: str
    family_span: SourceSpan
    face: str | None


@dataclass(frozen=True, slots=True)
class Shuffle(Node):
    zone: Expr


@dataclass(frozen=True, slots=True)
class Flip(Node):
    what: Expr
    face: str


@dataclass(frozen=True, slots=True)
class Assign(Node):
    target: Expr  # Name or Attr
    op: str  # = += -=
    value: Expr


@dataclass(frozen=True, slots=True)
class Let(Node):
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Emit(Node):
    name: str
    fields: tuple[tuple[str, Expr], ...]
    to: Expr | None


@dataclass(frozen=True, slots=True)
class End(Node):
    level: str  # round, game, turn, phase


@dataclass(frozen=True, slots=True)
class Skip(Node):
    player: Expr


@dataclass(frozen=True, slots=True)
class Next(Node):
    """`next P`: P takes the next turn, and the phase's order goes on from P."""

    player: Expr


@dataclass(frozen=True, slots=True)
class Place(Node):
    kind: str
    owner: Expr
    cell: Expr


@dataclass(frozen=True, slots=True)
class Remove(Node):
    piece: Expr


@dataclass(frozen=True, slots=True)
class CallProc(Node):
    target: Expr  # Name (static) or any expression giving a procedure name
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Pass(Node):
    pass


@dataclass(frozen=True, slots=True)
class If(Node):
    cond: Expr
    then: Block
    orelse: Block


@dataclass(frozen=True, slots=True)
class For(Node):
    bindings: Bindings
    body: Block


@dataclass(frozen=True, slots=True)
class Repeat(Node):
    body: Block
    until: Expr
    max: int | None


@dataclass(frozen=True, slots=True)
class While(Node):
    cond: Expr
    body: Block
    max: int | None


@dataclass(frozen=True, slots=True)
class Alternative(Node):
    """One kind of choice offered by ``choose``: a named action."""

    action: str
    bindings: Bindings | None
    cond: Expr | None
    label: Template | None
    body: Block
    broken: bool = False  # its `for:` did not parse: its other parts are not checked for names
    priority: int = 0  # only the options of the highest priority offered are offered


@dataclass(frozen=True, slots=True)
class Choose(Node):
    alternatives: tuple[Alternative, ...]
    by: Expr | None
    orelse: Block | None
    prompt: str | None


# A statement node: Move, Draw, Deal, Shuffle, Flip, Assign, Let, Emit, End, Skip, Next, Place, Remove,
# CallProc, Pass, If, For, Repeat, While or Choose.
Stmt = Any


@dataclass(frozen=True, slots=True)
class Block(Node):
    stmts: tuple[Stmt, ...]


def children(node: Any) -> tuple[Any, ...]:
    """The direct child nodes of an AST node (for generic walks)."""
    out: list[Any] = []
    for name in node.__slots__:
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, Node):
            out.append(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, Node):
                    out.append(item)
                elif isinstance(item, tuple):
                    out.extend(x for x in item if isinstance(x, Node))
    return tuple(out)


def walk(node: Any):
    """Every node below (and including) ``node``, depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))
