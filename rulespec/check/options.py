"""Option values checked against their declarations: a spec's defaults and variants (by the
checker), and the values a game is loaded with (by the interpreter)."""

from __future__ import annotations

import math
from typing import Any

from ..errors import did_you_mean
from ..model import SpecModel
from ..static import MAX_INT, StaticEvalError, evaluate_static

__all__ = ["option_value_problem", "option_value_error", "option_bound_error", "default_options", "shown_value"]


def option_value_problem(opt: Any, value: Any) -> tuple[str, str | None] | None:
    """Why ``value`` is not valid for option ``opt``, and a hint (None when it is valid)."""
    if opt.type == "bool":
        return None if isinstance(value, bool) else (f"expected true or false, got {shown_value(value)}", None)
    if opt.type == "enum":
        if value in opt.values:
            return None
        return (f"expected one of {', '.join(opt.values)}, got {shown_value(value)}",
                did_you_mean(str(value), opt.values))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number, got {shown_value(value)}", None
    if isinstance(value, float) and not math.isfinite(value):
        return f"expected a finite number, got {value!r}", None
    if opt.type == "int" and not isinstance(value, int):
        return f"expected a whole number, got {value!r}", None
    if isinstance(value, int) and not -MAX_INT - 1 <= value <= MAX_INT:
        return f"{shown_value(value)} is too large", None
    if opt.min is not None and value < opt.min:
        return f"{value} is below the minimum {opt.min:g}", None
    if opt.max is not None and value > opt.max:
        return f"{value} is above the maximum {opt.max:g}", None
    return None


def shown_value(value: Any) -> str:
    """``repr(value)`` for a message: short, whatever the value (a huge number is not spelled out)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    try:
        text = repr(value)
    except ValueError:
        return "a value"
    return text if len(text) <= 60 else text[:57] + "..."


def option_bound_error(opt: Any, value: Any, options: Any, num_players: int) -> str | None:
    """Why ``value`` is outside a bound of ``opt`` written as an expression (`min: (num_players + 3) // 4`),
    with the other ``options`` resolved (None when it is inside). Raises ``StaticEvalError``
    when a bound cannot be computed."""
    for key, rule in (("min", opt.min_rule), ("max", opt.max_rule)):
        if rule is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        expr, text = rule
        bound = evaluate_static(expr, options, num_players)
        if isinstance(bound, bool) or not isinstance(bound, (int, float)):
            raise StaticEvalError(f"the {key} of option '{opt.name}' is {shown_value(bound)}, not a number", expr.span)
        if value < bound if key == "min" else value > bound:
            side = "below the minimum" if key == "min" else "above the maximum"
            shown = f"{bound:g}" if isinstance(bound, float) else shown_value(bound)
            return f"{value} is {side} {shown} for {num_players} players ({key}: {text})"
    return None


def option_value_error(opt: Any, value: Any) -> str | None:
    """Why ``value`` is not valid for option ``opt``, in one sentence (None when it is)."""
    problem = option_value_problem(opt, value)
    if problem is None:
        return None
    message, hint = problem
    return f"{message} ({hint})" if hint else message



def default_options(model: SpecModel, num_players: int) -> dict[str, Any]:
    """Every option at its default (auto options computed), for checks before a game exists."""
    values = {o.name: o.default for o in model.options if o.default != "auto"}
    for opt in model.options:
        if opt.default == "auto" and opt.auto is not None:
            try:
                values[opt.name] = evaluate_static(opt.auto, values, num_players)
            except StaticEvalError:
                pass
    return values
