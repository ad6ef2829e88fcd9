"""Frames: the layout of every kind of frame, declared once, with the check of a saved one;
and entering a block (pushing its frame and stepping it at once).

The rules run on an explicit stack of frames kept in the state (``State.stack``). A frame is
a plain list, ``[code index, ...]``: a state is cloned, saved as JSON and shared with other
targets as plain data, and a list is the cheapest record to make, copy and index. What each
slot holds is declared here, once, by name: the run-time code indexes frames by the
constants below (``frame[PC]``), the code generators write frames and their slots from the
layouts (``BLOCK.display(...)``, ``repr(PC)``: the generated text holds the numbers), and
``state_check`` checks a saved frame with its layout's ``check`` (every frame code names
its layout: ``codes.BlockCode.layout`` ...). Slot 0 is always the index of the frame's code
in ``game.codes``.

    kind     slots                                        code (codes, chance_codes, run_loop)
    block    [code, pc, env] (+ handed back)              BlockCode: the next statement, the env
    for      [code, envs, next, env]                      ForCode: the bindings, the next one, the env
    repeat   [code, count, env] (+ handed back)           RepeatCode: the times the body ran
    while    [code, count, env]                           WhileCode
    draw     [code, remaining, src, dst, face, mode]      DrawCode (explicit chance)
    deal     [code, pos, total, src, targets, face]       DealCode (explicit chance)
    match    [code, stage]                                MatchCode: 0 setup, 1 a round next, 2 after it
    round    [code, stage, next phase]                    RoundCode: 0 setup, 1 phases, 2 scoring, 3 the end
    phase    [code, phase index, started]                 PhaseCode: 0 before its first turn, then 1
    pending  (player, legal, options, code, payload)      state.Pending (a record, saved as a list)

The loop of the rules (``run_loop.resolve``) steps the top frame; a block entered from another
block's step (an `if`'s branch, a procedure's body, a turn) is stepped at once instead,
while the stack is shallow, which saves the loop a trip. Both the frame codes (``flow``)
and the generated steps of blocks (``codegen_blocks``) enter blocks through here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from rulespec import ast as A

from .errors import BudgetError

__all__ = ["MAX_FRAMES", "DIRECT_DEPTH", "Steppable", "enter_block", "enter_call", "procedure_entry", "Layout",
           "Invalid", "CheckContext", "BIG", "is_int", "short", "CODE", "PC", "ENV", "HANDED_BACK", "FOR_ENVS",
           "FOR_NEXT", "FOR_ENV", "COUNT", "LOOP_ENV", "DRAW_LEFT", "DRAW_SRC", "DRAW_DST", "DRAW_FACE", "DRAW_MODE",
           "DEAL_POS", "DEAL_TOTAL", "DEAL_SRC", "DEAL_TARGETS", "DEAL_FACE", "STAGE", "NEXT_PHASE", "PHASE_INDEX",
           "STARTED", "PENDING_PLAYER", "PENDING_LEGAL", "PENDING_OPTIONS", "PENDING_CODE", "PENDING_PAYLOAD",
           "BLOCK", "FOR", "REPEAT", "WHILE", "DRAW", "DEAL", "MATCH", "ROUND", "PHASE", "PENDING", "IfEntry",
           "CallEntry", "push_frame"]

MAX_FRAMES = 10_000  # frames on the stack at once
DIRECT_DEPTH = 64  # frames on the stack up to which an entered block is stepped at once (enter_block)
BIG = 1 << 62  # a bound on the counters of a saved state (round, turn, skips, frame counters)


# ====================================================================== layouts


class Layout:
    """One kind of frame: its slots by name, in order (slot 0: the code index), and ``check``,
    the check of a saved frame of this kind (``state_check``)."""

    __slots__ = ("kind", "slots", "check")

    def __init__(self, kind: str, slots: dict[str, int], check: Validator | None = None) -> None:
        assert list(slots.values()) == list(range(len(slots))), f"the slots of {kind} are not in order"
        self.kind = kind
        self.slots = tuple(slots)
        self.check = check

    @property
    def size(self) -> int:
        return len(self.slots)

    def display(self, **texts: str) -> str:
        """The Python text of a new frame of this kind, for generated code: each slot's text, in order."""
        assert texts.keys() == set(self.slots), f"a {self.kind} frame has the slots {self.slots}"
        return "[" + ", ".join(texts[name] for name in self.slots) + "]"


class Invalid(Exception):
    """A saved frame (or, in ``state_check``, any part of a saved state) that no match of the
    game could have made; ``state_check`` names where and raises ``StateError``."""


class CheckContext(Protocol):
    """What a frame's check asks of the state checker (``state_check``): the game's tables,
    and the checks of an env and a zone."""

    codes: Sequence[Any]
    max_list: int
    match_code: int
    zones: int

    def env(self, env: Any, what: str, needs: frozenset[str] = frozenset()) -> None: ...
    def required(self, code: Any, pc: int) -> frozenset[str]: ...
    def statement(self, span: Any) -> Any: ...
    def free_names(self, nodes: list[Any]) -> frozenset[str]: ...
    def zone(self, z: Any) -> None: ...


