"""The specs a server serves: read once, when it starts, and known by name from then on.

Only the files named on the command line are read, and the files their `extends:` chains
name (they are part of the spec). Each is known by its name relative to its spec's folder
(``game.yaml``); that folder is never named to a browser. Workers compile these texts
and nothing else: editor text may `extends:` one of them by its name, and no other file.
Two different files of the same name are refused when the server starts.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from rulespec import SpecError, compile_file, compile_text
from rulespec.compiler import GameDef

__all__ = ["ServedSpec", "Catalog", "CatalogError"]


class CatalogError(ValueError):
    """The files named cannot be served together (the server does not start)."""


@dataclass
class ServedSpec:
    id: str
    name: str  # its file name among the served files
    info: dict[str, Any] = field(default_factory=dict)


def _player_counts(gamedef: GameDef) -> list[int]:
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


def _info(spec_id: str, name: str, gamedef: GameDef | None, error: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": spec_id, "file": name, "error": error}
    if gamedef is None:
        return {**out, "name": name, "players": [], "options": [], "variants": []}
    model = gamedef.model
    return {**out, "name": model.name, "players": _player_counts(gamedef),
            "options": [_option_json(o) for o in model.options],
            "variants": [{"name": v.name, "players": v.players, "options": dict(v.options)} for v in model.variants]}


class Catalog:
    """The served specs by id, and every served file's text by name."""

    def __init__(self, paths: list[str]):
        self.specs: dict[str, ServedSpec] = {}
        self.files: dict[str, str] = {}
        for path in paths:
            self._read(path)
        for spec in self.specs.values():
            self._describe(spec)
        self.specs_json = json.dumps({"specs": [s.info for s in self.specs.values()]},
                                     separators=(",", ":")).encode("utf-8")

    def _read(self, path: str) -> None:
        real = os.path.realpath(path)
        folder = os.path.dirname(real)
        name = os.path.basename(real)
        unread = None
        try:
            sources = dict(compile_file(real).sources)
        except SpecError as exc:
            sources = dict(exc.sources)
            unread = str(exc).splitlines()[0].replace(real, name).replace(path, name)
        for file, text in sources.items():
            self._add(posixpath.normpath(os.path.relpath(os.path.realpath(file), folder).replace(os.sep, "/")),
                      text)
        base = re.sub(r"[^a-z0-9]+", "-", os.path.splitext(name)[0].lower()).strip("-") or "spec"
        spec_id = base
        k = 2
        while spec_id in self.specs:
            spec_id = f"{base}-{k}"
            k += 1
        self.specs[spec_id] = ServedSpec(spec_id, name)
        if name not in self.files:  # not read at all (missing, not a file, not UTF-8): that is its error
            self.specs[spec_id].info = _info(spec_id, name, None, unread)

    def _add(self, name: str, text: str) -> None:
        if self.files.get(name, text) != text:
            raise CatalogError(f"two different files named {name} would be served; serve one of them, or rename one")
        self.files[name] = text

    def _describe(self, spec: ServedSpec) -> None:
        if spec.info:
            return
        try:
            gamedef = compile_text(self.files[spec.name], spec.name, files=self.files)
        except SpecError as exc:
            spec.info = _info(spec.id, spec.name, None, str(exc).splitlines()[0])
            return
        spec.info = _info(spec.id, spec.name, gamedef, None)

    def text(self, spec_id: Any) -> str | None:
        spec = self.specs.get(spec_id) if isinstance(spec_id, str) else None
        return None if spec is None else self.files.get(spec.name, "")

    def by_id(self) -> dict[str, str]:
        return {spec_id: spec.name for spec_id, spec in self.specs.items()}
