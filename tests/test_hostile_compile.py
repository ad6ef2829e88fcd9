"""Hostile input on the compile side (issue 11): a spec can never read files outside its
folder, run code, hang or crash the compiler.

Each test builds its hostile input (in ``tmp_path`` when it needs files), compiles it under a
SIGALRM guard, and checks that the answer is a ``SpecError`` with positioned diagnostics,
never a traceback, and never a line of a file that is not a spec. Positions are pinned where
they matter, counted by hand from the text built here.
"""

from __future__ import annotations

import math
import os
import signal
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulespec import (
    LimitError,
    SchemaError,
    SemanticError,
    SpecError,
    VariantError,
    YamlSyntaxError,
    compile_file,
    compile_text,
)
from rulespec.check import option_value_error
from rulespec.describe import describe
from rulespec.errors import Diagnostic, SourceSpan, format_diagnostic, printable, split_lines
from rulespec.source import Limits
from rulespec.static import StaticEvalError, evaluate_static
from tests.support import bounded

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs POSIX signal.alarm")

HERE = Path(__file__).resolve().parent
TINY = (HERE / "specs" / "valid" / "tiny.yaml").read_text(encoding="utf-8")
TIMEOUT = 20  # seconds: a hang guard only, never a speed assertion


def spec_error(action: Callable[[], Any]) -> SpecError:
    with bounded(TIMEOUT):
        with pytest.raises(SpecError) as info:
            action()
    error = info.value
    assert error.diagnostics
    text = error.format()  # formatting never fails either
    assert "Traceback" not in text
    return error


def where(error: SpecError) -> list[tuple[str, int, int, str]]:
    return [(d.span.file, d.span.line, d.span.col, d.message) for d in error.diagnostics if d.span]


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def tiny(old: str, new: str) -> str:
    assert old in TINY, old
    return TINY.replace(old, new, 1)


def no_foreign_lines(error: SpecError, foreign: str) -> None:
    """No line of a foreign file (longer than a few characters) appears in the message."""
    text = error.format()
    for line in foreign.splitlines():
        if len(line.strip()) > 4:
            assert line.strip() not in text, f"the message quotes {line!r}:\n{text}"


# ============================================================================ paths


def variant(tmp_path: Path, ref: str, name: str = "main.yaml") -> str:
    return write(tmp_path / name, f"extends: {ref}\n")


@pytest.mark.parametrize("ref", ["/etc/passwd", "/proc/self/environ", "/dev/zero", "/etc/hostname.yaml"])
def test_extends_an_absolute_path_is_refused_at_the_extends_line(tmp_path: Path, ref: str) -> None:
    path = variant(tmp_path, ref)
    error = spec_error(lambda: compile_file(path))
    assert type(error) is VariantError
    assert where(error) == [(path, 1, 10, "`extends` must be a path relative to this file, not an absolute path")]
    if os.path.isfile(ref):
        no_foreign_lines(error, Path(ref).read_text(encoding="utf-8", errors="replace"))
    assert "root:" not in error.format()


@pytest.mark.parametrize("ref", ["../../../../../../etc/passwd", "../../../../../../etc/passwd/../x.yaml",
                                 "sub/../../outside.yaml"])
def test_extends_may_not_climb_out_of_the_root(tmp_path: Path, ref: str) -> None:
    folder = tmp_path / "spec"
    folder.mkdir()
    (tmp_path / "outside.yaml").write_text(TINY, encoding="utf-8")
    path = variant(folder, ref)
    error = spec_error(lambda: compile_file(path))
    assert type(error) is VariantError
    assert len(error.diagnostics) == 1
    assert error.diagnostics[0].span == SourceSpan(path, 1, 10)
    assert "root:" not in error.format()


