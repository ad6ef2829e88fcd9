"""The checks of a spec's sections, one function per concern: requirements, limits, options,
cards, zones, board and pieces, variables, tables, defines, rankings and variants."""

from __future__ import annotations

import itertools
from typing import Any

from .. import ast as A
from .. import types as T
from ..errors import SourceSpan, did_you_mean
from ..source import Limits
from ..static import StaticEvalError, evaluate_static
from ..zones import kind_of
from .expressions import STATIC_CALLS, STATIC_NAMES, first_not_static, unknown_name
from .info import MAX_ACTIONS, Scope
from .options import default_options, option_value_error, option_value_problem, shown_value
from .statements import Checker

__all__ = ["check_requirements", "check_limits", "check_options", "check_cards", "check_zones_board_pieces",
           "check_tables", "check_variables", "check_rankings", "check_defines", "check_variants"]


def check_requirements(c: Checker) -> None:
    """`game.requires`: conditions of options and num_players; the default options must meet them."""
    for cond, message, span in c.m.requires:
        c.expect(cond, c.expr(cond, Scope({"num_players": T.INT})), T.BOOL, "a requirement")
        unknown = c.not_static(cond)
        if unknown is not None:
            c.error(unknown.span, "a requirement can only use numbers, num_players, options and defines made of "
                    f"them, not '{unknown_name(unknown)}'")
            continue
        for players in c.m.players:
            try:
                ok = evaluate_static(cond, default_options(c.m, players), players, defines=c.define_table())
            except StaticEvalError:
                break  # known only when a game is loaded
            if not ok:
                c.error(span, f"the default options break this requirement for {players} players: {message}")
                break


def check_limits(c: Checker) -> None:
    scope = Scope({"num_players": T.INT})
    c.expect(c.m.max_actions, c.expr(c.m.max_actions, scope), T.INT, "game.limits.actions")
    unknown = c.not_static(c.m.max_actions)
    if unknown is not None:
        c.error(unknown.span, "game.limits.actions can only use numbers, num_players, options and defines made of "
                f"them, not '{unknown_name(unknown)}'")
        return
    players = max(c.m.players) if c.m.players else 1
    try:
        value = evaluate_static(c.m.max_actions, default_options(c.m, players), players,
                                defines=c.define_table())
    except StaticEvalError as exc:
        if exc.definite:
            c.error(exc.span, exc.message)
        return  # otherwise it depends on options set when a game is loaded: checked then
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_ACTIONS:
        c.error(c.m.max_actions.span, f"game.limits.actions is {shown_value(value)} with the default options; "
                f"the limit is {MAX_ACTIONS}")


def check_options(c: Checker) -> None:
    for opt in c.m.options:
        if opt.type == "enum" and not opt.values:
            c.error(opt.span, f"option '{opt.name}' is an enum without values")
        for key, rule in (("min", opt.min_rule), ("max", opt.max_rule)):
            if rule is None:
                continue
            if opt.type not in ("int", "number"):
                c.error(rule[0].span, f"option '{opt.name}' is {opt.type}: only int and number options have a {key}")
            else:
                _check_option_expr(c, opt, rule[0], key, T.NUM, f"the {key} of option '{opt.name}'")
        default = opt.default
        if default == "auto":
            if opt.auto is None:
                c.error(opt.default_span, f"option '{opt.name}' has default auto but no `auto:` expression")
            else:
                _check_auto(c, opt)
            continue
        if default is None:
            c.error(opt.span, f"option '{opt.name}' needs a default")
            continue
        problem = option_value_problem(opt, default)
        if problem:
            c.error(opt.default_span, f"default of option '{opt.name}': {problem[0]}", problem[1])



def _check_auto(c: Checker, opt: Any) -> None:
    want = {"int": T.INT, "number": T.NUM, "bool": T.BOOL, "enum": T.STR}[opt.type]
    _check_option_expr(c, opt, opt.auto, "auto", want, f"the auto value of option '{opt.name}'")


def _check_option_expr(c: Checker, opt: Any, expr: Any, key: str, want: Any, what: str) -> None:
    """An option's `auto`, `min` or `max` expression: known before the game starts."""
    what_key = "`auto` value" if key == "auto" else f"`{key}`"
    hint = None
    if key != "auto":
        hint = "a bound is a number, or an expression such as `num_players // 2` or `option.NAME`"
    _check_before_the_game(c, expr, f"an option's {what_key}", "other options", hint, want, what)


