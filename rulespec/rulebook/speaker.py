"""The rulebook's phrasing: describe's player sentences, with the engine's bookkeeping left out.

A statement that only keeps count for the engine (setting a variable, a local name, an
announcement) is not a rule a player follows and is not written. A variable's `about:` text is
the noun phrase the rules use for it ("the caller's partner"); a card's or an action's `about:`
replaces the generated account of what it does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import ast as A
from ..compiler import GameDef
from ..describe import PlayerDescriber
from ..describe.players import _entry_cards
from ..describe.text import value_text, words
from ..fold import DESCRIBE, UNKNOWN, FoldEnv
from ..model import ActionRef
from ..zones import PER_PLAYER, kind_of
from .document import Step

__all__ = ["Speaker", "sentence", "steps_of", "strip_rule_refs"]

_RULE_REF = re.compile(r"\s*\((?:R\d+[^)]*|[^)]*\bR\d+\b[^)]*)\)")


def strip_rule_refs(text: str) -> str:
    """Designer text without the spec's ruling numbers: "(R11)", "(R12; ...)"."""
    return re.sub(r"\s+([.,;:])", r"\1", _RULE_REF.sub("", text)).strip()


def sentence(text: str) -> str:
    """A line of describe as a sentence of a rulebook: a capital first letter, a full stop."""
    text = text.strip().rstrip(":").strip()
    text = re.sub(r"\byou is\b", "you are", text)
    text = re.sub(r"\byou are in the\b", "you are one of the", text)
    text = re.sub(r"\byou has\b", "you have", text)
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?)\"" else text + "."


def steps_of(lines: list[str]) -> list[Step]:
    """describe's indented "- " lines as nested steps."""
    root: list[Step] = []
    stack: list[tuple[int, list[Step]]] = [(-1, root)]
    for line in lines:
        stripped = line.lstrip(" ")
        if not stripped.startswith("- "):
            continue
        depth = len(line) - len(stripped)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        step = Step(sentence(stripped[2:]))
        stack[-1][1].append(step)
        stack.append((depth, step.children))
    _colons(root)
    return root


def _colons(steps: list[Step]) -> None:
    """A step with sub-steps ends with a colon: "With 4 players:"."""
    for step in steps:
        if step.children:
            if step.text.endswith("."):
                step.text = step.text[:-1] + ":"
            _colons(step.children)


