"""rulespec play for humans: the view between the steps of a turn, what is hidden, cells and card
names as answers, colours, the best hand, and seats filled with bots."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

import interpreter
from interpreter.agents import AgentError
from interpreter.analysis.simulate import match_seeds
from interpreter.play import QuitMatch, TerminalMatch, card_colours, player_facing_variables, seat_agents
from tests.conftest import GAMES
from tests.support import run

HIGHHAND = str(GAMES / "highhand.yaml")
HIGHJACK = str(GAMES / "highjack.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")
ANSWERS = "1\n" * 3000
ESC = "\x1b["


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def first_menu(path: str, players: int, seed: int, options: dict | None = None) -> list[str]:
    """The labels of the first decision of seat 0, as `play --seed` deals it."""
    game = interpreter.load_game(path, players=players, options=options or {})
    state = game.new_initial_state(match_seeds(seed, 0, players)[0])
    assert state.current_player() == 0
    return [state.action_to_string(a) for a in state.legal_actions()]


# ---------------------------------------------------------------------- seats


def test_unnamed_seats_are_filled_with_bots_and_the_intro_says_which():
    assert seat_agents(["human"], 4) == (["human", "mcts", "mcts", "mcts"], [1, 2, 3])
    assert seat_agents(["human", "random"], 3) == (["human", "random", "mcts"], [2])
    assert seat_agents([], 2) == (["human", "mcts"], [1])
    assert seat_agents(["random"], 3) == (["random"] * 3, [])  # one bot: every seat
    assert seat_agents(["human", "human"], 2) == (["human", "human"], [])
    with pytest.raises(AgentError):
        seat_agents(["human", "random", "random"], 2)
    status, out, err = run("play", HIGHJACK, "--players", "4", "--agents", "human", stdin="q\n")
    assert status == 0, err
    assert "Seats: P0 (human), P1 (mcts" in out and "P3 (mcts" in out
    assert re.search(r"No agent was given for P1, P2, P3: mcts\S* plays them\.", out)
    status, out, _ = run("play", TICTACTOE, "--agents", "human,random", stdin="q\n")
    assert status == 0 and "No agent was given" not in out


# ---------------------------------------------------------------------- the view


def views_of(out: str, name: str = "P0") -> list[str]:
    return re.findall(rf"{name}'s view\n(.*?)\n{name}, choose an action", out, flags=re.S)


def test_the_view_is_redrawn_between_the_steps_of_one_turn():
    status, out, err = run("play", HIGHHAND, "--players", "2", "--agents", "human,random", "--seed", "2",
                           "--option", "rounds=1", stdin="1\n1\nq\n")
    assert status == 0, err
    lines = out.splitlines()
    block = next(i for i, line in enumerate(lines) if line.startswith("  P0 (human): block: "))
    rest = lines[block + 1:]
    assert rest.index("P0's view") < rest.index("P0, choose an action:")  # the second step shows the board again
    moved = lines[block].split(" to ")[-1]  # the cell the blocker went to
    board = "\n".join(rest[: rest.index("P0, choose an action:")])
    assert re.search(r"^\s+P0 pawn \d", board, flags=re.M) and moved


def test_hidden_zones_show_a_count_and_bookkeeping_variables_are_hidden():
    status, out, err = run("play", HIGHHAND, "--players", "2", "--agents", "human,random", "--seed", "2",
                           "--option", "rounds=1", stdin="q\n")
    assert status == 0, err
    (view,) = views_of(out)
    assert "  unused:" not in view and "  deck:" not in view  # nobody may look at them
    assert re.search(r"^  Face down, unseen: unused \d+$", view, flags=re.M)
    assert "stall" not in view and "on_board" not in view and "starter" not in view
    facing = player_facing_variables(interpreter.load_game(HIGHHAND, players=2))
    assert {"declarer", "partner", "conceded", "high"} <= facing and not {"stall", "on_board", "starter"} & facing
    status, out, _ = run("play", HIGHJACK, "--players", "2", "--agents", "human,random", "--seed", "2",
                         "--option", "max_rounds=1", stdin="q\n")
    (view,) = views_of(out)
    assert "stash_kinds" not in view and "  Take a Hit pile:" not in view
    assert re.search(r"^  Face down, unseen: Take a Hit pile \d+$", view, flags=re.M)
    assert "stash_kinds" not in player_facing_variables(interpreter.load_game(HIGHJACK, players=2))


def test_the_best_hand_of_the_players_own_cards_is_shown():
    status, out, err = run("play", HIGHHAND, "--players", "2", "--agents", "human,random", "--seed", "4",
                           "--option", "rounds=1", stdin=ANSWERS)
    assert status == 0, err
    game = interpreter.load_game(HIGHHAND, players=2)
    categories = {c.name for c in game.gamedef.model.rankings[0].categories}
    shown = re.findall(r"^  Your best poker hand: (.*?) \((.*)\)$", out, flags=re.M)
    assert shown and {category for category, _ in shown} <= categories
    for view in views_of(out):  # the hand shown is made of the cards the player took
        best = re.search(r"^  Your best poker hand: .*? \((.*)\)$", view, flags=re.M)
        taken = re.search(r"^  taken: P0 \(you\): (.*?) \|", view, flags=re.M).group(1)
        if best is None:
            assert taken == "empty"
        else:
            assert set(best.group(1).split(", ")) <= set(taken.split(", "))
    status, out, _ = run("play", HIGHJACK, "--players", "2", "--agents", "human,random", "--seed", "2",
                         "--option", "max_rounds=1", stdin="q\n")
    assert "Your best" not in out  # no ranking in the spec


# ---------------------------------------------------------------------- answers


def test_a_cell_answer_picks_the_one_action_naming_it_or_lists_the_candidates():
    labels = first_menu(HIGHHAND, 2, 2, {"rounds": 1})
    cells = {}
    for label in labels:
        for cell in set(re.findall(r"\b[a-f][1-6]\b", label)):
            cells.setdefault(cell, []).append(label)
    single = next(c for c, named in sorted(cells.items()) if len(named) == 1)
    double = next(c for c, named in sorted(cells.items()) if len(named) == 2)
    status, out, err = run("play", HIGHHAND, "--players", "2", "--agents", "human,random", "--seed", "2",
                           "--option", "rounds=1", stdin=f"{double.upper()}\n{single}\nq\n")
    assert status == 0, err
    assert f"  {double.upper()} fits 2 actions; enter one of their numbers:" in out
    for label in cells[double]:
        assert re.search(rf"^ +{labels.index(label) + 1}\. {re.escape(label)}$", out, flags=re.M)
    assert f"  P0 (human): {cells[single][0]}" in out


def test_a_card_name_answer_plays_that_card():
    labels = first_menu(HIGHJACK, 2, 3, {"max_rounds": 1})
    game = interpreter.load_game(HIGHJACK, players=2)
    named = [(n, [lb for lb in labels if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", lb)])
             for n in set(game.cards.names)]
    card, (label,) = next((n, ls) for n, ls in sorted(named) if len(ls) == 1)
    status, out, err = run("play", HIGHJACK, "--players", "2", "--agents", "human,random", "--seed", "3",
                           "--option", "max_rounds=1", stdin=f"{card.lower()}\nq\n")
    assert status == 0, err
    assert f"  P0 (human): {label}" in out and "not a choice" not in out
    status, out, _ = run("play", HIGHJACK, "--players", "2", "--agents", "human,random", "--seed", "3",
                         "--option", "max_rounds=1", stdin="Munchie\nq\n")
    assert "not a choice" in out  # a part of a name is no name


# ---------------------------------------------------------------------- colours


def test_cards_are_coloured_by_a_colour_attribute_only_on_a_colour_terminal(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    game = interpreter.load_game(HIGHHAND, players=2)
    colours = card_colours(game)
    assert set(colours) == {"purple", "red", "blue", "green"} and "Red 7" in colours["red"]
    assert card_colours(interpreter.load_game(HIGHJACK, players=2)) == {}  # no attribute holds colours

    def play(console: Console) -> str:
        with pytest.raises(QuitMatch):
            TerminalMatch(game, HIGHHAND, ["human", "random"], 2, console, io.StringIO("q\n")).run()
        return console.file.getvalue()

    coloured = play(Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=120))
    assert re.search(r"\x1b\[3[1-6]m(Red|Blue|Green) \d+", coloured)
    plain = play(Console(file=io.StringIO(), force_terminal=True, color_system="standard", no_color=True, width=120))
    assert not re.search(r"\x1b\[3[1-6]m", plain)
    # through the command line: a pipe gets no escape codes at all; a terminal gets colours unless --no-color
    argv = ["play", HIGHHAND, "--players", "2", "--agents", "human,random", "--seed", "2", "--option", "rounds=1"]
    assert ESC not in run(*argv, stdin="q\n")[1]
    assert re.search(r"\x1b\[[0-9;]*m(Red|Blue|Green|Purple) \d+", run(*argv, stdin="q\n", out=Terminal())[1])
    assert not re.search(r"\x1b\[[0-9;]*m(Red|Blue|Green|Purple) \d+",
                         run(*argv, "--no-color", stdin="q\n", out=Terminal())[1])
