"""The codes of blocks, loops and choices: the frame codes the rules' statements that can wait become.

A block (``BlockCode``) is a list of statements: simple ones are closures, waiting ones
enter frames or decisions; a `for`, `repeat` or `while` that contains one is a loop code
stepping its body's block; a choice (``ChooseCode``) records the pending decision and
carries out the option chosen. ``flow`` links them; ``run_loop`` steps them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import SMALL, overrun, spend
from .codegen_blocks import hand_back
from .effects import PYTHON_ERRORS, EndSignal, rule_failure
from .errors import BudgetError, RuleError
from .frames import (
    BLOCK,
    COUNT,
    DIRECT_DEPTH,
    ENV,
    FOR,
    FOR_ENVS,
    FOR_NEXT,
    HANDED_BACK,
    LOOP_ENV,
    PC,
    REPEAT,
    WHILE,
    Layout,
    enter_block,
)
from .state import Pending, State

__all__ = ["NEVER", "Code", "BlockCode", "lone_choice_of", "lone_choice_entry", "ForCode", "RepeatCode", "WhileCode",
           "Alt", "ChooseCode", "Collector", "make_collector", "decode_steps", "make_decoder"]

NEVER = 1 << 62  # a statement index no block reaches


# ====================================================================== statement codes


class Code:
    """A code of ``game.codes``: a block, a loop, a choice, a chance event, the match, a round or a
    phase. A code with frames (``layout``) has ``step(state, frame)``, which the run loop calls
    for its frame on top; a statement that can wait has ``enter(state, env)``. Each class
    declares them once: a method, or, where the linker picks a generated unit, a field it sets
    once (``BlockCode.step``, ``ChooseCode.enter`` and ``resolve_choice``, ``PhaseCode.step``)."""

    level = ""
    index = -1
    layout: Layout | None = None  # the layout of its frames (frames); None: it never has a frame
    span: Any = None  # where the code is written: run-time errors of its steps point there


class BlockCode(Code):
    """A list of statements; simple ones are closures, waiting ones enter frames.

    ``step(state, frame)`` is a field, set once by the linker (``fill_block``): the block's
    generated step (``codegen_blocks.generate_block_step``, an ``s*`` unit), or, where none is
    generated, ``reference_step``, the closures run in turn."""

    layout = BLOCK
    step: Callable[[State, list], None]

    def __init__(self, span: Any) -> None:
        self.spans: tuple[Any, ...] = ()
        self.stmts: tuple[tuple[Callable[[State, dict], Any], bool], ...] = ()
        # per statement, the code whose frame or decision it starts (None: it runs to its end, or
        # it enters a block: an `if`, a procedure call)
        self.entered: tuple[Code | None, ...] = ()
        self.check: Callable[[State], bool] | None = None
        self.span = span
        # the body of a `repeat` whose `until` reads the body's names: at its end the block
        # hands its env to the repeat's frame (see RepeatCode.step)
        self.hands_back = False
        # a frame at this statement is past the last one (fill_block sets it; never for a block
        # that hands its env back, as its step does more than leave the stack)
        self.ends_at = NEVER

    def reference_step(self, s: State, frame: list) -> None:
        """The block's statements from ``frame[PC]`` on, by their closures."""
        stmts = self.stmts
        env = frame[ENV]
        pc = frame[PC]
        n = len(stmts)
        check = self.check
        try:
            while pc < n:
                fn, simple = stmts[pc]
                pc += 1
                if simple:
                    fn(s, env)
                    if check is not None and s.dirty and s.in_play:
                        s.dirty = False
                        if check(s):
                            frame[PC] = pc
                            raise EndSignal("round")
                else:
                    frame[PC] = pc
                    fn(s, env)
                    return
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, self.spans[pc - 1]) from None
        if self.hands_back:
            hand_back(s)
        else:
            s.stack.pop()


def lone_choice_of(code: BlockCode) -> ChooseCode | None:
    """The choice a block is made of alone (its one statement, a `choose` that waits), else
    None. Entering such a block is entering its choice, with no frame for the block: past
    its one statement, the frame would only be left (a turn, an `if`'s branch)."""
    if len(code.stmts) != 1 or code.stmts[0][1] or code.hands_back:
        return None
    only = code.entered[0]
    return only if isinstance(only, ChooseCode) else None


