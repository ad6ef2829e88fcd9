"""The designers' `about:` texts: read into the model, shown by the language server's hover, by
`describe` and by the playground's how-to-play panel, refused where the schema has no place for
them."""

from __future__ import annotations

import pytest

from interpreter.lsp.analysis import Analysis
from interpreter.lsp.navigate import hover
from rulespec import SpecError, compile_file, compile_text
from tests.conftest import GAMES

HIGHJACK = GAMES / "highjack.yaml"
HIGHHAND = GAMES / "highhand.yaml"


def _hover(path, needle: str, offset: int = 1, text: str | None = None) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    analysis = Analysis(text, str(path))
    analysis.check()
    found = hover(analysis, text.index(needle) + offset)
    assert found is not None, needle
    return found[0]


def test_the_model_keeps_every_about_by_what_it_is_about():
    abouts = dict(compile_file(HIGHJACK).model.abouts)
    assert abouts["game"].startswith("Collect the most points")
    assert abouts["word:Toker"] == "a player."
    assert abouts["option:target"] == "The total that ends a Chronic game."
    assert abouts["zone:ashtray"] == "the face-up discard pile."
    assert abouts["variable:contenders"] == "the Tokers still in the Session"
    assert abouts["card:4"] == "An Opponent takes 2 hits."  # Munchies, the fifth line of the card list
    assert abouts["action:play"] == "Play one card from your hand (you must), by its type:"
    assert any(k.startswith("stmt:") and v.startswith("Stoner's Quarrel") for k, v in abouts.items())
    abouts = dict(compile_file(HIGHHAND).model.abouts)
    assert abouts["define:mate"] == "{p}'s partner" \
        and abouts["action:block"].startswith("Block, then take: First move your blocker")


def test_an_about_is_not_a_card_attribute():
    model = compile_file(HIGHJACK).model
    assert model.cards is not None
    assert all("about" not in {k for k, _, _ in e.attrs} for e in model.cards.entries)


def test_about_where_the_schema_has_no_place_for_it_is_an_error():
    text = HIGHJACK.read_text(encoding="utf-8").replace("  pile: {visibility: hidden,",
                                                       "  pile: {visibility: hidden, abut: x,")
    with pytest.raises(SpecError, match="abut"):
        compile_text(text, str(HIGHJACK))


def test_a_define_written_with_its_about_means_the_same():
    text = HIGHHAND.read_text(encoding="utf-8")
    assert compile_text(text, str(HIGHHAND)).model.defines == compile_file(HIGHHAND).model.defines


def test_hover_shows_the_about_of_an_option_a_zone_a_card_and_a_definition():
    assert "The total that ends a Chronic game." in _hover(HIGHJACK, "option.target", 8)
    assert "the face-up discard pile." in _hover(HIGHJACK, "to ashtray face up", 4)
    from tests.test_lsp import SPEC

    told = SPEC.replace("- {name: Ace, points: 11}", "- {name: Ace, points: 11, about: The best card.}")
    assert "The best card." in _hover(HIGHJACK, "'Ace'", 1, told)
    assert 'reads: "{p}\'s partner"' in _hover(HIGHHAND, "mate(u)", 1)