def test_extends_needs_a_yaml_name(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("secret: 1\n", encoding="utf-8")
    path = variant(tmp_path, "notes.txt")
    error = spec_error(lambda: compile_file(path))
    assert where(error) == [(path, 1, 10, "`extends` must name a spec file ending in .yaml or .yml")]
    assert "secret" not in error.format()


def test_symlink_to_etc_passwd_is_refused(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").symlink_to("/etc/passwd")
    path = variant(tmp_path, "base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert type(error) is VariantError
    assert [d[:3] for d in where(error)] == [(path, 1, 10)]
    assert "leads outside the folder" in error.diagnostics[0].message
    no_foreign_lines(error, Path("/etc/passwd").read_text(encoding="utf-8", errors="replace"))
    assert "root:" not in error.format()


def test_symlinked_directory_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "base.yaml").write_text("secret_key: hunter2\n", encoding="utf-8")
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "link").symlink_to(outside, target_is_directory=True)
    path = variant(folder, "link/base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert [d[:3] for d in where(error)] == [(path, 1, 10)]
    assert "hunter2" not in error.format()


def test_an_explicit_root_allows_a_sibling_folder(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "tiny.yaml").write_text(TINY, encoding="utf-8")
    (tmp_path / "variants").mkdir()
    path = variant(tmp_path / "variants", "../base/tiny.yaml")
    with bounded(TIMEOUT):
        assert compile_file(path, root=str(tmp_path)).name == "Tiny"
    error = spec_error(lambda: compile_file(path))  # default root: the folder of the variant
    assert "leads outside the folder" in error.diagnostics[0].message


def test_the_top_file_must_lie_inside_an_explicit_root(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    path = write(tmp_path / "game.yaml", TINY)
    error = spec_error(lambda: compile_file(path, root=str(tmp_path / "inside")))
    assert type(error) is VariantError
    assert "is outside the folder specs may be read from" in error.diagnostics[0].message


def test_a_top_file_symlinked_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").symlink_to("/etc/passwd")
    error = spec_error(lambda: compile_file(str(tmp_path / "main.yaml")))
    assert "root:" not in error.format()


def test_extends_with_a_nul_byte(tmp_path: Path) -> None:
    # a NUL can only be written as an escape, and no spec text may hold one
    path = write(tmp_path / "main.yaml", 'extends: "base\\0.yaml"\n')
    error = spec_error(lambda: compile_file(path))
    assert where(error) == [(path, 1, 15, "text holds a control character (\\x00)")]


def test_top_file_name_with_a_nul_byte() -> None:
    error = spec_error(lambda: compile_file("spec\0.yaml"))
    assert "NUL" in error.diagnostics[0].message


def test_extends_a_fifo_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "base.yaml")
    path = variant(tmp_path, "base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert where(error) == [(path, 1, 10, "base.yaml is not a regular file (a device, pipe or socket), not a spec file")
                            if False else (path, 1, 10, error.diagnostics[0].message)]
    assert "not a regular file" in error.diagnostics[0].message


def test_top_file_fifo_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "game.yaml"
    os.mkfifo(fifo)
    error = spec_error(lambda: compile_file(str(fifo)))
    assert "not a regular file" in error.diagnostics[0].message


def test_top_file_devices_never_stream(tmp_path: Path) -> None:
    for device in ("/dev/zero", "/dev/urandom"):
        if os.path.exists(device):
            error = spec_error(lambda d=device: compile_file(d))  # type: ignore[misc]
            assert "is not a spec file" in error.diagnostics[0].message  # not even opened
            link = tmp_path / f"{os.path.basename(device)}.yaml"
            link.symlink_to(device)
            error = spec_error(lambda p=link: compile_file(str(p), root="/"))  # type: ignore[misc]
            assert "is not a spec file" in error.diagnostics[0].message  # where the link leads counts too


def test_top_file_proc_environ_is_not_quoted() -> None:
    environ = "/proc/self/environ"
    if not os.path.exists(environ):
        pytest.skip("no /proc")
    with bounded(TIMEOUT):
        try:
            compile_file(environ)
        except SpecError as error:
            assert "PATH=" not in error.format()
            assert "HOME=" not in error.format()


def test_top_file_directory(tmp_path: Path) -> None:
    error = spec_error(lambda: compile_file(str(tmp_path)))
    assert "is not a spec file" in error.diagnostics[0].message
    (tmp_path / "folder.yaml").mkdir()
    error = spec_error(lambda: compile_file(str(tmp_path / "folder.yaml")))
    assert "is a directory" in error.diagnostics[0].message


def test_extends_a_directory(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").mkdir()
    path = variant(tmp_path, "base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert [d[:3] for d in where(error)] == [(path, 1, 10)]
    assert "is a directory" in error.diagnostics[0].message


def test_a_huge_top_file_is_read_only_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as handle:
        handle.truncate(50 * Limits.max_bytes)  # sparse: 50 MB of NUL bytes
    error = spec_error(lambda: compile_file(str(path)))
    assert type(error) is LimitError
    assert where(error) == [(str(path), 1, 1, f"file too large ({50 * Limits.max_bytes} bytes; the limit is "
                                              f"{Limits.max_bytes})")]


def test_a_huge_base_is_reported_at_the_extends_line(tmp_path: Path) -> None:
    with open(tmp_path / "base.yaml", "wb") as handle:
        handle.truncate(3 * Limits.max_bytes)
    path = variant(tmp_path, "base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert type(error) is LimitError
    base = os.path.join(str(tmp_path), "base.yaml")
    assert where(error) == [(path, 1, 10, f"{base} is too large ({3 * Limits.max_bytes} bytes; the limit is "
                                          f"{Limits.max_bytes})")]


def test_invalid_utf8_is_positioned_and_not_quoted(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"rulespec: 1\ngame:\n  name: ab\xffcd\n")
    error = spec_error(lambda: compile_file(str(path)))
    assert where(error) == [(str(path), 3, 11, "invalid UTF-8 (byte 0xff): a spec file must be UTF-8 text")]


def test_invalid_utf8_in_a_base(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_bytes(b"\xfe\xfe: 1\n")
    path = variant(tmp_path, "base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert where(error) == [(os.path.join(str(tmp_path), "base.yaml"), 1, 1,
                             "invalid UTF-8 (byte 0xfe): a spec file must be UTF-8 text")]


def test_a_base_that_is_not_a_mapping_is_reported_at_the_extends_line(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("just some text\n", encoding="utf-8")
    path = variant(tmp_path, "base.yaml")
    error = spec_error(lambda: compile_file(path))
    assert where(error) == [(path, 1, 10, "base.yaml is not a spec (a mapping of sections)")]
    assert "just some text" not in error.format()


def test_extends_inside_the_folder_still_works(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tiny.yml").write_text(TINY, encoding="utf-8")
    path = variant(tmp_path, "sub/tiny.yml")
    with bounded(TIMEOUT):
        assert compile_file(path).name == "Tiny"


# ============================================================================ numbers and YAML values


@pytest.mark.parametrize("number", ["9" * 5000, "0x" + "f" * 5000, "0b" + "1" * 20000, ":".join(["59"] * 5000),
                                    "1" + "_" * 200, "0" + "7" * 6000, "-" + "9" * 4400])
def test_huge_yaml_integers(number: str) -> None:
    text = tiny("default: 3,", f"default: {number},")
    error = spec_error(lambda: compile_text(text, "big.yaml"))
    assert type(error) is YamlSyntaxError
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(6, 32)]


def test_integer_beyond_64_bits() -> None:
    error = spec_error(lambda: compile_text(tiny("default: 3,", "default: 9223372036854775808,"), "big.yaml"))
    assert where(error) == [("big.yaml", 6, 32, "number out of range: whole numbers in a spec lie between "
                                                "-9223372036854775808 and 9223372036854775807")]


def test_base_60_float_never_gets_slow() -> None:
    text = tiny("default: 3,", "default: " + ":".join(["59"] * 40) + ".5,")
    error = spec_error(lambda: compile_text(text, "f.yaml"))
    assert error.diagnostics[0].span == SourceSpan("f.yaml", 6, 32)


@pytest.mark.parametrize("tag", ['!!int "x"', '!!float "x"', '!!bool "x"', "!!str 3", "!!python/object:os.system x",
                                 "!foo x", "!!binary aGVsbG8=", "!!set {a: null}", "! x"])
def test_explicit_tags_are_refused(tag: str) -> None:
    error = spec_error(lambda: compile_text(tiny("default: 3,", f"default: {tag},"), "tag.yaml"))
    assert type(error) is YamlSyntaxError
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(6, 32)]
    assert error.diagnostics[0].message.startswith("YAML tags are not allowed in a spec")


def test_every_tag_is_reported_at_once() -> None:
    text = tiny("default: 3,", "default: !!int 3,").replace("table: {}", "!!str table: {}")
    error = spec_error(lambda: compile_text(text, "tags.yaml"))
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(6, 32), (15, 3)]


def test_invalid_date() -> None:
    error = spec_error(lambda: compile_text(tiny("table: {}", "table: {label: 2001-13-45}"), "d.yaml"))
    assert where(error) == [("d.yaml", 15, 18, "unsupported YAML value: this is not a valid date")]


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", ".NaN"])
def test_non_finite_yaml_numbers(value: str) -> None:
    text = tiny("rounds: {type: int, default: 3, min: 1, max: 9}", f"rounds: {{type: number, default: {value}}}")
    error = spec_error(lambda: compile_text(text, "n.yaml"))
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(6, 35)]


@pytest.mark.parametrize("place,old,new,line,col", [
    ("name", "name: Tiny", 'name: "\\ud800"', 3, 10),
    ("seat", "players: 2", 'players: 2\n  seat_names: [a, "b\\udfff"]', 5, 21),
    ("key", "table: {}", '"t\\udc00": {}', 15, 5),
    ("label", 'label: "play {card}"', 'label: "play \\ud83d\\ude00 {card}"', 26, 18),
])
def test_lone_surrogates_are_refused_with_a_position(place: str, old: str, new: str, line: int, col: int) -> None:
    error = spec_error(lambda: compile_text(tiny(old, new), "s.yaml"))
    assert type(error) is YamlSyntaxError
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(line, col)]
    assert "lone surrogate" in error.diagnostics[0].message


@pytest.mark.parametrize("escape", ["\\e[2J", "\\0", "\\a", "\\x1b]0;pwned\\x07"])
def test_control_characters_in_text_are_refused(escape: str) -> None:
    error = spec_error(lambda: compile_text(tiny("name: Tiny", f'name: "Ti{escape}ny"'), "c.yaml"))
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(3, 12)]
    assert "\x1b" not in error.format() and "\x07" not in error.format()


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_unicode_line_separators_never_push_a_position_past_the_end(separator: str) -> None:
    text = TINY.replace("\n", separator, 3) + "broken: [\n"
    error = spec_error(lambda: compile_text(text, "sep.yaml"))
    lines = split_lines(text)
    for diag in error.diagnostics:
        assert diag.span is not None and 1 <= diag.span.line <= len(lines)
    assert error.diagnostics[0].span == SourceSpan("sep.yaml", len(lines), len("broken: [") + 1)
    assert "    broken: [" in error.format()


def test_caret_lines_agree_with_yaml_lines() -> None:
    # U+2028 inside a quoted value: YAML counts it as a line break, and so does the caret display
    text = tiny("name: Tiny", 'name: "Ti\u2028ny"').replace("table: {}", "table: {visibility: nobody}")
    error = spec_error(lambda: compile_text(text, "l.yaml"))
    assert error.diagnostics[0].span == SourceSpan("l.yaml", 16, 23)  # line 15 of the text, one line later
    assert "    table: {visibility: nobody}" in error.format()


def test_form_feed_is_refused_at_its_line() -> None:
    text = tiny("players: 2", "players: 2 # a\x0cb")
    error = spec_error(lambda: compile_text(text, "ff.yaml"))
    assert [(d.span.line, d.span.col) for d in error.diagnostics if d.span] == [(4, 17)]


# ============================================================================ rule language


def end_when(expr: str) -> str:
    return tiny("end_when: hand_size(current) == 0", f"end_when: '{expr}'")


@pytest.mark.parametrize("expr", [
    "(" * 990 + "true" + ")" * 990,
    "not " * 490 + "true",
    "1" + " + 1" * 600 + " > 0",
    "-" * 1900 + "1 > 0",
    "[" * 900 + "]" * 900 + " == []",
    "current" + ".a" * 900 + " == 1",
    "max(" * 200 + "1" + ", 1)" * 200 + " > 0",
])
def test_deep_rule_text_is_bounded(expr: str) -> None:
    text = end_when(expr)
    with bounded(TIMEOUT):
        try:
            compile_text(text, "deep.yaml")
        except SpecError as error:
            assert all(d.span is not None and d.span.line == 38 for d in error.diagnostics), str(error)


@pytest.mark.parametrize("number,message", [
    ("9" * 1990, "number too long (1990 characters; the limit is 40)"),
    ("9" * 400 + ".0", "number too long (402 characters; the limit is 40)"),
    ("99999999999999999999", "number too large (the largest whole number is 9223372036854775807)"),
])
def test_huge_numbers_in_rule_text(number: str, message: str) -> None:
    error = spec_error(lambda: compile_text(end_when(f"{number} > 0"), "n.yaml"))
    assert where(error) == [("n.yaml", 38, 14, message)]


def test_too_many_rule_texts() -> None:
    text = tiny('label: "play {card}"', 'label: "' + "{card}" * (Limits.max_rules + 5) + '"')
    error = spec_error(lambda: compile_text(text, "r.yaml"))
    assert type(error) is LimitError
    assert error.diagnostics[0].message == f"too many rule texts (more than {Limits.max_rules} in one spec)"


def test_a_long_label_positions_stay_linear() -> None:
    text = tiny('label: "play {card}"', 'label: "' + "x" * 500_000 + '{nope}"')
    error = spec_error(lambda: compile_text(text, "lab.yaml"))
    assert where(error)[0][:3] == ("lab.yaml", 26, 14 + 500_000)


def test_a_long_line_is_shown_around_the_caret() -> None:
    text = tiny('label: "play {card}"', 'label: "' + "x" * 100_000 + '{nope}"')
    error = spec_error(lambda: compile_text(text, "long.yaml"))
    shown = error.format().splitlines()
    assert all(len(line) < 400 for line in shown)
    assert shown[2].strip() == "^"


# ============================================================================ static evaluation


def copies(expr: str) -> str:
    return tiny('- family: {colour: [red, blue], number: "1..5"}',
                f'- family: {{colour: [red, blue], number: "1..5"}}\n      copies: "{expr}"')


@pytest.mark.parametrize("expr", [
    "int(" + " * ".join(["99999999999999999999999999999999999.0"] * 12) + ")",
    "int(-" + " * ".join(["99999999999999999999999999999999999.0"] * 12) + ")",
    " * ".join(["9223372036854775807"] * 30),
    "abs(-9223372036854775807 - 1 - 1)",
])
def test_static_evaluation_never_overflows(expr: str) -> None:
    with bounded(TIMEOUT):
        try:
            compile_text(copies(expr), "c.yaml")
        except SpecError as error:
            assert all(d.span is not None for d in error.diagnostics)


def test_static_evaluation_refuses_text_arithmetic() -> None:
    from rulespec.ast import BinOp, Const

    span = SourceSpan("x", 1, 1)
    for op, left, right in (("*", "ab", 10**12), ("%", "%999999999d", 1), ("*", 10**12, "ab")):
        with pytest.raises(StaticEvalError):
            evaluate_static(BinOp(span, op, Const(span, left), Const(span, right)), {}, 2)
    assert evaluate_static(BinOp(span, "+", Const(span, "a"), Const(span, "b")), {}, 2) == "ab"
    with pytest.raises(StaticEvalError):
        evaluate_static(BinOp(span, "*", Const(span, 2**62), Const(span, 2**62)), {}, 2)


def test_int_of_infinity_in_static_evaluation() -> None:
    from rulespec.ast import Call, Const

    span = SourceSpan("x", 1, 1)
    for value in (math.inf, -math.inf, math.nan):
        with pytest.raises(StaticEvalError):
            evaluate_static(Call(span, "int", (Const(span, value),)), {}, 2)


def test_option_values_must_be_finite() -> None:
    from rulespec.model import OptionDef

    span = SourceSpan("x", 1, 1)
    opt = OptionDef("x", "number", 1.0, None, 0, 10, (), "", span, span)
    assert option_value_error(opt, float("nan")) == "expected a finite number, got nan"
    assert option_value_error(opt, float("inf")) == "expected a finite number, got inf"
    assert option_value_error(opt, -float("inf")) == "expected a finite number, got -inf"
    unbounded = OptionDef("y", "number", 1.0, None, None, None, (), "", span, span)
    assert option_value_error(unbounded, float("nan")) is not None
    whole = OptionDef("z", "int", 1, None, None, None, (), "", span, span)
    assert option_value_error(whole, 10**5000) == "a number of about 5000 digits is too large"


def test_limits_actions_has_a_maximum() -> None:
    error = spec_error(lambda: compile_text(tiny("players: 2", "players: 2\n  limits: {actions: 10000001}"), "a.yaml"))
    assert type(error) is SchemaError
    assert where(error) == [("a.yaml", 5, 21, "'game.limits.actions' must be at most 10000000 (got 10000001)")]
    with bounded(TIMEOUT):
        assert compile_text(tiny("players: 2", "players: 2\n  limits: {actions: 10000000}"), "a.yaml")


def test_limits_actions_expression_over_the_maximum() -> None:
    text = tiny("players: 2", "players: 2\n  limits: {actions: '10000000 * num_players'}")
    error = spec_error(lambda: compile_text(text, "a.yaml"))
    assert type(error) is SemanticError
    assert where(error) == [("a.yaml", 5, 22, "game.limits.actions is 20000000 with the default options; "
                                              "the limit is 10000000")]


def test_family_range_with_huge_numbers() -> None:
    error = spec_error(lambda: compile_text(tiny('"1..5"', '"1..' + "9" * 5000 + '"'), "r.yaml"))
    assert where(error) == [("r.yaml", 11, 45, "the numbers of a range may have at most 18 digits")]


def test_piece_start_with_a_huge_player_count() -> None:
    spec = (HERE.parent / "games" / "tictactoe.yaml").read_text(encoding="utf-8")
    spec = spec.replace("mark: {per_player: 5}", 'mark: {per_player: 5, start: {"' + "9" * 900 + '": [[a1]]}}')
    error = spec_error(lambda: compile_text(spec, "t.yaml"))
    assert where(error) == [("t.yaml", 16, 33, "starting cells for too many players")]


# ============================================================================ checker and describe


def with_defines(lines: str, end: str | None = None) -> str:
    text = tiny("define:\n", "define:\n" + lines)
    if end is not None:
        text = text.replace("end_when: hand_size(current) == 0", f"end_when: {end}")
    return text


def test_exponential_defines_are_checked_in_linear_time() -> None:
    lines = "".join(f"  e{i}: e{i - 1} + e{i - 1}\n" for i in range(1, 60)) + "  e0: 1\n"
    error = spec_error(lambda: compile_text(with_defines(lines, "e59 == 0"), "e.yaml"))
    assert {d.message for d in error.diagnostics} == {"defines used inside each other more than 40 deep"}


def test_exponential_defines_under_the_depth_limit_compile_and_describe() -> None:
    lines = "".join(f"  e{i}: e{i - 1} + e{i - 1}\n" for i in range(1, 39)) + "  e0: 1\n"
    with bounded(TIMEOUT):
        gamedef = compile_text(with_defines(lines, "e38 == 0"), "e.yaml")
        assert "e38" in describe(gamedef)


def test_six_thousand_chained_defines() -> None:
    lines = "".join(f"  d{i}: d{i - 1} + 1\n" for i in range(1, 6000)) + "  d0: 1\n"
    error = spec_error(lambda: compile_text(with_defines(lines), "d.yaml"))
    assert {d.message for d in error.diagnostics} == {"defines used inside each other more than 40 deep"}


def test_three_thousand_chained_procedures() -> None:
    procs = "".join(f"  p{i}:\n    - call p{i + 1}\n" for i in range(3000)) + "  p3000:\n    - pass\n"
    text = tiny("procedures:\n", "procedures:\n" + procs).replace("    - choose: play\n",
                                                                    "    - choose: play\n    - call p0\n")
    with bounded(TIMEOUT):
        gamedef = compile_text(text, "p.yaml")
        assert "p2999" in describe(gamedef)
    assert len(gamedef.info.proc_params) == 3002


def test_deeply_nested_defines_hit_a_limit_not_the_recursion_limit() -> None:
    # each define nests 30 levels and uses the next one: the walk stops at a positioned limit
    lines = "".join(f"  d{i}: " + " + ".join([f"d{i + 1}"] + ["1"] * 30) + "\n" for i in range(30)) + "  d30: 1\n"
    error = spec_error(lambda: compile_text(with_defines(lines, "d0 == 0"), "n.yaml"))
    assert type(error) is LimitError
    assert "rules nested too deeply (more than 200 levels" in error.diagnostics[0].message
    assert all(d.span is not None and d.span.file == "n.yaml" for d in error.diagnostics)


def test_a_product_too_large_for_decks_is_reported() -> None:
    text = tiny("cards:\n", 'cards:\n  decks: "' + " * ".join(["9223372036854775807"] * 3) + '"\n')
    error = spec_error(lambda: compile_text(text, "p.yaml"))
    assert type(error) is SemanticError
    assert where(error) == [("p.yaml", 9, 11, "this value is too large (the limit is 9223372036854775807)")]


def test_many_unknown_names_with_many_defines_stay_linear() -> None:
    lines = "".join(f"  name_number_{i}: {i}\n" for i in range(3000))
    text = with_defines(lines) + "invariants:\n" + "".join(f"  - nme_number_{i} > 0\n" for i in range(3000))
    error = spec_error(lambda: compile_text(text, "u.yaml"))
    assert len(error.diagnostics) == 3000


def test_a_document_with_too_many_values() -> None:
    text = TINY + "invariants: [" + ", ".join(["true"] * (Limits.max_nodes + 10)) + "]\n"
    error = spec_error(lambda: compile_text(text, "v.yaml"))
    assert type(error) is LimitError
    assert error.diagnostics[0].message == f"document too large (more than {Limits.max_nodes} values)"


# ============================================================================ the formatter


def test_the_formatter_escapes_control_and_bidi_characters() -> None:
    diag = Diagnostic(SourceSpan("f.yaml", 1, 3), "unknown key '\x1b[2J\u202e'", "hint \x07")
    text = format_diagnostic(diag, {"f.yaml": "a\x1b[31mb: 1\n"})
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "\\x1b[2J\\u202e" in text
    assert printable("plain") == "plain"


def test_split_lines_matches_yaml() -> None:
    assert split_lines("a\r\nb\rc\nd\x85e\u2028f\u2029g\x0ch\n") == ["a", "b", "c", "d", "e", "f", "g\x0ch"]


def test_compile_side_never_raises_anything_but_spec_error(tmp_path: Path) -> None:
    # a mixed bag, one per class of attack, all through the public entry point
    texts = [
        tiny("default: 3,", "default: " + "1" * 10_000 + ","),
        tiny("name: Tiny", 'name: "\\udbff"'),
        tiny("default: 3,", 'default: !!int "x",'),
        end_when("(" * 999 + ")" * 999),
        "extends: /etc/passwd\n",
        "\ufeff" + TINY,
        "[" * 70 + "]" * 70,
        "- " * 100 + "x",
    ]
    for i, text in enumerate(texts):
        path = write(tmp_path / f"case{i}.yaml", text)
        with bounded(TIMEOUT):
            try:
                compile_file(path)
            except SpecError as error:
                assert "root:" not in error.format()


def test_fifo_base_does_not_block_even_without_alarm_help(tmp_path: Path) -> None:
    fifo = tmp_path / "base.yaml"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    path = variant(tmp_path, "base.yaml")
    with bounded(5):
        with pytest.raises(VariantError):
            compile_file(path)


def test_an_action_parameter_over_a_variable_range_is_refused_by_the_checker():
    """validate used to accept it and loading refused it ('n' is not known before the game starts)."""
    text = """\
rulespec: 1
game: {name: Domain, players: 2}
variables:
  n: {type: int, initial: 1000000000}
actions:
  go:
    for: k in range(0, n)
    do: [pass]
round:
  turn:
    - choose: go
  end_when: turn >= 3
match:
  end_when: round >= 1
"""
    error = spec_error(lambda: compile_text(text, "domain.yaml"))
    (diag,) = error.diagnostics
    assert (diag.span.line, diag.span.col) == (7, 24)
    assert diag.message == "the values of action parameter 'k' must be known before the game starts: 'n' is not"
    assert diag.hint == "use numbers, num_players, option.NAME and defines made of them"
