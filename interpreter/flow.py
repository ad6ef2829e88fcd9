"""Match, rounds, phases and turns, and every statement that can wait, as frames.

The rules run on an explicit stack of frames: plain lists ``[code index, ...]`` kept in
the state, so a state can be cloned or saved in the middle of any effect. Each code
object has ``step(state, frame)``; one loop (``run``) steps the top frame until a player
must decide, a chance event is pending, or the match is over. Statements that cannot
wait are single closures (see ``effects``); only choices (and, with explicit chance,
random draws) become frames.

Every kind of frame has its layout declared once, by name, in ``frames`` (with the check of a
saved one); the codes here index frames by its constants (``frame[PC]``) and name their
layout (``BlockCode.layout``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T
from rulespec.check import CHANCE as CHANCE_BIT
from rulespec.check import CHOICE as CHOICE_BIT

from .budget import SMALL, log_event, overrun, spend, start_step
from .codegen_blocks import generate_block_step, hand_back
from .codegen_choices import generate_choice, generate_lone_turn
from .effects import (
    PYTHON_ERRORS,
    TOP,
    EndSignal,
    bindings_iterator,
    binds_names,
    compile_block_closure,
    compile_simple,
    deal_targets,
    rule_failure,
    splice_constant_ifs,
)
from .errors import BudgetError, RuleError
from .expressions import compile_expr, compile_list, env_of_args, text_of_type, type_of
from .frames import (
    BLOCK,
    CODE,
    COUNT,
    DEAL,
    DEAL_FACE,
    DEAL_POS,
    DEAL_SRC,
    DEAL_TARGETS,
    DEAL_TOTAL,
    DIRECT_DEPTH,
    DRAW,
    DRAW_DST,
    DRAW_FACE,
    DRAW_LEFT,
    DRAW_MODE,
    DRAW_SRC,
    ENV,
    FOR,
    FOR_ENVS,
    FOR_NEXT,
    HANDED_BACK,
    LOOP_ENV,
    MATCH,
    MAX_FRAMES,
    NEXT_PHASE,
    PC,
    PHASE,
    REPEAT,
    ROUND,
    STAGE,
    STARTED,
    WHILE,
    CallEntry,
    IfEntry,
    Layout,
    enter_block,
    enter_call,
    procedure_entry,
)
from .state import CHANCE, Pending, State, move_card

__all__ = ["run", "resolve", "compile_flow", "fill_block", "waits", "BlockCode", "MAX_FRAMES"]

NEVER = 1 << 62  # a statement index no block reaches


# ====================================================================== the loop


def run(s: State) -> None:
    """A new step (the start of a match): run the rules until a decision, a chance event or the end."""
    start_step(s)
    resolve(s, None, 0)


def resolve(s: State, pending: Pending | None, index: int) -> None:
    """Carry out option ``index`` of a pending decision or chance event (none at the start of
    a match), then step the rules until a decision, a chance event or the end.

    The round's `end_when` is checked after every step here too (blocks also check it
    after each of their statements), so that it holds "after every statement", whatever
    ran: a decision's effects, a draw, a loop. Each frame stepped costs one unit of the
    step's budget, and the stack of frames is bounded. (One function, not two: this runs
    once an action.)
    """
    game = s.game
    check = game.end_check
    codes = game.codes
    if pending is not None:
        s.ops = game.step_ops
        code = codes[pending.code]
        try:
            if pending.player == CHANCE:
                code.resolve_chance(s, pending, index)
            else:
                code.resolve_choice(s, pending, index)
            if check is not None and s.dirty and s.in_play:
                s.dirty = False
                if check(s):
                    unwind(s, "round")
        except EndSignal as signal:
            unwind(s, signal.level)
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, code.span) from None
    stack = s.stack
    ends_at = game.ends_at
    while s.pending is None and stack:
        frame = stack[-1]
        end = ends_at[frame[CODE]]
        if end is not None and frame[PC] >= end:
            # a block past its last statement (as a turn is, after its decision): leaving the
            # stack is all its step would do, so it leaves without a call (at the same cost)
            stack.pop()
            s.ops -= 1
            if s.ops < 0:
                overrun(s, codes[frame[CODE]].span)
            continue
        code = codes[frame[CODE]]
        try:
            code.step(s, frame)
            # blocks (an end) check after each of their statements; other steps (a turn starting,
            # a draw) are checked here
            if check is not None and s.dirty and end is None and s.pending is None and s.in_play:
                s.dirty = False
                if check(s):
                    unwind(s, "round")
        except EndSignal as signal:
            unwind(s, signal.level)
        except PYTHON_ERRORS as exc:
            raise rule_failure(exc, code.span) from None
        s.ops -= 1
        if s.ops < 0:
            overrun(s, code.span)


def unwind(s: State, level: str) -> None:
    stack = s.stack
    codes = s.game.codes
    if level == "game":
        s.ending = True
        level = "round"
    while stack:
        frame = stack[-1]
        kind = codes[frame[CODE]].level
        if kind == "phase" and level in ("turn", "phase"):
            if level == "phase":
                stack.pop()
            return
        if kind == "round" and level in ("round", "turn", "phase"):
            if frame[STAGE] < 2:
                frame[STAGE] = 2  # straight to scoring
                s.in_play = False
            # already scoring (`end game` there): the round still ends normally
            return
        if kind == "match":
            frame[STAGE] = 2
            return
        stack.pop()


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


# ---------------------------------------------------------------------- explicit chance


def _kinds_in(cards: list, kind_of: tuple) -> dict[int, int]:
    counts: dict[int, int] = {}
    for c in cards:
        k = kind_of[c]
        counts[k] = counts.get(k, 0) + 1
    return counts


def fewest_outcomes(L: Any) -> int:
    """How many outcomes make a random event a chance node: 2, or 1 when the game keeps
    single-outcome chance nodes (`game.keep_single_chance`, as OpenSpiel asks even then)."""
    return 1 if L.model.keep_single_chance else 2


def _chance_node(s: State, code_index: int, counts: dict[Any, int], payload: Any) -> None:
    total = sum(counts.values())
    outcomes = sorted(counts)
    s.pending = Pending(CHANCE, outcomes, [counts[o] / total for o in outcomes], code_index, payload)


class DrawCode(Code):
    """draw N / move top|bottom|random ZONE, with each random card a chance event."""

    __slots__ = ("count", "source", "dest", "face", "mode", "fewest")
    layout = DRAW
    count: Callable[[State, dict], Any] | None
    source: Callable[[State, dict], Any]
    dest: Callable[[State, dict], Any]
    face: Callable[[State, dict, int], int]
    mode: int
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        src = self.source(s, env)
        dst = self.dest(s, env)
        face = self.face(s, env, dst)
        count = 1 if self.count is None else self.count(s, env)
        s.stack.append([self.index, count, src, dst, face, self.mode])

    def step(self, s: State, frame: list) -> None:
        kind_of = s.game.cards.kind_of
        while frame[DRAW_LEFT] > 0:
            src = frame[DRAW_SRC]
            cards = s.zones[src]
            if not cards:
                break
            if frame[DRAW_MODE] == 2 or s.shuffled[src]:
                counts = _kinds_in(cards, kind_of)
                if len(counts) >= self.fewest:
                    _chance_node(s, self.index, counts, None)
                    return
                card = cards[-1]
            else:
                card = cards[-1] if frame[DRAW_MODE] == TOP else cards[0]
            move_card(s, card, frame[DRAW_DST], frame[DRAW_FACE])
            frame[DRAW_LEFT] -= 1
        s.stack.pop()

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        frame = s.stack[-1]
        kind = pending.legal[index]
        kind_of = s.game.cards.kind_of
        cards = s.zones[frame[DRAW_SRC]]
        card = next(c for c in reversed(cards) if kind_of[c] == kind)
        move_card(s, card, frame[DRAW_DST], frame[DRAW_FACE])
        frame[DRAW_LEFT] -= 1


class DealCode(Code):
    __slots__ = ("count", "source", "targets", "face", "fewest")
    layout = DEAL
    count: Callable[[State, dict], Any]
    source: Callable[[State, dict], Any]
    targets: Callable[[State], list[int]]
    face: int
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        targets = self.targets(s)
        s.stack.append([self.index, 0, self.count(s, env) * len(targets), self.source(s, env), targets, self.face])

    def step(self, s: State, frame: list) -> None:
        kind_of = s.game.cards.kind_of
        faces = s.game.zone_face
        targets = frame[DEAL_TARGETS]
        while frame[DEAL_POS] < frame[DEAL_TOTAL]:
            src = frame[DEAL_SRC]
            cards = s.zones[src]
            if not cards:
                break
            if s.shuffled[src]:
                counts = _kinds_in(cards, kind_of)
                if len(counts) >= self.fewest:
                    _chance_node(s, self.index, counts, None)
                    return
            dst = targets[frame[DEAL_POS] % len(targets)]
            move_card(s, cards[-1], dst, faces[dst] if frame[DEAL_FACE] < 0 else frame[DEAL_FACE])
            frame[DEAL_POS] += 1
        s.stack.pop()

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        frame = s.stack[-1]
        kind = pending.legal[index]
        kind_of = s.game.cards.kind_of
        faces = s.game.zone_face
        cards = s.zones[frame[DEAL_SRC]]
        card = next(c for c in reversed(cards) if kind_of[c] == kind)
        dst = frame[DEAL_TARGETS][frame[DEAL_POS] % len(frame[DEAL_TARGETS])]
        move_card(s, card, dst, faces[dst] if frame[DEAL_FACE] < 0 else frame[DEAL_FACE])
        frame[DEAL_POS] += 1


class RandomPickCode(Code):
    """`move random LIST to ZONE` with the card a chance event (by kind)."""

    __slots__ = ("pool", "dest", "face", "bottom", "fewest")
    pool: Callable[[State, dict], Any]
    dest: Callable[[State, dict], Any]
    face: Callable[[State, dict, int], int]
    bottom: bool
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        pool = list(self.pool(s, env))
        if not pool:
            return
        dst = self.dest(s, env)
        face = self.face(s, env, dst)
        counts = _kinds_in(pool, s.game.cards.kind_of)
        if len(counts) < self.fewest:
            move_card(s, pool[0], dst, face, self.bottom)
            return
        _chance_node(s, self.index, counts, [pool, dst, face])

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        pool, dst, face = pending.payload
        kind = pending.legal[index]
        kind_of = s.game.cards.kind_of
        card = next(c for c in pool if kind_of[c] == kind)
        move_card(s, card, dst, face, self.bottom)


class LetChanceCode(Code):
    """`let x = chance(p)` / `let x = random(list)` as a chance event."""

    __slots__ = ("name", "outcomes", "shown", "fewest")
    name: str
    outcomes: Callable[[State, dict], tuple[dict, dict]]
    shown: Callable[[Any, Any], str] | None  # an outcome's value as its label shows it (a card by its name)
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        counts, values = self.outcomes(s, env)
        if len(counts) < self.fewest or not counts:
            env[self.name] = values[next(iter(counts))] if counts else None
            return
        _chance_node(s, self.index, counts, {str(k): v for k, v in values.items()})

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        outcome = pending.legal[index]
        s.stack[-1][ENV][self.name] = pending.payload[str(outcome)]


# ====================================================================== flow codes


class MatchCode(Code):
    level = "match"
    layout = MATCH

    def __init__(self, setup: int | None, end_when: list, round_code: int, finish: Callable[[State], None]):
        self.setup = setup
        self.end_when = end_when
        self.round_code = round_code
        self.finish = finish

    def step(self, s: State, frame: list) -> None:
        stage = frame[STAGE]
        if stage == 0:
            frame[STAGE] = 1
            if self.setup is not None:
                s.stack.append([self.setup, 0, {}])
            return
        if stage == 1:
            if s.ending:
                self.end(s)
                return
            s.game.link.start_round(s)
            frame[STAGE] = 2
            s.stack.append([self.round_code, 0, 0])
            return
        if s.ending or any(cond(s, {}) for cond in self.end_when):
            self.end(s)
            return
        frame[STAGE] = 1

    def end(self, s: State) -> None:
        s.stack.clear()
        s.in_play = False
        self.finish(s)


class RoundCode(Code):
    level = "round"
    layout = ROUND

    def __init__(self, setup: int | None, phases: list[int], next_of: list[int], scoring: int | None,
                 end_round: Callable[[State], None]):
        self.setup = setup
        self.phases = phases
        self.next_of = next_of
        self.scoring = scoring
        self.end_round = end_round

    def step(self, s: State, frame: list) -> None:
        stage = frame[STAGE]
        if stage == 0:
            frame[STAGE] = 1
            if self.setup is not None:
                s.stack.append([self.setup, 0, {}])
            return
        if stage == 1:
            pi = frame[NEXT_PHASE]
            if pi < len(self.phases):
                s.in_play = True
                s.dirty = True
                frame[NEXT_PHASE] = self.next_of[pi]
                s.stack.append([self.phases[pi], pi, 0])
                return
            frame[STAGE] = stage = 2
        if stage == 2:
            s.in_play = False
            frame[STAGE] = 3
            if self.scoring is not None:
                s.stack.append([self.scoring, 0, {}])
                return
            # no scoring: the round ends in this step, which pays for the step it saves
            s.ops -= 1
            if s.ops < 0:
                overrun(s, self.span)
        s.stack.pop()
        self.end_round(s)


class PhaseCode(Code):
    """A phase: its turns, seat after seat, until its `end_when` holds.

    ``step(state, frame)`` is a field chosen once, when the phase is linked (``chosen_step``):
    the generated lone turn (a ``t*`` unit: a turn that is one choice, started with it), else
    ``plain_step``'s closure, else ``general_step``."""

    level = "phase"
    layout = PHASE
    step: Callable[[State, list], None]

    def __init__(self, first: Any, order: str, end_when: list, turn_code: BlockCode,
                 start_turn: Callable[[State], None] | None, skip_when: Callable[[State, dict], Any] | None = None,
                 span: Any = None, num_players: int = 0, codegen: Any = None):
        self.span = span
        self.turn_code = turn_code
        self.first = first
        self.order = order
        self.step_by = {"left": 1, "right": -1}.get(order, 0)  # the next seat: this one plus step_by
        self.end_when = end_when
        self.start_turn = start_turn
        self.skip_when = skip_when
        # a turn that is one choice and nothing else: the phase enters the choice itself, and
        # the turn has no frame
        self.lone_choice = lone_choice_of(turn_code)
        self._enter_lone = None if self.lone_choice is None else lone_choice_entry(turn_code)
        self.step = self.chosen_step(num_players, codegen)

    def chosen_step(self, num_players: int, codegen: Any) -> Callable[[State, list], None]:
        """The phase's step: for a phase ``plain_step`` serves whose turn is one choice, the step
        and the choice's entry in one generated call (``codegen_choices.generate_lone_turn``);
        else ``plain_step``'s closure; else ``general_step``."""
        plain = self.plain_step(num_players)
        if plain is None:
            return self.general_step
        if self.lone_choice is not None and codegen is not None:
            lone = generate_lone_turn(codegen, self.lone_choice, _push_frame, self.step_by, num_players,
                                      self.general_step, self.turn_code.spans[0])
            if lone is not None:
                return lone  # type: ignore[no-any-return]
        return plain

    def enter_lone_choice(self, s: State) -> None:
        """Start a turn that is one choice (``lone_choice``), errors reported at that statement."""
        assert self._enter_lone is not None
        self._enter_lone(s, {})

    def general_step(self, s: State, frame: list) -> None:
        """Start the next turn: its seat found (the first, a `next`, seats skipped), or the phase left."""
        n = s.game.num_players
        if frame[STARTED] == 0:
            frame[STARTED] = 1
            p = (s.dealer + 1) % n if self.first is None else self.first(s, {})
            if p is None:
                raise RuleError("the phase's `first` player is none")
        elif s.next_seat >= 0:  # a `next` statement chose who moves next
            p = s.next_seat
            s.next_seat = -1
        else:
            p = (s.current + self.step_by) % n
        if self.end_when and any(cond(s, {}) for cond in self.end_when):
            s.stack.pop()
            return
        if self.skip_when is not None or s.skips[p] > 0:
            p = self.seat_to_move(s, p)
            if p < 0:  # every seat is out: nobody can take a turn
                s.stack.pop()
                return
        s.current = p
        if self.start_turn is None:
            s.turn += 1
        else:
            self.start_turn(s)
        if self.lone_choice is not None:
            self.enter_lone_choice(s)
            return
        code = self.turn_code
        frame = [code.index, 0, {}]
        stack = s.stack  # enter_block, in line: this runs once a turn
        stack.append(frame)
        if len(stack) <= DIRECT_DEPTH:
            code.step(s, frame)

    def plain_step(self, num_players: int) -> Callable[[State, list], None] | None:
        """``step`` for a phase with no `end_when`, no `skip_when` and turns that start by only
        being counted, as one closure of its constants: the next turn, in order, when no seat
        has turns to skip and no `next` chose the seat (every other case: ``general_step``). None
        for any other phase. (This runs once a turn.)"""
        if self.end_when or self.skip_when is not None or self.start_turn is not None or not self.step_by:
            return None
        general = self.general_step
        step_by = self.step_by
        turn = self.turn_code
        index = turn.index
        turn_step = turn.step
        # a turn that opens with its decision: its step would only enter it (statement 0)
        opens = turn.entered[0] if turn.entered and not turn.stmts[0][1] else None
        enter = opens.enter if isinstance(opens, ChooseCode) else None
        span = turn.spans[0] if turn.spans else None
        lone = self.enter_lone_choice if self.lone_choice is not None else None  # (no frame for the turn)

        def step(s: State, frame: list) -> None:
            if frame[STARTED] == 0 or s.next_seat >= 0:
                general(s, frame)
                return
            p = (s.current + step_by) % num_players
            if s.skips[p] > 0:
                general(s, frame)
                return
            s.current = p
            s.turn += 1
            if lone is not None:
                lone(s)
                return
            env: dict = {}
            new = [index, 0, env]
            stack = s.stack
            stack.append(new)
            if len(stack) <= DIRECT_DEPTH:
                if enter is None:
                    turn_step(s, new)
                    return
                new[1] = 1
                try:
                    enter(s, env)
                except PYTHON_ERRORS as exc:
                    raise rule_failure(exc, span) from None

        return step

    def seat_to_move(self, s: State, p: int) -> int:
        """The seat that takes the turn from ``p`` on: seats `skip_when` passes over are passed,
        and a seat with turns to skip skips one (an event) and passes; -1 when `skip_when`
        passes over every seat."""
        n = s.game.num_players
        skips = s.skips
        guard = 0
        while guard < 10_000:
            if self.skip_when is not None:
                p = self.seat_not_skipped(s, p)
                if p < 0:
                    return -1
            if skips[p] <= 0:
                break
            skips[p] -= 1
            log_event(s, {"type": "turn_skipped", "player": p}, self.span, 3)
            guard += 1
            p = (p + self.step_by) % n
        return p

    def seat_not_skipped(self, s: State, p: int) -> int:
        """The first seat from ``p`` on, in the phase's order, that `skip_when` does not pass
        over; -1 when it passes over every seat."""
        n = s.game.num_players
        skip = self.skip_when
        assert skip is not None
        for _ in range(n if self.step_by else 1):
            if not skip(s, {"p": p}):
                return p
            p = (p + self.step_by) % n
        return -1


