"""Completion: YAML keys and values from the schema, and names inside rule texts.

Names come from what can be read even when the text does not compile: the sections of the
YAML (``Analysis.names``), the built-ins (``rulespec.types``), the statements of the grammar
and, for the type of a name before a dot, the last version of the document that compiled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rulespec import types as T

from .analysis import Analysis, Symbol
from .reference import load_reference, statement_keywords
from .text import WORD
from .yamlpath import Place, place_at, schema_node

__all__ = ["Item", "complete", "signature", "rule_text", "EXPRESSION_KEYWORDS"]

EXPRESSION_KEYWORDS = ("and", "or", "not", "in", "if", "else", "for", "true", "false", "none")
_LOCAL = re.compile(r"\blet\s+([a-z_]\w*)\s*=|\b([a-z_]\w*)\s+in\b")
_SIGNATURE_KEY = re.compile(r"^\s*[a-z_]\w*\(([^)]*)\)\s*:")
_OBJECT = re.compile(r"([A-Za-z_]\w*)\s*\.\s*$")
_PROSE_KEYS = frozenset({"description", "message", "prompt", "name", "extends", "path", "op"})  # text, not rules
_LOCAL_LOOKBACK = 40  # lines above the cursor searched for the names a rule may use


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # keyword, function, variable, field, property, value, module (zone), event (action), constant
    detail: str = ""
    documentation: str = ""
    group: int = 5  # lower sorts first


def complete(analysis: Analysis, line: int, character: int, last_good: Analysis | None = None) -> list[Item]:
    """What may be written at (``line``, ``character``) of the document."""
    tm = analysis.map
    offset = tm.lsp_offset(line, character)
    prefix = analysis.text[tm.line_start(offset):offset]
    if _in_comment(prefix):
        return []
    if analysis.data is None and last_good is not None:  # the YAML does not read now: the names it had
        analysis.names = last_good.names
    place = place_at(tm, line, prefix)
    items = _yaml_items(place)
    node = schema_node(place.path + ((place.key,) if place.key is not None else ()))
    rules = node.is_rules or (place.key is not None and not node.alternatives) or \
        (place.key is not None and node.takes("string") and place.key not in _PROSE_KEYS) or \
        (place.key is None and not place.in_item and not node.keys() and bool(place.path))
    if place.key == "choose" or place.path[-2:] == ("choose", None):
        items += _names(analysis, "action", "event", "action", 0)
    if rules:
        text = rule_text(place.text)
        items += _rule_items(analysis, last_good, text, node.is_statement, _locals(analysis, line))
    return _unique(items)


def _in_comment(prefix: str) -> bool:
    quote = ""
    for i, ch in enumerate(prefix):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or prefix[i - 1] in " \t"):
            return True
    return False


def _yaml_items(place: Place) -> list[Item]:
    if place.key is not None:
        values = schema_node(place.path + (place.key,)).enum()
        return [Item(str(v).lower() if isinstance(v, bool) else str(v), "value", "allowed value", group=1)
                for v in values]
    if not WORD.fullmatch(place.text or "a"):
        return []
    node = schema_node(place.path)
    keys = node.keys()
    starting = node.starting_keys() if place.in_item else []
    statements = load_reference().statements
    return [Item(key, "property", "key", doc or statements.get(key, ""), group=2) for key, doc in keys.items()
            if not starting or key in starting]


def rule_text(value: str) -> str:
    """The rule text before the cursor: past a YAML quote, a flow list's last comma or bracket."""
    depth, quote, start = 0, "", 0
    for i, ch in enumerate(value):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and (i == start or not value[start:i].strip()):
            start = i + 1
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
            if ch == "[" and depth == 1 and not value[start:i].strip():
                start = i + 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth <= 1 and value.lstrip().startswith("["):
            start = i + 1
    return value[start:].lstrip()


def _rule_items(analysis: Analysis, last_good: Analysis | None, text: str, statement: bool,
                local_names: list[str]) -> list[Item]:
    word = WORD.search(text)
    partial = word.group() if word and word.end() == len(text) else ""
    before = text[: len(text) - len(partial)]
    if before.rstrip().endswith("."):
        obj = _OBJECT.search(before)
        return _attributes(analysis, last_good, obj.group(1) if obj else "")
    if before.count("'") % 2 == 1:
        return _card_names(analysis, last_good)
    if re.search(r"\bcall\s+$", before):
        return _names(analysis, "procedure", "function", "procedure", 0)
    items = _expression_items(analysis, local_names)
    if statement and not before.strip():
        items += [Item(k, "keyword", "statement", _statement_doc(k), 0) for k in statement_keywords()]
    return items


