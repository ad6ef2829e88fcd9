"""Statements and expressions as English sentences: ``draw 2 from pile to hand(opp)`` reads
"draw 2 cards from the pile to opp's hand"."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .. import ast as A
from .. import types as T
from ..compiler import GameDef
from ..model import ActionRef, SpecModel
from ..zones import SHARED, kind_of
from .text import ABSOLUTE, POSSESSIVE, agree, is_literal, local_text, owned_by, possessive, subject, words

__all__ = ["RuleDescriber"]

_COMPARE = {
    "==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least",
    "in": "is in", "notin": "is not in",
}
_ARITH = {"+", "-", "*", "/", "//", "%"}
_PRECEDENCE = {"or": 1, "and": 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "notin": 4,
               "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6}
_END = {"round": "the round ends", "game": "the match ends", "turn": "the turn ends", "phase": "the phase ends"}


class RuleDescriber:
    """Renders the rules of one spec: ``expr(node)`` and ``block(block)`` render any expression or
    statements (``Describer`` adds the document around them)."""

    def __init__(self, gamedef: GameDef):
        self.gamedef = gamedef
        self.model: SpecModel = gamedef.model
        self.types = gamedef.info.types
        self.zones = {z.name: z for z in self.model.zones}
        self.options = {o.name: o for o in self.model.options}
        self.defines = {d.name: d for d in self.model.defines}
        self.procs = {p.name: p for p in self.model.procedures}
        self.actions = {a.action: a for a in self.model.actions}
        self.rankings = {r.name: r for r in self.model.rankings}
        self.variables = {v.name: v for v in self.model.variables}
        self.local: list[set[str]] = []  # names bound where the text being rendered is

    @contextmanager
    def scope(self, names: Iterable[str]) -> Iterator[None]:
        self.local.append(set(names))
        try:
            yield
        finally:
            self.local.pop()

    def is_local(self, name: str) -> bool:
        return any(name in frame for frame in self.local)

    # ================================================================== statements
    def block(self, block: A.Block | None, indent: str = "") -> list[str]:
        out: list[str] = []
        if block is None:
            return out
        with self.scope(()):
            for stmt in block.stmts:
                out += self.stmt(stmt, indent)
        return out

    def stmt(self, s: Any, indent: str) -> list[str]:
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:
            return [f"{indent}- {type(s).__name__}"]
        result = method(s, indent)
        if isinstance(result, str):
            return [f"{indent}- {result}"]
        return result

    def face(self, face: str | None) -> str:
        return f" face {face}" if face else ""

    def s_Move(self, s: A.Move, indent: str) -> str:
        dest = self.place(s.dest)
        bottom = " at the bottom" if s.bottom else ""
        what_type = self.type_of(s.what)
        if what_type == T.PIECE:
            return f"move {self.expr(s.what)} to {dest}"
        if s.selector == "all":
            if isinstance(s.what, A.Name) and s.what.id == "cards":
                return f"move all cards to {dest}{self.face(s.face)}{bottom}"
            return f"move all cards of {self.place(s.what)} to {dest}{self.face(s.face)}{bottom}"
        if s.selector in ("top", "bottom"):
            return f"move the {s.selector} card of {self.place(s.what)} to {dest}{self.face(s.face)}{bottom}"
        if s.selector == "random":
            return f"move a random card of {self.place(s.what)} to {dest}{self.face(s.face)}{bottom}"
        return f"move {self.expr(s.what)} to {dest}{self.face(s.face)}{bottom}"

    def s_Draw(self, s: A.Draw, indent: str) -> str:
        count = "a card" if s.count is None or is_literal(s.count, 1) else f"{self.expr(s.count)} cards"
        return f"draw {count} from {self.place(s.source)} to {self.place(s.dest)}{self.face(s.face)}"

    def s_Deal(self, s: A.Deal, indent: str) -> str:
        count = "1 card" if is_literal(s.count, 1) else f"{self.expr(s.count)} cards"
        zone = self.zones.get(s.family)
        name = words(s.family)
        to = (kind_of(zone) if zone is not None else SHARED).each.format(name)
        return f"deal {count} from {self.place(s.source)} to {to}{self.face(s.face)}"

    def s_Shuffle(self, s: A.Shuffle, indent: str) -> str:
        return f"shuffle {self.place(s.zone)}"

    def s_Flip(self, s: A.Flip, indent: str) -> str:
        return f"turn {self.expr(s.what)} face {s.face}"

    def s_Assign(self, s: A.Assign, indent: str) -> str:
        target = self.expr(s.target)
        value = self.expr(s.value)
        var = self.variables.get(s.target.id) if isinstance(s.target, A.Name) else None
        listy = T.is_list(self.type_of(s.target) or self.type_of(s.value) or "") or isinstance(s.value, A.ListLit) \
            or (var is not None and var.type in ("players", "cards"))
        if s.op == "+=":
            return f"add {value} to {target}"
        if s.op == "-=":
            return f"remove {value} from {target}" if listy else f"subtract {value} from {target}"
        return f"set {target} to {value}"

    def s_Let(self, s: A.Let, indent: str) -> str:
        if self.local:
            self.local[-1].add(s.name)
        return f"let {s.name} be {self.expr(s.value)}"

    def s_Emit(self, s: A.Emit, indent: str) -> str | list[str]:
        fields = ", ".join(f"{k} = {self.expr(v)}" for k, v in s.fields)
        text = f"announce {words(s.name)}" + (f" ({fields})" if fields else "")
        if s.to is not None:
            text += f", to {self.expr(s.to)} only"
        return text

    def s_End(self, s: A.End, indent: str) -> str:
        return _END.get(s.level, f"end the {s.level}")

    def s_Skip(self, s: A.Skip, indent: str) -> str:
        who = subject(self.expr(s.player))
        return f"{who} {agree(who, 'skips')} {possessive(who, 'next turn')}"

    def s_Next(self, s: A.Next, indent: str) -> str:
        who = subject(self.expr(s.player))
        return f"{who} {agree(who, 'takes')} the next turn (and play goes on from there)"

    def s_Place(self, s: A.Place, indent: str) -> str:
        owner = self.expr(s.owner)
        mine = POSSESSIVE.get(owner.lower())
        whose = f"of {ABSOLUTE.get(mine, mine + 's')}" if mine else f"of {owner}"
        return f"place a {s.kind} {whose} on {self.expr(s.cell)}"

    def s_Remove(self, s: A.Remove, indent: str) -> str:
        return f"take {self.expr(s.piece)} off the board"

    def s_CallProc(self, s: A.CallProc, indent: str) -> str | list[str]:
        if isinstance(s.target, A.Name):
            args = f"({', '.join(self.expr(a) for a in s.args)})" if s.args else ""
            see = " (see Procedures)" if s.target.id in self.procs else ""
            return f"do {s.target.id}{args}{see}"
        args = f" (with {', '.join(self.expr(a) for a in s.args)})" if s.args else ""
        return f"do the procedure named by {self.expr(s.target)}{args}"

    def s_Pass(self, s: A.Pass, indent: str) -> str:
        return "nothing happens"

    def s_If(self, s: A.If, indent: str) -> list[str]:
        out = [f"{indent}- if {self.expr(s.cond)}:"] + self.block(s.then, indent + "  ")
        if s.orelse.stmts:
            out += [f"{indent}- otherwise:"] + self.block(s.orelse, indent + "  ")
        return out

    def s_For(self, s: A.For, indent: str) -> list[str]:
        with self.scope(b.var for b in s.bindings.items):
            return [f"{indent}- for each {self.bindings(s.bindings, each=False)}:"] + self.block(s.body, indent + "  ")

    def s_Repeat(self, s: A.Repeat, indent: str) -> list[str]:
        limit = f" (at most {s.max} times)" if s.max else ""
        return ([f"{indent}- repeat{limit}:"] + self.block(s.body, indent + "  ")
                + [f"{indent}  until {self.expr(s.until)}"])

    def s_While(self, s: A.While, indent: str) -> list[str]:
        limit = f" (at most {s.max} times)" if s.max else ""
        return [f"{indent}- while {self.expr(s.cond)}{limit}:"] + self.block(s.body, indent + "  ")

    def s_Choose(self, s: A.Choose, indent: str) -> list[str]:
        who = subject(self.expr(s.by) if s.by is not None else self.current_player())
        if len(s.alternatives) == 1:
            head = f"{indent}- {who} {agree(who, 'chooses')}"
        else:
            head = f"{indent}- {who} {agree(who, 'chooses')} one of"
        if s.prompt:
            head += f" (\"{s.prompt}\")"
        out = [head + ":"]
        for alt in s.alternatives:
            if isinstance(alt, ActionRef):
                out.append(f"{indent}  - the action **{alt.name}** (see Actions)")
            else:
                out.append(f"{indent}  - **{alt.action}**:")
                out += self.alternative_lines(alt, indent + "    ")
        if s.orelse is not None:
            out.append(f"{indent}- if there is nothing to choose:")
            out += self.block(s.orelse, indent + "  ") or [f"{indent}  - nothing happens"]
        return out

    def alternative_lines(self, alt: A.Alternative, indent: str = "") -> list[str]:
        names = [b.var for b in alt.bindings.items] if alt.bindings is not None else []
        with self.scope(names):
            return self._alternative_lines(alt, indent)

    def _alternative_lines(self, alt: A.Alternative, indent: str) -> list[str]:
        out = []
        if alt.bindings is not None:
            out.append(f"{indent}- **Choice:** {self.bindings(alt.bindings)}")
        if alt.cond is not None:
            out.append(f"{indent}- **Allowed when:** {self.expr(alt.cond)}")
        if alt.priority:
            out.append(f"{indent}- **Priority:** {alt.priority} (a choice offers only the actions of the highest "
                       "priority that has options)")
        if alt.label is not None:
            out.append(f"{indent}- **Shown as:** \"{self.template(alt.label)}\"")
        if alt.body.stmts:
            out.append(f"{indent}- **Effect:**")
            out += self.block(alt.body, indent + "  ")
        else:
            out.append(f"{indent}- **Effect:** nothing")
        return out

    # ================================================================== expressions
    def type_of(self, node: Any) -> str | None:
        return self.types.get(id(node))

    def bindings(self, bindings: A.Bindings, each: bool = True) -> str:
        parts = []
        for b in bindings.items:
            if self.local:
                self.local[-1].add(b.var)
            text = f"{b.var} in {self.expr(b.iter)}"
            if b.cond is not None:
                text += f" where {self.expr(b.cond)}"
            parts.append(text)
        return ("any " if each else "") + (", and " + ("any " if each else "each ")).join(parts)

    def template(self, template: A.Template) -> str:
        out = []
        for part in template.parts:
            out.append(part if isinstance(part, str) else "{" + self.expr(part) + "}")
        return "".join(out)

    def place(self, node: Any) -> str:
        """A zone (or cards) written as a place: "the pile", "opp's hand", "the square at c3"."""
        if isinstance(node, A.Name) and node.id in self.zones:
            return f"the {words(node.id)}"
        if isinstance(node, A.Call) and node.func in self.zones and node.args:
            zone = self.zones[node.func]
            owner = node.args[0]
            if kind_of(zone).located:
                return f"the {words(node.func)} at {self.expr(owner)}"
            return owned_by(self.expr(owner), words(node.func))
        return self.expr(node)

    def expr(self, node: Any, parent: int = 0) -> str:
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            return str(node)
        return method(node, parent)

    def e_Const(self, node: A.Const, parent: int) -> str:
        v = node.value
        if isinstance(v, str):
            return f"'{v}'"
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    _NAMES = {
        "current": "the current player", "players": "the players", "cards": "all cards", "cells": "the cells",
        "dealer": "the dealer", "round": "the round number", "turn": "the turn number",
        "num_players": "the number of players",
    }

    def current_player(self) -> str:
        return "the current player"

    def e_Name(self, node: A.Name, parent: int) -> str:
        if self.is_local(node.id):
            return local_text(node.id)
        if node.id == "current":
            return self.current_player()
        if node.id in self.zones:
            return f"the {words(node.id)}"
        if node.id in self.variables or node.id in self.defines:
            return node.id
        return self._NAMES.get(node.id, node.id)

    def e_Attr(self, node: A.Attr, parent: int) -> str:
        if isinstance(node.obj, A.Name) and node.obj.id == "option" and not self.is_local("option"):
            return f"option {node.name}"
        return owned_by(self.expr(node.obj, 9), words(node.name))

    def e_Index(self, node: A.Index, parent: int) -> str:
        return f"{self.expr(node.obj, 9)}[{self.expr(node.index)}]"

    def e_Call(self, node: A.Call, parent: int) -> str:
        if node.func == "count" and len(node.args) == 1 and isinstance(node.args[0], A.Agg) \
                and node.args[0].func == "distinct":
            comp = node.args[0].comp
            elt = comp.elt
            if isinstance(elt, A.Attr) and isinstance(elt.obj, A.Name) and elt.obj.id == comp.var:
                with self.scope([comp.var]):
                    where = f" where {self.expr(comp.cond)}" if comp.cond is not None else ""
                where = re.sub(rf"\b{re.escape(comp.var)}'s\b", "the card's", where)
                what = "cards" if elt.name == "name" else f"{words(elt.name)}s among the cards"
                return f"the number of different {what} in {self.place(comp.iter)}{where}"
        f = node.func
        args = node.args
        a = [self.expr(x, 9) for x in args]
        if f in self.zones:
            return self.place(node)
        if f in self.defines or f in self.procs:
            return f"{f}({', '.join(self.expr(x) for x in args)})"
        one = a[0] if a else ""
        if f == "count" and args and isinstance(args[0], A.Agg) and args[0].func == "distinct":
            c = args[0].comp
            with self.scope([c.var]):
                where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
                return f"the number of different {self.expr(c.elt)} for each {c.var} in {self.expr(c.iter)}{where}"
        if f == "count":
            t = self.type_of(args[0]) if args else None
            if t == T.ZONE or (isinstance(args[0], A.Name) and args[0].id in self.zones) or \
                    (isinstance(args[0], A.Call) and args[0].func in self.zones):
                return f"the number of cards in {self.place(args[0])}"
            return f"the number of {one}"
        if f in ("max", "min"):
            word = "highest" if f == "max" else "lowest"
            if len(a) == 2:
                return f"the {'larger' if f == 'max' else 'smaller'} of {a[0]} and {a[1]}"
            return f"the {word} of {one}"
        simple = {
            "sum": "the sum of {0}", "any": "any of {0} is true", "all": "all of {0} are true",
            "distinct": "the distinct items of {0}", "first": "the first of {0}", "last": "the last of {0}",
            "left": "the player to the left of {0}", "right": "the player to the right of {0}",
            "others": "the players other than {0}", "seats_from": "every player starting with {0} and going left",
            "player": "the player in seat {0}", "piece_at": "the piece on {0}",
            "empty_cells": "the empty cells",
            "str": "{0} as text", "int": "{0} as a whole number", "abs": "the absolute value of {0}",
            "chance": "true with probability {0}", "random": "a random one of {0}",
        }
        if f in simple:
            return simple[f].format(*a)
        if f == "start_cells":
            return f"the starting cells of {owned_by(one, 'pieces')}"
        if f in ("top", "bottom"):
            return f"the {f} card of {self.place(args[0])}"
        if f == "nth":
            return f"the card {a[1]} below the top of {self.place(args[0])}"
        if f == "pieces":
            kind = f" of kind {a[1]}" if len(a) > 1 else ""
            return owned_by(one, "pieces") + kind
        if f == "slides":
            opts = {k: self.expr(v) for k, v in node.kwargs}
            dirs = opts.get("dirs", "'orthogonal'").strip("'")
            limit = f", at most {opts['max']} steps" if "max" in opts else ""
            return f"the cells {one} can reach moving in a straight {dirs} line without passing a piece{limit}"
        if f == "cell":
            return f"cell {one}" if len(a) == 1 else f"the cell at row {a[0]}, column {a[1]}"
        if f == "line":
            return f"{one} {agree(subject(one), 'has')} {a[1]} pieces in a straight line"
        if f in ("neighbours", "connected", "group"):
            dirs = dict((k, self.expr(v)) for k, v in node.kwargs).get("dirs", "'orthogonal'").strip("'")
            if f == "neighbours":
                return f"the cells next to {one} ({dirs})"
            if f == "group":
                return f"the cells of {a[1]} linked to {one} ({dirs} neighbours)"
            return f"a cell of {a[1]} is linked to a cell of {a[2]} through {one} ({dirs} neighbours)"
        if f == "directions":
            return f"the {one.strip(chr(39))} directions"
        if f == "ray":
            return f"the cells from {one} in steps of ({a[1]}, {a[2]}) up to the edge or the first piece"
        if f == "range":
            return f"the whole numbers from {a[0]} to {a[1]} - 1"
        if f in ("hand_value", "best_cards", "category", "hand_score"):
            cards = self.place(args[1]) if len(args) > 1 else "?"
            what = {"hand_value": "the value of the best {r} hand in {c}", "best_cards": "the best {r} hand in {c}",
                    "category": "the {r} category of the best hand in {c}",
                    "hand_score": "the {r} strength of the best hand in {c}"}[f]
            return what.format(r=self.expr(args[0]).strip("'"), c=cards)
        if f == "dict":
            return "a record of " + ", ".join(f"{k} = {self.expr(v)}" for k, v in node.kwargs)
        kwargs = [f"{k}={self.expr(v)}" for k, v in node.kwargs]
        return f"{f}({', '.join(a + kwargs)})"

    def comp(self, comp: A.Comp) -> str:
        text = f"for each {comp.var} in {self.expr(comp.iter)}"
        if comp.cond is not None:
            text += f" where {self.expr(comp.cond)}"
        if isinstance(comp.elt, A.Comp):
            with self.scope([comp.elt.var]):
                text += ", " + self.comp(comp.elt)
        return text

    def innermost(self, comp: A.Comp) -> Any:
        """The element of a comprehension, after all its `for` clauses."""
        while isinstance(comp.elt, A.Comp):
            comp = comp.elt
        return comp.elt

    def e_Agg(self, node: A.Agg, parent: int) -> str:
        with self.scope([node.comp.var]):
            return self._agg(node)

    def clause_names(self, comp: A.Comp) -> list[str]:
        names = []
        while isinstance(comp.elt, A.Comp):
            comp = comp.elt
            names.append(comp.var)
        return names

    def _clauses(self, word: str, comp: A.Comp) -> str:
        """An aggregate or list over several `for` clauses: ``word`` of the element, then the clauses."""
        with self.scope(self.clause_names(comp)):
            elt = self.expr(self.innermost(comp))
        return f"{word} {elt}, {self.comp(comp)}"

    def _agg(self, node: A.Agg) -> str:
        c = node.comp
        if isinstance(c.elt, A.Comp):
            if node.func == "count":
                return f"the number of combinations {self.comp(c)}"
            word = { "sum": "the sum of", "max": "the highest", "min": "the lowest",
                    "any": "whether for some combination", "all": "whether for every combination",
                    "distinct": "the distinct"}.get(node.func, node.func + " of")
            return self._clauses(word, c)
        f = node.func
        if f in ("sum", "max", "min") and isinstance(c.elt, A.Attr) and isinstance(c.elt.obj, A.Name) \
                and c.elt.obj.id == c.var:
            # "the total points of the cards in your hand", not "the sum of c's points over each c in ..."
            word = {"sum": "the total", "max": "the highest", "min": "the lowest"}[f]
            where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
            return f"{word} {words(c.elt.name)} of {self.members(c.iter)}{where}"
        elt = self.expr(c.elt)
        where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
        source = f"{c.var} in {self.expr(c.iter)}{where}"
        if f == "count":
            if isinstance(c.elt, A.Name) and c.elt.id == c.var:
                return f"the number of {source}"
            return f"the number of {elt}, for each {source}"
        if f in ("sum", "max", "min"):
            word = {"sum": "the sum", "max": "the highest", "min": "the lowest"}[f]
            return f"{word} of {elt} over each {source}"
        if f == "any":
            return f"{elt} for some {source}"
        if f == "all":
            return f"{elt} for every {source}"
        if f in ("argmax", "argmin"):
            word = "highest" if f == "argmax" else "lowest"
            return f"the {c.var} in {self.expr(c.iter)}{where} with the {word} {elt.removeprefix('the ')} " \
                   "(all of them if tied)"
        if f == "distinct":
            return f"the distinct {elt} over each {source}"
        return f"{f} of {elt} over each {source}"

    def members(self, node: Any) -> str:
        """What an aggregate runs over, as a noun: "the cards in your hand", "the players"."""
        zone = (isinstance(node, A.Name) and node.id in self.zones) or \
            (isinstance(node, A.Call) and node.func in self.zones)
        if zone or self.type_of(node) in (T.ZONE, T.list_of(T.CARD)):
            return f"the cards in {self.place(node)}"
        return self.expr(node)

    def e_ListLit(self, node: A.ListLit, parent: int) -> str:
        return "[" + ", ".join(self.expr(x) for x in node.items) + "]"

    def e_ListComp(self, node: A.ListComp, parent: int) -> str:
        with self.scope([node.comp.var]):
            return self._listcomp(node)

    def _listcomp(self, node: A.ListComp) -> str:
        c = node.comp
        if isinstance(c.elt, A.Comp):
            return self._clauses("the list of", c)
        if isinstance(c.elt, A.Name) and c.elt.id == c.var:
            members = self.members(c.iter)
            if members.startswith("the cards in ") and isinstance(c.cond, A.BinOp) and c.cond.op == "!=" \
                    and isinstance(c.cond.left, A.Name) and c.cond.left.id == c.var:
                # "the cards in the pile other than the top one", not "the c in the pile where c is not ..."
                return f"{members} other than {self.expr(c.cond.right)}"
            where = f" where {self.expr(c.cond)}" if c.cond is not None else ""
            return f"the {c.var} in {self.expr(c.iter)}{where}"
        return f"the list of {self.expr(c.elt)} {self.comp(c)}"

    def e_BinOp(self, node: A.BinOp, parent: int) -> str:
        if node.op in ("==", ">", "<=") and isinstance(node.right, A.Const) and node.right.value == 0 \
                and isinstance(node.left, A.Call) and node.left.func == "count" and len(node.left.args) == 1:
            arg = node.left.args[0]
            if (isinstance(arg, A.Name) and arg.id in self.zones) or \
                    (isinstance(arg, A.Call) and arg.func in self.zones):
                return f"{self.place(arg)} is {'not ' if node.op == '>' else ''}empty"
        op = node.op
        mine = _PRECEDENCE.get(op, 3)
        left = self.expr(node.left, mine)
        right = self.expr(node.right, mine + (1 if op in _ARITH else 0))
        if op in _COMPARE:
            if isinstance(node.right, A.Const) and node.right.value is None and op in ("==", "!=") and \
                    self.type_of(node.left) == T.PLAYER:
                text = f"{left} is {'nobody' if op == '==' else 'somebody'}"
            else:
                text = f"{left} {_COMPARE[op]} {right}"
        else:
            text = f"{left} {op} {right}"
        need = parent > mine or (parent in (1, 2) and op in ("and", "or") and parent != mine)
        return f"({text})" if need else text

    def e_Unary(self, node: A.Unary, parent: int) -> str:
        if node.op == "neg":
            return f"-{self.expr(node.operand, 8)}"
        return f"not {self.expr(node.operand, 9)}"

    def e_Cond(self, node: A.Cond, parent: int) -> str:
        text = f"{self.expr(node.body, 1)} if {self.expr(node.test, 1)}, otherwise {self.expr(node.orelse, 1)}"
        return f"({text})" if parent else text