# ====================================================================== linking


def compile_flow(L: Any) -> int:
    """Build every code object of the game; returns the index of the match code."""
    m = L.model
    round_def = m.round
    phase_codes = []
    for phase in round_def.phases:
        turn = compile_block_code(phase.turn, L)
        first = compile_expr(phase.first, L) if phase.first is not None else None
        ends = [compile_expr(c, L) for c in phase.end_when]
        skip_when = compile_expr(phase.skip_when, L) if phase.skip_when is not None else None
        code = PhaseCode(first, phase.order, ends, L.codes[turn], L.turn_start(), skip_when, span=phase.turn.span,
                         num_players=L.num_players, codegen=L.codegen)
        phase_codes.append(L.add_code(code))
    names = {p.name: i for i, p in enumerate(round_def.phases)}
    next_of = [names[p.next] if p.next else i + 1 for i, p in enumerate(round_def.phases)]
    setup = compile_block_code(round_def.setup, L) if round_def.setup.stmts else None
    scoring = compile_block_code(round_def.scoring, L, checked=False) if round_def.scoring.stmts else None
    round_code = RoundCode(setup, phase_codes, next_of, scoring, L.end_round)
    round_code.span = round_def.span
    L.add_code(round_code)
    match_setup = compile_block_code(m.match.setup, L, checked=False) if m.match.setup.stmts else None
    match_ends = [compile_expr(c, L) for c in m.match.end_when]
    match_code = MatchCode(match_setup, match_ends, round_code.index, L.finish)
    match_code.span = m.match.span
    return L.add_code(match_code)


