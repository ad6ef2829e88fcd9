"""Variants by name (issue 15, points 4 and 5): patches address list items by a key
(`/cards/list/name=Bong`), `describe` and `validate -v` print the deck total and each card's
count, the published schema accepts variant files, and a misspelt option name gets a hint."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
import yaml

import rulespec
from interpreter.game import load_game
from rulespec.schema import with_variant_schema
from tests.conftest import GAMES, ROOT
from tests.support import run

NAMED_PATCHES = """\
extends: highjack.yaml
game:
  name: Highjack, munchier
patches:
  - {op: remove, path: /cards/list/name=Bong}
  - {op: replace, path: /cards/list/name=Munchies/copies, value: 5}
  - {op: add, path: /cards/list/name=Bogart, value: {name: Stale Bong, type: stash, points: 20, copies: 1}}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copyfile(GAMES / "highjack.yaml", tmp_path / "highjack.yaml")
    return tmp_path


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def card_counts(path: Path, players: int = 4) -> dict[str, int]:
    """Each card kind and its copies, from the card table of the game the interpreter plays."""
    cards = load_game(str(path), players=players).cards
    return {cards.kind_names[kind]: n for kind, n in Counter(cards.kind_of).items()}


def card_order(path: Path) -> list[str]:
    return list(dict.fromkeys(load_game(str(path), players=4).cards.kind_names))


def position(path: Path, text: str) -> str:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return f"{path}:{number}:{line.index(text) + 1}"
    raise AssertionError(text)


# ---------------------------------------------------------------------------------- patches by name


def test_named_patches_change_the_named_cards(folder: Path):
    base = card_counts(folder / "highjack.yaml")
    variant = card_counts(write(folder, "munchier.yaml", NAMED_PATCHES))
    assert "Bong" in base and "Bong" not in variant
    assert variant["Munchies"] == 5 != base["Munchies"]
    assert variant["Stale Bong"] == 1
    unchanged = set(base) - {"Bong", "Munchies"}
    assert {name: variant[name] for name in unchanged} == {name: base[name] for name in unchanged}
    order = card_order(folder / "munchier.yaml")
    assert order.index("Stale Bong") + 1 == order.index("Bogart")  # add inserts before the named item


def test_named_patches_give_the_same_game_in_either_order(folder: Path):
    lines = NAMED_PATCHES.splitlines()
    head, patches = lines[:4], lines[4:]
    forward = write(folder, "forward.yaml", "\n".join(head + patches) + "\n")
    backward = write(folder, "backward.yaml", "\n".join(head + patches[::-1]) + "\n")
    assert card_counts(forward) == card_counts(backward)


def test_positions_in_the_other_order_address_another_card(folder: Path):
    """What names fix: after a remove, an index names the next card (Bogart instead of Munchies)."""
    base_list = yaml.safe_load((folder / "highjack.yaml").read_text(encoding="utf-8"))["cards"]["list"]
    names = [item.get("name") for item in base_list]
    bong, munchies = names.index("Bong"), names.index("Munchies")
    assert bong < munchies
    by_index = write(folder, "by_index.yaml", "extends: highjack.yaml\npatches:\n"
                     f"  - {{op: remove, path: /cards/list/{bong}}}\n"
                     f"  - {{op: replace, path: /cards/list/{munchies}/copies, value: 5}}\n")
    assert card_counts(by_index)[names[munchies + 1]] == 5  # silently the card after Munchies


def test_a_named_step_inside_a_longer_path(folder: Path):
    path = write(folder, "v.yaml", "extends: highjack.yaml\npatches:\n"
                 "  - {op: replace, path: /cards/list/name=Highjack/points, value: 25}\n")
    assert load_game(str(path), players=2).cards.kind_attrs[card_order(path).index("Highjack")]["points"] == 25


