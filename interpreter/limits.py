"""Run-time resource limits: the budget every untrusted spec runs under.

One *step* is everything the rules do between two decisions (one ``apply_action``, or
``new_initial_state``). Each step starts with ``step_ops`` units of work; loop
iterations, aggregate and binding elements, list and string growth, procedure calls,
emitted events and frames stepped spend them. A step that runs out raises
``BudgetError`` at the spec position of the rule that ran away. Sizes (list and string
length, integer bits, options of one choice) are checked where values grow, so memory
stays bounded too. A match ends with ``GameLengthError`` after ``game.limits.actions``
actions or ``max_actions``, whichever is smaller, so a match is bounded too.

The defaults leave every game in ``games/`` far inside its budget (see
``docs/security.md``); an embedder may pass tighter or looser ``RunLimits`` to
``load_game(..., limits=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RunLimits", "DEFAULT_LIMITS"]


@dataclass(frozen=True)
class RunLimits:
    step_ops: int = 1_000_000  # units of work in one step
    max_list: int = 1_000_000  # elements of one list value (ranges included)
    max_text: int = 1_000_000  # characters of one string value
    max_int_bits: int = 4_096  # bits of one integer value
    max_options: int = 100_000  # options of one choice (or outcomes of one chance event)
    max_action_ids: int = 10_000_000  # distinct action ids of a game (the size of an action mask)
    max_events: int = 100_000  # events in one match's log
    max_log: int = 4_000_000  # size of one match's log of events, in units of about 16 bytes
    max_actions: int = 100_000  # actions of one match, whatever `game.limits.actions` says


DEFAULT_LIMITS = RunLimits()