def _check_before_the_game(c: Checker, expr: Any, subject: str, others: str, hint: str | None, want: Any,
                           what: str, defines: frozenset[str] = frozenset()) -> None:
    """An expression known before the game starts: it reads only num_players, options and
    the ``defines`` made of them."""
    for node in A.walk(expr):  # a name first: it says most about what the expression reads
        if isinstance(node, A.Name) and node.id not in STATIC_NAMES and node.id not in defines:
            c.error(node.span, f"{subject} can only use num_players and {others}, not '{node.id}'", hint)
            return
    for node in A.walk(expr):
        if isinstance(node, A.Call) and node.func not in STATIC_CALLS and node.func not in defines:
            c.error(node.span, f"{subject} can only use num_players, {others} and defines made of them, "
                    f"not '{node.func}(...)'", hint)
            return
    c.expect(expr, c.expr(expr, Scope({"num_players": T.INT})), want, what)


def check_cards(c: Checker) -> None:
    cards = c.m.cards
    if cards is None:
        return
    declared = {a.name: a for a in cards.attributes}
    seen: dict[str, set[str]] = {}
    for entry in cards.entries:
        for name, values, _ in entry.family:
            seen.setdefault(name, set()).update(_value_type(v) for v in values)
        for name, value, _ in entry.attrs:
            seen.setdefault(name, set()).add(_value_type(value))
    for name, kinds in seen.items():
        attr = declared.get(name)
        if attr is not None and attr.type is not None:
            want = "str" if attr.type == "procedure" else attr.type
            c.info.attr_types[name] = "procedure" if attr.type == "procedure" else want
            continue
        if len(kinds) > 1:
            c.error(cards.span, f"card attribute '{name}' mixes {' and '.join(sorted(kinds))} values",
                    "declare its type under cards.attributes")
        c.info.attr_types[name] = sorted(kinds)[0]
    for name, attr in declared.items():
        if name not in c.info.attr_types:
            c.info.attr_types[name] = attr.type or _value_type(attr.default)
    if "name" in c.info.attr_types and c.info.attr_types["name"] != T.STR:
        c.error(cards.span, "the card attribute 'name' must be text")
    c.info.attr_types.pop("name", None)
    for entry in cards.entries:
        present = {n for n, _, _ in entry.attrs} | {n for n, _, _ in entry.family}
        for name in c.info.attr_types:
            if name not in present and (declared.get(name) is None or declared[name].default is None):
                label = _entry_label(entry)
                c.error(entry.span, f"card {label} has no value for attribute '{name}'",
                        f"give it one, or declare a default under cards.attributes.{name}")
        for name, value, span in entry.attrs:
            _check_attr_value(c, declared.get(name), name, value, span)
        for name, values, span in entry.family:
            for value in values:
                _check_attr_value(c, declared.get(name), name, value, span)
    for attr in cards.attributes:
        if attr.default is not None:
            _check_attr_value(c, attr, attr.name, attr.default, attr.default_span or attr.span)
    named = any(n == "name" for e in cards.entries for n, _, _ in e.attrs + e.family)
    if cards.name_template is None and not named:
        c.error(cards.span, "cards need names",
                "give each card a `name`, or a template like `cards.name: \"{colour} {number}\"`")
    for entry in cards.entries:
        for name, value, span in entry.attrs:
            if name == "name" and isinstance(value, str) and "{" in value:
                _check_name_template(c, value, span, entry)
    if cards.name_template is not None:
        for part in cards.name_template.parts:
            if not isinstance(part, str):
                if not (isinstance(part, A.Name) and (part.id in c.info.attr_types)):
                    c.error(part.span, "a card name template can only use card attributes, like {colour}",
                            did_you_mean(getattr(part, "id", ""), c.info.attr_types))
    c.expect(cards.decks, c.expr(cards.decks, Scope({"num_players": T.INT})), T.INT, "cards.decks")
    for entry in cards.entries:
        own = {n: c.info.attr_types.get(n, T.ANY) for n, _, _ in entry.attrs + entry.family}
        for name in own:
            if own[name] == "procedure":
                own[name] = T.STR
        c.expect(entry.copies, c.expr(entry.copies, Scope({"num_players": T.INT, **own})), T.INT, "copies")
        unknown = first_not_static(entry.copies, c.static_defines(), frozenset(own))
        if unknown is not None:
            c.error(unknown.span, "copies can only use the card's attributes, numbers, num_players, options and "
                    f"defines made of them, not '{unknown_name(unknown)}'")
    for unknown in (c.not_static(cards.decks),):
        if unknown is not None:
            c.error(unknown.span, "cards.decks can only use numbers, num_players, options and defines made of them, "
                    f"not '{unknown_name(unknown)}'")
    _check_card_count(c)



