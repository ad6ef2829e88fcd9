"""The document for a spec's players: the rules as a player learns them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .. import ast as A
from .. import types as T
from ..compiler import GameDef
from ..fold import DESCRIBE, UNKNOWN, FoldEnv, fold
from ..model import ActionRef, CardEntry, SpecModel
from ..zones import SHARED, kind_of
from .designers import Describer
from .text import (
    VISIBILITY,
    agree,
    is_literal,
    local_text,
    owned_by,
    range_text,
    subject,
    table_cell,
    value_text,
    words,
)

__all__ = ["PlayerDescriber", "default_options_env"]

_LONG_TERM = 140  # a definition rendered longer than this is named, and explained under Terms
_SHORT_PROCEDURE = 3  # lines: a procedure this short is written out wherever it is called
_EXAMPLE_CARDS = 500  # cards looked at for an example name


def default_options_env(model: SpecModel) -> FoldEnv:
    """What the players' rules take as decided before play: the options at their defaults (an
    `auto` one is not known), folded by the ``DESCRIBE`` policy."""
    return FoldEnv(DESCRIBE, {o.name: o.default for o in model.options if o.auto is None})


class PlayerDescriber(Describer):
    """The rules as a player learns them: the goal first, the cards with what each does, the
    table, setup, a turn (the current player is "you"), scoring and the end, then the options.

    The rules are read with every option at its default (an option's condition that is then
    false drops out); internal bookkeeping (announcements, variables, invariants, the bots'
    evaluation, test variants, round reports) is left out; procedures and definitions are
    written out where they are used, unless they are long and used in several places (then
    they are named, and explained under Details and Terms); action labels are shown as
    examples with invented values ("declare P1 as partner"), not as templates.
    """

    def __init__(self, gamedef: GameDef):
        super().__init__(gamedef)
        self.defaults = default_options_env(self.model)
        self.you = False  # the current player reads "you" (in a turn, an action, a card's effect)
        self.aliases: list[dict[str, str]] = []  # a parameter's argument, in a procedure written out
        self.inlining: list[str] = []  # the procedures and definitions being written out
        self.shown_actions: set[str] = set()
        self.details: list[str] = []  # procedures named in the text, explained under Details
        self.terms: list[str] = []  # definitions named in the text, explained under Terms
        self.calls = self.call_counts()
        self.card_table = self.example_cards()

    # ------------------------------------------------------------------ what is known before play
    def call_counts(self) -> dict[str, int]:
        """How many places call each procedure by its name."""
        m = self.model
        roots: list[Any] = [m.match.setup, m.round.setup, m.round.scoring] + [p.turn for p in m.round.phases]
        roots += [p.body for p in m.procedures] + list(m.actions)
        counts: dict[str, int] = {}
        for root in roots:
            for node in A.walk(root):
                if isinstance(node, A.CallProc) and isinstance(node.target, A.Name):
                    counts[node.target.id] = counts.get(node.target.id, 0) + 1
        return counts

    def known(self, node: Any) -> Any:
        """The value of an expression of constants and options at their defaults, or UNKNOWN."""
        return fold(node, self.defaults)

    def possible(self, conditions: Iterable[Any]) -> list[Any]:
        """The conditions that can hold with the default options."""
        return [c for c in conditions if self.known(c) is UNKNOWN or self.known(c)]

    # ------------------------------------------------------------------ the document
    def document(self) -> str:
        m = self.model
        out: list[str] = [f"# {m.name}", ""]
        if m.description:
            out += [m.description.strip(), ""]
        out += [f"**Players:** {self.players_text()}.", ""]
        for section in (self.goal_section, self.player_cards_section, self.table_section, self.board_section,
                        self.rankings_section, self.setup_section, self.turn_section, self.scoring_section,
                        self.details_section, self.terms_section, self.player_options_section):
            lines = section()
            if lines:
                out += lines + [""]
        return "\n".join(out).rstrip() + "\n"

    def goal_section(self) -> list[str]:
        match = self.model.match
        out = ["## Goal", ""]
        about = dict(self.model.abouts).get("game")
        if about:  # the designer's goal, then the rules that decide it
            out.append(about)
        if match.winners is None:
            out.append("The player with the highest total score when the match ends wins (ties share the win).")
        else:
            out.append(f"The match is won by {self.expr(match.winners)}.")
        if self.model.round.scoring.stmts:
            out.append("Points are scored at the end of each round (see Scoring) and added up.")
        ends = self.possible(match.end_when)
        if len(ends) == 1:
            out.append(f"The match ends after the round in which {self.expr(ends[0])}.")
        elif ends:
            out += ["The match ends after a round in which any of these holds:", ""]
            out += [f"- {self.expr(e)}" for e in ends]
        elif not self.ends_game():
            out.append("The match is a single round.")
        else:
            out.append("The match ends when the rules below say so.")
        return out

    def player_cards_section(self) -> list[str]:
        cards = self.model.cards
        if cards is None:
            return []
        out = self.cards_heading(cards)
        if cards.name_template is not None and self.card_table:
            fields = [self.expr(p) for p in cards.name_template.parts if not isinstance(p, str)]
            out += [f"Cards are named by their {' and '.join(fields)}, for example \"{self.card_table[0][0]}\".", ""]
        plain = [a.name for a in cards.attributes if a.type != "procedure" and a.name != "name"]
        effects = [a for a in cards.attributes if a.type == "procedure"]
        head = ["card", "copies"] + [words(a) for a in plain] + (["what it does"] if effects else [])
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for entry in cards.entries:
            out.append(self.player_card_row(entry, plain, effects))
        return out

    def player_card_row(self, entry: CardEntry, plain: list[str], effects: list[Any]) -> str:
        attrs = {k: v for k, v, _ in entry.attrs}
        family = {name: values for name, values, _ in entry.family}
        names = [name for name, _ in _entry_cards(entry, self.model.cards)]
        if len(names) <= 4:
            what = ", ".join(names)
        else:
            each = " and ".join(f"each {f} {range_text(v)}" for f, v in family.items())
            what = f"{names[0]} to {names[-1]} ({len(names)} kinds: {each})"
        cells = [what, self.expr(entry.copies)]
        for name in plain:
            cells.append(range_text(family[name]) if name in family
                         else value_text(attrs[name]) if name in attrs else "")
        if effects:
            index = self.model.cards.entries.index(entry) if self.model.cards else -1
            about = dict(self.model.abouts).get(f"card:{index}")
            generated = " ".join(self.card_effect(a.name, attrs.get(a.name, a.default)) for a in effects).strip()
            cells.append(f"{about} {generated}".strip() if about else generated)
        return "| " + " | ".join(table_cell(c) for c in cells) + " |"

    def card_effect(self, attribute: str, procedure: Any) -> str:
        """What the procedure a card names does, as one sentence; the card's player is "you"."""
        proc = self.procs.get(str(procedure))
        if proc is None:
            return ""
        alias = {proc.params[0]: "you"} if proc.params else {}
        with self.speaking_to_you(), self.aliased(alias):
            lines = self.block(proc.body)
        text = _sentence(lines)
        if not text or text == "nothing happens":
            return ""
        return f"{words(attribute).capitalize()}: {text}."

    def table_section(self) -> list[str]:
        if not self.model.zones:
            return []
        out = ["## Where the cards lie", ""]
        for z in self.model.zones:
            seen = VISIBILITY.get(z.visibility, z.visibility)
            where = "one, on the table" if kind_of(z) is SHARED else f"one per {kind_of(z).described}"
            about = dict(self.model.abouts).get(f"zone:{z.name}")
            out.append(f"- **{z.label}** ({where}): face {z.face}; {seen}." + (f" {about}" if about else ""))
        return out

    def setup_section(self) -> list[str]:
        match, rnd = self.model.match, self.model.round
        out = []
        if match.setup.stmts:
            out += ["## Before the first round", ""] + self.block(match.setup) + [""]
        if rnd.setup.stmts:
            out += ["## Setup of each round", ""] + self.block(rnd.setup) + [""]
        return out[:-1]

    def turn_section(self) -> list[str]:
        rnd = self.model.round
        out = ["## Your turn", ""]
        single = len(rnd.phases) == 1 and rnd.phases[0].name == "main"
        with self.speaking_to_you():
            for phase in rnd.phases:
                out += self.phase_lines(phase, single) + [""]
            for alt in self.model.actions:
                if alt.action not in self.shown_actions:
                    out += [f"### {words(alt.action)}", ""] + self.player_alternative(alt, "") + [""]
        ends = self.possible(rnd.end_when)
        if ends:
            out += ["The round also ends at once when any of these holds:", ""] + [f"- {self.expr(e)}" for e in ends]
            out.append("")
        return out[:-1]

    def scoring_section(self) -> list[str]:
        scoring = self.block(self.model.round.scoring)
        return ["## Scoring", "", "At the end of each round:", ""] + scoring if scoring else []

    def details_section(self) -> list[str]:
        out: list[str] = []
        done = 0
        with self.speaking_to_you():
            while done < len(self.details):  # a procedure explained may name others
                proc = self.procs[self.details[done]]
                done += 1
                head = f"{words(proc.name)}({', '.join(proc.params)})" if proc.params else words(proc.name)
                with self.scope(proc.params):
                    out += [f"### {head}", ""] + (self.block(proc.body) or ["- nothing happens"]) + [""]
        return ["## Details", ""] + out[:-1] if out else []

    def terms_section(self) -> list[str]:
        out: list[str] = []
        done = 0
        while done < len(self.terms):
            d = self.defines[self.terms[done]]
            done += 1
            head = f"{d.name}({', '.join(d.params)})" if d.params else words(d.name)
            with self.scope(d.params), self.aliased({}):
                out.append(f"- **{head}**: {self.expr(d.body)}.")
        return ["## Terms", ""] + out if out else []

    def player_options_section(self) -> list[str]:
        if not self.model.options:
            return []
        out = ["## Options", "", "The rules above use the defaults; the players may agree on other values.", "",
               "| option | default | what it changes |", "|---|---|---|"]
        for o in self.model.options:
            default = self.expr(o.auto) if o.auto is not None else value_text(o.default)
            out.append(f"| `{o.name}` | {table_cell(default)} | {table_cell(o.description)} |")
        return out

    # ------------------------------------------------------------------ context
    @contextmanager
    def speaking_to_you(self) -> Iterator[None]:
        before, self.you = self.you, True
        try:
            yield
        finally:
            self.you = before

    @contextmanager
    def aliased(self, alias: dict[str, str]) -> Iterator[None]:
        self.aliases.append(alias)
        try:
            yield
        finally:
            self.aliases.pop()

    def current_player(self) -> str:
        return "you" if self.you else "the current player"

    def zone_label(self, name: str) -> str:
        return self.zones[name].label

    def place(self, node: Any) -> str:
        if isinstance(node, A.Name) and node.id in self.zones and not self.shadowed(node.id):
            return f"the {self.zone_label(node.id)}"
        if isinstance(node, A.Call) and node.func in self.zones and node.args:
            owner = self.expr(node.args[0])
            if kind_of(self.zones[node.func]).located:
                return f"the {self.zone_label(node.func)} at {owner}"
            return owned_by(owner, self.zone_label(node.func))
        return self.expr(node)

    def shadowed(self, name: str) -> bool:
        return self.is_local(name) or bool(self.aliases and name in self.aliases[-1])

    # ------------------------------------------------------------------ expressions
    def e_Name(self, node: A.Name, parent: int) -> str:
        if self.aliases and node.id in self.aliases[-1]:
            return self.aliases[-1][node.id]
        if self.is_local(node.id):
            return local_text(node.id)
        if node.id in self.zones:
            return f"the {self.zone_label(node.id)}"
        if node.id in self.variables:
            return words(node.id)
        if node.id in self.defines:
            return self.term(self.defines[node.id], [], parent)
        return super().e_Name(node, parent)

    def e_Attr(self, node: A.Attr, parent: int) -> str:
        if isinstance(node.obj, A.Name) and node.obj.id == "option" and not self.shadowed("option"):
            option = self.options.get(node.name)
            if option is not None and option.auto is not None:
                return self.expr(option.auto, parent)
            if option is not None:
                return value_text(option.default)
        return super().e_Attr(node, parent)

    def e_Call(self, node: A.Call, parent: int) -> str:
        if node.func in self.defines and not self.shadowed(node.func):
            return self.term(self.defines[node.func], [self.expr(a, 9) for a in node.args], parent)
        return super().e_Call(node, parent)

    def term(self, d: Any, args: list[str], parent: int) -> str:
        """A definition written out with its arguments, or named when it is long (see Terms)."""
        named = f"{d.name}({', '.join(args)})" if d.params else words(d.name)
        if d.name in self.inlining or d.body is None:
            return named
        self.inlining.append(d.name)
        try:
            with self.aliased(dict(zip(d.params, args))):
                text = self.expr(d.body, parent)
        finally:
            self.inlining.pop()
        if len(text) <= _LONG_TERM:
            return text
        if d.name not in self.terms:
            self.terms.append(d.name)
        return named

    def e_BinOp(self, node: A.BinOp, parent: int) -> str:
        if node.op in ("and", "or"):
            value = self.known(node)
            if value is not UNKNOWN:
                return "true" if value else "false"
            keep = not (node.op == "or")  # the value of a side that leaves only the other
            if self.known(node.left) is not UNKNOWN and bool(self.known(node.left)) == keep:
                return self.expr(node.right, parent)
            if self.known(node.right) is not UNKNOWN and bool(self.known(node.right)) == keep:
                return self.expr(node.left, parent)
        if node.op == "==" and is_literal(node.right, 1) and isinstance(node.left, A.Call) and \
                node.left.func == "count" and node.left.args and isinstance(node.left.args[0], A.Agg):
            group = self.expr(node.left.args[0])
            if group.startswith("the players with "):
                return "exactly one player has " + group.removeprefix("the players with ")
        if node.op == "<=" and isinstance(node.left, A.Name) and node.left.id == "turn" and \
                isinstance(node.right, A.Name) and node.right.id == "num_players":
            return "this is your first turn" if self.you else "every player is on their first turn"
        return super().e_BinOp(node, parent)

    def e_Cond(self, node: A.Cond, parent: int) -> str:
        value = self.known(node.test)
        if value is not UNKNOWN:
            return self.expr(node.body if value else node.orelse, parent)
        return super().e_Cond(node, parent)

    def e_Agg(self, node: A.Agg, parent: int) -> str:
        c = node.comp
        over_players = isinstance(c.iter, A.Name) and c.iter.id == "players" and c.cond is None
        if over_players and isinstance(c.elt, A.Attr) and isinstance(c.elt.obj, A.Name) and c.elt.obj.id == c.var:
            word = {"argmax": "the players with the highest", "argmin": "the players with the lowest",
                    "max": "the highest", "min": "the lowest"}.get(node.func)
            if word:
                return f"{word} {words(c.elt.name)}"
        return super().e_Agg(node, parent)

    def e_Unary(self, node: A.Unary, parent: int) -> str:
        inner = node.operand
        if node.op == "not" and isinstance(inner, A.Agg) and inner.func == "any" and \
                not isinstance(inner.comp.elt, A.Comp):
            c = inner.comp
            with self.scope([c.var]):
                where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
                return f"{self.expr(c.elt)} for no {c.var} in {self.expr(c.iter)}{where}"
        return super().e_Unary(node, parent)

    def bindings(self, bindings: A.Bindings, each: bool = True) -> str:
        parts = []
        for b in bindings.items:
            if self.local:
                self.local[-1].add(b.var)
            text = f"{b.var} in {self.expr(b.iter)}"
            conjuncts = [c for c in _conjuncts(b.cond) if self.known(c) is UNKNOWN or not self.known(c)]
            positive = [c for c in conjuncts if not (isinstance(c, A.Unary) and c.op == "not")]
            if positive:
                text += " where " + " and ".join(self.expr(c, 2) for c in positive)
            for c in conjuncts:
                if isinstance(c, A.Unary) and c.op == "not":
                    text += f", except when {self.expr(c.operand)}"
            parts.append(text)
        return ("any " if each else "") + (", and " + ("any " if each else "each ")).join(parts)

    # ------------------------------------------------------------------ statements
    def s_Emit(self, s: A.Emit, indent: str) -> list[str]:
        return []  # announcements are for logs and screens, not rules

    def s_If(self, s: A.If, indent: str) -> list[str]:
        value = self.known(s.cond)
        if value is not UNKNOWN:
            return self.block(s.then if value else s.orelse, indent)
        then = self.block(s.then, indent + "  ")
        orelse = self.block(s.orelse, indent + "  ")
        if not then:
            return [f"{indent}- unless {self.expr(s.cond)}:"] + orelse if orelse else []
        out = [f"{indent}- if {self.expr(s.cond)}:"] + then
        return out + ([f"{indent}- otherwise:"] + orelse if orelse else [])

    def s_CallProc(self, s: A.CallProc, indent: str) -> str | list[str]:
        if not isinstance(s.target, A.Name):
            args_text = f" (for {', '.join(self.expr(a) for a in s.args)})" if s.args else ""
            return f"do what {self.expr(s.target)} says{args_text} (see Cards)"
        proc = self.procs.get(s.target.id)
        if proc is None:
            return super().s_CallProc(s, indent)
        args = [self.expr(a, 9) for a in s.args]
        named = f"{words(proc.name)}({', '.join(args)})" if args else words(proc.name)
        if proc.name in self.inlining:
            return f"do {named} again"
        self.inlining.append(proc.name)
        try:
            with self.aliased(dict(zip(proc.params, args))):
                lines = self.block(proc.body, indent)
        finally:
            self.inlining.pop()
        if self.calls.get(proc.name, 0) <= 1 or len(lines) <= _SHORT_PROCEDURE:
            return lines
        if proc.name not in self.details:
            self.details.append(proc.name)
        return f"do {named} (see Details)"

    def s_Choose(self, s: A.Choose, indent: str) -> list[str]:
        who = subject(self.expr(s.by) if s.by is not None else self.current_player())
        verb = agree(who, "chooses")
        alts = list(s.alternatives)
        if len(alts) == 1 and isinstance(alts[0], A.Alternative) and alts[0].bindings is not None:
            alt = alts[0]
            with self.scope([b.var for b in alt.bindings.items]):  # type: ignore[union-attr]
                out = [f"{indent}- {who} {verb} {self.alternative_head(alt)}:"]
                out += self.block(alt.body, indent + "  ") or [f"{indent}  - nothing happens"]
        else:
            out = [f"{indent}- {who} {verb}" + (" one of:" if len(alts) > 1 else ":")]
            for alt in alts:
                if isinstance(alt, ActionRef):
                    if alt.name in self.shown_actions:
                        out.append(f"{indent}  - **{words(alt.name)}** (as above)")
                        continue
                    self.shown_actions.add(alt.name)
                    alt = self.actions[alt.name]
                out += self.player_alternative(alt, indent + "  ")
        if s.orelse is not None:
            out.append(f"{indent}- if there is nothing to choose:")
            out += self.block(s.orelse, indent + "  ") or [f"{indent}  - nothing happens"]
        return out

    def player_alternative(self, alt: A.Alternative, indent: str) -> list[str]:
        names = [b.var for b in alt.bindings.items] if alt.bindings is not None else []
        with self.scope(names):
            head = f"{indent}- **{words(alt.action)}**"
            detail = self.alternative_head(alt)
            out = [head + (f": {detail}" if detail else "") + ":"]
            return out + (self.block(alt.body, indent + "  ") or [f"{indent}  - nothing happens"])

    def alternative_head(self, alt: A.Alternative) -> str:
        """What is chosen, when it may be, and an example of how it is shown."""
        parts = []
        if alt.bindings is not None:
            parts.append(self.bindings(alt.bindings))
        if alt.cond is not None and self.known(alt.cond) is UNKNOWN:
            parts.append(f"(only when {self.expr(alt.cond)})")
        text = " ".join(parts)
        if alt.label is not None:
            text += ("; " if text else "") + f"for example \"{self.example(alt)}\""
        return text

    # ------------------------------------------------------------------ labels as examples
    def example_cards(self) -> list[tuple[str, dict[str, Any]]]:
        cards = self.model.cards
        out: list[tuple[str, dict[str, Any]]] = []
        for entry in cards.entries if cards is not None else ():
            out += _entry_cards(entry, cards)
            if len(out) >= _EXAMPLE_CARDS:
                break
        return out

    def example(self, alt: A.Alternative) -> str:
        values: dict[str, str] = {}
        seats = iter(range(1, 1 << 16))
        for b in alt.bindings.items if alt.bindings is not None else ():
            values[b.var] = self.example_of(b, seats)
        assert alt.label is not None
        return "".join(p if isinstance(p, str) else self.example_value(p, values) for p in alt.label.parts)

    def example_of(self, binding: A.Binding, seats: Iterator[int]) -> str:
        kind = T.elem(self.type_of(binding.iter) or "") if T.is_list(self.type_of(binding.iter) or "") else \
            T.CARD if self.type_of(binding.iter) == T.ZONE else self.type_of(binding.iter)
        if kind == T.PLAYER:
            return self.seat(next(seats))
        if kind == T.CARD:
            return self.example_card(binding)
        return self.example_of_type(kind or T.ANY)

    def example_card(self, binding: A.Binding) -> str:
        for name, attrs in self.card_table:
            if _card_fits(binding.var, binding.cond, attrs):
                return name
        return self.card_table[0][0] if self.card_table else "a card"

    def seat(self, i: int) -> str:
        names = self.model.seat_names
        return names[i % len(names)] if names else f"P{i}"

    def example_of_type(self, kind: str) -> str:
        board = self.model.board
        if kind == T.PLAYER:
            return self.seat(1)
        if kind == T.list_of(T.PLAYER):
            return f"{self.seat(1)}, {self.seat(3)}"
        if kind == T.CARD:
            return self.card_table[0][0] if self.card_table else "a card"
        if kind == T.CELL and board is not None:
            return f"{chr(ord('a') + board.cols // 2)}{(board.rows + 1) // 2}"
        if kind == T.PIECE and self.model.pieces:
            return self.model.pieces[0].label
        if kind in (T.INT, T.NUM):
            return "2"
        return "…"

    def example_value(self, node: Any, values: dict[str, str]) -> str:
        """An invented value of a label's part, consistent with the examples of the choice."""
        if isinstance(node, A.Const):
            return "" if node.value is None else value_text(node.value)
        if isinstance(node, A.Name) and node.id in values:
            return values[node.id]
        if isinstance(node, A.Name) and node.id == "current":
            return self.seat(0)
        if isinstance(node, A.BinOp) and node.op == "+" and self.type_of(node) == T.STR:
            return self.example_value(node.left, values) + self.example_value(node.right, values)
        if isinstance(node, A.Cond):
            body = self.example_value(node.body, values)
            return body or self.example_value(node.orelse, values)
        if isinstance(node, A.Call) and node.func == "str" and node.args:
            return self.example_value(node.args[0], values)
        if isinstance(node, A.Attr) and node.name == "name" and self.type_of(node.obj) == T.PLAYER:
            return self.example_value(node.obj, values)
        return self.example_of_type(self.type_of(node) or T.ANY)


