"""The compiler backend: generated Python (interpreter/codegen.py, interpreter/pycode.py).

- The verifier refuses every construct outside its allow-list (string literals, foreign
  names, attributes other than the state's fields, imports, lambdas, dunders, ...).
- Generated code and the closure engine agree: every spec in games/, in every variant,
  plays the same matches (events, views, final state) with ``MODE = "strict"`` (generated
  code with no fallback to the closures, so a wrong generated function cannot hide) and
  with ``MODE = "off"`` (closures only).
- A hostile spec whose names, texts, labels and seat names are Python injections: none of
  its text reaches the generated source, and nothing runs.
- `rulespec compile --show-python` prints the code.
"""

from __future__ import annotations

import ast
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import interpreter
from interpreter import codegen
from interpreter.cli import main
from interpreter.errors import RuleError
from interpreter.pycode import CodegenError, load_unit, verify
from tests.conftest import GAMES
from tests.support import engine_mode, play_random, zone_names

SPECS = sorted(GAMES.glob("*.yaml"))


# ---------------------------------------------------------------------- the allow-list


@pytest.mark.parametrize("source, problem", [
    ("def _f(s, e):\n    return 'x'\n", "str literal"),
    ("def _f(s, e):\n    return b'x'\n", "bytes literal"),
    ("def _f(s, e):\n    return 1.5\n", "float literal"),
    ("def _f(s, e):\n    return open\n", "names 'open'"),
    ("def _f(s, e):\n    return __import__\n", "names '__import__'"),
    ("def _f(s, e):\n    return s.game\n", "attribute 'game'"),
    ("def _f(s, e):\n    return s.__class__\n", "attribute '__class__'"),
    ("def _f(s, e):\n    return e.keys()\n", "attribute 'keys'"),
    ("def _f(s, e):\n    _ids = []\n    return _ids.pop()\n", "attribute 'pop'"),  # (append and sort: allowed)
    ("def _f(s, e):\n    return _k1.__globals__\n", "attribute '__globals__'"),
    ("import os\n", "Import"),
    ("from os import system\n", "ImportFrom"),
    ("def _f(s, e):\n    return lambda: 1\n", "Lambda"),
    ("def _f(s, e):\n    global _x\n", "Global"),
    ("class _C:\n    pass\n", "ClassDef"),
    ("def __init__(s, e):\n    return 1\n", "not an invented name"),
    ("def f(s, e):\n    return 1\n", "not an invented name"),
    ("def _f(s, e):\n    os = 1\n", "not an invented name"),
    ("def _f(s, e, *rest):\n    return 1\n", "plain"),
    ("def _f(s, e, _a=1):\n    return 1\n", "plain"),
    ("def _f(s, e):\n    with _k1:\n        pass\n", "With"),
    ("def _f(s, e):\n    return f'{s}'\n", "JoinedStr"),
    ("def _f(s, e):\n    return {_k1 for _v in s.g}\n", "SetComp"),
    ("def _f(s, e):\n    while 1:\n        pass\n", "While"),
    ("def _f(s, e):\n    try:\n        pass\n    except TypeError as x:\n        pass\n", "not an invented name"),
    ("def _f(s, e):\n    return {_k1, _k1}\n", "Set"),
    ("def _f(s, e):\n    return s.zones.__class__\n", "attribute"),
    ("def _f(s, e):\n    return _k1[1:2]\n", "Slice"),
    ("def _f(s, e):\n    return 0x1f\n", "names 'x1f'"),
    ("def _f(s, e):\n    return 1e5\n", "names 'e5'"),
    ("def _f(s, e):\n    return 2 ** 100\n", "power"),
    ("def _f(s, e):\n    return _k1(*s.g)\n", "Starred"),
    ("def _f(s, e):\n    return 1; _k1()\n", "character ';'"),
    ("def _f(s, e):\n    return 1  # a comment\n", "character '#'"),
    ("def _f(s, e):\n    return \\\n        1\n", "character"),
    ("def _f(s, e):\n    return \uff4f\uff50\uff45\uff4e\n", "character"),  # fullwidth 'open': NFKC makes it a name
    ("def _f(s, e):\n    return _k1 | 2\n", "character '|'"),
    ("def _f(s, e):\n    def _g(s):\n        return 1\n    return _g\n", "top level"),
    ("@_k1\ndef _f(s, e):\n    return 1\n", "character '@'"),
    ("def _f(s, e):\n    return (yield)\n", "Yield"),
    ("def _f(s, e):\n    del e\n", "Delete"),
    ("def _f(s, e):\n    _a = 1\n    *_b, _c = s.g\n", "Starred"),
    ("def _f(s, e):\n    return _k1(_a=1)\n", "keyword argument"),
    ("def _f(s, e):\n    _a: _k1 = 1\n", "AnnAssign"),
    ("def _f(s, e):\n    len = _k1\n", "builtin 'len'"),
    ("def _f(s, e):\n    return (len := 1)\n", "not an invented name"),
    ("def _f(s, e):\n    for len in s.g:\n        pass\n", "not an invented name"),
    ("def _f(s, e):\n    if s.g: return 1\n", "after a colon"),
])
def test_the_verifier_refuses_what_is_not_allowed(source, problem):
    with pytest.raises(CodegenError, match=problem):
        load_unit("test", source, {"_k1": object()})


def test_the_verifier_accepts_the_shapes_the_generator_writes():
    source = ("def _f(s, e):\n    try:\n        return [(None if (_t1 := e[_k1]) is None else _k2[_t1]) "
              "for _v1 in _ch(s, s.zones[3], _k3) if _v1 > 2 and not s.g[0]]\n"
              "    except _errs:\n        return _o(s, e)\n")
    verify(source, {"_k1": "x", "_k2": [], "_k3": None, "_ch": None, "_errs": (), "_o": None})
    ids = "def _e(s, e):\n    _ids = []\n    _add = _ids.append\n    _add(3)\n    _ids.sort()\n    return _ids\n"
    verify(ids, {})


def test_a_line_checked_once_is_checked_again_where_its_context_differs():
    """The verifier remembers lines that passed on their own; inside an open bracket the same
    line is checked again, and a remembered line still counts the builtins it names."""
    assert verify("def _f(s, e):\n    _a = len(e)\n    return _a\n", {}) == {"len"}
    assert verify("def _g(s, e):\n    _a = len(e)\n    return _a\n", {}) == {"len"}
    with pytest.raises(CodegenError, match="keyword argument"):
        verify("def _f(s, e):\n    return _k1(\n    _a = len(e)\n    )\n", {})


def test_namespace_names_must_be_invented():
    with pytest.raises(CodegenError, match="invented"):
        load_unit("test", "def _f(s, e):\n    return 1\n", {"print": print})


def test_generated_code_has_only_the_builtins_it_uses():
    unit = load_unit("test", "def _f(s, e):\n    return len(e)\n", {})
    fn = unit.functions["_f"]
    assert fn(None, [1, 2]) == 2
    assert set(fn.__globals__["__builtins__"]) == {"len"}
    assert fn.__code__.co_filename == "<rulespec generated test>"


# ---------------------------------------------------------------------- the two backends agree


def _cases() -> list[Any]:
    cases = []
    for spec in SPECS:
        game = interpreter.load_game(str(spec))
        for variant in game.variants or [{"name": "defaults", "players": None, "options": {}}]:
            cases.append(pytest.param(spec, variant, id=f"{spec.stem}-{variant['name']}"))
    return cases


def _play(spec: Path, variant: dict[str, Any], mode: str, seeds: range) -> list[Any]:
    with engine_mode(mode):
        game = interpreter.load_game(str(spec), players=variant["players"], options=variant["options"])
        assert game.link.codegen.mode == mode
        return [_run(game, seed) for seed in seeds]


def _run(game: Any, seed: int) -> tuple[list[Any], str, list[Any]]:
    """A random match: each action with the legal actions before it and the budget left after it
    (both engines offer and pay alike), the final state's JSON, and what each player sees of it."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    steps: list[Any] = [state.ops]
    while not state.is_terminal() and len(steps) <= 3000:
        legal = state.legal_actions()
        steps.append([legal, *play_random(state, rng, limit=1), state.ops])
    return steps, state.to_json(), [state.observation(p) for p in range(game.num_players)]


@pytest.mark.parametrize("spec, variant", _cases())
def test_generated_code_plays_exactly_as_the_closures(spec, variant):
    seeds = range(3)
    strict = _play(spec, variant, "strict", seeds)
    closures = _play(spec, variant, "off", seeds)
    assert strict == closures


# slides of every shape in one choice, whose ids are collected in a list (each added once): every
# direction, a longest move, a filter on the piece and on the cell, priority tiers, alternatives
# without parameters, another piece's slides, and rules that give pieces away or change their kind
_SLIDES = """\
rulespec: 1
game: {name: A, players: 2, limits: {actions: 60}}
board: {rows: 5, cols: 5}
pieces:
  rook:
    per_player: 3
    start:
      "2": [[a1, c1, e1], [a5, c5, e5]]
  flag: {per_player: 1}
