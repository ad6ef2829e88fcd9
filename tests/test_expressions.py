"""Values and expressions, each driven by a tiny inline spec: a rule failing in Python reported
in the rule language's words, rankings, named tables, lists and text, comprehensions with several
`for` clauses, loops over empty lists, and defines known before the game starts."""

from __future__ import annotations

import re
import textwrap

import pytest

import interpreter
from interpreter import RuleError
from rulespec import SpecError
from tests.support import TINY, card_ids, engine_mode, labels, tiny_game, zone_names

# ---------------------------------------------------------------- patterns and rankings


def test_ranking_patterns_kinds_runs_same_and_best_k_of_n():
    game = tiny_game("""
        cards: {name: "{s}{r}", list: [{family: {s: [h, s, d, c], r: "1..13"}}]}
        zones: {deck: {}}
        rankings:
          hand:
            size: 5
            order: r
            categories:
              - {name: straight flush, run: 5, same: s}
              - {name: quads, kinds: [4, 1]}
              - {name: full, kinds: [3, 2]}
              - {name: flush, same: s}
              - {name: straight, run: 5}
              - {name: trips, kinds: [3, 1, 1]}
              - {name: two pairs, kinds: [2, 2, 1]}
              - {name: pair, kinds: [2, 1, 1, 1]}
              - {name: high, highest: 5}
        round: {turn: [end game]}
    """)
    state = game.new_initial_state(0)
    rank = game.link.rankings["hand"]

    def ev(*names):
        return rank.evaluate([card_ids(state, n)[0] for n in names])

    assert ev("h2", "h3", "h4", "h5", "h6", "c13")[2] == "straight flush"
    assert ev("h9", "s9", "d9", "c9", "h2")[2] == "quads"
    assert ev("h9", "s9", "d9", "c2", "h2")[2] == "full"
    assert ev("h1", "h3", "h5", "h7", "h9")[2] == "flush"
    assert ev("h1", "s2", "h3", "h4", "d5")[2] == "straight"
    assert ev("h10", "s11", "h12", "h13", "d1")[2] == "high"  # no wrap
    assert ev("h10", "s10", "h12", "d5")[2] == "pair"  # fewer than five cards
    # best k of n: of seven cards, the five that make the best hand
    value, best, category = ev("h2", "s2", "d7", "c7", "h7", "s9", "d13")
    assert category == "full" and sorted(state.game.cards.names[c] for c in best) == ["c7", "d7", "h2", "h7", "s2"]
    # tie-breaks: higher pair wins, then kickers, then unused cards
    assert ev("h9", "s9", "d2", "c3", "h4") > ev("h8", "s8", "d13", "c12", "h11")
    assert ev("h9", "s9", "d13", "c3", "h4") > ev("d9", "c9", "s12", "h3", "s4")
    assert ev("h9", "s9", "d13", "c3", "h4", "h6") > ev("d9", "c9", "s13", "d3", "s4", "s5")

# ---------------------------------------------------------------- errors in the rule language's words


@pytest.mark.parametrize("rule, message", [
    ('"x = leader.score + 1"', "cannot compute '+' with a missing value (none)"),
    ('{if: "leader.score > 1", then: [x = 1]}', "cannot compare none (a missing value) with a whole number using '>'"),
    ('"x = 10 // x"', "division by zero"),
    ('"place mark of current at cell(5, 5)"', "cannot place a mark: the cell is missing (none), for example a cell "
                                              "off the board"),
])
def test_a_rule_failing_in_python_is_reported_in_the_rule_languages_words(rule, message):
    """Comparing none with a number, arithmetic on none, a division by zero, placing a piece
    off the board: the message speaks of missing values and numbers, not of Python's types."""
    game = tiny_game(f"""
        board: {{rows: 2, cols: 2}}
        pieces: {{mark: {{per_player: 2}}}}
        variables:
          x: {{type: int, initial: 0}}
          leader: {{type: player, initial: none}}
        round:
          first: player(0)
          turn:
            - choose:
                action: go
                label: go
                do:
                  - {rule}
                  - x = 1
                  - end game
        match: {{}}
    """)
    state = game.new_initial_state(0)
    with pytest.raises(RuleError) as caught:
        state.apply_action(state.legal_actions()[0])
    assert f"this rule failed: {message}" in str(caught.value) or message in str(caught.value)
    assert "NoneType" not in str(caught.value) and "instances of" not in str(caught.value)

# ---------------------------------------------------------------- named tables

_TABLES = """
cards:
  name: "{rank}"
  list:
    - family: {rank: [Ace, King, Jack]}
zones:
  deck: {}
tables:
  points: {Ace: 11, King: 4}
  by_count: {1: 5, 2: 7, -1: 0}
  odds: {low: 0.25, high: 1}
round:
  first: player(0)
  turn:
    - choose:
        action: take
        for: c in deck if c.rank != 'Jack' or JACK
        label: "take {c} ({points[c.rank]})"
        do:
          - current.score += points[c.rank] + by_count[num_players] + by_count[-1]
          - emit took(odds=odds['high'])
          - end game
match: {}
"""


