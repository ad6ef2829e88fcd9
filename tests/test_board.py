"""The board and its pieces, each driven by a tiny inline spec: moves and placing, n in a row,
a board whose size is an expression, the geometry built-ins (neighbours, directions, rays,
connectivity, groups), pieces that change owner or kind, and starting patterns."""

from __future__ import annotations

import re
import textwrap

import pytest

import interpreter
from interpreter import RuleError
from rulespec import SpecError
from tests.support import TINY, act, tiny_game, zone_names

# ---------------------------------------------------------------- board and pieces


BOARD = """
board: {rows: 4, cols: 4}
pieces:
  rook:
    per_player: 1
    start: {"2": [[a1], [a4]]}
cards: {list: [{family: {n: "1..16"}, name: "N{n}"}]}
zones:
  pile: {}
  square: {per: cell, visibility: public}
  won: {per: player}
"""


def test_straight_moves_stop_at_pieces_and_take_what_lies_on_the_destination():
    game = tiny_game(BOARD, """
        round:
          setup: [deal 1 from pile to square]
          turn:
            - choose:
                action: go
                for: r in pieces(current), to in slides(r)
                do: [move r to to, move all square(to) to won(current)]
            - end game
        """)
    state = game.new_initial_state(0)
    # seat 1 starts (dealer 0); its rook is on a4; the other rook on a1 blocks the a-file below a2
    reachable = sorted(state.action_to_string(a).split("to=")[1] for a in state.legal_actions())
    assert reachable == ["a2", "a3", "b4", "c4", "d4"]
    act(state, "go r=P1 rook to=a2")
    assert len(zone_names(state, "won", 1)) == 1
    assert state.observation(0)["board"]["a2"]["owner"] == 1


def test_n_in_a_row_and_placing_pieces():
    game = tiny_game("""
        board: {rows: 3, cols: 3}
        pieces: {mark: {per_player: 3}}
        round:
          turn:
            - choose:
                action: mark
                for: c in empty_cells()
                do:
                  - place mark of current at c
                  - if: line(current, 3)
                    then: [current.score = 1, end game]
    """)
    state = game.new_initial_state(0)
    for cell in ["a1", "a2", "b1", "b2", "c1"]:  # seat 1 (first) takes the bottom row
        act(state, f"mark c={cell}")
    assert state.is_terminal() and state.winners() == [1]

# ---------------------------------------------------------------- a board whose size is an option

_SIZED = """
options:
  size: {type: int, default: 3, min: 2, max: 20}
board: {rows: option.size, cols: num_players + 1}
pieces:
  stone:
    per_player: 1
    start:
      "2": [[a1], [c3]]
round:
  first: player(0)
  turn:
    - choose:
        action: put
        for: c in empty_cells()
        label: "{c}"
        do: [end game]
match: {}
"""


@pytest.mark.parametrize("size", [3, 6])
def test_the_board_size_can_be_an_expression_of_options_and_players(size):
    """`rows: option.size`, `cols: num_players + 1`: evaluated when the game is loaded."""
    game = tiny_game(_SIZED, options={"size": size})
    board = game.link.board
    assert (board.rows, board.cols) == (size, 3)
    state = game.new_initial_state(0)
    assert len(state.legal_actions()) == size * 3 - 2  # every cell but the two starting ones
    assert "c3" in board.names and f"a{size}" in board.names


def test_a_board_size_out_of_bounds_or_a_start_off_the_board_fails_when_the_game_is_loaded():
    with pytest.raises(RuleError, match="the board would have 28 rows; it can have 1 to 26") as caught:
        tiny_game(_SIZED.replace("rows: option.size", "rows: option.size * 2"), options={"size": 14})
    # at the expression: line 7 of the text (TINY's three lines, then _SIZED's), after "board: {rows: "
    assert (caught.value.span.line, caught.value.span.col) == (7, len("board: {rows: ") + 1)
    with pytest.raises(RuleError, match="the starting cell 'c3' of stone is not on the 2x3 board"):
        tiny_game(_SIZED, options={"size": 2})


def test_a_board_size_may_only_read_options_and_the_player_count():
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _SIZED.replace("cols: num_players + 1", "cols: turn")))
    with pytest.raises(SpecError, match="board.cols can only use num_players and options, not 'turn'"):
        interpreter.game_from_text(text)

