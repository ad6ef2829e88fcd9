"""The one place the stages are wired: load -> variants -> schema -> parse -> check -> GameDef."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .builder import build_model
from .check import CheckInfo, check_model
from .errors import Diagnostics, LanguageError, LimitError, SemanticError, SourceSpan, SpecError, hint_budget
from .model import SpecModel
from .schema import validate_structure
from .variants import load_with_variants

__all__ = ["GameDef", "compile_file", "compile_text"]


@dataclass(frozen=True)
class GameDef:
    """A checked spec: its model (with ASTs), what the checker learnt, and the source texts.

    It is shared by every Game made from it and never changes.
    """

    path: str
    model: SpecModel
    info: CheckInfo
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.model.name


def compile_file(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> GameDef:
    """Load, validate and check the spec at ``path``; raise SpecError with every problem.

    Files are read only inside ``root`` (default: the folder of ``path``): the spec itself
    and every file its `extends:` chain names, symlinks resolved.
    """
    return _compile(path_text(path), None, None if root is None else path_text(root))


def path_text(path: str | os.PathLike[str]) -> str:
    """A file name given as text or as a path object (``pathlib.Path``), as text."""
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise TypeError(f"a file name is text or a path object, not {type(path).__name__}")
    return text


def compile_text(text: str, path: str = "<string>", root: str | None = None,
                 files: Mapping[str, str] | None = None) -> GameDef:
    """Like compile_file, for text in memory (``path`` names it in messages and resolves `extends`).

    With ``files`` (file names relative to one folder, and their texts), `extends` may name
    only those files and nothing is read from disk: a server compiles pasted text this way.
    """
    return _compile(path, text, root, files)


def _compile(path: str, text: str | None, root: str | None, files: Mapping[str, str] | None = None) -> GameDef:
    diags = Diagnostics()
    try:
        with hint_budget():
            return _stages(path, text, root, diags, files)
    except RecursionError:  # a last resort: every nesting has its own, smaller limit
        diags.items.clear()
        diags.limit(SourceSpan(path, 1, 1), "the spec nests too deeply to be checked")
        diags.raise_if_any(LimitError)
        raise


def _stages(path: str, text: str | None, root: str | None, diags: Diagnostics,
            files: Mapping[str, str] | None = None) -> GameDef:
    data = load_with_variants(path, diags, text, root=root, files=files)
    return compile_data(data, path, diags)


def compile_data(data: Any, path: str, diags: Diagnostics) -> GameDef:
    """The stages after loading: ``data`` (a loaded spec, its variant applied) checked into a GameDef."""
    validate_structure(data, diags, path)
    model = build_model(data, path, diags)
    parse_failed = bool(diags)
    info = _check(model, diags, parse_failed)
    if diags:
        diags.raise_if_any(LanguageError if parse_failed else SemanticError)
    return GameDef(path, model, info, MappingProxyType(dict(diags.sources)))


def _check(model: SpecModel, diags: Diagnostics, parse_failed: bool) -> CheckInfo:
    try:
        return check_model(model, diags, parse_failed)
    except SpecError:
        raise
    except Exception:
        if diags:  # a follow-on failure of an earlier problem: report the problems
            return CheckInfo()
        raise