def waits(node: Any, L: Any) -> bool:
    bits = L.info.suspends.get(id(node), 0)
    mask = CHOICE_BIT | (CHANCE_BIT if L.explicit_chance else 0)
    return bool(bits & mask)


def compile_block_code(block: A.Block, L: Any, checked: bool = True, hands_back: bool = False) -> int:
    code = BlockCode(block.span)
    code.hands_back = hands_back
    index = L.add_code(code)
    fill_block(code, block, L, checked)
    return index


def fill_block(code: BlockCode, block: A.Block, L: Any, checked: bool = True) -> None:
    code.check = L.end_check if checked else None
    stmts = []
    entered: list[Code | None] = []
    spliced = splice_constant_ifs(block.stmts, L)
    code.spans = tuple(stmt.span for stmt in spliced)
    for stmt in spliced:
        if waits(stmt, L):
            entry, owner = compile_waiting(stmt, L)
            stmts.append((entry, False))
            entered.append(owner)
        else:
            stmts.append((compile_simple(stmt, L), True))
            entered.append(None)
    code.stmts = tuple(stmts)
    code.entered = tuple(entered)
    code.ends_at = NEVER if code.hands_back else len(stmts)
    L.ends_at[code.index] = code.ends_at
    step = None
    if L.codegen.generating:
        waiting = [fn if not simple else None for fn, simple in stmts]
        step = generate_block_step(L.codegen, block, spliced, waiting, checked, code.hands_back)
    # the block's step, set here once: its generated unit, or the closures in turn
    code.step = code.reference_step if step is None else step