def lone_choice_entry(code: BlockCode) -> Callable[[State, dict], None]:
    """Enter the choice block ``code`` is made of (``lone_choice_of``) in a given env, with no
    frame for the block; a Python error there is reported at the choice, as the block would."""
    choice = lone_choice_of(code)
    assert choice is not None
    enter = choice.enter
    span = code.spans[0]

    def enter_lone(s: State, env: dict) -> None:
        try:
            enter(s, env)
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, span) from None

    return enter_lone


class ForCode(Code):
    __slots__ = ("envs", "body", "body_code")
    layout = FOR
    envs: Callable[[State, dict], list[dict]]
    body: int
    body_code: BlockCode

    def enter(self, s: State, env: dict) -> None:
        s.stack.append([self.index, self.envs(s, env), 0, env])

    def step(self, s: State, frame: list) -> None:
        envs = frame[FOR_ENVS]
        i = frame[FOR_NEXT]
        if i >= len(envs):
            s.stack.pop()
            return
        frame[FOR_NEXT] = i + 1
        body = [self.body, 0, dict(envs[i])]
        stack = s.stack  # enter_block, in line: this runs once an item
        stack.append(body)
        if len(stack) <= DIRECT_DEPTH:
            self.body_code.step(s, body)


class RepeatCode(Code):
    __slots__ = ("body", "body_code", "until", "limit", "span")
    layout = REPEAT
    body: int
    body_code: BlockCode
    until: Callable[[State, dict], Any]
    limit: int
    span: Any

    def enter(self, s: State, env: dict) -> None:
        s.stack.append([self.index, 0, env])

    def step(self, s: State, frame: list) -> None:
        count = frame[COUNT]
        # the body's env, handed back by the body as it ended (never saved: this step
        # follows the body's end within the same step of the rules)
        env = frame.pop() if len(frame) > HANDED_BACK else frame[LOOP_ENV]
        if count > 0 and self.until(s, env):
            s.stack.pop()
            return
        if count >= self.limit:
            raise RuleError(f"`repeat` ran {self.limit} times without its `until` becoming true", self.span)
        frame[COUNT] = count + 1
        enter_block(s, self.body_code, [self.body, 0, dict(frame[LOOP_ENV])])


class WhileCode(Code):
    __slots__ = ("body", "body_code", "cond", "limit", "span")
    layout = WHILE
    body: int
    body_code: BlockCode
    cond: Callable[[State, dict], Any]
    limit: int
    span: Any

    def enter(self, s: State, env: dict) -> None:
        s.stack.append([self.index, 0, env])

    def step(self, s: State, frame: list) -> None:
        if not self.cond(s, frame[LOOP_ENV]):
            s.stack.pop()
            return
        if frame[COUNT] >= self.limit:
            raise RuleError(f"`while` ran {self.limit} times and its condition still holds", self.span)
        frame[COUNT] += 1
        enter_block(s, self.body_code, [self.body, 0, dict(frame[LOOP_ENV])])


class Alt:
    """One alternative of a choice, linked: how to enumerate, encode and run it."""

    __slots__ = ("name", "names", "loops", "cond", "encodings", "collect", "decode", "size", "span", "body_fn",
                 "body_code", "body", "label", "offset", "priority", "source", "steps")
    name: str
    names: tuple[str, ...]
    loops: tuple[tuple[str, Callable[[State, dict], Any], Callable[[State, dict], Any] | None], ...]
    cond: Callable[[State, dict], Any] | None
    encodings: tuple[tuple[Any, int], ...]
    collect: Callable[[State, dict, set], None]
    decode: Callable[[State, dict, int], None]
    size: int
    span: Any
    # a body that cannot wait: its function (None where the choice's generated resolution
    # writes it in line); one that can: the code of its frame (else -1)
    body_fn: Callable[[State, dict], Any] | None
    body_code: int
    body: A.Block  # (the generated resolution writes a body that cannot wait in line)
    label: Any
    offset: int
    priority: int
    source: tuple[list[tuple[str, Any]], dict[int, list[Any]]]  # (variable, iterable node) per loop; filters by level
    steps: list[tuple[str, int, str, Any]]  # how an id binds each parameter (decode_steps)


