"""Generated Python for blocks of statements (the compiler backend, after ``codegen``).

Two shapes, both with the discipline of ``codegen`` (verified by ``pycode``):

- a block that cannot wait becomes one function ``f(state, env)`` running its statements
  in line (the closure engine's ``compile_block_closure``);
- a block that can wait becomes the ``step(state, frame)`` of its ``BlockCode``: resumable
  code whose program counter is ``frame[PC]`` (``frames.BLOCK``), a plain integer in the state, so a state can
  still be cloned or saved between any two statements.

The common statements (assignments, `let`, `if`, moving a card or a piece, placing and
removing pieces, calling a procedure, an event, `end`, `pass`) are written in line; any other
statement calls its closure (``effects``), which is the reference. Errors keep their
positions: a Python error is reported at the statement that raised it, exactly as the
closure engine does (the innermost block with a handler of its own), and an expression
whose closure turns Python errors into its own messages (arithmetic, a family's zone, a
define) is evaluated through its generated unit, which falls back to that closure.
"""

from __future__ import annotations

from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import SMALL, log_event, spend
from .codegen import Codegen, _fail, _size, _Writer
from .codegen_effects import (
    write_assign,
    write_deal,
    write_flip,
    write_if_binding,
    write_next,
    write_random_let,
    write_repeat,
    write_shuffle,
)
from .effects import (
    BOTTOM,
    PYTHON_ERRORS,
    RANDOM,
    TOP,
    EndSignal,
    bindings_iterator,
    binds_names,
    check_stored,
    compile_block_closure,
    compile_simple,
    event_size,
    late_procedure,
    may_nest,
    piece_pools,
    place_failure,
    rule_failure,
    splice_constant_ifs,
)
from .errors import RuleError
from .expressions import compile_expr, compile_list, list_difference, type_of
from .frames import BLOCK, ENV, PC, CallEntry, IfEntry, enter_block
from .state import deal_cards, draw_top, move_card, move_cards, move_piece, move_zone, take_card

__all__ = ["HELPERS", "block_lines", "block_writer", "generate_block", "generate_block_step", "hand_back",
           "has_own_errors", "CLOSURE_STATEMENTS"]

# statement classes with no form in line: a generated block calls their closure (``effects``)
CLOSURE_STATEMENTS = {
    "Choose": "never runs in line: a choice is a frame code (codes.ChooseCode)",
}

_ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%"})
_ENDS = {"top": TOP, "bottom": BOTTOM, "random": RANDOM}  # where `move <selector> <zone>` takes its card
_INLINE_PROC_NODES = 60  # a procedure of fewer nodes may be written in line where it is called
_FIELDS = {"score": "s.score", "total": "s.total"}


def _done(s: Any) -> None:
    """The block has run to its end: its frame leaves the stack."""
    s.stack.pop()


def hand_back(s: Any) -> None:
    """The body of a `repeat` has run to its end: its env goes to the repeat's frame."""
    frame = s.stack.pop()
    s.stack[-1].append(frame[ENV])  # (the repeat's frame: frames.HANDED_BACK)


def _move_piece_checked(s: Any, x: Any, c: Any, span: Any) -> None:
    if x is None or c is None:
        raise RuleError("cannot move: the piece or the cell is missing (none)", span)
    move_piece(s, x, c, span)


HELPERS = {"_rf": rule_failure, "_perr": PYTHON_ERRORS, "_fail": _fail, "_sig": EndSignal,
           "_mvc": move_card, "_done": _done, "_back": hand_back, "_mvp": _move_piece_checked}


def generate_block(gen: Codegen, block: A.Block, own_scope: bool = True) -> Any:
    """A block that cannot wait, as one generated function ``f(state, env)``; None when the
    closure engine's block is as good (an empty block, or one statement it calls anyway)."""
    writer = _Statements(gen)
    body = block_lines(writer, block, 1, own_scope)
    if body is None:
        return None
    return gen.load(f"b{len(gen.units)}", ["def _b(s, e):", *body], {**HELPERS, **writer.w.names}, "_b")


