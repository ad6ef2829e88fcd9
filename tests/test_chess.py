"""Chess (games/chess.yaml): the rules of docs/rulings-chess.md, perft counts, then
move-for-move agreement with OpenSpiel's `chess` on random games.

Positions are written as FEN. A rule test that needs a position loads the same spec with
another text in its `positions` table (the entry `start`): only the starting position
changes, never a rule. The spec's own option `position` names the standard perft positions.
The deeper perft counts (depth 4 from the start, depth 3 of three more positions) are in
tests/test_chess_perft.py.
"""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

import pytest

import interpreter
from tests.conftest import GAMES, require
from tests.support import play

SPEC = (GAMES / "chess.yaml").read_text(encoding="utf-8")
VALUES = re.search(r"values: \[start, [^\]]*\]", SPEC).group(0)
TABLE = "  positions:\n"
# every FEN written in this file becomes one more starting position of the spec (an option
# value `fen0`, `fen1`, ... and its entry in the `positions` table), so the spec is compiled
# once for all the rule tests
FENS = sorted(set(re.findall(r'"([1-8pnbrqkPNBRQK/]{15,} [wb] [-KQkq]+ [-a-h1-8]+ [0-9]+ [0-9]+)"',
                             Path(__file__).read_text(encoding="utf-8"))))
WHITE, BLACK = 1, 0
LEFT_CASTLE, RIGHT_CASTLE = 4672, 4673
PIECES = {1: "P", 2: "N", 3: "B", 4: "R", 5: "Q", 6: "K"}


def _positions_spec() -> str:
    assert SPEC.count(VALUES) == 1 and SPEC.count(TABLE) == 1
    names = ", ".join(f"fen{i}" for i in range(len(FENS)))
    text = SPEC.replace(VALUES, VALUES[:-1] + ", " + names + "]")
    path = Path(tempfile.mkdtemp()) / "chess_positions.yaml"
    path.write_text(text.replace(TABLE, TABLE + "".join(f"    fen{i}: {f}\n" for i, f in enumerate(FENS))),
                    encoding="utf-8")
    return str(path)


POSITIONS_SPEC = _positions_spec()


def from_fen(fen: str) -> interpreter.State:
    """A new match of the spec from the position ``fen`` (all six fields, written literally
    in this file)."""
    game = interpreter.load_game(POSITIONS_SPEC, options={"position": f"fen{FENS.index(fen)}"})
    return game.new_initial_state(0)


@pytest.fixture(scope="module")
def game() -> interpreter.Game:
    return interpreter.load_game(str(GAMES / "chess.yaml"))


