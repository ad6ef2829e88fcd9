"""rulespec describe --for players: the rules a player learns from (and the grammar of both views)."""

from __future__ import annotations

import glob
import re

import pytest

from rulespec import SpecError, compile_file
from rulespec.describe import describe
from tests.conftest import GAMES, ROOT
from tests.support import run

HIGHJACK = str(GAMES / "highjack.yaml")
HIGHHAND = str(GAMES / "highhand.yaml")


def players_view(path: str) -> str:
    status, out, err = run("describe", path, "--for", "players")
    assert status == 0, err
    return out


def sections(text: str) -> list[str]:
    return re.findall(r"^## (.*)$", text, flags=re.M)


def test_the_goal_comes_first_and_internals_are_left_out():
    text = players_view(HIGHJACK)
    assert sections(text)[0] == "Goal"
    for internal in ("Variables", "Definitions", "Procedures", "Evaluation for bots", "Invariants (always true)",
                     "Variants to test"):
        assert internal not in sections(text)
        assert f"## {internal}" in describe(compile_file(HIGHJACK))  # the designers still get it
    assert "announce" not in text and "Reported" not in text and "heuristic" not in text
    assert "The match is won by the players with the highest total." in text


def test_each_card_says_what_it_does_in_its_row():
    text = players_view(HIGHJACK)
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| ")}
    assert rows["Munchies"].startswith("| Munchies | 3 | action | 5 |")
    assert "Effect: you choose any opp in the players other than you" in rows["Munchies"]
    assert "draw 2 cards from the Take a Hit pile to opp's hand" in rows["Munchies"]
    assert "Win: draw 2 cards from the Take a Hit pile to your hand." in rows["Session 1, Session 2, Session 3"]
    assert "what it does" in rows["card"] and rows["Bong"].endswith("|  |")  # a Stash Box card does nothing


def test_labels_are_examples_not_templates():
    for path in (HIGHJACK, HIGHHAND):
        text = players_view(path)
        assert "{" not in text and "Shown as" not in text
    assert 'for example "Munchies: P1 takes 2 hits"' in players_view(HIGHJACK)
    assert 'for example "commit Session 1 face down"' in players_view(HIGHJACK)  # a card that may be committed
    assert 'for example "declare P1 as partner"' in players_view(HIGHHAND)


def test_rules_are_read_with_the_default_options():
    text = players_view(HIGHJACK)
    assert "the highest total is at least 420 and exactly one player has the highest total" in text
    assert "option " not in text.split("## Options")[0]  # options appear as their values
    assert "one_hitter_quitter" not in text.split("## Options")[0]  # a rule of another option value drops out
    assert "| `target` | 420 | Points that end a chronic match (R11). |" in text
    # High Hand: partnerships is true by default, so declaring depends on the players and the board only
    declare = next(line for line in players_view(HIGHHAND).splitlines() if "**declare**" in line)
    assert "partnerships" not in declare and "the number of players is 4" in declare


def test_the_first_turn_corner_rule_reads_as_a_sentence():
    take = next(line for line in players_view(HIGHHAND).splitlines() if "**take**" in line)
    assert ", except when this is your first turn and dest is in the starting cells of your pieces" in take
    assert "not (" not in take


def test_procedures_called_in_several_places_are_explained_once_under_details():
    text = players_view(HIGHJACK)
    named = set(re.findall(r"do (\w[\w ]*)\([^)]*\) \(see Details\)", text))
    assert named, "join session is long and called twice"
    details = text.split("## Details", 1)[1]
    for name in named:
        assert f"### {name}(" in details


@pytest.mark.parametrize("audience", ["designers", "players"])
def test_grammar_of_both_views(audience):
    for path in sorted(glob.glob(str(GAMES / "*.yaml"))):
        text = describe(compile_file(path), audience)
        assert "me's " not in text and "you's " not in text and " at at " not in text, path
        assert "me chooses" not in text and "you chooses" not in text and "you has " not in text, path
    hand = describe(compile_file(HIGHHAND), audience)
    assert "the square at at" not in hand
    if audience == "designers":
        assert "- if the square at `at` is not empty:" in hand  # (a zone counted against 0 reads "empty")
        assert "- move c to my hand" in describe(compile_file(HIGHJACK))


def test_the_default_view_is_for_designers_and_the_choice_is_checked(tmp_path):
    status, default, _ = run("describe", HIGHJACK)
    assert status == 0 and default == run("describe", HIGHJACK, "--for", "designers")[1]
    assert default == describe(compile_file(HIGHJACK))
    out = tmp_path / "rules.md"
    status, printed, _ = run("describe", HIGHJACK, "--for", "players", "-o", str(out))
    assert status == 0 and printed == "" and out.read_text() == players_view(HIGHJACK)
    status, _, err = run("describe", HIGHJACK, "--for", "kids")
    assert status == 2 and "invalid choice: 'kids'" in err
    with pytest.raises(ValueError):
        describe(compile_file(HIGHJACK), "kids")


SPECS = sorted(glob.glob(str(GAMES / "*.yaml")) + glob.glob(str(ROOT / "tests/specs/valid/**/*.yaml"), recursive=True))


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.rsplit("/", 1)[-1])
def test_players_view_works_for_any_valid_spec(path):
    try:
        gamedef = compile_file(path)
    except SpecError:
        pytest.skip("not a complete spec on its own")
    text = describe(gamedef, "players")
    assert text.startswith(f"# {gamedef.model.name}\n") and text.endswith("\n")
    assert "<rulespec" not in text and "object at 0x" not in text
    assert sections(text)[0] == "Goal"