def block_lines(writer: _Statements, block: A.Block, indent: int, own_scope: bool = True,
                private_env: bool = False) -> list[str] | None:
    """The lines of a block that cannot wait, at ``indent``, written by ``writer`` (whose
    names they use): those of ``generate_block``'s function, or, with ``private_env``, of a
    unit that runs the block in line in an env ``e`` of its own (no copy made for the names
    the block binds). None as ``generate_block``."""
    stmts = splice_constant_ifs(block.stmts, writer.L)
    if not stmts:
        return None
    scoped = own_scope and any(isinstance(stmt, A.Let) for stmt in stmts)
    handler = len(stmts) > 1 or scoped or writer.check is not None
    inline = writer.inline
    body = writer.block(stmts, indent + 1, own_handler=handler)
    if writer.inline == inline:
        return None  # nothing in line: the closures are as fast
    pad = "    " * indent
    lines = [pad + "e = _cp(e)"] if scoped and not private_env else []
    writer.w.names["_sp"] = writer.spans
    if handler:
        lines += [pad + "_n = 0", pad + "try:", *body, pad + "except _perr as _x:",
                  pad + "    raise _rf(_x, _sp[_n]) from None"]
    elif writer.spans:
        # one statement, whose errors the enclosing block reports (as the closure engine does),
        # except those of its inner blocks with statements of their own (`_n` set)
        lines += [pad + "_n = -1", pad + "try:", *body, pad + "except _perr as _x:", pad + "    if _n < 0:",
                  pad + "        raise", pad + "    raise _rf(_x, _sp[_n]) from None"]
    else:
        lines += [line[4:] for line in body]
    return lines


def block_writer(gen: Codegen) -> _Statements:
    """A writer of statements (``block_lines``) for a unit generated elsewhere."""
    return _Statements(gen)


def generate_block_step(gen: Codegen, block: A.Block, stmts: list[Any], waiting: list[Any], checked: bool,
                        hands_back: bool = False) -> Any:
    """``step(state, frame)`` of a block that can wait: statement ``i`` runs when ``frame[PC] <= i``;
    a waiting statement (``waiting[i]``: its entry function) saves ``i + 1`` first and returns.
    None for an empty block."""
    if not stmts:
        return None
    writer = _Statements(gen, checked)
    put = writer.put
    for i, stmt in enumerate(stmts):
        put(2, f"if _pc <= {i!r}:")
        put(3, f"_n = {len(writer.spans)!r}")
        writer.spans.append(stmt.span)
        if waiting[i] is not None:
            put(3, f"frame[{PC!r}] = {i + 1!r}")
            writer.enter(stmt, waiting[i], 3)
            put(3, "return")
            continue
        writer.stmt(stmt, 3, own_handler=False)
        writer.check_end(3, resume=i + 1)
    lines = ["def _s(s, frame):", f"    e = frame[{ENV!r}]", f"    _pc = frame[{PC!r}]", "    _n = _pc", "    try:",
             *writer.lines_taken(), "    except _perr as _x:", "        raise _rf(_x, _sp[_n]) from None",
             "    _back(s)" if hands_back else "    _done(s)"]
    writer.w.names["_sp"] = writer.spans
    return gen.load(f"s{len(gen.units)}", lines, {**HELPERS, **writer.w.names}, "_s")


