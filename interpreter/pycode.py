"""The one place generated Python is checked, compiled and run (see docs/architecture.md).

The code generator (``codegen``) writes Python source from fixed fragments of its own,
names it invents (``_k7``, ``_v1``, ``_t2``) and ``repr()`` of values whose type is
exactly int, bool or None. Every other value a rule needs (text, names, tables,
positions) reaches the code through the namespace, under an invented name. This module
enforces that discipline instead of trusting it: each unit's tokens are checked against
an allow-list before it is compiled (only ASCII letters, digits, white space and the
operators the generator writes; no quote, so no string literal of any kind; every word
a keyword of the allowed statements, an invented or fixed name or an allowed builtin;
an attribute only of the state's data fields; no float literal, slice, set, star or
decorator); anything else fails the load with ``CodegenError``. The code runs with only
the builtins it names and a filename that names no file.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable
from typing import Any

__all__ = ["CodegenError", "Unit", "load_unit", "verify", "ALLOWED_BUILTINS", "STATE_ATTRS"]


class CodegenError(Exception):
    """Generated code broke the allow-list (a bug of the generator, never a spec's fault)."""


# names the generator invents: an underscore, letters, digits (no dunder, no spec text)
INVENTED = re.compile(r"_[a-z]+[0-9]*\Z")
# the state, the environment of locals, a block's frame, the set (or list) of a choice's option ids
FIXED_NAMES = frozenset({"s", "e", "frame", "_ids"})
_IDS_METHODS = frozenset({"add", "update", "append", "sort"})
ALLOWED_BUILTINS = frozenset({"len", "bool", "dict", "set", "any", "all", "sum", "max", "min", "list", "map", "range",
                              "abs", "sorted", "float", "TypeError", "ZeroDivisionError", "OverflowError", "IndexError",
                              "KeyError", "ValueError", "AttributeError"})
# the fields of a state the generated code may read or write (``s.<field>``)
STATE_ATTRS = frozenset({"zones", "loc", "face", "shuffled", "g", "pv", "score", "total", "skips", "piece_cell",
                         "cell_piece", "piece_owner", "piece_kind", "round", "turn", "current", "dealer", "ops",
                         "dirty", "in_play", "pending", "next_seat"})
# the keywords of the statements and expressions the generator writes
KEYWORDS = frozenset({"def", "return", "if", "elif", "else", "for", "in", "not", "and", "or", "is", "None", "True",
                      "False", "try", "except", "raise", "from", "as", "pass", "continue", "break"})
# keywords of what is not allowed, by the syntax they write
_REFUSED = {"import": "Import", "lambda": "Lambda", "global": "Global", "nonlocal": "Nonlocal", "class": "ClassDef",
            "with": "With", "while": "While", "yield": "Yield", "await": "Await", "async": "AsyncFunctionDef",
            "del": "Delete", "assert": "Assert", "finally": "Try with finally"}
# a token: a word, a whole number, an operator the generator writes, or any other single character
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|:=|==|!=|<=|>=|//|\*\*|->|<<|>>|[-+*/%<>=]=|\S")
_OPERATORS = frozenset({"(", ")", "[", "]", "{", "}", ":", ",", ".", "=", ":=", "==", "!=", "<", "<=", ">", ">=",
                        "+", "-", "*", "/", "//", "%", "+=", "-=", "**"})
_ALLOWED_CHARS = re.compile(r"[A-Za-z0-9_ \n()\[\]{}:,.=<>!+\-*/%]*\Z")
_DEF = re.compile(r"def (_[a-z]+[0-9]*)\(([^()]*)\):\Z")
class Unit:
    """A verified unit of generated code: its source (for readers) and what it defines."""

    __slots__ = ("name", "source", "functions")

    def __init__(self, name: str, source: str, functions: dict[str, Callable[..., Any]]):
        self.name = name
        self.source = source
        self.functions = functions


def verify(source: str, namespace: dict[str, Any]) -> set[str]:
    """Raise CodegenError unless every token of ``source`` is on the allow-list; return the
    builtins it names."""
    if not _ALLOWED_CHARS.match(source):
        raise CodegenError(_character_problem(source))
    used: set[str] = set()
    brackets: list[list[Any]] = []  # open brackets: [the bracket, a dict's `:` or `**` seen, anything inside]
    for line in source.splitlines():
        if brackets:
            _check_def_and_line(line, brackets, used)
            continue
        known = _PASSED_LINES.get(line)
        if known is None:
            named: set[str] = set()
            _check_def_and_line(line, brackets, named)
            if brackets:
                used |= named
                continue
            if len(_PASSED_LINES) >= _CACHE_SIZE:
                _PASSED_LINES.clear()
            known = _PASSED_LINES[line] = frozenset(named)
        used |= known
    return used


def _check_def_and_line(line: str, brackets: list[list[Any]], used: set[str]) -> None:
    if line.startswith("def") or " def " in line:
        _check_def(line)
    _check_line(_TOKEN.findall(line), brackets, used)


# The builtins each line that passed names, for lines that open no bracket they leave open and
# follow none left open: such a line's check depends on nothing else, and most generated lines
# (`try:`, `except _errs:`, `if s.dirty and s.in_play:`) recur in many units.
_PASSED_LINES: dict[str, frozenset[str]] = {}


def _check_line(tokens: list[str], brackets: list[list[Any]], used: set[str]) -> None:
    """The tokens of one line (``brackets``: those still open from the lines before)."""
    previous = ""
    for i, token in enumerate(tokens):
        first = token[0]
        if brackets and token not in (")", "]", "}"):
            top = brackets[-1]
            top[2] = True
            if token in (":", "**"):
                top[1] = True
        if first.isalpha() or first == "_":
            if previous == ".":
                owner = tokens[i - 2] if i >= 2 else ""
                if not ((owner == "s" and token in STATE_ATTRS) or (owner == "_ids" and token in _IDS_METHODS)) \
                        or (i >= 3 and tokens[i - 3] == "."):
                    raise CodegenError(f"generated code reads the attribute '{token}', which is not allowed")
            else:
                _check_word(token, tokens, i)
                if token in ALLOWED_BUILTINS:
                    used.add(token)
                if token == "for" and brackets and brackets[-1][0] == "{":
                    raise CodegenError("generated code uses SetComp or DictComp, which is not allowed")
                if token == "for" and not INVENTED.match(tokens[i + 1] if i + 1 < len(tokens) else ""):
                    raise CodegenError("generated code loops with a variable that is not an invented name")
                if token == "from" and "raise" not in tokens[:i]:
                    raise CodegenError("generated code uses ImportFrom, which is not allowed")
        elif first.isdigit():
            if previous == ".":
                raise CodegenError("generated code holds a float literal")
        elif token not in _OPERATORS:
            raise CodegenError(f"generated code uses the operator '{token}', which is not allowed")
        elif token == ".":
            if not (previous in ("s", "_ids") and (i < 2 or tokens[i - 2] != ".")):
                after = tokens[i + 1] if i + 1 < len(tokens) else ""
                if previous.isdigit() or after.isdigit():
                    raise CodegenError("generated code holds a float literal")
                raise CodegenError(f"generated code reads the attribute '{after}', which is not allowed")
        elif token in "([{":
            brackets.append([token, False, False])
        elif token in ")]}":
            if brackets:
                bracket, keyed, filled = brackets.pop()
                if bracket == "{" and filled and not keyed:
                    raise CodegenError("generated code uses Set, which is not allowed")
        elif token == ":":
            if brackets and brackets[-1][0] in "[(":
                raise CodegenError("generated code uses Slice, which is not allowed")
            if not brackets and i != len(tokens) - 1:
                raise CodegenError("generated code uses AnnAssign or a statement after a colon, which is not allowed")
        elif token in ("=", "+=", "-="):
            if brackets:
                raise CodegenError("generated code uses a keyword argument, which is not allowed")
            if previous in ALLOWED_BUILTINS:
                raise CodegenError(f"generated code assigns the builtin '{previous}', which is not allowed")
        elif token == ":=" and not INVENTED.match(previous):
            raise CodegenError(f"generated code assigns '{previous}' in an expression, which is not an invented name")
        elif token == "**" and not (brackets and brackets[-1][0] == "{" and previous in ("{", ",")):
            raise CodegenError("generated code uses ** outside a dict display (a power or Starred), which is "
                               "not allowed")
        elif token == "*" and not (previous in (")", "]") or previous.isdigit()
                                   or ((previous[:1].isalpha() or previous[:1] == "_") and previous not in KEYWORDS)):
            raise CodegenError("generated code uses Starred, which is not allowed")
        previous = token


def _character_problem(source: str) -> str:
    for i, ch in enumerate(source):
        if not _ALLOWED_CHARS.match(ch):
            if ch in "'\"":
                prefix = source[max(0, i - 1):i].lower()
                if prefix == "f":
                    return "generated code uses JoinedStr (an f-string), which is not allowed"
                what = "bytes" if prefix == "b" else "str"
                return f"generated code holds a {what} literal"
            return f"generated code holds the character {ch!r}, which is not allowed"
    return "generated code holds a character that is not allowed"


def _check_def(line: str) -> None:
    """A function is plain and top level: ``def _name(args):``, each argument a name."""
    if not line.startswith("def "):
        raise CodegenError("generated functions are plain and top level")
    found = _DEF.match(line)
    if found is None:
        name = line[4:].split("(")[0].strip()
        if name and name not in FIXED_NAMES and not INVENTED.match(name):
            raise CodegenError(f"generated code defines '{name}', which is not an invented name")
        raise CodegenError("generated functions are plain: no decorators, defaults or variable arguments")
    for arg in (a.strip() for a in found.group(2).split(",")):
        if not (arg in FIXED_NAMES or INVENTED.match(arg)):
            if arg.isidentifier():
                raise CodegenError(f"generated code defines '{arg}', which is not an invented name")
            raise CodegenError("generated functions are plain: no decorators, defaults or variable arguments")


def _check_word(word: str, tokens: list[str], i: int) -> None:
    if word in KEYWORDS or word in FIXED_NAMES or word in ALLOWED_BUILTINS or INVENTED.match(word):
        if word == "as":
            after = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not INVENTED.match(after):
                raise CodegenError(f"generated code defines '{after}', which is not an invented name")
        return
    refused = _REFUSED.get(word)
    if refused is not None:
        raise CodegenError(f"generated code uses {refused} (the keyword '{word}'), which is not allowed")
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after == "=" or (after == "(" and i > 0 and tokens[i - 1] == "def"):
        raise CodegenError(f"generated code defines '{word}', which is not an invented name")
    raise CodegenError(f"generated code names '{word}', which is neither invented nor allowed")


def _check_invented(name: str) -> None:
    if name not in FIXED_NAMES and not INVENTED.match(name):
        raise CodegenError(f"generated code defines '{name}', which is not an invented name")


def load_unit(name: str, source: str, namespace: dict[str, Any]) -> Unit:
    """Verify ``source`` (generated, with its namespace) and run it: the functions it defines."""
    for key in namespace:
        _check_invented(key)
    cache_key = (source, frozenset(namespace))
    cached = _VERIFIED.get(cache_key)
    if cached is None:
        builtins_used = verify(source, namespace)
        code = compile(source, f"<rulespec generated {name}>", "exec", dont_inherit=True)
        cached = (code, frozenset(builtins_used), tuple(_DEF.match(line).group(1)  # type: ignore[union-attr]
                                                         for line in source.splitlines() if line.startswith("def ")))
        if len(_VERIFIED) >= _CACHE_SIZE:
            _VERIFIED.clear()
        _VERIFIED[cache_key] = cached
    code, used, names = cached
    scope: dict[str, Any] = {"__builtins__": {k: getattr(builtins, k) for k in used}}
    scope.update(namespace)
    exec(code, scope)  # the one exec of the project: verified, generated code only
    return Unit(name, source, {n: scope[n] for n in names})


# Verified code by (source, namespace names): the same spec linked again (another player count,
# other options) mostly generates the same units; the code is checked and compiled once.
_VERIFIED: dict[tuple[str, frozenset[str]], tuple[Any, frozenset[str], tuple[str, ...]]] = {}
_CACHE_SIZE = 20_000
