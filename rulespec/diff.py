"""What a variant changes, in the rulebook's words.

The rules of both specs are written out by ``rulespec.describe`` for players; the two texts are
compared section by section, step by step (a changed step shows before -> after, located as the
rulebook numbers it: "Setup of each round, step 3"), table rows by their first cell (a card's
copies and points). The player counts and the options (defaults, bounds, values) are compared
from the specs' structure (the text's options section is left to it). A variant file's own
steps (its merged sections, each of its patches) are compared one after the other too, so every
patch's effect is shown, or said to be nothing the rules show.
"""

from __future__ import annotations

import copy
import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .compiler import GameDef, compile_data
from .describe import describe
from .errors import Diagnostics, SourceSpan, SpecError, VariantError, printable
from .model import OptionDef
from .variants import VariantStep, load_with_variants, variant_steps

__all__ = ["Change", "StepEffect", "VariantDiff", "diff_gamedefs", "diff_variant", "MAX_STEPS"]

MAX_STEPS = 40  # patches (and merged sections) whose effect is shown one by one
_SHORT = 90  # a change longer than this shows before and after on lines of their own
_SIMILAR = 0.5  # a removed and an added line this alike are one changed line


@dataclass(frozen=True)
class Change:
    """One difference: ``kind`` is "added", "removed" or "changed"; ``where`` locates it in the
    rulebook ("Setup of each round, step 3", "Options, rounds")."""

    kind: str
    where: str
    before: str = ""
    after: str = ""

    def text(self) -> str:
        if self.kind == "added":
            return f"{self.where}: added: {self.after}"
        if self.kind == "removed":
            return f"{self.where}: removed: {self.before}"
        if len(self.where) + len(self.before) + len(self.after) > _SHORT:
            return f"{self.where}, changed:\n  before: {self.before}\n  after:  {self.after}"
        return f"{self.where}: {self.before} -> {self.after}"

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "where": self.where, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class StepEffect:
    """What one step of the variant file changes: its sections merged, or one patch."""

    label: str
    span: SourceSpan | None
    changes: tuple[Change, ...]
    problem: str = ""  # why the step's effect cannot be shown alone

    def text(self) -> str:
        where = f" ({self.span})" if self.span is not None else ""
        if self.problem:
            return f"{self.label}{where}: {self.problem}"
        if not self.changes:
            return f"{self.label}{where}: changes nothing the rules show"
        return f"{self.label}{where}: " + "; ".join(dict.fromkeys(c.where for c in self.changes))

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "where": str(self.span) if self.span else None,
                "line": self.span.line if self.span else 0, "changes": [c.as_dict() for c in self.changes],
                "problem": self.problem, "text": self.text()}