class _Statements:
    """Lines of Python for statements, with the expression writer of the same unit."""

    def __init__(self, gen: Codegen, checked: bool = True):
        self.gen = gen
        self.L = gen.L
        self.w = _Writer(gen, env=True)
        self.check = self.L.end_check if checked else None
        self.spans: list[Any] = []
        self.inline = 0  # statements written in line (not a closure call)
        self._inlining = 0  # the depth of procedure bodies written in line here
        self._lines: list[str] = []

    def lines_taken(self) -> list[str]:
        lines, self._lines = self._lines, []
        return lines

    def put(self, indent: int, text: str) -> None:
        self._lines.append("    " * indent + text)

    def block(self, stmts: list[Any], indent: int, own_handler: bool) -> list[str]:
        self.statements(stmts, indent, own_handler)
        return self.lines_taken()

    def statements(self, stmts: list[Any], indent: int, own_handler: bool) -> None:
        """Statements in line, each followed by the end check; with ``own_handler``, each
        records its position first (a Python error is reported there)."""
        for stmt in stmts:
            if own_handler:
                self.put(indent, f"_n = {len(self.spans)!r}")
                self.spans.append(stmt.span)
            self.stmt(stmt, indent, own_handler)
            self.check_end(indent)

    def check_end(self, indent: int, resume: int | None = None) -> None:
        """The round's end conditions, after a statement (when something they read changed)."""
        if self.check is None:
            return
        # each condition's code in line, or its unit's call when its closure words errors of its
        # own (end conditions name no local, so the block's env serves: not one with the
        # locals bound in line added, a dict built per check inside a loop)
        self.put(indent, "if s.dirty and s.in_play:")
        self.put(indent + 1, f"s.dirty = {self.L.end_watch.everything!r}")
        bound, self.w.scope = self.w.scope, {}
        tests = [self.truth(cond) for cond in self.L.model.round.end_when]
        self.w.scope = bound
        self.put(indent + 1, f"if {' or '.join(tests)}:")
        if resume is not None:
            self.put(indent + 2, f"frame[{PC!r}] = {resume!r}")
        self.put(indent + 2, f"raise _sig({self.w.name_of('round')})")

    def truth(self, node: Any) -> str:
        """A condition tested for its truth only: `and` and `or` in Python's, so that a side
        that is simple stays in line when the other calls its unit."""
        if isinstance(node, A.BinOp) and node.op in ("and", "or") and has_own_errors(node, self.L) and (
                not has_own_errors(node.left, self.L) or not has_own_errors(node.right, self.L)):
            return f"({self.truth(node.left)} {node.op} {self.truth(node.right)})"
        return f"({self.value(node)})"

    def enter(self, stmt: Any, entry: Any, indent: int) -> None:
        """A statement that can wait, from a block's step: an `if` tests its condition in line
        and enters its branch (an empty one: nothing; one that is one choice: the choice, with
        no frame for the branch), a call of a procedure builds the env of
        its parameters in line; any other calls its entry (``flow.compile_waiting``)."""
        w = self.w
        if isinstance(stmt, A.If) and isinstance(entry, IfEntry):
            self.put(indent, f"if {self.truth(stmt.cond)}:")
            for k, (code, choice) in enumerate(zip(entry.branches, entry.lone)):
                if k:
                    self.put(indent, "else:")
                if choice is not None:  # a branch that is one choice: its choice, with no frame for the branch
                    self.put(indent + 1, "try:")
                    self.put(indent + 2, f"{w.name_of(choice.enter)}(s, _cp(e))")
                    self.put(indent + 1, "except _perr as _x:")
                    self.put(indent + 2, f"raise _rf(_x, {w.name_of(code.spans[0])}) from None")
                elif code.stmts or code.hands_back:
                    frame = BLOCK.display(code=repr(code.index), pc="0", env="_cp(e)")
                    self.put(indent + 1, f"{w.name_of(enter_block)}(s, {w.name_of(code)}, {frame})")
                else:
                    self.put(indent + 1, "pass")
            return
        if isinstance(stmt, A.CallProc) and isinstance(entry, CallEntry):
            params = self.L.procs[stmt.target.id].params
            env = ", ".join(f"{w.name_of(p)}: {self.value(a)}" for p, a in zip(params, stmt.args))
            self.put(indent, f"{w.name_of(entry.procedure)}(s, {{{env}}})")
            return
        self.put(indent, f"{w.name_of(entry)}(s, e)")

    # ------------------------------------------------------------------ values
    def value(self, node: Any) -> str:
        """An expression's value: in line, or through its unit when its closure has error
        messages of its own (so a failure reads as in the closure engine)."""
        if has_own_errors(node, self.L):
            return self.w.call(compile_expr(node, self.L))
        return self.w.expr(node)

    def closure(self, stmt: Any, indent: int) -> None:
        """Call the statement's closure (with the loop variables bound in line added to its env)."""
        self.put(indent, self.w.call(compile_simple(stmt, self.L)))

    # ------------------------------------------------------------------ statements
    def stmt(self, stmt: Any, indent: int, own_handler: bool) -> None:
        method = getattr(self, "s_" + type(stmt).__name__, None)
        before = len(self._lines)
        if method is not None and method(stmt, indent) is not False:
            self.inline += 1
            return
        del self._lines[before:]
        self.closure(stmt, indent)

    def s_Pass(self, stmt: A.Pass, indent: int) -> None:
        self.put(indent, "pass")

    def s_End(self, stmt: A.End, indent: int) -> None:
        self.put(indent, f"raise _sig({self.w.name_of(stmt.level)})")

    def s_Skip(self, stmt: A.Skip, indent: int) -> None:
        p = self.w.temp()
        self.put(indent, f"{p} = {self.value(stmt.player)}")
        self.put(indent, f"if {p} is not None:")
        self.put(indent + 1, f"s.skips[{p}] += 1")

    def s_Deal(self, stmt: A.Deal, indent: int) -> None:
        write_deal(self, stmt, indent)

    def s_Shuffle(self, stmt: A.Shuffle, indent: int) -> None:
        write_shuffle(self, stmt, indent)

    def s_Flip(self, stmt: A.Flip, indent: int) -> None:
        write_flip(self, stmt, indent)

    def s_Next(self, stmt: A.Next, indent: int) -> None:
        write_next(self, stmt, indent)

    def s_Repeat(self, stmt: A.Repeat, indent: int) -> None:
        write_repeat(self, stmt, indent)

    def s_Let(self, stmt: A.Let, indent: int) -> bool:
        if id(stmt) in self.L.info.random_lets:
            write_random_let(self, stmt, indent)
            return True
        key = self.w.name_of(stmt.name)
        if type_of(stmt.value, self.L) == T.ZONE:
            self.put(indent, f"e[{key}] = list(s.zones[{self.value(stmt.value)}])")
        else:
            self.put(indent, f"e[{key}] = {self.value(stmt.value)}")
        return True

    def s_If(self, stmt: A.If, indent: int) -> bool:
        compile_expr(stmt.cond, self.L)  # (its link errors, where the link raises them)
        branches = [splice_constant_ifs(b.stmts, self.L) for b in (stmt.then, stmt.orelse)]
        if self.L.codegen.folds.is_constant(stmt.cond) or any(isinstance(x, A.Let) for b in branches for x in b):
            write_if_binding(self, stmt, indent)  # a branch with a scope of its own runs as its block
            return True
        self.put(indent, f"if {self.truth(stmt.cond)}:")
        self.branch(branches[0], indent + 1)
        if branches[1]:
            self.put(indent, "else:")
            self.branch(branches[1], indent + 1)
        return True

    def branch(self, stmts: list[Any], indent: int) -> None:
        if not stmts:
            self.put(indent, "pass")
            return
        # as in the closure engine: a branch of one statement and no end check reports its
        # errors at the `if`; otherwise at its own statement
        self.statements(stmts, indent, len(stmts) > 1 or self.check is not None)

    def s_For(self, stmt: A.For, indent: int) -> bool:
        """Every assignment of the bindings first (each level paying for its items, the last
        four units an item, as ``effects.bindings_iterator``), then the body once for each,
        the variables as Python locals. A body binding names of its own (a `let`) runs as
        its closure, with a new env per assignment.

        The assignments are found by expressions alone (nothing changes but the budget), so
        they are written in line whatever their errors would say: when Python raises there,
        the closure engine's iterator runs instead and raises the error as it words it."""
        w = self.w
        scope = dict(w.scope)
        env = w.call(bindings_iterator(stmt.bindings, self.L))  # the reference, with this unit's locals
        span = w.name_of(stmt.bindings.span)
        items = stmt.bindings.items
        last = len(items) - 1
        clauses, names, keys = [], [], []
        for depth, binding in enumerate(items):
            source = w.listing(binding.iter)
            if ":=" in source:  # Python allows no assignment expression in a comprehension's iterable
                source = w.call(compile_list(binding.iter, self.L))
            x = w.bind(binding.var)
            names.append(x)
            keys.append(w.name_of(binding.var))
            charge = "_ck" if depth == last else "_ch"
            charged = f"{charge}(s, {source}, {span})"
            clause = f"for {x} in {charged}"
            if binding.cond is not None:
                clause += f" if {w.expr(binding.cond)}"
            clauses.append(clause)
        element = names[0] if len(names) == 1 else f"({', '.join(names)})"
        found, each, ops, at = w.temp(), w.temp(), w.temp(), w.temp()
        fallback = keys[0] if len(keys) == 1 else None
        by_env = f"{each}[{fallback}]" if fallback else f"({', '.join(f'{each}[{k}]' for k in keys)})"
        self.put(indent, f"{ops} = s.ops")
        self.put(indent, "try:")
        if len(items) == 1 and items[0].cond is None:  # a copy: no comprehension (each makes a function)
            self.put(indent + 1, f"{found} = list({charged})")
        else:
            self.put(indent + 1, f"{found} = [{element} {' '.join(clauses)}]")
        self.put(indent, "except _errs:")
        self.put(indent + 1, f"s.ops = {ops}")  # the reference pays again, from where the step stood
        self.put(indent + 1, f"{found} = [{by_env} for {each} in {env}]")
        spans = len(self.spans)
        loop = len(self._lines)
        self.put(indent, f"for {', '.join(names)} in {found}:")
        body = splice_constant_ifs(stmt.body.stmts, self.L)
        if binds_names(stmt.body):
            self.put(indent + 1, w.call(compile_block_closure(stmt.body, self.L)))
        else:
            self.branch(body, indent + 1)
        if len(self.spans) > spans:
            # the body records the positions of its statements: each pass starts from this
            # statement's, so an error before the body's first record is reported here again
            self._lines.insert(loop, "    " * indent + f"{at} = _n")
            self._lines.insert(loop + 2, "    " * (indent + 1) + f"_n = {at}")
        w.scope = scope
        return True

    def s_While(self, stmt: A.While, indent: int) -> bool:
        """``effects.s_While`` in line: each pass pays a unit and tests the condition, at
        most the bound's number of times; after the last, a condition still true is an
        error. The condition's errors are reported at the `while`, as its closure's are."""
        w = self.w
        limit = stmt.max or self.L.loop_limit
        span = w.name_of(stmt.span)
        body = splice_constant_ifs(stmt.body.stmts, self.L)
        at = w.temp()
        spans = len(self.spans)
        start = len(self._lines)
        self.put(indent, f"for {w.temp()} in range({limit!r}):")
        self.put(indent + 1, "s.ops -= 1")
        self.put(indent + 1, "if s.ops < 0:")
        self.put(indent + 2, f"_ov(s, {span})")
        restore = len(self._lines)
        self.put(indent + 1, f"if not {self.truth(stmt.cond)}:")
        self.put(indent + 2, "break")
        if binds_names(stmt.body):
            self.put(indent + 1, w.call(compile_block_closure(stmt.body, self.L)))
        else:
            self.branch(body, indent + 1)
        self.put(indent, "else:")
        if len(self.spans) > spans:
            # the body records the positions of its statements (so the unit has an `_n`): the
            # condition's are the `while`'s
            self._lines.insert(restore, "    " * (indent + 1) + f"_n = {at}")
            self._lines.insert(start, "    " * indent + f"{at} = _n")
            self.put(indent + 1, f"_n = {at}")
        message = w.name_of(f"`while` ran {limit} times and its condition still holds")
        self.put(indent + 1, f"if {self.truth(stmt.cond)}:")
        self.put(indent + 2, f"_fail({message}, {span})")
        return True

    def s_Assign(self, stmt: A.Assign, indent: int) -> bool:
        L = self.L
        target = stmt.target
        ref = L.info.ref(target)
        t = type_of(stmt.value, L)
        if T.is_list(t) and ref.kind == "var" and not may_nest(t):
            return self.assign_list(stmt, indent)
        if t not in (T.INT, T.BOOL, T.PLAYER, T.CARD, T.CELL, T.PIECE, T.STR) or (t == T.STR and stmt.op != "="):
            return self.assign_any(stmt, indent)  # numbers that may grow, nested values: checked for size
        if t in (T.PLAYER, T.CARD, T.CELL, T.PIECE, T.BOOL) and stmt.op != "=":
            return self.assign_any(stmt, indent)
        op = {"=": "=", "+=": "+=", "-=": "-="}[stmt.op]
        if ref.kind == "var":
            key = ("var", target.id)
            self.put(indent, f"s.g[{L.var_slots[target.id]!r}] {op} {self.value(stmt.value)}")
        elif ref.kind in ("pvar", "player_field") and (ref.kind == "pvar" or target.name in _FIELDS):
            key = ("pvar", target.name) if ref.kind == "pvar" else ("field", target.name)
            column = f"s.pv[{L.pvar_slots[target.name]!r}]" if ref.kind == "pvar" else _FIELDS[target.name]
            p = self.w.temp()
            what = "set" if stmt.op == "=" else "change"
            message = self.w.name_of(f"cannot {what} a variable of a missing player (none)")
            self.put(indent, f"{p} = {self.value(target.obj)}")
            self.put(indent, f"if {p} is None:")
            self.put(indent + 1, f"_fail({message}, {self.w.name_of(stmt.span)})")
            self.put(indent, f"{column}[{p}] {op} {self.value(stmt.value)}")
        else:
            return self.assign_any(stmt, indent)
        if _marks(L, key):
            self.put(indent, "s.dirty = True")
        return True

    def assign_any(self, stmt: A.Assign, indent: int) -> bool:
        """An assignment of any target (``codegen_effects.write_assign``), then the state marked
        dirty when the end conditions read what it writes."""
        key = write_assign(self, stmt, indent)
        if key is None:
            return False
        if _marks(self.L, key):
            self.put(indent, "s.dirty = True")
        return True

    def assign_list(self, stmt: A.Assign, indent: int) -> bool:
        """A variable set to, grown by or cut by a flat list (``effects._assign``): a long
        list is paid for, a grown one checked against the size limits."""
        w = self.w
        span = w.name_of(stmt.span)
        slot = f"s.g[{self.L.var_slots[stmt.target.id]!r}]"
        xs = w.temp()
        self.put(indent, f"{xs} = {self.value(stmt.value)}")
        self.put(indent, f"if len({xs}) > {SMALL!r}:")
        self.put(indent + 1, f"{w.name_of(spend)}(s, len({xs}), {span})")
        if stmt.op == "=":
            self.put(indent, f"{slot} = list({xs})")
        elif stmt.op == "+=":
            self.put(indent, f"{slot} = _cg(s, {slot} + list({xs}), _lim, {span})")
        else:
            self.put(indent, f"{slot} = {w.name_of(list_difference)}(s, {slot}, list({xs}), {span})")
        if _marks(self.L, ("var", stmt.target.id)):
            self.put(indent, "s.dirty = True")
        return True

    def face(self, stmt: A.Move | A.Draw, zone: str) -> str:
        """The facing of cards a statement moves to ``zone`` (the code of a zone index)."""
        if stmt.face is not None:
            return repr(1 if stmt.face == "up" else 0)
        return f"{self.w.name_of(self.L.zone_face)}[{zone}]"

    def s_Draw(self, stmt: A.Draw, indent: int) -> bool:
        """As ``effects.s_Draw``: the count paid for, the source and destination found, then a
        card at a time from the top while the source has one (an empty source takes none)."""
        w = self.w
        n, src, z, f = (w.temp() for _ in range(4))
        count = stmt.count
        if count is None or (isinstance(count, A.Const) and type(count.value) is int and count.value == 1):
            n = "1"
        else:
            self.put(indent, f"{n} = {self.value(stmt.count)}")
            self.put(indent, f"if {n} > {SMALL!r}:")
            self.put(indent + 1, f"{w.name_of(spend)}(s, {n}, {w.name_of(stmt.span)})")
        self.put(indent, f"{src} = {self.value(stmt.source)}")
        self.put(indent, f"{z} = {self.value(stmt.dest)}")
        self.put(indent, f"{f} = {self.face(stmt, z)}")
        draw = w.name_of(draw_top)
        if n == "1":
            self.put(indent, f"{draw}(s, {src}, {z}, {f})")
            return True
        self.put(indent, f"{w.name_of(deal_cards)}(s, {src}, [{z}], [{f}], {n})")
        return True

    def move_all(self, stmt: A.Move, what_type: str, indent: int) -> None:
        """As ``effects.s_Move``'s ``move_all``: the cards paid for when many, then moved (a whole
        zone by ``move_zone``, a list one by one)."""
        w, L = self.w, self.L
        z, f, src, moved = (w.temp() for _ in range(4))
        self.put(indent, f"{z} = {self.value(stmt.dest)}")
        self.put(indent, f"{f} = {self.face(stmt, z)}")
        if what_type == T.ZONE:
            self.put(indent, f"{src} = {self.value(stmt.what)}")
            self.put(indent, f"if len(s.zones[{src}]) > {SMALL!r}:")
            self.put(indent + 1, f"{w.name_of(spend)}(s, len(s.zones[{src}]), {w.name_of(stmt.span)})")
            self.put(indent, f"{w.name_of(move_zone)}(s, {src}, {z}, {f}, {stmt.bottom!r})")
            return
        listed = w.call(compile_list(stmt.what, L)) if has_own_errors(stmt.what, L) else w.expr(stmt.what)
        self.put(indent, f"{moved} = list({listed})")
        self.put(indent, f"if len({moved}) > {SMALL!r}:")
        self.put(indent + 1, f"{w.name_of(spend)}(s, len({moved}), {w.name_of(stmt.span)})")
        self.put(indent, f"{w.name_of(move_cards)}(s, {moved}, {z}, {f}, {stmt.bottom!r})")

    def s_Move(self, stmt: A.Move, indent: int) -> bool:
        L = self.L
        what_type = type_of(stmt.what, L)
        if stmt.selector in _ENDS and what_type == T.ZONE:
            self.move_from_end(stmt, indent)
            return True
        if stmt.selector in ("one", "all") and not (stmt.selector == "one" and what_type == T.PIECE) and (
                stmt.selector == "all" or T.is_list(what_type) or what_type == T.ZONE):
            self.move_all(stmt, what_type, indent)
            return True
        if stmt.selector != "one" or what_type not in (T.PIECE, T.CARD):
            return False
        if what_type == T.PIECE:
            # in line as state.move_piece does it; a missing piece or cell, or a cell another
            # piece holds, goes to _mvp for its error
            x, c = self.w.temp(), self.w.temp()
            self.put(indent, f"{x} = {self.value(stmt.what)}")
            self.put(indent, f"{c} = {self.value(stmt.dest)}")
            self.land(x, c, stmt.span, indent, placed=False)
            return True
        c, z = self.w.temp(), self.w.temp()
        self.put(indent, f"{c} = {self.value(stmt.what)}")
        self.put(indent, f"if {c} is not None:")
        self.put(indent + 1, f"{z} = {self.value(stmt.dest)}")
        self.put(indent + 1, f"_mvc(s, {c}, {z}, {self.face(stmt, z)}, {stmt.bottom!r})")
        return True

    def move_from_end(self, stmt: A.Move, indent: int) -> None:
        """`move top|bottom|random Z to D`: the card taken as ``state.take_card`` takes it, and
        the destination evaluated only when there is one (as ``effects.s_Move``)."""
        w = self.w
        z, c, d = w.temp(), w.temp(), w.temp()
        self.put(indent, f"{z} = {self.value(stmt.what)}")
        self.put(indent, f"{c} = {w.name_of(take_card)}(s, {z}, {_ENDS[stmt.selector]!r})")
        self.put(indent, f"if {c} is not None:")
        self.put(indent + 1, f"{d} = {self.value(stmt.dest)}")
        self.put(indent + 1, f"_mvc(s, {c}, {d}, {self.face(stmt, d)}, {stmt.bottom!r})")

    def s_Place(self, stmt: A.Place, indent: int) -> bool:
        """The player's first piece of the kind off the board, moved in line as ``s_Move``
        moves one; a missing player or cell, or no piece left, raises the closure's error
        (``effects.place_failure``)."""
        L, w = self.L, self.w
        if L.piece_fields_set:
            return False
        p, c, x = w.temp(), w.temp(), w.temp()
        fail = f"raise {w.name_of(place_failure)}({p}, {c}, {w.name_of(stmt.kind)}, {w.name_of(stmt.span)})"
        self.put(indent, f"{p} = {self.value(stmt.owner)}")
        self.put(indent, f"{c} = {self.value(stmt.cell)}")
        self.put(indent, f"if {p} is None or {c} is None:")
        self.put(indent + 1, fail)
        self.put(indent, f"for {x} in {w.name_of(piece_pools(L, stmt.kind))}[{p}]:")
        self.put(indent + 1, f"if s.piece_cell[{x}] < 0:")
        self.put(indent + 2, "break")
        self.put(indent, "else:")
        self.put(indent + 1, fail)
        self.land(x, c, stmt.span, indent, placed=True)
        return True

    def land(self, x: str, c: str, span: Any, indent: int, placed: bool) -> None:
        """Piece ``x`` onto cell ``c`` in line, as ``state.move_piece`` moves it, ``_mvp`` raising
        its errors (a missing piece or cell, a cell another piece holds). A ``placed`` piece and
        its cell are known, and the piece is off the board."""
        o = self.w.temp()
        missing = "" if placed else f"{x} is None or {c} is None or "
        self.put(indent, f"if {missing}(({o} := s.cell_piece[{c}]) >= 0 and {o} != {x}):")
        self.put(indent + 1, f"_mvp(s, {x}, {c}, {self.w.name_of(span)})")
        if not placed:
            self.put(indent, f"{o} = s.piece_cell[{x}]")
            self.put(indent, f"if {o} >= 0:")
            self.put(indent + 1, f"s.cell_piece[{o}] = -1")
        self.put(indent, f"s.cell_piece[{c}] = {x}")
        self.put(indent, f"s.piece_cell[{x}] = {c}")
        if _marks(self.L, ("pieces",)):
            self.put(indent, "s.dirty = True")

    def s_Remove(self, stmt: A.Remove, indent: int) -> bool:
        x, c = self.w.temp(), self.w.temp()
        self.put(indent, f"{x} = {self.value(stmt.piece)}")
        self.put(indent, f"if {x} is not None:")
        self.put(indent + 1, f"{c} = s.piece_cell[{x}]")
        self.put(indent + 1, f"if {c} >= 0:")
        self.put(indent + 2, f"s.cell_piece[{c}] = -1")
        self.put(indent + 2, f"s.piece_cell[{x}] = -1")
        if _marks(self.L, ("pieces",)):
            self.put(indent, "s.dirty = True")
        return True

    def s_Emit(self, stmt: A.Emit, indent: int) -> bool:
        """The event as a dict display (then the seats it is for, sorted, when it names them), then
        paid for and logged as ``effects.s_Emit`` does."""
        L, w = self.L, self.w
        parts = [f"{w.name_of('type')}: {w.name_of(stmt.name)}"]
        for key, node in stmt.fields:
            parts.append(f"{w.name_of(key)}: {w.as_json(self.value(node), type_of(node, L))}")
        nested, sized, fixed = event_size(stmt, L)
        event, span = w.temp(), w.name_of(stmt.span)
        self.put(indent, f"{event} = {{{', '.join(parts)}}}")
        if stmt.to is not None:
            to = self.value(stmt.to)
            seats = f"{event}[{w.name_of('to')}]"
            self.put(indent, f"{seats} = sorted(set({f'[{to}]' if type_of(stmt.to, L) == T.PLAYER else to}))")
            sized = [*sized, ("to", len)]
        self.put(indent, "s.ops -= 1")
        self.put(indent, "if s.ops < 0:")
        self.put(indent + 1, f"_ov(s, {span})")
        if nested:
            self.put(indent, f"{w.name_of(check_stored)}(s, {event}, {w.name_of(L.limits)}, {span})")
        units = " + ".join([repr(fixed)] + [f"{w.name_of(measure)}({event}[{w.name_of(key)}])"
                                             for key, measure in sized])
        self.put(indent, f"{w.name_of(log_event)}(s, {event}, {span}, {units})")
        return True

    def s_CallProc(self, stmt: A.CallProc, indent: int) -> bool:
        L = self.L
        if L.info.ref(stmt.target).kind != "proc":
            return False
        name = stmt.target.id
        params = L.procs[name].params
        self.put(indent, "s.ops -= 1")  # each call costs one unit (as in the closure engine)
        self.put(indent, "if s.ops < 0:")
        self.put(indent + 1, f"_ov(s, {self.w.name_of(stmt.span)})")
        body = self.inlined_body(name)
        if body is not None:
            self.inline_call(params, stmt.args, body, indent)
            return True
        env = ", ".join(f"{self.w.name_of(p)}: {self.value(a)}" for p, a in zip(params, stmt.args))
        run = L.compiled_proc_closure(name) or late_procedure(L, name)
        self.put(indent, f"{self.w.name_of(run)}(s, {{{env}}})")
        return True

    def inlined_body(self, name: str) -> list[Any] | None:
        """The statements of procedure ``name`` when a call of it is written in line: a small
        procedure, not recursive, binding no name of its own (its env would be the caller's),
        and not called from a procedure written in line already. (A call of a recursive one
        never comes here today: the checker makes every such call wait, a frame per level; the
        test keeps that so if the checker ever learns otherwise.)"""
        L = self.L
        if self._inlining or name in L.recursive_procedures:
            return None
        body = L.procs[name].body
        stmts = splice_constant_ifs(body.stmts, L)
        if not stmts or _size(body, _INLINE_PROC_NODES + 1) > _INLINE_PROC_NODES \
                or any(isinstance(n, A.Let) for n in A.walk(body)):
            return None
        return stmts

    def inline_call(self, params: tuple[str, ...], args: Any, stmts: list[Any], indent: int) -> None:
        """A call in line: the arguments in the caller's scope, then the body with the parameters
        as Python locals, its errors reported where its own generated block reports them (at its
        statements, or, for one statement without an end check, at the call)."""
        w = self.w
        values = []
        for a in args:
            t = w.temp()
            self.put(indent, f"{t} = {self.value(a)}")
            values.append(t)
        scope, w.scope = w.scope, dict(zip(params, values))
        self._inlining += 1
        try:
            self.statements(stmts, indent, len(stmts) > 1 or self.check is not None)
        finally:
            self._inlining -= 1
            w.scope = scope


def _marks(L: Any, key: tuple[str, ...]) -> bool:
    """Does a write of ``key`` change what the round's end conditions read (mark the state dirty)?"""
    return key in L.end_watch


def has_own_errors(node: Any, L: Any) -> bool:
    """Does the closure of ``node`` turn Python errors into messages of its own? Not a part
    that is a constant (``player(num_players - 1)``): worked out when the game was linked, it
    cannot fail, and the generated code writes its value."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (A.BinOp, A.Call, A.Index)) and L.codegen.folds.is_constant(n):
            continue
        if isinstance(n, A.BinOp) and n.op in _ARITHMETIC:
            return True
        if isinstance(n, (A.Call, A.Name)) and L.info.ref(n).kind == "define":
            return True
        if isinstance(n, A.Index) and L.info.ref(n).kind != "table":
            return True
        todo.extend(A.children(n))
    return False