@pytest.mark.parametrize(("path", "message", "hint"), [
    ("/cards/list/nmae=Bong/copies", "no item of the list /cards/list has a key 'nmae'", "did you mean 'name'?"),
    ("/cards/list/name=Bongg/copies", "no item of the list /cards/list has name=Bongg", "did you mean 'Bong'?"),
    ("/cards/list/colour=red/copies", "no item of the list /cards/list has a key 'colour'",
     "its items have: about, copies, effect, family, name, points, type, value, ..."),
    ("/cards/list/copies=3/copies",
     "11 items of the list /cards/list have copies=3 (items 0, 1, 2, 3, 4, 5, 6, 11, ...)",
     "name the item by another key, or by its index"),
])
def test_a_key_or_value_that_names_no_single_item_is_an_error_at_the_path(folder: Path, path: str, message: str,
                                                                          hint: str):
    variant = write(folder, "v.yaml", f"extends: highjack.yaml\npatches:\n  - op: replace\n    path: {path}\n"
                                      "    value: 1\n")
    base_list = yaml.safe_load((folder / "highjack.yaml").read_text(encoding="utf-8"))["cards"]["list"]
    if path.startswith("/cards/list/copies=3"):  # the items the message lists are the base's
        threes = [str(i) for i, item in enumerate(base_list) if item.get("copies") == 3]
        assert message.endswith(f"have copies=3 (items {', '.join(threes[:8])}, ...)") and len(threes) == 11
    if "its items have" in hint:  # the first 8 keys of the base's items, sorted
        keys = sorted({k for item in base_list for k in item})
        assert hint.endswith(", ".join(keys[:8]) + (", ..." if len(keys) > 8 else ""))
    status, out, err = run("validate", str(variant))
    assert status == 1 and out == ""
    assert err.splitlines()[0] == f"{position(variant, path)}: error: patch path: {message}"
    assert f"  hint: {hint}" in err.splitlines()


def test_a_removed_item_is_no_longer_found_by_name(folder: Path):
    variant = write(folder, "v.yaml", "extends: highjack.yaml\npatches:\n"
                    "  - {op: remove, path: /cards/list/name=Hotbox}\n"
                    "  - {op: remove, path: /cards/list/name=Hotbox}\n")
    status, _, err = run("validate", str(variant))
    assert status == 1
    line = variant.read_text(encoding="utf-8").splitlines()[3]
    where = f"{variant}:4:{line.index('/cards') + 1}"
    assert err.startswith(f"{where}: error: patch path: no item of the list /cards/list has name=Hotbox\n")


# ---------------------------------------------------------------------------------- the deck: describe, validate -v


def deck_line(path: Path, players: int) -> str:
    """The line the commands should print, built from the interpreter's card table."""
    counts = card_counts(path, players)
    total = sum(counts.values())
    return f"{total} cards: " + ", ".join(f"{name} ×{n}" for name, n in counts.items()) + "."


def test_validate_verbose_and_describe_print_the_deck_of_a_variant(folder: Path):
    variant = write(folder, "munchier.yaml", NAMED_PATCHES)
    small = deck_line(variant, 2)
    large = deck_line(variant, 8)
    assert small != large  # two decks from 5 players on
    status, out, err = run("validate", "-v", str(variant))
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [f"{variant}: ok (Highjack, munchier)",
                         f"  Deck for 2 to 4 players (default options): {small}",
                         f"  Deck for 5 to 8 players (default options): {large}",
                         f"  {variant} against highjack.yaml"]  # then what the variant changes (tests/test_diff.py)
    munchies = card_counts(folder / "highjack.yaml", 4)["Munchies"]
    assert f"    Cards, Munchies, copies: {munchies} -> 5" in lines
    status, out, _ = run("describe", str(variant))
    assert status == 0
    assert f"\nDeck for 2 to 4 players (default options): {small}\n" in out
    assert f"\nDeck for 5 to 8 players (default options): {large}\n" in out


def test_the_deck_lines_agree_with_the_interpreter_for_every_seed_game():
    from rulespec.deck import deck_counts

    for path in sorted(GAMES.glob("*.yaml")):
        gamedef = rulespec.compile_file(str(path))
        for players in gamedef.model.players:
            expected = sorted(card_counts(path, players).items()) if gamedef.model.cards else []
            assert sorted(deck_counts(gamedef.model, players) or []) == expected, (path.name, players)


def test_a_deck_of_single_cards_is_listed_once():
    status, out, _ = run("validate", "-v", str(GAMES / "pig.yaml"))
    names = list(card_counts(GAMES / "pig.yaml", 2))
    assert status == 0
    assert out.splitlines()[1] == f"  Deck (default options): {len(names)} cards, 1 of each: {', '.join(names)}."


def test_validate_without_verbose_prints_no_deck():
    status, out, _ = run("validate", str(GAMES / "highjack.yaml"))
    assert status == 0 and "Deck" not in out


# ---------------------------------------------------------------------------------- the schema accepts variants


def published_schema() -> dict:
    status, out, _ = run("schema")
    assert status == 0
    return json.loads(out)


def schema_errors(document: object) -> list[str]:
    validator = jsonschema.Draft202012Validator(published_schema())
    return sorted(f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document))


def test_a_variant_file_with_named_patches_is_valid_against_the_published_schema(folder: Path):
    write(folder, "munchier.yaml", NAMED_PATCHES)
    assert run("validate", str(folder / "munchier.yaml"))[0] == 0
    assert schema_errors(yaml.safe_load(NAMED_PATCHES)) == []