class ChooseCode(Code):
    """A decision. Its pending record is ``(player, legal ids, None, code, env)`` (``frames.PENDING``):
    only the ids; the chosen id is decoded back into its parameters when it is applied.

    ``enter(state, env)`` and ``resolve_choice(state, pending, index)`` are fields, set once by
    the linker (``link_choice``): the choice's two generated units (``codegen_choices``: an
    ``n*`` and an ``r*``), or, where they are not generated, ``reference_enter`` and
    ``reference_resolve``, which do the same by the alternatives' closures."""

    alts: tuple[Alt, ...]
    tiers: tuple[tuple[Alt, ...], ...] | None  # the alternatives by priority, highest first (None: one tier)
    by: Callable[[State, dict], Any] | None
    orelse: int | None
    span: Any
    enter: Callable[[State, dict], None]
    resolve_choice: Callable[[State, Pending, int], None]

    def reference_enter(self, s: State, env: dict) -> None:
        player = s.current if self.by is None else self.by(s, env)
        if player is None:
            raise RuleError("`choose ... by:` names no player (none)", self.span)
        ids = self.options(s, env)
        if len(ids) > SMALL:
            self.check_options(s, len(ids))
        if not ids:
            if self.orelse is not None:
                s.stack.append([self.orelse, 0, dict(env)])
            return
        # the env a copy of its own: the block goes on in ``env`` after the decision, and copies
        # of the state share the pending record
        s.pending = Pending(player, sorted(ids), None, self.index, dict(env))

    def options(self, s: State, env: dict) -> set[int]:
        """The ids offered: every alternative's, or those of the highest priority offering any."""
        ids: set[int] = set()
        if self.tiers is None:
            for alt in self.alts:
                alt.collect(s, env, ids)
            return ids
        for tier in self.tiers:
            for alt in tier:
                alt.collect(s, env, ids)
            if ids:
                break
        return ids

    def check_options(self, s: State, n: int) -> None:
        """Refuse more options than the limit, and pay for them (a large choice)."""
        limit = s.game.link.limits.max_options
        if n > limit:
            raise BudgetError(f"this choice has {n:,} options, more than the limit of {limit:,}", self.span)
        spend(s, n, self.span)

    def reference_resolve(self, s: State, pending: Pending, index: int) -> None:
        alt, env = self.option_env(s, pending, index)
        if alt.body_code < 0:
            assert alt.body_fn is not None  # (compiled for this resolution: link_choice)
            alt.body_fn(s, env)
        else:
            s.stack.append([alt.body_code, 0, env])

    def option_env(self, s: State, pending: Pending, index: int) -> tuple[Alt, dict]:
        """The alternative an action id belongs to, and the env with its parameters bound."""
        action = pending.legal[index]
        env = dict(pending.payload)
        for alt in self.alts:
            if alt.offset <= action < alt.offset + alt.size:
                alt.decode(s, env, action - alt.offset)
                return alt, env
        raise RuleError(f"internal: action {action} belongs to no alternative", self.span)


Collector = Callable[[State, dict, set], None]