def compile_waiting(node: Any, L: Any) -> tuple[Callable[[State, dict], None], Code | None]:
    """The entry of a statement that can wait, and the code whose frame or decision it starts
    (None: an `if` or a procedure call, which enter a block)."""
    kind = type(node).__name__
    if kind == "Choose":
        choice = compile_choose(node, L)
        L.add_code(choice)
        link_choice(choice, L)
        return choice.enter, choice
    if kind == "If":
        cond = compile_expr(node.cond, L)
        then = compile_block_code(node.then, L)
        orelse = compile_block_code(node.orelse, L)
        then_code, else_code = L.codes[then], L.codes[orelse]
        # a branch that is one choice: entered with no frame of its own (as a turn, PhaseCode)
        lone = (lone_choice_of(then_code), lone_choice_of(else_code))
        enters = tuple(None if choice is None else lone_choice_entry(code)
                       for code, choice in zip((then_code, else_code), lone))
        return IfEntry(cond, (then_code, else_code), lone, enters), None
    if kind == "For":
        code = ForCode()
        code.envs = bindings_iterator(node.bindings, L)
        code.body = compile_block_code(node.body, L)
        code.body_code = L.codes[code.body]
        return L.add_code(code, entered=True), code
    if kind == "Repeat":
        repeat = RepeatCode()
        repeat.until = compile_expr(node.until, L)
        repeat.limit = node.max or L.loop_limit
        repeat.span = node.span
        repeat.body = compile_block_code(node.body, L, hands_back=binds_names(node.body))
        repeat.body_code = L.codes[repeat.body]
        return L.add_code(repeat, entered=True), repeat
    if kind == "While":
        loop = WhileCode()
        loop.cond = compile_expr(node.cond, L)
        loop.limit = node.max or L.loop_limit
        loop.span = node.span
        loop.body = compile_block_code(node.body, L)
        loop.body_code = L.codes[loop.body]
        return L.add_code(loop, entered=True), loop
    if kind == "CallProc":
        return compile_waiting_call(node, L), None
    if kind in ("Draw", "Move", "Deal", "Let"):
        entry = compile_chance(node, L)
        return entry, entry.__self__  # type: ignore[attr-defined]
    raise RuleError(f"internal: {kind} cannot wait", node.span)


