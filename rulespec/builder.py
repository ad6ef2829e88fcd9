"""The parse stage: ``build_model`` walks schema-valid data into the spec model
(``rulespec.model``), parses every rule string (collecting all syntax errors) and fills
structural defaults once; ``collect_abouts`` gathers the designer's prose (`about:`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import ast as A
from .errors import Diagnostics, SourceSpan
from .language import parse_bindings, parse_expr, parse_stmt, parse_template
from .model import (
    DEFAULT_LOOP_LIMIT,
    DEFAULT_MAX_ACTIONS,
    MAX_BOARD_SIDE,
    NOWHERE,
    ActionRef,
    AttrDef,
    BoardDef,
    CardEntry,
    CardsDef,
    CategoryDef,
    DefineDef,
    InvariantDef,
    MatchDef,
    OptionDef,
    PhaseDef,
    PieceDef,
    ProcDef,
    RankingDef,
    ReturnsDef,
    RoundDef,
    SpecModel,
    TableDef,
    VarDef,
    VariantCase,
    ZoneDef,
    table_key,
)
from .source import Limits, PosDict, key_span, span_of, value_span

__all__ = ["build_model", "collect_abouts"]


class _Builder:
    def __init__(self, diags: Diagnostics, file: str):
        self.diags = diags
        self.file = file
        self.action_texts: dict[str, str] = {}  # an action's `description:` (the first written)

    # ---- helpers
    def expr(self, container: Any, key: Any) -> A.Expr | None:
        value = container[key]
        return parse_expr(value, self.diags, value_span(container, key))

    def exprs(self, container: Any, key: Any) -> tuple[A.Expr, ...]:
        if key not in container:
            return ()
        value = container[key]
        if isinstance(value, list):
            items = [parse_expr(v, self.diags, value_span(value, i)) for i, v in enumerate(value)]
        else:
            items = [self.expr(container, key)]
        return tuple(e for e in items if e is not None)

    def const(self, value: Any, span: SourceSpan | None) -> A.Const:
        return A.Const(span or NOWHERE, value)

    def block(self, container: Any, key: Any) -> A.Block:
        if not isinstance(container, dict) or key not in container:
            return A.Block(span_of(container) or NOWHERE, ())
        items = container[key]
        span = value_span(container, key) or NOWHERE
        stmts = []
        skip = _split_items(items, self.diags) if getattr(items, "flow", False) else set()
        named: dict[str, SourceSpan] = {}
        for i, item in enumerate(items or []):
            if i in skip:
                continue
            self.statement_name(item, named)
            stmt = self.statement(item, value_span(items, i) or span)
            if stmt is not None:
                stmts.append(stmt)
        return A.Block(span, tuple(stmts))

    def statement_name(self, item: Any, named: dict[str, SourceSpan]) -> None:
        """A statement's `name` (a patch path may use it for its index) is unique in its list;
        the name itself is not part of the rule and is dropped here."""
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return
        name, span = item["name"], value_span(item, "name") or NOWHERE
        if name in named:
            first = named[name]
            self.diags.error(span, f"two statements of this list are named '{name}' (the first at line {first.line})",
                             "give each statement of a list its own name")
        else:
            named[name] = span

    def statement(self, item: Any, span: SourceSpan) -> Any:
        if isinstance(item, str):
            return parse_stmt(item, self.diags, span)
        if "do" in item and "for" not in item and "while" not in item:  # {name: ..., do: statement}
            text = item["do"]
            return parse_stmt(text, self.diags, value_span(item, "do") or span) if isinstance(text, str) else None
        if "if" in item:
            return self.if_statement(item, span)
        if "choose" in item:
            return self.choose(item, span)
        if "for" in item:
            bindings = parse_bindings(item["for"], self.diags, value_span(item, "for"))
            body = self.block(item, "do")
            return A.For(span, bindings, body) if bindings is not None else None
        if "repeat" in item:
            until = self.expr(item, "until")
            body = self.block(item, "repeat")
            return A.Repeat(span, body, until, item.get("max")) if until is not None else None
        if "while" in item:
            cond = self.expr(item, "while")
            body = self.block(item, "do")
            return A.While(span, cond, body, item.get("max")) if cond is not None else None
        if "emit" in item:
            fields = []
            payload = item.get("with") or {}
            for key, value in payload.items():
                expr = parse_expr(value, self.diags, value_span(payload, key))
                if expr is not None:
                    fields.append((str(key), expr))
            to = self.expr(item, "to") if "to" in item else None
            return A.Emit(span, str(item["emit"]), tuple(fields), to)
        return None

    def requirements(self, game: Any) -> tuple[tuple[A.Expr, str, SourceSpan], ...]:
        """``game.requires``: conditions the options and the player count must meet."""
        out = []
        items = game.get("requires") or []
        for i, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, dict) and "check" in item:
                cond = self.expr(item, "check")
                if cond is not None:
                    out.append((cond, str(item.get("message", "")), value_span(items, i) or NOWHERE))
        return tuple(out)

    def if_statement(self, item: Any, span: SourceSpan) -> A.If | None:
        """``if`` / ``then`` / ``elif`` / ``else``: each ``elif`` entry becomes an ``if`` in the
        ``else`` of the one before it, so later stages know only ``if``/``else``."""
        cond = self.expr(item, "if")
        then = self.block(item, "then")
        elifs = item.get("elif")
        branches = []
        for i, entry in enumerate(elifs if isinstance(elifs, list) else []):
            if isinstance(entry, dict):
                branches.append((value_span(elifs, i) or span, self.expr(entry, "if"), self.block(entry, "then")))
        orelse = self.block(item, "else")
        for entry_span, entry_cond, entry_then in reversed(branches):
            if entry_cond is not None:
                orelse = A.Block(entry_span, (A.If(entry_span, entry_cond, entry_then, orelse),))
        return A.If(span, cond, then, orelse) if cond is not None else None

    def alternative(self, body: Any, name: str, span: SourceSpan) -> A.Alternative:
        if isinstance(body.get("description"), str) and body["description"].strip():
            self.action_texts.setdefault(name, " ".join(body["description"].split()))
        bindings = None
        if "for" in body:
            bindings = parse_bindings(body["for"], self.diags, value_span(body, "for"))
        cond = self.expr(body, "if") if "if" in body else None
        label = None
        if "label" in body:
            label = parse_template(body["label"], self.diags, value_span(body, "label"))
        broken = "for" in body and bindings is None
        return A.Alternative(span, name, bindings, cond, label, self.block(body, "do"), broken,
                             int(body.get("priority", 0)))

    def choose(self, item: Any, span: SourceSpan) -> A.Choose:
        what = item["choose"]
        entries = what if isinstance(what, list) else [what]
        alternatives: list[Any] = []
        for i, entry in enumerate(entries):
            entry_span = value_span(what, i) if isinstance(what, list) else value_span(item, "choose")
            entry_span = entry_span or span
            if isinstance(entry, str):
                alternatives.append(ActionRef(str(entry), entry_span))
            else:
                name_span = value_span(entry, "action") or entry_span
                alternatives.append(self.alternative(entry, str(entry["action"]), name_span))
        by = self.expr(item, "by") if "by" in item else None
        orelse = self.block(item, "else") if "else" in item else None
        if isinstance(what, dict):  # an inline action may say `by:` and `else:` itself
            if by is None and "by" in what:
                by = self.expr(what, "by")
            if orelse is None and "else" in what:
                orelse = self.block(what, "else")
        return A.Choose(span, tuple(alternatives), by, orelse, item.get("prompt"))

    def report(self, container: Any, key: str) -> tuple[tuple[str, A.Expr], ...]:
        out = []
        mapping = container.get(key) or {}
        for name, value in mapping.items():
            expr = parse_expr(value, self.diags, value_span(mapping, name))
            if expr is not None:
                out.append((str(name), expr))
        return tuple(out)

    # ---- sections
    def options(self, data: Any) -> tuple[OptionDef, ...]:
        out = []
        section = data.get("options") or {}
        for name, body in section.items():
            auto = None
            if "auto" in body:
                auto = self.expr(body, "auto")
            bounds: dict[str, Any] = {}
            rules: dict[str, tuple[A.Expr, str] | None] = {}
            for key in ("min", "max"):
                value = body.get(key)
                rules[key] = None
                if isinstance(value, str):  # an expression: its value is known when a game is loaded
                    expr = self.expr(body, key)
                    value = None
                    if expr is not None:
                        rules[key] = (expr, " ".join(str(body[key]).split()))
                bounds[key] = value
            out.append(OptionDef(
                name=str(name), type=str(body["type"]), default=body.get("default"), auto=auto,
                min=bounds["min"], max=bounds["max"], values=tuple(str(v) for v in body.get("values") or ()),
                description=str(body.get("description", "")), span=key_span(section, name) or NOWHERE,
                default_span=value_span(body, "default") or key_span(section, name) or NOWHERE,
                min_rule=rules["min"], max_rule=rules["max"],
            ))
        return tuple(out)

    def cards(self, data: Any) -> CardsDef | None:
        section = data.get("cards")
        if not section:
            return None
        template = None
        if "name" in section:
            template = parse_template(section["name"], self.diags, value_span(section, "name"))
        decks = self.expr(section, "decks") if "decks" in section else None
        attributes = []
        for name, body in (section.get("attributes") or {}).items():
            attributes.append(AttrDef(str(name), body.get("type"), _plain(body.get("default")),
                                      key_span(section["attributes"], name) or NOWHERE,
                                      value_span(body, "default") if "default" in body else None))
        entries = []
        for i, entry in enumerate(section["list"]):
            span = value_span(section["list"], i) or NOWHERE
            copies = self.expr(entry, "copies") if "copies" in entry else None
            family = []
            for fname, values in (entry.get("family") or {}).items():
                fspan = value_span(entry["family"], fname) or span
                family.append((str(fname), self.family_values(values, fspan, span), fspan))
            attrs = tuple(
                (str(k), _plain(v), value_span(entry, k) or span)
                for k, v in entry.items() if k not in ("copies", "family", "about")
            )
            entries.append(CardEntry(attrs, tuple(family), copies or self.const(1, span), span))
        return CardsDef(template, decks or self.const(1, span_of(section)), tuple(attributes), tuple(entries),
                        span_of(section) or NOWHERE)

    def family_values(self, values: Any, span: SourceSpan, entry_span: SourceSpan) -> tuple[Any, ...]:
        if not isinstance(values, str):
            return tuple(_plain(v) for v in values)
        parts = [x.strip() for x in values.split("..")]
        if any(len(x.lstrip("-")) > 18 for x in parts):
            self.diags.error(span, "the numbers of a range may have at most 18 digits")
            return ()
        low, high = (int(x) for x in parts)
        if high < low:
            self.diags.error(span, f"the range '{values}' is empty", f"write the low number first: {high}..{low}")
            return ()
        if high - low + 1 > Limits.max_cards:
            self.diags.limit(entry_span, f"more than {Limits.max_cards} cards")
            return ()
        return tuple(range(low, high + 1))

    def zones(self, data: Any) -> tuple[ZoneDef, ...]:
        section = data.get("zones") or {}
        out = []
        for name, body in section.items():
            body = body or {}
            visibility = body.get("visibility", "public")
            face = body.get("face", "down" if visibility == "hidden" else "up")
            out.append(ZoneDef(str(name), body.get("per"), str(visibility), str(face), str(body.get("label", name)),
                               key_span(section, name) or NOWHERE))
        return tuple(out)

    def board(self, data: Any) -> BoardDef | None:
        section = data.get("board")
        if not section:
            return None
        sizes: dict[str, int] = {}
        rules: dict[str, Any] = {}
        for key in ("rows", "cols"):
            value = section[key]
            if isinstance(value, str):  # an expression: its value is known when a game is loaded
                rules[key] = self.expr(section, key)
                sizes[key] = MAX_BOARD_SIDE
            else:
                sizes[key] = int(value)
        return BoardDef(sizes["rows"], sizes["cols"], span_of(section) or NOWHERE, rules.get("rows"),
                        rules.get("cols"))

    def pieces(self, data: Any) -> tuple[PieceDef, ...]:
        section = data.get("pieces") or {}
        out = []
        for name, body in section.items():
            body = body or {}
            per = self.expr(body, "per_player") if "per_player" in body else None
            start = []
            for count, seats in (body.get("start") or {}).items():
                if len(str(count)) > 6:  # the schema allows digits only; no game has a million seats
                    self.diags.error(key_span(body["start"], count), "starting cells for too many players")
                    continue
                start.append((int(count), tuple(tuple(str(c) for c in seat) for seat in seats),
                              value_span(body["start"], count) or NOWHERE))
            out.append(PieceDef(str(name), per or self.const(1, key_span(section, name)), tuple(start),
                                str(body.get("label", name)), key_span(section, name) or NOWHERE,
                                self.expr(body, "start_when") if "start_when" in body else None))
        return tuple(out)

    def variables(self, data: Any) -> tuple[VarDef, ...]:
        section = data.get("variables") or {}
        out = []
        for name, body in section.items():
            initial: Any = None
            if "initial" in body:
                value = body["initial"]
                if isinstance(value, list):
                    items = tuple(parse_expr(v, self.diags, value_span(value, i)) for i, v in enumerate(value))
                    initial = A.ListLit(value_span(body, "initial") or NOWHERE, tuple(i for i in items if i))
                elif value is None:
                    initial = self.const(None, value_span(body, "initial"))
                elif value == "":
                    initial = self.const("", value_span(body, "initial"))
                else:
                    initial = self.expr(body, "initial")
            out.append(VarDef(str(name), str(body["type"]), body.get("per"), initial,
                              str(body.get("reset", "never")), key_span(section, name) or NOWHERE,
                              str(body.get("visibility", "public"))))
        return tuple(out)

    def tables(self, data: Any) -> tuple[TableDef, ...]:
        section = data.get("tables") or {}
        out = []
        for name, body in section.items():
            entries = tuple((table_key(key), value) for key, value in (body or {}).items())
            out.append(TableDef(str(name), entries, key_span(section, name) or NOWHERE))
        return tuple(out)

    def defines(self, data: Any) -> tuple[DefineDef, ...]:
        section = data.get("define") or {}
        out = []
        for signature, body in section.items():
            name, params = _signature(str(signature))
            where = value_span(section, signature)
            if isinstance(body, dict):  # {value: expression, about: text}
                where, body = value_span(body, "value") or where, body.get("value")
            out.append(DefineDef(name, params, parse_expr(body, self.diags, where),
                                 key_span(section, signature) or NOWHERE))
        return tuple(out)

    def procedures(self, data: Any) -> tuple[ProcDef, ...]:
        section = data.get("procedures") or {}
        out = []
        for signature, _ in section.items():
            name, params = _signature(str(signature))
            out.append(ProcDef(name, params, self.block(section, signature), key_span(section, signature) or NOWHERE))
        return tuple(out)

    def actions(self, data: Any) -> tuple[A.Alternative, ...]:
        section = data.get("actions") or {}
        return tuple(
            self.alternative(body or {}, str(name), key_span(section, name) or NOWHERE)
            for name, body in section.items()
        )

    def rankings(self, data: Any) -> tuple[RankingDef, ...]:
        section = data.get("rankings") or {}
        out = []
        for name, body in section.items():
            categories = []
            for i, cat in enumerate(body["categories"]):
                span = value_span(body["categories"], i) or NOWHERE
                categories.append(_category(cat, span, self.diags, int(body["size"])))
            out.append(RankingDef(str(name), int(body["size"]), str(body["order"]), tuple(categories),
                                  bool(body.get("unused", True)), key_span(section, name) or NOWHERE))
        return tuple(out)

    def round(self, data: Any) -> RoundDef:
        section = data.get("round") or PosDict(span=span_of(data))
        span = span_of(section) or NOWHERE
        phases = []
        if "phases" in section:
            for i, body in enumerate(section["phases"]):
                phases.append(self.phase(body, value_span(section["phases"], i) or span))
        else:
            phases.append(self.phase(section, span, name="main"))
        return RoundDef(self.block(section, "setup"), tuple(phases), self.exprs(section, "end_when"),
                        self.block(section, "scoring"), self.report(section, "report"), span)

    def phase(self, body: Any, span: SourceSpan, name: str | None = None) -> PhaseDef:
        first = self.expr(body, "first") if "first" in body else None
        return PhaseDef(
            name=name or str(body["name"]), first=first, order=str(body.get("order", "left")),
            turn=self.block(body, "turn"),
            end_when=self.exprs(body, "end_when") if name is None else (),
            next=str(body["next"]) if name is None and "next" in body else None,
            next_span=value_span(body, "next") if "next" in body else None, span=span,
            skip_when=self.expr(body, "skip_when") if "skip_when" in body else None,
        )

    def match(self, data: Any) -> MatchDef:
        section = data.get("match") or PosDict(span=span_of(data))
        winners = self.expr(section, "winners") if "winners" in section else None
        returns = None
        if "returns" in section:
            body = section["returns"]
            value = self.expr(body, "value")
            low, high = self.expr(body, "min"), self.expr(body, "max")
            total = self.expr(body, "sum") if "sum" in body else None
            if value is not None and low is not None and high is not None:
                returns = ReturnsDef(value, low, high, total, value_span(section, "returns") or NOWHERE)
        return MatchDef(self.block(section, "setup"), self.exprs(section, "end_when"), winners, returns,
                        self.report(section, "report"), span_of(section) or NOWHERE)

    def invariants(self, data: Any) -> tuple[InvariantDef, ...]:
        out = []
        items = data.get("invariants") or []
        for i, item in enumerate(items):
            span = value_span(items, i) or NOWHERE
            if isinstance(item, dict):
                expr = self.expr(item, "check")
                message = str(item.get("message", item["check"]))
            else:
                expr = parse_expr(item, self.diags, span)
                message = str(item)
            if expr is not None:
                out.append(InvariantDef(expr, message, span))
        return tuple(out)

    def variants(self, data: Any) -> tuple[VariantCase, ...]:
        out = []
        items = data.get("variants") or []
        for i, item in enumerate(items):
            options = tuple((str(k), _plain(v)) for k, v in (item.get("options") or {}).items())
            players = item.get("players")
            name = item.get("name") or _case_name(players, options)
            out.append(VariantCase(str(name), players, options, value_span(items, i) or NOWHERE))
        return tuple(out)


def _split_items(items: Any, diags: Diagnostics) -> set[int]:
    """Items of a flow list `[a, b]` that a comma split out of a bracketed statement.

    Reports the first piece once and returns the indices to skip.
    """
    skip: set[int] = set()
    i = 0
    while i < len(items):
        item = items[i]
        if isinstance(item, str) and _open_brackets(item) > 0:
            depth = _open_brackets(item)
            j = i + 1
            while j < len(items) and isinstance(items[j], str) and depth > 0:
                depth += _open_brackets(items[j])
                j += 1
            if depth == 0 and j > i + 1:
                diags.error(value_span(items, i), "a comma inside this [ ] list cuts the statement in two",
                            "quote the whole statement, or write the list one item per line")
                skip.update(range(i, j))
                i = j
                continue
        i += 1
    return skip


def _open_brackets(text: str) -> int:
    return text.count("(") + text.count("[") - text.count(")") - text.count("]")


def _case_name(players: int | None, options: tuple[tuple[str, Any], ...]) -> str:
    parts = [f"{players}p"] if players else []
    parts += [f"{k}={v}" for k, v in options]
    return ",".join(parts) or "default"


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _signature(text: str) -> tuple[str, tuple[str, ...]]:
    if "(" not in text:
        return text, ()
    name, rest = text.split("(", 1)
    params = tuple(p.strip() for p in rest.rstrip(")").split(",") if p.strip())
    return name.strip(), params


def _category(body: Any, span: SourceSpan, diags: Diagnostics, size: int) -> CategoryDef:
    kinds = tuple(int(k) for k in body.get("kinds") or ())
    forms = [k for k in ("run", "kinds", "highest") if k in body]
    if "same" in body and "run" not in body:
        forms.append("same")
    if len(forms) != 1:
        diags.error(span, f"category '{body['name']}' needs exactly one of run, kinds, same or highest"
                    + (f" (it has {', '.join(forms)})" if forms else ""))
        kind = "highest"
    else:
        kind = forms[0]
    if kind == "kinds" and sum(kinds) > size:
        diags.error(value_span(body, "kinds") or span, f"the groups {list(kinds)} need more than {size} cards")
    count = int(body.get("count", size))
    if kind == "same" and "count" not in body:
        count = size
    return CategoryDef(
        name=str(body["name"]), kind=kind, run=int(body.get("run", 0)), same=body.get("same"),
        count=count if kind != "highest" else int(body.get("highest", size)), kinds=kinds, span=span,
    )


def build_model(data: Any, file: str, diags: Diagnostics) -> SpecModel:
    """Schema-valid data -> SpecModel; rule strings parsed, their errors collected in ``diags``."""
    b = _Builder(diags, file)
    game = data["game"]
    players_raw = game["players"]
    if isinstance(players_raw, int):
        players: tuple[int, ...] = (players_raw,)
    elif isinstance(players_raw, list):
        players = tuple(sorted(int(p) for p in players_raw))
    else:
        players = tuple(range(int(players_raw["min"]), int(players_raw["max"]) + 1))
        if not players:
            diags.error(value_span(game, "players"), "game.players: min is greater than max")
    limits = game.get("limits") or {}
    model = SpecModel(
        file=file,
        name=str(game["name"]),
        description=str(game.get("description", "")),
        players=players,
        players_span=value_span(game, "players") or NOWHERE,
        seat_names=tuple(str(s) for s in game.get("seat_names") or ()),
        keep_single_chance=bool(game.get("keep_single_chance", False)),
        requires=b.requirements(game),
        max_actions=(b.expr(limits, "actions") if "actions" in limits else None)
        or A.Const(span_of(game) or NOWHERE, DEFAULT_MAX_ACTIONS),
        max_actions_span=(value_span(limits, "actions") if "actions" in limits else span_of(game)) or NOWHERE,
        loop_limit=int(limits.get("loop", DEFAULT_LOOP_LIMIT)),
        options=b.options(data),
        cards=b.cards(data),
        zones=b.zones(data),
        board=b.board(data),
        pieces=b.pieces(data),
        variables=b.variables(data),
        defines=b.defines(data),
        tables=b.tables(data),
        procedures=b.procedures(data),
        actions=b.actions(data),
        rankings=b.rankings(data),
        match=b.match(data),
        round=b.round(data),
        invariants=b.invariants(data),
        variants=b.variants(data),
        heuristic=b.expr(data, "heuristic") if "heuristic" in data else None,
    )
    return replace(model, action_texts=tuple(b.action_texts.items()), abouts=tuple(collect_abouts(data)))


_ABOUT_STATEMENTS = ("if", "for", "while", "repeat")  # statements written as mappings, which may carry `about:`


def _prose(text: Any) -> str | None:
    return " ".join(text.split()) if isinstance(text, str) and text.strip() else None


def collect_abouts(data: Any) -> list[tuple[str, str]]:
    """Every `about:` text of a schema-valid spec, keyed as ``SpecModel.abouts`` describes."""
    out: list[tuple[str, str]] = []

    def add(key: str, body: Any) -> None:
        text = _prose(body.get("about")) if isinstance(body, dict) else None
        if text:
            out.append((key, text))

    game_about = (data.get("game") or {}).get("about")
    if isinstance(game_about, dict):
        if _prose(game_about.get("text")):
            out.append(("game", _prose(game_about.get("text")) or ""))
        for term, meaning in (game_about.get("words") or {}).items():
            if _prose(meaning):
                out.append((f"word:{term}", _prose(meaning) or ""))
    else:
        add("game", data.get("game"))
    for section, kind in (("options", "option"), ("zones", "zone"), ("pieces", "piece"), ("variables", "variable"),
                          ("rankings", "ranking")):
        for name, body in (data.get(section) or {}).items():
            add(f"{kind}:{name}", body)
            if kind == "ranking" and isinstance(body, dict):
                for cat in body.get("categories") or ():
                    if isinstance(cat, dict):
                        add(f"category:{name}:{cat.get('name')}", cat)
    for i, entry in enumerate(((data.get("cards") or {}).get("list")) or ()):
        add(f"card:{i}", entry)
    for signature, body in (data.get("define") or {}).items():
        add(f"define:{str(signature).split('(')[0].strip()}", body)
    add("match", data.get("match"))
    rnd = data.get("round") or {}
    add("round", rnd)
    for phase in rnd.get("phases") or ():
        if isinstance(phase, dict):
            add(f"phase:{phase.get('name')}", phase)
    for name, body in (data.get("actions") or {}).items():
        add(f"action:{name}", body)

    def inline(node: Any) -> None:  # inline `choose` actions and statements, wherever they are written
        if isinstance(node, dict):
            if isinstance(node.get("action"), str) and "about" in node:
                add(f"action:{node['action']}", node)
            elif "about" in node and any(k in node for k in _ABOUT_STATEMENTS) and span_of(node) is not None:
                where = span_of(node)
                add(f"stmt:{where.line}:{where.col}", node)  # type: ignore[union-attr]
            for value in node.values():
                inline(value)
        elif isinstance(node, list):
            for value in node:
                inline(value)

    inline([data.get("procedures"), data.get("actions"), rnd, data.get("match")])
    unique: dict[str, str] = {}
    for key, text in out:
        unique.setdefault(key, text)
    return list(unique.items())