# ---------------------------------------------------------------- geometry

_GEOMETRY = """
board: {rows: 3, cols: 4}
pieces:
  stone: {per_player: 6}
round:
  setup:
    - place stone of player(0) at cell('a3')
    - place stone of player(0) at cell('b2')
    - place stone of player(0) at cell('b1')
    - place stone of player(1) at cell('c3')
  turn:
    - let mine = [c for c in cells if piece_at(c) != none and piece_at(c).owner == player(0)]
    - let top = [c for c in cells if c.row == 0]
    - let bottom = [c for c in cells if c.row == 2]
    - emit geometry(n=neighbours(cell('a3')), d=neighbours(cell('b2'), dirs='diagonal'),
        h=neighbours(cell('b2'), dirs='hex'), all=count(neighbours(cell('b2'), dirs='all')),
        steps=directions('hex'), r1=ray(cell('a3'), 0, 1), r2=ray(cell('d1'), 0, -1),
        r3=ray(cell('a1'), -1, 1), r0=ray(cell('a1'), 0, 0), square=connected(mine, top, bottom),
        hex=connected(mine, top, bottom, dirs='hex'), g=group(cell('a3'), mine), gh=group(cell('a3'),
        mine, dirs='hex'), none=group(cell('d3'), mine))
    - end game
match: {}
"""


def test_geometry_neighbours_directions_rays_and_connectivity():
    """Cells a3 b3 c3 d3 / a2 b2 c2 d2 / a1 b1 c1 d1 (row 0 on top); seat 0 holds a3, b2, b1;
    seat 1 holds c3. On a hex board drawn as a rhombus, (r, c) touches (r-1, c) and
    (r-1, c+1) above, (r+1, c-1) and (r+1, c) below: a3 and b2 are not neighbours there."""
    state = tiny_game(_GEOMETRY).new_initial_state(0)
    assert state.is_terminal()
    (event,) = [e for e in state.events if e["type"] == "geometry"]
    assert event["n"] == ["b3", "a2"]                       # left, right, up, down order; off-board left out
    assert event["d"] == ["a3", "c3", "a1", "c1"]
    assert event["h"] == ["b3", "c3", "a2", "c2", "a1", "b1"]
    assert event["all"] == 8
    assert event["steps"] == [[-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0]]
    assert event["r1"] == ["b3", "c3"]                      # stops at (and includes) the first piece
    assert event["r2"] == ["c1", "b1"]
    assert event["r3"] == ["b2"]
    assert event["r0"] == []
    assert event["square"] is False                         # a3 and b2 touch only diagonally
    assert event["hex"] is False
    assert event["g"] == ["a3"]
    assert event["none"] == []


def test_geometry_connects_through_hex_neighbours():
    spec = _GEOMETRY.replace("cell('a3')\n    - place stone of player(0) at cell('b2')",
                             "cell('b3')\n    - place stone of player(0) at cell('a2')")
    state = tiny_game(spec).new_initial_state(0)
    (event,) = [e for e in state.events if e["type"] == "geometry"]
    # b3 (0, 1) touches a2 (1, 0) on a hex board, but a2 does not touch b1 (2, 1)
    assert event["hex"] is False and event["square"] is False
    spec = spec.replace("cell('b1')", "cell('a1')")
    state = tiny_game(spec).new_initial_state(0)
    (event,) = [e for e in state.events if e["type"] == "geometry"]
    assert event["hex"] is True and event["square"] is False   # b3-a2 (hex only), a2-a1 (both)
    assert event["gh"] == [] and event["g"] == []               # a3 is empty now: no group


@pytest.mark.parametrize("call, message", [
    ("neighbours(cell('a1'), dirs='round')", "unknown directions 'round'"),
    ("directions(option_dirs)", "must be written as text"),
    ("ray(cell('a1'), 'x', 1)", "must be a whole number"),
])
def test_geometry_arguments_are_checked(call, message):
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _GEOMETRY)).replace(
        "    - end game", f"    - let probe = {call}\n    - end game").replace("option_dirs", "'x' + 'y'")
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text)

# ---------------------------------------------------------------- pieces that change owner or kind