Validator = Callable[[CheckContext, Any, list, frozenset[str]], None]


def is_int(x: Any) -> bool:
    return type(x) is int


def short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _size(frame: list, layout: Layout) -> None:
    if len(frame) != layout.size:
        raise Invalid(f"{len(frame)} entries, not {layout.size}")


CODE = 0  # every frame: the index of its code in game.codes

# ---------------------------------------------------------------------- block
# [code, pc, env]: ``pc`` the next statement to run, ``env`` the local names. The body of a
# `repeat` whose `until` reads its names appends its env as it ends (``HANDED_BACK``), for
# the repeat's frame below to take in the same step (never saved).
PC = 1
ENV = 2
HANDED_BACK = 3


def _check_block(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, BLOCK)
    pc = frame[PC]
    if not (is_int(pc) and 1 <= pc <= len(code.stmts)):
        raise Invalid(f"statement {short(repr(pc), 20)} is not one of its {len(code.stmts)} statements")
    cx.env(frame[ENV], "env", cx.required(code, pc) - exempt)


BLOCK = Layout("block", {"code": CODE, "pc": PC, "env": ENV}, _check_block)

# ---------------------------------------------------------------------- for
# [code, envs, next, env]: the env of each item (its bindings), the next one's position, the
# env of the statement.
FOR_ENVS = 1
FOR_NEXT = 2
FOR_ENV = 3


def _check_for(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, FOR)
    envs, i = frame[FOR_ENVS], frame[FOR_NEXT]
    if type(envs) is not list or len(envs) > cx.max_list:
        raise Invalid("the loop's bindings are not a list")
    if not (is_int(i) and 1 <= i <= len(envs)):
        raise Invalid("the loop's position is out of range")
    needs = cx.required(cx.codes[code.body], 0)
    for j, env in enumerate(envs):
        cx.env(env, f"binding {j}", needs if j >= i else frozenset())
    cx.env(frame[FOR_ENV], "env")


FOR = Layout("for", {"code": CODE, "envs": FOR_ENVS, "next": FOR_NEXT, "env": FOR_ENV}, _check_for)

# ---------------------------------------------------------------------- repeat, while
# [code, count, env]: the times the body has run, the env of the statement (each run of the
# body gets a copy). A repeat's body may hand its env back (``HANDED_BACK``, as a block's).
COUNT = 1
LOOP_ENV = 2


def _check_loop(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, REPEAT)
    count = frame[COUNT]
    if not (is_int(count) and 1 <= count <= code.limit):
        raise Invalid(f"the loop's count is not 1 to {code.limit}")
    node = cx.statement(code.span)
    needs = cx.required(cx.codes[code.body], 0)
    if isinstance(node, A.Repeat):
        own = {stmt.name for stmt in node.body.stmts if isinstance(stmt, A.Let)}
        needs = needs | (cx.free_names([node.until]) - own)
    elif node is not None:
        needs = needs | cx.free_names([node.cond])
    cx.env(frame[LOOP_ENV], "env", needs)


REPEAT = Layout("repeat", {"code": CODE, "count": COUNT, "env": LOOP_ENV}, _check_loop)
WHILE = Layout("while", {"code": CODE, "count": COUNT, "env": LOOP_ENV}, _check_loop)

# ---------------------------------------------------------------------- draw (explicit chance)
# [code, remaining, src, dst, face, mode]: the cards left to draw, the zones, the face they
# land (0 down, 1 up), and where they come from (TOP 0, BOTTOM 1, RANDOM 2).
DRAW_LEFT = 1
DRAW_SRC = 2
DRAW_DST = 3
DRAW_FACE = 4
DRAW_MODE = 5


def _check_draw(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, DRAW)
    remaining, src, dst, face, mode = frame[DRAW_LEFT:]
    if not (is_int(remaining) and 0 < remaining < BIG):
        raise Invalid("the number of cards left to draw is not positive")
    cx.zone(src)
    cx.zone(dst)
    if face not in (0, 1) or not is_int(face) or mode not in (0, 1, 2) or not is_int(mode):
        raise Invalid("face or mode out of range")


DRAW = Layout("draw", {"code": CODE, "remaining": DRAW_LEFT, "src": DRAW_SRC, "dst": DRAW_DST, "face": DRAW_FACE,
                       "mode": DRAW_MODE}, _check_draw)

# ---------------------------------------------------------------------- deal (explicit chance)
# [code, pos, total, src, targets, face]: the cards dealt so far and in all, the source, the
# zones dealt to in turn, the face (-1: each zone's own).
DEAL_POS = 1
DEAL_TOTAL = 2
DEAL_SRC = 3
DEAL_TARGETS = 4
DEAL_FACE = 5