def compile_waiting_call(node: A.CallProc, L: Any) -> Callable[[State, dict], None]:
    args = [compile_expr(a, L) for a in node.args]
    target = node.target
    if L.info.ref(target).kind == "proc":
        name = target.id
        params = L.procs[name].params
        entry = procedure_entry(lambda: L.codes[L.proc_code(name)], node.span)
        return CallEntry(entry, env_of_args(params, args))
    which = compile_expr(target, L)
    found: dict[str, tuple[BlockCode, tuple[str, ...]]] = {}  # a procedure's code and parameters, by name

    def call_dynamic(s: State, env: dict) -> None:
        name = which(s, env)
        target = found.get(name)
        if target is None:
            proc = L.procs.get(name)
            if proc is None:
                raise RuleError(f"'{name}' is not a procedure", node.span)
            target = found[name] = (L.codes[L.proc_code(name)], tuple(proc.params))
        code, params = target
        bound = {}
        for p, a in zip(params, args):
            bound[p] = a(s, env)
        enter_call(s, code, bound, node.span)

    return call_dynamic


def compile_chance(node: Any, L: Any) -> Callable[[State, dict], None]:
    from .effects import _face_of

    kind = type(node).__name__
    if kind == "Let":
        let = LetChanceCode()
        let.fewest = fewest_outcomes(L)
        let.name = node.name
        let.outcomes = L.chance_outcomes_fn(node.value)
        # chance(p) reads yes / no (the game's own rendering of a truth value)
        let.shown = None if node.value.func == "chance" else text_of_type(T.elem(type_of(node.value.args[0], L)), L)
        return L.add_code(let, entered=True)
    if kind == "Deal":
        deal = DealCode()
        deal.fewest = fewest_outcomes(L)
        deal.count = compile_expr(node.count, L)
        deal.source = compile_expr(node.source, L)
        deal.targets = deal_targets(node, L)
        deal.face = -1 if node.face is None else (1 if node.face == "up" else 0)
        return L.add_code(deal, entered=True)
    dest = compile_expr(node.dest, L)
    if kind == "Move" and node.selector == "random" and type_of(node.what, L) != T.ZONE:
        pick = RandomPickCode()
        pick.fewest = fewest_outcomes(L)
        pick.pool = compile_list(node.what, L)
        pick.dest = dest
        pick.face = _face_of(node, L, dest)
        pick.bottom = node.bottom
        return L.add_code(pick, entered=True)
    draw = DrawCode()
    draw.fewest = fewest_outcomes(L)
    draw.dest = dest
    draw.face = _face_of(node, L, dest)
    if kind == "Draw":
        draw.count = compile_expr(node.count, L) if node.count is not None else None
        draw.source = compile_expr(node.source, L)
        draw.mode = TOP
    else:
        draw.count = None
        draw.source = compile_expr(node.what, L)
        draw.mode = {"top": 0, "bottom": 1, "random": 2}[node.selector]
    return L.add_code(draw, entered=True)