def _check_card_count(c: Checker) -> None:
    """With default options and the most players, the card list must stay within the limit."""
    cards = c.m.cards
    assert cards is not None
    players = max(c.m.players) if c.m.players else 1
    options = default_options(c.m, players)
    limit = Limits.max_cards
    total = 0
    try:
        for entry in cards.entries:
            names = [n for n, _, _ in entry.family]
            constants = {n: v for n, v, _ in entry.attrs}
            combinations = 1
            for _, values, _ in entry.family:
                combinations *= len(values)
            if combinations > limit:
                c.d.limit(entry.span, f"more than {limit} cards")
                return
            for combo in itertools.product(*(values for _, values, _ in entry.family)):
                copies = evaluate_static(entry.copies, options, players, {**constants, **dict(zip(names, combo))},
                                         c.define_table())
                if not isinstance(copies, int) or isinstance(copies, bool) or copies < 0:
                    c.error(entry.copies.span, f"copies must be a whole number, not {copies!r}")
                    return
                total += copies
                if total > limit:
                    break
            if total > limit:
                c.d.limit(entry.span, f"more than {limit} cards")
                return
        decks = evaluate_static(cards.decks, options, players, defines=c.define_table())
    except StaticEvalError as exc:
        if exc.definite:
            c.error(exc.span, exc.message)
        return  # otherwise it depends on something only known when a game is loaded
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 0:
        c.error(cards.decks.span, f"cards.decks must be a whole number, not {decks!r}")
    elif total * decks > limit:
        c.d.limit(cards.decks.span, f"more than {limit} cards ({decks} decks of {total})")


def _check_name_template(c: Checker, value: str, span: SourceSpan, entry: Any) -> None:
    import re

    names = {n for n, _, _ in entry.family} | {n for n, _, _ in entry.attrs}
    for match in re.finditer(r"\{([^}]*)\}", value):
        if match.group(1) not in names:
            c.error(span, f"unknown attribute '{match.group(1)}' in card name", did_you_mean(match.group(1), names))


def _entry_label(entry: Any) -> str:
    for name, value, _ in entry.attrs:
        if name == "name":
            return f"'{value}'"
    return f"at line {entry.span.line}"


def _check_attr_value(c: Checker, attr: Any, name: str, value: Any, span: SourceSpan) -> None:
    if attr is None or attr.type is None:
        return
    if attr.type == "procedure":
        if str(value) not in c.procs:
            c.error(span, f"'{value}' is not a procedure (card attribute '{name}' names procedures)",
                    did_you_mean(str(value), c.procs))
        return
    if _value_type(value) != attr.type:
        c.error(span, f"card attribute '{name}' must be {T.describe(attr.type)}, not {value!r}")


def _value_type(value: Any) -> str:
    if isinstance(value, bool):
        return T.BOOL
    if isinstance(value, int):
        return T.INT
    return T.STR


def check_zones_board_pieces(c: Checker) -> None:
    board = c.m.board
    for key, rule in (("rows", board.rows_rule if board else None), ("cols", board.cols_rule if board else None)):
        if rule is not None:
            _check_static_size(c, rule, f"board.{key}")
    for zone in c.m.zones:
        if kind_of(zone).needs_board and c.m.board is None:
            c.error(zone.span, f"zone '{zone.name}' is per cell, but there is no `board:`")
        if zone.name in T.BUILTIN_NAMES or zone.name in T.FUNCTIONS:
            c.error(zone.span, f"'{zone.name}' is a built-in name; pick another zone name")
    for piece in c.m.pieces:
        if c.m.board is None:
            c.error(piece.span, "pieces need a `board:`")
            continue
        _check_static_size(c, piece.per_player, "per_player")
        if piece.start_when is not None:
            _check_start_pattern(c, piece)
        for count, seats, span in piece.start:
            if count not in c.m.players:
                c.error(span, f"starting cells for {count} players, but the game allows {_players_text(c.m.players)}")
            if len(seats) != count:
                plural = "s" if len(seats) != 1 else ""
                c.error(span, f"starting cells for {count} players list {len(seats)} seat{plural}")
            for seat in seats:
                for cell in seat:
                    c.check_cell_name(cell, span)


_PATTERN_FIELDS = {"c": ("row", "col", "name"), "p": ("seat",)}


def _check_start_pattern(c: Checker, piece: Any) -> None:
    """`start_when`: a condition on a cell `c` and a seat `p`, known before the game starts."""
    cond = piece.start_when
    if piece.start:
        c.error(cond.span, f"piece '{piece.name}' has both `start` and `start_when`: give one")
    c.expect(cond, c.expr(cond, Scope({"c": T.CELL, "p": T.PLAYER, "num_players": T.INT})), T.BOOL, "`start_when`")
    unknown = first_not_static(cond, c.static_defines(), frozenset(_PATTERN_FIELDS))
    if unknown is not None:
        c.error(unknown.span, "a starting pattern can only use c, p, numbers, num_players, options and defines made "
                f"of them, not '{unknown_name(unknown)}'")
        return
    for node in A.walk(cond):
        if isinstance(node, A.Attr) and isinstance(node.obj, A.Name) and node.obj.id in _PATTERN_FIELDS \
                and node.name not in _PATTERN_FIELDS[node.obj.id]:
            fields = ", ".join(f"{node.obj.id}.{f}" for f in _PATTERN_FIELDS[node.obj.id])
            c.error(node.span, f"a starting pattern can read {fields}, not '{node.obj.id}.{node.name}'")