variables:
  moved: {type: int}
actions:
  slide:
    for: r in pieces(current, 'rook'), to in slides(r, dirs='all', max=2)
    label: "{r} to {to}"
    do: [move r to to, moved += 1]
  diag:
    for: r in pieces(current) if r.cell != none, to in slides(r, dirs='diagonal') if to.row != 2
    priority: 1
    if: moved % 3 == 1
    do: [move r to to, moved += 1]
  other:
    for: r in pieces(current), to in slides(first(pieces(left(current))))
    if: moved % 5 == 2
    do: [moved += 2]
  flip:
    for: r in pieces(current) if r.cell != none and r.cell.col == 2, to in slides(r)
    if: moved % 4 == 3
    do: [r.owner = left(current), moved += 1]
  promote:
    for: r in pieces(current, 'rook'), to in slides(r, max=1)
    if: moved % 7 == 5
    do: [r.kind = 'flag', moved += 1]
  plant:
    for: c in empty_cells() if c.row == 2
    if: count([x for x in pieces(current, 'flag') if x.cell == none]) > 0
    do: [place flag of current at c]
  pass_turn:
    do: [moved += 1]
  wait:
    if: moved > 3
    do: [moved += 1]
round:
  first: player(0)
  turn:
    - choose: [slide, diag, other, flip, promote, pass_turn, wait]
    - if: turn % 5 == 0
      then: [choose: [plant, pass_turn]]
  end_when: turn >= 40
match:
  end_when: round >= 1
"""


def test_slides_of_every_shape_collected_in_a_list_play_and_pay_as_the_closures():
    def played(mode: str) -> list[Any]:
        with engine_mode(mode):
            game = interpreter.game_from_text(_SLIDES)
            if mode == "strict":  # (the case is the list: a choice whose ids are each added once)
                assert any("_ids.sort()" in unit.source for unit in game.link.codegen.units)
            return [_run(game, seed) for seed in range(6)]

    assert played("strict") == played("off")


DEFINES_USED_BEFORE_DECLARED = """
rulespec: 1
game: {name: Order, players: 2}
variables: {n: {type: int, initial: 0}}
define:
  total(x): alpha(x) + bravo(x) + charlie(x) + delta(x) + echo(x) + foxtrot(x)
  alpha(x): x * n + 1
  bravo(x): x * n + 2
  charlie(x): x * n + 3
  delta(x): x * n + 4
  echo(x): x * n + 5
  foxtrot(x): x * n + 6
round:
  turn:
    - choose: {action: go, for: "k in [1, 2]", label: "go {k}", do: [n += total(k)]}
    - if: n > 100
      then: [end game]
match: {returns: {value: "0", min: 0, max: 0}}
"""


def test_the_generated_code_is_the_same_in_every_process(tmp_path):
    """Defines compile in the order their users name them, not in a set's order (string hashes
    change from one process to the next): the units and their numbers are the same everywhere."""
    import os
    import subprocess
    import sys

    spec = tmp_path / "order.yaml"
    spec.write_text(DEFINES_USED_BEFORE_DECLARED)
    shown = set()
    for seed in ("0", "1", "2", "3"):
        run = subprocess.run([sys.executable, "-m", "interpreter", "compile", str(spec), "--show-python"],
                             capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        assert "# unit" in run.stdout
        shown.add(run.stdout)
    assert len(shown) == 1


def test_every_seed_game_generates_code():
    with engine_mode("on"):
        for spec in SPECS:
            game = interpreter.load_game(str(spec))
            assert game.link.codegen.units, spec.name


def test_no_generated_name_shadows_a_name_of_the_namespace():
    """A local of a generated function (``_pc``, a step's program counter; ``_n``, a temp) named
    as a function of the namespace would hide it in that function alone: every unit of every
    seed game is checked."""
    with engine_mode("on"):
        for spec in SPECS:
            for unit in interpreter.load_game(str(spec)).link.codegen.units:
                fn = next(iter(unit.functions.values()))
                nodes = list(ast.walk(ast.parse(unit.source)))
                local = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                local |= {a.arg for n in nodes if isinstance(n, ast.arguments) for a in n.args}
                assert not local & set(fn.__globals__), (spec.name, unit.name, local & set(fn.__globals__))


def _called(game: Any) -> set[int]:
    """The ids of what the game's generated code can call (the values of its namespaces)."""
    return {id(v) for unit in game.link.codegen.units for f in unit.functions.values() for v in f.__globals__.values()}


def _first_action_in_each_engine(spec: Path, generated: Any = None,
                                 mode_on: str = "on") -> list[tuple[Any, Any]]:
    """The first legal action of ``spec`` applied with generated code (``mode_on``: "on", or
    "strict" where no fallback to the closures may hide a wrong function) and with the
    closures only ("off"): each state after it, with the rule error it raised (or None).
    ``generated(game)`` tells whether the code in question was generated (default: any unit)."""
    generated = generated or (lambda game: bool(game.link.codegen.units))
    after = []
    for mode in (mode_on, "off"):
        with engine_mode(mode):
            game = interpreter.load_game(str(spec))
            assert generated(game) == (mode == mode_on), mode
            state = game.new_initial_state(0)
            try:
                state.apply_action(state.legal_actions()[0])
            except interpreter.RuleError as exc:
                after.append((state, exc))
            else:
                after.append((state, None))
    return after


def _position(error: Any) -> tuple[int, int]:
    return error.span.line, error.span.col


def test_an_error_in_generated_code_keeps_the_position_of_the_closure_engine(tmp_path):
    """Python raising inside generated code (a division by zero) is reported as the closure
    engine reports it: the rule's own message at the dividing operation."""
    spec = tmp_path / "div.yaml"
    spec.write_text(_DIVIDING_SPEC)
    for _, error in _first_action_in_each_engine(spec):
        assert "division by zero" in str(error)
        assert _position(error) == _where(_DIVIDING_SPEC, "x // zero")


@pytest.mark.parametrize("dest, message", [
    ("first(pieces(player(1))).cell", "cell b1 already holds a piece"),
    ("none", "the piece or the cell is missing"),
])
def test_a_move_in_line_fails_as_the_closure_engine_fails(tmp_path, dest, message):
    """A piece moved onto another piece, or to no cell: the generated move stops with the
    closure engine's message at the move statement, and leaves the state as it does."""
    spec = tmp_path / "move.yaml"
    spec.write_text(_MOVING_SPEC.replace("DEST", dest))
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec)
    for error in (on_error, off_error):
        assert message in str(error)
        assert _position(error) == _where(_MOVING_SPEC, "move x")
    assert on.to_json() == off.to_json()


@pytest.mark.parametrize("n, message", [
    ("100", None),
    ("10000000", "range(1, 10000001) would have 10,000,000 items, more than the limit of 1,000,000"),
])
def test_a_range_in_generated_code_counts_and_fails_as_the_closure_engine(tmp_path, n, message):
    """`range(a, b)` in generated code: the same numbers and the same cost as the closure
    engine, and a range past the list limit stops at the `range` call with its message."""
    spec = tmp_path / "range.yaml"
    spec.write_text(_RANGE_SPEC.replace("N", n))
    (on, on_error), (off, off_error) = _first_action_in_each_engine(
        spec, lambda game: any("_rg(s, " in unit.source for unit in game.link.codegen.units))
    for state, error in ((on, on_error), (off, off_error)):
        if message is None:
            assert error is None
            assert state.returns()[0] == sum(range(1, 101))
        else:
            assert isinstance(error, interpreter.BudgetError) and message in str(error)
            assert _position(error) == _where(_RANGE_SPEC, "range(")
    assert (on.to_json(), on.ops) == (off.to_json(), off.ops)


