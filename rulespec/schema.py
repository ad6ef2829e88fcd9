"""The JSON Schema of a spec, and its errors mapped back to file positions.

A file without `extends` is checked against ``$defs/spec``; a variant (a file with `extends`)
against ``$defs/variant``, which is generated from it: every mapping of a variant is merged
into its base key by key, so in a variant no key of a mapping is required, at any depth
(lists replace the base's lists, so their items are checked in full). After editing
``$defs/spec`` or any definition it reaches, run ``python -m rulespec.schema`` to regenerate
the variant part of ``schema.json`` (a test checks that it is up to date).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from .errors import Diagnostics, SchemaError, SourceSpan, did_you_mean
from .source import PosDict, key_span, span_of, value_span

__all__ = ["schema", "schema_text", "validate_structure", "with_variant_schema"]

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "nothing",
}


def schema_text() -> str:
    return resources.files("rulespec").joinpath("schema.json").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(schema_text())


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_with_leaves_inlined(schema()))


def _with_leaves_inlined(root: dict[str, Any]) -> dict[str, Any]:
    """``root`` with each `$ref` to a definition that refers to nothing (an identifier, an
    expression, a count: most of them) replaced by that definition, so validating does not look
    them up (a quarter of its time): the same checks, on a finite tree."""
    defs = root["$defs"]
    leaves: dict[str, Any] = {}  # a definition's inlined form, or _REFERS

    def leaf(name: str) -> Any:
        if name not in leaves:
            leaves[name] = _REFERS  # while it is being inlined: reached again, it is on a cycle
            leaves[name] = inlined(defs[name])
        return leaves[name]

    def inlined(node: Any) -> Any:
        if isinstance(node, list):
            items = [inlined(item) for item in node]
            return _REFERS if any(item is _REFERS for item in items) else items
        if not isinstance(node, dict):
            return node
        target = _leaf_target(node)
        if target is not None:
            return leaf(target) if target in defs else _REFERS
        out = {key: inlined(value) for key, value in node.items()}
        return _REFERS if "$ref" in node or any(value is _REFERS for value in out.values()) else out

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        target = _leaf_target(node)
        if target is not None and target in defs and leaf(target) is not _REFERS:
            return leaves[target]
        return {key: inline(value) for key, value in node.items()}

    return inline(root)


_REFERS = object()  # what _with_leaves_inlined makes of a node that still refers to a definition


def _leaf_target(node: dict[str, Any]) -> str | None:
    """The definition a node that is only a reference (and a description) names."""
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS) and set(node) <= {"$ref", "description"}:
        return ref[len(_DEFS):]
    return None


def validate_structure(data: Any, diags: Diagnostics, file: str = "<spec>") -> None:
    """Report every structural problem of ``data`` (positions from the loader)."""
    if not isinstance(data, dict):
        diags.error(span_of(data) or SourceSpan(file, 1, 1),
                    "a spec must be a mapping of sections (game:, round:, ...)")
        diags.raise_if_any(SchemaError)
    for error in _leaf_errors(_validator().iter_errors(data)):
        _report(error, data, diags)
    diags.raise_if_any(SchemaError)


def _leaf_errors(errors: Iterable[ValidationError]) -> list[ValidationError]:
    """Replace anyOf/oneOf failures by their most relevant branch's errors."""
    out: list[ValidationError] = []
    for error in errors:
        if error.validator in ("anyOf", "oneOf") and error.context:
            out.append(_best_branch(error))
        else:
            out.append(error)
    # one message per place: the deepest first
    seen: set[tuple[Any, ...]] = set()
    unique = []
    for error in sorted(out, key=lambda e: -len(e.absolute_path)):
        key = (tuple(error.absolute_path), error.validator, str(error.validator_value)[:50])
        if key not in seen:
            seen.add(key)
            unique.append(error)
    return unique


def _best_branch(error: ValidationError) -> ValidationError:
    """Of an anyOf's branches, the one whose type matched and got furthest."""
    instance = error.instance
    candidates = []
    for sub in error.context or []:
        type_ok = not (sub.validator == "type" and len(sub.relative_path) == 0)
        candidates.append((type_ok, len(sub.absolute_path), sub))
    typed = [c for c in candidates if c[0]]
    if not typed:
        return error  # no branch has the right type: report the anyOf itself
    typed.sort(key=lambda c: -c[1])
    best = typed[0][2]
    if best.validator in ("anyOf", "oneOf") and best.context:
        return _best_branch(best)
    if isinstance(instance, (dict, list)) or len(best.absolute_path) > len(error.absolute_path):
        return best
    return best


