"""The language server (`rulespec lsp`, issue 17), driven over stdio by a real LSP client (pygls's).

The server needs the optional extra `.[lsp]`: without it these tests are skipped on a
developer's machine and fail in CI (`CI` set), where every extra is installed.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from interpreter.cli import main
from rulespec import compile_text
from rulespec import types as T
from tests.conftest import ROOT, require

LANGUAGE_MD = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
EDITORS_MD = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
TIMEOUT = 120  # seconds for one answer of the server (a loaded CI machine is slow, never this slow)

SPEC = """\
rulespec: 1
game: {name: Tiny, players: 2}
options:
  rounds: {type: int, default: 3, min: 1, max: 9, description: Rounds in a match}
  bonus: {type: bool, default: false}
cards:
  attributes:
    points: {type: int, default: 0}
  list:
    - {name: Ace, points: 11}
    - {name: Two, points: 2}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
variables:
  played: {type: int, initial: 0}
procedures:
  score(p):
    - p.score += sum(c.points for c in hand(p))
round:
  setup:
    - move all cards to deck
    - deal 1 from deck to hand
  turn:
    - call score(current)
    - if: "count([c for c in hand(current) if c.name == 'Ace']) > 0"
      then: [played += 1]
    - end round
match:
  end_when: round >= option.rounds
"""
# three problems, two on one line; a character outside the BMP before one of them (two UTF-16 units)
BROKEN = SPEC.replace("call score(current)", "call scor(current)").replace(
    "round >= option.rounds", "\"'\U0001d11e' == 'x' or rounds >= option.round\"")


def lsp() -> Any:
    """lsprotocol's types (the extra is required: skipped without it, a failure in CI)."""
    require("pygls")
    return require("lsprotocol.types")


