"""Statements by name (issue 54): a statement may carry a name, unique in its list, and a patch
path may use it where it uses an index; a patch's `was:` states what it replaces, so the issue's
wrong index (`/round/setup/2` when 3 was meant) fails loudly instead of replacing "shuffle pile"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import rulespec
from rulespec.describe import describe
from tests.conftest import GAMES

BASE = """\
rulespec: 1
game:
  name: Named
  players: {min: 2, max: 3}
cards:
  name: "{colour} {number}"
  list:
    - family: {colour: [red, blue], number: "1..6"}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {}
variables:
  played: {type: int, reset: round}
actions:
  play:
    for: card in hand(current)
    label: play {card}
    do: [move card to table, played += 1]
round:
  setup:
    - move all cards to deck face down
    - {name: shuffle-deck, do: shuffle deck}
    - name: deal
      do: deal 3 from deck to hand
  turn:
    - name: play-a-card
      choose: play
      else: [end round]
  end_when: turn >= 6
match:
  end_when: round >= 2
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "base.yaml").write_text(BASE, encoding="utf-8")
    return tmp_path


def variant(folder: Path, text: str, name: str = "variant.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def first_error(path: Path) -> str:
    with pytest.raises(rulespec.SpecError) as caught:
        rulespec.compile_file(path)
    return caught.value.format().split("\n\n")[0]


def setup_texts(path: Path) -> list[str]:
    """The round's setup as the model holds it: each statement's source text."""
    gamedef = rulespec.compile_file(path)
    sources = gamedef.sources
    out = []
    for stmt in gamedef.model.round.setup.stmts:
        line = sources[stmt.span.file].splitlines()[stmt.span.line - 1]
        out.append(line[stmt.span.col - 1:].rstrip("}").strip())
    return out


def test_a_named_statement_runs_as_the_statement_it_names(folder):
    named = rulespec.compile_file(folder / "base.yaml")
    plain = rulespec.compile_text(BASE.replace("{name: shuffle-deck, do: shuffle deck}", "shuffle deck")
                                  .replace("    - name: deal\n      do: deal 3", "    - deal 3")
                                  .replace("    - name: play-a-card\n      choose", "    - choose"), "plain.yaml")
    assert describe(named, "players").replace("Named", "X") == describe(plain, "players").replace("Named", "X")
    assert len(named.model.round.setup.stmts) == 3


def test_replace_add_and_remove_by_name(folder):
    path = variant(folder, """\
extends: base.yaml
patches:
  - {op: replace, path: /round/setup/deal/do, value: deal 4 from deck to hand}
  - {op: add, path: /round/setup/deal, value: {name: shuffle-again, do: shuffle deck}}
  - {op: remove, path: /round/setup/shuffle-deck}
  - {op: replace, path: /round/turn/play-a-card/else, value: [end game]}
""")
    assert setup_texts(path) == ["move all cards to deck face down", "shuffle deck", "deal 4 from deck to hand"]
    gamedef = rulespec.compile_file(path)
    stmt = gamedef.model.round.phases[0].turn.stmts[0]
    assert type(stmt.orelse.stmts[0]).__name__ == "End" and stmt.orelse.stmts[0].level == "game"


def test_a_name_survives_an_earlier_insert_where_an_index_would_not(folder):
    path = variant(folder, """\
extends: base.yaml
patches:
  - {op: add, path: /round/setup/0, value: move all cards to deck face down}
  - {op: replace, path: /round/setup/shuffle-deck, value: {name: shuffle-deck, do: shuffle deck}}
  - {op: remove, path: /round/setup/deal}
""")
    assert setup_texts(path) == ["move all cards to deck face down", "move all cards to deck face down",
                                 "shuffle deck"]


def test_an_unknown_name_is_an_error_at_that_step_of_the_path(folder):
    path = variant(folder, """\
extends: base.yaml
patches:
  - op: remove
    path: /round/setup/shufle-deck
""")
    assert first_error(path) == (
        f"{path}:4:24: error: patch path: nothing in the list /round/setup is named 'shufle-deck'\n"
        "        path: /round/setup/shufle-deck\n"
        "                           ^\n"
        "  hint: did you mean 'shuffle-deck'?")


def test_an_unknown_name_inside_the_path_is_an_error_at_its_step(folder):
    path = variant(folder, """\
extends: base.yaml
patches:
  - {op: replace, path: /round/turn/play-a-crad/else, value: [end game]}
""")
    assert first_error(path) == (
        f"{path}:3:37: error: patch path: nothing in the list /round/turn is named 'play-a-crad'\n"
        "      - {op: replace, path: /round/turn/play-a-crad/else, value: [end game]}\n"
        + " " * 40 + "^\n"
        "  hint: did you mean 'play-a-card'?")


def test_a_name_in_a_list_of_unnamed_statements_says_how_to_name_one(folder):
    path = variant(folder, """\
extends: base.yaml
patches:
  - {op: remove, path: /actions/play/do/count}
""")
    assert first_error(path) == (
        f"{path}:3:41: error: patch path: nothing in the list /actions/play/do is named 'count'\n"
        "      - {op: remove, path: /actions/play/do/count}\n"
        + " " * 44 + "^\n"
        "  hint: no item of it has a name: name one ({name: count, do: ...}) or use its index (0 to 1)")


def test_two_statements_of_one_list_may_not_share_a_name(folder):
    path = variant(folder, BASE.replace("    - name: deal\n", "    - name: shuffle-deck\n"), "dup.yaml")
    assert first_error(path) == (
        f"{path}:24:13: error: two statements of this list are named 'shuffle-deck' (the first at line 23)\n"
        "        - name: shuffle-deck\n"
        "                ^\n"
        "  hint: give each statement of a list its own name")


def test_a_patch_addressing_a_shared_name_is_an_error(folder):
    variant(folder, BASE.replace("    - name: deal\n", "    - name: shuffle-deck\n"), "dup.yaml")
    path = variant(folder, "extends: dup.yaml\npatches:\n  - {op: remove, path: /round/setup/shuffle-deck}\n")
    assert first_error(path).split("\n")[0] == (
        f"{path}:3:37: error: patch path: 2 items of the list /round/setup are named 'shuffle-deck' (items 1, 2)")


def test_a_name_is_a_word_not_a_number(folder):
    path = variant(folder, BASE.replace("{name: shuffle-deck, do: shuffle deck}", "{name: 2, do: shuffle deck}"),
                   "number.yaml")
    assert first_error(path).split("\n")[0] == f"{path}:23:14: error: 'round.setup[1].name' must be text, not int 2"


# ---------------------------------------------------------------------- `was:` and the issue's wrong index
@pytest.fixture
def highjack(tmp_path: Path) -> Path:
    shutil.copyfile(GAMES / "highjack.yaml", tmp_path / "highjack.yaml")
    return tmp_path


WRONG_INDEX = """\
extends: highjack.yaml
patches:
  - op: replace
    path: /round/setup/2
    was: deal 4 from pile to hand
    value: deal 6 from pile to hand
"""


def test_was_catches_the_issues_wrong_index(highjack):
    base_setup = rulespec.compile_file(highjack / "highjack.yaml")
    assert base_setup  # the base is valid; only the patch is wrong
    path = variant(highjack, WRONG_INDEX)
    assert first_error(path) == (
        f"{path}:5:10: error: patch path /round/setup/2 holds 'shuffle pile', not what `was` says "
        "('deal 4 from pile to hand')\n"
        "        was: deal 4 from pile to hand\n"
        "             ^\n"
        "  hint: that is item 3 of /round/setup: the path /round/setup/3")


def test_was_that_holds_lets_the_patch_apply(highjack):
    path = variant(highjack, WRONG_INDEX.replace("/round/setup/2", "/round/setup/3"))
    gamedef = rulespec.compile_file(path)
    assert "deal 6 cards" in describe(gamedef, "players")


def test_was_compares_text_by_its_words_and_data_as_data(highjack):
    path = variant(highjack, """\
extends: highjack.yaml
patches:
  - {op: replace, path: /round/setup/2, was: "shuffle    pile", value: shuffle pile}
  - {op: remove, path: /cards/list/name=Bong, was: {name: Bong, type: stash, points: 20, copies: 3}}
""")
    rulespec.compile_file(path)
    wrong = variant(highjack, "extends: highjack.yaml\npatches:\n"
                    "  - {op: remove, path: /cards/list/name=Bong, was: {name: Bong, points: 25}}\n", "wrong.yaml")
    assert first_error(wrong).split("\n")[0].startswith(
        f"{wrong}:3:52: error: patch path /cards/list/name=Bong holds {{\"name\": \"Bong\"")


def test_an_add_has_no_was(highjack):
    path = variant(highjack, "extends: highjack.yaml\npatches:\n"
                   "  - {op: add, path: /round/setup/0, was: x, value: shuffle pile}\n")
    assert first_error(path).split("\n")[0] == (
        f"{path}:3:37: error: `was` is for replace and remove: an add replaces nothing")