def test_a_table_gives_a_value_for_each_key():
    """Text keys, whole-number keys (written unquoted), number values: `NAME[KEY]`."""
    game = tiny_game(_TABLES.replace("JACK", "false"))
    state = game.new_initial_state(0)
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["take Ace (11)", "take King (4)"]
    state.apply_action(labels(state)["take Ace (11)"])
    assert state.total[0] == 11 + 7 + 0
    assert [e["odds"] for e in state.events if e["type"] == "took"] == [1]


def test_a_key_the_table_lacks_is_a_rule_error_naming_the_table_and_its_keys():
    game = tiny_game(_TABLES.replace("JACK", "true"))
    with pytest.raises(RuleError, match=r"table 'points' has no entry 'Jack' \(its keys: 'Ace', 'King'\)"):
        state = game.new_initial_state(0)
        [state.action_to_string(a) for a in state.legal_actions()]


@pytest.mark.parametrize("old, new, message", [
    ("points: {Ace: 11, King: 4}", "points: {Ace: 11, 4: 4}", "table 'points' mixes whole-number and text keys"),
    ("odds: {low: 0.25, high: 1}", "odds: {low: 0.25, high: yes}", "table 'odds' mixes"),
    ("+ by_count[-1]", "+ count(points)", "'points' is a table: read one entry with points[KEY]"),
    ("by_count[num_players]", "by_count['two']", "a key of table 'by_count' must be a whole number, not text"),
    ("  odds:", "  deck:", "table 'deck' hides a built-in, zone, variable or define of the same name"),
])
def test_tables_are_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _TABLES.replace("JACK", "false")))
    assert old in text
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text.replace(old, new, 1))

# ---------------------------------------------------------------- several for clauses

_CLAUSES = """
variables:
  got: {type: value, initial: "0"}
round:
  turn:
    - got = EXPR
    - end game
match: {}
"""


@pytest.mark.parametrize("expr, value", [
    ("count(1 for a in range(0, 4) for b in range(0, 4) if a < b)", 6),
    ("sum(a * b for a in range(1, 4) if a != 2 for b in range(1, a + 1))", 1 + 3 + 6 + 9),
    ("any(a + b == 7 for a in [1, 2, 3] for b in [4, 5])", True),
    ("all(a < b for a in [1, 2] for b in [3, 4] if b > a)", True),
    ("max(a * 10 + b for a in range(0, 3) for b in range(0, 3) if b != a)", 21),
    ("min(a - b for a in [5, 6] for b in [1, 2] for c in [0] if c == 0)", 3),
    ("[a * 10 + b for a in range(0, 3) if a > 0 for b in range(0, a)]", [10, 20, 21]),
    ("[b for a in [[1, 2], [3]] for b in a]", [1, 2, 3]),
    ("distinct(a + b for a in [1, 2] for b in [1, 2])", [2, 3, 4]),
])
@pytest.mark.parametrize("mode", ["strict", "off"])
def test_a_comprehension_may_have_several_for_clauses(expr, value, mode):
    """Each clause loops inside the one before, with its names bound (Python's order), in
    generated code and in closures alike."""
    with engine_mode(mode):
        game = tiny_game(_CLAUSES.replace("EXPR", expr))
        assert bool(game.link.codegen.units) == (mode == "strict")
        state = game.new_initial_state(0)
        assert state.observation(0, events=False)["variables"]["got"] == value


def test_argmax_takes_one_for_clause():
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _CLAUSES.replace(
        "EXPR", "argmax(a + b for a in [1, 2] for b in [3, 4])")))
    with pytest.raises(SpecError, match=r"argmax\(\) takes one `for` clause"):
        interpreter.game_from_text(text)

# ---------------------------------------------------------------- value lists and text

_VALUES = """
variables:
  todo: {type: value, initial: "[]"}
  word: {type: str, initial: "'hex'"}
round:
  turn:
    - todo = todo + [3]
    - todo = [1, 2] + todo
    - todo = todo + todo
    - todo += [9]
    - emit got(todo=todo, letter=word[1], last=word[-1], tail=[word[i] for i in range(1, 3)])
    - end game
match: {}
"""


def test_a_list_in_a_value_variable_can_be_added_to_and_text_indexed():
    state = tiny_game(_VALUES).new_initial_state(0)
    (event,) = [e for e in state.events if e["type"] == "got"]
    assert event["todo"] == [1, 2, 3, 1, 2, 3, 9]
    assert (event["letter"], event["last"], event["tail"]) == ("e", "x", ["e", "x"])


@pytest.mark.parametrize("old, new, message", [
    ("todo = todo + [3]", "todo = todo + 3", "cannot compute '+' of a list and a whole number"),
    ("letter=word[1]", "letter=word['a']", "an index must be a whole number, not text"),
    ("letter=word[1]", "letter=word[7]", "index 7 is outside"),
])
def test_value_lists_and_text_indexes_are_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _VALUES)).replace(old, new)
    with pytest.raises((SpecError, RuleError), match=re.escape(message)):
        interpreter.game_from_text(text).new_initial_state(0)