def position_of(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """The LSP position (0-based line, UTF-16 column) of ``needle`` in ``text`` (plus ``offset``)."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return line, len(text[start:index].encode("utf-16-le")) // 2


class Session:
    """One `rulespec lsp` process and a pygls client talking to it."""

    def __init__(self, *args: str, encodings: list[str] | None = None):
        self.args = args
        self.encodings = encodings  # the position encodings the client offers (None: UTF-16 only)
        self.L = lsp()
        self.published: dict[str, list[Any]] = {}
        self.arrived = asyncio.Event()

    async def __aenter__(self) -> Session:
        from pygls.lsp.client import LanguageClient

        L = self.L
        self.client = LanguageClient("rulespec-tests", "1")

        @self.client.feature(L.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: Any) -> None:
            self.published.setdefault(params.uri, []).append(params)
            self.arrived.set()

        env = dict(os.environ, PYTHONPATH=str(ROOT))
        await self.client.start_io(sys.executable, "-m", "interpreter.cli", "lsp", *self.args, cwd=str(ROOT), env=env)
        general = L.GeneralClientCapabilities(position_encodings=self.encodings) if self.encodings else None
        self.capabilities = (await asyncio.wait_for(self.client.initialize_async(
            L.InitializeParams(capabilities=L.ClientCapabilities(general=general))), TIMEOUT)).capabilities
        self.client.initialized(L.InitializedParams())
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await self.client.stop()

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.resolve().as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.client.text_document_did_open(self.L.DidOpenTextDocumentParams(
            self.L.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
        return uri

    def change(self, uri: str, version: int, text: str) -> None:
        L = self.L
        self.client.text_document_did_change(L.DidChangeTextDocumentParams(
            L.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [L.TextDocumentContentChangeWholeDocument(text=text)]))

    async def diagnostics(self, uri: str, version: int) -> list[Any]:
        """The diagnostics the server publishes for ``version`` of the document."""
        async def wait() -> list[Any]:
            while True:
                for params in self.published.get(uri, []):
                    if params.version == version:
                        return list(params.diagnostics)
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(wait(), TIMEOUT)

    async def ask(self, method: Callable[..., Awaitable[Any]], uri: str, at: tuple[int, int], **extra: Any) -> Any:
        L = self.L
        params_type = {"text_document_completion_async": L.CompletionParams, "text_document_hover_async": L.HoverParams,
                       "text_document_definition_async": L.DefinitionParams,
                       "text_document_references_async": L.ReferenceParams}[method.__name__]
        params = params_type(text_document=L.TextDocumentIdentifier(uri), position=L.Position(*at), **extra)
        return await asyncio.wait_for(method(params), TIMEOUT)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())


def on_spec(tmp_path: Path, scenario: Callable[[Session, str], Awaitable[None]], *args: str) -> None:
    """Run ``scenario(session, uri)`` with SPEC open (and checked: no problems) in `rulespec lsp ARGS`."""
    path = tmp_path / "my spec.yaml"  # a space: quoted in its URI
    path.write_text(SPEC, encoding="utf-8")

    async def opened() -> None:
        async with Session(*args) as s:
            uri = s.open(path)
            assert await s.diagnostics(uri, 1) == []
            await scenario(s, uri)

    run(opened)


def validate_problems(path: Path, reported: Path | None = None) -> list[tuple[int, int, str]]:
    """(line, col, message with its hint) of each problem `rulespec validate` prints for ``path``,
    placed in ``reported`` (default: ``path`` itself)."""
    out, err = io.StringIO(), io.StringIO()
    assert main(["validate", str(path)], out, err) == 1
    problems: list[tuple[int, int, str]] = []
    for line in err.getvalue().splitlines():
        found = re.match(rf"{re.escape(str(reported or path))}:(\d+):(\d+): error: (.*)$", line)
        if found:
            problems.append((int(found.group(1)), int(found.group(2)), found.group(3)))
        elif line.startswith("  hint: "):
            line_no, col, message = problems[-1]
            problems[-1] = (line_no, col, f"{message}\nhint: {line[8:]}")
    assert problems, err.getvalue()
    return problems


def utf16_column(text: str, line: int, col: int) -> int:
    """The LSP column of the compiler's 1-based (line, col)."""
    return len(text.splitlines()[line - 1][: col - 1].encode("utf-16-le")) // 2


def utf8_column(text: str, line: int, col: int) -> int:
    return len(text.splitlines()[line - 1][: col - 1].encode("utf-8"))


# ---------------------------------------------------------------------------------- the command


def test_without_the_extra_rulespec_lsp_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch):
    for name in list(sys.modules):
        if name.split(".")[0] in ("pygls", "lsprotocol"):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.setitem(sys.modules, "lsprotocol", None)
    monkeypatch.delitem(sys.modules, "interpreter.lsp.server", raising=False)
    out, err = io.StringIO(), io.StringIO()
    assert main(["lsp"], out, err) == 2
    assert err.getvalue() == "rulespec: error: rulespec lsp needs pygls and lsprotocol: pip install 'rulespec[lsp]'\n"
    assert out.getvalue() == ""


