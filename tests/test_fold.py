"""One constant folder (rulespec/fold.py) for static evaluation, describe and the linker.

- Over every expression of every spec of the corpus (``tests/spec_corpus.py``: the games, the
  valid, invalid and hostile specs as far as they build), the fold with the ``STATIC`` policy
  gives what rulespec.static's own evaluator gave (the same value, of the same type, or the same
  error: message, position and whether it is definite), in several contexts: nothing known;
  each player count with the default options and the spec's defines; a starting pattern's cell
  and seat and a card's attributes. The ``DESCRIBE`` policy gives what ``PlayerDescriber.known``
  did with its own walk. ``tests/fold_results.json`` holds a digest of these results per spec,
  recorded while the old evaluators and the fold agreed on every one (77,906 static results,
  24,855 described), so it guards them now that both are the fold.
- With the ``linking`` policy and a ``leaf`` hook supplying what the linker knows (written here;
  the engine will own it), the fold agrees with the interpreter's closures, node by node, for
  every spec and variant of games/ (and tests/specs/valid, the hostile specs that play): a
  closure is a constant exactly when the fold knows the node, and then of the same value.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import interpreter
from interpreter.errors import RuleError
from interpreter.expressions import const_value, is_const
from interpreter.fold_link import link_env
from rulespec import ast as A
from rulespec.check import default_options
from rulespec.describe.players import default_options_env
from rulespec.errors import SourceSpan
from rulespec.fold import (
    DEFER,
    DESCRIBE,
    STATIC,
    UNKNOWN,
    FoldEnv,
    Folder,
    StaticCell,
    StaticEvalError,
    StaticSeat,
    fold,
    linking,
)
from rulespec.model import SpecModel
from rulespec.static import static_defines
from tests.spec_corpus import ROOT, built_model, expression_nodes, spec_files

RESULTS = Path(__file__).resolve().parent / "fold_results.json"
SPAN = SourceSpan("<test>", 1, 1)


# ---------------------------------------------------------------------- the corpus and its results


@cache
def corpus() -> list[tuple[str, SpecModel, list[Any]]]:
    """(path, model, expression nodes) of every spec that builds."""
    out = []
    for path in spec_files():
        model = built_model(path)
        if model is not None:
            out.append((path.as_posix(), model, expression_nodes(model)))
    return out


def static_contexts(model: SpecModel) -> Iterator[tuple[dict[str, Any], int | None, dict[str, Any], Any]]:
    """(options, num_players, names, defines) a static evaluation of the spec's expressions may meet."""
    yield {}, None, {}, {}
    if not model.players:
        return
    defines = static_defines(model.defines)
    for players in sorted({min(model.players), max(model.players)}):
        yield default_options(model, players), players, {}, defines
    names: dict[str, Any] = {"c": StaticCell(1, 2, "c2"), "p": StaticSeat(1)}
    if model.cards is not None and model.cards.entries:
        entry = model.cards.entries[0]
        names.update({name: value for name, value, _ in entry.attrs})
        names.update({name: values[0] for name, values, _ in entry.family if values})
    yield default_options(model, max(model.players)), max(model.players), names, defines