def test_an_empty_list_takes_the_type_of_the_other_branch():
    """`[] if ... else hand(p)` is a list of cards: an action may loop over it (it was a list
    of anything, and loading the game failed without a position)."""
    game = tiny_game("""
        cards: {name: "{n}", list: [{family: {n: "1..4"}}]}
        zones: {deck: {}, hand: {per: player}}
        define:
          leads(p): "[] if count(deck) > 5 else [c for c in hand(p)]"
        actions:
          play:
            for: c in leads(current)
            label: "{c}"
            do: [move c to deck]
        round:
          setup: [deal 2 from deck to hand]
          turn: [{choose: play, else: [end game]}]
        match: {}
        """)
    state = game.new_initial_state(0)
    assert sorted(labels(state)) == sorted(zone_names(state, "hand", state.current_player()))

# ---------------------------------------------------------------- defines known before the game

_STATIC = """
options:
  size: {type: int, default: 3, min: 2, max: 5}
define:
  side: option.size
  area: side * side
  twice(n): 2 * n
board: {rows: side, cols: side + 1}
pieces:
  stone: {per_player: area}
actions:
  mark:
    for: k in range(0, twice(area))
    label: "{k}"
    do: [end game]
round:
  turn: [{choose: mark}]
match:
  returns: {value: "1", min: -twice(side), max: area}
game: {name: Tiny, players: 2, limits: {actions: area + 1}}
"""


@pytest.mark.parametrize("size", [2, 4])
def test_defines_of_options_size_boards_pieces_actions_limits_and_returns(size):
    text = "\n".join(textwrap.dedent(p) for p in (_STATIC,))
    game = interpreter.game_from_text(text, options={"size": size})
    assert (game.link.board.rows, game.link.board.cols) == (size, size + 1)
    assert game.num_distinct_actions == 2 * size * size
    assert game.max_game_length == size * size + 1
    assert game.link.utility_bounds[:2] == (-2 * size, size * size)
    assert len(game.link.piece_owner) == 2 * size * size


def test_a_define_reading_the_state_cannot_size_an_action():
    text = textwrap.dedent(_STATIC).replace("twice(n): 2 * n", "twice(n): n * count(players)")
    with pytest.raises(SpecError, match=re.escape("'twice(...)' is not")):
        interpreter.game_from_text(text)


def test_copies_may_use_a_define_of_the_cards_attributes():
    """Validate accepted a define in `copies` that loading refused; now both accept a define
    made of numbers and options, and both refuse one reading the state."""
    spec = """
        define:
          big(n): n > 1
        cards:
          name: "{n}"
          list:
            - family: {n: "1..3"}
              copies: "COPIES"
        zones:
          deck: {}
        round:
          turn: [end game]
        match: {}
        """
    game = tiny_game(spec.replace("COPIES", "2 if big(n) else 0"))
    assert len(game.link.cards.kind_of) == 4
    with pytest.raises(SpecError, match=re.escape("copies can only use the card's attributes")):
        tiny_game(spec.replace("COPIES", "1 if big(n) and count(deck) > 0 else 0"))


def test_defines_fanning_out_are_computed_once_per_value_and_self_calls_never_run():
    chain = "\n".join(f"  d{k}: d{k - 1} + d{k - 1}" for k in range(1, 31))
    text = f"""
game: {{name: Tiny, players: 2, limits: {{actions: d30 // 1000000}}}}
define:
  d0: 1
{chain}
round:
  turn: [end game]
match: {{}}
"""
    assert interpreter.game_from_text(text).max_game_length == 2 ** 30 // 10 ** 6
    looping = text.replace("  d0: 1", "  d0: 1\n  f(n): 1 if n > 20 else f(n + 1) + f(n + 1)").replace(
        "d30 // 1000000", "f(0)")
    with pytest.raises(SpecError, match="itself|not known before"):
        interpreter.game_from_text(looping)


def test_a_loop_over_an_empty_list_binds_a_name_of_any_type():
    """`x.row`, `y.row` and `x + 1` of a name bound by a loop over an empty list (`[]`, a `let`
    of `[]`, a define's parameter given `[]`): the game loads, and each count is 0 in play."""
    game = tiny_game("""
        board: {rows: 2, cols: 2}
        define:
          low(xs): count(x for x in xs if x.row > 0)
        variables:
          n: {type: int, initial: -1}
        round:
          turn:
            - let ys = []
            - n = low([]) + count([y.row for y in ys]) + count([x + 1 for x in []])
            - end game
        match: {}
        """)
    state = game.new_initial_state(0)
    assert state.is_terminal()
    assert state.observation(0, events=False)["variables"]["n"] == 0


def test_a_size_may_not_call_a_define_that_reads_the_state():
    with pytest.raises(SpecError, match=re.escape("not 'g(...)'")):
        tiny_game("""
            define:
              g(n): n + turn
            board: {rows: "g(2)", cols: 2}
            round:
              turn: [end game]
            match: {}
            """)