@pytest.mark.parametrize("calls, message", [
    # ten different numbers: eight versions of `at`, the other calls by the general function
    (" + ".join(f"at(n, {k})" for k in range(2, 12)), None),
    ("at(n, 0) + at(n, -1)", None),
    # k = 1 folds `k - 1` to 0: the division still fails where the closure engine says
    ("at(n, 2) + at(n, 1)", "division by zero"),
])
def test_a_define_called_with_numbers_has_versions_that_count_as_the_closure_engine(
        tmp_path, calls, message):
    """A define called with whole numbers gets a version of its code with those numbers
    written in and folded (at most eight versions of one define): the same values, the same
    work paid, and the same error at the same position as the closure engine."""
    spec = tmp_path / "versions.yaml"
    spec.write_text(_VERSIONS_SPEC.replace("CALLS", calls))

    def versions(game: Any) -> bool:
        made = [key for key, fn in game.link.codegen._defines.items() if key[0] == "at" and key[1] and fn]
        return len(made) == min(8, len(set(calls.split(" + "))))

    (on, on_error), (off, off_error) = _first_action_in_each_engine(
        spec, versions, "strict" if message is None else "on")
    if message is None:
        assert on_error is off_error is None
        n = 5
        assert on.returns()[0] == sum((n * 2 + k * 2 * 3 + k * 7) // (k - 1) for k in
                                      [int(c.strip(")").split(", ")[1]) for c in calls.split(" + ")])
    else:
        for error in (on_error, off_error):
            assert message in str(error)
            assert _position(error) == _where(_VERSIONS_SPEC, "(twice(x) +")  # the division starts there
    assert on.to_json() == off.to_json()
    if message is None:  # (after an error the closure engine runs the expression again, paying again)
        assert on.ops == off.ops


@pytest.mark.parametrize("flag", ["true", "false"])
@pytest.mark.parametrize("op", ["and", "or"])
def test_an_option_on_the_left_of_and_or_decides_as_in_the_closure_engine(tmp_path, flag, op):
    """`option.flag and ...` / `option.flag or ...`: generated code writes the known answer,
    or only the right side, and the right side runs (here: fails) exactly when the closure
    engine runs it."""
    spec = tmp_path / "flag.yaml"
    text = _FLAG_SPEC.replace("FLAG", flag).replace("OP", op)
    spec.write_text(text)
    runs_right = (flag == "true") == (op == "and")
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec)
    for error in (on_error, off_error):
        if runs_right:
            assert "division by zero" in str(error)
            assert _position(error) == _where(text, "1 // zero")
        else:
            assert error is None
    assert on.to_json() == off.to_json()
    if not runs_right:
        assert on.returns()[0] == (1 if op == "or" else 2)


def _one_action_spec(head: str, steps: str, match: str = "match: {}") -> str:
    """A two-player game of one action, `go`, doing ``steps`` (lines of the `do:` list)."""
    indented = "".join(f"          {line}\n" for line in steps.splitlines())
    return (f"rulespec: 1\n{head}\nround:\n  first: player(0)\n  turn:\n    - choose:\n        action: go\n"
            f"        label: go\n        do:\n{indented}{match}\n")


def _where(spec: str, text: str) -> tuple[int, int]:
    """The line and column (from 1) of the first ``text`` in ``spec``."""
    for number, line in enumerate(spec.splitlines(), 1):
        if text in line:
            return number, line.index(text) + 1
    raise AssertionError(f"{text!r} is not in the spec")


_RANGE_SPEC = _one_action_spec("game: {name: Counter, players: 2}", """\
- let n = N
- for: p in players
  do:
    - p.score = sum(k for k in range(1, n + 1))
- end game""", 'match:\n  returns: {value: "p.score", min: 0, max: 5050}')

_LISTS_SPEC = _one_action_spec("""\
game: {name: Lists, players: 2}
variables:
  xs: {type: players, initial: []}""", """\
- xs = [p for p in players]
- for: k in range(1, N)
  do: [xs += xs]
- xs -= [player(0)]
- xs += [player(1)]
- for: p in players
  do:
    - p.score = count(xs)
- end game""", 'match:\n  returns: {value: "p.score", min: 0, max: 2000000}')


@pytest.mark.parametrize("n, message", [
    ("2", None),
    ("11", None),
    ("30", "this rule ran away"),
])
def test_a_list_variable_set_in_line_pays_and_grows_as_in_the_closure_engine(tmp_path, n, message):
    """A variable set to, grown by and cut by lists in generated code: the same list, the same
    cost (long lists are paid for) and the same error at the same statement past the list limit."""
    spec = tmp_path / "lists.yaml"
    spec.write_text(_LISTS_SPEC.replace("N", n))
    (on, on_error), (off, off_error) = _first_action_in_each_engine(
        spec, lambda game: any("_lim, " in unit.source and "list(_t" in unit.source
                                            for unit in game.link.codegen.units))
    for state, error in ((on, on_error), (off, off_error)):
        if message is None:
            assert error is None
            # 2 players doubled n - 1 times, less player(0)'s half, and one more
            assert state.returns()[0] == 2 ** (int(n) - 1) + 1
        else:
            assert isinstance(error, interpreter.BudgetError) and message in str(error)
            assert _position(error) == _where(_LISTS_SPEC, "xs += xs")
    assert (on.to_json(), on.ops) == (off.to_json(), off.ops)


_ENDS_SPEC = _one_action_spec("""\
game: {name: Ends, players: 2}
cards:
  name: "{value}"
  list:
    - family: {value: "1..5"}
zones:
  deck: {visibility: public}
  out: {visibility: public}""", """\
- for: p in players
  do:
    - p.score = top(deck).value * 10 + bottom(deck).value
- move all deck to out
- current.score += 0 if bottom(deck) == none and top(deck) == none else 1
- end game""", 'match:\n  setup: [move all cards to deck, SHUFFLE]\n  returns: {value: "p.score", min: 0, max: 100}')


@pytest.mark.parametrize("shuffle", ["shuffle out", "shuffle deck"])
def test_top_and_bottom_in_line_read_as_the_closure_engine(tmp_path, shuffle):
    """`top(zone)` and `bottom(zone)` written in line: the same cards (none for an empty zone),
    and a shuffled zone's end is the closure engine's error at the same place."""
    spec = tmp_path / "ends.yaml"
    spec.write_text(_ENDS_SPEC.replace("SHUFFLE", shuffle))
    (on, on_error), (off, off_error) = _first_action_in_each_engine(
        spec, lambda game: any("if s.shuffled[" in unit.source for unit in game.link.codegen.units))
    for state, error in ((on, on_error), (off, off_error)):
        if shuffle == "shuffle out":
            assert error is None
            assert state.returns()[0] == 5 * 10 + 1  # the last card moved is on top, the first at the bottom
        else:
            assert isinstance(error, interpreter.RuleError) and "the top card of a shuffled zone" in str(error)
            assert _position(error) == _where(_ENDS_SPEC, "top(deck).value")
    assert (on.to_json(), on.ops) == (off.to_json(), off.ops)


_VERSIONS_SPEC = _one_action_spec("""\
game: {name: Versions, players: 2}
define:
  twice(k): k * 2
  at(x, k): (twice(x) + twice(k) * 3 + k * 7) // (k - 1)""", """\
- let n = 5
- for: p in players
  do:
    - p.score = CALLS
- end game""", 'match:\n  returns: {value: "p.score", min: -1000, max: 1000}')

_FLAG_SPEC = _one_action_spec("""\
game: {name: Flag, players: 2}
options:
  flag: {type: bool, default: FLAG}
variables:
  zero: {type: int, initial: 0}""", """\
- for: p in players
  do:
    - p.score = 1 if (option.flag OP 1 // zero == 0) and p.seat >= 0 else 2
- end game""", 'match:\n  returns: {value: "p.score", min: 0, max: 2}')

_MOVING_SPEC = _one_action_spec("""\
game: {name: Mover, players: 2}
board: {rows: 2, cols: 2}
pieces:
  pawn: {per_player: 1, start: {"2": [[a1], [b1]]}}""", """\
- let x = first(pieces(current))
- move x to DEST
- end game""")

# a game of one action whose body is `x = x + 1`, then `if: x > 0`, its branch ``then``
# (indented lines), then `end game`; the variable `zero` holds 0
_dividing = lambda then: _one_action_spec("""\
game: {name: Div, players: 2}
variables:
  zero: {type: int, initial: 0}
  x: {type: int, initial: 0}""", "- x = x + 1\n- if: x > 0\n  then:\n" + then + "\n- end game")

_DIVIDING_SPEC = _dividing("""\
    # a tree large enough to be generated, dividing by zero
    - x = (x + 1) * 2 + x // zero""")


