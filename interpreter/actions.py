"""Action ids: every named action owns a block of integers, one per parameter combination.

Ids are laid out in the order actions first appear in the spec; a parameter's domain
is fixed by its type (card kinds, seats, cells, pieces, or a literal list), so ids are
stable for a game, its player count and options. Cards are encoded by kind: two
copies of the same card are the same action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .errors import BudgetError, RuleError
from .static import evaluate_static

__all__ = ["ActionSpec", "ActionTable"]


@dataclass
class ActionSpec:
    name: str
    offset: int
    params: list[tuple[str, str]]
    sizes: list[int]
    strides: list[int]
    literals: list[list[Any]] = field(default_factory=list)
    kind_of: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        total = 1
        for s in self.sizes:
            total *= s
        return total

    def encoding(self, i: int) -> tuple[Any, int]:
        """(table, stride): parameter i adds ``table[value] * stride`` (``value * stride`` when table is None)."""
        stride = self.strides[i]
        t = self.params[i][1]
        if t == T.CARD:
            return self.kind_of, stride
        if t in (T.STR, T.INT, T.BOOL):
            return {v: k for k, v in enumerate(self.literals[i])}, stride
        return None, stride

    def decode(self, action: int) -> list[int]:
        """Digits (domain indices) of each parameter."""
        rest = action - self.offset
        digits = []
        for stride in self.strides:
            digit, rest = divmod(rest, stride)
            digits.append(digit)
        return digits


class ActionTable:
    def __init__(self) -> None:
        self.specs: list[ActionSpec] = []
        self.by_name: dict[str, ActionSpec] = {}
        self.size = 0

    @classmethod
    def build(cls, L: Any) -> ActionTable:
        table = cls()
        literals = _literal_domains(L)
        for name in L.info.action_order:
            params = list(L.info.action_params[name])
            sizes = []
            lits = []
            for i, (_, t) in enumerate(params):
                values = literals.get((name, i), [])
                lits.append(values)
                sizes.append(_domain_size(t, values, L))
            strides: list[int] = []
            stride = 1
            for size in reversed(sizes):
                strides.insert(0, stride)
                stride *= max(size, 1)
            spec = ActionSpec(name, table.size, params, sizes, strides, lits, L.cards.kind_of)
            table.specs.append(spec)
            table.by_name[name] = spec
            table.size += max(spec.size, 1)
            if table.size > L.limits.max_action_ids:
                raise BudgetError(f"the action '{name}' makes this game's action ids number {table.size:,}, more "
                                  f"than the limit of {L.limits.max_action_ids:,} (RunLimits.max_action_ids): "
                                  "bind fewer parameters, or parameters with fewer values", _action_span(L, name))
        return table

    def spec(self, name: str) -> ActionSpec:
        return self.by_name[name]

    def find(self, action: int) -> ActionSpec | None:
        for spec in self.specs:
            if spec.offset <= action < spec.offset + max(spec.size, 1):
                return spec
        return None


def _domain_size(t: str, values: list[Any], L: Any) -> int:
    if t == T.CARD:
        return L.cards.kinds
    if t == T.PLAYER:
        return L.num_players
    if t == T.CELL:
        return L.board.size if L.board else 0
    if t == T.PIECE:
        return len(L.piece_owner)
    if t in (T.STR, T.INT, T.BOOL):
        return len(values)
    raise RuleError(f"an action parameter of type {t} has no fixed set of values")


def _literal_domains(L: Any) -> dict[tuple[str, int], list[Any]]:
    """Values of str/int/bool action parameters, from every place the action is offered."""
    out: dict[tuple[str, int], list[Any]] = {}
    for alt in _all_alternatives(L):
        if alt.bindings is None:
            continue
        for i, binding in enumerate(alt.bindings.items):
            t = L.info.action_params[alt.action][i][1] if i < len(L.info.action_params.get(alt.action, ())) else None
            if t not in (T.STR, T.INT, T.BOOL):
                continue
            values = out.setdefault((alt.action, i), [])
            seen = set(values)
            for v in _static_values(binding.iter, L):
                if v not in seen:
                    seen.add(v)
                    values.append(v)
    return out


def _static_values(node: Any, L: Any) -> list[Any]:
    if isinstance(node, A.ListLit):
        return [evaluate_static(item, L.options, L.num_players, defines=L.static_defines) for item in node.items]
    if isinstance(node, A.Call) and node.func == "range":
        low, high = (evaluate_static(a, L.options, L.num_players, defines=L.static_defines) for a in node.args)
        limit = L.limits.max_options
        if high - low > limit:
            raise BudgetError(f"an action parameter may take {high - low:,} values here, more than the limit of "
                              f"{limit:,} (RunLimits.max_options)", node.span)
        return list(range(low, high))
    raise RuleError("action parameter values must be a literal list or range(a, b)", node.span)


def _action_span(L: Any, name: str) -> Any:
    for alt in _all_alternatives(L):
        if alt.action == name:
            return alt.span
    return None


def _all_alternatives(L: Any) -> list[A.Alternative]:
    found: list[A.Alternative] = []
    seen: set[int] = set()
    for ref in L.info.choices():
        for alt in ref.alternatives:
            if id(alt) not in seen:
                seen.add(id(alt))
                found.append(alt)
    for alt in L.model.actions:
        if id(alt) not in seen:
            seen.add(id(alt))
            found.append(alt)
    return found
