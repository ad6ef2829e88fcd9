"""Static checks: every name resolves, types agree, phases are reachable, rounds can end.

Each ``check_*`` function owns one concern and appends diagnostics; the expression and
statement walkers record, for every node, its type and what its name refers to, so the
interpreter can link without guessing (cards, players, cells and pieces are all small
integers at run time).
"""

from __future__ import annotations

from ..errors import Diagnostics
from ..model import SpecModel
from .expressions import ExpressionChecker
from .flow import check_flow
from .info import (
    CHANCE,
    CHOICE,
    MAX_ACTIONS,
    MAX_DEFINE_DEPTH,
    MAX_DEFINE_EXPANSIONS,
    MAX_NESTING,
    PROC_DEFER_DEPTH,
    UNKNOWN,
    CheckInfo,
    Context,
    Ref,
    Scope,
)
from .options import default_options, option_bound_error, option_value_error, option_value_problem
from .sections import (
    check_cards,
    check_defines,
    check_limits,
    check_options,
    check_rankings,
    check_requirements,
    check_tables,
    check_variables,
    check_variants,
    check_zones_board_pieces,
)
from .statements import Checker

__all__ = ["CheckInfo", "check_model", "Scope", "CHOICE", "CHANCE", "option_value_error", "option_bound_error",
           "option_value_problem", "default_options", "Checker", "ExpressionChecker", "Ref", "UNKNOWN", "Context",
           "MAX_ACTIONS", "MAX_NESTING", "MAX_DEFINE_DEPTH", "MAX_DEFINE_EXPANSIONS", "PROC_DEFER_DEPTH"]


def check_model(model: SpecModel, diags: Diagnostics, parse_failed: bool = False) -> CheckInfo:
    """Run every check; all problems are collected in ``diags``.

    After syntax errors (``parse_failed``) the checks that reason about the whole spec
    (can a round end?) are skipped: a rule that did not parse would make them wrong.
    """
    c = Checker(model, diags)
    c.parse_failed = parse_failed
    check_options(c)
    check_limits(c)
    check_requirements(c)
    check_cards(c)
    check_zones_board_pieces(c)
    check_tables(c)
    check_variables(c)
    check_rankings(c)
    check_flow(c)
    check_defines(c)
    c.check_pending_procs()
    check_variants(c)
    return c.info