_PLACING_SPEC = _one_action_spec("""\
game: {name: Placer, players: 2}
board: {rows: 2, cols: 2}
pieces:
  pawn: {per_player: 2, start: {"2": [[a1], [b1]]}}""", """\
- place pawn of first([q for q in players if q == current]) at CELL
- place pawn of first([q for q in players if q == current]) at cell('b2')
- end game""", 'match:\n  returns: {value: "count([x for x in pieces(p) if x.cell != none])", min: 0, max: 2}')


_LONE_BRANCH_SPEC = _dividing("""\
    # a branch that is one choice (entered with no frame of its own), whose options divide by zero
    - choose:
        action: pick
        for: k in range(0, 3) if k // zero >= 0
        label: pick {k}""")


def test_an_error_entering_a_branch_that_is_one_choice_keeps_its_position(tmp_path):
    """A branch made of one choice is entered with no frame for the branch: an error in the
    choice's options is still reported where the closure engine reports it, alike in both."""
    spec = tmp_path / "lone.yaml"
    spec.write_text(_LONE_BRANCH_SPEC)
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec)
    for error in (on_error, off_error):
        assert "division by zero" in str(error)
        assert _position(error) == _where(_LONE_BRANCH_SPEC, "k // zero")
    assert on.to_json() == off.to_json()


@pytest.mark.parametrize("cell, message", [
    ("cell('a2')", "player 0 has no pawn left to place"),  # pawns on a1 and a2: none left for b2
    ("cell('b1')", "cell b1 already holds a piece"),
    ("none", "cannot place a pawn: the cell is missing (none)"),
])
def test_a_place_in_line_fails_as_the_closure_engine_fails(tmp_path, cell, message):
    """A piece placed in line (as Python reads the player's pieces, not a closure) stops with
    the closure engine's message at the same statement, and leaves the state as it does, the
    budget included (its owner, a comprehension, is paid for once)."""
    spec = tmp_path / "place.yaml"
    text = _PLACING_SPEC.replace("CELL", cell)
    spec.write_text(text)
    in_line = lambda game: "s.piece_cell[" in game.link.codegen.source()
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec, in_line, "strict")
    where = _where(text, "at " + ("cell('b2')" if cell == "cell('a2')" else cell))
    where = (where[0], _where(text, "place pawn")[1])
    for error in (on_error, off_error):
        assert message in str(error)
        assert _position(error) == where
    assert on.to_json() == off.to_json() and on.ops == off.ops  # (the budget paid once, as the closure pays it)


def test_a_place_in_line_places_as_the_closure_engine(tmp_path):
    spec = tmp_path / "place.yaml"
    spec.write_text(_PLACING_SPEC.replace("per_player: 2", "per_player: 3").replace("CELL", "cell('a2')"))
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec, None, "strict")
    assert on_error is None and off_error is None
    assert on.returns() == off.returns() == [3, 1]
    assert on.to_json() == off.to_json() and on.ops == off.ops


_TAKING_SPEC = _one_action_spec("""\
game: {name: Taker, players: 2}
cards:
  name: "{value}"
  list:
    - family: {value: "1..4"}
zones:
  deck: {visibility: public}
  hand: {per: player, visibility: owner}
  table: {visibility: public}""", """\
- let nobody = first([p for p in players if p.score > 99])
- move END SOURCE to hand(nobody)
- end game""")


@pytest.mark.parametrize("end", ["top", "bottom", "random"])
@pytest.mark.parametrize("source, message", [("table", None), ("deck", "hand(...) of a missing value (none)")])
def test_a_card_taken_from_an_end_in_line_finds_its_destination_only_when_there_is_a_card(
        tmp_path, end, source, message):
    """`move top Z to D` in line: D is evaluated once a card is taken, as the closure engine
    does, so a missing destination fails only when Z has a card."""
    spec = tmp_path / "take.yaml"
    text = _TAKING_SPEC.replace("END", end).replace("SOURCE", source)
    spec.write_text(text)
    in_line = lambda game: "_mvc(s, " in game.link.codegen.source()
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec, in_line, "strict")
    for error in (on_error, off_error):
        if message is None:
            assert error is None
        else:
            assert message in str(error)
            assert _position(error) == _where(text, "hand(nobody)")
    assert on.to_json() == off.to_json()


_ENDS_AND_LINES = """\
rulespec: 1
game: {name: Ends, players: 2, limits: {actions: 30}}
cards:
  name: "{value}"
  list:
    - family: {value: "1..12"}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {visibility: public}
board: {rows: 4, cols: 4}
pieces:
  mark: {per_player: 8}
variables:
  k: {type: int, initial: 2}
round:
  setup: [shuffle deck]
  first: player(0)
  turn:
    - choose:
        action: mark
        for: c in empty_cells()
        label: "{c}"
        do:
          - place mark of current at c
          - move top deck to hand(current) face up
          - move bottom hand(current) to table at bottom
          - if: count(table) > 3
            then: [move random table to hand(current) face down, move top table to hand(current)]
          - if: line(current, k) and k < 4
            then: [k += 1, current.score += k]
          - emit rows(mine=line(current, 4), first=line(player(0), 4), diagonal=line(player(1), 4))
          - if: line(current, k + 1) or count(empty_cells()) == 0
            then: [end game]
match:
  returns: {value: "p.score", min: 0, max: 100}
"""


def test_moves_from_an_end_and_lines_of_any_length_play_alike_in_both_engines(tmp_path):
    """`move top|bottom|random` with a facing and `at bottom`, and `line` with a length known
    only in play, or known now and its ten runs tested in line, generated in line: the same
    games as the closures (strict: no fallback)."""
    spec = tmp_path / "ends.yaml"
    spec.write_text(_ENDS_AND_LINES)
    variant = {"players": 2, "options": {}}
    on = _play(spec, variant, "strict", range(6))
    with engine_mode("strict"):
        source = interpreter.load_game(str(spec)).link.codegen.source()
    assert "_mvc(s, " in source and "s.piece_cell[" in source  # (the moves and the place in line)
    assert source.count("s.piece_owner) is not None") == 3  # (the three lines of four: runs in line)
    assert on == _play(spec, variant, "off", range(6))
    assert any(json.loads(state)["total"] != [0, 0] for _, state, _ in on)  # some line was made
    rows = [e for _, state, _ in on for e in json.loads(state)["events"] if e["type"] == "rows"]
    assert any(e["mine"] for e in rows) and any(e["first"] for e in rows) and any(e["diagonal"] for e in rows)


def _rows_spec(size: int, lines: str) -> str:
    """A game on a size x size board whose one action emits `rows` with the fields ``lines``."""
    return _one_action_spec(f"""\
game: {{name: Rows, players: 2}}
board: {{rows: {size}, cols: {size}}}
pieces:
  mark: {{per_player: {2 * size}}}""", f"""\
- emit rows({lines})
- end game""")


def _rows_after(state: Any) -> dict[str, Any]:
    """The `rows` event of the one action, played in ``state``."""
    state.apply_action(state.legal_actions()[0])
    return next(e for e in state.events if e["type"] == "rows")


@pytest.mark.parametrize("mode", ["strict", "off"])
def test_a_line_tested_run_by_run_in_line_finds_every_run(mode):
    """`line(p, 4)` on a 4x4 board (ten runs, tested in line in generated code): a seat's pieces
    on every cell of a run make a line for that seat and not for the other, whichever run and
    seat it is; on all of them but one, no line."""
    with engine_mode(mode):
        game = interpreter.game_from_text(_rows_spec(4, "zero=line(player(0), 4), one=line(player(1), 4)"))
        runs = game.link.board.windows(4)
        assert len(runs) == 10 and (mode == "off") == ("s.piece_owner) is not None" not in game.link.codegen.source())
        seen, expected = [], []
        for seat in (0, 1):
            for run in runs:
                for missing in (None, *run):
                    state = game.new_initial_state(0)
                    pieces = [x for x, owner in enumerate(state.piece_owner) if owner == seat]
                    for x, cell in zip(pieces, [c for c in run if c != missing]):
                        state.cell_piece[cell], state.piece_cell[x] = x, cell
                    event = _rows_after(state)
                    seen.append((event["zero"], event["one"]))
                    expected.append((seat == 0 and missing is None, seat == 1 and missing is None))
        assert seen == expected and expected.count((True, False)) == expected.count((False, True)) == 10


