"""Variants: ``extends:`` a base spec, merge sections, then apply structured patches.

A variant file may contain any section; mappings are merged key by key into the base
(lists and values replace), then ``patches`` (replace / add / remove at a JSON Pointer)
are applied. Positions survive: merged and patched values keep the spans of the file
they were written in, so errors point into the right file.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import Diagnostics, SourceSpan, VariantError, did_you_mean
from .source import PosDict, PosList, load_yaml, value_span

__all__ = ["load_with_variants", "MAX_EXTENDS_DEPTH"]

MAX_EXTENDS_DEPTH = 8


def read_text(path: str, diags: Diagnostics, span: SourceSpan | None) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        diags.error(span or SourceSpan(path, 0, 0), f"file not found: {path}")
    except IsADirectoryError:
        diags.error(span or SourceSpan(path, 0, 0), f"{path} is a directory, not a spec file")
    except UnicodeDecodeError:
        diags.error(span or SourceSpan(path, 0, 0), f"{path} is not UTF-8 text")
    except OSError as exc:
        diags.error(span or SourceSpan(path, 0, 0), f"cannot read {path}: {exc.strerror}")
    return None


def load_with_variants(path: str, diags: Diagnostics, text: str | None = None,
                       _chain: tuple[str, ...] = (), _span: SourceSpan | None = None) -> Any:
    """Load ``path`` (or ``text`` named ``path``), resolving ``extends`` recursively."""
    if text is None:
        text = read_text(path, diags, _span)
        if text is None:
            diags.raise_if_any(VariantError)
    assert text is not None
    data = load_yaml(text, path, diags)
    if not isinstance(data, PosDict) or "extends" not in data:
        return data
    base_ref = data["extends"]
    ref_span = value_span(data, "extends")
    if not isinstance(base_ref, str) or not base_ref:
        diags.error(ref_span, "`extends` must be the path of a spec file")
        diags.raise_if_any(VariantError)
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), str(base_ref)))
    here = os.path.realpath(path)
    chain = _chain + (here,)
    if os.path.realpath(base_path) in chain:
        diags.error(ref_span, f"`extends` makes a cycle: {' -> '.join(os.path.basename(c) for c in chain)} -> "
                    f"{os.path.basename(base_path)}")
        diags.raise_if_any(VariantError)
    if len(chain) > MAX_EXTENDS_DEPTH:
        diags.error(ref_span, f"`extends` chain deeper than {MAX_EXTENDS_DEPTH} files")
        diags.raise_if_any(VariantError)
    base = load_with_variants(base_path, diags, None, chain, ref_span)
    if not isinstance(base, PosDict):
        diags.error(ref_span, f"{base_ref} is not a spec (a mapping of sections)")
        diags.raise_if_any(VariantError)
    base.pop("variants", None)  # a variant lists its own test cases, if any
    for key, value in data.items():
        if key in ("extends", "patches"):
            continue
        _merge_key(base, key, value, data)
    for i, patch in enumerate(data.get("patches") or []):
        _apply_patch(base, patch, value_span(data["patches"], i) or ref_span or data.span, diags)
    diags.raise_if_any(VariantError)
    return base


def _merge_key(target: Any, key: str, value: Any, source: Any) -> None:
    if isinstance(value, dict) and isinstance(target.get(key), dict):
        inner = target[key]
        for k, v in value.items():
            _merge_key(inner, k, v, value)
        return
    target[key] = value
    if isinstance(target, PosDict) and isinstance(source, PosDict):
        target.key_spans[key] = source.key_spans.get(key, source.span)
        target.value_spans[key] = source.value_spans.get(key, source.span)


def _pointer(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path.split("/")[1:]]


def _apply_patch(base: PosDict, patch: Any, span: SourceSpan, diags: Diagnostics) -> None:
    if not isinstance(patch, dict):
        diags.error(span, "a patch must be a mapping with op, path and value")
        return
    op = patch.get("op")
    path = patch.get("path")
    path_span = value_span(patch, "path") or span
    if op not in ("replace", "add", "remove"):
        diags.error(value_span(patch, "op") or span, f"patch op must be replace, add or remove, not {op!r}",
                    did_you_mean(str(op), ["replace", "add", "remove"]))
        return
    if not isinstance(path, str) or not path.startswith("/"):
        diags.error(path_span, "patch path must be a JSON Pointer like /options/rounds/default")
        return
    if op != "remove" and "value" not in patch:
        diags.error(span, f"a '{op}' patch needs a value")
        return
    for key in patch:
        if key not in ("op", "path", "value"):
            diags.error(span, f"unknown key '{key}' in a patch", did_you_mean(str(key), ["op", "path", "value"]))
            return
    parts = _pointer(path)
    node: Any = base
    walked = ""
    for part in parts[:-1]:
        node = _step(node, part, walked, path_span, diags)
        if node is None:
            return
        walked += "/" + part
    last = parts[-1]
    value = patch.get("value")
    value_pos = value_span(patch, "value") or span
    if isinstance(node, dict):
        if op in ("replace", "remove") and last not in node:
            diags.error(path_span, f"patch path {path}: no key '{last}' in {walked or '/'}",
                        did_you_mean(last, node.keys()))
            return
        if op == "add" and last in node:
            diags.error(path_span, f"patch path {path}: '{last}' already exists in {walked or '/'}",
                        "use op: replace to change it")
            return
        if op == "remove":
            del node[last]
            if isinstance(node, PosDict):
                node.removed[last] = path_span  # a later "missing key" error points at this patch
            return
        node[last] = value
        if isinstance(node, PosDict):
            node.key_spans[last] = path_span
            node.value_spans[last] = value_pos
        return
    if isinstance(node, list):
        index = _list_index(node, last, op, path, path_span, diags)
        if index is None:
            return
        spans = node.item_spans if isinstance(node, PosList) else None
        if op == "remove":
            del node[index]
            if spans is not None and index < len(spans):
                del spans[index]
        elif op == "replace":
            node[index] = value
            if spans is not None and index < len(spans):
                spans[index] = value_pos
        else:
            node.insert(index, value)
            if spans is not None:
                spans.insert(index, value_pos)
        return
    diags.error(path_span, f"patch path {path}: {walked or '/'} is a value, not a mapping or list")


def _step(node: Any, part: str, walked: str, span: SourceSpan, diags: Diagnostics) -> Any:
    if isinstance(node, dict):
        if part not in node:
            diags.error(span, f"patch path: no key '{part}' in {walked or '/'}", did_you_mean(part, node.keys()))
            return None
        return node[part]
    if isinstance(node, list):
        if not part.isdigit() or int(part) >= len(node):
            diags.error(span, f"patch path: no item '{part}' in the list {walked} (it has {len(node)} items)")
            return None
        return node[int(part)]
    diags.error(span, f"patch path: {walked} is a value, not a mapping or list")
    return None


def _list_index(node: list, last: str, op: str, path: str, span: SourceSpan, diags: Diagnostics) -> int | None:
    if last == "-" and op == "add":
        return len(node)
    if not last.isdigit():
        diags.error(span, f"patch path {path}: a list index must be a number" + (" or '-'" if op == "add" else ""))
        return None
    index = int(last)
    limit = len(node) if op == "add" else len(node) - 1
    if index > limit:
        diags.error(span, f"patch path {path}: index {index} is out of range (the list has {len(node)} items)")
        return None
    return index
