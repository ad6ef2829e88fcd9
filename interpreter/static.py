"""Static evaluation at game start (see rulespec.static), failing with RuleError."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulespec.static import Defines, StaticEvalError
from rulespec.static import evaluate_static as _evaluate

from .errors import RuleError

__all__ = ["evaluate_static"]


def evaluate_static(node: Any, options: Mapping[str, Any], num_players: int | None,
                    names: Mapping[str, Any] | None = None, defines: Defines | None = None) -> Any:
    try:
        return _evaluate(node, options, num_players, names, defines)
    except StaticEvalError as exc:
        raise RuleError(exc.message, exc.span) from None