def test_the_lsp_extra_is_declared_installed_by_ci_and_in_the_readme_command():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extra = project["project"]["optional-dependencies"]["lsp"]
    assert {re.split(r"[<>=]", d)[0] for d in extra} == {"pygls", "lsprotocol"}
    assert "interpreter.lsp" in project["tool"]["setuptools"]["packages"]
    assert project["tool"]["setuptools"]["package-data"]["interpreter.lsp"] == ["language.md"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = next(line for line in ci.splitlines() if "pip install" in line)
    assert "lsp" in re.search(r"\.\[([^\]]*)\]", command).group(1).split(",")  # type: ignore[union-attr]
    assert command in (ROOT / "README.md").read_text(encoding="utf-8")  # CI runs exactly the README's command


def test_a_bad_debounce_is_a_usage_error():
    out, err = io.StringIO(), io.StringIO()
    assert main(["lsp", "--debounce", "-5"], out, err) == 2
    assert "the debounce delay must be from 0 to 60000" in err.getvalue()


# ---------------------------------------------------------------------------------- over stdio


def test_initialize_announces_every_feature():
    async def scenario() -> None:
        async with Session() as s:
            caps = s.capabilities
            assert caps.hover_provider and caps.definition_provider and caps.references_provider
            assert caps.document_symbol_provider
            assert "." in caps.completion_provider.trigger_characters
            assert caps.text_document_sync.change == s.L.TextDocumentSyncKind.Incremental

    run(scenario)


def test_a_broken_spec_gets_the_problems_of_rulespec_validate_and_a_fix_clears_them(tmp_path: Path):
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    expected = validate_problems(path)
    assert len(expected) == 3

    async def scenario() -> None:
        async with Session() as s:
            uri = s.open(path)
            got = await s.diagnostics(uri, 1)
            assert sorted((d.range.start.line, d.range.start.character, d.message) for d in got) == sorted(
                (line - 1, utf16_column(BROKEN, line, col), message) for line, col, message in expected)
            assert all(d.severity == s.L.DiagnosticSeverity.Error and d.source == "rulespec" for d in got)
            s.change(uri, 2, SPEC)
            assert await s.diagnostics(uri, 2) == []

    run(scenario)


@pytest.mark.parametrize("offered", [["utf-8", "utf-16"], ["utf-32"]])
def test_columns_are_counted_in_the_encoding_the_client_prefers(tmp_path: Path, offered: list[str]):
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    column = utf8_column if offered[0] == "utf-8" else (lambda text, line, col: col - 1)

    async def scenario() -> None:
        async with Session(encodings=offered) as s:
            assert s.capabilities.position_encoding == offered[0]
            uri = s.open(path)
            got = await s.diagnostics(uri, 1)
            assert sorted((d.range.start.line, d.range.start.character) for d in got) == sorted(
                (line - 1, column(BROKEN, line, col)) for line, col, _ in validate_problems(path))

    run(scenario)


def test_an_error_in_a_base_spec_is_shown_on_the_extends_line(tmp_path: Path):
    source = ROOT / "tests" / "specs" / "invalid" / "inherited_error"
    for name in ("base.yaml", "variant.yaml"):
        (tmp_path / name).write_text((source / name).read_text(encoding="utf-8"), encoding="utf-8")
    ((line, col, message),) = validate_problems(tmp_path / "variant.yaml", tmp_path / "base.yaml")
    base_problem = next(p for p in validate_problems(tmp_path / "base.yaml") if p[:2] == (line, col))
    assert base_problem[2] == message

    async def scenario() -> None:
        async with Session() as s:
            uri = s.open(tmp_path / "variant.yaml")
            (diag,) = await s.diagnostics(uri, 1)
            text = (tmp_path / "variant.yaml").read_text(encoding="utf-8")
            assert (diag.range.start.line, diag.range.start.character) == position_of(text, "base.yaml")
            assert diag.message == f"base.yaml:{line}:{col}: {message}"
            (related,) = diag.related_information
            assert related.location.uri == (tmp_path / "base.yaml").resolve().as_uri()
            assert (related.location.range.start.line, related.location.range.start.character) == (line - 1, col - 1)
            assert related.message == message.split("\nhint: ")[0]

    run(scenario)


def test_changes_in_a_burst_are_checked_once_after_the_last(tmp_path: Path):
    async def scenario(s: Session, uri: str) -> None:
        await asyncio.sleep(0.5)  # a pause: the next change is checked at once
        for version in range(2, 7):
            s.change(uri, version, BROKEN if version % 2 == 0 else SPEC)
        assert len(await s.diagnostics(uri, 6)) == 3  # the last text is checked
        versions = [p.version for p in s.published[uri]]
        assert versions[0] == 1 and versions[-1] == 6 and len(versions) < 6, versions

    on_spec(tmp_path, scenario, "--debounce", "400")


def test_completion_after_option_dot_lists_the_specs_options(tmp_path: Path):
    options = sorted(o.name for o in compile_text(SPEC, str(tmp_path / "spec.yaml")).model.options)
    typing = SPEC.replace("round >= option.rounds", "round >= option.")  # does not compile while typed

    async def scenario(s: Session, uri: str) -> None:
        s.change(uri, 2, typing)
        at = position_of(typing, "option.", len("option."))
        result = await s.ask(s.client.text_document_completion_async, uri, at)
        assert sorted(item.label for item in result.items) == options
        rounds = next(item for item in result.items if item.label == "rounds")
        assert rounds.documentation.value == "Rounds in a match"

    on_spec(tmp_path, scenario)


def test_completion_of_card_attributes_statements_builtins_and_yaml_keys(tmp_path: Path):
    attribute = SPEC.replace("sum(c.points for", "sum(c. for")
    statement = SPEC.replace("    - end round\n", "    - sh\n")
    top_key = SPEC + "ro"

    async def scenario(s: Session, uri: str) -> None:
        s.change(uri, 2, attribute)
        result = await s.ask(s.client.text_document_completion_async, uri, position_of(attribute, "c. for", 2))
        assert {"points", "name"} <= {i.label for i in result.items}
        s.change(uri, 3, statement)
        result = await s.ask(s.client.text_document_completion_async, uri, position_of(statement, "- sh", 4))
        labels = {i.label: i for i in result.items}
        expected = {"shuffle", "move", "deal", "call", "deck", "hand", "count", "players", "if", "choose"}
        assert expected <= set(labels)
        assert labels["count"].detail == "count(zone|list[any]) -> int"
        card = SPEC.replace("c.name == 'Ace'", "c.name == '")
        s.change(uri, 5, card)
        result = await s.ask(s.client.text_document_completion_async, uri, position_of(card, "== '", 4))
        assert sorted(i.label for i in result.items) == ["Ace", "Two"]  # from the last text that compiled
        unreadable = SPEC.replace("    - end round\n", "    - 'unclosed + ha\n")  # not YAML: the names it had
        s.change(uri, 6, unreadable)
        result = await s.ask(s.client.text_document_completion_async, uri, position_of(unreadable, "+ ha", 4))
        assert {"hand", "deck", "played"} <= {i.label for i in result.items}
        s.change(uri, 4, top_key)
        result = await s.ask(s.client.text_document_completion_async, uri, position_of(top_key, "\nro", 3))
        assert {i.label for i in result.items} == set(json.loads(
            (ROOT / "rulespec" / "schema.json").read_text(encoding="utf-8"))["$defs"]["spec"]["properties"])

    on_spec(tmp_path, scenario)


def _docs_row(name: str) -> str:
    """The meaning of ``name(...)`` in docs/language.md's tables of built-in functions."""
    rows = re.findall(r"^\| (`[^|]*) \| (.*) \|$", LANGUAGE_MD, re.M)
    (meaning,) = [meaning for forms, meaning in rows if re.search(rf"`{name}\(", forms)]
    return meaning


def test_hover_on_a_builtin_shows_its_documentation_from_language_md(tmp_path: Path):
    async def scenario(s: Session, uri: str) -> None:
        result = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "sum(", 1))
        assert _docs_row("sum") in result.contents.value
        assert "sum(zone|list[any]) -> num" in result.contents.value
        assert (result.range.start.line, result.range.start.character) == position_of(SPEC, "sum(")
        move = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "move all", 1))
        syntax = re.search(r"^## move\n\n(`move .*`)$", LANGUAGE_MD, re.M).group(1)  # type: ignore[union-attr]
        assert move.contents.value.startswith(syntax)
        option = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "option.rounds", 8))
        assert "**option** `rounds`" in option.contents.value and "Rounds in a match" in option.contents.value
        assert "default: `3`" in option.contents.value
        local = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "c.points", 0))
        assert local.contents.value.startswith("`c`: a card") and "`points` (int)" in local.contents.value
        name = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "played +=", 1))
        assert name.contents.value.startswith("**variable** `played`")
        assert "type: `int` (a whole number)" in name.contents.value
        zones = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "zones:", 1))
        schema = json.loads((ROOT / "rulespec" / "schema.json").read_text(encoding="utf-8"))
        assert zones.contents.value == f"`zones`: {schema['$defs']['spec']['properties']['zones']['description']}"
        builtin = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "round >=", 1))
        assert builtin.contents.value == "`round`: int — " + re.search(
            r"^\| `round` \| int \| (.*) \|$", LANGUAGE_MD, re.M).group(1)  # type: ignore[union-attr]

    on_spec(tmp_path, scenario)