def outcome(evaluate: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("value", evaluate())
    except StaticEvalError as exc:
        return ("error", exc.message, exc.span, exc.definite)


def shown(result: tuple[Any, ...]) -> str:
    """A result as text for a digest: the value's type and repr, or the error with its position."""
    if result[0] == "value":
        value = result[1]
        return "UNKNOWN" if value is UNKNOWN else f"{type(value).__name__}:{value!r}"
    _, message, span, definite = result
    where = "-" if span is None else f"{span.line}:{span.col}"
    return f"error:{message}@{where}:{definite}"


def static_results(model: SpecModel, nodes: list[Any]) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    for options, players, names, defines in static_contexts(model):
        env = FoldEnv(STATIC, options, players, names, defines)
        for node in nodes:
            yield node, outcome(lambda: fold(node, env))


def digest(lines: Iterator[str]) -> str:
    """Of the lines in any order (each names its node's place and class)."""
    h = hashlib.sha256()
    for line in sorted(lines):
        h.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return h.hexdigest()[:20]


def node_text(node: Any) -> str:
    return f"{node.span.line}:{node.span.col}:{type(node).__name__}"


def record() -> dict[str, dict[str, Any]]:
    """The digests of the fold's results over the corpus (``python -m tests.test_fold --record``)."""
    out = {}
    for path, model, nodes in corpus():
        env = default_options_env(model)
        static = [f"{node_text(n)} {shown(r)}" for n, r in static_results(model, nodes)]
        out[path] = {"expressions": len(nodes), "static results": len(static),
                     "static": digest(iter(static)),
                     "describe": digest(f"{node_text(n)} {shown(('value', fold(n, env)))}" for n in nodes)}
    return out


def same(a: Any, b: Any) -> bool:
    """Equal and of the same type, all the way down (a not-a-number is the same as itself)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


# ---------------------------------------------------------------------- static evaluation and describe


def test_the_corpus_is_large() -> None:
    specs = corpus()
    assert len(specs) >= 200 and sum(len(nodes) for _, _, nodes in specs) >= 20_000


def test_the_fold_gives_the_recorded_results_over_the_corpus() -> None:
    recorded = json.loads(RESULTS.read_text(encoding="utf-8"))
    now = record()
    assert sorted(now) == sorted(recorded)
    assert [path for path in now if now[path] != recorded[path]] == []


def test_the_static_policy_raises_in_the_users_words() -> None:
    span = SPAN

    def const(value: Any) -> A.Const:
        return A.Const(span, value)

    cases: list[tuple[Any, str]] = [
        (A.Unary(span, "neg", const("a")), "cannot negate this value"),
        (A.Attr(span, A.Name(span, "x"), "row"), "'x' is not known before the game starts"),
        (A.Attr(span, const(1), "row"), "'.row' is not known before the game starts"),
        (A.BinOp(span, "in", const(1), const(2)), "cannot compute this before the game starts ('in')"),
        (A.BinOp(span, "notin", const(1), const(2)), "cannot compute this before the game starts ('notin')"),
        (A.BinOp(span, "<", const(1), const("a")), "cannot compute this before the game starts ('<' not supported "
                                                   "between instances of 'int' and 'str')"),
        (A.BinOp(span, "*", const("a"), const(2)), "cannot compute '*' of these values before the game starts"),
        (A.Call(span, "max", (const(1),)), "cannot compute max(...) ('int' object is not iterable)"),
        (A.Call(span, "abs", (const("a"),)), "abs(...) needs a number here"),
        (A.Call(span, "count", (const(1),)), "only numbers, options and num_players can be used here"),
        (A.ListLit(span, (const(1),)), "only numbers, options and num_players can be used here"),
        (None, "only numbers, options and num_players can be used here"),
    ]
    for node, message in cases:
        with pytest.raises(StaticEvalError) as info:
            fold(node, FoldEnv(STATIC))
        assert info.value.message == message and not info.value.definite
    tree: Any = const(1)
    for _ in range(17):  # 2**17 ones added up
        tree = A.BinOp(span, "+", tree, tree)
    with pytest.raises(StaticEvalError, match="more than 100,000 steps") as info:
        fold(tree, FoldEnv(STATIC))
    assert info.value.definite


def test_the_policies_differ_where_their_consumers_do() -> None:
    span = SPAN
    x, one, yes = A.Name(span, "x"), A.Const(span, 1), A.Const(span, True)
    link = FoldEnv(linking(lambda value: None))
    describe = FoldEnv(DESCRIBE)
    assert fold(A.BinOp(span, "or", x, yes), describe) is True  # either side decides
    assert fold(A.BinOp(span, "or", x, yes), link) is UNKNOWN  # only the left side
    assert fold(A.BinOp(span, "and", yes, one), link) == 1  # the right side's own value
    assert fold(A.BinOp(span, "and", yes, one), describe) is True
    assert fold(A.BinOp(span, "+", one, one), describe) is UNKNOWN  # describe compares, never computes
    assert fold(A.BinOp(span, "+", one, one), link) == 2
    assert fold(A.Unary(span, "neg", yes), link) is UNKNOWN and fold(A.Unary(span, "neg", yes), FoldEnv(STATIC)) == -1
    assert fold(A.Cond(span, yes, one, x), link) == 1 and fold(A.Cond(span, yes, one, x), describe) is UNKNOWN
    big = A.Const(span, 2**70)
    assert fold(big, link) == 2**70  # literals are not bounded when linking, results are
    assert fold(A.BinOp(span, "*", big, big), FoldEnv(linking(lambda value: "too large"))) is UNKNOWN
    with pytest.raises(StaticEvalError, match="too large") as info:
        fold(big, FoldEnv(STATIC))
    assert info.value.definite


def test_a_leaf_hook_supplies_names_and_may_defer() -> None:
    span = SPAN
    seen = []

    def leaf(node: Any, fold_child: Callable[[Any], Any]) -> Any:
        seen.append(type(node).__name__)
        if isinstance(node, A.Name) and node.id == "seven":
            return 7
        return DEFER

    env = FoldEnv(linking(lambda value: None), options={"n": 2}, leaf=leaf)
    expr = A.BinOp(span, "*", A.Name(span, "seven"), A.Attr(span, A.Name(span, "option"), "n"))
    assert fold(expr, env) == 14 and seen == ["Name", "Attr"]


# ---------------------------------------------------------------------- the linker's folding
#
# What the closures fold (interpreter/expressions.py `c_*`, builtins.py `b_*`), and so what the
# linking policy with the link's leaf hook (interpreter/fold_link.py) folds; the tests below
# find no node where the two differ:
#
# - literals; the names of zones, rankings, `players`, `cards`, `cells`, `num_players`; `option.X`;
#   a card's attribute or name, a seat's `seat` or `name`, a cell's `row`, `col` or `name`, a
#   piece's starting cell, of a known card, seat, cell or piece; `table[key]` with a known key the
#   table has; `family(k)` with k known; `player(k)` with k a seat; `cell('a1')`;
# - an operator of two known values, unless Python fails on them (`1 // 0` stays a run-time error)
#   or the result is too large to keep (a text or list longer than budget.SMALL, a number past
#   RunLimits: the linking policy's `bound`); `max`/`min` of two known values (`max(0, none)` is
#   not folded: it fails when it runs);
# - `and`/`or` decided by a known left side (else, with the left side true for `and`, the right
#   side's own value); `not` of a known value; `-x` of a known int or float only (`-none` and
#   `-true` fail when they run); `a if c else b` with c known: the chosen side, known or not;
# - a define without parameters whose body is known (with parameters: never).
#
# Never folded: list literals and `range(...)` (a fresh list each time), comprehensions and
# aggregates, `in`/`notin`, the state's names (`current`, `dealer`, `round`, `turn`), variables,
# locals and the other built-ins. The errors the closures raise while they are made (`cannot
# resolve name`, `unknown aggregate`, `slides(dirs=...) must be a constant`, `the first argument
# must name a ranking`, `chance()/random() only in let`, `unknown function`) are not the fold's
# business: the code that compiles the node keeps them, in the same order.


def linked_specs() -> list[Path]:
    return sorted((ROOT / "games").glob("*.yaml")) + sorted((ROOT / "tests/specs/valid").glob("*.yaml")) \
        + sorted((ROOT / "tests/hostile/specs").glob("run_*.yaml"))


def _games(spec: Path) -> Iterator[tuple[str, interpreter.Game]]:
    """The spec linked in each of its variants (those that load)."""
    try:
        first = interpreter.load_game(str(spec), root=str(ROOT))
    except (RuleError, interpreter.OptionError):
        return
    for variant in first.variants or [{"name": "defaults", "players": None, "options": {}}]:
        try:
            yield variant["name"], interpreter.load_game(str(spec), players=variant["players"],
                                                         options=variant["options"], root=str(ROOT))
        except (RuleError, interpreter.OptionError):
            continue


def disagreements(game: interpreter.Game) -> tuple[int, list[str]]:
    """(nodes compared, the nodes where the fold and the closures disagree): a fresh fold, and
    the link's own table (which the generator asked while linking)."""
    L = game.link
    closures = L.codegen._closures  # every node's closure, built while linking
    folder = Folder(link_env(L))
    compared, out = 0, []
    for node in expression_nodes(game.gamedef.model):
        fn = closures.get(id(node))
        if fn is None:
            continue
        compared += 1
        for value in (folder.fold(node, {}), L.codegen.folds.value(node)):
            if is_const(fn) != (value is not UNKNOWN) or (is_const(fn) and not same(value, const_value(fn))):
                closure = repr(const_value(fn)) if is_const(fn) else "not a constant"
                out.append(f"{node_text(node)}: fold {value!r}, closure {closure}")
    return compared, out


@pytest.mark.parametrize("spec", linked_specs(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_link_policy_folds_what_the_closures_fold(spec: Path) -> None:
    compared = 0
    for variant, game in _games(spec):
        n, differ = disagreements(game)
        compared += n
        assert differ == [], f"{variant}: {differ[:10]}"
    if spec.parent.name == "games":
        assert compared > 20


CORNERS = """
rulespec: 1
game: {name: corners, players: 2}
options:
  size: {type: int, default: 3}
  flag: {type: bool, default: true}
zones:
  pile: {}
  hand: {per: player}
variables:
  n: {type: int, initial: 0}
tables:
  points: {a: 1, b: 2}
define:
  small: option.size * 2
  twice(x): x * 2
  fans: small + small
  e18: 1000000000000000000
  e54: e18 * e18 * e18
  huge: e54 * e54 * e54 * e54 * e54 * e54  # about 2 ** 1076
round:
  turn:
    - let a = 1 // 0
    - let b = -option.size
    - let c = not option.flag
    - let d = option.flag and n > 0
    - let e = n > 0 and option.flag
    - let f = option.flag or n > 0
    - let g = max(1, option.size)
    - let h = max([1, 2])
    - let i = twice(3)
    - let j = fans
    - let k = points['a'] + points[str(n)]
    - let l = player(1)
    - let m = player(5)
    - let o = 1 if option.flag else n
    - let q = n if option.flag else 1
    - let r = 'ab' + 'cd'
    - let x = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' + 'long'
    - let y = huge * huge * huge * huge
    - let z = huge * huge * huge
    - let s = 3 in [1, 2, 3]
    - let t = hand(player(0))
    - let u = num_players * 1.5
    - let v = range(0, 3)
    - let w = 10000000000 * 10000000000 * 10000000000 * 10000000000 * 10000000000 * 10000000000 * 100
    - end round
match:
  end_when: true
"""


def test_the_link_policy_agrees_on_the_corners_of_folding(tmp_path: Path) -> None:
    """Division by zero, `and`/`or` known on one side, a define with parameters, tables, seats,
    long values: each folded, or left to run, as the closures do."""
    path = tmp_path / "corners.yaml"
    path.write_text(CORNERS, encoding="utf-8")
    game = interpreter.load_game(str(path))
    compared, differ = disagreements(game)
    assert differ == [] and compared > 60
    folder = Folder(link_env(game.link))
    lets = {s.name: s.value for s in game.gamedef.model.round.phases[0].turn.stmts if isinstance(s, A.Let)}
    known = {name for name, node in lets.items() if folder.fold(node, {}) is not UNKNOWN}
    assert known == {"b", "c", "f", "g", "j", "l", "o", "r", "t", "u", "w", "z"}


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    RESULTS.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