def _container_and_key(data: Any, path: list[Any]) -> tuple[Any, Any]:
    node = data
    for part in path[:-1]:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return node, None
    return node, (path[-1] if path else None)


def _span_for(data: Any, path: list[Any]) -> SourceSpan:
    container, key = _container_and_key(data, path)
    if key is None:
        return span_of(container) or SourceSpan("<spec>", 1, 1)
    return value_span(container, key) or SourceSpan("<spec>", 1, 1)


def _where(path: list[Any]) -> str:
    if not path:
        return "the spec"
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return f"'{text}'"


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"text '{value}'" if len(value) < 40 else "text"
    return f"{type(value).__name__} {value!r}"


def _report(error: ValidationError, data: Any, diags: Diagnostics) -> None:
    path = list(error.absolute_path)
    span = _span_for(data, path)
    where = _where(path)
    validator = error.validator
    value = error.validator_value
    instance = error.instance
    if validator == "additionalProperties" and isinstance(instance, dict):
        allowed = list((error.schema.get("properties") or {}).keys())
        for key in instance:
            if key not in allowed and not _pattern_allows(error.schema, key):
                diags.error(
                    key_span(instance, key) if isinstance(instance, PosDict) else span,
                    f"unknown key '{key}' in {where}",
                    did_you_mean(key, allowed) or (f"allowed keys: {', '.join(allowed)}" if allowed else None),
                )
        return
    if validator == "required":
        missing = [k for k in value if isinstance(instance, dict) and k not in instance]
        for key in missing:
            removed = instance.removed.get(key) if isinstance(instance, PosDict) else None
            diags.error(removed or span, f"missing required key '{key}' in {where}")
        return
    if validator == "type":
        wanted = value if isinstance(value, list) else [value]
        words = " or ".join(_TYPE_WORDS.get(str(w), str(w)) for w in wanted)
        diags.error(span, f"{where} must be {words}, not {_describe(instance)}")
        return
    if validator == "enum":
        hint = did_you_mean(str(instance), [str(v) for v in value])
        choices = ", ".join(str(v) for v in value)
        diags.error(span, f"{where} must be one of: {choices} (got {_describe(instance)})", hint)
        return
    if validator == "const":
        diags.error(span, f"{where} must be {value!r}")
        return
    if validator in ("minimum", "maximum"):
        word = "at least" if validator == "minimum" else "at most"
        diags.error(span, f"{where} must be {word} {value} (got {instance})")
        return
    if validator == "minItems":
        diags.error(span, f"{where} needs at least {value} item{'s' if value != 1 else ''}")
        return
    if validator == "minProperties":
        diags.error(span, f"{where} must not be empty")
        return
    if validator == "uniqueItems":
        diags.error(span, f"{where} has repeated items")
        return
    if validator == "minLength":
        diags.error(span, f"{where} must not be empty")
        return
    if validator == "pattern":
        if "propertyNames" in error.schema_path:  # a bad key: point at the key itself
            container, _ = _container_and_key(data, path + [None])
            if isinstance(container, PosDict) and instance in container:
                span = key_span(container, instance) or span
        if path and path[-1] in ("path",):
            diags.error(span, f"{where} must be a JSON Pointer like /options/rounds/default")
        elif isinstance(instance, str) and "\\.\\." in str(error.schema.get("pattern", "")):
            diags.error(span, f"{where} must be a list or a range like \"1..13\" (got {_describe(instance)})")
        elif "\\(" in str(value):
            diags.error(span, f"'{instance}' is not a valid name",
                        "use lower_case letters, digits and _, optionally with (params)")
        elif "[a-z][0-9]" in str(value):
            diags.error(span, f"'{instance}' is not a cell name like a1")
        else:
            diags.error(span, f"'{instance}' is not a valid name in {where}: use lower_case letters, digits and _")
        return
    if validator == "propertyNames":
        return  # reported through the inner pattern error
    if validator == "not" and path == ["round"] or (validator == "not" and path[-1:] == ["round"]):
        diags.error(span, "a round has either `turn:` or `phases:`, not both")
        return
    if validator in ("anyOf", "oneOf"):
        diags.error(span, f"{where} has the wrong form ({_describe(instance)})", _anyof_hint(error))
        return
    diags.error(span, f"{where}: {error.message}")