async def definition_of(s: Session, uri: str, needle: str, offset: int) -> tuple[int, int]:
    """Where the name at ``needle`` (+ ``offset``) of SPEC is defined: (line, column) in this document."""
    (found,) = await s.ask(s.client.text_document_definition_async, uri, position_of(SPEC, needle, offset))
    assert found.uri == uri
    return found.range.start.line, found.range.start.character


async def references_of(s: Session, uri: str, needle: str, declaration: bool) -> list[tuple[int, int]]:
    context = s.L.ReferenceContext(include_declaration=declaration)
    found = await s.ask(s.client.text_document_references_async, uri, position_of(SPEC, needle, 1), context=context)
    return sorted((r.range.start.line, r.range.start.character) for r in found)


def test_go_to_definition_and_references_of_a_procedure(tmp_path: Path):
    async def scenario(s: Session, uri: str) -> None:
        assert await definition_of(s, uri, "score(current)", 2) == position_of(SPEC, "score(p):")
        assert await references_of(s, uri, "score(p):", True) == sorted(
            [position_of(SPEC, "score(p):"), position_of(SPEC, "score(current)")])
        assert await definition_of(s, uri, "hand(p))", 1) == position_of(SPEC, "hand: {")
        assert await references_of(s, uri, "hand: {", False) == sorted(
            [position_of(SPEC, "hand(p))"), position_of(SPEC, "hand\n"), position_of(SPEC, "hand(current)")])
        assert await definition_of(s, uri, "option.rounds", 9) == position_of(SPEC, "rounds: {")
        assert await definition_of(s, uri, "'Ace'", 1) == position_of(SPEC, "{name: Ace")
        ace = await s.ask(s.client.text_document_hover_async, uri, position_of(SPEC, "'Ace'", 1))
        assert ace.contents.value == "**card** `Ace`\n\npoints: `11`"

    on_spec(tmp_path, scenario)