@pytest.mark.parametrize("mode", ["strict", "off"])
def test_a_line_of_no_cells_is_made_and_one_of_one_cell_needs_a_piece(mode):
    """`line(p, 0)` holds on any board (a run of no cells is all p's), as line_of says, also on a
    board small enough for its runs to be tested in line; `line(p, 1)` needs one of p's pieces."""
    with engine_mode(mode):
        game = interpreter.game_from_text(_rows_spec(2, "none=line(player(0), 0), one=line(player(1), 1)"))
        assert _rows_after(game.new_initial_state(0)) == {"type": "rows", "none": True, "one": False}


_CELLS_AFTER_ANOTHER_ACTION = """\
rulespec: 1
game: {name: Offset, players: 2}
board: {rows: 3, cols: 4}
pieces:
  mark: {per_player: 6}
variables:
  k: {type: int, initial: 0}
round:
  first: player(0)
  turn:
    - k += 1
    - if: k % 3 == 0
      then:
        - choose:
            action: skip
            label: skip
            do: [current.score += 1]
      else:
        - choose:
            by: current
            action: mark
            for: c in empty_cells()
            label: "m{c.row}{c.col}"
            do:
              - place mark of current at c
              - if: line(current, 3)
                then: [current.score += 5, end game]
          else: [end game]
    - if: count(empty_cells()) == 0
      then: [end game]
match:
  returns: {value: "p.score", min: 0, max: 20}
"""


def test_a_choice_of_an_empty_cell_lists_its_ids_after_another_actions(tmp_path):
    """The ids of a choice of one empty cell, listed in the order of the cells, start where its
    action's ids start (after `skip`'s), with `by:` and an `else`: the same games as the closures."""
    spec = tmp_path / "offset.yaml"
    spec.write_text(_CELLS_AFTER_ANOTHER_ACTION)
    variant = {"players": 2, "options": {}}
    strict = _play(spec, variant, "strict", range(20))
    with engine_mode("strict"):
        assert re.search(r"_ids = \[1 \+ _v[0-9]+ for ", interpreter.load_game(str(spec)).link.codegen.source())
    assert strict == _play(spec, variant, "off", range(20))
    assert any(step[1] == 0 for steps, _, _ in strict for step in steps[1:])  # (skip, id 0, was played)


@pytest.mark.parametrize("spec, players", [("highhand.yaml", 4), ("highhand.yaml", 2), ("tictactoe.yaml", 2),
                                           ("reversi.yaml", 2), ("backgammon.yaml", 2)])
def test_options_found_in_line_pay_the_budget_as_the_closures_do(spec, players):
    """The budget left after every action is the same in strict generated code and in the
    closures: options found in line (a piece's slides walked without a list, empty cells
    tested one by one) pay what the reference pays; so do defines (backgammon's returns call
    `worth`, which calls others but is a constant for the default scoring: free in both)."""
    traces = []
    for mode in ("strict", "off"):
        with engine_mode(mode):
            game = interpreter.load_game(str(GAMES / spec), players=players)
            trace = []
            for seed in range(2):
                state = game.new_initial_state(seed)
                rng = random.Random(seed)
                while not state.is_terminal() and len(trace) < 400:
                    if state.is_chance_node():
                        state.apply_action(state.sample_chance_outcome(rng))
                    else:
                        state.apply_action(rng.choice(state.legal_actions()))
                    trace.append((state.history[-1], state.ops))
            traces.append(trace)
    assert traces[0] == traces[1]


_CALLING_SPEC = _one_action_spec("""\
game: {name: Caller, players: 2}
variables:
  zero: {type: int, initial: 0}
  n: {type: int, initial: 0}
procedures:
  one(x):
    - n = n + 10 // (x - x)
  two(x):
    - n += x
    - n = n + 20 // (x - x)
  nested(x):
    - if: x > 0
      then:
        - n += x
        - n = n + 30 // zero""", """\
- n += 1
- call PROC(n + 1)
- end game""")


@pytest.mark.parametrize("proc, where", [
    ("one", "10 // (x - x)"),
    ("two", "20 // (x - x)"),
    ("nested", "30 // zero"),
])
def test_a_procedure_written_in_line_fails_where_the_closures_fail(tmp_path, proc, where):
    """A small procedure is written in line where it is called, its parameters Python locals:
    a division by zero in it is reported where the closure engine reports it, with the same
    state and budget."""
    text = _CALLING_SPEC.replace("PROC", proc)
    spec = tmp_path / "call.yaml"
    spec.write_text(text)
    in_line = lambda game: "{**e, " in game.link.codegen.source()  # (a parameter, a Python local, joins e)
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec, in_line)
    for error in (on_error, off_error):
        assert "division by zero" in str(error)
        assert _position(error) == _where(text, where)  # at the division, in the procedure
    assert str(on_error) == str(off_error)
    assert on.to_json() == off.to_json() and on.ops == off.ops


def test_a_one_statement_procedure_written_in_line_fails_at_its_call():
    """A procedure of one statement (and no end check) reports a failure of its own at the
    call, as the closure engine does; written in line, it still does."""
    text = _CALLING_SPEC.replace("call PROC(n + 1)", "call compare(missing)").replace(
        "procedures:\n", "procedures:\n  compare(x):\n    - if: x < 3\n      then: [n += 1]\n").replace(
        "  n: {type: int, initial: 0}\n", "  n: {type: int, initial: 0}\n  missing: {type: int, initial: none}\n")
    failures = []
    for mode in ("off", "on", "strict"):
        with engine_mode(mode):
            game = interpreter.game_from_text(text)
            assert mode == "off" or re.search(r"\(_t[0-9]+ < 3\)", game.link.codegen.source())  # (x: a Python local)
            state = game.new_initial_state(0)
            with pytest.raises(interpreter.RuleError) as failure:
                state.apply_action(0)
            failures.append((str(failure.value), _position(failure.value)))
    assert failures[0] == failures[1] == failures[2]
    assert failures[0][1] == _where(text, "call compare(missing)") and "cannot compare none" in failures[0][0]


_LONE_WHILE_SPEC = """\
rulespec: 1
game: {name: Counting, players: 2, limits: {actions: 20}}
variables: {n: {type: int, initial: 0}}
round:
  first: player(0)
  turn:
    - choose:
        - {action: count, label: count, do: [{while: "n < 3", do: ["n += 1"]}]}
        - {action: stop, label: stop, do: [end game]}
match: {}
"""


@pytest.mark.parametrize("mode_on", ["on", "strict"])
def test_a_body_that_is_one_while_of_one_statement_runs_in_generated_code(tmp_path, mode_on):
    """A `while` whose body records no position, alone in a body that records none either: the
    generated code reads no position it never set (it raised NameError, raw) and counts as
    the closures do."""
    spec = tmp_path / "while.yaml"
    spec.write_text(_LONE_WHILE_SPEC)
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec, mode_on=mode_on)
    assert on_error is None and off_error is None
    assert on.g == off.g == [3] and on.to_json() == off.to_json()


_RECURSIVE_SPEC = _one_action_spec("""\
game: {name: Deep, players: 2}
variables:
  n: {type: int, initial: 0}
procedures:
  down(x):
    - n += 1
    - call down(x + 1)""", """\
- call down(0)
- end game""")


def test_a_procedure_calling_itself_stops_at_the_same_depth_in_both_engines(tmp_path):
    """A procedure that calls itself without end: every call of it waits (the checker cannot
    tell it will not), so each level is a frame, in generated code as in the closures, and
    both stop at the bound on frames with the same state and budget."""
    spec = tmp_path / "deep.yaml"
    spec.write_text(_RECURSIVE_SPEC)
    (on, on_error), (off, off_error) = _first_action_in_each_engine(spec)
    for error in (on_error, off_error):
        assert isinstance(error, interpreter.BudgetError) and "nest more than 10,000 blocks deep" in str(error)
        assert _position(error) == _where(_RECURSIVE_SPEC, "call down(x + 1)")
    # the match, its round and phase, and the action's body hold 4 frames (a turn that is one
    # choice has no frame of its own): 9,996 levels
    assert off.g == [10_000 - 4] and len(off.stack) == 10_000
    assert on.to_json() == off.to_json() and on.ops == off.ops


# ---------------------------------------------------------------------- injection

# the texts of the corpus spec tests/hostile/specs/run_python_injection.yaml: in its names,
# texts (inside expressions: as the language's strings), card names and attributes, seat
# names and labels
_INJECTIONS = [
    "__import__('os').system('touch PWNED')",
    "'); import os; os.system('touch PWNED'); ('",
    '"""; open("PWNED", "w"); """',
    "\\n    import os\\n",
    "{__import__('os')}",
]


