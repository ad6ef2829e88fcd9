"""The one place the stages are wired: load -> variants -> schema -> parse -> check -> GameDef."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .check import CheckInfo, check_model
from .errors import Diagnostics, LanguageError, SemanticError, SpecError
from .model import SpecModel, build_model
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


def compile_file(path: str) -> GameDef:
    """Load, validate and check the spec at ``path``; raise SpecError with every problem."""
    return _compile(path, None)


def compile_text(text: str, path: str = "<string>") -> GameDef:
    """Like compile_file, for text in memory (``path`` names it in messages and resolves `extends`)."""
    return _compile(path, text)


def _compile(path: str, text: str | None) -> GameDef:
    diags = Diagnostics()
    data = load_with_variants(path, diags, text)
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
