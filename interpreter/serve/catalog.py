"""The specs a server serves, and text from the editor compiled like a file of their folder.

The server reads no other file: a spec is named by its id in the catalogue, never by a
path, and the editor's text may `extends:` only a spec of the folder its base spec lies in
(the compiler's own ``root`` confinement). Text from the browser is untrusted: its size is
bounded here, and the compiler applies its own limits (depth, aliases, nodes, rules).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from rulespec import SpecError, compile_file, compile_text
from rulespec.compiler import GameDef
from rulespec.errors import Diagnostic, format_diagnostic

from ..errors import OptionError
from ..game import Game

__all__ = ["ServedSpec", "Catalog", "ServeError", "MAX_TEXT", "diagnostics_json", "EDITOR_FILE"]

MAX_TEXT = 200_000  # characters of spec text the editor may send
MAX_GAMES_CACHED = 32  # linked games (spec, players, options) kept
EDITOR_FILE = "editor.yaml"  # the name the editor's text has in messages (in its base spec's folder)


class ServeError(Exception):
    """A request the server refuses: the message for the browser and an HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class ServedSpec:
    id: str
    path: str  # real path
    file: str  # as given on the command line (shown)
    folder: str
    gamedef: GameDef | None = None
    error: str | None = None  # why it does not compile

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "file": os.path.basename(self.file), "error": self.error}
        model = self.gamedef.model if self.gamedef is not None else None
        if model is None:
            return {**out, "name": os.path.basename(self.file), "players": [], "options": [], "variants": []}
        return {**out, "name": model.name, "players": list(_player_counts(self.gamedef)),
                "options": [_option_json(o) for o in model.options],
                "variants": [{"name": v.name, "players": v.players, "options": dict(v.options)}
                             for v in model.variants]}


def _player_counts(gamedef: Any) -> list[int]:
    return [p for p in gamedef.model.players if p <= 64][:64]


def _option_json(option: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": option.name, "type": option.type, "description": option.description}
    for key in ("default", "values", "min", "max"):
        value = getattr(option, key, None)
        if isinstance(value, tuple):
            value = list(value)
        if isinstance(value, (int, float, str, bool, list)) or value is None:
            out[key] = value
    return out


def diagnostics_json(error: SpecError, file: str) -> list[dict[str, Any]]:
    """Each problem with its line and column (in ``file``; 0 when elsewhere) and the text
    ``rulespec validate`` prints for it."""
    return [_diagnostic_json(d, error.sources, file) for d in error.diagnostics]


def _diagnostic_json(d: Diagnostic, sources: dict[str, str], file: str) -> dict[str, Any]:
    here = d.span is not None and d.span.file == file
    return {"line": d.span.line if here and d.span else 0, "col": d.span.col if here and d.span else 0,
            "message": _shown_paths(d.message), "hint": _shown_paths(d.hint) if d.hint else None,
            "severity": d.severity,
            "file": os.path.basename(d.span.file) if d.span else None,
            "text": _shown_paths(format_diagnostic(d, sources))}


_ABSOLUTE = re.compile(r"(?<![\w.])/(?:[\w.-]+/)*([\w.-]+)")


def _shown_paths(text: str) -> str:
    """A message without the server's folders: an absolute path is shown by its last name."""
    return _ABSOLUTE.sub(r"\1", text)


class Catalog:
    """The served specs by id, and a small cache of linked games."""

    def __init__(self, paths: list[str]):
        self.specs: dict[str, ServedSpec] = {}
        self._games: OrderedDict[tuple[Any, ...], Game] = OrderedDict()
        for path in paths:
            self.add(path)

    def add(self, path: str) -> ServedSpec:
        real = os.path.realpath(path)
        base = re.sub(r"[^a-z0-9]+", "-", os.path.splitext(os.path.basename(real))[0].lower()).strip("-") or "spec"
        spec_id = base
        k = 2
        while spec_id in self.specs:
            spec_id = f"{base}-{k}"
            k += 1
        spec = ServedSpec(spec_id, real, path, os.path.dirname(real))
        try:
            spec.gamedef = compile_file(real)
        except SpecError as exc:
            spec.error = _shown_paths(str(exc).splitlines()[0])
        self.specs[spec_id] = spec
        return spec

    def get(self, spec_id: Any) -> ServedSpec:
        spec = self.specs.get(spec_id) if isinstance(spec_id, str) else None
        if spec is None:
            raise ServeError("no such spec on this server", 404)
        return spec

    def text(self, spec_id: Any) -> str:
        spec = self.get(spec_id)
        with open(spec.path, encoding="utf-8", errors="replace") as f:
            return f.read(MAX_TEXT + 1)[:MAX_TEXT]

    def default_folder(self) -> str | None:
        first = next(iter(self.specs.values()), None)
        return first.folder if first is not None else None

    def compile_editor_text(self, text: Any, base: Any = None) -> GameDef:
        """The editor's text compiled as the file ``editor.yaml`` of its base spec's folder
        (`extends:` may name only specs there); SpecError when it is not valid."""
        if not isinstance(text, str):
            raise ServeError("'text' must be the spec's text")
        if len(text) > MAX_TEXT:
            raise ServeError(f"the text is longer than {MAX_TEXT:,} characters", 413)
        folder = self.get(base).folder if base else self.default_folder()
        if folder is None:
            return compile_text(text, EDITOR_FILE, root=_EMPTY.folder())  # `extends` leads nowhere
        return compile_text(text, os.path.join(folder, EDITOR_FILE), root=folder)

    def game(self, gamedef: GameDef, players: Any, options: Any, key: Any = None) -> Game:
        """A linked game; the same (spec, players, options) is linked once (``key`` names the spec)."""
        players = _players(players)
        if not isinstance(options, dict) or len(options) > 100:
            raise ServeError("'options' must be an object of at most 100 options")
        cache_key = None
        if key is not None:
            cache_key = (key, players, tuple(sorted((k, repr(v)) for k, v in options.items())))
            hit = self._games.get(cache_key)
            if hit is not None:
                self._games.move_to_end(cache_key)
                return hit
        try:
            game = Game(gamedef, players, options)
        except OptionError as exc:
            raise ServeError(str(exc)) from None
        if cache_key is not None:
            self._games[cache_key] = game
            while len(self._games) > MAX_GAMES_CACHED:
                self._games.popitem(last=False)
        return game

    def served_game(self, spec_id: Any, players: Any, options: Any) -> tuple[ServedSpec, Game]:
        spec = self.get(spec_id)
        if spec.gamedef is None:
            raise ServeError(f"{spec.file} is not valid: {spec.error}", 422)
        return spec, self.game(spec.gamedef, players, options, key=spec.id)


def _players(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= 64:
        raise ServeError("'players' must be a whole number from 1 to 64")
    return value


@dataclass
class _EmptyFolder:
    """A folder with nothing in it: the root of editor text when no spec is served."""

    path: str | None = field(default=None)

    def folder(self) -> str:
        if self.path is None:
            import tempfile

            self.path = tempfile.mkdtemp(prefix="rulespec-serve-")
        return self.path


_EMPTY = _EmptyFolder()