INJECTION_SPEC = Path(__file__).parent / "hostile" / "specs" / "run_python_injection.yaml"


def test_no_text_of_a_hostile_spec_reaches_the_generated_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "inject.yaml"  # a copy: the game's folder is where the test may write
    spec.write_text(INJECTION_SPEC.read_text())
    with engine_mode("on"):
        game = interpreter.load_game(str(spec))
        assert game.link.seat_names == _INJECTIONS[:3]  # the corpus spec holds the texts above
        source = game.link.codegen.source()
        assert game.link.codegen.units and "def _g(" in source  # its defines were generated
        for unit in game.link.codegen.units:
            tree = ast.parse(unit.source)
            assert not [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        for text in [*_INJECTIONS, "__import__", "__class__", "__globals__", "os_system", "exec(", "PWNED", "import"]:
            assert text not in source, text
        state = game.new_initial_state(1)
        play_random(state, random.Random(1), limit=200)
        assert state.is_terminal()
        assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()
        labels = [state.game.new_initial_state(1).action_to_string(a)
                  for a in game.new_initial_state(1).legal_actions()]
        assert all(_INJECTIONS[0] in label for label in labels)  # the texts are data, shown as written


def test_rulespec_compile_shows_the_generated_python(capsys):
    out, err = io.StringIO(), io.StringIO()
    status = main(["compile", str(GAMES / "reversi.yaml"), "--show-python"], out=out, err=err)
    assert status == 0, err.getvalue()
    text = out.getvalue()
    assert "# unit d0" in text and "def _g(s, " in text
    ast.parse(text)  # a reader can also run it through Python tools
    out = io.StringIO()
    assert main(["compile", str(GAMES / "highjack.yaml"), "--players", "4"], out=out, err=err) == 0
    assert "ready for 4 players" in out.getvalue()


@pytest.mark.parametrize("refused", ["", "d", "e", "b", "s", "n", "r", "h"])
def test_a_unit_python_cannot_compile_falls_back_to_the_closures(refused, monkeypatch):
    """Python has limits of its own (nesting of parentheses, blocks, recursion while
    compiling): a unit it refuses is not an error, the closure runs instead. ``refused``:
    the kind of unit refused (d defines, e expressions, b blocks, s steps, n a choice's
    entry, r a choice's resolution, h the heuristic of every seat; all)."""
    from interpreter import pycode

    def refuse(name: str, source: str, namespace: dict) -> Any:
        if name.startswith(refused):
            raise RecursionError("too deep")
        return pycode.load_unit(name, source, namespace)

    spec = GAMES / "highjack.yaml"
    variant = {"name": "4p", "players": 4, "options": {}}
    expected = _play(spec, variant, "off", range(2))
    monkeypatch.setattr(codegen, "load_unit", refuse)
    with engine_mode("strict"):
        game = interpreter.load_game(str(spec), players=4)
        kinds = {unit.name[0] for unit in game.link.codegen.units}
        assert kinds == (set() if not refused else {"d", "e", "b", "s", "n", "r", "h"} - {refused})
        assert [_run(game, seed) for seed in range(2)] == expected


@pytest.mark.parametrize("args, status, message", [
    (["--players", "99"], 2, "is played by 2 to 8 players, not 99"),
    (["-O", "nope=1"], 2, "has no option 'nope'"),
])
def test_rulespec_compile_reports_a_bad_player_count_or_option(args, status, message):
    out, err = io.StringIO(), io.StringIO()
    assert main(["compile", str(GAMES / "highjack.yaml"), *args], out=out, err=err) == status
    assert message in err.getvalue() and out.getvalue() == ""


def test_rulespec_compile_reports_an_invalid_spec(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text("rulespec: 1\ngame: {name: Bad, players: 2}\nround:\n  turn: [x = ]\nmatch: {}\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["compile", str(spec)], out=out, err=err) == 1
    assert err.getvalue().startswith(f"{spec}:4:") and out.getvalue() == ""


_FAILING = """\
rulespec: 1
game: {name: Failing, players: 2, limits: {actions: 50}}
variables:
  n: {type: int, initial: 0}
  leader: {type: player, initial: none}
round:
  first: player(0)
  turn:
    - choose:
        - action: flat
          label: flat
          do:
            - n += 1
            - if: leader.score > 0
              then: [n += 1]
        - action: nested
          label: nested
          do:
            - if: n >= 0
              then:
                - n += 1
                - if: leader.score > 0
                  then: [n += 2]
        - action: single
          label: single
          do:
            - if: n >= 0
              then:
                - if: leader.score > 0
                  then: [n += 2]
        - action: later
          label: later
          do: [n += 1]
    - n += 1
    - if: n > 1 and leader.score > 0
      then: [end game]
match: {}
"""


@pytest.mark.parametrize("action", ["flat", "nested", "single", "later"])
def test_python_errors_in_generated_blocks_are_reported_where_the_closures_report_them(action):
    """A rule failing with a Python error (ordering a missing value) inside a generated block,
    a nested branch, a one-statement branch or the resumable turn: the same message at the
    same statement as with the closures alone."""
    reports = []
    for mode in ("off", "strict", "on"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_FAILING)
            state = game.new_initial_state(0)
            labels = {state.action_to_string(a): a for a in state.legal_actions()}
            with pytest.raises(interpreter.RuleError) as caught:
                state.apply_action(labels[action])
            reports.append((str(caught.value), caught.value.span.line, caught.value.span.col))
    assert reports[0] == reports[1] == reports[2]
    assert "this rule failed" in reports[0][0]


_NONE_AS_BOOL = """\
rulespec: 1
game: {name: NoneBool, players: 2, limits: {actions: 20}}
cards:
  attributes:
    hot: {type: bool}
  list:
    - {name: Ember, hot: true, copies: 2}
zones:
  deck: {visibility: public}
variables:
  picked: {type: card, initial: none}
  n: {type: int, initial: 0}
  flag: {type: bool, initial: true}
round:
  first: player(0)
  turn:
    - choose:
        action: go
        label: go
        do:
          - n += 1
          - flag = picked.hot and n > 0
          - emit seen(flag=flag, other=n > 0 or picked.hot)
          - end game
match: {}
"""


def test_and_or_give_a_bool_even_when_an_operand_is_a_missing_value():
    """`picked.hot and ...` with no card picked: the closures give false, never none (an
    operand typed bool may still be none at run time)."""
    results = []
    for mode in ("off", "strict"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_NONE_AS_BOOL)
            state = game.new_initial_state(0)
            state.apply_action(state.legal_actions()[0])
            results.append((state.to_json(), [e for e in state.events if e["type"] == "seen"]))
    assert results[0] == results[1]
    assert results[0][1][0]["flag"] is False


_ITERABLE_WITH_TEMPORARIES = """\
rulespec: 1
game: {name: Near, players: 2, limits: {actions: 20}}
board: {rows: 2, cols: 2}
pieces:
  stone: {per_player: 2}
define:
  near: "any(n != none for n in [cell(0, 1), cell(5, 5)])"
  free: "count(c for c in [cell(0, 0), cell(1, 1)] if piece_at(c) == none)"
round:
  first: player(0)
  turn:
    - choose:
        action: put
        for: c in [cell(0, 0), cell(1, 0)]
        if: near and free > 0
        label: put {c}
        do: [place stone of current at c, end game]
match: {}
"""


def test_an_iterable_that_needs_temporaries_is_generated():
    """`[cell(r, c)]` as a comprehension's or a choice's list: the generated code names
    temporaries (assignment expressions), which Python refuses in a comprehension's iterable;
    the generator evaluates such a list before the loop instead of giving up on the unit."""
    results = []
    for mode in ("off", "strict"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_ITERABLE_WITH_TEMPORARIES)
            if mode == "strict":
                names = {unit.name[0] for unit in game.link.codegen.units}
                assert {"d", "n"} <= names  # both defines and the choice's entry (its options) were generated
                assert len([u for u in game.link.codegen.units if u.name.startswith("d")]) == 2
            state = game.new_initial_state(0)
            legal = state.legal_actions()
            state.apply_action(legal[0])
            results.append((legal, state.to_json()))
    assert results[0] == results[1] and len(results[0][0]) == 2


_GRID = """\
rulespec: 1
game: {name: T, players: 2, limits: {actions: 9}}
board: {rows: 3, cols: 3}
pieces:
  mark: {per_player: 5}
round:
  first: player(0)
  turn:
%s
match:
  returns: {value: "0", min: -1, max: 1}
"""

# a choice whose only option is a missing cell (none is never an action id: `0 + none` fails as
# in the reference); a `for` whose filter fails on its second pass, after its body's statements
# recorded their positions (the failure is the outer `for`'s, as in the reference)
_FAILING_TURNS = {
    "none as an option": """\
    - choose:
        action: mark
        for: c in [cell(0, 5)]
        do: [place mark of current at c, end game]""",
    "a filter failing on the second pass": """\
    - for: x in [0, 5]
      do:
        - for: y in [1] if cell(0, x).row < 1
          do:
            - current.score += 1
            - current.score += 2
    - end game""",
    # a `while` written in line: its condition failing on the second pass, after the body's
    # statements recorded their positions, is the `while`'s failure; a bound reached is its error
    "a while condition failing on the second pass": """\
    - while: cell(0, current.score * 5).row < 1
      max: 5
      do:
        - current.score += 1
        - current.score += 2
    - end game""",
    # the ids of a piece's slides collected as a list (each once): a filter failing on one of
    # them (the cell b3's column) is the reference's failure, worded by the reference
    "a slide's filter failing": """\
    - place mark of current at cell(1, 1)
    - choose:
        action: mark
        for: x in pieces(current), c in slides(x) if 1 // (c.col - 2) > -5
        do: [end game]""",
    "a while past its bound": """\
    - while: current.score < 100
      max: 3
      do:
        - current.score += 1
        - current.score += 0
    - end game""",
}


@pytest.mark.parametrize("case", sorted(_FAILING_TURNS))
def test_generated_code_fails_where_and_as_the_closures_fail(case):
    failures = []
    for mode in ("off", "on"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_GRID % _FAILING_TURNS[case])
            with pytest.raises(interpreter.RuleError) as failure:
                game.new_initial_state(0)
            failures.append(str(failure.value))
    assert failures[0] == failures[1]


def test_a_piece_can_slide_exactly_when_it_has_slides():
    """`count(slides(x)) > 0` is generated as `slides_any` (the first cell of each ray): on
    random boards it agrees with the list of slides, whatever the directions and the longest move;
    and the slides along rays cut to the longest move are those counted step by step."""
    from interpreter.builtins import slides_any, slides_of

    game = interpreter.load_game(str(GAMES / "highhand.yaml"), players=4)
    rng = random.Random(3)
    board = game.link.board
    for _ in range(300):
        state = game.new_initial_state(rng.randrange(1000))
        cells = rng.sample(range(board.size), rng.randrange(1, 5))
        state.cell_piece = [-1] * board.size
        for piece, cell in enumerate(cells):
            state.piece_cell[piece] = cell
            state.cell_piece[cell] = piece
        for dirs, rays in board.rays.items():
            for steps in (0, 1, 2, 3, 5, 10**9):
                within = board.rays_within(dirs, steps)
                for piece in range(len(cells)):
                    found = slides_of(state, piece, within)
                    assert found == _slides_counted(state, piece, rays, steps), (dirs, steps, cells, piece)
                    assert slides_any(state, piece, within) == (len(found) > 0), (dirs, steps, cells, piece)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 7), (3, 3), (6, 6), (5, 9)])
