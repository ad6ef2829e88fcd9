"""The document for a spec's designers: every component, option, rule and variant."""

from __future__ import annotations

from typing import Any

from .. import ast as A
from ..model import CardEntry, PhaseDef
from ..zones import kind_of
from .rules import RuleDescriber
from .text import VISIBILITY, is_literal, range_text, table_cell, value_text

__all__ = ["Describer"]

_ORDER = {"left": "to the left (to the next seat)", "right": "to the right (to the previous seat)"}


class Describer(RuleDescriber):
    """Renders one spec for its designers: every rule, as written."""

    # ================================================================== the document
    def document(self) -> str:
        m = self.model
        out: list[str] = [f"# {m.name}", ""]
        if m.description:
            out += [m.description.strip(), ""]
        out += [f"**Players:** {self.players_text()}."]
        if m.seat_names:
            out += ["", f"**Seats:** {', '.join(m.seat_names)} (in seat order)."]
        out.append("")
        for section in (self.options_section, self.cards_section, self.zones_section, self.board_section,
                        self.variables_section, self.tables_section, self.defines_section, self.rankings_section,
                        self.match_section,
                        self.round_section, self.actions_section, self.procedures_section, self.heuristic_section,
                        self.invariants_section, self.variants_section):
            lines = section()
            if lines:
                out += lines + [""]
        return "\n".join(out).rstrip() + "\n"

    def players_text(self) -> str:
        players = self.model.players
        if len(players) == 1:
            return str(players[0])
        if len(players) > 2 and players == tuple(range(players[0], players[-1] + 1)):
            return f"{players[0]} to {players[-1]}"
        return ", ".join(str(p) for p in players[:-1]) + f" or {players[-1]}"

    # ================================================================== sections
    def options_section(self) -> list[str]:
        if not self.model.options:
            return []
        out = ["## Options", "", "| option | type | default | allowed | meaning |", "|---|---|---|---|---|"]
        for o in self.model.options:
            allowed = ""
            if o.type == "bool":
                allowed = "true, false"
            elif o.values:
                allowed = ", ".join(o.values)
            elif o.min is not None or o.max is not None or o.min_rule or o.max_rule:
                low = value_text(o.min) if o.min is not None else self.expr(o.min_rule[0]) if o.min_rule else ""
                high = value_text(o.max) if o.max is not None else self.expr(o.max_rule[0]) if o.max_rule else ""
                allowed = f"{low} to {high}" if low and high else (f"at least {low}" if low else f"at most {high}")
            default = value_text(o.default)
            if o.auto is not None:
                default = f"{default} ({self.expr(o.auto)})" if default != "auto" else f"auto: {self.expr(o.auto)}"
            cells = (f"`{o.name}`", o.type, table_cell(default), table_cell(allowed), table_cell(o.description))
            out.append("| " + " | ".join(cells) + " |")
        return out

    def cards_section(self) -> list[str]:
        cards = self.model.cards
        if cards is None:
            return []
        out = self.cards_heading(cards)
        if cards.name_template is not None:
            out += [f"Cards are named \"{self.template(cards.name_template)}\".", ""]
        if cards.attributes:
            out.append("Card attributes: " + "; ".join(
                f"{a.name}" + (f" ({a.type})" if a.type else "") + (f", default {value_text(a.default)}"
                                                                 if a.default is not None else "")
                for a in cards.attributes) + ".")
            out.append("")
        out += ["| cards | copies | attributes |", "|---|---|---|"]
        for entry in cards.entries:
            out.append(self.card_row(entry))
        return out + self.deck_lines()

    def cards_heading(self, cards: Any) -> list[str]:
        """The section's title, and the number of decks when it is not one (both views)."""
        out = ["## Cards", ""]
        if not is_literal(cards.decks, 1):
            out += [f"Number of decks (copies of the whole list below): {self.expr(cards.decks)}.", ""]
        return out

    def deck_lines(self) -> list[str]:
        """The deck's total and each card's count, for each player count (with the default options)."""
        from ..deck import deck_lines

        return [line for text in deck_lines(self.model) for line in ("", text)]

    def card_row(self, entry: CardEntry) -> str:
        attrs = dict((k, v) for k, v, _ in entry.attrs)
        name = attrs.pop("name", None)
        families = []
        for fname, values, _ in entry.family:
            families.append(f"{fname} {range_text(values)}")
        count = 1
        for _, values, _ in entry.family:
            count *= len(values)
        copies = self.expr(entry.copies)
        if entry.family:
            what = (f"{name}: " if name else "") + "one for each " + " and each ".join(families)
            if count > 1:
                what += f" ({count} kinds)"
        else:
            what = str(name) if name is not None else "a card"
        attr_text = ", ".join(f"{k} {value_text(v)}" for k, v in attrs.items()) or "-"
        return f"| {table_cell(what)} | {table_cell(copies)} | {table_cell(attr_text)} |"

    def zones_section(self) -> list[str]:
        if not self.model.zones:
            return []
        out = ["## Zones", "", "| zone | one per | who sees the cards | cards lie | shown as |",
               "|---|---|---|---|---|"]
        for z in self.model.zones:
            seen = VISIBILITY.get(z.visibility, z.visibility)
            out.append(f"| `{z.name}` | {kind_of(z).described} | {seen} | face {z.face} | {table_cell(z.label)} |")
        return out

    def board_section(self) -> list[str]:
        board = self.model.board
        if board is None:
            return []
        if board.rows_rule is not None or board.cols_rule is not None:
            rows = self.expr(board.rows_rule) if board.rows_rule is not None else str(board.rows)
            cols = self.expr(board.cols_rule) if board.cols_rule is not None else str(board.cols)
            out = ["## Board", "",
                   f"A board of {rows} rows and {cols} columns (at most 26 each); cells are named by column "
                   "(a, b, ...) and row (1, 2, ...), from a1 at the bottom left."]
        else:
            last_col = chr(ord("a") + board.cols - 1)
            out = ["## Board", "",
                   f"A board of {board.rows} rows and {board.cols} columns; cells are named by column (a to "
                   f"{last_col}) and row (1 to {board.rows}), from a1 to {last_col}{board.rows}."]
        for piece in self.model.pieces:
            out += ["", f"**{piece.name}** pieces" + (f" (shown as \"{piece.label}\")" if piece.label != piece.name
                                                     else "") + f": {self.expr(piece.per_player)} per player."]
            for count, seats, _ in piece.start:
                places = "; ".join(f"{self.seat_name(i)} {', '.join(cells)}" for i, cells in enumerate(seats))
                out.append(f"- With {count} players they start on: {places}.")
        return out

    def seat_name(self, i: int) -> str:
        names = self.model.seat_names
        return names[i] if i < len(names) else f"seat {i}"

    def variables_section(self) -> list[str]:
        if not self.model.variables:
            return []
        out = ["## Variables", "", "| variable | type | one per | starts as | reset |", "|---|---|---|---|---|"]
        for v in self.model.variables:
            per = "player" if v.per == "player" else "game"
            if v.visibility == "owner":
                per += " (seen by that player only)"
            initial = self.expr(v.initial) if v.initial is not None else "none"
            reset = {"never": "never", "round": "at each round", "turn": "at each turn"}.get(v.reset, v.reset)
            out.append(f"| `{v.name}` | {v.type} | {per} | {table_cell(initial)} | {reset} |")
        return out

    def tables_section(self) -> list[str]:
        if not self.model.tables:
            return []
        out = ["## Tables", ""]
        for table in self.model.tables:
            entries = ", ".join(f"{key} → {value}" for key, value in table.entries)
            out.append(f"- **{table.name}**: {entries} (read as `{table.name}[KEY]`).")
        return out

    def defines_section(self) -> list[str]:
        if not self.model.defines:
            return []
        out = ["## Definitions", ""]
        for d in self.model.defines:
            head = f"{d.name}({', '.join(d.params)})" if d.params else d.name
            with self.scope(d.params):
                body = self.expr(d.body) if d.body is not None else "?"
            out.append(f"- **{head}** is {body}.")
        return out

    def rankings_section(self) -> list[str]:
        if not self.model.rankings:
            return []
        out = ["## Hand rankings", ""]
        for r in self.model.rankings:
            out.append(f"**{r.name}**: the best {r.size} cards, ranked by {r.order}"
                       + ("; cards beyond the hand break ties" if r.unused else "") + ". From best to worst:")
            out.append("")
            for i, c in enumerate(r.categories, 1):
                out.append(f"{i}. {c.name}: {self.category_text(c)}")
            out.append("")
        return out[:-1]

    def category_text(self, c: Any) -> str:
        if c.kind == "run":
            return f"{c.run} in sequence" + (f", all of the same {c.same}" if c.same else "")
        if c.kind == "same":
            return f"{c.count} of the same {c.same}"
        if c.kind == "kinds":
            return "groups of " + " + ".join(str(k) for k in c.kinds) + " of the same rank"
        return f"the highest {c.count} cards"

    def match_section(self) -> list[str]:
        match = self.model.match
        out = ["## The match", ""]
        if match.setup.stmts:
            out += ["**Setup** (once, before the first round):", ""] + self.block(match.setup) + [""]
        rounds = self.model.round
        if match.end_when:
            out += ["**End:** the match ends after a round when any of these holds:", ""]
            out += [f"- {self.expr(e)}" for e in match.end_when] + [""]
        elif not self.ends_game():
            out += ["**End:** the match is a single round.", ""]
        else:
            out += ["**End:** when the rules say the match ends.", ""]
        if match.winners is not None:
            out.append(f"**Winners:** {self.expr(match.winners)}.")
        else:
            out.append("**Winners:** the players with the highest total score (ties share the win).")
        if match.returns is not None:
            r = match.returns
            with self.scope(["p"]):
                value = self.expr(r.value)
            total = f", summing to {self.expr(r.sum)}" if r.sum is not None else ""
            out += ["", f"**Result of each player p** (from {self.expr(r.min)} to {self.expr(r.max)}{total}): {value}."]
        if match.report:
            out += ["", "**Reported at the end:** " + "; ".join(f"{k}: {self.expr(v)}" for k, v in match.report) + "."]
        del rounds
        return out

    def ends_game(self) -> bool:
        roots: list[Any] = [self.model.round.setup, self.model.round.scoring]
        roots += [p.turn for p in self.model.round.phases]
        roots += [p.body for p in self.model.procedures] + list(self.model.actions)
        return any(isinstance(n, A.End) and n.level == "game" for root in roots for n in A.walk(root))

    def round_section(self) -> list[str]:
        rnd = self.model.round
        out = ["## Each round", ""]
        if rnd.setup.stmts:
            out += ["**Setup:**", ""] + self.block(rnd.setup) + [""]
        single = len(rnd.phases) == 1 and rnd.phases[0].name == "main"
        for phase in rnd.phases:
            out += self.phase_lines(phase, single) + [""]
        if rnd.end_when:
            out += ["**The round also ends** at once when any of these holds:", ""]
            out += [f"- {self.expr(e)}" for e in rnd.end_when] + [""]
        if rnd.scoring.stmts:
            out += ["**Scoring** (at the end of each round):", ""] + self.block(rnd.scoring) + [""]
        if rnd.report:
            out += ["**Reported at the end of each round:**", ""]
            out += [f"- {k}: {self.expr(v)}" for k, v in rnd.report] + [""]
        return out[:-1]

    def phase_lines(self, phase: PhaseDef, single: bool) -> list[str]:
        out = [] if single else [f"### Phase {phase.name}", ""]
        first = f"{self.expr(phase.first)}" if phase.first is not None else "the player left of the dealer"
        out += [f"**Turns:** {first} plays first; then play passes {_ORDER.get(phase.order, phase.order)}.", ""]
        if phase.skip_when is not None:
            with self.scope(["p"]):
                out[-1:] = [f"Turns pass over each player p for whom {self.expr(phase.skip_when)} (the phase ends "
                            "when that holds for everyone).", ""]
        out += ["**A turn:**", ""] + self.block(phase.turn)
        if phase.end_when:
            out += ["", "The phase ends when any of these holds: " + "; ".join(self.expr(e) for e in phase.end_when)
                    + "."]
        if phase.next:
            out += ["", f"Then phase {phase.next} follows."]
        return out

    def actions_section(self) -> list[str]:
        if not self.model.actions:
            return []
        out = ["## Actions", ""]
        for alt in self.model.actions:
            out += [f"### {alt.action}", ""] + self.alternative_lines(alt) + [""]
        return out[:-1]

    def procedures_section(self) -> list[str]:
        if not self.model.procedures:
            return []
        out = ["## Procedures", ""]
        for p in self.model.procedures:
            head = f"{p.name}({', '.join(p.params)})" if p.params else p.name
            with self.scope(p.params):
                out += [f"### {head}", ""] + (self.block(p.body) or ["- nothing"]) + [""]
        return out[:-1]

    def heuristic_section(self) -> list[str]:
        if self.model.heuristic is None:
            return []
        with self.scope(["p"]):
            text = self.expr(self.model.heuristic)
        return ["## Evaluation for bots", "", f"How good a position is for player p: {text}."]

    def invariants_section(self) -> list[str]:
        if not self.model.invariants:
            return []
        out = ["## Invariants (always true)", ""]
        for inv in self.model.invariants:
            text = self.expr(inv.expr)
            out.append(f"- {inv.message}" + (f": {text}" if text != inv.message else ""))
        return out

    def variants_section(self) -> list[str]:
        if not self.model.variants:
            return []
        out = ["## Variants to test", ""]
        for v in self.model.variants:
            parts = [f"{v.players} players"] if v.players else []
            parts += [f"{k} = {value_text(val)}" for k, val in v.options]
            out.append(f"- {v.name}" + (f": {', '.join(parts)}" if parts and ', '.join(parts) != v.name else ""))
        return out
