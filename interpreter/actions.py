"""Action ids: every named action owns a block of integers, one per parameter combination.

Ids are laid out in the order actions first appear in the spec; a parameter's domain
is fixed by its type (card kinds, seats, cells, pieces, or a literal list), so ids are
stable for a game, its player count and options. Cards are encoded by kind: two
copies of the same card are the same action.

``decode_action`` turns an id back into its structure (``Action``: the action's name and a
``ParamValue`` per parameter), so that a policy reads card attributes, seats and cells
without parsing labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rulespec import ast as A
from rulespec import types as T

from .errors import BudgetError, RuleError
from .static import evaluate_static

if TYPE_CHECKING:  # pragma: no cover
    from .state import State

__all__ = ["ActionSpec", "ActionTable", "Action", "ParamValue", "decode_action", "param_name"]


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


# ---------------------------------------------------------------------- decoded actions

_NO_ATTRIBUTES: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class ParamValue:
    """The value of one action parameter.

    ``type`` is the parameter's type: ``card``, ``player``, ``cell``, ``piece``, ``int``,
    ``str`` or ``bool``. ``value`` is the card kind id, the seat, the cell index, the piece
    index, or the literal itself. ``name`` is how the value reads (card name, seat name,
    cell name such as ``a2``, piece label, the literal as text). ``attributes``: a card's
    attributes; a cell's ``row`` and ``col`` (row 0 is the top row); a piece's ``kind``,
    ``owner`` and ``cell`` (the cell's name, None off the board); empty otherwise.
    ``value["suit"]`` is short for ``value.attributes["suit"]``.
    """

    type: str
    value: Any
    name: str
    attributes: Mapping[str, Any] = field(default_factory=lambda: _NO_ATTRIBUTES)

    def __getitem__(self, attribute: str) -> Any:
        return self.attributes[attribute]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"type", "value", "name", "attributes"}``."""
        return {"type": self.type, "value": self.value, "name": self.name, "attributes": dict(self.attributes)}


@dataclass(frozen=True)
class Action:
    """An action id with its structure: the spec's action name and its parameters by name.

    ``action["card"]`` is short for ``action.params["card"]``.
    """

    id: int
    name: str
    params: Mapping[str, ParamValue]

    def __getitem__(self, param: str) -> ParamValue:
        return self.params[param]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"id", "name", "params": {name: ParamValue.to_dict()}}``."""
        return {"id": self.id, "name": self.name, "params": {k: v.to_dict() for k, v in self.params.items()}}


def decode_action(link: Any, action: int, state: State | None = None) -> Action | None:
    """The structure of action id ``action`` of the game linked as ``link``; None for an id
    that is no action of the game. With ``state``, a piece's owner, kind and cell are read
    there (they may change during a match); without, they are those at the start."""
    spec = link.actions.find(action)
    if spec is None:
        return None
    params: dict[str, ParamValue] = {}
    for (var, t), digit, literals in zip(spec.params, spec.decode(action), spec.literals):
        value = _param_value(link, t, digit, literals, state)
        if value is None:
            return None
        params[var] = value
    return Action(action, spec.name, MappingProxyType(params))


def param_name(link: Any, t: str, digit: int, literals: list[Any]) -> str:
    """How parameter value ``digit`` of type ``t`` reads (card, seat, cell, piece label, literal);
    "?" when its domain has no such value."""
    value = _param_value(link, t, digit, literals, None)
    return value.name if value is not None else "?"


def _param_value(link: Any, t: str, digit: int, literals: list[Any], state: State | None) -> ParamValue | None:
    """Parameter ``t``'s value with domain index ``digit``; None when the domain has no such value."""
    if t == T.CARD:
        return _card_value(link.cards, digit)
    if t == T.PLAYER:
        return ParamValue(t, digit, link.seat_names[digit]) if digit < link.num_players else None
    if t == T.CELL:
        return _cell_value(link.board, digit)
    if t == T.PIECE:
        return _piece_value(link, digit, state)
    if digit >= len(literals):
        return None
    return ParamValue(t, literals[digit], str(literals[digit]))


def _card_value(cards: Any, kind: int) -> ParamValue | None:
    if kind >= cards.kinds:
        return None
    return ParamValue(T.CARD, kind, cards.kind_names[kind], MappingProxyType(dict(cards.kind_attrs[kind])))


def _cell_value(board: Any, cell: int) -> ParamValue | None:
    if board is None or cell >= board.size:
        return None
    row, col = divmod(cell, board.cols)
    return ParamValue(T.CELL, cell, board.names[cell], MappingProxyType({"row": row, "col": col}))


def _piece_value(link: Any, piece: int, state: State | None) -> ParamValue | None:
    if piece >= len(link.piece_owner):
        return None
    if state is None:
        owner, kind, cell = link.piece_owner[piece], link.piece_kind_name[piece], link.piece_start[piece]
    else:
        owner, kind, cell = state.piece_owner[piece], state.piece_kind[piece], state.piece_cell[piece]
    where = link.board.names[cell] if cell >= 0 and link.board is not None else None
    return ParamValue(T.PIECE, piece, link.piece_label[piece],
                      MappingProxyType({"kind": kind, "owner": owner, "cell": where}))