def test_no_two_rays_of_a_cell_share_a_cell(rows, cols):
    """What lets a choice of slides collect its ids in a list, each once (``_distinct_ids``)."""
    from interpreter.board import Board

    board = Board(rows, cols)
    for dirs in board.rays:
        for steps in (1, 2, 10**9):
            for cell_rays in board.rays_within(dirs, steps):
                reached = [cell for ray in cell_rays for cell in ray]
                assert len(set(reached)) == len(reached), (dirs, steps, cell_rays)


def _slides_counted(state: Any, piece: int, rays: Any, steps: int) -> list:
    """The slides by their definition: along each whole ray, a step at a time, at most ``steps``."""
    at = state.piece_cell[piece]
    out: list = []
    for ray in rays[at] if at >= 0 else ():
        for k, c in enumerate(ray):
            if k >= steps or state.cell_piece[c] >= 0:
                break
            out.append(c)
    return out


_EMITTING = """\
rulespec: 1
game: {name: E, players: 2, limits: {actions: 12}}
cards:
  name: "{value}"
  list:
    - family: {value: "1..6"}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {visibility: public}
round:
  setup: [shuffle deck, deal 3 from deck to hand]
  first: player(0)
  turn:
    - choose:
        action: play
        for: c in hand(current)
        label: "{c}"
        do:
          - move c to table
          - >-
            emit played(player=current, card=c, value=c.value, table=table, seen=[c, c],
            maybe=[c, first([x for x in hand(current) if x.value > 99])],
            nested=[[1, 2], [c.value]], left=count(hand(current)), who=[p for p in players], note='a note')
          - emit tick
          - emit mine(hand=hand(current)) to current
          - if: count(hand(current)) == 0 and current == player(1)
            then: [end game]
match:
  returns: {value: "0", min: -1, max: 1}
"""


@pytest.mark.parametrize("max_log", [None, 40, 75])
def test_events_written_in_line_are_made_and_paid_for_as_by_the_closures(max_log):
    """`emit` in generated code: the same events, the same size in the log's budget (so the
    log fills at the same event), the same error."""
    from interpreter.limits import RunLimits

    limits = RunLimits() if max_log is None else RunLimits(max_log=max_log)
    outcomes = []
    for mode in ("off", "strict"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_EMITTING, limits=limits)
            if mode == "strict":
                assert "s.ops -= 1" in game.link.codegen.source()  # the events are made in line
            state = game.new_initial_state(3)
            sizes, error = [], None
            try:
                while not state.is_terminal():
                    state.apply_action(state.legal_actions()[-1])
                    sizes.append(state.log_size)
            except interpreter.RuleError as exc:  # the log's budget
                error = str(exc)
            outcomes.append((sizes, error, state.to_json()))
    assert outcomes[0] == outcomes[1]
    if max_log is not None:
        assert outcomes[0][1] is not None and "event log is full" in outcomes[0][1]
    else:
        assert outcomes[0][1] is None and len(outcomes[0][0]) == 6


# a round of the tests below: each player plays their 3 cards to the table, one a turn (%s: more
# statements of each play)
_PLAY_TO_TABLE = """\
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {visibility: public}
round:
  setup: [shuffle deck, deal 3 from deck to hand]
  first: player(0)
  turn:
    - choose:
        action: play
        by: current
        for: c in hand(current)
        label: "{c}"
        do:
          - move c to table
%s          - if: count(hand(current)) == 0 and current == player(1)
            then: [end game]
match: {}
"""


_DISTINCT = """\
rulespec: 1
game: {name: D, players: 2}
cards:
  attributes:
    kind: {type: str, default: plain}
    n: {type: int, default: 0}
  list:
    - {name: A, kind: red, n: 1, copies: 2}
    - {name: B, kind: red, n: 2}
    - {name: C, n: 2}
    - {name: D, kind: blue, n: 1}
    - {name: E, kind: blue}
""" + _PLAY_TO_TABLE % """\
          - current.score = count(distinct(c.kind for c in table)) * 10 + count(distinct(c.n for c in table))
"""


@pytest.mark.parametrize("seed", range(4))
def test_a_count_of_distinct_values_is_the_same_in_both_engines(seed):
    """`count(distinct(...))` of names, numbers, cards or players is generated as the size of a
    set: the same counts as the closures' `distinct`, duplicates and default values included."""
    kinds = {"A": "red", "B": "red", "C": "plain", "D": "blue", "E": "blue"}
    numbers = {"A": 1, "B": 2, "C": 2, "D": 1, "E": 0}
    outcomes = []
    for mode in ("off", "strict"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_DISTINCT)
            if mode == "strict":
                assert "len(set(" in game.link.codegen.source()
            state = game.new_initial_state(seed)
            scores = []
            while not state.is_terminal():
                mover = state.current_player()
                state.apply_action(random.Random(seed).choice(state.legal_actions()))
                table = zone_names(state, "table")
                assert state.score[mover] == 10 * len({kinds[c] for c in table}) + len({numbers[c] for c in table})
                scores.append(list(state.score))
            outcomes.append((scores, state.to_json()))
    assert outcomes[0] == outcomes[1] and len(outcomes[0][0]) == 6