def make_collector(alt: Alt) -> Collector:
    """A function adding the ids of this alternative's options to a set.

    Specialised at link time on the shape (loops, filters, encodings): choices are the
    hottest path of a playout. ``alt.cond`` holds the conditions that read no parameter:
    they are checked once, before any enumeration.
    """
    loops = alt.loops
    pre = alt.cond
    offset = alt.offset
    if not loops:
        def no_params(s: State, env: dict, ids: set) -> None:
            if pre is None or pre(s, env):
                ids.add(offset)

        return no_params
    encodings = alt.encodings
    if len(loops) == 1:
        var, items, filt = loops[0]
        table, stride = encodings[0]
        if filt is None:
            if table is None and stride == 1:
                def plain(s: State, env: dict, ids: set) -> None:
                    if pre is None or pre(s, env):
                        ids.update(offset + x for x in items(s, env))

                return plain

            def encoded(s: State, env: dict, ids: set) -> None:
                if pre is not None and not pre(s, env):
                    return
                add = ids.add
                for x in items(s, env):
                    add(offset + (x if table is None else table[x]) * stride)

            return encoded

        def filtered(s: State, env: dict, ids: set) -> None:
            if pre is not None and not pre(s, env):
                return
            e2 = dict(env)
            add = ids.add
            for x in list(items(s, env)):
                e2[var] = x
                if filt(s, e2):
                    add(offset + (x if table is None else table[x]) * stride)

        return filtered
    if len(loops) == 2:
        (var0, items0, filt0), (var1, items1, filt1) = loops
        (table0, stride0), (table1, stride1) = encodings

        span = alt.span

        def pairs(s: State, env: dict, ids: set) -> None:
            if pre is not None and not pre(s, env):
                return
            e2 = dict(env)
            add = ids.add
            for x in list(items0(s, env)):
                e2[var0] = x
                if filt0 is not None and not filt0(s, e2):
                    continue
                base = offset + (x if table0 is None else table0[x]) * stride0
                ys = items1(s, e2)
                s.ops -= len(ys)
                if s.ops < 0:
                    overrun(s, span)
                if filt1 is None:
                    if table1 is None:
                        for y in ys:
                            add(base + y * stride1)
                    else:
                        for y in ys:
                            add(base + table1[y] * stride1)
                    continue
                for y in list(ys):
                    e2[var1] = y
                    if filt1(s, e2):
                        add(base + (y if table1 is None else table1[y]) * stride1)

        return pairs

    def nested(s: State, env: dict, ids: set) -> None:
        if pre is None or pre(s, env):
            _collect_nested(alt, s, dict(env), 0, [], ids)

    return nested


def decode_steps(alt: Alt, spec: Any) -> list[tuple[str, int, str, Any]]:
    """How an option id (minus the offset) binds each parameter: (variable, stride, kind, data),
    kind "id" (the digit itself), "literal" (data: the values) or "card" (data: the items, the
    filter and the card kinds)."""
    steps: list[tuple[str, int, str, Any]] = []
    for i, (var, items, filt) in enumerate(alt.loops):
        table, stride = alt.encodings[i]
        t = spec.params[i][1]
        if t == T.CARD:
            steps.append((var, stride, "card", (items, filt, table)))
        elif table is not None:
            steps.append((var, stride, "literal", spec.literals[i]))
        else:
            steps.append((var, stride, "id", None))
    return steps


def make_decoder(alt: Alt) -> Callable[[State, dict, int], None]:
    """Binds the parameters of the option ``rest`` (an id minus the offset) into ``env``.

    Seats, cells, pieces and literal values decode arithmetically; a card decodes to its
    kind, and the card bound is the first of that kind the parameter's collection offers
    (with its filter), exactly the card enumeration met first.
    """
    steps = alt.steps

    def decode(s: State, env: dict, rest: int) -> None:
        for var, stride, kind, data in steps:
            digit, rest = divmod(rest, stride)
            if kind == "id":
                env[var] = digit
            elif kind == "literal":
                env[var] = data[digit]
            else:
                items, filt, kind_of = data
                for card in list(items(s, env)):
                    if kind_of[card] == digit:
                        env[var] = card
                        if filt is None or filt(s, env):
                            break
                else:
                    raise RuleError(f"internal: no card of kind {digit} for '{var}'", alt.span)

    return decode


def _collect_nested(alt: Alt, s: State, env: dict, depth: int, values: list, ids: set) -> None:
    if depth == len(alt.loops):
        aid = alt.offset
        for (table, stride), v in zip(alt.encodings, values):
            aid += (v if table is None else table[v]) * stride
        ids.add(aid)
        return
    var, items, filt = alt.loops[depth]
    xs = list(items(s, env))
    s.ops -= len(xs)
    if s.ops < 0:
        overrun(s, alt.span)
    for x in xs:
        env[var] = x
        if filt is not None and not filt(s, env):
            continue
        values.append(x)
        _collect_nested(alt, s, env, depth + 1, values, ids)
        values.pop()
