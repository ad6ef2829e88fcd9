"""Random expressions, and random blocks of statements, run the same in generated code and
in the closures.

Hypothesis writes expressions of the rule language over whole numbers, truth values and
none (variables, a card attribute of a card that may be missing, arithmetic, comparisons,
`and`/`or`/`not`, conditionals, aggregates, built-ins). Each is put in a spec three ways: in
an event of a generated block, through a define (a generated function with its parameter
as a Python argument), and as the filter of a choice's options (a generated collector). The
spec is played with the closures alone, with generated code (``on``: the events, the
options and the state must be identical, and an expression that fails must fail with the
same message at the same position) and with generated code without its fallback to the
closures (``strict``: whenever either succeeds, both give the same result; its error
messages may be Python's own).

Blocks: random statements (assignments, `let`, nested `if`/`else`, moves, events, a division
that may fail, `end round`) before a choice, in its effect and after it, played for a few
turns with the round's end condition on: the same matches in the three modes.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import assume, example, given
from hypothesis import strategies as st

import interpreter
from rulespec import SpecError
from tests.support import engine_mode

ATOMS = ["0", "1", "2", "-3", "true", "false", "none", "n", "z", "a", "picked.rank", "held.rank", "picked.hot",
         "held.hot", "count(deck)", "turn"]
UNARY = ["not {}", "-{}", "abs({})"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} // {}", "{} % {}", "{} / {}", "{} < {}", "{} <= {}", "{} == {}",
          "{} != {}", "{} and {}", "{} or {}", "max({}, {})", "min({}, {})", "{} in [1, 2, {}]"]
TERNARY = ["({} if {} else {})"]
AGGREGATES = ["count(x for x in [1, 2, 3] if x > {})", "sum(x * {} for x in [1, 2, 3])",
              "any(x == {} for x in [0, 1, 2])", "max(x for x in [1, {}, 3])", "min(x - {} for x in [4, 5])",
              "count(c for c in deck if c.rank >= {})", "[x + {} for x in [1, 2]][0]",
              "first([x for x in [1, 2, 3] if x > {}])", "last([x - {} for x in [4, 5]])"]


def expressions() -> st.SearchStrategy[str]:
    return st.recursive(
        st.sampled_from(ATOMS),
        lambda inner: st.one_of(
            st.builds(lambda f, a: f.format(a), st.sampled_from(UNARY), inner),
            st.builds(lambda f, a, b: f.format(a, b), st.sampled_from(BINARY), inner, inner),
            st.builds(lambda f, a, b, c: f.format(a, b, c), st.sampled_from(TERNARY), inner, inner, inner),
            st.builds(lambda f, a: f.format(a), st.sampled_from(AGGREGATES), inner),
            st.builds(lambda a: f"({a})", inner),
        ),
        max_leaves=8,
    )


def spec_of(expr: str) -> str:
    quoted = expr.replace("'", "''")
    return f"""\
rulespec: 1
game: {{name: Fuzz, players: 2, limits: {{actions: 20}}}}
cards:
  attributes:
    rank: {{type: int}}
    hot: {{type: bool}}
  list:
    - {{name: Low, rank: 1, hot: false, copies: 2}}
    - {{name: High, rank: 3, hot: true}}
zones:
  deck: {{visibility: public}}
variables:
  n: {{type: int, initial: 2}}
  z: {{type: int, initial: 0}}
  picked: {{type: card, initial: none}}
  held: {{type: card, initial: none}}
define:
  probe(a): '{quoted}'
round:
  first: player(0)
  turn:
    - held = top(deck)
    - choose:
        action: go
        for: k in [1, 2, 3] if k > 1 or probe(k) == probe(k)
        label: go {{k}}
        do:
          - let a = k
          - emit direct(v='{quoted}', k=k)
          - emit defined(v=probe(k))
          - end game