_ZONE_OF_NONE = """\
rulespec: 1
game: {name: T, players: 2}
cards:
  list: [{name: A}, {name: B}]
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
variables:
  leader: {type: player, initial: none}
round:
  setup: [move all cards to deck]
  first: player(0)
  turn:
    - choose:
        action: go
        label: go
        do:
%s
          - end game
match: {}
"""


@pytest.mark.parametrize("rule", [
    "          - {if: 'count(hand(leader)) > 0', then: [end game]}",
    "          - move all hand(leader) to deck",
    "          - {if: 'count(hand(current)) + count(hand(leader)) > 0', then: [end game]}",
])
def test_a_zone_of_a_missing_player_fails_alike_in_both_engines(rule):
    """`hand(leader)` with no leader, written in line in a block (no closure to word its error):
    the same message at the same position as the closure engine gives, and no Python words."""
    failures = []
    for mode in ("off", "strict", "on"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_ZONE_OF_NONE % rule)
            state = game.new_initial_state(0)
            with pytest.raises(RuleError) as caught:
                state.apply_action(state.legal_actions()[0])
            failures.append(str(caught.value))
    assert failures[0] == failures[1] == failures[2]
    assert "hand(...) of a missing value (none)" in failures[0] and "NoneType" not in failures[0]


_LOOKUPS = """\
rulespec: 1
game: {name: L, players: 2}
cards:
  attributes:
    kind: {type: str, default: plain}
    n: {type: int, default: 0}
    lit: {type: bool, default: false}
  list:
    - {name: A, kind: red, n: 4, lit: true, copies: 2}
    - {name: B, kind: red, n: -2}
    - {name: C, n: 7, lit: true}
    - {name: D, kind: blue, n: 1}
    - {name: E, kind: blue}
variables:
  held: {type: int, initial: 0}
  high: {type: int, initial: 0}
  low: {type: int, initial: 0}
  some: {type: bool, initial: false}
  every: {type: bool, initial: false}
  ns: {type: value, initial: []}
  kinds: {type: int, initial: 0}
define:
  points(cards): sum(c.n for c in cards)
""" + _PLAY_TO_TABLE % """\
          - held = points(hand(current))
          - current.score = points(table)
          - high = max(c.n for c in table)
          - low = min(c.n for c in table)
          - some = any(c.lit for c in hand(current))
          - every = all(c.lit for c in table)
          - ns = [c.n for c in table]
          - kinds = count(distinct(c.kind for c in table))
"""


@pytest.mark.parametrize("seed", range(4))
def test_aggregates_of_a_card_attribute_are_the_same_in_both_engines(seed):
    """An aggregate or list of one attribute of each card of a zone is generated as a map of the
    attribute's table (and a small define called on a zone of a family, `points(hand(p))`, is
    written in line): the same values as the closures', derived here from the cards on the table."""
    n = {"A": 4, "B": -2, "C": 7, "D": 1, "E": 0}
    lit = {"A": True, "B": False, "C": True, "D": False, "E": False}
    kind = {"A": "red", "B": "red", "C": "plain", "D": "blue", "E": "blue"}
    outcomes = []
    for mode in ("off", "strict"):
        with engine_mode(mode):
            game = interpreter.game_from_text(_LOOKUPS)
            if mode == "strict":
                source = game.link.codegen.source()
                assert "sum(map(" in source and "list(map(" in source and "len(set(map(" in source
                assert source.count("sum(map(") == 3  # the define's unit, and its body at both calls
            state = game.new_initial_state(seed)
            seen = []
            while not state.is_terminal():
                mover = state.current_player()
                state.apply_action(random.Random(seed).choice(state.legal_actions()))
                table, hand = zone_names(state, "table"), zone_names(state, "hand", mover)
                slots = game.link.var_slots
                values = [state.g[slots[name]] for name in ("held", "high", "low", "some", "every", "ns", "kinds")]
                assert values == [sum(n[c] for c in hand), max(n[c] for c in table), min(n[c] for c in table),
                                  any(lit[c] for c in hand), all(lit[c] for c in table), [n[c] for c in table],
                                  len({kind[c] for c in table})]
                assert state.score[mover] == sum(n[c] for c in table)
                seen.append(values)
            outcomes.append((seen, state.to_json()))
    assert outcomes[0] == outcomes[1] and len(outcomes[0][0]) == 6


_LINKS = """\
rulespec: 1
game: {name: Links, players: 2}
board: {rows: 4, cols: 4}
pieces:
  stone: {per_player: 8}
define:
  mine(p): "[x.cell for x in pieces(p) if x.cell != none]"
  upper: "[c for c in cells if c.row == 0]"
  lower: "[c for c in cells if c.row == 3]"
round:
  first: player(0)
  turn:
    - choose:
        action: place
        for: c in cells if piece_at(c) == none and count(mine(current)) < 8
        label: "{c}"
        do:
          - place stone of current at c
          - emit links(square=connected(mine(current), upper, lower), hex=connected(mine(current), upper, lower,
              dirs='hex'), none=connected(mine(current), [], upper), from_none=connected([none, c], [c], [c]),
              g=group(c, mine(current)), gh=group(c, mine(current), dirs='all'), alone=group(c, []))
          - if: count(mine(left(current))) == 8
            then: [end game]
match: {}
"""


def test_connected_and_group_are_generated_and_play_as_the_closures(tmp_path):
    """`connected` and `group` in generated code call the parts their closures share, in the
    closures' order (a path with none in it, no target on the path): the same games."""
    from interpreter.builtins import group_of, reaches

    spec = tmp_path / "links.yaml"
    spec.write_text(_LINKS)
    variant = {"players": 2, "options": {}}
    strict = _play(spec, variant, "strict", range(8))
    with engine_mode("strict"):
        called = _called(interpreter.load_game(str(spec)))
    assert id(reaches) in called and id(group_of) in called
    assert strict == _play(spec, variant, "off", range(8))
    links = [e for _, state, _ in strict for e in json.loads(state)["events"] if e["type"] == "links"]
    assert any(e["hex"] for e in links) and not all(e["hex"] for e in links)
    assert any(e["hex"] != e["square"] for e in links) and any(len(e["gh"]) > len(e["g"]) for e in links)
    assert not any(e["none"] for e in links) and all(e["from_none"] for e in links)
    assert all(e["alone"] == [] for e in links)


_ANY_NUMBERS = _one_action_spec("""\
game: {name: Anything, players: 2}
variables:
  v: {type: value, initial: "VALUE"}""", """\
- emit made(x=EXPRESSION)
- end game""")


class Fails(str):
    """An expected rule error (a part of its message), not a value."""


@pytest.mark.parametrize("expression, value, expected", [
    ("int(v)", "'7'", 7),
    ("int(v)", "2.9", 2),
    ("int(v)", "'x7'", Fails("int() of 'x7': not a whole number")),
    ("int(v)", "[1]", Fails("this rule failed: int() argument must be")),
    ("v * 2", "[1, 2]", [1, 2, 1, 2]),
    ("3 * v", "'ab'", "ababab"),
    ("v * 2", "3", 6),
    ("int(v[0]) * 2", "['4']", 8),
    ("v * 100000000000", "[1, 2, 3]", Fails("a list would grow past 1,000,000 items")),
    ("v * 100000000000", "'x'", Fails("a text would grow past")),
    ("v * v", "[1]", Fails("cannot compute '*' of a list and a list")),
])
def test_int_and_a_product_of_values_of_any_type_are_generated_as_the_closures_compute_them(
        expression, value, expected):
    """`int()` and `*` where a side's type is known only in play (a text or a list repeated, or
    numbers) call the closures' own functions: the same values and errors in both engines, strict
    included; a repetition is bounded before it is made (generated code once made it first)."""
    from interpreter.builtins import whole_of
    from interpreter.expressions import checked_arith

    spec = _ANY_NUMBERS.replace("VALUE", value).replace("EXPRESSION", expression)
    outcomes = []
    for mode in ("strict", "off"):
        with engine_mode(mode):
            game = interpreter.game_from_text(spec)
            if mode == "strict":
                assert id(whole_of if "int" in expression else checked_arith) in _called(game)
            state = game.new_initial_state(0)
            try:
                state.apply_action(state.legal_actions()[0])
                outcomes.append(next(e["x"] for e in state.events if e["type"] == "made"))
            except RuleError as exc:
                outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]
    if isinstance(expected, Fails):
        assert expected in outcomes[0]
    else:
        assert outcomes[0] == expected