def _expression_items(analysis: Analysis, local_names: list[str]) -> list[Item]:
    ref = load_reference()
    names = analysis.names
    items = [Item(n, "variable", "local", group=0) for n in local_names]
    for name, body in names.of("zone").items():
        per = body.get("per") if isinstance(body, dict) else None
        items.append(Item(name, "module", f"zone, one per {per}: {name}(...)" if per else "zone", group=1))
    for name, body in names.of("variable").items():
        if not (isinstance(body, dict) and body.get("per")):
            items.append(Item(name, "variable", f"variable: {body.get('type', '') if isinstance(body, dict) else ''}",
                              group=1))
    for name in names.of("define"):
        params = names.params.get(Symbol("define", name), ())
        items.append(Item(name, "function", f"define {name}({', '.join(params)})" if params else "define", group=1))
    for kind in ("ranking", "table"):
        items += _names(analysis, kind, "constant", kind, 2)
    if names.of("option"):
        items.append(Item("option", "keyword", "option.NAME: an option's value", group=2))
    for name, type_ in T.BUILTIN_NAMES.items():
        items.append(Item(name, "constant", type_, ref.names.get(name, ""), 3))
    for name in T.FUNCTIONS:
        items.append(Item(name, "function", signature(name), ref.builtin(name) or "", 3))
    for name in T.AGGREGATES:
        if name not in T.FUNCTIONS:
            items.append(Item(name, "function", f"{name}(e for x in xs)", ref.builtin(name) or "", 3))
    items += [Item(k, "keyword", "keyword", group=4) for k in EXPRESSION_KEYWORDS]
    return items


def _attributes(analysis: Analysis, last_good: Analysis | None, obj: str) -> list[Item]:
    names = analysis.names
    if obj == "option":
        return [Item(name, "field", _option_detail(body), _option_doc(body), 0)
                for name, body in names.of("option").items()]
    known = _type_of(obj, analysis, last_good)
    card = [Item(n, "field", f"card attribute: {b.get('type', '') if isinstance(b, dict) else ''}", group=0)
            for n, b in names.of("attribute").items()] + [Item("name", "field", "card attribute: str", group=0)]
    per_player = [Item(n, "field", f"per-player variable: {b.get('type', '')}", group=1)
                  for n, b in names.of("variable").items() if isinstance(b, dict) and b.get("per")]
    player = per_player + [Item(n, "field", f"player: {t}", group=1) for n, t in T.PLAYER_FIELDS.items()]
    cell = [Item(n, "field", f"cell: {t}", group=2) for n, t in T.CELL_FIELDS.items()]
    piece = [Item(n, "field", f"piece: {t}", group=2) for n, t in T.PIECE_FIELDS.items()]
    by_type = {T.CARD: card, T.PLAYER: player, T.CELL: cell, T.PIECE: piece}
    return by_type.get(known or "", card + player + cell + piece)


def _type_of(name: str, analysis: Analysis, last_good: Analysis | None) -> str | None:
    for source in (analysis, last_good):
        index = source.index if source is not None else None
        if index is not None:
            found = index.types_by_name().get(name)
            if found:
                return found
    return T.BUILTIN_NAMES.get(name)


def _card_names(analysis: Analysis, last_good: Analysis | None) -> list[Item]:
    for source in (analysis, last_good):
        index = source.index if source is not None else None
        if index is not None and index.card_entries:
            return [Item(name, "constant", "card", group=0) for name in index.card_entries]
    return []


def _names(analysis: Analysis, kind: str, item_kind: str, detail: str, group: int) -> list[Item]:
    out = []
    for name in analysis.names.of(kind):
        params = analysis.names.params.get(Symbol(kind, name))
        out.append(Item(name, item_kind, f"{detail} {name}({', '.join(params)})" if params else detail, group=group))
    return out


def _locals(analysis: Analysis, line: int) -> list[str]:
    """Names bound above the cursor in the same entry: `for`, `let`, parameters of its signature."""
    tm = analysis.map
    found: list[str] = []
    for number in range(line, max(-1, line - _LOCAL_LOOKBACK), -1):
        text = tm.lsp_line(number)
        for let, bound in _LOCAL.findall(text):
            found.append(let or bound)
        signature_key = _SIGNATURE_KEY.match(text)
        if signature_key:
            found += [p.strip() for p in signature_key.group(1).split(",") if p.strip()]
        if number < line and text[:1].isalpha():
            break  # a top-level section starts here
    return [n for n in dict.fromkeys(found) if n not in EXPRESSION_KEYWORDS]


def signature(name: str) -> str:
    """``count(zone|list[any]) -> int``: a built-in function's parameters and result."""
    sig = T.FUNCTIONS[name]
    params = ["|".join(p) for p in sig.params]
    required = len(params) - sig.optional
    shown = params[:required] + [f"[{p}]" for p in params[required:]] + [f"{k}={t}" for k, t in sig.kwargs]
    result = {"elem0": "item of argument 1", "listof0": "list of argument 1's items",
              "max": "the larger value"}.get(sig.result, sig.result)
    return f"{name}({', '.join(shown)}) -> {result}"


def _statement_doc(word: str) -> str:
    return load_reference().statements.get(word, "")


def _option_detail(body: object) -> str:
    if not isinstance(body, dict):
        return "option"
    return f"option: {body.get('type', '')}, default {body.get('default')!r}"


def _option_doc(body: object) -> str:
    return str(body.get("description", "")) if isinstance(body, dict) else ""


def _unique(items: list[Item]) -> list[Item]:
    seen: dict[str, Item] = {}
    for item in items:
        if item.label not in seen:
            seen[item.label] = item
    return list(seen.values())
