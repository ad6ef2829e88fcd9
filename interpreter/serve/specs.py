"""Games from the served specs and from editor text, compiled in a worker from text in memory.

The server reads the files it serves once, when it starts (``jobs.catalog``); workers get
their texts by name (``ServedFiles``) and compile from them, never from a path. Editor text is
the file ``editor.yaml`` among them and may `extends:` only them (``compile_text(files=...)``):
no other file is opened, and no message shows where the server keeps its files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rulespec import SpecError, compile_text
from rulespec.compiler import GameDef

from ..errors import OptionError
from ..game import Game
from .errors import ServeError

__all__ = ["ServedFiles", "EDITOR_FILE", "MAX_TEXT", "request_body", "players_of", "options_of"]

EDITOR_FILE = "editor.yaml"  # the name editor text has in messages
MAX_TEXT = 200_000  # characters of spec text the editor may send


def request_body(blobs: list[bytes]) -> dict[str, Any]:
    """The JSON object a browser sent (the server passes it on unread)."""
    try:
        data = json.loads(blobs[0].decode("utf-8")) if blobs else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ServeError("the request must be a JSON object") from None
    if not isinstance(data, dict):
        raise ServeError("the request must be a JSON object")
    return data


def players_of(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= 64:
        raise ServeError("'players' must be a whole number from 1 to 64")
    return value


def options_of(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > 100:
        raise ServeError("'options' must be an object of at most 100 options")
    return value


@dataclass
class ServedFiles:
    """The texts of the served files by name, and which of them are served specs (by id)."""

    files: dict[str, str]  # name -> text: the served specs and the files they extend
    specs: dict[str, str]  # spec id -> its file name
    _compiled: dict[str, GameDef] = field(default_factory=dict)

    def served(self, spec_id: Any) -> tuple[GameDef, str]:
        """A served spec's definition and file name."""
        name = self.specs.get(spec_id) if isinstance(spec_id, str) else None
        if name is None:
            raise ServeError("no such spec on this server", 404)
        if name not in self._compiled:
            try:
                self._compiled[name] = compile_text(self.files[name], name, files=self.files)
            except SpecError as exc:
                raise ServeError(f"{name} is not valid: {str(exc).splitlines()[0]}", 422) from None
        return self._compiled[name], name

    def editor_text(self, text: Any) -> GameDef:
        """Editor text compiled as ``editor.yaml``; SpecError when it is not valid."""
        if not isinstance(text, str):
            raise ServeError("'text' must be the spec's text")
        if len(text) > MAX_TEXT:
            raise ServeError(f"the text is longer than {MAX_TEXT:,} characters", 413)
        return compile_text(text, EDITOR_FILE, files=self.files)

    def requested(self, body: dict[str, Any]) -> tuple[GameDef, str]:
        """The definition a request names: its editor ``text``, else the served ``spec``."""
        if "text" not in body:
            return self.served(body.get("spec"))
        try:
            return self.editor_text(body.get("text")), EDITOR_FILE
        except SpecError as exc:
            raise ServeError(f"the spec is not valid: {len(exc.diagnostics)} problem(s); "
                             "see the editor's messages", 422) from None


def game_of(gamedef: GameDef, players: Any, options: Any) -> Game:
    """A linked game; bad players or options are a 400 naming what is wrong."""
    try:
        return Game(gamedef, players_of(players), options_of(options))
    except OptionError as exc:
        raise ServeError(str(exc)) from None
