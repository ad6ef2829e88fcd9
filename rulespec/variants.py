"""Variants: ``extends:`` a base spec, merge sections, then apply structured patches.

A variant file may contain any section; mappings are merged key by key into the base
(lists and values replace), then ``patches`` (replace / add / remove at a JSON Pointer)
are applied. Positions survive: merged and patched values keep the spans of the file
they were written in, so errors point into the right file.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import Diagnostics, SourceSpan, VariantError, did_you_mean, printable
from .source import PosDict, PosList, PosStr, key_span, load_yaml, read_spec_file, value_span

__all__ = ["load_with_variants", "MAX_EXTENDS_DEPTH", "SPEC_SUFFIXES", "resolve_root", "VariantStep", "variant_steps"]

MAX_EXTENDS_DEPTH = 8


SPEC_SUFFIXES = (".yaml", ".yml")


def _inside(path: str, root: str) -> bool:
    """Whether the real ``path`` lies in the real folder ``root`` (both already resolved)."""
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:
        return False


def resolve_root(path: str, root: str | None) -> str:
    """The real folder specs may be read from: ``root``, or the folder of the top file ``path``."""
    folder = root if root is not None else (os.path.dirname(os.path.abspath(path)) if path else ".")
    return os.path.realpath(folder or ".")


def read_top(path: str, root: str, diags: Diagnostics) -> str | None:
    """The text of the top spec file ``path``: named *.yaml or *.yml (and so is the file a symlink
    leads to), inside ``root`` once symlinks are resolved."""
    if "\0" in path:
        diags.error(SourceSpan(path.replace("\0", "\\0"), 1, 1), "a file name cannot hold a NUL character")
        return None
    real = os.path.realpath(path)
    if not (path.lower().endswith(SPEC_SUFFIXES) and real.lower().endswith(SPEC_SUFFIXES)) \
            and os.path.exists(real):
        diags.error(SourceSpan(path, 1, 1), f"{path} is not a spec file (its name, and the name of the file a "
                    "link leads to, must end in .yaml or .yml)")
        return None
    if not _inside(real, root):
        diags.error(SourceSpan(path, 1, 1), f"{path} is outside the folder specs may be read from ({root})")
        return None
    return read_spec_file(real, diags, None, shown=path, file=path)


def _extends_ref(data: PosDict, diags: Diagnostics) -> str | None:
    """The `extends` of ``data`` when it has the shape of a relative spec file name, else None
    with the problem reported at the `extends` value."""
    ref = data["extends"]
    span = value_span(data, "extends")
    if not isinstance(ref, str) or not ref.strip():
        diags.error(span, "`extends` must be the path of a spec file")
        return None
    if "\0" in ref:
        diags.error(span, "`extends` cannot hold a NUL character")
        return None
    if os.path.isabs(ref) or posixpath.isabs(ref) or ref.startswith("~"):
        diags.error(span, "`extends` must be a path relative to this file, not an absolute path",
                    "put the base spec in this folder or below it")
        return None
    if not ref.lower().endswith(SPEC_SUFFIXES):
        diags.error(span, "`extends` must name a spec file ending in .yaml or .yml")
        return None
    return ref


def _base_key(data: PosDict, path: str, files: Mapping[str, str], diags: Diagnostics) -> str | None:
    """The name in ``files`` that the `extends` of ``data`` (read from ``path``) leads to: a
    path relative to the file naming it, among the given files only (no file is opened)."""
    ref = _extends_ref(data, diags)
    if ref is None:
        return None
    key = posixpath.normpath(posixpath.join(posixpath.dirname(path), ref.replace("\\", "/")))
    if key not in files:
        listed = _listed(sorted(name for name in files if "/" not in name))
        diags.error(value_span(data, "extends"), f"`extends` may name only a spec given here, not {printable(ref)}",
                    f"the specs: {listed}" if listed else "no spec is given to extend")
        return None
    return key


def _base_path(data: PosDict, path: str, root: str, diags: Diagnostics) -> tuple[str, str] | None:
    """Where the `extends` of ``data`` (read from ``path``) leads: (path as named, real path).

    The policy: `extends` names a .yaml/.yml file by a path relative to the file that names
    it, and the file (symlinks resolved) must lie inside ``root``. A problem is reported at
    the `extends` value, and never quotes anything of the file it names.
    """
    ref = _extends_ref(data, diags)
    if ref is None:
        return None
    span = value_span(data, "extends")
    folder = os.path.dirname(path)
    base_path = os.path.normpath(os.path.join(folder, ref))
    real = os.path.realpath(base_path)
    if not _inside(real, root):
        diags.error(span, f"`extends` leads outside the folder specs may be read from ({root})",
                    "a base spec must be in the folder of the spec you load, or below it")
        return None
    return base_path, real


def load_with_variants(path: str, diags: Diagnostics, text: str | None = None,
                       _chain: tuple[str, ...] = (), _span: SourceSpan | None = None,
                       root: str | None = None, _real: str | None = None,
                       files: Mapping[str, str] | None = None, _observe: Observer | None = None) -> Any:
    """Load ``path`` (or ``text`` named ``path``), resolving ``extends`` recursively.

    Files are read only inside ``root`` (by default the folder of ``path``). With ``files``
    (names, relative to one folder, and their texts), `extends` may name only those, and
    nothing is read from disk: the top spec is ``text``.
    """
    if files is not None:
        return _load_from(path, text if text is not None else files.get(path, ""), files, diags, observe=_observe)
    root = resolve_root(path, root) if not _chain else (root or ".")
    if text is None:
        if _real is None:
            text = read_top(path, root, diags)
        else:
            text = read_spec_file(_real, diags, _span, shown=path, file=path)
        if text is None:
            diags.raise_if_any(VariantError)
    assert text is not None
    data = load_yaml(text, path, diags)
    if not isinstance(data, PosDict) or "extends" not in data:
        return data
    ref_span = value_span(data, "extends")
    found = _base_path(data, path, root, diags)
    if found is None:
        diags.raise_if_any(VariantError)
    assert found is not None
    base_path, base_real = found
    base_ref = str(data["extends"])
    here = _real or os.path.realpath(path)
    chain = _chain + (here,)
    _check_chain(chain, base_real, [os.path.basename(c) for c in chain] + [os.path.basename(base_path)], ref_span,
                 diags)
    base = load_with_variants(base_path, diags, None, chain, ref_span, root, base_real)
    return _merged(base, data, base_ref, ref_span, diags, _observe)


def _load_from(path: str, text: str, files: Mapping[str, str], diags: Diagnostics,
               chain: tuple[str, ...] = (), observe: Observer | None = None) -> Any:
    """``load_with_variants`` over the texts of ``files`` only."""
    data = load_yaml(text, path, diags)
    if not isinstance(data, PosDict) or "extends" not in data:
        return data
    ref_span = value_span(data, "extends")
    key = _base_key(data, path, files, diags)
    if key is None:
        diags.raise_if_any(VariantError)
    assert key is not None
    chain = chain + (path,)
    _check_chain(chain, key, [*chain, key], ref_span, diags)
    base = _load_from(key, files[key], files, diags, chain)
    return _merged(base, data, str(data["extends"]), ref_span, diags, observe)


def _check_chain(chain: tuple[str, ...], base: str, shown: list[str], span: SourceSpan | None,
                 diags: Diagnostics) -> None:
    """An `extends` to ``base`` from the end of ``chain`` makes no cycle and no chain too deep
    (``shown``: the files of the chain, then the base, as a message names them)."""
    if base in chain:
        diags.error(span, f"`extends` makes a cycle: {' -> '.join(shown)}")
        diags.raise_if_any(VariantError)
    if len(chain) > MAX_EXTENDS_DEPTH:
        diags.error(span, f"`extends` chain deeper than {MAX_EXTENDS_DEPTH} files")
        diags.raise_if_any(VariantError)


def _merged(base: Any, data: PosDict, base_ref: str, ref_span: SourceSpan | None, diags: Diagnostics,
            observe: Observer | None = None) -> Any:
    """The variant ``data`` applied to its ``base``: sections merged, then its patches (``observe``
    sees the data before the variant, after its sections are merged and after each patch)."""
    if not isinstance(base, PosDict):
        diags.error(ref_span, f"{printable(base_ref)} is not a spec (a mapping of sections)")
        diags.raise_if_any(VariantError)
    base.pop("variants", None)  # a variant lists its own test cases, if any
    if observe is not None:
        observe(VariantStep("base", base_ref, ref_span), base)
    _check_new_options(base.get("options"), data.get("options"), diags)
    merged = [key for key in data if key not in ("extends", "patches")]
    for key in merged:
        _merge_key(base, key, data[key], data)
    if observe is not None and merged:
        observe(VariantStep("sections", ", ".join(str(k) for k in merged), key_span(data, merged[0])), base)
    for i, patch in enumerate(data.get("patches") or []):
        span = value_span(data["patches"], i) or ref_span or data.span
        count = len(diags.items)
        _apply_patch(base, patch, span, diags)
        if observe is not None and len(diags.items) == count:
            observe(VariantStep("patch", _patch_label(patch), span, i), base)
    diags.raise_if_any(VariantError)
    return base


@dataclass(frozen=True)
class VariantStep:
    """One step of a variant: ``kind`` is "base" (the data before the variant; ``label`` is its
    `extends`), "sections" (its sections merged; ``label`` names them) or "patch" (number
    ``index``; ``label`` is its op and path)."""

    kind: str
    label: str
    span: SourceSpan | None
    index: int = -1


Observer = Callable[[VariantStep, Any], None]


def _patch_label(patch: Any) -> str:
    return printable(f"{patch.get('op')} {patch.get('path')}")[:200] if isinstance(patch, dict) else "patch"


def variant_steps(path: str, diags: Diagnostics, text: str | None = None, root: str | None = None,
                  files: Mapping[str, str] | None = None,
                  max_steps: int = 64) -> tuple[Any, list[tuple[VariantStep, Any]], int]:
    """The spec at ``path`` loaded as ``load_with_variants`` does, and a copy of its data at each
    step of its own variant (the first ``max_steps``): its base, after its sections are merged, after
    each patch; and how many steps there are in all. No steps when the file has no `extends`.
    Raises VariantError as loading does."""
    steps: list[tuple[VariantStep, Any]] = []
    seen = [0]

    def observe(step: VariantStep, data: Any) -> None:
        seen[0] += 1
        if len(steps) < max_steps:
            steps.append((step, copy.deepcopy(data)))

    data = load_with_variants(path, diags, text, root=root, files=files, _observe=observe)
    return data, steps, seen[0]


def _check_new_options(base: Any, options: Any, diags: Diagnostics) -> None:
    """An option the base does not have, written without a `type`, is a misspelt name of one it has.

    (A new option needs its `type`; without one, the schema's "missing key 'type'" would hide
    the typo.)
    """
    if not isinstance(options, dict):
        return
    known = list(base) if isinstance(base, dict) else []
    for name, body in options.items():
        if name not in known and isinstance(body, dict) and "type" not in body:
            diags.error(key_span(options, name) or SourceSpan("<spec>", 1, 1),
                        f"the base spec has no option '{name}' (a new option needs a `type`)",
                        did_you_mean(str(name), known))


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
        if key not in _PATCH_KEYS:
            diags.error(span, f"unknown key '{key}' in a patch", did_you_mean(str(key), _PATCH_KEYS))
            return
    if op == "add" and "was" in patch:
        diags.error(key_span(patch, "was") or span, "`was` is for replace and remove: an add replaces nothing")
        return
    parts = _pointer(path)
    starts = _part_starts(path)
    node: Any = base
    walked = ""
    for part, start in zip(parts[:-1], starts):
        node = _step(node, part, walked, path_span, diags, _part_span(path, start, path_span))
        if node is None:
            return
        walked += "/" + part
    last = parts[-1]
    last_span = _part_span(path, starts[-1], path_span)
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
        if "was" in patch and not _holds(patch, node[last], node, path, walked, span, diags):
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
        index = _list_index(node, last, op, path, path_span, diags, last_span)
        if index is None:
            return
        if "was" in patch and not _holds(patch, node[index], node, path, walked, span, diags):
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


_PATCH_KEYS = ("op", "path", "value", "was")


def _part_starts(path: str) -> list[int]:
    """Where each step of the JSON Pointer ``path`` starts in its text (after its '/')."""
    starts, at = [], 0
    for raw in path.split("/")[1:]:
        starts.append(at + 1)
        at += 1 + len(raw)
    return starts


def _part_span(path: str, start: int, span: SourceSpan) -> SourceSpan:
    """The file position of character ``start`` of a patch path (its own span when unknown)."""
    return path.at(start) if isinstance(path, PosStr) else span


def _plain(value: Any) -> Any:
    """``value`` as plain data for comparing, text with its runs of white space made one space."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _is_named_simple(item: Any) -> bool:
    """``{name: ..., do: statement}``: a simple statement with a name."""
    return isinstance(item, dict) and "do" in item and "for" not in item and "while" not in item


