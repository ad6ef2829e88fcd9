"""Parsing rule-language strings into AST nodes whose spans point into the YAML file."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast as A
from .errors import Diagnostics, SourceSpan
from .grammar_table import load_parser
from .source import Limits, PosStr

__all__ = ["parse_expr", "parse_stmt", "parse_bindings", "parse_template", "MAX_TEXT", "MAX_DEPTH"]

MAX_TEXT = 2000  # characters in one rule string
MAX_DEPTH = 40  # nesting of one rule string's syntax tree


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return load_parser()


def _as_posstr(text: Any, fallback: SourceSpan | None) -> PosStr:
    if isinstance(text, PosStr):
        return text
    span = fallback or SourceSpan("<string>", 1, 1)
    return PosStr(str(text), span, str(text), None)


class _Failed(Exception):
    pass


class _BadLiteral(Exception):
    def __init__(self, span: SourceSpan, message: str):
        super().__init__(message)
        self.span = span
        self.message = message


MAX_INT = 2**63 - 1  # the largest whole number a rule text may write


def _parse(text: Any, start: str, diags: Diagnostics, fallback: SourceSpan | None) -> Any:
    source = _as_posstr(text, fallback)
    count = diags.work["rules"] = diags.work.get("rules", 0) + 1
    if count > Limits.max_rules:
        if count == Limits.max_rules + 1:
            diags.limit(source.span, f"too many rule texts (more than {Limits.max_rules} in one spec)",
                        "use `define:` and `procedures:` to say the same thing once")
        raise _Failed
    if len(source) > MAX_TEXT:
        diags.error(source.span, f"rule text too long ({len(source)} characters; the limit is {MAX_TEXT})",
                    "split it with `define:` or `procedures:`")
        raise _Failed
    if not source.strip():
        diags.error(source.span, f"empty {_WHAT[start]}")
        raise _Failed
    try:
        tree = _parser().parse(str(source), start=start)
    except UnexpectedInput as exc:
        diags.error(source.at(_offset_of(exc, str(source))), _syntax_message(exc, str(source), start),
                    _syntax_hint(exc, str(source)))
        raise _Failed from None
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        diags.error(source.span, f"rule text nested too deeply ({depth} levels; the limit is {MAX_DEPTH})",
                    "split it with `define:`")
        raise _Failed
    try:
        return _ToAst(source).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, _BadLiteral):
            diags.error(exc.orig_exc.span, exc.orig_exc.message)
            raise _Failed from None
        raise


_WHAT = {"expr": "expression", "stmt": "statement", "bindings": "bindings"}


def parse_expr(text: Any, diags: Diagnostics, fallback: SourceSpan | None = None) -> A.Expr | None:
    if isinstance(text, bool) or (isinstance(text, (int, float)) and not isinstance(text, str)):
        return A.Const(fallback or SourceSpan("<spec>", 1, 1), text)
    try:
        return _parse(text, "expr", diags, fallback)
    except _Failed:
        return None


def parse_stmt(text: Any, diags: Diagnostics, fallback: SourceSpan | None = None) -> Any:
    try:
        return _parse(text, "stmt", diags, fallback)
    except _Failed:
        return None


def parse_bindings(text: Any, diags: Diagnostics, fallback: SourceSpan | None = None) -> A.Bindings | None:
    try:
        return _parse(text, "bindings", diags, fallback)
    except _Failed:
        return None


def parse_template(text: Any, diags: Diagnostics, fallback: SourceSpan | None = None) -> A.Template | None:
    """``"play {card}"`` -> Template(("play ", Name(card))). ``{{``/``}}`` are literal braces."""
    source = _as_posstr(text, fallback)
    raw = str(source)
    parts: list[Any] = []
    literal = ""
    i = 0
    ok = True
    while i < len(raw):
        ch = raw[i]
        if ch in "{}" and raw[i : i + 2] in ("{{", "}}"):
            literal += ch
            i += 2
            continue
        if ch == "}":
            diags.error(source.at(i), "unmatched '}' in text", "write '}}' for a literal brace")
            return None
        if ch != "{":
            literal += ch
            i += 1
            continue
        end = _closing_brace(raw, i)
        if end < 0:
            diags.error(source.at(i), "unclosed '{' in text", "write '{{' for a literal brace")
            return None
        if literal:
            parts.append(literal)
            literal = ""
        inner = _Slice(source, i + 1, end)
        expr = parse_expr(inner, diags)
        if expr is None:
            ok = False
        else:
            parts.append(expr)
        i = end + 1
    if literal:
        parts.append(literal)
    if not ok:
        return None
    return A.Template(source.span, tuple(parts))


def _closing_brace(raw: str, start: int) -> int:
    depth = 0
    quote = ""
    for j in range(start, len(raw)):
        ch = raw[j]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


class _Slice(PosStr):
    """A substring of a PosStr that still maps offsets into the file."""

    _parent: PosStr
    _start: int

    def __new__(cls, parent: PosStr, start: int, end: int) -> _Slice:
        obj = str.__new__(cls, str(parent)[start:end])
        obj.span = parent.at(start)
        obj._parent = parent
        obj._start = start
        obj._raw = ""
        obj._style = None
        return obj

    def at(self, offset: int) -> SourceSpan:
        return self._parent.at(self._start + offset)


def _offset_of(exc: UnexpectedInput, text: str) -> int:
    pos = getattr(exc, "pos_in_stream", None)
    at_end = isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    if isinstance(exc, UnexpectedEOF) or at_end or pos is None or pos < 0:
        return len(text.rstrip())
    return pos


_TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "STRING": "a quoted text",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "DOT": "'.'",
    "EQUAL": "'='", "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "PERCENT": "'%'",
    "MORETHAN": "'>'", "LESSTHAN": "'<'", "$END": "the end of the text",
}


def _token_word(name: str) -> str:
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    try:
        pattern = _parser().get_terminal(name).pattern
        if pattern.type == "str":
            return f"'{pattern.value}'"
    except Exception:
        pass
    return name.lower()


def _syntax_message(exc: UnexpectedInput, text: str, start: str) -> str:
    what = _WHAT[start]
    if isinstance(exc, UnexpectedEOF):
        return f"the {what} ends too early"
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        ch = text[pos] if 0 <= pos < len(text) else "?"
        return f"unexpected character '{ch}' in {what}"
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            return f"the {what} ends too early"
        expected = sorted({_token_word(t) for t in exc.expected if not t.startswith("__")})
        if len(expected) > 6:
            return f"unexpected '{token}' in {what}"
        return f"unexpected '{token}' in {what}; expected {', '.join(expected)}"
    return f"invalid {what}"


def _syntax_hint(exc: UnexpectedInput, text: str) -> str | None:
    if text.count("(") > text.count(")") or text.count("[") > text.count("]"):
        return "an unclosed bracket; inside a YAML [a, b] list a comma ends the item: quote the whole text"
    if isinstance(exc, UnexpectedToken):
        if str(exc.token) == "=" and "==" not in text:
            return "compare with '==', or assign in a statement such as `x = 1`"
        if exc.token.type == "NAME" and str(exc.token) in ("then", "elif"):
            return "write conditions as `a if test else b`"
        before = text[: exc.token.start_pos or 0].rstrip()
        if exc.token.type == "NAME" and before[-1:].isalnum():
            word = before.split()[-1] if before.split() else ""
            return f"is an operator missing after '{word}', or is '{word}' a misspelled keyword?"
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        ch = text[pos] if 0 <= pos < len(text) else ""
        if ch == "&":
            return "use `and`"
        if ch == "|":
            return "use `or`"
        if ch == "!":
            return "use `not`, or `!=` to compare"
        if ch.isupper():
            return "names are lower case; quote text values: 'Red'"
    return None


def _depth(tree: Tree) -> int:
    best = 0
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > best:
            best = depth
        if isinstance(node, Tree):
            stack.extend((child, depth + 1) for child in node.children)
    return best


_BINOPS = {
    "add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%",
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "in_op": "in", "not_in": "notin", "and_op": "and", "or_op": "or",
}


def _binop(op: str) -> Callable[..., A.BinOp]:
    def build(self: _ToAst, meta: Any, children: list[Any]) -> A.BinOp:
        return A.BinOp(self.span(meta), op, children[0], children[1])

    return build


class _ToAst(Transformer):
    """lark tree -> frozen dataclasses with file spans (thin, one method per rule)."""

    def __init__(self, source: PosStr):
        super().__init__()
        self.source = source

    def span(self, meta: Any) -> SourceSpan:
        if getattr(meta, "empty", True):
            return self.source.span
        return self.source.at(meta.start_pos)

    def tok_span(self, token: Token) -> SourceSpan:
        return self.source.at(token.start_pos or 0)

    # ---- expressions
    @v_args(meta=True)
    def number(self, meta: Any, children: list[Any]) -> A.Const:
        text = str(children[0])
        span = self.span(meta)
        if len(text) > 40:
            raise _BadLiteral(span, f"number too long ({len(text)} characters; the limit is 40)")
        value = float(text) if "." in text else int(text)
        if isinstance(value, int) and value > MAX_INT:
            raise _BadLiteral(span, f"number too large (the largest whole number is {MAX_INT})")
        return A.Const(span, value)

    @v_args(meta=True)
    def string(self, meta: Any, children: list[Any]) -> A.Const:
        return A.Const(self.span(meta), str(children[0])[1:-1])

    @v_args(meta=True)
    def true(self, meta: Any, children: list[Any]) -> A.Const:
        return A.Const(self.span(meta), True)

    @v_args(meta=True)
    def false(self, meta: Any, children: list[Any]) -> A.Const:
        return A.Const(self.span(meta), False)

    @v_args(meta=True)
    def none(self, meta: Any, children: list[Any]) -> A.Const:
        return A.Const(self.span(meta), None)

    @v_args(meta=True)
    def name(self, meta: Any, children: list[Any]) -> A.Name:
        return A.Name(self.span(meta), str(children[0]))

    @v_args(meta=True)
    def attr(self, meta: Any, children: list[Any]) -> A.Attr:
        return A.Attr(self.tok_span(children[1]), children[0], str(children[1]))

    @v_args(meta=True)
    def index(self, meta: Any, children: list[Any]) -> A.Index:
        return A.Index(self.span(meta), children[0], children[1])

    @v_args(meta=True)
    def call(self, meta: Any, children: list[Any]) -> A.Call:
        args, kwargs = self._split_args(children[1])
        return A.Call(self.span(meta), str(children[0]), args, kwargs)

    def _split_args(self, node: Any) -> tuple[tuple[Any, ...], tuple[tuple[str, Any], ...]]:
        if node is None:
            return (), ()
        args = tuple(a for a in node.children if not (isinstance(a, tuple) and len(a) == 3 and a[0] == "kw"))
        kwargs = tuple((a[1], a[2]) for a in node.children if isinstance(a, tuple) and len(a) == 3 and a[0] == "kw")
        return args, kwargs

    def kwarg(self, children: list[Any]) -> tuple[str, str, Any]:
        return ("kw", str(children[0]), children[1])

    def kwargs(self, children: list[Any]) -> tuple[tuple[str, Any], ...]:
        return tuple((k[1], k[2]) for k in children)

    @v_args(meta=True)
    def agg(self, meta: Any, children: list[Any]) -> A.Agg:
        name, elt, comp = children
        return A.Agg(self.span(meta), str(name), self._comp(comp, elt))

    def _comp(self, comp: Tree, elt: Any) -> A.Comp:
        """One ``for`` clause, or several: each later clause is the element of the one before
        (``x for a in A for b in B`` is ``Comp(Comp(x, b, B), a, A)``)."""
        for clause in reversed(comp.children):
            var, it, cond = clause.children
            span = self.span(clause.meta) if clause.meta and not clause.meta.empty else self.source.span
            elt = A.Comp(span, elt, str(var), it, cond)
        return elt

    @v_args(meta=True)
    def list_lit(self, meta: Any, children: list[Any]) -> A.ListLit:
        items = tuple(children[0].children) if children and children[0] is not None else ()
        return A.ListLit(self.span(meta), items)

    @v_args(meta=True)
    def listcomp(self, meta: Any, children: list[Any]) -> A.ListComp:
        elt, comp = children
        return A.ListComp(self.span(meta), self._comp(comp, elt))

    @v_args(meta=True)
    def cond(self, meta: Any, children: list[Any]) -> A.Cond:
        body, test, orelse = children
        return A.Cond(self.span(meta), test, body, orelse)

    @v_args(meta=True)
    def not_op(self, meta: Any, children: list[Any]) -> A.Unary:
        return A.Unary(self.span(meta), "not", children[0])

    @v_args(meta=True)
    def neg(self, meta: Any, children: list[Any]) -> A.Unary:
        return A.Unary(self.span(meta), "neg", children[0])

    locals().update({name: v_args(meta=True)(_binop(op)) for name, op in _BINOPS.items()})

    # ---- bindings
    @v_args(meta=True)
    def binding(self, meta: Any, children: list[Any]) -> A.Binding:
        return A.Binding(self.tok_span(children[0]), str(children[0]), children[1], children[2])

    @v_args(meta=True)
    def bindings(self, meta: Any, children: list[Any]) -> A.Bindings:
        return A.Bindings(self.span(meta), tuple(c for c in children if isinstance(c, A.Binding)))

    # ---- statements
    def sel_one(self, _: list[Any]) -> str:
        return "one"

    def sel_all(self, _: list[Any]) -> str:
        return "all"

    def sel_top(self, _: list[Any]) -> str:
        return "top"

    def sel_bottom(self, _: list[Any]) -> str:
        return "bottom"

    def sel_random(self, _: list[Any]) -> str:
        return "random"

    def face_up(self, _: list[Any]) -> str:
        return "up"

    def face_down(self, _: list[Any]) -> str:
        return "down"

    def bottom(self, _: list[Any]) -> bool:
        return True

    @v_args(meta=True)
    def move_stmt(self, meta: Any, children: list[Any]) -> A.Move:
        selector, what, dest = children[0], children[1], children[2]
        face = next((c for c in children[3:] if c in ("up", "down")), None)
        at_bottom = any(c is True for c in children[3:])
        return A.Move(self.span(meta), selector, what, dest, face, at_bottom)

    @v_args(meta=True)
    def draw_stmt(self, meta: Any, children: list[Any]) -> A.Draw:
        count, source, dest = children[0], children[1], children[2]
        face = children[3] if len(children) > 3 else None
        return A.Draw(self.span(meta), count, source, dest, face)

    @v_args(meta=True)
    def deal_stmt(self, meta: Any, children: list[Any]) -> A.Deal:
        count, source, family = children[0], children[1], children[2]
        face = children[3] if len(children) > 3 else None
        return A.Deal(self.span(meta), count, source, str(family), self.tok_span(family), face)

    @v_args(meta=True)
    def shuffle_stmt(self, meta: Any, children: list[Any]) -> A.Shuffle:
        return A.Shuffle(self.span(meta), children[0])

    @v_args(meta=True)
    def flip_stmt(self, meta: Any, children: list[Any]) -> A.Flip:
        return A.Flip(self.span(meta), children[0], children[1])

    @v_args(meta=True)
    def set_stmt(self, meta: Any, children: list[Any]) -> A.Assign:
        return A.Assign(self.span(meta), children[0], "=", children[1])

    @v_args(meta=True)
    def inc_stmt(self, meta: Any, children: list[Any]) -> A.Assign:
        return A.Assign(self.span(meta), children[0], "+=", children[1])

    @v_args(meta=True)
    def dec_stmt(self, meta: Any, children: list[Any]) -> A.Assign:
        return A.Assign(self.span(meta), children[0], "-=", children[1])

    @v_args(meta=True)
    def let_stmt(self, meta: Any, children: list[Any]) -> A.Let:
        return A.Let(self.span(meta), str(children[0]), children[1])

    @v_args(meta=True)
    def emit_stmt(self, meta: Any, children: list[Any]) -> A.Emit:
        name, fields, to = children
        return A.Emit(self.span(meta), str(name), tuple(fields or ()), to)

    @v_args(meta=True)
    def end_round(self, meta: Any, _: list[Any]) -> A.End:
        return A.End(self.span(meta), "round")

    @v_args(meta=True)
    def end_game(self, meta: Any, _: list[Any]) -> A.End:
        return A.End(self.span(meta), "game")

    @v_args(meta=True)
    def end_turn(self, meta: Any, _: list[Any]) -> A.End:
        return A.End(self.span(meta), "turn")

    @v_args(meta=True)
    def end_phase(self, meta: Any, _: list[Any]) -> A.End:
        return A.End(self.span(meta), "phase")

    @v_args(meta=True)
    def skip_stmt(self, meta: Any, children: list[Any]) -> A.Skip:
        return A.Skip(self.span(meta), children[0])

    @v_args(meta=True)
    def next_stmt(self, meta: Any, children: list[Any]) -> A.Next:
        return A.Next(self.span(meta), children[0])

    @v_args(meta=True)
    def place_stmt(self, meta: Any, children: list[Any]) -> A.Place:
        return A.Place(self.span(meta), str(children[0]), children[1], children[2])

    @v_args(meta=True)
    def remove_stmt(self, meta: Any, children: list[Any]) -> A.Remove:
        return A.Remove(self.span(meta), children[0])

    @v_args(meta=True)
    def call_stmt(self, meta: Any, children: list[Any]) -> A.CallProc:
        target, arglist = children[0], children[1]
        if arglist is None and isinstance(target, A.Call) and not target.kwargs:
            return A.CallProc(self.span(meta), A.Name(target.span, target.func), target.args)
        args, _ = self._split_args(arglist)
        return A.CallProc(self.span(meta), target, args)

    @v_args(meta=True)
    def pass_stmt(self, meta: Any, _: list[Any]) -> A.Pass:
        return A.Pass(self.span(meta))