def test_variant_files_of_the_repository_are_valid_against_the_schema():
    variants = [p for p in sorted((ROOT / "tests" / "specs" / "valid").glob("*.yaml"))
                if "extends" in (yaml.safe_load(p.read_text(encoding="utf-8")) or {})]
    assert variants
    for path in variants:
        assert schema_errors(yaml.safe_load(path.read_text(encoding="utf-8"))) == [], path


def test_a_variant_may_overlay_one_key_of_any_section():
    overlay = {"extends": "base.yaml", "game": {"name": "Shorter"}, "options": {"target": {"default": 300}},
               "cards": {"decks": 2}, "board": {"rows": 4}, "variables": {"stash_kinds": {"reset": "round"}},
               "match": {"end_when": "round >= 3"}, "round": {"end_when": "turn >= 4"}}
    assert schema_errors(overlay) == []


def test_the_schema_still_checks_what_a_variant_writes():
    assert schema_errors({"extends": "base.yaml", "options": {"target": {"defualt": 300}}}) == [
        "['options', 'target']: Additional properties are not allowed ('defualt' was unexpected)"]
    assert schema_errors({"extends": "base.yaml", "cards": {"list": [{"copies": [3]}]}}) != []
    assert schema_errors({"extends": "base.yaml", "patches": [{"op": "move", "path": "/x"}]}) != []
    assert schema_errors({"extends": "base.yaml", "varients": []}) != []


def test_a_spec_without_extends_still_needs_game_and_round():
    assert schema_errors({"game": {"name": "x", "players": 2}}) == ["[]: 'round' is a required property"]
    assert schema_errors({"game": {"name": "x"}, "round": {"turn": ["end round"]}}) == [
        "['game']: 'players' is a required property"]


def test_the_variant_part_of_the_schema_file_is_generated_from_the_spec_part():
    data = rulespec.schema()
    assert with_variant_schema(data) == data  # else: python -m rulespec.schema
    loosened = [name for name in data["$defs"] if name.startswith("partial")]
    assert "partialGame" in loosened and "partialCards" in loosened
    defs = data["$defs"]
    assert all("required" not in defs[name] for name in loosened)
    assert "required" in defs["game"] and "required" in defs["cards"]
    assert defs["variant"]["properties"]["options"]["additionalProperties"] == {"$ref": "#/$defs/partialOption"}
    # lists replace the base's lists: their items are checked in full
    assert defs["partialCards"]["properties"]["list"]["items"] == {"$ref": "#/$defs/cardEntry"}
    assert defs["variant"]["properties"]["variants"] == defs["spec"]["properties"]["variants"]


# ---------------------------------------------------------------------------------- did you mean 'target'


def test_a_misspelt_option_on_the_command_line_gets_a_hint():
    status, _, err = run("compile", str(GAMES / "highjack.yaml"), "-O", "taget=300")
    assert status == 2
    assert "has no option 'taget' (did you mean 'target'?)" in err


def test_a_misspelt_option_in_a_variant_file_gets_a_hint(folder: Path):
    variant = write(folder, "v.yaml", "extends: highjack.yaml\noptions:\n  taget: {default: 300}\n")
    status, _, err = run("validate", str(variant))
    assert status == 1
    assert err.splitlines()[:4] == [
        f"{variant}:3:3: error: the base spec has no option 'taget' (a new option needs a `type`)",
        "      taget: {default: 300}",
        "      ^",
        "  hint: did you mean 'target'?",
    ]


def test_a_new_option_with_a_type_is_not_a_typo(folder: Path):
    variant = write(folder, "v.yaml", "extends: highjack.yaml\noptions:\n"
                                      "  targets: {type: int, default: 3, min: 1, max: 9}\n")
    status, out, err = run("validate", str(variant))
    assert (status, err) == (0, "") and "ok" in out


@pytest.mark.parametrize("text", [
    "patches:\n  - {op: replace, path: /options/taget/default, value: 300}\n",
    "variants:\n  - {players: 3, options: {taget: 300}}\n",
])
def test_misspelt_options_in_patches_and_listed_variants_get_a_hint(folder: Path, text: str):
    variant = write(folder, "v.yaml", "extends: highjack.yaml\n" + text)
    status, _, err = run("validate", str(variant))
    assert status == 1 and "  hint: did you mean 'target'?" in err.splitlines()


def test_the_variant_example_of_the_editor_page_is_valid_and_compiles(folder: Path):
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    (example,) = [b for b in text.split("```yaml\n")[1:] if "extends: highjack.yaml" in b]
    example = example.split("```")[0]
    assert schema_errors(yaml.safe_load(example)) == []
    variant = write(folder, "example.yaml", example)
    assert card_counts(variant)["Munchies"] == 5 and "Bong" not in card_counts(variant)
