"""rulespec: turn a game written in YAML into a checked, immutable game definition.

    from rulespec import compile_file, SpecError
    try:
        gamedef = compile_file("games/mygame.yaml")
    except SpecError as error:
        print(error)          # every problem, as file:line:col: error: message + caret
"""

from .compiler import GameDef, compile_file, compile_text
from .errors import (
    Diagnostic,
    LanguageError,
    LimitError,
    SchemaError,
    SemanticError,
    SourceSpan,
    SpecError,
    VariantError,
    YamlSyntaxError,
)
from .schema import schema, schema_text

__all__ = [
    "GameDef",
    "compile_file",
    "compile_text",
    "SpecError",
    "YamlSyntaxError",
    "LimitError",
    "SchemaError",
    "LanguageError",
    "SemanticError",
    "VariantError",
    "Diagnostic",
    "SourceSpan",
    "schema",
    "schema_text",
]

__version__ = "0.1.0"
