"""Entering a block: pushing its frame on the state's stack of frames, and stepping it at once.

The loop of the rules (``flow.run``) steps the top frame; a block entered from another
block's step (an `if`'s branch, a procedure's body, a turn) is stepped at once instead,
while the stack is shallow, which saves the loop a trip. Both the frame codes (``flow``)
and the generated steps of blocks (``codegen_blocks``) enter blocks through here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .errors import BudgetError

__all__ = ["MAX_FRAMES", "DIRECT_DEPTH", "Steppable", "enter_block", "enter_call", "procedure_entry"]

MAX_FRAMES = 10_000  # frames on the stack at once
DIRECT_DEPTH = 64  # frames on the stack up to which an entered block is stepped at once (enter_block)


class Steppable(Protocol):
    index: int

    def step(self, s: Any, frame: list) -> None: ...


def enter_block(s: Any, code: Steppable, frame: list) -> None:
    """Push the frame of a block just entered (a turn, an `if`'s branch, a procedure's body) and
    run its first statements now rather than on the loop's next trip. Each such step nests a
    Python call, so only while the stack is shallow; deeper, the loop steps it."""
    stack = s.stack
    stack.append(frame)
    if len(stack) <= DIRECT_DEPTH:
        code.step(s, frame)


def enter_call(s: Any, code: Steppable, env: dict, span: Any) -> None:
    """Enter a procedure's body: the only way the stack of frames grows without bound."""
    stack = s.stack
    if len(stack) >= MAX_FRAMES:
        raise BudgetError(f"the rules nest more than {MAX_FRAMES:,} blocks deep (a procedure calling itself "
                          "without end?)", span)
    frame = [code.index, 0, env]
    stack.append(frame)
    if len(stack) <= DIRECT_DEPTH:
        code.step(s, frame)


def procedure_entry(find: Callable[[], Steppable], span: Any) -> Callable[[Any, dict], None]:
    """A call of a procedure that can wait, given the env of its parameters: its body's code
    is found at the first call (procedures may call each other, so it may not exist yet when
    the call is compiled). A plain function, not an object with ``__call__``: this runs for
    every call of such a procedure, and Python calls a function faster."""
    code: Steppable | None = None

    def call(s: Any, env: dict) -> None:
        nonlocal code
        if code is None:
            code = find()
        stack = s.stack  # enter_call, in line
        if len(stack) >= MAX_FRAMES:
            enter_call(s, code, env, span)  # raises
        frame = [code.index, 0, env]
        stack.append(frame)
        if len(stack) <= DIRECT_DEPTH:
            code.step(s, frame)

    return call
