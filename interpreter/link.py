"""Linking a checked spec for one player count and option set.

``Link`` builds the immutable tables a game runs on (cards, zones, board, pieces,
variable slots, actions), compiles every rule to closures and frame codes, and keeps
the few flow hooks (round start/end, turn start, match end). It is built once per
``Game`` and shared by all its states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T
from rulespec.compiler import GameDef
from rulespec.model import MAX_BOARD_SIDE, ProcDef, ZoneDef
from rulespec.static import StaticCell, StaticSeat, static_defines
from rulespec.zones import kind_of

from . import rng as RNG
from . import zones
from .actions import ActionTable
from .board import Board, parse_cell
from .budget import log_event, value_units
from .builtins import compile_builtin
from .cards import build_card_table
from .codegen import Codegen
from .codegen_blocks import generate_block
from .effects import compile_block_closure
from .errors import RuleError
from .expressions import compile_expr, compile_list, json_converter, type_of
from .flow import BlockCode, compile_flow, fill_block
from .fold_link import UNKNOWN
from .footprint import Watch, reads
from .limits import DEFAULT_LIMITS, RunLimits
from .ranking import Ranking
from .state import State
from .static import evaluate_static

__all__ = ["Link"]

_VISIBILITY = {"public": 0, "owner": 1, "hidden": 2, "top": 3}
MAX_PIECES = 10_000  # pieces of a game, all kinds and players together


class Link:
    def __init__(self, gamedef: GameDef, num_players: int, options: dict[str, Any], explicit_chance: bool,
                 limits: RunLimits = DEFAULT_LIMITS):
        self.gamedef = gamedef
        self.limits = limits
        self.codegen = Codegen(self)
        self.codegen.generate_block = generate_block
        self.model = gamedef.model
        self.info = gamedef.info
        self.num_players = num_players
        self.options = options
        self.explicit_chance = explicit_chance
        self.loop_limit = self.model.loop_limit
        self.static_defines = static_defines(self.model.defines)
        self.seat_names = self._seat_names()
        self.cards = build_card_table(self.model.cards, self.info.attr_types, options, num_players,
                                      self.static_defines)
        self.board = self._board()
        self._build_zones()
        self._build_pieces()
        self._build_variables()
        self.defines = {d.name: d for d in self.model.defines}
        self.tables = {t.name: dict(t.entries) for t in self.model.tables}
        self.procs: dict[str, ProcDef] = {p.name: p for p in self.model.procedures}
        self.rankings = {r.name: Ranking(r, self.cards.attrs) for r in self.model.rankings}
        self._define_bodies: dict[str, Callable[..., Any]] = {}
        self._proc_closures: dict[str, Callable[..., Any]] = {}
        self._proc_codes: dict[str, int] = {}
        self.recursive_procedures = _recursive_procedures(self.model)  # those that can call themselves
        self._compiling: set[str] = set()  # procedures whose closure is being compiled
        self.codes: list[Any] = []
        # per code, the statement index past a block's last (None for the codes of other frames,
        # whose second item need not be a number): the loop of the rules pops a frame there
        # without looking up its code. Kept by add_code and fill_block (a procedure called by a
        # name computed in play may get its code then)
        self.ends_at: list[int | None] = []
        self._compile_defines()
        self.end_watch = Watch(reads(self.model.round.end_when, self), self)
        self.end_check = self._end_check()
        self.actions = ActionTable.build(self)
        self.max_chance_outcomes = max(2, self.cards.kinds, num_players, self.board.size if self.board else 0,
                                       len(self.piece_owner))
        self._compile_initials()
        self._compile_procedures()
        self._compile_turn_start()
        self.match_code = compile_flow(self)
        self._compile_results()

    # ------------------------------------------------------------------ tables
    def _seat_names(self) -> list[str]:
        names = list(self.model.seat_names)
        return [names[i] if i < len(names) else f"P{i}" for i in range(self.num_players)]

    def _board(self) -> Board | None:
        """The board, its size evaluated for these options and this player count."""
        board = self.model.board
        if board is None:
            return None
        sides = []
        for side, rule, what in ((board.rows, board.rows_rule, "rows"), (board.cols, board.cols_rule, "columns")):
            if rule is not None:
                side = evaluate_static(rule, self.options, self.num_players, defines=self.static_defines)
                if type(side) is not int or not 1 <= side <= MAX_BOARD_SIDE:
                    raise RuleError(f"the board would have {side} {what}; it can have 1 to {MAX_BOARD_SIDE}",
                                    rule.span)
            sides.append(side)
        return Board(sides[0], sides[1])

    def _build_zones(self) -> None:
        self.zone_defs: dict[str, ZoneDef] = {}
        self.zone_base: dict[str, int] = {}
        self.zone_face: list[int] = []
        self.zone_visibility: list[int] = []
        self.zone_owner: list[int] = []
        self.zone_label: list[str] = []
        self.zone_family: list[str] = []
        for zone in self.model.zones:
            self.zone_defs[zone.name] = zone
            self.zone_base[zone.name] = len(self.zone_face)
            for owner, label in zones.instances(zone, self):
                self.zone_face.append(1 if zone.face == "up" else 0)
                self.zone_visibility.append(_VISIBILITY[zone.visibility])
                self.zone_owner.append(owner)
                self.zone_label.append(label)
                self.zone_family.append(zone.name)
        shared = [z for z in self.model.zones if kind_of(z).shared]
        if self.cards.count and not shared:
            raise RuleError("the spec has cards but no shared zone to hold them when the match starts",
                            self.model.cards.span if self.model.cards else None)
        self.start_zone = self.zone_base[shared[0].name] if shared else -1

    def _build_pieces(self) -> None:
        self.piece_owner: list[int] = []
        self.piece_kind_name: list[str] = []
        self.piece_start: list[int] = []
        self.piece_label: list[str] = []
        self.piece_kinds = {piece.name: piece.label for piece in self.model.pieces}  # kind: its label
        # "owner", "kind": the piece fields some rule sets (x.owner = p); the others keep their start
        self.piece_fields_set = frozenset(ref.name for ref in self.info.refs.values() if ref.kind == "piece_set")
        for piece in self.model.pieces:
            count = evaluate_static(piece.per_player, self.options, self.num_players,
                                    defines=self.static_defines)
            if count * self.num_players + len(self.piece_owner) > MAX_PIECES:
                raise RuleError(f"more than {MAX_PIECES} pieces ({piece.name}: {count:,} per player)", piece.span)
            starts = dict((n, seats) for n, seats, _ in piece.start)
            seats = starts.get(self.num_players)
            if piece.start_when is not None:
                seats = self._start_pattern(piece, count)
            for p in range(self.num_players):
                for k in range(count):
                    start = -1
                    if seats is not None and k < len(seats[p]):
                        start = self._start_cell(seats[p][k], piece)
                    self.piece_owner.append(p)
                    self.piece_kind_name.append(piece.name)
                    self.piece_start.append(start)
                    suffix = f" {k + 1}" if count > 1 else ""
                    self.piece_label.append(f"{self.seat_names[p]} {piece.label}{suffix}")

    def _start_pattern(self, piece: Any, count: int) -> tuple[tuple[str, ...], ...]:
        """Each seat's starting cells from the piece's `start_when` (a condition on c and p)."""
        board = self.board
        assert board is not None
        cond = piece.start_when
        taken: dict[str, int] = {}
        out: list[tuple[str, ...]] = []
        for p in range(self.num_players):
            cells = []
            for index, name in enumerate(board.names):
                row, col = divmod(index, board.cols)
                here = StaticCell(row, col, name)
                if evaluate_static(cond, self.options, self.num_players, {"c": here, "p": StaticSeat(p)},
                                   self.static_defines):
                    if name in taken:
                        raise RuleError(f"the starting pattern of {piece.name} puts a piece of seat {taken[name]} "
                                        f"and one of seat {p} on {name}", cond.span)
                    taken[name] = p
                    cells.append(name)
            if len(cells) > count:
                raise RuleError(f"the starting pattern of {piece.name} gives seat {p} {len(cells)} cells for "
                                f"{count} pieces", cond.span)
            out.append(tuple(cells))
        return tuple(out)

    def _start_cell(self, name: str, piece: Any) -> int:
        board = self.board
        assert board is not None  # the checker requires a board for pieces
        try:
            return parse_cell(name, board.rows, board.cols)
        except (ValueError, IndexError):
            raise RuleError(f"the starting cell '{name}' of {piece.name} is not on the {board.rows}x{board.cols} "
                            "board of this game", piece.span) from None

    def _build_variables(self) -> None:
        self.var_slots: dict[str, int] = {}
        self.pvar_slots: dict[str, int] = {}
        self.var_defs = [v for v in self.model.variables if v.per is None]
        self.pvar_defs = [v for v in self.model.variables if v.per == "player"]
        for i, v in enumerate(self.var_defs):
            self.var_slots[v.name] = i
        for i, v in enumerate(self.pvar_defs):
            self.pvar_slots[v.name] = i
        self.var_json = [json_converter(T.VARIABLE_TYPES[v.type], self) for v in self.var_defs]
        self.pvar_json = [json_converter(T.VARIABLE_TYPES[v.type], self) for v in self.pvar_defs]

    # ------------------------------------------------------------------ code
    def add_code(self, code: Any, entered: bool = False) -> Any:
        code.index = len(self.codes)
        self.codes.append(code)
        self.ends_at.append(code.ends_at if type(code) is BlockCode else None)
        return code.enter if entered else code.index

    def builtin(self, node: A.Call) -> Callable[[Any, dict], Any]:
        """A call of a built-in function, compiled."""
        return compile_builtin(node, self)

    def define_body(self, name: str) -> Callable[[Any, dict], Any]:
        body = self._define_bodies.get(name)
        if body is None:
            body = self.codegen.reference(self.defines[name].body)
            self._define_bodies[name] = body
        return body

    def define_fans_out(self, name: str) -> bool:
        """Does this define call other defines (so that calls to it must be paid for)?"""
        return bool(self._define_uses[name])

    def define_paid(self, name: str) -> bool:
        """Does a call of this define cost one unit of the budget: it calls other defines, and
        its body is not a constant for this game's options (both engines ask here)."""
        return self.define_fans_out(name) and not self.codegen.folds.is_constant(self.defines[name].body)

    def _compile_defines(self) -> None:
        """Every define's body, the ones it uses first: compiling a long chain of defines
        never recurses deeper than one define."""
        # (in the order the body names them, not a set's: the order defines compile in numbers
        # their generated units, which must not change from one process to the next)
        self._define_uses = {
            d.name: list(dict.fromkeys(node.id if isinstance(node, A.Name) else node.func for node in A.walk(d.body)
                                       if isinstance(node, (A.Name, A.Call)) and self.info.ref(node).kind == "define"))
            for d in self.model.defines}
        done: set[str] = set()
        for root in self._define_uses:
            todo = [root]
            queued = {root}
            while todo:
                name = todo[-1]
                waiting = [d for d in self._define_uses[name] if d not in done and d not in queued]
                if waiting:
                    todo.extend(waiting)
                    queued.update(waiting)
                    continue
                todo.pop()
                if name not in done:
                    done.add(name)
                    self.define_body(name)
                    if self.codegen.enabled:
                        self.codegen.define(name)

    def proc_closure(self, name: str) -> Callable[[Any, dict], Any]:
        fn = self._proc_closures.get(name)
        if fn is None:
            self._proc_closures[name] = _recursion_guard(name, self)  # placeholder for recursion
            self._compiling.add(name)
            fn = compile_block_closure(self.procs[name].body, self)
            self._compiling.discard(name)
            if name in self.recursive_procedures:
                fn = _depth_limited(fn, self.procs[name])
            self._proc_closures[name] = fn
        return fn

    def compiled_proc_closure(self, name: str) -> Callable[[Any, dict], Any] | None:
        """The closure of procedure ``name`` if it is compiled already (None while it is being
        compiled, or before: a call compiled then finds it when it first runs)."""
        return None if name in self._compiling else self._proc_closures.get(name)

    def proc_code(self, name: str) -> int:
        index = self._proc_codes.get(name)
        if index is None:
            proc = self.procs[name]
            code = BlockCode(proc.body.span)
            index = self.add_code(code)
            self._proc_codes[name] = index
            fill_block(code, proc.body, self)
        return index

    def _compile_procedures(self) -> None:
        from .flow import waits

        for proc in self.model.procedures:
            if waits(proc.body, self):
                self.proc_code(proc.name)
            else:
                self.proc_closure(proc.name)

    def _end_check(self) -> Callable[[State], bool] | None:
        """The round's `end_when` (generated blocks write it in line, ``codegen_blocks``). Callers
        evaluate it only when the state is ``dirty`` (a part it reads changed); when what it
        reads cannot be told, it keeps the state dirty itself."""
        conds = [compile_expr(c, self) for c in self.model.round.end_when]
        if not conds:
            return None
        if len(conds) == 1:
            only = conds[0]
            check = lambda s: bool(only(s, {}))
        else:
            check = lambda s: any(c(s, {}) for c in conds)
        if not self.end_watch.everything:
            return check

        def always(s: State) -> bool:
            s.dirty = True
            return check(s)

        return always

    def chance_outcomes_fn(self, node: A.Call) -> Callable[[State, dict], tuple[dict, dict]]:
        if node.func == "chance":
            prob = compile_expr(node.args[0], self)

            def coin(s: State, env: dict) -> tuple[dict, dict]:
                p = max(0.0, min(1.0, float(prob(s, env))))
                weights = {k: w for k, w in ((0, 1.0 - p), (1, p)) if w > 0}
                return weights, {0: False, 1: True}

            return coin
        pool = compile_list(node.args[0], self)
        t = T.elem(type_of(node.args[0], self))
        kind_of = self.cards.kind_of
        by_value = any(k == "ids" and getattr(v, "value", None) == "values" for k, v in node.kwargs)
        by_position = t not in (T.CARD, T.PLAYER, T.CELL, T.PIECE) and not by_value
        if by_position:
            # outcomes are the positions in the list: the game declares as many as the list can
            # hold when its length is known before the game starts
            self.max_chance_outcomes = max(self.max_chance_outcomes, self._static_length(node.args[0]))
        if by_value:  # outcomes are the numbers: the game declares up to the largest one
            self.max_chance_outcomes = max(self.max_chance_outcomes, self._static_largest(node.args[0]) + 1)
        span = node.span

        def pick(s: State, env: dict) -> tuple[dict, dict]:
            counts: dict[int, int] = {}
            values: dict[int, Any] = {}
            for i, x in enumerate(pool(s, env)):
                key = kind_of[x] if t == T.CARD else (i if by_position else x)
                counts[key] = counts.get(key, 0) + 1
                values.setdefault(key, x)
            if by_position and len(values) > self.max_chance_outcomes:
                raise RuleError(f"random(...) has {len(values)} outcomes here, more than the "
                                f"{self.max_chance_outcomes} the game declares: write its list so that its "
                                "length is known before the game starts (numbers, num_players, options)", span)
            if by_value:
                for x in values:
                    if type(x) is not int or not 0 <= x < self.max_chance_outcomes:
                        raise RuleError(f"random(ids='values') drew {x!r}: an outcome id is a whole number from 0 "
                                        f"to {self.max_chance_outcomes - 1}, the largest the game declares", span)
            return counts, values

        return pick

    def _static_largest(self, node: Any) -> int:
        """The largest number of a list known before the game starts; -1 when it is not known."""
        try:
            if isinstance(node, A.ListLit):
                values = [evaluate_static(i, self.options, self.num_players, defines=self.static_defines)
                          for i in node.items]
                return max((v for v in values if type(v) is int), default=-1)
            if isinstance(node, A.Call) and node.func == "range" and len(node.args) == 2:
                low, high = (evaluate_static(a, self.options, self.num_players, defines=self.static_defines)
                             for a in node.args)
                return int(high) - 1 if high > low else -1
        except RuleError:
            pass  # not known before the game starts: each draw is checked
        return -1

    def _static_length(self, node: Any) -> int:
        """The length of a list known before the game starts (a literal list, range(a, b) of
        numbers, options and num_players); 0 when it is not."""
        try:
            if isinstance(node, A.ListLit):
                return len(node.items)
            if isinstance(node, A.Call) and node.func == "range" and len(node.args) == 2:
                low, high = (evaluate_static(a, self.options, self.num_players, defines=self.static_defines)
                             for a in node.args)
                return max(0, int(high) - int(low))
        except RuleError:
            pass  # not known before the game starts: checked when it is drawn
        return 0

    # ------------------------------------------------------------------ flow hooks
    def initial_values(self, s: State) -> None:
        n = self.num_players
        s.g = [None] * len(self.var_defs)
        s.pv = [[None] * n for _ in self.pvar_defs]
        self.reset_variables(s, None)

    def reset_variables(self, s: State, scope: str | None) -> None:
        s.dirty = True
        for i, v in enumerate(self.var_defs):
            if scope == "turn" and any(slot == i for slot, _ in self._turn_resets):
                continue
            if scope is None or v.reset == scope:
                s.g[i] = self.initial_value(v, s, None)
        for i, v in enumerate(self.pvar_defs):
            if scope is None or v.reset == scope:
                column = s.pv[i]
                for p in range(self.num_players):
                    column[p] = self.initial_value(v, s, p)

    def _compile_initials(self) -> None:
        """A closure giving each variable its initial value (a fresh list for list variables)."""
        self._initials: dict[int, Callable[[State, dict], Any]] = {}
        for var in self.model.variables:
            if var.initial is None:
                self._initials[id(var)] = _default_of(var.type)
            elif T.is_list(type_of(var.initial, self)) or type_of(var.initial, self) == T.ZONE:
                self._initials[id(var)] = _fresh_list(compile_list(var.initial, self))
            else:
                self._initials[id(var)] = compile_expr(var.initial, self)

    def initial_value(self, var: Any, s: State, p: int | None) -> Any:
        """A variable's initial value (player ``p``'s, for a per-player variable)."""
        return self._initials[id(var)](s, {"p": p} if p is not None else {})

    def start_round(self, s: State) -> None:
        s.dirty = True
        s.round += 1
        s.turn = 0
        s.next_seat = -1
        s.score = [0] * self.num_players
        self.reset_variables(s, "round")
        log_event(s, {"type": "round_start", "round": s.round}, self.model.round.span, 3)

    def start_turn(self, s: State) -> None:
        if self._turn_marks:  # turn, current (just set) or a turn-scoped variable the end conditions read
            s.dirty = True
        s.turn += 1
        for slot, value in self._turn_resets:
            s.g[slot] = value
        if self._turn_resets_other:
            self.reset_variables(s, "turn")

    def end_round(self, s: State) -> None:
        s.dirty = True
        total = s.total
        for p, points in enumerate(s.score):
            total[p] += points
        event = {"type": "round_end", "round": s.round, "scores": list(s.score), "totals": list(total)}
        units = 5 + 2 * len(total)  # (budget.event_units of the above: a type, a number, two lists of numbers)
        for key, fn, conv in self._round_report:
            value = event[key] = conv(s, fn(s, {}))
            units += value_units(value)
        log_event(s, event, self.model.round.span, units)

    def finish(self, s: State) -> None:
        winners = self._winners(s)
        s.winners_ = winners
        s.returns_ = self._returns(s, winners)
        event = {"type": "match_end", "rounds": s.round, "totals": list(s.total), "winners": winners}
        units = 5 + len(s.total) + len(winners)  # (as in end_round)
        for key, fn, conv in self._match_report:
            value = event[key] = conv(s, fn(s, {"winners": winners}))
            units += value_units(value)
        log_event(s, event, self.model.match.span, units)
        s.over = True
        s.pending = None

    def turn_start(self) -> Callable[[State], None] | None:
        """What starts a turn (``start_turn``), or None when that is only counting it (``s.turn += 1``)."""
        if self._turn_marks or self._turn_resets or self._turn_resets_other:
            return self.start_turn
        return None

    def _compile_turn_start(self) -> None:
        # turn-scoped globals with constant initial values reset by plain assignment
        self._turn_resets = []
        other = False
        for i, v in enumerate(self.var_defs):
            if v.reset != "turn":
                continue
            known = UNKNOWN
            if v.initial is not None:
                compile_expr(v.initial, self)  # (its link errors, where the link raises them)
                known = self.codegen.folds.value(v.initial)
            if known is not UNKNOWN and not isinstance(known, list):
                self._turn_resets.append((i, known))
            else:
                other = True
        self._turn_resets_other = other or any(v.reset == "turn" for v in self.pvar_defs)
        # the other turn-scoped variables are reset by reset_variables, which marks the state itself
        watch = self.end_watch
        self._turn_marks = (("flow", "turn") in watch or ("flow", "current") in watch
                            or any(("var", self.var_defs[slot].name) in watch for slot, _ in self._turn_resets))

    def _compile_results(self) -> None:
        match = self.model.match
        seats = range(self.num_players)
        # the winners, sorted and each once (`best_total` finds them so)
        if match.winners is not None:
            listed = compile_list(match.winners, self)
            self._winners = lambda s: sorted(set(listed(s, {})))
        else:
            def best_total(s: State) -> list[int]:
                total = s.total
                top = max(total)
                if total.count(top) == 1:  # (one winner: no loop in Python)
                    return [total.index(top)]
                return [p for p in seats if total[p] == top]

            self._winners = best_total
        # every seat's return, in one call: the match ends once, but short games end often
        if match.returns is not None:
            value = compile_expr(match.returns.value, self)
            self._returns = self._every_return(
                lambda s, winners: [float(value(s, {"p": p, "winners": winners})) for p in seats],
                self.codegen.each_seat(match.returns.value, "p", "winners"))
            known = self.static_defines
            low = float(evaluate_static(match.returns.min, self.options, self.num_players, defines=known))
            high = float(evaluate_static(match.returns.max, self.options, self.num_players, defines=known))
            total = match.returns.sum
            if low > high:
                raise RuleError("match.returns: min is greater than max", match.returns.span)
            # a sum that is none for some options (`0 if option.x == 1 else none`): not zero-sum then
            fixed = None if total is None else evaluate_static(total, self.options, self.num_players, defines=known)
            self.utility_bounds = (low, high, None if fixed is None else float(fixed))
        else:
            self._returns = lambda s, winners: [(1.0 / len(winners)) if p in winners else 0.0 for p in seats]
            self.utility_bounds = (0.0, 1.0, 1.0)
        self.heuristics: Callable[[State, int], list[Any] | None] | None = None  # every seat's, in one call
        if self.model.heuristic is not None:
            self.heuristic = compile_expr(self.model.heuristic, self)
            self.heuristics = self.codegen.each_seat(self.model.heuristic, "p")
        else:
            self.heuristic = lambda s, e: s.total[e["p"]] + s.score[e["p"]]
        self.invariants = [(inv.message, compile_expr(inv.expr, self), inv.span) for inv in self.model.invariants]
        self._round_report = [(k, compile_expr(v, self), json_converter(type_of(v, self), self))
                              for k, v in self.model.round.report]
        self._match_report = [(k, compile_expr(v, self), json_converter(type_of(v, self), self))
                              for k, v in match.report]

    @staticmethod
    def _every_return(by_seat: Callable[[State, list[int]], list[float]],
                      every: Callable[[State, list[int]], list[float] | None] | None,
                      ) -> Callable[[State, list[int]], list[float]]:
        """The returns of every seat: the generated function ``every`` (one call), or seat by
        seat where it answers None (Python raised: ``by_seat`` words the error)."""
        if every is None:
            return by_seat

        def returns(s: State, winners: list[int]) -> list[float]:
            ops = s.ops
            values = every(s, winners)
            if values is None:
                s.ops = ops
                return by_seat(s, winners)
            return values

        return returns

    # ------------------------------------------------------------------ state
    def new_state(self, seed: int) -> State:
        s = State.__new__(State)
        s.ops = self.limits.step_ops
        s.log_size = 0
        s.dirty = True
        n = self.num_players
        count = self.cards.count
        s.zones = [[] for _ in self.zone_face]
        if count:
            s.zones[self.start_zone] = list(range(count))
        s.loc = [self.start_zone] * count
        s.face = [self.zone_face[self.start_zone] if count else 0] * count
        s.shuffled = [False] * len(self.zone_face)
        s.score = [0] * n
        s.total = [0] * n
        s.skips = [0] * n
        s.piece_cell = [-1] * len(self.piece_owner)
        s.piece_owner = list(self.piece_owner)
        s.piece_kind = list(self.piece_kind_name)
        s.cell_piece = [-1] * (self.board.size if self.board else 0)
        for x, cell in enumerate(self.piece_start):
            if cell >= 0 and s.cell_piece[cell] < 0:
                s.piece_cell[x] = cell
                s.cell_piece[cell] = x
        s.round = 0
        s.turn = 0
        s.current = 0
        s.dealer = 0
        s.next_seat = -1
        s.in_play = False
        s.ending = False
        s.stack = [[self.match_code, 0]]
        s.pending = None
        s.rng = RNG.seed_state(seed)
        s.history = []
        s.events = []
        s.over = False
        s.winners_ = []
        s.returns_ = []
        return s