def _entry_cards(entry: CardEntry, cards: Any) -> list[tuple[str, dict[str, Any]]]:
    """The cards of one line of the card list: their names and attributes (at most _EXAMPLE_CARDS)."""
    attrs = {k: v for k, v, _ in entry.attrs}
    combos: list[dict[str, Any]] = [{}]
    for name, values, _ in entry.family:
        combos = [dict(c, **{name: v}) for c in combos for v in values][:_EXAMPLE_CARDS]
    out = []
    for combo in combos:
        fields = dict(attrs, **combo)
        for a in cards.attributes:
            fields.setdefault(a.name, a.default)
        out.append((_card_name(fields, cards.name_template), fields))
    return out


def _card_name(fields: dict[str, Any], template: A.Template | None) -> str:
    if isinstance(fields.get("name"), str):
        return re.sub(r"\{(\w+)\}", lambda m: value_text(fields.get(m.group(1), m.group(0))), fields["name"])
    if template is not None:
        return "".join(p if isinstance(p, str) else value_text(fields.get(p.id, "?")) if isinstance(p, A.Name) else "?"
                       for p in template.parts)
    return "a card"


def _card_fits(var: str, cond: Any, attrs: dict[str, Any]) -> bool:
    """Whether a card may be the example of ``var`` under ``cond``, read as far as it compares the
    card's own attributes with constants (anything else is taken as true)."""
    if cond is None:
        return True
    if isinstance(cond, A.BinOp) and cond.op == "and":
        return _card_fits(var, cond.left, attrs) and _card_fits(var, cond.right, attrs)
    if isinstance(cond, A.BinOp) and cond.op in ("==", "!=") and isinstance(cond.right, A.Const) and \
            isinstance(cond.left, A.Attr) and isinstance(cond.left.obj, A.Name) and cond.left.obj.id == var:
        same = attrs.get(cond.left.name) == cond.right.value
        return same if cond.op == "==" else not same
    return True


def _conjuncts(node: Any) -> list[Any]:
    """The parts of ``a and b and c``; none for no condition."""
    if node is None:
        return []
    if isinstance(node, A.BinOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _sentence(lines: list[str]) -> str:
    """Markdown list lines as one sentence: items joined by "; ", a line ending in ":" runs on."""
    text = ""
    for line in lines:
        item = line.strip().removeprefix("- ").strip()
        text += (" " if text.endswith(":") else "; " if text else "") + item
    return text