def compile_choose(node: A.Choose, L: Any) -> ChooseCode:
    code = ChooseCode()
    code.span = node.span
    code.by = compile_expr(node.by, L) if node.by is not None else None
    code.orelse = compile_block_code(node.orelse, L) if node.orelse is not None else None
    alts = []
    for alt_node in L.info.ref(node).alternatives:
        alt = link_alternative(alt_node, L)
        if alt is not None:
            alts.append(alt)
    code.alts = tuple(alts)
    priorities = sorted({alt.priority for alt in alts}, reverse=True)
    code.tiers = None if len(priorities) <= 1 else tuple(tuple(a for a in alts if a.priority == p)
                                                            for p in priorities)
    return code


def link_choice(code: ChooseCode, L: Any) -> None:
    """Set the choice's ``enter`` and ``resolve_choice``, once its index is known: its generated
    units, or the reference methods (with the closures of the bodies that do not wait)."""
    generated = generate_choice(L.codegen, code, _push_frame)
    if generated is not None and all(generated):
        code.enter, code.resolve_choice = generated
        return
    code.enter, code.resolve_choice = code.reference_enter, code.reference_resolve
    for alt in code.alts:  # the reference resolution runs the bodies that do not wait
        if alt.body_code < 0 and alt.body_fn is None:
            alt.body_fn = compile_block_closure(alt.body, L)