def test_the_outline_lists_sections_and_their_names(tmp_path: Path):
    async def scenario(s: Session, uri: str) -> None:
        symbols = await asyncio.wait_for(s.client.text_document_document_symbol_async(
            s.L.DocumentSymbolParams(s.L.TextDocumentIdentifier(uri))), TIMEOUT)
        assert [x.name for x in symbols] == ["rulespec", "game", "options", "cards", "zones", "variables",
                                             "procedures", "round", "match"]
        by_name = {x.name: x for x in symbols}
        assert [c.name for c in by_name["options"].children] == ["rounds", "bonus"]
        assert [(c.name, c.kind) for c in by_name["procedures"].children] == [("score", s.L.SymbolKind.Function)]
        assert by_name["procedures"].range.start.line == position_of(SPEC, "procedures:")[0]
        assert by_name["procedures"].range.end.line == position_of(SPEC, "round:")[0] - 1

    on_spec(tmp_path, scenario)


def test_hostile_and_half_written_text_gets_answers_not_a_crash(tmp_path: Path):
    path = tmp_path / "spec.yaml"
    texts = ["", "{[", "a: *x\n", "round:\n  turn:\n    - 'unclosed\n", "x" * 5000 + ":\n", "rulespec: [\n" * 50,
             SPEC.replace("deck", "dek") + "\x00\U0001d11e\r\n"]

    async def scenario() -> None:
        async with Session() as s:
            uri = s.open(path, texts[0])
            await s.diagnostics(uri, 1)
            for version, text in enumerate(texts[1:], start=2):
                s.change(uri, version, text)
                await s.diagnostics(uri, version)
                for line in range(min(text.count("\n") + 1, 5)):
                    for method in (s.client.text_document_completion_async, s.client.text_document_hover_async,
                                   s.client.text_document_definition_async):
                        await s.ask(method, uri, (line, 3))
            assert await s.diagnostics(uri, len(texts))  # the last text's problems

    run(scenario)


def test_malformed_messages_are_one_line_on_stderr_and_the_server_goes_on():
    lsp()
    valid = [{"id": 2, "method": "initialize", "params": {"capabilities": {}}}, {"id": 3, "method": "shutdown"},
             {"method": "exit"}]
    messages = [b"{}", b"not json", b'{"jsonrpc": "2.0", "id": 1, "method": "nonsense", "params": 5}'] + [
        json.dumps({"jsonrpc": "2.0", **m}).encode() for m in valid]
    data = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(m), m) for m in messages)
    env = {k: v for k, v in os.environ.items() if k != "RULESPEC_DEBUG"}
    result = subprocess.run([sys.executable, "-m", "interpreter.cli", "lsp"], input=data, capture_output=True,
                            timeout=TIMEOUT, cwd=ROOT, env=dict(env, PYTHONPATH=str(ROOT)))
    assert b'"id": 2, "result": {"capabilities"' in result.stdout.replace(b'"jsonrpc": "2.0", ', b"")
    assert b"Traceback" not in result.stderr
    assert all(line.startswith(b"rulespec lsp: ") for line in result.stderr.splitlines()), result.stderr
    assert result.returncode == 0


