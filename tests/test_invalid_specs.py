"""Broken specs: every mistake is reported with its class, exact place, message and hint.

Each file under ``tests/specs/invalid/`` is a small valid spec of ``tests/specs/valid/``
(``tiny.yaml``, ``phases.yaml``, ``card_effects.yaml``, or a seed game through ``extends``)
with ONE mistake, named after it; the ``several_*`` files have a few independent mistakes on
purpose. Every expected position below was counted by hand from the file (1-based line and
column), and every message is the one that says what is wrong there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from rulespec import (
    LanguageError,
    LimitError,
    SchemaError,
    SemanticError,
    SpecError,
    VariantError,
    YamlSyntaxError,
    compile_file,
)
from tests.support import run

HERE = Path(__file__).resolve().parent
SPECS = HERE / "specs"
INVALID = SPECS / "invalid"
VALID = SPECS / "valid"
GAMES = HERE.parent / "games"


def _path(relative: str, base: Path = INVALID) -> str:
    return os.path.normpath(str(base / relative))


@dataclass(frozen=True)
class D:
    """One expected diagnostic; ``file`` is relative to tests/specs/invalid/."""

    file: str
    line: int
    col: int
    message: str
    hint: str | None = None

    def key(self) -> tuple[str, int, int, str, str | None]:
        return (_path(self.file), self.line, self.col, self.message, self.hint)


def _actual(error: SpecError) -> list[tuple[str, int, int, str, str | None]]:
    out = []
    for diag in error.diagnostics:
        assert diag.span is not None, diag
        out.append((os.path.normpath(diag.span.file), diag.span.line, diag.span.col, diag.message, diag.hint))
    return out


HINT_DUP = "YAML would silently keep only the last one; remove or rename one of them"
HINT_LIMIT = "spec files may not nest or alias this much"

# target file -> (exception class, every diagnostic it must report, in file order)
CASES: dict[str, tuple[type[SpecError], list[D]]] = {
    # ------------------------------------------------------------------ YAML
    "yaml_tab_indentation.yaml": (YamlSyntaxError, [
        D("yaml_tab_indentation.yaml", 4, 1,
          "YAML syntax: found character '\\t' that cannot start any token (while scanning for the next token)",
          "YAML indentation must use spaces, not tabs"),
    ]),
    # the quote that never closes opens at line 26, column 12; the file has only 40 lines
    "yaml_unclosed_quote.yaml": (YamlSyntaxError, [
        D("yaml_unclosed_quote.yaml", 26, 12,
          "YAML syntax: found unexpected end of stream (while scanning a quoted scalar)"),
    ]),
    "duplicate_key.yaml": (YamlSyntaxError, [
        D("duplicate_key.yaml", 5, 3, "duplicate key 'players' (first defined at line 4)", HINT_DUP),
    ]),
    "yaml_merge_key.yaml": (YamlSyntaxError, [
        D("yaml_merge_key.yaml", 14, 10, "YAML merge keys ('<<') are not supported", "use `extends:` and patches"),
    ]),
    "yaml_date_value.yaml": (YamlSyntaxError, [
        D("yaml_date_value.yaml", 4, 16, "unsupported YAML value of type date", "quote it to make it text"),
    ]),
    # PyYAML's reader refuses control characters before parsing: still a positioned YAML error
    "yaml_control_character.yaml": (YamlSyntaxError, [
        D("yaml_control_character.yaml", 3, 11,
          "YAML syntax: unacceptable character #x0007: special characters are not allowed"),
    ]),
    "yaml_nan.yaml": (YamlSyntaxError, [
        D("yaml_nan.yaml", 6, 48, "'.nan' is not allowed in a spec"),
    ]),
    # ------------------------------------------------------------------ limits
    # 8 lines of 10 aliases (80, under the alias limit) expand to 10**9 values. Counting the
    # values built depth first (a..d hold 11, 111, 1111, 11111, about 12,350 with the keys
    # before them; each `*d` adds 11111), the 50001st lies inside the fourth `*d` of line 8
    # (`e:`): that alias is what makes the document too large, so the diagnostic belongs there.
    "alias_bomb.yaml": (LimitError, [
        D("alias_bomb.yaml", 8, 26, "document too large after expanding aliases (more than 50000 values)",
          "remove the aliases that repeat large parts of the file"),
    ]),
    # line 42 anchors `&t`; lines 43..143 hold 101 aliases `*t`: the 101st is at line 143
    "too_many_aliases.yaml": (LimitError, [
        D("too_many_aliases.yaml", 143, 5, "too many YAML aliases (more than 100)", HINT_LIMIT),
    ]),
    # the root mapping is level 1, the k-th `[` of line 41 is level k + 1: the 64th `[`
    # (column 13 + 63) is level 65
    "too_deep_nesting.yaml": (LimitError, [
        D("too_deep_nesting.yaml", 41, 76, "nesting too deep (more than 64 levels)", HINT_LIMIT),
    ]),
    # 2 colours x 5001 numbers = 10002 cards, more than interpreter.cards.MAX_CARDS (10000):
    # a constant card list, so `rulespec validate` can and should reject it
    "too_many_cards.yaml": (LimitError, [
        D("too_many_cards.yaml", 11, 7, "more than 10000 cards"),
    ]),
    # a range of 10**11 numbers: the same limit, found before any card is made
    "family_range_too_large.yaml": (LimitError, [
        D("family_range_too_large.yaml", 11, 7, "more than 10000 cards"),
    ]),
    # ------------------------------------------------------------------ schema
    "unknown_key_top_level.yaml": (SchemaError, [
        D("unknown_key_top_level.yaml", 16, 1, "unknown key 'varibles' in the spec", "did you mean 'variables'?"),
    ]),
    "unknown_key_in_zone.yaml": (SchemaError, [
        D("unknown_key_in_zone.yaml", 13, 10, "unknown key 'visiblity' in 'zones.deck'", "did you mean 'visibility'?"),
    ]),
    "unknown_key_in_statement.yaml": (SchemaError, [
        D("unknown_key_in_statement.yaml", 31, 9, "unknown key 'els' in 'actions.play.do[1]'", "did you mean 'else'?"),
    ]),
    # a bound may be an expression of num_players and options (issue 13), so text is no schema
    # error any more: `nine` is an unknown name in it
    "wrong_type_option_max.yaml": (SemanticError, [
        D("wrong_type_option_max.yaml", 6, 48, "an option's `max` can only use num_players and other options, "
          "not 'nine'", "a bound is a number, or an expression such as `num_players // 2` or `option.NAME`"),
    ]),
    "wrong_type_players.yaml": (SchemaError, [
        D("wrong_type_players.yaml", 4, 12, "'game.players' has the wrong form (text 'two')",
          "expected a list or a mapping or a whole number"),
    ]),
    "wrong_type_block.yaml": (SchemaError, [
        D("wrong_type_block.yaml", 21, 16, "'procedures.score(p, c)' must be a list, not text 'p.score += c.number'"),
    ]),
    "players_out_of_range.yaml": (SchemaError, [
        D("players_out_of_range.yaml", 4, 12, "'game.players' must be at most 16 (got 17)"),
    ]),
    # a section-level problem points at the section's mapping (its first key)
    "missing_required_field.yaml": (SchemaError, [
        D("missing_required_field.yaml", 3, 3, "missing required key 'name' in 'game'"),
    ]),
    "missing_round_section.yaml": (SchemaError, [
        D("missing_round_section.yaml", 1, 1, "missing required key 'round' in the spec"),
    ]),
    "bad_enum_value.yaml": (SchemaError, [
        D("bad_enum_value.yaml", 13, 22,
          "'zones.deck.visibility' must be one of: public, owner, hidden, top (got text 'hiden')",
          "did you mean 'hidden'?"),
    ]),
    "wrong_rulespec_version.yaml": (SchemaError, [
        D("wrong_rulespec_version.yaml", 1, 11, "'rulespec' must be 1"),
    ]),
    "round_turn_and_phases.yaml": (SchemaError, [
        D("round_turn_and_phases.yaml", 32, 3, "a round has either `turn:` or `phases:`, not both"),
    ]),
    # the bad name is the key `Mode` (line 7), not the first option of the section (line 6)
    "bad_option_name.yaml": (SchemaError, [
        D("bad_option_name.yaml", 7, 3,
          "'Mode' is not a valid name in 'options': use lower_case letters, digits and _"),
    ]),
    "enum_option_without_values.yaml": (SchemaError, [
        D("enum_option_without_values.yaml", 7, 9, "missing required key 'values' in 'options.mode'"),
    ]),
    "family_bad_range.yaml": (SchemaError, [
        D("family_bad_range.yaml", 11, 45,
          "'cards.list[0].family.number' must be a list or a range like \"1..13\" (got text '1-5')"),
    ]),
    "empty_card_list.yaml": (SchemaError, [
        D("empty_card_list.yaml", 10, 9, "'cards.list' needs at least 1 item"),
    ]),
    # ------------------------------------------------------------------ option values
    "option_default_out_of_range.yaml": (SemanticError, [
        D("option_default_out_of_range.yaml", 6, 32, "default of option 'rounds': 12 is above the maximum 9"),
    ]),
    # like every other did-you-mean, the suggestion belongs in the hint, not in the message
    "option_enum_default_not_in_values.yaml": (SemanticError, [
        D("option_enum_default_not_in_values.yaml", 7, 53,
          "default of option 'mode': expected one of fast, slow, got 'fats'", "did you mean 'fast'?"),
    ]),
    "option_missing_default.yaml": (SemanticError, [
        D("option_missing_default.yaml", 6, 3, "option 'rounds' needs a default"),
    ]),
    # ------------------------------------------------------------------ rule language syntax
    "syntax_error_in_expression.yaml": (LanguageError, [
        D("syntax_error_in_expression.yaml", 38, 32, "unexpected '=' in expression",
          "compare with '==', or assign in a statement such as `x = 1`"),
    ]),
    "syntax_error_in_statement.yaml": (LanguageError, [
        D("syntax_error_in_statement.yaml", 34, 14, "unexpected 'deck' in statement",
          "is an operator missing after 'shufle', or is 'shufle' a misspelled keyword?"),
    ]),
    "syntax_error_in_bindings.yaml": (LanguageError, [
        D("syntax_error_in_bindings.yaml", 25, 15, "unexpected 'of' in bindings; expected 'in'"),
    ]),
    # `{card.}`: a name is missing after the '.', where the text of the expression ends (the '}')
    "syntax_error_in_label.yaml": (LanguageError, [
        D("syntax_error_in_label.yaml", 26, 24, "the expression ends too early"),
    ]),
    "label_unclosed_brace.yaml": (LanguageError, [
        D("label_unclosed_brace.yaml", 26, 18, "unclosed '{' in text", "write '{{' for a literal brace"),
    ]),
    "unexpected_character.yaml": (LanguageError, [
        D("unexpected_character.yaml", 38, 37, "unexpected character '&' in expression", "use `and`"),
    ]),
    "comma_in_flow_list.yaml": (LanguageError, [
        D("comma_in_flow_list.yaml", 21, 17, "a comma inside this [ ] list cuts the statement in two",
          "quote the whole statement, or write the list one item per line"),
    ]),
    "empty_expression.yaml": (LanguageError, [
        D("empty_expression.yaml", 38, 13, "empty expression"),
    ]),
    # 23 + 120 * 17 characters
    "rule_text_too_long.yaml": (LanguageError, [
        D("rule_text_too_long.yaml", 38, 13, "rule text too long (2063 characters; the limit is 2000)",
          "split it with `define:` or `procedures:`"),
    ]),
    # 40 `not`, then ==, the call, its args, the name `current` and its token: 45 levels
    "rule_text_too_deep.yaml": (LanguageError, [
        D("rule_text_too_deep.yaml", 38, 13, "rule text nested too deeply (45 levels; the limit is 40)",
          "split it with `define:`"),
    ]),
    # ------------------------------------------------------------------ unknown names
    "unknown_variable.yaml": (SemanticError, [
        D("unknown_variable.yaml", 29, 9, "unknown variable 'plyed'", "did you mean 'played'?"),
    ]),
    "unknown_name.yaml": (SemanticError, [
        D("unknown_name.yaml", 38, 23, "unknown name 'curent'", "did you mean 'current'?"),
    ]),
    "unknown_zone_in_statement.yaml": (SemanticError, [
        D("unknown_zone_in_statement.yaml", 28, 22, "unknown name 'tabel'", "did you mean 'table'?"),
    ]),
    # one error where the zone is declared; its uses (a zone where a player is expected)
    # add no follow-on error each (issue 14, found while trying)
    "zone_named_after_a_builtin.yaml": (SemanticError, [
        D("zone_named_after_a_builtin.yaml", 15, 3, "'dealer' is a built-in name; pick another zone name"),
    ]),
    "unknown_zone_in_deal.yaml": (SemanticError, [
        D("unknown_zone_in_deal.yaml", 35, 27, "unknown zone 'hnd'", "did you mean 'hand'?"),
    ]),
    "unknown_function.yaml": (SemanticError, [
        D("unknown_function.yaml", 19, 17, "unknown function 'cnt'", "did you mean 'count'?"),
    ]),
    "unknown_card_attribute.yaml": (SemanticError, [
        D("unknown_card_attribute.yaml", 22, 20, "cards have no attribute 'numbr'", "did you mean 'number'?"),
    ]),
    "unknown_card_attribute_in_name.yaml": (SemanticError, [
        D("unknown_card_attribute_in_name.yaml", 9, 20,
          "a card name template can only use card attributes, like {colour}", "did you mean 'number'?"),
    ]),
    "unknown_player_variable.yaml": (SemanticError, [
        D("unknown_player_variable.yaml", 22, 9, "players have no variable 'scor'", "did you mean 'score'?"),
    ]),
    "unknown_procedure.yaml": (SemanticError, [
        D("unknown_procedure.yaml", 30, 14, "unknown procedure 'scor'", "did you mean 'score'?"),
    ]),
    # base: tests/specs/valid/card_effects.yaml; the default of a procedure attribute names no procedure
    "unknown_procedure_in_attribute_default.yaml": (SemanticError, [
        D("unknown_procedure_in_attribute_default.yaml", 11, 40,
          "'scor' is not a procedure (card attribute 'effect' names procedures)", "did you mean 'score'?"),
    ]),
    "unknown_action.yaml": (SemanticError, [
        D("unknown_action.yaml", 37, 15, "unknown action 'paly'", "did you mean 'play'?"),
    ]),
    "unknown_option.yaml": (SemanticError, [
        D("unknown_option.yaml", 40, 29, "unknown option 'round'", "did you mean 'rounds'?"),
    ]),
    "unknown_phase.yaml": (SemanticError, [
        D("unknown_phase.yaml", 41, 13, "unknown phase 'closin'", "did you mean 'closing'?"),
    ]),
    "wrong_argument_count.yaml": (SemanticError, [
        D("wrong_argument_count.yaml", 38, 13, "'hand_size' takes 1 argument, not 0"),
    ]),
    # ------------------------------------------------------------------ types
    "compare_card_with_number.yaml": (SemanticError, [
        D("compare_card_with_number.yaml", 26, 9, "comparing a card with a whole number is always false"),
    ]),
    "add_text_to_number.yaml": (SemanticError, [
        D("add_text_to_number.yaml", 39, 20, "cannot add a whole number and text",
          "turn the value into text with str(...)"),
    ]),
    "count_of_number.yaml": (SemanticError, [
        D("count_of_number.yaml", 38, 19, "argument 1 of count() must be a zone or a list, not a whole number"),
    ]),
    "condition_not_bool.yaml": (SemanticError, [
        D("condition_not_bool.yaml", 38, 13, "round.end_when must be true/false, not a whole number"),
    ]),
    # ------------------------------------------------------------------ flow
    "unreachable_phase.yaml": (SemanticError, [
        D("unreachable_phase.yaml", 42, 7, "phase 'bonus' can never be reached",
          "name it in another phase's `next:`, or remove it"),
    ]),
    "round_never_ends.yaml": (SemanticError, [
        D("round_never_ends.yaml", 32, 3, "this round can never end",
          "add round.end_when, a phase end_when, or an `end round` statement"),
    ]),
    "end_turn_in_setup.yaml": (SemanticError, [
        D("end_turn_in_setup.yaml", 36, 7, "`end turn` cannot be used in setup"),
    ]),
    "random_outside_let.yaml": (SemanticError, [
        D("random_outside_let.yaml", 29, 19, "random() is random: use it only as `let x = random(...)`"),
    ]),
    "recursive_define.yaml": (SemanticError, [
        D("recursive_define.yaml", 19, 48, "define 'hand_size' refers to itself",
          "defines are expanded, so they cannot recurse"),
    ]),
    # ------------------------------------------------------------------ variants
    "extends_missing_file.yaml": (VariantError, [
        D("extends_missing_file.yaml", 1, 10, f"file not found: {_path('no_such_base.yaml')}"),
    ]),
    "extends_cycle/a.yaml": (VariantError, [
        D("extends_cycle/b.yaml", 1, 10, "`extends` makes a cycle: a.yaml -> b.yaml -> a.yaml"),
    ]),
    "bad_patch_path.yaml": (VariantError, [
        D("bad_patch_path.yaml", 4, 11, "patch path: no key 'roundz' in /options", "did you mean 'rounds'?"),
    ]),
    "bad_patch_op.yaml": (VariantError, [
        D("bad_patch_op.yaml", 3, 9, "patch op must be replace, add or remove, not 'replce'",
          "did you mean 'replace'?"),
    ]),
    "patch_index_out_of_range.yaml": (VariantError, [
        D("patch_index_out_of_range.yaml", 4, 11,
          "patch path /round/setup/7: index 7 is out of range (the list has 3 items)"),
    ]),
    "patch_missing_value.yaml": (VariantError, [
        D("patch_missing_value.yaml", 3, 5, "a 'replace' patch needs a value"),
    ]),
    # errors in what a variant writes point into the variant ...
    "variant_patch_value_error.yaml": (SemanticError, [
        D("variant_patch_value_error.yaml", 5, 12, "default of option 'rounds': 99 is above the maximum 9"),
    ]),
    "variant_merge_error.yaml": (SemanticError, [
        D("variant_merge_error.yaml", 5, 23, "unknown name 'curent'", "did you mean 'current'?"),
    ]),
    "highhand_patch_error.yaml": (SemanticError, [
        D("highhand_patch_error.yaml", 5, 12, "default of option 'rounds': 0 is below the minimum 1"),
    ]),
    # a remove patch that deletes a required section: the patch is at fault, not the base
    "patch_removes_required_section.yaml": (SchemaError, [
        D("patch_removes_required_section.yaml", 4, 11, "missing required key 'round' in the spec"),
    ]),
    # ... and errors it inherits point into its base
    "inherited_error/variant.yaml": (SemanticError, [
        D("inherited_error/base.yaml", 40, 29, "unknown option 'round'", "did you mean 'rounds'?"),
    ]),
    # ------------------------------------------------------------------ several independent mistakes
    "several_mistakes.yaml": (SemanticError, [
        D("several_mistakes.yaml", 29, 9, "unknown variable 'plyed'", "did you mean 'played'?"),
        D("several_mistakes.yaml", 35, 27, "unknown zone 'hnd'", "did you mean 'hand'?"),
        D("several_mistakes.yaml", 40, 29, "unknown option 'round'", "did you mean 'rounds'?"),
    ]),
    "several_syntax_mistakes.yaml": (LanguageError, [
        D("several_syntax_mistakes.yaml", 25, 15, "unexpected 'of' in bindings; expected 'in'"),
        D("several_syntax_mistakes.yaml", 38, 32, "unexpected '=' in expression",
          "compare with '==', or assign in a statement such as `x = 1`"),
    ]),
    "several_schema_mistakes.yaml": (SchemaError, [
        D("several_schema_mistakes.yaml", 4, 12, "'game.players' must be at most 16 (got 17)"),
        D("several_schema_mistakes.yaml", 13, 10, "unknown key 'visiblity' in 'zones.deck'",
          "did you mean 'visibility'?"),
    ]),
}

# files that are not compiled themselves, only reached through `extends`
HELPERS = {"extends_cycle/b.yaml", "inherited_error/base.yaml"}


def _compile_error(relative: str) -> SpecError:
    with pytest.raises(SpecError) as info:
        compile_file(_path(relative), root=str(HERE.parent))
    return info.value


@pytest.mark.parametrize("relative", sorted(CASES))
def test_invalid_spec(relative: str) -> None:
    """The right class, and the mistake reported at its place with its message and hint."""
    cls, expected = CASES[relative]
    error = _compile_error(relative)
    assert type(error) is cls, f"{type(error).__name__} instead of {cls.__name__}:\n{error}"
    actual = _actual(error)
    for diag in expected:
        assert diag.key() in actual, f"missing {diag}\ngot:\n{error}"


@pytest.mark.parametrize("relative", sorted(CASES))
def test_nothing_but_the_mistakes_is_reported(relative: str) -> None:
    """No follow-on noise: a file with one mistake gets exactly one diagnostic."""
    error = _compile_error(relative)
    assert _actual(error) == [d.key() for d in CASES[relative][1]], str(error)


def test_every_invalid_file_is_checked() -> None:
    files = {p.relative_to(INVALID).as_posix() for p in INVALID.rglob("*.yaml")}
    assert files == set(CASES) | HELPERS
    single = [name for name in CASES if not name.startswith("several_")]
    assert len(single) >= 45


@pytest.mark.parametrize("name", sorted(p.name for p in VALID.glob("*.yaml")))
def test_valid_specs_compile(name: str) -> None:
    gamedef = compile_file(str(VALID / name), root=str(HERE.parent))
    assert gamedef.name


def test_bases_of_the_broken_specs_are_valid() -> None:
    # each broken file differs from one of these by its one mistake
    assert compile_file(str(VALID / "tiny.yaml")).name == "Tiny"
    assert compile_file(str(VALID / "phases.yaml")).name == "Tiny phases"
    assert compile_file(str(VALID / "card_effects.yaml")).name == "Tiny effects"


# ---------------------------------------------------------------------- generated files


def _tiny() -> str:
    return (VALID / "tiny.yaml").read_text(encoding="utf-8")


def test_too_large_file(tmp_path: Path) -> None:
    text = _tiny() + "# padding\n" * 100_001
    size = len(text.encode("utf-8"))
    assert size > 1_000_000
    path = tmp_path / "too_large.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LimitError) as info:
        compile_file(str(path))
    assert _actual(info.value) == [
        (str(path), 1, 1, f"file too large ({size} bytes; the limit is 1000000)", None),
    ]


def test_one_hundred_aliases_are_allowed(tmp_path: Path) -> None:
    path = tmp_path / "aliases.yaml"
    path.write_text(_tiny() + "invariants:\n  - &t true\n" + "  - *t\n" * 100, encoding="utf-8")
    assert compile_file(str(path)).name == "Tiny"


def test_ten_thousand_cards_are_allowed(tmp_path: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(_tiny().replace('number: "1..5"', 'number: "1..5000"'), encoding="utf-8")
    assert compile_file(str(path)).name == "Tiny"


def test_reversed_family_range_is_a_spec_error(tmp_path: Path) -> None:
    # "5..1" holds no number: a positioned SpecError at the range, never a crash
    path = tmp_path / "reversed.yaml"
    path.write_text(_tiny().replace('number: "1..5"', 'number: "5..1"'), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        compile_file(str(path))
    assert (str(path), 11, 45) in [(d.span.file, d.span.line, d.span.col) for d in info.value.diagnostics if d.span]


def test_a_long_chain_of_defines_does_not_crash(tmp_path: Path) -> None:
    # d0 uses d1, ..., d199 uses d200: deep, not recursive; it compiles or is a SpecError
    chain = "".join(f"  d{i}: d{i + 1} + 1\n" for i in range(200)) + "  d200: 1\n"
    path = tmp_path / "chain.yaml"
    path.write_text(_tiny().replace("define:\n", "define:\n" + chain), encoding="utf-8")
    try:
        compile_file(str(path))
    except SpecError as error:
        assert all(d.span is not None and d.span.file == str(path) for d in error.diagnostics), str(error)


# ---------------------------------------------------------------------- formatting


def test_format_shows_source_line_caret_and_hint() -> None:
    path = _path("unknown_variable.yaml")
    error = _compile_error("unknown_variable.yaml")
    assert error.format() == (
        f"{path}:29:9: error: unknown variable 'plyed'\n"
        "          - plyed += 1\n"
        "            ^\n"
        "  hint: did you mean 'played'?"
    )
    assert str(error) == error.format()


def test_format_caret_inside_a_rule_string() -> None:
    path = _path("unknown_option.yaml")
    error = _compile_error("unknown_option.yaml")
    assert error.format() == (
        f"{path}:40:29: error: unknown option 'round'\n"
        "      end_when: round >= option.round\n"
        "                                ^\n"
        "  hint: did you mean 'rounds'?"
    )


def test_format_without_hint() -> None:
    path = _path("end_turn_in_setup.yaml")
    error = _compile_error("end_turn_in_setup.yaml")
    assert error.format() == (
        f"{path}:36:7: error: `end turn` cannot be used in setup\n"
        "        - end turn\n"
        "          ^"
    )


def test_format_lists_every_problem_in_file_order() -> None:
    path = _path("several_mistakes.yaml")
    error = _compile_error("several_mistakes.yaml")
    assert error.format() == "\n".join([
        f"{path}:29:9: error: unknown variable 'plyed'",
        "          - plyed += 1",
        "            ^",
        "  hint: did you mean 'played'?",
        f"{path}:35:27: error: unknown zone 'hnd'",
        "        - deal 3 from deck to hnd",
        "                              ^",
        "  hint: did you mean 'hand'?",
        f"{path}:40:29: error: unknown option 'round'",
        "      end_when: round >= option.round",
        "                                ^",
        "  hint: did you mean 'rounds'?",
    ])


def test_format_of_an_inherited_error_shows_the_base_file_line() -> None:
    base = _path("inherited_error/base.yaml")
    error = _compile_error("inherited_error/variant.yaml")
    assert error.format() == (
        f"{base}:40:29: error: unknown option 'round'\n"
        "      end_when: round >= option.round\n"
        "                                ^\n"
        "  hint: did you mean 'rounds'?"
    )


def test_format_of_a_patch_error_shows_the_variant_line() -> None:
    path = _path("variant_patch_value_error.yaml")
    error = _compile_error("variant_patch_value_error.yaml")
    assert error.format() == (
        f"{path}:5:12: error: default of option 'rounds': 99 is above the maximum 9\n"
        "        value: 99\n"
        "               ^"
    )


# ---------------------------------------------------------------------- several mistakes at once


def test_all_independent_mistakes_are_reported_at_once() -> None:
    error = _compile_error("several_mistakes.yaml")
    assert len(error.diagnostics) == 3
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(29, 9), (35, 27), (40, 29)]


# ---------------------------------------------------------------------- variants


def test_highhand_variant_validates() -> None:
    gamedef = compile_file(str(VALID / "highhand_variant.yaml"), root=str(HERE.parent))
    assert gamedef.name == "High Hand (short)"
    options = {o.name: o.default for o in gamedef.model.options}
    assert options["rounds"] == 2
    assert options["partnerships"] is False
    # sections it does not touch come from the base, with the base's positions
    assert gamedef.model.round.span.file == os.path.normpath(str(GAMES / "highhand.yaml"))


def test_variant_merges_and_patches_its_base() -> None:
    gamedef = compile_file(str(VALID / "tiny_variant.yaml"), root=str(HERE.parent))
    options = {o.name: o.default for o in gamedef.model.options}
    assert options["rounds"] == 5
    assert options["mode"] == "fast"
    assert len(gamedef.model.round.setup.stmts) == 4


# ---------------------------------------------------------------------- command line


def test_cli_valid_spec_exits_0() -> None:
    path = str(VALID / "tiny.yaml")
    status, out, err = run("validate", path)
    assert status == 0
    assert out == f"{path}: ok (Tiny)\n"
    assert err == ""


def test_cli_quiet_valid_spec_prints_nothing() -> None:
    status, out, err = run("validate", "-q", str(VALID / "tiny.yaml"))
    assert (status, out, err) == (0, "", "")


def test_cli_invalid_spec_exits_1_with_messages_on_stderr() -> None:
    path = _path("unknown_variable.yaml")
    status, out, err = run("validate", path)
    assert status == 1
    assert out == ""
    assert err == (
        f"{path}:29:9: error: unknown variable 'plyed'\n"
        "          - plyed += 1\n"
        "            ^\n"
        "  hint: did you mean 'played'?\n"
        f"{path}: 1 problem\n"
    )


def test_cli_counts_every_problem() -> None:
    path = _path("several_mistakes.yaml")
    status, out, err = run("validate", path)
    assert status == 1
    assert out == ""
    assert err.endswith(f"{path}: 3 problems\n")
    assert err.count(": error: ") == 3


def test_cli_one_invalid_file_among_valid_ones_exits_1() -> None:
    good = str(VALID / "tiny.yaml")
    bad = _path("duplicate_key.yaml")
    status, out, err = run("validate", good, bad, str(GAMES / "tictactoe.yaml"))
    assert status == 1
    assert out == f"{good}: ok (Tiny)\n{GAMES / 'tictactoe.yaml'}: ok (Tic-tac-toe)\n"
    assert f"{bad}:5:3: error: duplicate key 'players' (first defined at line 4)" in err
    assert err.endswith(f"{bad}: 1 problem\n")


def test_cli_missing_file_exits_1() -> None:
    path = _path("no_such_spec.yaml")
    status, out, err = run("validate", path)
    assert status == 1
    assert out == ""
    assert err == f"{path}: error: file not found: {path}\n{path}: 1 problem\n"


@pytest.mark.parametrize("relative", sorted(CASES))
def test_cli_reports_each_invalid_spec(relative: str) -> None:
    path = _path(relative)
    status, out, err = run("validate", "--root", str(HERE.parent), path)
    assert status == 1
    assert out == ""
    error = _compile_error(relative)
    count = len(error.diagnostics)
    assert err == f"{error.format()}\n{path}: {count} problem{'s' if count != 1 else ''}\n"


def test_the_validator_with_definitions_inlined_reports_what_the_schema_does(monkeypatch) -> None:
    """Validation runs on the schema with its leaf definitions inlined (a speed-up): every broken
    and valid file gets the same report from the schema as written."""
    import importlib

    import jsonschema

    schema_module = importlib.import_module("rulespec.schema")
    files = sorted(str(p) for p in INVALID.rglob("*.yaml")) + sorted(str(p) for p in VALID.glob("*.yaml")) \
        + sorted(str(p) for p in GAMES.glob("*.yaml"))

    def reports() -> list[str]:
        out = []
        for path in files:
            try:
                out.append(compile_file(path, root=str(HERE.parent)).name)
            except SpecError as exc:
                out.append(str(exc))
        return out

    inlined = reports()
    assert str(schema_module._validator().schema).count("$ref") < str(schema_module.schema()).count("$ref")
    as_written = jsonschema.Draft202012Validator(schema_module.schema())
    monkeypatch.setattr(schema_module, "_validator", lambda: as_written)
    assert reports() == inlined