match: {{}}
"""


def linked(text: str, mode: str) -> interpreter.Game:
    """The game of ``text`` linked with generated code in ``mode`` (on, off, strict)."""
    with engine_mode(mode):
        return interpreter.game_from_text(text)


def outcome(text: str, mode: str) -> Any:
    game = linked(text, mode)
    try:
        state = game.new_initial_state(0)
        legal = state.legal_actions()
        state.apply_action(legal[-1])
    except interpreter.RuleError as exc:
        return ("error", str(exc), exc.span.line if exc.span else None, exc.span.col if exc.span else None)
    except TypeError as exc:  # a Python error the engine lets through (it names the rule elsewhere)
        return ("python", type(exc).__name__, str(exc))
    return ("ok", legal, state.to_json())


@example(expr="-none")  # folding it once failed the load with a traceback
@example(expr="max(0, none)")  # the same
@example(expr="0 + picked.rank")  # arithmetic on a missing value, in a define and in a choice's filter
@example(expr="picked.hot and n > 0")  # a bool-typed none
@example(expr="count(c for c in deck if c.rank >= n) * (n // z)")
@given(expr=expressions())
def test_generated_code_evaluates_like_the_closures(expr: str) -> None:
    text = spec_of(expr)
    try:
        interpreter.game_from_text(text)
    except (SpecError, interpreter.RuleError):
        assume(False)  # not a valid expression here (types): nothing to compare
    closures = outcome(text, "off")
    assert outcome(text, "on") == closures, expr
    strict = outcome(text, "strict")  # no fallback: a wrong generated value cannot hide
    if closures[0] == "ok" or strict[0] == "ok":
        assert strict == closures, expr


SIMPLE = ["n += 1", "n = n * 2 - z", "z = n // 3", "current.score += n % 3", "held = top(deck)",
          "move held to pile", "move top deck to pile", "move top pile to deck", "emit tick(n=n, z=z, h=held)",
          "let a = n + 1", "flip pile face up", "n = count(deck) + count(pile)", "end round",
          "z = 10 // (n - 3)", "picked = held", "z = picked.rank + 1", "next current", "skip current"]
CONDITIONS = ["n > 2", "z == 0 or n < 0", "held != none", "count(deck) > 1", "picked.hot"]


def statements(depth: int = 2) -> st.SearchStrategy[list[Any]]:
    simple = st.sampled_from(SIMPLE)
    if depth == 0:
        return st.lists(simple, min_size=1, max_size=4)
    inner = statements(depth - 1)
    branch = st.builds(lambda c, t, e: {"if": c, "then": t, "else": e} if e else {"if": c, "then": t},
                       st.sampled_from(CONDITIONS), inner, st.one_of(st.just([]), inner))
    return st.lists(st.one_of(simple, simple, branch), min_size=1, max_size=4)


def block_spec(before: list[Any], body: list[Any], after: list[Any]) -> str:
    spec = {
        "rulespec": 1,
        "game": {"name": "Blocks", "players": 2, "limits": {"actions": 40}},
        "cards": {"attributes": {"rank": {"type": "int"}, "hot": {"type": "bool"}},
                  "list": [{"name": "Low", "rank": 1, "hot": False, "copies": 2},
                           {"name": "High", "rank": 3, "hot": True}]},
        "zones": {"deck": {"visibility": "public"}, "pile": {"visibility": "public"}},
        "variables": {"n": {"type": "int", "initial": 2}, "z": {"type": "int", "initial": 0},
                      "held": {"type": "card", "initial": "none"}, "picked": {"type": "card", "initial": "none"}},
        "round": {
            "first": "player(0)",
            "turn": [*before, {"choose": {"action": "go", "for": "k in [1, 2]", "label": "go {k}", "do": body}},
                     *after],
            "end_when": "turn > 6 or n > 1000",
        },
        "match": {"end_when": ["round >= 2"]},
    }
    return yaml.safe_dump(spec, sort_keys=False)


def played(text: str, mode: str) -> Any:
    game = linked(text, mode)
    out: list[Any] = []
    try:
        state = game.new_initial_state(1)
        while not state.is_terminal():
            legal = state.legal_actions()
            out.append(legal)
            state.apply_action(legal[len(out) % len(legal)])
    except interpreter.RuleError as exc:
        return ("error", str(exc), out)
    return ("ok", out, state.to_json())


@given(before=statements(1), body=statements(2), after=statements(1))
def test_generated_blocks_run_like_the_closures(before: list[Any], body: list[Any], after: list[Any]) -> None:
    """Random blocks of statements (nested `if`s, `let`, moves, events, `end round`, a
    division that may fail) before, inside and after a choice: the same matches."""
    text = block_spec(before, body, after)
    try:
        interpreter.game_from_text(text)
    except (SpecError, interpreter.RuleError):
        assume(False)
    closures = played(text, "off")
    assert played(text, "on") == closures, text
    strict = played(text, "strict")
    if closures[0] == "ok" or strict[0] == "ok":
        assert strict == closures, text
