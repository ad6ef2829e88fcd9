"""Where the cursor stands in the YAML and what the schema allows there.

Read from the lines above the cursor by their indentation, so it works in a file that does
not parse yet (the usual state of a file being typed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import rulespec

from .text import TextMap

__all__ = ["Place", "place_at", "SchemaNode", "schema_node", "line_tokens"]

_KEY = re.compile(r"""([A-Za-z_][\w(), ]*?|"[^"\n]*"|'[^'\n]*')[ \t]*:(?=[ \t]|$)""")
_MARKER = re.compile(r"-(?=[ \t]|$)[ \t]*")
Path = tuple[str | None, ...]  # keys, and None for "an item of a list"


@dataclass(frozen=True)
class Place:
    """The cursor's place: the YAML path of the mapping or list it is in, and what it is typing."""

    path: Path  # of the node the cursor's key (or item) belongs to
    key: str | None  # the key whose value the cursor is in (None: the cursor types a key or a list item)
    text: str  # what is written before the cursor in this key, value or item
    in_item: bool  # the cursor is in a list item written on this line (`- ...`)


def line_tokens(line: str) -> list[tuple[int, str | None]]:
    """The list markers (None) and the key that start ``line``, with their columns."""
    tokens: list[tuple[int, str | None]] = []
    i = len(line) - len(line.lstrip(" "))
    while True:
        marker = _MARKER.match(line, i)
        if marker is None:
            break
        tokens.append((i, None))
        i = marker.end()
    key = _KEY.match(line, i)
    if key is not None:
        tokens.append((i, key.group(1).strip("'\"")))
    return tokens


def _path_above(tm: TextMap, line: int, column: int) -> list[str | None]:
    """The keys and list items, from the top, that hold something written at ``column`` of ``line``."""
    path: list[str | None] = []
    current = column
    for number in range(line - 1, -1, -1):
        if current == 0:
            break
        text = tm.lsp_line(number)
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        for col, key in reversed(line_tokens(text)):
            if col < current:
                path.append(key)
                current = col
    return list(reversed(path))


def place_at(tm: TextMap, line: int, prefix: str) -> Place:
    """The place of a cursor after ``prefix`` (the text of ``line`` before the cursor)."""
    tokens = line_tokens(prefix)
    markers = [col for col, key in tokens if key is None]
    key_token = next(((col, key) for col, key in tokens if key is not None), None)
    start = len(prefix) - len(prefix.lstrip(" "))
    column = markers[0] if markers else (key_token[0] if key_token else start)
    path = tuple(_path_above(tm, line, column)) + (None,) * len(markers)
    if key_token is not None:
        col, key = key_token
        value = prefix[_KEY.match(prefix, col).end():]  # type: ignore[union-attr]
        return Place(path, key, value.lstrip(), bool(markers))
    rest = prefix[(_MARKER.match(prefix, markers[-1]).end() if markers else start):]  # type: ignore[union-attr]
    return Place(path, None, rest, bool(markers))


# ---------------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class SchemaNode:
    """The schema alternatives at a path, flattened, and the names of the definitions crossed."""

    alternatives: tuple[dict[str, Any], ...]
    refs: frozenset[str]

    def keys(self) -> dict[str, str]:
        """Fixed keys allowed here, with their descriptions."""
        out: dict[str, str] = {}
        for alt in self.alternatives:
            for key, sub in (alt.get("properties") or {}).items():
                if key not in out or not out[key]:
                    out[key] = _description(sub)
        return out

    def starting_keys(self) -> list[str]:
        """Keys one of which a mapping here must have (`if`, `for`, ... for a statement)."""
        return [k for alt in self.alternatives if "properties" not in alt for k in alt.get("required", ())]

    def enum(self) -> list[Any]:
        values: list[Any] = []
        for alt in self.alternatives:
            values += [v for v in alt.get("enum", []) if v not in values]
            if "const" in alt and alt["const"] not in values:
                values.append(alt["const"])
        return values

    def takes(self, kind: str) -> bool:
        return any(kind == alt.get("type") or kind in (alt.get("type") or ()) for alt in self.alternatives)

    @property
    def is_rules(self) -> bool:
        """Does a string here hold rule-language text (an expression, condition or statement)?"""
        return bool(self.refs & {"expression", "condition", "conditions", "statement", "block", "template"})

    @property
    def is_statement(self) -> bool:
        return bool(self.refs & {"statement", "block"})


def schema_node(path: Path) -> SchemaNode:
    return _schema_node(path)


@lru_cache(maxsize=512)
def _schema_node(path: Path) -> SchemaNode:
    root = rulespec.schema()
    refs: set[str] = set()
    alternatives = _flatten(root, root, refs)
    for step in path:
        children: list[dict[str, Any]] = []
        for alt in alternatives:
            children += _step(alt, step)
        refs = set()
        alternatives = [a for child in children for a in _flatten(child, root, refs)]
    return SchemaNode(tuple(alternatives), frozenset(refs))


def _step(node: dict[str, Any], step: str | None) -> list[dict[str, Any]]:
    if step is None:
        items = node.get("items")
        return [items] if isinstance(items, dict) else []
    props = node.get("properties") or {}
    if step in props:
        return [props[step]]
    for pattern, sub in (node.get("patternProperties") or {}).items():
        if re.search(pattern, step):
            return [sub]
    extra = node.get("additionalProperties")
    return [extra] if isinstance(extra, dict) else []


def _flatten(node: Any, root: dict[str, Any], refs: set[str], depth: int = 0) -> list[dict[str, Any]]:
    """``node`` with its ``$ref``, ``allOf``, ``anyOf``, ``oneOf`` and ``then``/``else`` followed."""
    if not isinstance(node, dict) or depth > 20:
        return []
    out = [node]
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.rsplit("/", 1)[-1]
        refs.add(name)
        out += _flatten(root.get("$defs", {}).get(name), root, refs, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key) or ():
            out += _flatten(sub, root, refs, depth + 1)
    for key in ("then", "else"):
        out += _flatten(node.get(key), root, refs, depth + 1)
    return out


def _description(node: Any) -> str:
    if not isinstance(node, dict):
        return ""
    if node.get("description"):
        return str(node["description"])
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _description(rulespec.schema().get("$defs", {}).get(ref.rsplit("/", 1)[-1]))
    return ""