def _check_deal(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, DEAL)
    pos, total, src, targets, face = frame[DEAL_POS:]
    if not (is_int(pos) and is_int(total) and 0 <= pos < total < BIG):
        raise Invalid("the deal's position is out of range")
    cx.zone(src)
    if type(targets) is not list or not targets or len(targets) > cx.zones:
        raise Invalid("the deal has no target zones")
    for z in targets:
        cx.zone(z)
    if face not in (-1, 0, 1) or not is_int(face):
        raise Invalid("face out of range")


DEAL = Layout("deal", {"code": CODE, "pos": DEAL_POS, "total": DEAL_TOTAL, "src": DEAL_SRC,
                       "targets": DEAL_TARGETS, "face": DEAL_FACE}, _check_deal)

# ---------------------------------------------------------------------- match, round, phase
# match [code, stage]: 0 its setup next, 1 a round next, 2 a round ran (the end conditions next)
# round [code, stage, next phase]: 0 its setup next, 1 its phases, 2 scoring next, 3 the end
# phase [code, phase index, started]: started 0 before its first turn, then 1
STAGE = 1
NEXT_PHASE = 2
PHASE_INDEX = 1
STARTED = 2


def _check_match(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, MATCH)
    if frame[STAGE] not in (1, 2) or not is_int(frame[STAGE]):
        raise Invalid("stage out of range")


def _check_round(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, ROUND)
    if frame[STAGE] not in (1, 3) or not is_int(frame[STAGE]):
        raise Invalid("stage out of range")
    if not (is_int(frame[NEXT_PHASE]) and 0 <= frame[NEXT_PHASE] <= len(code.phases)):
        raise Invalid("next phase out of range")


def _check_phase(cx: CheckContext, code: Any, frame: list, exempt: frozenset[str]) -> None:
    _size(frame, PHASE)
    phases = cx.codes[cx.codes[cx.match_code].round_code].phases
    phase = phases.index(code.index) if code.index in phases else -1
    if frame[PHASE_INDEX] != phase or not is_int(frame[PHASE_INDEX]) or frame[STARTED] != 1 \
            or not is_int(frame[STARTED]):
        raise Invalid("phase frame out of range")


MATCH = Layout("match", {"code": CODE, "stage": STAGE}, _check_match)
ROUND = Layout("round", {"code": CODE, "stage": STAGE, "next_phase": NEXT_PHASE}, _check_round)
PHASE = Layout("phase", {"code": CODE, "phase_index": PHASE_INDEX, "started": STARTED}, _check_phase)

# ---------------------------------------------------------------------- the pending record
# ``state.Pending`` (a NamedTuple; a list in a saved state): who decides (a seat, or CHANCE),
# the legal ids (or chance outcomes) sorted, a chance event's probabilities (None for a
# decision), the index of the code that asks, and its payload (a decision's env).
PENDING_PLAYER = 0
PENDING_LEGAL = 1
PENDING_OPTIONS = 2
PENDING_CODE = 3
PENDING_PAYLOAD = 4
PENDING = Layout("pending", {"player": PENDING_PLAYER, "legal": PENDING_LEGAL, "options": PENDING_OPTIONS,
                             "code": PENDING_CODE, "payload": PENDING_PAYLOAD})


# ====================================================================== entering a block


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


def push_frame(s: Any, frame: list) -> None:
    """Push a frame for the loop to step (a choice's `otherwise` or body, from generated code)."""
    s.stack.append(frame)


class IfEntry:
    """The entry of an `if` that can wait, a statement of a block (``codes.BlockCode.stmts``): its
    condition, its branches' blocks, and for each branch that is one choice alone
    (``codes.lone_choice_of``) that choice (``lone``) and the function entering it with no frame
    for the branch (``enters``). A generated block tests the condition in line and enters the
    branch itself (``codegen_blocks``); a saved state's check finds the choices entered with no
    frame (``state_check``)."""

    __slots__ = ("cond", "branches", "lone", "enters")

    def __init__(self, cond: Callable[[Any, dict], Any], branches: tuple[Any, Any],  # (codes.BlockCode)
                 lone: tuple[Any, Any], enters: tuple[Callable[[Any, dict], None] | None, ...]) -> None:
        self.cond = cond
        self.branches = branches
        self.lone = lone
        self.enters = enters

    def __call__(self, s: Any, env: dict) -> None:
        k = 0 if self.cond(s, env) else 1
        enter = self.enters[k]
        if enter is not None:
            enter(s, dict(env))
        else:
            code = self.branches[k]
            enter_block(s, code, [code.index, 0, dict(env)])


class CallEntry:
    """The entry of a call of a procedure that can wait, by its name: the env of its parameters
    made from the arguments (``bound``), then its body entered (``procedure``, a
    ``procedure_entry``). A generated block builds the env in line and calls ``procedure``."""

    __slots__ = ("procedure", "bound")

    def __init__(self, procedure: Callable[[Any, dict], None], bound: Callable[[Any, dict], dict]) -> None:
        self.procedure = procedure
        self.bound = bound

    def __call__(self, s: Any, env: dict) -> None:
        self.procedure(s, self.bound(s, env))