_CHANGE = """
board: {rows: 1, cols: 3}
pieces:
  man: {per_player: 2}
  king: {per_player: 0}
variables:
  seen: {type: value, initial: "[]"}
round:
  setup:
    - place man of player(0) at cell('a1')
    - place man of player(1) at cell('b1')
  turn:
    - let x = piece_at(cell('a1'))
    - let y = piece_at(cell('b1'))
    - x.kind = 'king'
    - y.owner = player(0)
    - seen = [count(pieces(player(0))), count(pieces(player(1))), count(pieces(player(0), 'king')), str(x.kind)]
    - place man of player(0) at cell('c1')
    - end game
match:
  end_when: count(pieces(player(1))) == 0 and false
"""


def test_a_piece_can_change_kind_and_owner_in_place():
    game = tiny_game(_CHANGE)
    state = game.new_initial_state(0)
    view = state.observation(0, events=False)
    assert view["variables"]["seen"] == [3, 1, 1, "king"]
    assert view["board"]["a1"]["piece"] == "king" and view["board"]["a1"]["owner"] == 0
    assert view["board"]["b1"]["piece"] == "man" and view["board"]["b1"]["owner"] == 0
    # seat 0's men: its second man, then seat 1's first man, now seat 0's, is on b1; c1 takes
    # seat 0's second man (the first off the board among its men)
    assert view["board"]["c1"]["owner"] == 0
    assert game.state_from_json(state.to_json()) == state


@pytest.mark.parametrize("old, new, message", [
    ("x.kind = 'king'", "x.kind = 'queen'", "unknown piece kind 'queen'"),
    ("x.kind = 'king'", "x.start = cell('c1')", "a piece's `owner` and `kind` can be set"),
    ("y.owner = player(0)", "y.owner = 3", "the value of 'owner' must be a player"),
])
def test_changing_a_piece_is_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _CHANGE)).replace(old, new)
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text)

# ---------------------------------------------------------------- starting patterns

_PATTERN = """
options:
  size: {type: int, default: 4, min: 2, max: 8}
board: {rows: option.size, cols: option.size}
pieces:
  man:
    per_player: option.size // 2
    start_when: "(c.row + c.col) % 2 == 1 and (c.row == option.size - 1 if p.seat == 0 else c.row == 0)"
round:
  turn: [end game]
match: {}
"""


@pytest.mark.parametrize("size, seat0, seat1", [
    (4, ["a1", "c1"], ["b4", "d4"]),
    (6, ["a1", "c1", "e1"], ["b6", "d6", "f6"]),
])
def test_pieces_start_on_the_cells_a_pattern_names(size, seat0, seat1):
    state = tiny_game(_PATTERN).new_initial_state(0) if size == 4 else \
        tiny_game(_PATTERN, options={"size": size}).new_initial_state(0)
    board = state.observation(0, events=False)["board"]
    assert sorted(c for c, x in board.items() if x["owner"] == 0) == seat0
    assert sorted(c for c, x in board.items() if x["owner"] == 1) == seat1


@pytest.mark.parametrize("old, new, message", [
    ("c.row == 0)", "c.row <= 1)", "gives seat 1 4 cells for 2 pieces"),
    ("(c.row == option.size - 1 if p.seat == 0 else c.row == 0)", "c.row == 0", "puts a piece of seat 0"),
    ("c.row == 0)", "count(players) > 0)", "a starting pattern can only use c, p"),
    ("p.seat == 0", "p.score == 0", "a starting pattern can read p.seat, not 'p.score'"),
])
def test_a_starting_pattern_is_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _PATTERN)).replace(old, new)
    with pytest.raises((SpecError, RuleError), match=re.escape(message)):
        interpreter.game_from_text(text)


def test_geometry_of_a_value_that_is_not_a_cell_is_empty():
    game = tiny_game("""
        board: {rows: 3, cols: 3}
        variables:
          v: {type: value, initial: "-2"}
        round:
          turn:
            - emit got(n=neighbours(v), r=ray(v, 1, 1), g=group(cell('a1'), [v, cell('a1')]))
            - end game
        match: {}
        """)
    (event,) = [e for e in game.new_initial_state(0).events if e["type"] == "got"]
    assert (event["n"], event["r"], event["g"]) == ([], [], ["a1"])
