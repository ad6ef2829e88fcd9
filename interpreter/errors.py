"""Run-time errors.

    InterpreterError
    ├── IllegalActionError     an action id that is not legal now (the state is unchanged)
    ├── OptionError            a bad player count or option value when loading a game
    ├── StateError             a saved state (``state_from_json``) that this game cannot have reached
    └── RuleError              the spec's rules failed while running (names the spec position)
        ├── GameLengthError    the spec's `game.limits.actions` bound was exceeded
        └── BudgetError        one step of the rules used more than its resource budget

    WorkerError                a worker process of a run (simulate, sweep) failed: not the rules' fault
    └── WorkerLost             a worker process was killed (a signal, memory) before its work was done
"""

from __future__ import annotations

from rulespec.errors import SourceSpan

__all__ = ["InterpreterError", "IllegalActionError", "OptionError", "StateError", "RuleError", "GameLengthError",
           "BudgetError", "WorkerError", "WorkerLost"]


class InterpreterError(Exception):
    pass


class IllegalActionError(InterpreterError, ValueError):
    """Raised by ``apply_action`` for an action that is not legal; the state did not change."""


class OptionError(InterpreterError, ValueError):
    """A player count or option value the spec does not allow."""


class StateError(InterpreterError, ValueError):
    """A saved state that is malformed, belongs to another game, or breaks this game's rules."""


class RuleError(InterpreterError, RuntimeError):
    """A rule could not be carried out; ``span`` is where the rule is written."""

    def __init__(self, message: str, span: SourceSpan | None = None):
        self.span = span
        self.detail = message
        where = f"{span}: " if span is not None else ""
        super().__init__(f"{where}{message}")


class GameLengthError(RuleError):
    """More actions than the spec's declared bound: the rules do not end the game."""


class BudgetError(RuleError):
    """A rule ran away: one step used more work, memory or options than the run-time limits allow."""


class WorkerError(RuntimeError):
    """A worker process failed in a way that is not the rules' fault (a bug, or the process was killed)."""


class WorkerLost(WorkerError):
    """A worker process ended before its work was done: it was killed (by a signal, by the
    system when memory ran out) or Python itself crashed. Not a bug of the rules."""
