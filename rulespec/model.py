"""The spec as frozen dataclasses: structure from YAML, rule strings parsed to AST
(``rulespec.builder`` builds them: the parse stage)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import ast as A
from .errors import SourceSpan

__all__ = [
    "OptionDef", "AttrDef", "CardEntry", "CardsDef", "ZoneDef", "BoardDef", "PieceDef", "VarDef",
    "DefineDef", "ProcDef", "CategoryDef", "RankingDef", "PhaseDef", "RoundDef", "ReturnsDef",
    "MatchDef", "InvariantDef", "VariantCase", "SpecModel", "ActionRef", "TableDef", "NOWHERE", "table_key",
    "MAX_BOARD_SIDE", "DEFAULT_MAX_ACTIONS", "DEFAULT_LOOP_LIMIT",
]

NOWHERE = SourceSpan("<spec>", 1, 1)


@dataclass(frozen=True)
class OptionDef:
    name: str
    type: str
    default: Any
    auto: A.Expr | None
    min: float | None
    max: float | None
    values: tuple[str, ...]
    description: str
    span: SourceSpan
    default_span: SourceSpan
    # a bound written as an expression of num_players and other options (`min: (num_players + 3) // 4`),
    # with its text for messages; checked when a game is loaded (``min``/``max`` are then None)
    min_rule: tuple[A.Expr, str] | None = None
    max_rule: tuple[A.Expr, str] | None = None


@dataclass(frozen=True)
class AttrDef:
    name: str
    type: str | None
    default: Any
    span: SourceSpan
    default_span: SourceSpan | None = None


@dataclass(frozen=True)
class CardEntry:
    attrs: tuple[tuple[str, Any, SourceSpan], ...]
    family: tuple[tuple[str, tuple[Any, ...], SourceSpan], ...]
    copies: A.Expr
    span: SourceSpan


@dataclass(frozen=True)
class CardsDef:
    name_template: A.Template | None
    decks: A.Expr
    attributes: tuple[AttrDef, ...]
    entries: tuple[CardEntry, ...]
    span: SourceSpan


@dataclass(frozen=True)
class ZoneDef:
    name: str
    per: str | None
    visibility: str
    face: str
    label: str
    span: SourceSpan


def table_key(key: Any) -> Any:
    """A table's key as the rules compare it: a key written as a whole number (YAML keys reach
    the model as text) is that number, anything else is text."""
    if type(key) is int:
        return key
    text = str(key)
    if text.lstrip("-").isdigit() and len(text) <= 18:
        return int(text)
    return text


MAX_BOARD_SIDE = 26  # cells are named by a letter (a to z) and a row number


@dataclass(frozen=True)
class BoardDef:
    rows: int  # the size written as a number; written as an expression: the largest board (26)
    cols: int
    span: SourceSpan
    # the size written as an expression of options and num_players (`rows: option.size`),
    # evaluated when a game is loaded
    rows_rule: Any = None
    cols_rule: Any = None


@dataclass(frozen=True)
class PieceDef:
    name: str
    per_player: A.Expr
    start: tuple[tuple[int, tuple[tuple[str, ...], ...], SourceSpan], ...]
    label: str
    span: SourceSpan
    start_when: A.Expr | None = None  # a pattern: the cells c where seat p's pieces start


@dataclass(frozen=True)
class VarDef:
    name: str
    type: str
    per: str | None
    initial: A.Expr | None
    reset: str
    span: SourceSpan
    visibility: str = "public"  # or "owner": a player's value is seen by that player only


@dataclass(frozen=True)
class TableDef:
    """A named lookup table: keys (texts or whole numbers) to values of one type."""

    name: str
    entries: tuple[tuple[Any, Any], ...]
    span: SourceSpan


@dataclass(frozen=True)
class DefineDef:
    name: str
    params: tuple[str, ...]
    body: A.Expr | None
    span: SourceSpan


@dataclass(frozen=True)
class ProcDef:
    name: str
    params: tuple[str, ...]
    body: A.Block
    span: SourceSpan


@dataclass(frozen=True)
class ActionRef:
    """A `choose` naming an action of the `actions:` section."""

    name: str
    span: SourceSpan


@dataclass(frozen=True)
class CategoryDef:
    name: str
    kind: str  # run, same, kinds, highest
    run: int
    same: str | None
    count: int
    kinds: tuple[int, ...]
    span: SourceSpan


@dataclass(frozen=True)
class RankingDef:
    name: str
    size: int
    order: str
    categories: tuple[CategoryDef, ...]
    unused: bool
    span: SourceSpan


@dataclass(frozen=True)
class PhaseDef:
    name: str
    first: A.Expr | None
    order: str
    turn: A.Block
    end_when: tuple[A.Expr, ...]
    next: str | None
    next_span: SourceSpan | None
    span: SourceSpan
    skip_when: A.Expr | None = None  # seats passed over when turns pass (p: the seat)


@dataclass(frozen=True)
class RoundDef:
    setup: A.Block
    phases: tuple[PhaseDef, ...]
    end_when: tuple[A.Expr, ...]
    scoring: A.Block
    report: tuple[tuple[str, A.Expr], ...]
    span: SourceSpan


@dataclass(frozen=True)
class ReturnsDef:
    value: A.Expr
    min: A.Expr
    max: A.Expr
    sum: A.Expr | None
    span: SourceSpan


@dataclass(frozen=True)
class MatchDef:
    setup: A.Block
    end_when: tuple[A.Expr, ...]
    winners: A.Expr | None
    returns: ReturnsDef | None
    report: tuple[tuple[str, A.Expr], ...]
    span: SourceSpan


@dataclass(frozen=True)
class InvariantDef:
    expr: A.Expr
    message: str
    span: SourceSpan


@dataclass(frozen=True)
class VariantCase:
    name: str
    players: int | None
    options: tuple[tuple[str, Any], ...]
    span: SourceSpan


@dataclass(frozen=True)
class SpecModel:
    file: str
    name: str
    description: str
    players: tuple[int, ...]
    players_span: SourceSpan
    seat_names: tuple[str, ...]
    max_actions: A.Expr
    max_actions_span: SourceSpan
    loop_limit: int
    options: tuple[OptionDef, ...]
    cards: CardsDef | None
    zones: tuple[ZoneDef, ...]
    board: BoardDef | None
    pieces: tuple[PieceDef, ...]
    variables: tuple[VarDef, ...]
    defines: tuple[DefineDef, ...]
    procedures: tuple[ProcDef, ...]
    actions: tuple[A.Alternative, ...]
    rankings: tuple[RankingDef, ...]
    match: MatchDef
    round: RoundDef
    invariants: tuple[InvariantDef, ...]
    variants: tuple[VariantCase, ...]
    heuristic: A.Expr | None
    tables: tuple[TableDef, ...] = ()
    keep_single_chance: bool = False
    requires: tuple[tuple[A.Expr, str, SourceSpan], ...] = ()  # (condition, message, where) on options
    action_texts: tuple[tuple[str, str], ...] = ()  # (action, its `description:`), top-level and inline
    # designer prose (`about:`) for readers, keyed "game", "word:<term>", "option:<name>", "card:<entry index>",
    # "zone:<name>", "piece:<name>", "variable:<name>", "action:<name>", "match", "round", "phase:<name>",
    # "ranking:<name>", "category:<ranking>:<name>", "stmt:<line>:<col>" (an if/for/while/repeat statement),
    # "define:<name>" (a phrase with {param} parts)
    abouts: tuple[tuple[str, str], ...] = ()


DEFAULT_MAX_ACTIONS = 100_000
DEFAULT_LOOP_LIMIT = 1_000
