"""What the checker records for the compilers (``CheckInfo``: the types and references of the
nodes), the scopes and contexts it checks in, and the bounds of its walk."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = ["Ref", "UNKNOWN", "CheckInfo", "CHOICE", "CHANCE", "Scope", "Context", "MAX_DEFINE_DEPTH", "MAX_NESTING",
           "MAX_ACTIONS", "PROC_DEFER_DEPTH", "MAX_DEFINE_EXPANSIONS"]


class Ref(NamedTuple):
    """What a name, attribute, call or statement target refers to: the checker's answer, read by
    the compilers through ``CheckInfo.ref(node)``.

    kind: "local", "var", "builtin", "zone", "family", "ranking", "define", "option", "card_name",
    "card_attr", "pvar", "player_field", "cell_field", "piece_field", "dynamic", "proc", "choose", "item"
    (an item of a list variable set), "table", "piece_set" (a piece's owner or kind set).
    """

    kind: str
    name: str = ""
    alternatives: tuple[Any, ...] = ()  # of a "choose": the alternatives it offers


UNKNOWN = Ref("?")


@dataclass
class CheckInfo:
    """What the checker learnt about the nodes of the spec (node identity is the key)."""

    types: dict[int, str] = field(default_factory=dict)
    refs: dict[int, Ref] = field(default_factory=dict)
    attr_types: dict[str, str] = field(default_factory=dict)
    action_params: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    action_order: list[str] = field(default_factory=list)
    proc_params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # per procedure and parameter, the argument types of every call (the body is checked with the
    # first call's: a later call may pass what those do not hold, such as any value for a player)
    proc_arg_types: dict[str, tuple[set[str], ...]] = field(default_factory=dict)
    random_lets: set[int] = field(default_factory=set)
    # per statement/block: CHOICE when it may wait for a player, CHANCE when it may draw at random
    suspends: dict[int, int] = field(default_factory=dict)

    def ref(self, node: Any) -> Ref:
        """What ``node`` refers to (``UNKNOWN`` when the checker recorded nothing)."""
        return self.refs.get(id(node), UNKNOWN)

    def choices(self) -> list[Ref]:
        """The references of every `choose` statement."""
        return [r for r in self.refs.values() if r.kind == "choose"]


CHOICE = 1
CHANCE = 2
MAX_DEFINE_DEPTH = 40
# The checker walks the AST recursively; these bounds keep that walk far from Python's
# recursion limit and linear in the spec's size, whatever the spec:
MAX_NESTING = 200  # statements and expressions nested, define bodies included (a LimitError beyond)
MAX_ACTIONS = 10_000_000  # the largest game.limits.actions (the schema's maximum for a number)
PROC_DEFER_DEPTH = 40  # a procedure first called deeper than this is checked later, from the top
MAX_DEFINE_EXPANSIONS = 20_000  # define bodies checked, over all (name, argument types) pairs


class Scope:
    """Local names (bindings, lets, parameters) and their types."""

    __slots__ = ("names", "parent")

    def __init__(self, names: dict[str, str] | None = None, parent: Scope | None = None):
        self.names = names or {}
        self.parent = parent

    def lookup(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def child(self, names: dict[str, str] | None = None) -> Scope:
        return Scope(dict(names or {}), self)

    def all_names(self) -> list[str]:
        out: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out


class Context:
    """Where a block runs: decides which `end` statements make sense."""

    def __init__(self, where: str):
        self.where = where  # turn, setup, scoring, match, procedure, action