@dataclass(frozen=True)
class VariantDiff:
    base: str
    variant: str
    changes: tuple[Change, ...]
    steps: tuple[StepEffect, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def text(self) -> str:
        lines = [f"{self.variant} against {self.base}"]
        if not self.changes:
            lines.append("  no change the rules show")
        for change in self.changes:
            lines.append("  " + _indent_more(change.text()))
        if self.steps:
            lines.append("Each step of the variant:")
            lines.extend(f"  {_indent_more(step.text())}" for step in self.steps)
        lines.extend(self.notes)
        return "\n".join(lines) + "\n"

    def as_dict(self) -> dict[str, Any]:
        return {"base": self.base, "variant": self.variant, "changes": [c.as_dict() for c in self.changes],
                "steps": [s.as_dict() for s in self.steps], "notes": list(self.notes), "text": self.text()}


def _indent_more(text: str) -> str:
    return text.replace("\n", "\n    ")


# ---------------------------------------------------------------------- the rulebook's lines
@dataclass(frozen=True)
class _Line:
    section: str
    where: str  # "step 2.1", a table row's first cell, or "" (a paragraph)
    text: str
    table: tuple[str, ...] = ()  # the header of the table the row is in
    cells: tuple[str, ...] = ()

    @property
    def place(self) -> str:
        return f"{self.section}, {self.where}" if self.where else self.section


_BULLET = re.compile(r"^(\s*)(?:[-*+]|(\d+)[.)])\s+(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_STRUCTURED = re.compile(r"option", re.I)  # sections compared from the spec's structure instead


def _cells(row: str) -> tuple[str, ...]:
    return tuple(cell.strip() for cell in row.strip().strip("|").split("|"))


def _lines(text: str) -> list[_Line]:
    """The rulebook text as lines located in their section: steps numbered as the rulebook numbers
    them (nested steps as 2.1), table rows by their first cell."""
    out: list[_Line] = []
    heads = ["", ""]
    counters: list[int] = []
    header: tuple[str, ...] = ()
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip():
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            if level == 1:  # the game's name: compared as the name
                heads = ["Introduction", ""]
            elif level == 2:
                heads = [heading.group(2).strip(), ""]
            else:
                heads[1] = heading.group(2).strip()
            counters, header = [], ()
            continue
        section = ", ".join(h for h in heads if h) or "Introduction"
        if _STRUCTURED.search(heads[0]) or line.startswith("**Players:**"):
            continue
        if line.lstrip().startswith("|"):
            cells = _cells(line)
            if all(set(c) <= set(":-") for c in cells):
                continue
            if not header:
                header = cells
                continue
            text = ", ".join(f"{name} {cell}" for name, cell in zip(header[1:], cells[1:]) if cell)
            out.append(_Line(section, cells[0] or "row", text or " | ".join(cells), header, cells))
            continue
        header = ()
        bullet = _BULLET.match(line)
        if bullet:
            depth = len(bullet.group(1).replace("\t", "  ")) // 2
            counters = counters[:depth + 1] + [0] * max(0, depth + 1 - len(counters))
            counters[depth] += 1
            out.append(_Line(section, "step " + ".".join(str(n) for n in counters[:depth + 1]),
                             bullet.group(3).strip()))
            continue
        counters = []
        out.append(_Line(section, "", line.strip()))
    return out


def _row_change(before: _Line, after: _Line) -> Change:
    """A table row that changed: the columns that differ, named by the table's header."""
    if before.table == after.table and len(before.cells) == len(after.cells) == len(before.table):
        differ = [i for i, (b, a) in enumerate(zip(before.cells, after.cells)) if b != a]
        if len(differ) == 1:
            i = differ[0]
            return Change("changed", f"{after.place}, {after.table[i]}", before.cells[i] or "(none)",
                          after.cells[i] or "(none)")
        return Change("changed", after.place, _row_side(before, after, 0), _row_side(before, after, 1))
    return Change("changed", after.place, before.text, after.text)


def _row_side(before: _Line, after: _Line, side: int) -> str:
    """One side of a changed table row: each column that differs, named by the header."""
    row = (before, after)[side]
    return "; ".join(f"{name} {cell or '(none)'}" for name, cell, b, a
                     in zip(row.table, row.cells, before.cells, after.cells) if b != a)


def _compare_lines(before: list[_Line], after: list[_Line]) -> list[Change]:
    """The changes from ``before`` to ``after`` (lines of one section)."""
    out: list[Change] = []
    rows_before = {(line.table, line.where): line for line in before if line.table}
    rows_after = {(line.table, line.where): line for line in after if line.table}
    for key, line in rows_before.items():
        other = rows_after.get(key)
        if other is None:
            out.append(Change("removed", line.place, line.text))
        elif other.text != line.text:
            out.append(_row_change(line, other))
    out.extend(Change("added", line.place, "", line.text) for key, line in rows_after.items()
               if key not in rows_before)
    plain_before = [line for line in before if not line.table]
    plain_after = [line for line in after if not line.table]
    matcher = difflib.SequenceMatcher(None, [x.text for x in plain_before], [x.text for x in plain_after],
                                      autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        olds, news = plain_before[i1:i2], plain_after[j1:j2]
        while olds and news:
            old, new = olds[0], news[0]
            if difflib.SequenceMatcher(None, old.text, new.text).ratio() < _SIMILAR:
                break
            out.append(Change("changed", new.place, old.text, new.text))
            olds, news = olds[1:], news[1:]
        out.extend(Change("removed", old.place, old.text) for old in olds)
        out.extend(Change("added", new.place, "", new.text) for new in news)
    return out


def _by_section(lines: Iterable[_Line]) -> dict[str, list[_Line]]:
    sections: dict[str, list[_Line]] = {}
    for line in lines:
        sections.setdefault(line.section, []).append(line)
    return sections


def _rule_changes(before: str, after: str) -> list[Change]:
    old, new = _by_section(_lines(before)), _by_section(_lines(after))
    out: list[Change] = []
    for section in dict.fromkeys([*old, *new]):
        out.extend(_compare_lines(old.get(section, []), new.get(section, [])))
    return out


# ---------------------------------------------------------------------- the structure
def _players(model: Any) -> str:
    counts = sorted(model.players)
    if not counts:
        return "any number"
    if counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}" if counts[0] == counts[-1] else f"{counts[0]} to {counts[-1]}"
    return ", ".join(str(n) for n in counts)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return printable(str(value))


def _option_text(option: OptionDef) -> str:
    parts = [f"{option.type}, default {_value(option.default)}"]
    low = option.min_rule[1] if option.min_rule else option.min
    high = option.max_rule[1] if option.max_rule else option.max
    if low is not None or high is not None:
        parts.append(f"from {'...' if low is None else _value(low)} to {'...' if high is None else _value(high)}")
    if option.values:
        parts.append("one of " + ", ".join(printable(v) for v in option.values))
    return "; ".join(parts)


def _option_changes(before: tuple[OptionDef, ...], after: tuple[OptionDef, ...]) -> list[Change]:
    old = {o.name: o for o in before}
    new = {o.name: o for o in after}
    out: list[Change] = []
    for name in dict.fromkeys([*old, *new]):
        where = f"Options, {name}"
        if name not in new:
            out.append(Change("removed", where, _option_text(old[name])))
        elif name not in old:
            out.append(Change("added", where, "", _option_text(new[name])))
        elif _option_text(old[name]) != _option_text(new[name]):
            a, b = old[name], new[name]
            if (a.type, a.min, a.max, a.values) == (b.type, b.min, b.max, b.values) and a.default != b.default:
                out.append(Change("changed", f"{where}, default", _value(a.default), _value(b.default)))
            else:
                out.append(Change("changed", where, _option_text(a), _option_text(b)))
    return out


def _structure_changes(base: GameDef, variant: GameDef) -> list[Change]:
    out: list[Change] = []
    if base.model.name != variant.model.name:
        out.append(Change("changed", "Name", printable(base.model.name), printable(variant.model.name)))
    if _players(base.model) != _players(variant.model):
        out.append(Change("changed", "Players", _players(base.model), _players(variant.model)))
    out.extend(_option_changes(base.model.options, variant.model.options))
    return out


def diff_gamedefs(base: GameDef, variant: GameDef) -> list[Change]:
    """What ``variant`` changes in ``base``: the name, the players, the options, then the rules as
    ``describe`` writes them for players."""
    return _structure_changes(base, variant) + _rule_changes(_rules(base), _rules(variant))


def _rules(gamedef: GameDef) -> str:
    return describe(gamedef, "players")


# ---------------------------------------------------------------------- a variant file
def _with_options(data: Any, options: Mapping[str, Any], path: str) -> Any:
    """``data`` with the given options as their defaults (an option it lacks is an error)."""
    if not options:
        return data
    data = copy.deepcopy(data)
    section = data.get("options") if isinstance(data, dict) else None
    diags = Diagnostics()
    for name, value in options.items():
        body = section.get(name) if isinstance(section, dict) else None
        if not isinstance(body, dict):
            known = ", ".join(sorted(str(k) for k in section)) if isinstance(section, dict) else ""
            diags.error(SourceSpan(path, 1, 1), f"the spec has no option '{printable(str(name))}'",
                        f"its options: {known}" if known else "it has no options")
            continue
        body["default"] = value
    diags.raise_if_any(VariantError)
    return data


def _compiled(data: Any, path: str, options: Mapping[str, Any]) -> GameDef:
    diags = Diagnostics()
    return compile_data(_with_options(data, options, path), path, diags)


def _try_compile(data: Any, path: str, options: Mapping[str, Any]) -> tuple[GameDef | None, str]:
    try:
        return _compiled(data, path, options), ""
    except SpecError as exc:
        first = exc.diagnostics[0] if exc.diagnostics else None
        return None, (f"{first.span}: {first.message}" if first and first.span else
                      (first.message if first else "it does not compile"))


def _step_label(step: VariantStep) -> str:
    if step.kind == "sections":
        return f"sections merged ({step.label})"
    return f"patch {step.index + 1}: {step.label}"


def _step_effects(path: str, steps: list[tuple[VariantStep, Any]], options: Mapping[str, Any],
                  base: GameDef | None = None) -> list[StepEffect]:
    """What each step changes in the one before it (the first step is the variant's base, compiled
    as ``base`` when given)."""
    effects = []
    before = base or _try_compile(steps[0][1], path, options)[0]
    texts: dict[int, str] = {}
    for step, data in steps[1:]:
        after, after_problem = _try_compile(data, path, options)
        if before is None or after is None:
            why = ("the spec does not compile before this step, so its effect shows only with the steps after it"
                   if before is None else f"the spec does not compile after this step ({after_problem})")
            effects.append(StepEffect(_step_label(step), step.span, (), why))
        else:
            old = texts.get(id(before)) or _rules(before)
            new = _rules(after)
            texts = {id(after): new}
            changes = _structure_changes(before, after) + _rule_changes(old, new)
            effects.append(StepEffect(_step_label(step), step.span, tuple(changes)))
        before = after
    return effects


def diff_variant(path: str, base_path: str | None = None, text: str | None = None, root: str | None = None,
                 files: Mapping[str, str] | None = None,
                 options: Mapping[str, Any] | None = None, max_steps: int = MAX_STEPS) -> VariantDiff | None:
    """What the spec at ``path`` (or ``text``) changes in ``base_path`` (by default the spec its own
    `extends` names), and what each of its own steps changes (its sections merged, each patch).

    ``options`` are set as the defaults of both specs. None when no base is named and the spec has no
    `extends`; raises SpecError when either spec is invalid.
    """
    options = dict(options or {})
    diags = Diagnostics()
    max_steps = max(0, min(max_steps, MAX_STEPS))
    data, steps, count = variant_steps(path, diags, text, root=root, files=files, max_steps=max_steps + 1)
    if base_path is None and not steps:
        return None
    variant = _compiled(data, path, options)
    if base_path is not None:
        base_diags = Diagnostics()
        base_data = load_with_variants(base_path, base_diags, files.get(base_path) if files is not None else None,
                                       root=root, files=files)
        base = _compiled(base_data, base_path, options)
        base_name = base_path
    else:
        base = _compiled(steps[0][1], path, options)
        base_name = steps[0][0].label
    changes = tuple(diff_gamedefs(base, variant))
    own_base = base if base_path is None else None
    effects = tuple(_step_effects(path, steps, options, own_base)) if steps else ()
    notes = []
    if count > len(steps):
        notes.append(f"(only the first {len(steps) - 1} of the variant's {count - 1} steps are shown one by one)")
    if not steps:
        notes.append(f"({printable(path)} has no `extends`: it is compared as a whole)")
    return VariantDiff(printable(base_name), printable(path), changes, effects, tuple(notes))