def _matches(old: Any, was: Any) -> bool:
    """Whether ``old`` is what a patch's ``was`` says (a named simple statement also matches its text)."""
    expected = _plain(was)
    return _plain(old) == expected or (_is_named_simple(old) and _plain(old["do"]) == expected)


def _shown(value: Any, limit: int = 70) -> str:
    """A short one-line rendering of a spec value for a message."""
    plain = _plain(value)
    text = f"'{plain}'" if isinstance(plain, str) else json.dumps(plain, ensure_ascii=False, default=str)
    text = printable(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _holds(patch: Any, old: Any, container: Any, path: str, walked: str, span: SourceSpan,
           diags: Diagnostics) -> bool:
    """A patch's ``was`` is what its path holds; else an error at ``was``, naming where in the list
    the expected value is, if it is there."""
    was = patch["was"]
    if _matches(old, was):
        return True
    hint = None
    if isinstance(container, list):
        found = [i for i, item in enumerate(container) if _matches(item, was)]
        if found:
            hint = f"that is item {found[0]} of {printable(walked)}: the path {printable(walked)}/{found[0]}"
            if isinstance(container[found[0]], dict) and isinstance(container[found[0]].get("name"), str):
                hint += f" or {printable(walked)}/{printable(container[found[0]]['name'])}"
    diags.error(value_span(patch, "was") or span, f"patch path {printable(path)} holds {_shown(old)}, "
                f"not what `was` says ({_shown(was)})", hint)
    return False


def _step(node: Any, part: str, walked: str, span: SourceSpan, diags: Diagnostics,
          part_span: SourceSpan | None = None) -> Any:
    if isinstance(node, dict):
        if part not in node:
            diags.error(span, f"patch path: no key '{part}' in {walked or '/'}", did_you_mean(part, node.keys()))
            return None
        return node[part]
    if isinstance(node, list):
        if _KEYED in part:
            index = _keyed_index(node, part, walked, span, diags)
            return None if index is None else node[index]
        if _is_name(part):
            index = _named_index(node, part, walked, part_span or span, diags)
            return None if index is None else node[index]
        if not part.isdigit() or int(part) >= len(node):
            diags.error(span, f"patch path: no item '{part}' in the list {walked} (it has {len(node)} items)")
            return None
        return node[int(part)]
    diags.error(span, f"patch path: {walked} is a value, not a mapping or list")
    return None


def _list_index(node: list, last: str, op: str, path: str, span: SourceSpan, diags: Diagnostics,
                last_span: SourceSpan | None = None) -> int | None:
    if last == "-" and op == "add":
        return len(node)
    if _KEYED in last:  # add inserts before the item, as before an index
        return _keyed_index(node, last, path.rsplit("/", 1)[0], span, diags)
    if _is_name(last):  # add inserts before the named item
        return _named_index(node, last, path.rsplit("/", 1)[0], last_span or span, diags)
    if not last.isdigit():
        diags.error(span, f"patch path {path}: a list index must be a number" + (" or '-'" if op == "add" else "")
                    + ", a statement's name, or key=value to name an item (name=Ace)")
        return None
    index = int(last)
    limit = len(node) if op == "add" else len(node) - 1
    if index > limit:
        diags.error(span, f"patch path {path}: index {index} is out of range (the list has {len(node)} items)")
        return None
    return index


_KEYED = "="  # a list step `key=value` names the one item whose `key` is `value`


def _is_name(part: str) -> bool:
    """A list step that is a name (of a statement, or of any item with a `name`): a letter first."""
    return part[:1].isalpha() and part.isascii()


def _named_index(node: list, name: str, walked: str, span: SourceSpan, diags: Diagnostics) -> int | None:
    """The position of the one item of ``node`` named ``name`` (``{name: ..., ...}``), like
    ``name=...`` but written as the name alone: ``/round/setup/shuffle-pile``."""
    where = printable(walked or "/")
    found = [i for i, item in enumerate(node) if isinstance(item, dict) and _scalar_text(item.get("name")) == name]
    if len(found) == 1:
        return found[0]
    if found:
        diags.error(span, f"patch path: {len(found)} items of the list {where} are named '{printable(name)}' "
                    f"(items {_listed(str(i) for i in found)})", "give each statement of a list its own name")
        return None
    names = [text for item in node if isinstance(item, dict) and (text := _scalar_text(item.get("name"))) is not None]
    hint = did_you_mean(name, names) or (f"its names: {_listed(names)}" if names else
                                         f"no item of it has a name: name one ({{name: {printable(name)}, do: ...}}) "
                                         f"or use its index (0 to {len(node) - 1})" if node else "the list is empty")
    diags.error(span, f"patch path: nothing in the list {where} is named '{printable(name)}'", hint)
    return None


def _scalar_text(value: Any) -> str | None:
    """How a patch path spells a plain value (true/false for booleans); None for lists and mappings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def _listed(items: Iterable[str], limit: int = 8) -> str:
    shown = list(itertools.islice(items, limit + 1))
    return ", ".join(printable(x) for x in shown[:limit]) + (", ..." if len(shown) > limit else "")


def _keyed_index(node: list, part: str, walked: str, span: SourceSpan, diags: Diagnostics) -> int | None:
    """The position of the one item of ``node`` whose ``key`` is ``value`` (``part`` is ``key=value``).

    Naming an item survives earlier patches that insert or remove items, where an index would
    silently address another one.
    """
    key, wanted = part.split(_KEYED, 1)
    where, named = printable(walked or "/"), printable(f"{key}={wanted}")
    with_key = [i for i, item in enumerate(node) if isinstance(item, dict) and key in item]
    if not with_key:
        keys = {str(k) for item in node if isinstance(item, dict) for k in item}
        diags.error(span, f"patch path: no item of the list {where} has a key '{printable(key)}'",
                    did_you_mean(key, keys) or (f"its items have: {_listed(sorted(keys))}" if keys else None))
        return None
    found = [i for i in with_key if _scalar_text(node[i][key]) == wanted]
    if len(found) == 1:
        return found[0]
    if found:
        diags.error(span, f"patch path: {len(found)} items of the list {where} have {named} "
                    f"(items {_listed(str(i) for i in found)})", "name the item by another key, or by its index")
        return None
    values = [text for i in with_key if (text := _scalar_text(node[i][key])) is not None]
    diags.error(span, f"patch path: no item of the list {where} has {named}", did_you_mean(wanted, values))
    return None