def fen(state: interpreter.State) -> str:
    """The position as OpenSpiel's ``ToString`` writes it (FEN)."""
    v = state.observation(0, events=False)["variables"]
    board = v["b"]
    rows = []
    for y in range(7, -1, -1):
        row, empty = "", 0
        for x in range(8):
            p = board[x * 8 + y]
            if p == 0:
                empty += 1
                continue
            if empty:
                row, empty = row + str(empty), 0
            row += PIECES[p] if p > 0 else PIECES[-p].lower()
        rows.append(row + (str(empty) if empty else ""))
    white = state.current_player() == WHITE
    rights = "".join(c for c, on in zip("KQkq", v["cr"]) if on) or "-"
    ep = "-" if v["ep"] < 0 else "abcdefgh"[v["ep"] // 8] + str(v["ep"] % 8 + 1)
    return f"{'/'.join(rows)} {'w' if white else 'b'} {rights} {ep} {v['clock']} {v['moveno']}"


def labels(state: interpreter.State) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def perft(state: interpreter.State, depth: int) -> int:
    if depth == 1:
        return len(state.legal_actions())
    total = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        total += perft(child, depth - 1)
    return total


# ------------------------------------------------------------------ the rules


def test_white_seat_1_moves_first_with_twenty_moves(game):
    """R1, R2: seat 1 is white and moves first; OpenSpiel's ids and SAN labels."""
    state = game.new_initial_state(0)
    assert game.seat_names == ["black", "white"]
    assert state.current_player() == WHITE
    assert list(zip(state.legal_actions(), labels(state))) == [
        (89, "a3"), (90, "a4"), (652, "Na3"), (656, "Nc3"), (673, "b3"), (674, "b4"), (1257, "c3"),
        (1258, "c4"), (1841, "d3"), (1842, "d4"), (2425, "e3"), (2426, "e4"), (3009, "f3"), (3010, "f4"),
        (3572, "Nf3"), (3576, "Nh3"), (3593, "g3"), (3594, "g4"), (4177, "h3"), (4178, "h4")]
    assert fen(state) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    play(state, "e4")
    assert state.current_player() == BLACK


def test_action_ids_are_seen_from_the_movers_side(game):
    """R2: black's moves have the ids of the mirrored white moves (ranks reflected)."""
    assert game.num_distinct_actions == 4674
    state = play(game.new_initial_state(0), "e4")
    assert list(zip(state.legal_actions(), labels(state)))[:4] == [
        (89, "a6"), (90, "a5"), (652, "Na6"), (656, "Nc6")]
    assert dict(zip(labels(state), state.legal_actions()))["e5"] == 2426


def test_pawns_step_once_or_twice_from_home_and_take_diagonally():
    """R3: one step forward onto an empty square, two from the home rank through empty
    squares; captures one square diagonally forward only."""
    state = from_fen("4k3/8/8/8/8/3p4/3P1P2/4K3 w - - 0 1")
    assert sorted(labels(state)) == sorted(["f3", "f4", "Kd1", "Kf1"])
    state = from_fen("4k3/8/8/3p1p2/4P3/8/8/4K3 w - - 0 1")
    assert {"exd5", "exf5", "e5"} <= set(labels(state)) and "e6" not in labels(state)


def test_pieces_slide_until_blocked_and_knights_jump():
    """R4: rook, bishop and queen slide up to the first piece (taking it if it is the
    opponent's); knights jump; no piece lands on its own side's piece."""
    state = from_fen("k7/8/8/3p4/8/1N1R4/8/4K3 w - - 0 1")
    rook = sorted(s for s in labels(state) if s.startswith("R"))
    assert rook == sorted(["Rd1", "Rd2", "Rd4", "Rxd5", "Rc3", "Re3", "Rf3", "Rg3", "Rh3"])
    knight = sorted(s for s in labels(state) if s.startswith("N"))
    assert knight == sorted(["Na1", "Na5", "Nc1", "Nc5", "Nd2", "Nd4"])


def test_check_must_be_answered():
    """R5: in check, only moves that end the check are legal (take, block, step away)."""
    state = from_fen("4k3/8/8/8/8/8/2RP1P2/r3K3 w - - 0 1")
    assert sorted(labels(state)) == ["Ke2", "Rc1"]


def test_a_pinned_piece_stays_on_the_line():
    """R6: a piece pinned to its king moves only along the pin (or not at all)."""
    state = from_fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1")
    assert sorted(s for s in labels(state) if s.startswith("R")) == sorted(
        ["Re3", "Re4", "Re5", "Re6", "Rxe7+"])
    state = from_fen("4k3/8/8/b7/8/8/3N4/4K3 w - - 0 1")
    assert not any(s.startswith("N") for s in labels(state))


def test_the_king_may_not_step_into_check_nor_along_the_checking_line():
    """R7: the king may not go to an attacked square, including one the checking piece
    attacks through the king's own square."""
    state = from_fen("4k3/8/8/8/8/8/8/r3K3 w - - 0 1")
    assert sorted(labels(state)) == sorted(["Kd2", "Ke2", "Kf2"])
    state = from_fen("8/8/8/8/8/2k5/8/K6R w - - 0 1")
    assert sorted(s for s in labels(state) if s.startswith("K")) == sorted(["Ka2", "Kb1"])


def test_castling_both_ways_with_ids_4672_and_4673():
    """R8: O-O-O is action 4672 and O-O 4673 for both sides; king and rook land on c/d or
    g/f."""
    state = from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert state.action_to_string(LEFT_CASTLE) == "O-O-O" and state.action_to_string(RIGHT_CASTLE) == "O-O"
    state.apply_action(RIGHT_CASTLE)
    assert fen(state) == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    state.apply_action(LEFT_CASTLE)
    assert fen(state) == "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"


def test_no_castling_out_of_through_or_into_check_nor_over_pieces():
    """R8: the squares between king and rook must be empty; the king's square, the square it
    crosses and the square it reaches must not be attacked."""
    assert LEFT_CASTLE not in from_fen("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1").legal_actions()
    assert {LEFT_CASTLE, RIGHT_CASTLE} & set(from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1").legal_actions()) == {
        LEFT_CASTLE, RIGHT_CASTLE}
    for position, gone in [("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1", {LEFT_CASTLE, RIGHT_CASTLE}),
                           ("4k3/5r2/8/8/8/8/8/R3K2R w KQ - 0 1", {RIGHT_CASTLE}),
                           ("4k3/6r1/8/8/8/8/8/R3K2R w KQ - 0 1", {RIGHT_CASTLE}),
                           ("4k3/3r4/8/8/8/8/8/R3K2R w KQ - 0 1", {LEFT_CASTLE}),
                           ("4k3/2r5/8/8/8/8/8/R3K2R w KQ - 0 1", {LEFT_CASTLE})]:
        state = from_fen(position)
        assert {LEFT_CASTLE, RIGHT_CASTLE} - set(state.legal_actions()) == gone, position
    # the b-file square may be attacked (only the king's path counts)
    assert LEFT_CASTLE in from_fen("4k3/1r6/8/8/8/8/8/R3K2R w KQ - 0 1").legal_actions()


def test_castling_rights_go_when_the_king_or_a_rook_moves_or_a_rook_is_taken():
    """R8: moving the king loses both rights, moving a rook its side's; a rook taken on its
    corner loses its owner's right."""
    state = play(from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "Rb1")
    assert fen(state).split()[2] == "Kkq"
    play(state, "Kd8")
    assert fen(state).split()[2] == "K"
    state = play(from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), "Rxh8+")
    assert fen(state).split()[2] == "Qq"