# ---------------------------------------------------------------------------------- one source of documentation


def test_every_builtin_and_statement_has_documentation_and_it_is_the_pages():
    lsp()
    from interpreter.lsp.reference import load_reference, reference_path, statement_keywords

    shipped = reference_path()
    assert shipped is not None and shipped.read_bytes() == (ROOT / "docs" / "language.md").read_bytes()
    ref = load_reference()
    assert sorted(set(T.FUNCTIONS) - set(ref.functions)) == []
    assert sorted(set(T.AGGREGATES) - set(ref.aggregates)) == []
    assert sorted(set(T.BUILTIN_NAMES) - set(ref.names)) == []
    assert sorted((set(statement_keywords()) | {"if", "for", "repeat", "while", "choose"}) - set(ref.statements)) == []
    for name in T.FUNCTIONS:
        assert _docs_row(name) in ref.functions[name], name
    for name in T.BUILTIN_NAMES:
        row = re.search(rf"^\| `{name}` \| ([^|]*) \| (.*) \|$", LANGUAGE_MD, re.M)
        assert row is not None and ref.names[name] == f"`{name}`: {row.group(1)} — {row.group(2)}"


def test_warnings_are_warnings_and_hints_follow_the_message():
    L = lsp()
    from interpreter.lsp.analysis import Analysis
    from interpreter.lsp.server import _SEVERITY
    from rulespec.errors import Diagnostic, SourceSpan

    analysis = Analysis("a: bc\n", "spec.yaml")
    problem = analysis.problem(Diagnostic(SourceSpan("spec.yaml", 1, 4), "a warning", "a hint", "warning"))
    assert (problem.start, problem.end, problem.message) == ((0, 3), (0, 5), "a warning\nhint: a hint")
    assert _SEVERITY[problem.severity] == L.DiagnosticSeverity.Warning


def test_positions_convert_between_the_compiler_and_the_editor():
    lsp()
    from interpreter.lsp.text import TextMap

    text = "a: 1\r\nb: '\U0001d11e x'\rc: \u2028d\n"
    tm = TextMap(text)
    x = text.index("x")
    assert tm.span_position(x) == (2, 7)  # the compiler: 1-based, characters
    assert tm.lsp_position(x) == (1, 7)  # the editor: 0-based, UTF-16 (the clef is two units)
    assert tm.lsp_offset(1, 7) == x and tm.offset_of(2, 7) == x
    d = text.index("d")
    assert tm.span_position(d) == (4, 1)  # YAML breaks lines at U+2028 too
    assert tm.lsp_position(d) == (2, 4)  # the editor does not


# ---------------------------------------------------------------------------------- docs/editors.md


def _lsp_part() -> str:
    start = EDITORS_MD.index("## The language server")
    return EDITORS_MD[start:]


def test_the_editor_setups_run_the_command_that_exists(capsys: pytest.CaptureFixture[str]):
    part = _lsp_part()
    assert "pip install -e '.[lsp]'" in part
    assert main(["lsp", "--help"], io.StringIO(), io.StringIO()) == 0
    usage = capsys.readouterr().out
    for option in re.findall(r"(--\w+) (?:MS|DIR)", part):
        assert option in usage, option
    assert "--debounce MS" in part and "--root DIR" in part
    vscode = json.loads(re.search(r"```json lsp\n(.*?)```", part, re.S).group(1))  # type: ignore[union-attr]
    assert vscode["glspc.server.command"] == "rulespec" and vscode["glspc.server.commandArguments"] == ["lsp"]
    assert vscode["glspc.server.languageId"] == ["yaml"]
    neovim = re.search(r"```lua\n(.*?)```", part, re.S).group(1)  # type: ignore[union-attr]
    assert "cmd = { 'rulespec', 'lsp' }" in neovim and "vim.lsp.start" in neovim
    helix = tomllib.loads(re.search(r"```toml\n(.*?)```", part, re.S).group(1))  # type: ignore[union-attr]
    assert helix["language-server"]["rulespec"] == {"command": "rulespec", "args": ["lsp"]}
    (yaml,) = [lang for lang in helix["language"] if lang["name"] == "yaml"]
    assert yaml["language-servers"][0] == "rulespec"