class Speaker(PlayerDescriber):
    """describe's players' phrasing for a rulebook (see the module's docstring)."""

    def __init__(self, gamedef: GameDef, players: int | None = None, options: dict[str, Any] | None = None):
        super().__init__(gamedef)
        self.abouts = dict(self.model.abouts)
        self.players = players
        chosen = {o.name: o.default for o in self.model.options if o.auto is None}
        chosen.update(options or {})
        self.chosen = dict(options or {})  # the options the reader asked for (the rest: their defaults)
        self.defaults = FoldEnv(DESCRIBE, chosen, num_players=players)

    def about(self, key: str) -> str | None:
        text = self.abouts.get(key)
        return strip_rule_refs(text) if text else None

    # ------------------------------------------------------------------ names
    def e_Name(self, node: A.Name, parent: int) -> str:
        if node.id in ("card", "c") and self.is_local(node.id) and not (self.aliases and node.id in self.aliases[-1]) \
                and self.type_of(node) == "card":
            return "the card"
        if not (self.aliases and node.id in self.aliases[-1]) and not self.is_local(node.id) \
                and node.id in self.defines and self.about(f"define:{node.id}"):
            return self.about(f"define:{node.id}") or ""
        if not (self.aliases and node.id in self.aliases[-1]) and not self.is_local(node.id) \
                and node.id in self.variables:
            about = self.about(f"variable:{node.id}")
            if about and len(about) <= 60:
                return about
        return super().e_Name(node, parent)

    def e_Attr(self, node: A.Attr, parent: int) -> str:
        if isinstance(node.obj, A.Name) and node.obj.id == "option" and not self.shadowed("option") \
                and node.name in self.chosen:
            return value_text(self.chosen[node.name])
        if node.name in self.variables and not (isinstance(node.obj, A.Name) and node.obj.id == "option"):
            about = self.about(f"variable:{node.name}")
            if about and len(about) <= 60:
                owner = self.expr(node.obj, 9)
                mine = {"you": "your"}.get(owner)
                return f"{mine} {about.removeprefix('the ')}" if mine else f"{owner}'s {about.removeprefix('the ')}"
        return super().e_Attr(node, parent)

    @contextmanager
    def playing(self, players: int | None) -> Iterator[None]:
        """Rules read for ``players`` players (a branch on the player count)."""
        saved = self.defaults
        if players is not None:
            self.defaults = saved._replace(num_players=players)
        try:
            yield
        finally:
            self.defaults = saved

    def stmt_about(self, s: Any) -> str | None:
        span = getattr(s, "span", None)
        return self.about(f"stmt:{span.line}:{span.col}") if span is not None else None

    def stmt(self, s: Any, indent: str) -> list[str]:
        about = self.stmt_about(s)
        if about and about.endswith(":") and isinstance(s, A.If) and not s.orelse.stmts:
            return [f"{indent}- {about}"] + self.block(s.then, indent + "  ")  # a heading: the steps follow
        if about:
            return [f"{indent}- {about}"]
        return super().stmt(s, indent)

    def zone_label(self, name: str) -> str:
        """A zone that its `about:` names first ("the unused deck: ...") is called so in the rulebook (a
        zone without a label only when the name holds the zone's name)."""
        zone = self.zones[name]
        about = self.abouts.get(f"zone:{name}") or ""
        head = about.split(":", 1)[0] if ":" in about else ""
        if head.startswith("the ") and len(head) < 40 and (zone.label != zone.name or words(name) in head):
            return head[4:]
        return super().zone_label(name)

    def block(self, block: A.Block | None, indent: str = "") -> list[str]:
        if block is None:
            return []
        stmts = list(block.stmts)
        out: list[str] = []
        with self.scope(()):
            i = 0
            while i < len(stmts):
                s, after = stmts[i], stmts[i + 1] if i + 1 < len(stmts) else None
                if isinstance(s, A.Move) and s.selector == "all" and isinstance(after, A.Shuffle) \
                        and self.place(after.zone) == self.place(s.dest) and not self.stmt_about(s):
                    dealt = any(isinstance(d, A.Deal) and self.place(d.source) == self.place(s.what)
                                for d in stmts[:i])
                    of = "left in" if dealt else "of"
                    what = "all the cards" if isinstance(s.what, A.Name) and s.what.id == "cards" \
                        else f"the cards {of} {self.place(s.what)}"
                    out.append(f"{indent}- shuffle {what} into {self.place(s.dest)}{self.face(s.face)}")
                    i += 2
                    continue
                out += self.stmt(s, indent)
                i += 1
        return out

    def s_If(self, s: A.If, indent: str) -> list[str]:
        cond = s.cond
        if isinstance(cond, A.BinOp) and isinstance(cond.left, A.Name) and isinstance(cond.right, A.Const) \
                and self.known(cond) is UNKNOWN:
            n = cond.right.value
            if cond.left.id == "num_players" and cond.op == "==":
                others = [c for c in self.model.players if c != n]
                with self.playing(n):
                    then = self.block(s.then, indent + "  ")
                out = [f"{indent}- with {n} players:"] + then
                if s.orelse.stmts:
                    head = f"with {others[0]} players" if len(others) == 1 else "otherwise"
                    with self.playing(others[0] if len(others) == 1 else None):
                        out += [f"{indent}- {head}:"] + self.block(s.orelse, indent + "  ")
                return out
            if cond.left.id == "round" and (cond.op, n) in ((">", 1), (">=", 2)) and not s.orelse.stmts:
                then = self.block(s.then, indent + "  ")
                if len(then) == 1:
                    return [f"{indent}- from the second round on, {then[0].strip()[2:]}"]
                return [f"{indent}- from the second round on:"] + then
        return super().s_If(s, indent)

    def e_Agg(self, node: A.Agg, parent: int) -> str:
        comp = node.comp
        if node.func in ("any", "all") and not isinstance(comp.elt, A.Comp) and comp.cond is None \
                and isinstance(comp.iter, A.Name) and comp.iter.id == "players" and not self.is_local("players"):
            who = "a player" if node.func == "any" else "every player"
            with self.aliased({**(self.aliases[-1] if self.aliases else {}), comp.var: who}):
                return self.expr(comp.elt, parent)
        return super().e_Agg(node, parent)

    def e_Call(self, node: A.Call, parent: int) -> str:
        if node.func == "player" and len(node.args) == 1 and isinstance(node.args[0], A.Const) \
                and isinstance(node.args[0].value, int):
            return f"player {node.args[0].value + 1}"  # seats are counted from 1 in a rulebook
        if node.func in self.defines and not self.is_local(node.func):
            d = self.defines[node.func]
            phrase = self.about(f"define:{node.func}")
            if phrase:
                named = {p: self.expr(a, 9) for p, a in zip(d.params, node.args)}
                return re.sub(r"\{(\w+)\}", lambda m: named.get(m.group(1), m.group(0)), phrase)
            if d.params and len(d.params) == len(node.args):  # written out: the rulebook names no helpers
                texts = [self.expr(a, 9) for a in node.args]
                with self.aliased(dict(zip(d.params, texts))):
                    return self.expr(d.body, parent)
        return super().e_Call(node, parent)

    def _count_of(self, node: Any) -> Any:
        return node.args[0] if isinstance(node, A.Call) and node.func == "count" and len(node.args) == 1 else None

    def _setup_value(self, name: str) -> Any:
        """What a variable the match setup sets from the card list alone holds, when it can be counted."""
        for s in self.model.match.setup.stmts:
            if isinstance(s, A.Assign) and isinstance(s.target, A.Name) and s.target.id == name and s.op == "=":
                return _count_kinds(self, s.value)
        return None

    def e_BinOp(self, node: A.BinOp, parent: int) -> str:
        counted = self._count_of(node.left)
        if counted is not None and isinstance(node.right, A.Const) and (node.op, node.right.value) in \
                ((">=", 1), (">", 0)) and (isinstance(counted, A.Name) or isinstance(counted, A.Call)) \
                and getattr(counted, "id", getattr(counted, "func", None)) in self.zones:
            return f"at least one card is in {self.place(counted)}"
        if counted is not None and isinstance(node.right, A.Const) and node.op == "==" and node.right.value == 0 \
                and getattr(counted, "id", getattr(counted, "func", None)) in self.zones:
            return f"{self.place(counted)} is empty"
        if counted is not None and node.op == ">=" and isinstance(counted, A.Agg) and counted.func == "distinct" \
                and isinstance(node.right, A.Name) and node.right.id in self.variables:
            comp = counted.comp
            about = self.about(f"variable:{node.right.id}") or ""
            iter_ = getattr(comp, "iter", None)
            if about.startswith("the number of different ") and iter_ is not None:
                n = self._setup_value(node.right.id)
                what = about[len("the number of different "):]
                return f"{self.place(iter_)} holds at least one of each of the {str(n) + ' ' if n else ''}{what}"
        if node.op in ("==", "!=") and isinstance(node.left, A.Name) and isinstance(node.right, A.Const) \
                and node.right.value is None and node.left.id in self.variables \
                and (self.about(f"variable:{node.left.id}") or "").startswith("the "):
            about = self.about(f"variable:{node.left.id}") or ""
            return f"there is {'a' if node.op == '!=' else 'no'} {about[4:]}"
        if node.op in ("==", "!=") and isinstance(node.left, A.Attr) and isinstance(node.right, A.Const) \
                and isinstance(node.right.value, str) and self.type_of(node.left.obj) == "card":
            card = self.expr(node.left.obj, 9)
            card = "the card" if card in ("card", "c") else card
            verb = "is" if node.op == "==" else "is not"
            article = "an" if node.right.value[:1].lower() in "aeiou" else "a"
            return f"{card} {verb} {article} {node.right.value} card"
        return super().e_BinOp(node, parent)

    # ------------------------------------------------------------------ bookkeeping left out
    def s_Assign(self, s: A.Assign, indent: str) -> Any:
        target = s.target
        if isinstance(target, A.Name) and target.id == "dealer":
            value = s.value
            if isinstance(value, A.Call) and value.func in ("left", "right") and len(value.args) == 1:
                return f"the deal passes to the {value.func}"
            return []
        if isinstance(target, A.Attr) and target.name == "score":
            who = self.expr(target.obj, 9)
            if s.op == "=":
                return f"{who} {'score' if who == 'you' else 'scores'} {self.expr(s.value)} this round"
            if s.op == "+=":
                return f"{who} {'score' if who == 'you' else 'scores'} {self.expr(s.value)} more"
            return super().s_Assign(s, indent)
        return []  # a variable the engine keeps: bookkeeping, not a rule

    def s_Move(self, s: A.Move, indent: str) -> str:
        dest = s.dest
        zone = self.zones.get(dest.func) if isinstance(dest, A.Call) else None
        if zone is not None and s.selector not in ("all", "top", "bottom", "random") and zone.face == "down" \
                and kind_of(zone) is PER_PLAYER and dest.args and self.expr(dest.args[0]) == "you":  # type: ignore[union-attr]
            return f"put {self.expr(s.what)} face down in front of you"
        return super().s_Move(s, indent)

    def s_Deal(self, s: A.Deal, indent: str) -> str:
        zone = self.zones.get(s.family)
        if zone is not None and kind_of(zone).located:
            count = "1 card" if isinstance(s.count, A.Const) and s.count.value == 1 else f"{self.expr(s.count)} cards"
            face = f" face {zone.face}" if zone.face in ("up", "down") else ""
            return f"deal {count}{face} from {self.place(s.source)} onto every space of the board"
        return super().s_Deal(s, indent)

    def s_Let(self, s: A.Let, indent: str) -> Any:
        if self.local:
            self.local[-1].add(s.name)
        return []

    def s_Remove(self, s: A.Remove, indent: str) -> Any:
        return []  # pieces come off the board only to be set up again

    def s_For(self, s: A.For, indent: str) -> list[str]:
        body = s.body.stmts
        if len(body) == 1 and isinstance(body[0], A.Remove):
            return []
        if len(body) == 1 and isinstance(body[0], A.Move) and isinstance(body[0].dest, A.Attr) \
                and body[0].dest.name == "start":
            return [f"{indent}- put every player's pieces on their starting spaces (see the board)."]
        return super().s_For(s, indent)

    def s_While(self, s: A.While, indent: str) -> list[str]:
        return [f"{indent}- as long as {self.expr(s.cond)}:"] + self.block(s.body, indent + "  ")

    def s_Repeat(self, s: A.Repeat, indent: str) -> list[str]:
        return [f"{indent}- repeat until {self.expr(s.until)}:"] + self.block(s.body, indent + "  ")

    # ------------------------------------------------------------------ actions in words
    def player_alternative(self, alt: A.Alternative, indent: str) -> list[str]:
        about = self.about(f"action:{alt.action}")
        if about:
            name, about = action_heading(alt.action, about)
            return [f"{indent}- **{name}**: {about}"]
        return super().player_alternative(alt, indent)

    def s_Choose(self, s: A.Choose, indent: str) -> list[str]:
        alts = list(s.alternatives)
        if len(alts) == 1 and isinstance(alts[0], A.Alternative):
            about = self.about(f"action:{alts[0].action}")
            if about:
                alt = alts[0]
                names = [b.var for b in alt.bindings.items] if alt.bindings is not None else []
                with self.scope(names):
                    return [f"{indent}- {about}"] + self.block(alt.body, indent + "  ")
        if alts and all(isinstance(a, (A.Alternative, ActionRef)) for a in alts) and len(alts) > 1:
            out = [f"{indent}- choose one of:"]
            for alt in alts:
                name = alt.name if isinstance(alt, ActionRef) else alt.action
                body = self.actions.get(name) if isinstance(alt, ActionRef) else alt
                if body is not None and body.cond is not None and self.known(body.cond) is False:
                    continue  # never offered with these options and this many players
                if isinstance(alt, ActionRef):
                    if name in self.shown_actions:
                        heading = action_heading(name, self.about(f"action:{name}") or "")[0]
                        out.append(f"{indent}  - **{heading}** (as above)")
                        continue
                    self.shown_actions.add(name)
                    alt = self.actions[name]
                out += self.player_alternative(alt, indent + "  ")
            return out
        return super().s_Choose(s, indent)

    def card_effect(self, attribute: str, procedure: Any) -> str:
        return super().card_effect(attribute, procedure)