def _recursive_procedures(model: Any) -> set[str]:
    """Procedures that may call themselves (dynamic calls count as calling any procedure):
    those on a cycle of the call graph, found in linear time (Tarjan's components)."""
    anyone = ""  # a node standing for "any procedure" (no procedure has an empty name)
    names = [p.name for p in model.procedures]
    known = set(names)
    calls: dict[str, list[str]] = {anyone: names}
    for proc in model.procedures:
        out: set[str] = set()
        for node in A.walk(proc.body):
            if isinstance(node, A.CallProc):
                out.add(node.target.id if isinstance(node.target, A.Name) and node.target.id in known else anyone)
            if isinstance(node, A.Choose):
                out.add(anyone)  # actions chosen inside may call anything
        calls[proc.name] = sorted(out)
    recursive: set[str] = set()
    for component in _cycles(names, calls):
        recursive.update(component)
    recursive.discard(anyone)
    return recursive


def _cycles(names: list[str], edges: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components that hold a cycle (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in names:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1 or node in edges.get(node, []):
                    found.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def _default_of(type_name: str) -> Callable[[State, dict], Any]:
    make = _DEFAULTS.get(type_name)
    if make is None:
        return lambda s, e: None
    return lambda s, e: make()


def _fresh_list(items: Callable[[State, dict], Any]) -> Callable[[State, dict], Any]:
    return lambda s, e: list(items(s, e))


def _recursion_guard(name: str, L: Link) -> Callable[[State, dict], None]:
    def later(s: State, env: dict) -> None:
        L.proc_closure(name)(s, env)

    return later


def _depth_limited(fn: Callable[[State, dict], None], proc: ProcDef) -> Callable[[State, dict], None]:
    depth = [0]

    def call(s: State, env: dict) -> None:
        if depth[0] > 200:
            raise RuleError(f"procedure '{proc.name}' calls itself more than 200 deep", proc.span)
        depth[0] += 1
        try:
            fn(s, env)
        finally:
            depth[0] -= 1

    return call


_DEFAULTS: dict[str, Callable[[], Any]] = {
    "int": lambda: 0, "number": lambda: 0, "bool": lambda: False, "str": lambda: "", "players": list,
    "cards": list,
}
