"""The language server (`rulespec lsp`): the protocol side, on pygls and lsprotocol.

The only module of the server that needs the ``lsp`` extra. It keeps, per open document,
the analysis of its current text and the last one that compiled; the work is done by
``analysis``, ``complete`` and ``navigate``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types as L
from pygls import uris
from pygls.lsp.server import LanguageServer

import rulespec

from .analysis import Analysis, Location, Problem
from .complete import Item, complete
from .navigate import OutlineSymbol, definition, hover, outline, references

__all__ = ["SpecServer", "create_server", "serve", "DEBOUNCE"]

DEBOUNCE = 0.1  # seconds: changes closer together than this are checked once, after the last
_log = logging.getLogger(__name__)

_SEVERITY = {"error": L.DiagnosticSeverity.Error, "warning": L.DiagnosticSeverity.Warning,
             "info": L.DiagnosticSeverity.Information, "hint": L.DiagnosticSeverity.Hint}
_ITEM_KINDS = {
    "keyword": L.CompletionItemKind.Keyword, "function": L.CompletionItemKind.Function,
    "variable": L.CompletionItemKind.Variable, "field": L.CompletionItemKind.Field,
    "property": L.CompletionItemKind.Property, "value": L.CompletionItemKind.EnumMember,
    "module": L.CompletionItemKind.Module, "event": L.CompletionItemKind.Event,
    "constant": L.CompletionItemKind.Constant,
}
_SYMBOL_KINDS = {
    "section": L.SymbolKind.Namespace, "key": L.SymbolKind.Key, "option": L.SymbolKind.Property,
    "zone": L.SymbolKind.Array, "variable": L.SymbolKind.Variable, "define": L.SymbolKind.Function,
    "procedure": L.SymbolKind.Function, "action": L.SymbolKind.Event, "ranking": L.SymbolKind.Enum,
    "table": L.SymbolKind.Struct, "piece": L.SymbolKind.Object, "phase": L.SymbolKind.Class,
}


class SpecServer(LanguageServer):
    """A language server for rulespec specs."""

    def __init__(self, root: str | None = None, debounce: float = DEBOUNCE):
        super().__init__("rulespec", rulespec.__version__,
                         text_document_sync_kind=L.TextDocumentSyncKind.Incremental)
        self.root = root
        self.debounce = debounce
        self.checked: dict[str, Analysis] = {}  # uri -> the analysis of the text last checked
        self.last_good: dict[str, Analysis] = {}  # uri -> the last analysis that compiled
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._checked_at: dict[str, float] = {}  # uri -> when its last check ended (event loop time)
        self._drafts: dict[str, Analysis] = {}  # uri -> the analysis of a text not checked yet (while typing)

    # ---- documents
    def path_of(self, uri: str) -> str:
        path = uris.to_fs_path(uri) if uri.startswith("file:") else None
        return path or (uri.rsplit("/", 1)[-1] or "untitled.yaml")

    def analysis(self, uri: str, check: bool = True) -> Analysis:
        """The analysis of the document's current text (checked first when ``check``)."""
        text = self.workspace.get_text_document(uri).source
        known = self.checked.get(uri)
        if known is not None and known.text == text:
            return known
        if check:
            return self.check(uri)
        draft = self._drafts.get(uri)
        if draft is None or draft.text != text:  # read once per text, whatever is asked of it
            draft = self._drafts[uri] = Analysis(text, self.path_of(uri), self.root, self.encoding)
        return draft

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client (UTF-16 unless it offered another first)."""
        encoding = getattr(self.workspace, "position_encoding", None) or "utf-16"
        return str(getattr(encoding, "value", encoding))

    def check(self, uri: str) -> Analysis:
        """Compile the document now and publish its diagnostics."""
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        document = self.workspace.get_text_document(uri)
        analysis = Analysis(document.source, self.path_of(uri), self.root, self.encoding)
        try:
            problems = analysis.check()
        except Exception as exc:  # a bug in the compiler must not stop the server
            _log.exception("checking %s failed", uri)
            problems = [Problem((0, 0), (0, 0), f"rulespec could not check this file: {type(exc).__name__}: {exc}")]
        self.checked[uri] = analysis
        self._checked_at[uri] = asyncio.get_event_loop().time()
        if analysis.gamedef is not None:
            self.last_good[uri] = analysis
        self.text_document_publish_diagnostics(L.PublishDiagnosticsParams(
            uri=uri, version=document.version, diagnostics=[self._diagnostic(uri, p, analysis) for p in problems]))
        return analysis

    def schedule(self, uri: str) -> None:
        """Check the document after a change: at once when it was last checked ``debounce`` seconds
        ago or more (an edit after a pause), else once no change has come for ``debounce`` seconds
        (a burst of typing is checked once, after its last change)."""
        timer = self._timers.pop(uri, None)
        loop = asyncio.get_event_loop()
        pending = timer is not None
        if timer is not None:
            timer.cancel()
        idle = loop.time() - self._checked_at.get(uri, float("-inf"))
        if self.debounce <= 0 or (idle >= self.debounce and not pending):
            self.check(uri)
            return
        self._timers[uri] = loop.call_later(self.debounce, self._check_quietly, uri)

    def _check_quietly(self, uri: str) -> None:
        self._timers.pop(uri, None)
        if unquote(uri) in self.workspace.text_documents:  # the workspace keeps unquoted URIs
            self.check(uri)

    def forget(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.checked.pop(uri, None)
        self.last_good.pop(uri, None)
        self._checked_at.pop(uri, None)
        self._drafts.pop(uri, None)
        self.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # ---- conversions
    def _diagnostic(self, uri: str, problem: Problem, analysis: Analysis) -> L.Diagnostic:
        related = None
        if problem.related is not None:
            location = self.location(uri, analysis, problem.related)
            if location is not None:
                related = [L.DiagnosticRelatedInformation(location, problem.related_message)]
        return L.Diagnostic(range=L.Range(L.Position(*problem.start), L.Position(*problem.end)),
                            message=problem.message, severity=_SEVERITY[problem.severity], source="rulespec",
                            related_information=related)

    def location(self, uri: str, analysis: Analysis, loc: Location) -> L.Location | None:
        tm = analysis.text_map(loc.path)
        if tm is None:
            return None
        start = tm.offset_of(loc.line, loc.col)
        target = uri if loc.path == analysis.path else uris.from_fs_path(os.path.abspath(loc.path))
        if target is None:
            return None
        return L.Location(target, _range(tm, start, start + loc.length))


def _range(tm: Any, start: int, end: int) -> L.Range:
    return L.Range(L.Position(*tm.lsp_position(start)), L.Position(*tm.lsp_position(end)))


def _completion_item(item: Item) -> L.CompletionItem:
    doc = L.MarkupContent(L.MarkupKind.Markdown, item.documentation) if item.documentation else None
    return L.CompletionItem(label=item.label, kind=_ITEM_KINDS.get(item.kind), detail=item.detail or None,
                            documentation=doc, sort_text=f"{item.group}{item.label}")


def _document_symbol(tm: Any, symbol: OutlineSymbol) -> L.DocumentSymbol:
    return L.DocumentSymbol(name=symbol.name, kind=_SYMBOL_KINDS.get(symbol.kind, L.SymbolKind.Key),
                            range=_range(tm, symbol.start, symbol.end),
                            selection_range=_range(tm, symbol.start, symbol.name_end),
                            children=[_document_symbol(tm, c) for c in symbol.children] or None)


def _on_document(act: Callable[[SpecServer, str], Any]) -> Callable[[SpecServer, Any], None]:
    """A handler of a document notification (open, change, save, close) that does ``act`` with its URI."""
    def handler(ls: SpecServer, params: Any) -> None:
        act(ls, params.text_document.uri)

    return handler


def create_server(root: str | None = None, debounce: float = DEBOUNCE) -> SpecServer:
    """A server with every feature registered (not started)."""
    server = SpecServer(root, debounce)

    documents = ((L.TEXT_DOCUMENT_DID_OPEN, SpecServer.check), (L.TEXT_DOCUMENT_DID_SAVE, SpecServer.check),
                 (L.TEXT_DOCUMENT_DID_CHANGE, SpecServer.schedule), (L.TEXT_DOCUMENT_DID_CLOSE, SpecServer.forget))
    for method, act in documents:
        server.feature(method)(_on_document(act))

    @server.feature(L.TEXT_DOCUMENT_COMPLETION, L.CompletionOptions(trigger_characters=[".", " ", "(", "'"]))
    def on_completion(ls: SpecServer, params: L.CompletionParams) -> L.CompletionList:
        uri = params.text_document.uri
        analysis = ls.analysis(uri, check=False)
        items = complete(analysis, params.position.line, params.position.character, ls.last_good.get(uri))
        return L.CompletionList(is_incomplete=False, items=[_completion_item(i) for i in items])

    @server.feature(L.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: SpecServer, params: L.HoverParams) -> L.Hover | None:
        analysis = ls.analysis(params.text_document.uri)
        offset = analysis.map.lsp_offset(params.position.line, params.position.character)
        found = hover(analysis, offset)
        if found is None:
            return None
        text, (start, end) = found
        return L.Hover(L.MarkupContent(L.MarkupKind.Markdown, text), _range(analysis.map, start, end))

    @server.feature(L.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: SpecServer, params: L.DefinitionParams) -> list[L.Location] | None:
        uri = params.text_document.uri
        analysis = ls.analysis(uri)
        found = definition(analysis, analysis.map.lsp_offset(params.position.line, params.position.character))
        location = ls.location(uri, analysis, found) if found is not None else None
        return [location] if location is not None else None

    @server.feature(L.TEXT_DOCUMENT_REFERENCES)
    def on_references(ls: SpecServer, params: L.ReferenceParams) -> list[L.Location]:
        uri = params.text_document.uri
        analysis = ls.analysis(uri)
        offset = analysis.map.lsp_offset(params.position.line, params.position.character)
        found = references(analysis, offset, params.context.include_declaration)
        return [loc for loc in (ls.location(uri, analysis, f) for f in found) if loc is not None]

    @server.feature(L.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(ls: SpecServer, params: L.DocumentSymbolParams) -> list[L.DocumentSymbol]:
        analysis = ls.analysis(params.text_document.uri, check=False)
        return [_document_symbol(analysis.map, s) for s in outline(analysis)]

    return server


class _OneLine(logging.Formatter):
    """Log records as one line each on stderr (the editor's log of the server): no tracebacks."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"rulespec lsp: {record.levelname.lower()}: {record.getMessage()}"
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            text += f" ({type(error).__name__}: {error})"
        return " ".join(text.split())


def _log_to_stderr() -> None:
    if os.environ.get("RULESPEC_DEBUG"):  # as the command line: the tracebacks only when asked for
        logging.basicConfig(level=logging.INFO)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)


def serve(root: str | None = None, debounce: float = DEBOUNCE) -> int:
    """Run the server on standard input and output until the client says exit."""
    _log_to_stderr()
    create_server(root, debounce).start_io()
    return 0