def action_heading(action: str, about: str) -> tuple[str, str]:
    """An action's name in the rulebook and the rest of its `about:`: an `about:` that opens with a
    short name and a colon ("Block, then take: First move ...") names the action so; otherwise the
    action's own name."""
    head, sep, rest = about.partition(": ")
    if sep and 0 < len(head) <= 24 and head[0].isupper() and not any(ch in head for ch in ".;()") \
            and rest[:1].isupper():
        return head, rest
    return words(action).capitalize(), about


def _count_kinds(sp: Any, value: Any) -> int | None:
    """``count(distinct(c.name for c in cards if c.ATTR == 'X'))`` counted on the card list."""
    if sp.model.cards is None or not (isinstance(value, A.Call) and value.func == "count" and value.args):
        return None
    inner = value.args[0]
    if not (isinstance(inner, A.Agg) and inner.func == "distinct"):
        return None
    comp = inner.comp
    cond = getattr(comp, "cond", None)
    if not (isinstance(getattr(comp, "iter", None), A.Name) and comp.iter.id == "cards"):
        return None
    if not (isinstance(cond, A.BinOp) and cond.op == "==" and isinstance(cond.left, A.Attr)
            and isinstance(cond.right, A.Const)):
        return None
    names = {n for entry in sp.model.cards.entries for n, f in _entry_cards(entry, sp.model.cards)
             if f.get(cond.left.name) == cond.right.value}
    return len(names) or None