def _check_static_size(c: Checker, expr: Any, what: str) -> None:
    """A size written as an expression: a whole number known before the game starts."""
    _check_before_the_game(c, expr, what, "options",
                           "write a number, or an expression such as `option.size` or `num_players + 4`", T.INT, what,
                           c.static_defines())


def _players_text(players: tuple[int, ...]) -> str:
    if len(players) > 2 and players == tuple(range(players[0], players[-1] + 1)):
        return f"{players[0]} to {players[-1]}"
    return " or ".join(str(p) for p in players)


def check_variables(c: Checker) -> None:
    names: dict[str, Any] = {}
    for var in c.m.variables:
        if var.name in T.BUILTIN_NAMES or var.name in c.zones or var.name in T.FUNCTIONS:
            c.error(var.span, f"variable '{var.name}' hides a built-in or zone of the same name")
        if var.per == "player" and var.name in T.PLAYER_FIELDS:
            c.error(var.span, f"'{var.name}' is a built-in player field")
        if var.visibility == "owner" and var.per != "player":
            c.error(var.span, f"variable '{var.name}' is seen by its owner only, but it belongs to no player",
                    "add `per: player`")
        names[var.name] = var
        if var.initial is not None:
            scope = Scope({"p": T.PLAYER}) if var.per == "player" else Scope()
            got = c.expr(var.initial, scope)
            c.expect(var.initial, got, T.VARIABLE_TYPES[var.type], f"the initial value of '{var.name}'")


def check_tables(c: Checker) -> None:
    """Each table: keys all texts or all whole numbers, values of one type, a name of its own."""
    for table in c.m.tables:
        if table.name in T.BUILTIN_NAMES or table.name in T.FUNCTIONS or table.name in c.zones \
                or table.name in c.variables or table.name in c.defines:
            c.error(table.span, f"table '{table.name}' hides a built-in, zone, variable or define of the same name")
        keys = {T.INT if type(k) is int else T.STR for k, _ in table.entries}
        values = {_table_value_type(v) for _, v in table.entries}
        if len(keys) > 1:
            c.error(table.span, f"table '{table.name}' mixes whole-number and text keys", "quote the numbers: '10'")
        if values == {T.INT, T.NUM}:
            values = {T.NUM}
        if len(values) > 1:
            words = " and ".join(sorted(T.describe(v) for v in values))
            c.error(table.span, f"table '{table.name}' mixes {words} values")
        c.table_types[table.name] = (keys.pop() if len(keys) == 1 else T.ANY,
                                     values.pop() if len(values) == 1 else T.ANY)


def _table_value_type(value: Any) -> str:
    if type(value) is bool:
        return T.BOOL
    if type(value) is int:
        return T.INT
    if type(value) is float:
        return T.NUM
    return T.STR


def check_defines(c: Checker) -> None:
    for define in c.m.defines:
        if define.name in T.FUNCTIONS or define.name in T.BUILTIN_NAMES:
            c.error(define.span, f"define '{define.name}' hides a built-in of the same name")
        c.unused_define(define)


def check_rankings(c: Checker) -> None:
    for ranking in c.m.rankings:
        if ranking.order not in c.info.attr_types:
            c.error(ranking.span, f"ranking '{ranking.name}' orders by unknown card attribute '{ranking.order}'",
                    did_you_mean(ranking.order, c.info.attr_types))
        elif c.info.attr_types[ranking.order] != T.INT:
            c.error(ranking.span, f"ranking '{ranking.name}' must order by a whole-number attribute")
        for cat in ranking.categories:
            if cat.same is not None and cat.same not in c.info.attr_types:
                c.error(cat.span, f"unknown card attribute '{cat.same}'", did_you_mean(cat.same, c.info.attr_types))
            if cat.kind == "run" and cat.run > ranking.size:
                c.error(cat.span, f"a run of {cat.run} is longer than the hand size {ranking.size}")



def check_variants(c: Checker) -> None:
    for case in c.m.variants:
        if case.players is not None and case.players not in c.m.players:
            allowed = _players_text(c.m.players)
            c.error(case.span, f"variant '{case.name}' has {case.players} players; the game allows {allowed}")
        for name, value in case.options:
            opt = c.options.get(name)
            if opt is None:
                c.error(case.span, f"variant '{case.name}' sets unknown option '{name}'", did_you_mean(name, c.options))
            elif value != "auto":
                error = option_value_error(opt, value)
                if error:
                    c.error(case.span, f"variant '{case.name}', option '{name}': {error}")