def _anyof_hint(error: ValidationError) -> str | None:
    kinds: set[str] = set()
    for sub in error.context or []:
        if sub.validator == "type":
            wanted = sub.validator_value if isinstance(sub.validator_value, list) else [sub.validator_value]
            kinds.update(_TYPE_WORDS.get(str(w), str(w)) for w in wanted)
        elif sub.validator == "pattern":
            kinds.add("a name")
    if kinds:
        return "expected " + " or ".join(sorted(kinds))
    return None


def _pattern_allows(schema_node: dict[str, Any], key: str) -> bool:
    import re

    for pattern in (schema_node.get("patternProperties") or {}):
        if re.search(pattern, key):
            return True
    return False


# ---------------------------------------------------------------------- the schema of a variant file

_DEFS = "#/$defs/"
_PARTIAL = "partial"  # the prefix of a definition's loosened copy: partialGame for game


class _Loosened:
    """Loosened copies of the definitions a variant's mappings reach: no `required` anywhere along
    mappings (a variant may write one key of a section); lists, `if` and `not` stay as they are."""

    def __init__(self, defs: dict[str, Any]):
        self.defs = defs
        self.made: dict[str, Any] = {}
        self.busy: set[str] = set()

    def ref(self, name: str) -> str:
        """The definition to refer to: ``name`` itself when nothing in it is required, else its copy."""
        key = _PARTIAL + name[:1].upper() + name[1:]
        if key in self.made or name in self.busy:
            return key
        self.busy.add(name)
        loose = self.node(self.defs[name])
        self.busy.discard(name)
        if loose == self.defs[name] and key not in self.made:
            return name
        self.made[key] = loose
        return key

    def node(self, schema_node: Any) -> Any:
        if not isinstance(schema_node, dict):
            return schema_node
        out: dict[str, Any] = {}
        for key, value in schema_node.items():
            if key == "required":
                continue
            if key == "$ref" and isinstance(value, str) and value.startswith(_DEFS):
                out[key] = _DEFS + self.ref(value[len(_DEFS):])
            elif key in ("properties", "patternProperties"):
                out[key] = {name: self.node(sub) for name, sub in value.items()}
            elif key in ("additionalProperties", "then", "else"):
                out[key] = self.node(value)
            elif key in ("anyOf", "oneOf", "allOf"):
                out[key] = [self.node(sub) for sub in value]
            else:  # items (lists replace), if, not, propertyNames, enum, ...: as they are
                out[key] = value
        return _pruned(out)


def _pruned(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` without the conditions left empty by loosening (an `if` whose `then` requires nothing)."""
    if node.get("then") == {} and node.get("else", {}) == {}:
        for key in ("if", "then", "else"):
            node.pop(key, None)
    if "allOf" in node:
        kept = [sub for sub in node["allOf"] if sub != {}]
        if kept:
            node["allOf"] = kept
        else:
            del node["allOf"]
    return node


def with_variant_schema(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (the schema) with its variant part generated from ``$defs/spec``."""
    defs = {k: v for k, v in data["$defs"].items() if not k.startswith(_PARTIAL) and k != "variant"}
    spec = defs["spec"]
    loose = _Loosened(defs)
    properties = {name: loose.node(sub) for name, sub in spec["properties"].items()}
    variant = {
        "description": "A variant: a file with `extends`. Its sections are merged into the base spec (mappings "
                       "key by key, so no key is required here), then its `patches` are applied.",
        "type": "object", "additionalProperties": False, "required": ["extends"], "properties": properties,
    }
    out = {k: v for k, v in data.items() if k != "$defs"}
    out["$defs"] = {**defs, "variant": variant, **dict(sorted(loose.made.items()))}
    return out


def _write_schema_file() -> None:
    path = resources.files("rulespec").joinpath("schema.json")
    data = with_variant_schema(json.loads(path.read_text(encoding="utf-8")))
    with open(str(path), "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    _write_schema_file()