def test_en_passant_only_right_after_the_double_step():
    """R9: a pawn that stepped two squares past an opponent's pawn may be taken as if it had
    stepped one, on the next move only; the FEN shows the square only when a pawn stands
    beside (OpenSpiel sets it only then)."""
    state = play(from_fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1"), "d5")
    assert fen(state).split()[3] == "d6"
    assert "exd6" in labels(state)
    play(state, "exd6")
    assert fen(state) == "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2"
    state = play(from_fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1"), "d5", "Kd2", "Kd8")
    assert "exd6" not in labels(state)
    state = play(from_fen("4k3/3p4/8/8/8/8/8/4K3 b - - 0 1"), "d5")
    assert fen(state).split()[3] == "-"


def test_en_passant_that_uncovers_the_king_is_illegal():
    """R9: taking en passant removes two pawns from the rank: if that opens a line to the
    king, the capture is illegal (and the FEN still shows the square)."""
    state = play(from_fen("8/2p5/8/KP5r/8/8/8/7k b - - 0 1"), "c5")
    assert fen(state).split()[3] == "c6"
    assert "bxc6" not in labels(state)


def test_promotion_to_four_pieces_with_openspiels_ids():
    """R10: a pawn reaching the last rank becomes a queen, rook, bishop or knight; the queen
    has the ordinary move's id, the others OpenSpiel's underpromotion ids."""
    state = from_fen("8/P6k/8/8/8/8/p6K/8 w - - 0 1")
    assert list(zip(state.legal_actions(), labels(state)))[:4] == [
        (438, "a8=R"), (441, "a8=B"), (444, "a8=N"), (454, "a8=Q")]
    state.apply_action(444)
    assert fen(state).startswith("N7/7k/")
    assert list(zip(state.legal_actions(), labels(state)))[:4] == [
        (438, "a1=R"), (441, "a1=B"), (444, "a1=N"), (454, "a1=Q")]
    state = from_fen("1r5k/P7/8/8/8/8/8/7K w - - 0 1")
    assert {"axb8=Q+", "axb8=R+", "axb8=B", "axb8=N", "a8=Q", "a8=N"} <= set(labels(state))


def test_checkmate_wins(game):
    """R11: the player to move, in check, without a legal move loses: +1 / -1."""
    state = play(game.new_initial_state(0), "f3", "e5", "g4")
    assert "Qh4#" in labels(state)
    play(state, "Qh4#")
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    state = play(game.new_initial_state(0), "e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_stalemate_draws():
    """R12: the player to move, not in check, without a legal move: a draw."""
    state = play(from_fen("7k/8/6Q1/8/8/8/8/K7 w - - 0 1"), "Qf7")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_hundred_half_moves_without_capture_or_pawn_move_draw():
    """R13: at 100 half-moves without a capture or a pawn move the game is drawn; a pawn move
    or a capture sets the count back to 0; castling counts as a quiet move."""
    state = play(from_fen("4k3/8/8/8/8/8/4P3/R3K3 w Q - 98 60"), "Ra2")
    assert not state.is_terminal() and fen(state).split()[4] == "99"
    play(state, "Kd8")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    state = play(from_fen("4k3/8/8/8/8/8/4P3/R3K3 w Q - 98 60"), "e4")
    assert fen(state).split()[4] == "0"
    state = play(from_fen("4k3/8/8/8/8/8/4P3/R3K3 w Q - 5 60"), "O-O-O")
    assert fen(state).split()[4] == "6"


def test_checkmate_on_the_hundredth_half_move_wins():
    """R13: mate is tested before the 100 half-moves (OpenSpiel's order)."""
    state = play(from_fen("k7/8/1K6/8/8/8/8/7R w - - 99 80"), "Rh8#")
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_the_third_repetition_draws(game):
    """R14: the third time the same position (pieces, side to move, castling rights, en
    passant square) comes up, the game is drawn; the starting position counts."""
    state = play(game.new_initial_state(0), "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    assert not state.is_terminal()
    play(state, "Ng8")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_lost_castling_rights_make_another_position():
    """R14: the same pieces with other castling rights are another position."""
    state = play(from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), "Kf1", "Kd8", "Ke1", "Ke8")
    play(state, "Kf1", "Kd8", "Ke1", "Ke8")
    assert not state.is_terminal()                 # the start (with the right) came once
    play(state, "Kf1")
    assert state.is_terminal()                     # after Kf1 the third time


@pytest.mark.parametrize("position, over", [
    ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", True),       # K v K
    ("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", True),      # K+B v K
    ("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1", True),     # K+N v K
    ("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", True),    # bishops on squares of one colour
    ("4k1b1/8/8/8/8/8/8/2B1K3 w - - 0 1", False),  # bishops on both colours
    ("4k3/8/8/8/8/8/8/4KNN1 w - - 0 1", False),    # two knights
    ("4kn2/8/8/8/8/8/8/4K1N1 w - - 0 1", False),   # a knight each
    ("4k3/8/8/8/8/8/8/3BKN2 w - - 0 1", False),    # knight and bishop
    ("4k3/8/8/8/8/8/8/4K2P w - - 0 1", False),     # a pawn
])
def test_too_little_material_draws(position, over):
    """R15: OpenSpiel's HasSufficientMaterial: the game ends drawn when no side can mate."""
    state = from_fen(position)
    assert state.is_terminal() == over
    if over:
        assert state.returns() == [0.0, 0.0]


def test_san_names_the_file_or_rank_when_two_pieces_could_go():
    """R16: SAN adds the file when it tells the pieces apart, else the rank, else both;
    '+' for check, '#' for mate, 'x' for captures (en passant too)."""
    state = from_fen("4k3/8/8/8/8/8/4K3/R6R w - - 0 1")
    assert {"Rab1", "Rhg1"} <= set(labels(state)) and "Rb1" not in labels(state)
    state = from_fen("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1")
    assert {"R1a3", "R5a3"} <= set(labels(state))
    state = from_fen("4k3/8/8/8/8/Q1Q5/8/Q3K3 w - - 0 1")
    assert "Qa3b2" in labels(state) and "Qab2" not in labels(state)
    state = from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert "Ra8+" in labels(state)


def test_heuristic_is_the_material_lead():
    state = from_fen("4k3/8/8/8/8/8/PP6/R3K3 w - - 0 1")
    assert state.game.heuristic(state, WHITE) == 7 and state.game.heuristic(state, BLACK) == -7


# ------------------------------------------------------------------ perft


@pytest.mark.parametrize("position, counts", [
    ("start", [20, 400, 8902]),
    ("kiwipete", [48, 2039]),
    ("position3", [14, 191, 2812]),
    ("position4", [6, 264]),
    ("position5", [44, 1486]),
    ("position6", [46, 2079]),
])
def test_perft(position, counts):
    """The number of move sequences of each length from the standard perft positions
    (Chess Programming Wiki), depth 1 to 3 (tests/test_chess_perft.py goes deeper)."""
    state = interpreter.load_game(str(GAMES / "chess.yaml"), options={"position": position}).new_initial_state(0)
    assert [perft(state, d) for d in range(1, len(counts) + 1)] == counts


# ------------------------------------------------------------------ against OpenSpiel


def _lockstep(pyspiel, seed: int, cap: int | None, all_labels_every: int) -> tuple[int, tuple | None]:
    """One random game in lockstep with pyspiel's `chess`, at most ``cap`` plies: the same
    current player, legal actions and position (FEN) at every step, the label of the move
    played, every label every ``all_labels_every`` steps, and at the end the same returns."""
    from interpreter.adapters.openspiel import interpreter_state, register

    ours = register(str(GAMES / "chess.yaml"))
    theirs = pyspiel.load_game("chess")
    rng = random.Random(seed)
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    steps = 0
    while not b.is_terminal():
        where = f"seed {seed}, step {steps}, {b}"
        assert not a.is_terminal() and a.current_player() == b.current_player(), where
        legal = b.legal_actions()
        assert a.legal_actions() == legal, where
        assert fen(interpreter_state(a)) == str(b), where
        assert not a.is_chance_node()
        if steps % all_labels_every == 0:
            assert [a.action_to_string(a.current_player(), m) for m in legal] == [
                b.action_to_string(b.current_player(), m) for m in legal], where
        if cap is not None and steps >= cap:
            return steps, None
        move = legal[rng.randrange(len(legal))]
        assert a.action_to_string(a.current_player(), move) == b.action_to_string(b.current_player(), move), where
        a.apply_action(move)
        b.apply_action(move)
        steps += 1
    assert a.is_terminal(), f"seed {seed}: OpenSpiel ended, ours did not"
    assert a.returns() == pytest.approx(b.returns())
    return steps, tuple(b.returns())


def test_chess_matches_openspiel_on_50_games_of_60_plies():
    pyspiel = require("pyspiel")
    ours = interpreter.load_game(str(GAMES / "chess.yaml"))
    assert ours.num_distinct_actions == pyspiel.load_game("chess").num_distinct_actions() == 4674
    steps = sum(_lockstep(pyspiel, seed, 60, 20)[0] for seed in range(50))
    assert steps > 2500


def test_chess_matches_openspiel_on_complete_games():
    """Whole random games (a few hundred plies each, most drawn by the 50-move rule or too
    little material; seeds chosen to include mates of both sides)."""
    pyspiel = require("pyspiel")
    outcomes = {_lockstep(pyspiel, seed, None, 25)[1] for seed in (115, 123, 139, 100)}
    assert outcomes == {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