def _push_frame(s: State, frame: list) -> None:
    s.stack.append(frame)


def _conjuncts(node: Any) -> list[Any]:
    if isinstance(node, A.BinOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _filters_by_level(node: A.Alternative, names: tuple[str, ...], L: Any) -> dict[int, list[Any]] | None:
    """The alternative's conditions split into conjuncts, each checked as soon as the
    parameters it reads are bound: level -1 before any loop, level i inside loop i.

    Returns {level: [conjunct nodes]}, or None when a condition is constant false.
    """
    from .expressions import const_value, is_const

    position = {name: i for i, name in enumerate(names)}
    parts: list[Any] = []
    if node.bindings is not None:
        for binding in node.bindings.items:
            if binding.cond is not None:
                parts.extend(_conjuncts(binding.cond))
    if node.cond is not None:
        parts.extend(_conjuncts(node.cond))
    grouped: dict[int, list[Any]] = {level: [] for level in range(-1, len(names))}
    for part in parts:
        used = [position[n.id] for n in A.walk(part) if isinstance(n, A.Name) and n.id in position]
        fn = compile_expr(part, L)
        if is_const(fn):
            if not const_value(fn):
                return None
            continue
        grouped[max(used) if used else -1].append(part)
    return grouped


def _all_of(fns: list[Any]) -> Any:
    if not fns:
        return None
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        a, b = fns
        return lambda s, e: bool(a(s, e)) and bool(b(s, e))
    return lambda s, e: all(f(s, e) for f in fns)


def link_alternative(node: A.Alternative, L: Any) -> Alt | None:
    """Link one alternative; None when its condition is false for this game (e.g. an option)."""

    alt = Alt()
    alt.name = node.action
    alt.priority = node.priority
    spec = L.actions.spec(node.action)
    alt.offset = spec.offset
    bindings = node.bindings
    alt.names = tuple(b.var for b in bindings.items) if bindings else ()
    grouped = _filters_by_level(node, alt.names, L)
    if grouped is None:
        return None  # a condition that is false for this game (an option, the player count)
    levels = {level: _all_of([compile_expr(part, L) for part in parts]) for level, parts in grouped.items()}
    alt.cond = levels[-1]  # checked once, before enumerating the parameters
    alt.loops = tuple((b.var, compile_list(b.iter, L), levels[i]) for i, b in enumerate(bindings.items)) \
        if bindings else ()
    alt.encodings = tuple(spec.encoding(i) for i in range(len(alt.names)))
    alt.size = max(spec.size, 1)
    alt.span = node.span
    loops = [(b.var, b.iter) for b in bindings.items] if bindings else []
    alt.source = (loops, grouped)
    # the options of an alternative are collected in line by its choice's generated entry
    # (link_choice); the closure is the reference its entry falls back to
    alt.collect = make_collector(alt)
    alt.steps = decode_steps(alt, spec)
    alt.decode = make_decoder(alt)
    alt.label = node.label
    alt.body = node.body
    if waits(node.body, L):
        alt.body_fn = None
        alt.body_code = compile_block_code(node.body, L)
    else:
        # with code generation on, the choice's generated resolution writes the body in line
        # (``link_choice`` compiles it if that resolution cannot be generated)
        alt.body_fn = None if L.codegen.generating else compile_block_closure(node.body, L)
        alt.body_code = -1
    return alt
