"""Checking a saved state against its game before it is used.

A saved state (``to_json`` text, or the dict of ``to_dict``) comes from outside and is
untrusted. ``load_state`` parses it within bounds (text size, nesting depth, integer
size, no NaN), checks every field against the game's tables and rules, and raises
``StateError`` on anything a real match of this game could not have produced:

- the exact field set, each field's type and length (zones, cards, seats, variables);
- every card exactly once across the zones, ``loc`` agreeing with the zones, facing 0/1,
  only non-empty zones shuffled;
- variables by their declared type (cards, seats, cells and pieces in range), scores and
  totals finite numbers, counters non-negative, pieces and cells agreeing;
- the frame stack: code indices in range, each frame's layout valid for its code class
  (validators keyed by class below), each frame a possible child of the one below it,
  each frame's local names known to the spec, typed, and the ones its rest needs present;
- the pending decision or chance event: recomputed from the top frame with the game's
  own rules and compared (who decides, the legal ids, the outcomes and probabilities);
- the history (ids in range, within the game's length bound), the random generator
  (a 64-bit non-negative integer), the event log (JSON objects of bounded size) and the
  end of the match (over, winners, returns).

A state that passes can be observed, continued and saved like one the engine made.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from rulespec import ast as A
from rulespec import types as T

from .budget import MAX_NESTING, event_units
from .chance_codes import DealCode, DrawCode, LetChanceCode, RandomPickCode
from .codes import BlockCode, ChooseCode, ForCode, RepeatCode, WhileCode
from .errors import StateError
from .frames import (
    BIG,
    CODE,
    DEAL_SRC,
    DRAW_MODE,
    DRAW_SRC,
    ENV,
    MAX_FRAMES,
    PC,
    PENDING,
    PENDING_CODE,
    STAGE,
    IfEntry,
    Invalid,
    is_int,
    short,
)
from .run_loop import MatchCode, PhaseCode, RoundCode
from .state import _FIELDS, _FORMAT, CHANCE, GameLike, Pending, State

__all__ = ["load_state", "parse_state_text", "check_state_data", "MAX_STATE_CHARS", "MAX_DEPTH"]

MAX_STATE_CHARS = 32_000_000  # characters of a saved state's text
MAX_DEPTH = MAX_NESTING + 8  # nesting of any value inside a state: what the rules may keep, and its container
_U64 = 1 << 64
_KEYS = frozenset(_FIELDS) | {"format", "game"}


_Bad = Invalid  # raised inside the checks (and by the checks of frames); turned into one ``StateError``


# ====================================================================== entry points


def parse_state_text(text: Any) -> Any:
    """JSON text to plain data, bounded: size, depth, integer size, no NaN or Infinity."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_STATE_CHARS:
            raise StateError(f"a saved state is at most {MAX_STATE_CHARS:,} bytes; this one has {len(text):,}")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StateError(f"a saved state is UTF-8 JSON text: {exc}") from None
    if not isinstance(text, str):
        raise StateError(f"a saved state is JSON text, not {type(text).__name__}")
    if len(text) > MAX_STATE_CHARS:
        raise StateError(f"a saved state is at most {MAX_STATE_CHARS:,} characters; this one has {len(text):,}")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise StateError("a saved state nests too deeply") from None
    except StateError:
        raise
    except ValueError as exc:  # JSONDecodeError, and integers too long to read
        raise StateError(f"a saved state must be valid JSON: {short(str(exc))}") from None


def load_state(game: GameLike, data: Any) -> State:
    """A state of ``game`` from plain data (``to_dict`` / parsed ``to_json``), checked."""
    checker = _checker_of(game)
    try:
        return checker.check(data)
    except _Bad as exc:
        raise StateError(f"not a state of this game: {exc}") from None
    except RecursionError:
        raise StateError("not a state of this game: a value nests too deeply") from None


def check_state_data(game: GameLike, data: Any) -> None:
    """Raise ``StateError`` when ``data`` is not a state ``game`` could be in."""
    load_state(game, data)


def _no_constant(name: str) -> Any:
    raise StateError(f"a saved state holds no {name} (not JSON)")


def _checker_of(game: GameLike) -> _Checker:
    checker = game.__dict__.get("_state_checker")
    if checker is None:
        checker = _Checker(game)
        game.__dict__["_state_checker"] = checker
    return checker


# ====================================================================== values


def _plain(value: Any, depth: int, budget: list[int], max_text: int, max_bits: int) -> None:
    """JSON data only (dict with str keys, list, str, int, finite float, bool, None), bounded."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Bad("a value is too large")
    t = type(value)
    if t is int:
        if value.bit_length() > max_bits:
            raise _Bad(f"an integer has more than {max_bits} bits")
        return
    if t is str:
        if len(value) > max_text:
            raise _Bad(f"a text is longer than {max_text:,} characters")
        return
    if value is None or t is bool:
        return
    if t is float:
        if not math.isfinite(value):
            raise _Bad("a number is not finite")
        return
    if depth <= 0:
        raise _Bad(f"a value nests more than {MAX_DEPTH} deep")
    if t is list:
        for item in value:
            _plain(item, depth - 1, budget, max_text, max_bits)
        return
    if t is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise _Bad("an object key is not a string")
            _plain(item, depth - 1, budget, max_text, max_bits)
        return
    raise _Bad(f"a value of type {t.__name__} is not JSON data")


class _Checker:
    """The tables a state of one game is checked against (built once per game)."""

    def __init__(self, game: GameLike):
        link = game.link
        self.game = game
        self.link = link
        limits = getattr(game, "limits", None) or link.limits
        self.limits = limits
        self.max_bits = limits.max_int_bits
        self.max_text = limits.max_text
        self.max_list = limits.max_list
        self.n = game.num_players
        self.cards = link.cards.count
        self.kind_of = link.cards.kind_of
        self.zones = len(link.zone_face)
        self.cells = link.board.size if link.board is not None else 0
        self.pieces = len(link.piece_owner)
        self.codes = game.codes
        self.match_code = link.match_code
        self.max_id = max(game.num_distinct_actions, game.max_chance_outcomes)
        self.var_types = [T.VARIABLE_TYPES[v.type] for v in link.var_defs]
        self.pvar_types = [T.VARIABLE_TYPES[v.type] for v in link.pvar_defs]
        self._scan_spec()
        self._required: dict[tuple[int, int], frozenset[str]] = {}
        self._value_checks: dict[str, Callable[[Any, int], None]] = {}

    # ------------------------------------------------------------------ the spec's local names
    def _scan_spec(self) -> None:
        """Local names and their types; statements by position (to know what a frame still needs)."""
        info = self.link.info
        types = info.types
        names: dict[str, set[str]] = {}
        nullable: set[str] = set()  # bound by `let` or as a parameter: may hold none
        looped: set[str] = set()  # bound by a loop over a list (`for`, a choice's parameters)
        self.skips = False  # does any rule make a player skip turns?
        self.nexts = False  # does any rule give a player the next turn?
        self.nodes_at: dict[Any, list[Any]] = {}
        for root in _roots(self.link.model):
            for node in A.walk(root):
                if isinstance(node, A.Name):
                    ref = info.ref(node)
                    if ref.kind == "local":
                        names.setdefault(node.id, set()).add(types.get(id(node), T.ANY))
                elif isinstance(node, A.Let):
                    names.setdefault(node.name, set())
                    nullable.add(node.name)
                elif isinstance(node, (A.Binding, A.Comp)):
                    names.setdefault(node.var, set())
                    looped.add(node.var)
                elif isinstance(node, A.Skip):
                    self.skips = True
                elif isinstance(node, A.Next):
                    self.nexts = True
                if isinstance(node, _STATEMENTS):
                    self.nodes_at.setdefault(node.span, []).append(node)
        for proc in self.link.model.procedures:
            for param in proc.params:
                names.setdefault(param, set())
                nullable.add(param)
        for name in self._loosely_typed_names():
            names[name] = {T.ANY}
        self.local_types = {name: (frozenset(ts) if ts and T.ANY not in ts else frozenset({T.ANY}))
                            for name, ts in names.items()}
        # a card, seat, cell or piece a loop binds is an element of a list of them, never none
        self.never_none = frozenset(name for name in looped - nullable
                                    if self.local_types[name] <= {T.CARD, T.PLAYER, T.CELL, T.PIECE})

    def _loosely_typed_names(self) -> set[str]:
        """The local names of procedures whose values their types do not bound: a procedure's body
        is checked with the argument types of its first call, so one also called with other types
        (a number where the first call passed a whole number, none, a list of any values where it
        passed players) may hold other values in its parameters and in the names its body binds,
        and so may a procedure called from such a body. These hold any plain value."""
        info = self.link.info
        procs = {proc.name: proc for proc in self.link.model.procedures}
        loose = [name for name, seen in info.proc_arg_types.items() if any(len(types) > 1 for types in seen)]
        found = set(loose)
        names: set[str] = set()
        while loose:
            proc = procs[loose.pop()]
            names.update(proc.params)
            used, bound = self._local_names([proc.body])
            names |= used | bound
            for node in A.walk(proc.body):
                if isinstance(node, A.CallProc):
                    static = info.ref(node.target).kind == "proc"
                    for callee in ([node.target.id] if static else list(procs)):  # (by name: any of them)
                        if callee not in found:
                            found.add(callee)
                            loose.append(callee)
        return names

    def free_names(self, nodes: list[Any]) -> frozenset[str]:
        """Local names the nodes read and do not bind themselves."""
        used, bound = self._local_names(nodes)
        return frozenset(used - bound)

    def _local_names(self, nodes: list[Any]) -> tuple[set[str], set[str]]:
        """(the local names the nodes read, the names they bind)."""
        info = self.link.info
        used: set[str] = set()
        bound: set[str] = set()
        for root in nodes:
            for node in A.walk(root):
                if isinstance(node, A.Name):
                    if info.ref(node).kind == "local":
                        used.add(node.id)
                elif isinstance(node, A.Let):
                    bound.add(node.name)
                elif isinstance(node, (A.Binding, A.Comp)):
                    bound.add(node.var)
        return used, bound

    def statement(self, span: Any) -> Any:
        found = self.nodes_at.get(span)
        return found[0] if found and len(found) == 1 else None

    def required(self, code: Any, pc: int) -> frozenset[str]:
        """The names a block frame's env must hold to run its statements from ``pc`` on."""
        key = (code.index, pc)
        hit = self._required.get(key)
        if hit is None:
            nodes = []
            for span in code.spans[pc:]:
                node = self.statement(span)
                if node is None:
                    return frozenset()  # a position we cannot tell apart: ask for nothing
                nodes.append(node)
            hit = self.free_names(nodes)
            self._required[key] = hit
        return hit

    def _alt_required(self, code: Any) -> frozenset[str]:
        key = (code.index, -1)
        hit = self._required.get(key)
        if hit is None:
            nodes = []
            for alt in code.alts:
                found = [n for n in self.nodes_at.get(alt.span, ()) if isinstance(n, A.Alternative)]
                if len(found) != 1:
                    return frozenset()
                nodes.append(found[0])
            hit = self.free_names(nodes)
            self._required[key] = hit
        return hit

    # ------------------------------------------------------------------ typed values
    def value(self, t: str, x: Any, what: str) -> None:
        """``x`` is a value of static type ``t``."""
        if not self._is_value(t, x, MAX_DEPTH):
            raise _Bad(f"{what} is not a value of type {t}: {short(repr(x), 60)}")

    def _is_value(self, t: str, x: Any, depth: int) -> bool:
        k = type(x)
        if t == T.INT:
            return k is int and x.bit_length() <= self.max_bits
        if t == T.NUM:
            return (k is int and x.bit_length() <= self.max_bits) or (k is float and math.isfinite(x))
        if t == T.BOOL:
            return k is bool
        if t in (T.STR, T.PROC):
            return k is str and len(x) <= self.max_text
        if x is None:
            return t in (T.CARD, T.PLAYER, T.CELL, T.PIECE, T.ANY, T.NONE, T.VALUE) or T.is_list(t)
        if t == T.CARD:
            return k is int and 0 <= x < self.cards
        if t == T.PLAYER:
            return k is int and 0 <= x < self.n
        if t == T.CELL:
            return k is int and 0 <= x < self.cells
        if t == T.PIECE:
            return k is int and 0 <= x < self.pieces
        if t == T.ZONE:
            return k is int and 0 <= x < self.zones
        if T.is_list(t):
            if k is not list or len(x) > self.max_list or depth <= 0:
                return False
            inner = T.elem(t)
            return all(self._is_value(inner, item, depth - 1) for item in x)
        if t in (T.ANY, T.VALUE, T.DICT):
            try:
                _plain(x, depth, [self.max_list], self.max_text, self.max_bits)
            except _Bad:
                return False
            return t != T.DICT or k is dict
        return False  # rankings and other run-time-only values are never saved

    def env(self, env: Any, what: str, needs: frozenset[str] = frozenset()) -> None:
        if type(env) is not dict:
            raise _Bad(f"{what} is not an object of local names")
        for name, x in env.items():
            allowed = self.local_types.get(name) if type(name) is str else None
            if allowed is None:
                raise _Bad(f"{what} holds {short(repr(name), 40)}, which is no local name of this game")
            if x is None and name in self.never_none:
                raise _Bad(f"{what}: '{name}' is none")
            if not any(self._is_value(t, x, MAX_DEPTH) for t in allowed):
                raise _Bad(f"{what}: '{name}' is not a value of type {' or '.join(sorted(allowed))}: "
                           f"{short(repr(x), 60)}")
        missing = needs - env.keys()
        if missing:
            raise _Bad(f"{what} lacks {', '.join(sorted(missing))}")

    # ------------------------------------------------------------------ the whole state
    def check(self, data: Any) -> State:
        game = self.game
        if type(data) is not dict:
            raise _Bad(f"a saved state is a JSON object, not {type(data).__name__}")
        if data.get("format") != _FORMAT or type(data.get("format")) is not int:
            raise StateError(f"unknown state format {short(repr(data.get('format')), 40)}")
        if data.get("game") != game.fingerprint():
            raise StateError("this state belongs to a different game, player count or options: "
                             f"{short(repr(data.get('game')), 200)} (this game: {game.fingerprint()})")
        keys = data.keys()
        if keys != _KEYS:
            missing = sorted(_KEYS - keys)
            extra = sorted(str(k) for k in keys - _KEYS)
            raise _Bad("fields " + (f"missing: {', '.join(missing)}" if missing else "")
                       + ("; " if missing and extra else "") + (f"unknown: {short(', '.join(extra), 80)}" if extra
                                                                else ""))
        n = self.n
        self._cards(data)
        # variables
        # (any variable may hold none: an `initial: none`, or a value the rules found none, as
        # `first` of an empty list, assigned to it)
        g = _list(data["g"], len(self.var_types), "g")
        for i, t in enumerate(self.var_types):
            if g[i] is not None:
                self.value(t, g[i], f"variable '{self.link.var_defs[i].name}'")
        pv = _list(data["pv"], len(self.pvar_types), "pv")
        for i, t in enumerate(self.pvar_types):
            column = _list(pv[i], n, f"pv[{i}]")
            for p in range(n):
                if column[p] is not None:
                    self.value(t, column[p], f"variable '{self.link.pvar_defs[i].name}' of seat {p}")
        for name in ("score", "total"):
            for x in _list(data[name], n, name):
                if not self._is_value(T.NUM, x, 0):
                    raise _Bad(f"{name} holds {short(repr(x), 40)}, not a finite number")
        for x in _list(data["skips"], n, "skips"):
            _counter(x, "skips")
            if x and not self.skips:
                raise _Bad("skips: no rule of this game makes a player skip a turn")
        # pieces
        piece_cell = _list(data["piece_cell"], self.pieces, "piece_cell")
        cell_piece = _list(data["cell_piece"], self.cells, "cell_piece")
        for x, c in enumerate(piece_cell):
            if not (is_int(c) and -1 <= c < self.cells):
                raise _Bad(f"piece_cell[{x}] is not a cell or -1")
            if c >= 0 and (not is_int(cell_piece[c]) or cell_piece[c] != x):
                raise _Bad(f"piece {x} is on cell {c}, which does not hold it")
        for c, x in enumerate(cell_piece):
            if not (is_int(x) and -1 <= x < self.pieces):
                raise _Bad(f"cell_piece[{c}] is not a piece or -1")
            if x >= 0 and piece_cell[x] != c:
                raise _Bad(f"cell {c} holds piece {x}, which is elsewhere")
        for x, p in enumerate(_list(data["piece_owner"], self.pieces, "piece_owner")):
            if not (is_int(p) and 0 <= p < n):
                raise _Bad(f"piece_owner[{x}] is not a seat (0 to {n - 1})")
        kinds = self.link.piece_kinds
        for x, k in enumerate(_list(data["piece_kind"], self.pieces, "piece_kind")):
            if type(k) is not str or k not in kinds:
                raise _Bad(f"piece_kind[{x}] is not a kind of piece of this game")
        # a field no rule of this game sets keeps the value every piece starts with
        changed = self.link.piece_fields_set
        if "owner" not in changed and data["piece_owner"] != self.link.piece_owner:
            raise _Bad("piece_owner: no rule of this game gives a piece to another player")
        if "kind" not in changed and data["piece_kind"] != self.link.piece_kind_name:
            raise _Bad("piece_kind: no rule of this game changes a piece's kind")
        # counters and flags
        for name in ("round", "turn"):
            _counter(data[name], name)
        for name in ("current", "dealer"):
            x = data[name]
            if not (is_int(x) and 0 <= x < n):
                raise _Bad(f"{name} is not a seat (0 to {n - 1}): {short(repr(x), 40)}")
        x = data["next_seat"]
        if not (is_int(x) and -1 <= x < n):
            raise _Bad(f"next_seat is not a seat (0 to {n - 1}) or -1: {short(repr(x), 40)}")
        if x >= 0 and not self.nexts:
            raise _Bad("next_seat: no rule of this game gives a player the next turn")
        for name in ("in_play", "ending", "over"):
            if type(data[name]) is not bool:
                raise _Bad(f"{name} is not true or false")
        rng = data["rng"]
        if not (is_int(rng) and 0 <= rng < _U64):
            raise _Bad("rng is not a 64-bit non-negative integer")
        history = data["history"]
        if type(history) is not list:
            raise _Bad("history is not a list")
        if len(history) > game.max_game_length:
            raise _Bad(f"history is longer than the game's bound ({game.max_game_length} actions)")
        top = self.max_id
        for a in history:
            if not (is_int(a) and 0 <= a < top):
                raise _Bad(f"history holds {short(repr(a), 40)}, not an action id (0 to {top - 1})")
        self._events(data["events"])
        # the end
        over = data["over"]
        winners = data["winners_"]
        returns = data["returns_"]
        if type(winners) is not list or type(returns) is not list:
            raise _Bad("winners_ and returns_ are lists")
        if over:
            if data["pending"] is not None or data["stack"] != []:
                raise _Bad("a finished match has nothing pending and no rules left to run")
            if any(not (is_int(p) and 0 <= p < n) for p in winners) or winners != sorted(set(winners)):
                raise _Bad("winners_ is not a sorted list of distinct seats")
            _list(returns, n, "returns_")
            if any(type(r) is not float or not math.isfinite(r) for r in returns):
                raise _Bad("returns_ are not finite numbers")
        elif winners or returns:
            raise _Bad("winners_ and returns_ are empty until the match is over")
        state = State(game)
        for name in _FIELDS:
            setattr(state, name, data[name])
        state.ops = self.limits.step_ops
        state.log_size = sum(event_units(e) for e in state.events)
        if len(state.events) > self.limits.max_events or state.log_size > self.limits.max_log:
            raise _Bad("events: more than a match's log may hold")
        if not over:
            self._stack(state)
            self._pending(state)
            state.pending = Pending(*data["pending"])  # checked: the record the rules would have made
        return state

    def _cards(self, data: dict) -> None:
        count = self.cards
        zones = _list(data["zones"], self.zones, "zones")
        loc = _list(data["loc"], count, "loc")
        face = _list(data["face"], count, "face")
        shuffled = _list(data["shuffled"], self.zones, "shuffled")
        seen = bytearray(count)
        for z, cards in enumerate(zones):
            if type(cards) is not list:
                raise _Bad(f"zone {z} is not a list of cards")
            for c in cards:
                if not (is_int(c) and 0 <= c < count):
                    raise _Bad(f"zone {z} holds {short(repr(c), 40)}, not a card (0 to {count - 1})")
                if seen[c]:
                    raise _Bad(f"card {c} is in two places")
                seen[c] = 1
                if loc[c] != z or not is_int(loc[c]):
                    raise _Bad(f"card {c} is in zone {z} but loc says {short(repr(loc[c]), 20)}")
            if type(shuffled[z]) is not bool:
                raise _Bad(f"shuffled[{z}] is not true or false")
            if shuffled[z] and not cards:
                raise _Bad(f"zone {z} is empty but marked shuffled")
        if sum(seen) != count:
            raise _Bad(f"card {seen.index(0)} is in no zone")
        for c, f in enumerate(face):
            if f != 0 and f != 1 or not is_int(f):
                raise _Bad(f"face[{c}] is not 0 or 1")

    def _events(self, events: Any) -> None:
        if type(events) is not list:
            raise _Bad("events is not a list")
        if len(events) > self.limits.max_events:
            raise _Bad(f"more than {self.limits.max_events:,} events")
        budget = [max(self.max_list, 4 * len(events) + 1024) * 8]
        n = self.n
        for i, event in enumerate(events):
            if type(event) is not dict or type(event.get("type")) is not str:
                raise _Bad(f"event {i} is not an object with a type")
            to = event.get("to", [])
            if type(to) is not list or any(not (is_int(p) and 0 <= p < n) for p in to):
                raise _Bad(f"event {i}: 'to' is not a list of seats")
            _plain(event, MAX_DEPTH, budget, self.max_text, self.max_bits)

    # ------------------------------------------------------------------ frames
    def _stack(self, s: State) -> None:
        stack = s.stack
        if type(stack) is not list or not stack:
            raise _Bad("a match in progress has rules left to run (stack)")
        if len(stack) > MAX_FRAMES:
            raise _Bad(f"more than {MAX_FRAMES:,} frames")
        codes = self.codes
        # a pending `let x = random(...)` binds x in the top frame only once it is resolved
        pending = s.pending
        exempt: frozenset[str] = frozenset()
        asker: Any = pending[PENDING_CODE] if type(pending) is list and len(pending) == PENDING.size else None
        if is_int(asker) and 0 <= asker < len(codes) and type(codes[asker]) is LetChanceCode:
            exempt = frozenset({codes[asker].name})
        last = len(stack) - 1
        for k, frame in enumerate(stack):
            if type(frame) is not list or not frame or not is_int(frame[CODE]) or not 0 <= frame[CODE] < len(codes):
                raise _Bad(f"frame {k} does not start with a code index")
            code = codes[frame[CODE]]
            if (k == 0) != (frame[CODE] == self.match_code):
                raise _Bad("the match frame is the first frame, and only there")
            layout = code.layout
            if layout is None or layout.check is None:
                raise _Bad(f"frame {k}: code {frame[CODE]} ({type(code).__name__}) never has a frame")
            try:
                layout.check(self, code, frame, exempt if k == last else frozenset())
            except _Bad as exc:
                raise _Bad(f"frame {k} ({type(code).__name__}): {exc}") from None
            if k + 1 < len(stack):
                child = stack[k + 1]
                valid = type(child) is list and child and is_int(child[CODE]) and 0 <= child[CODE] < len(codes)
                if valid and not self._may_hold(code, frame, child[CODE]):  # (an invalid one is named next)
                    raise _Bad(f"frame {k + 1} cannot run inside frame {k}")

    def _may_hold(self, code: Any, frame: list, child: int) -> bool:
        """Can a frame of code ``child`` sit right above ``frame``?"""
        kind = type(code)
        codes = self.codes
        if not 0 <= child < len(codes):
            return False
        if kind is BlockCode:
            _, simple = code.stmts[frame[PC] - 1]
            if simple:
                return False
            owner = code.entered[frame[PC] - 1]
            child_code = codes[child]
            if owner is None:  # an if's branch (or what its branch that is one choice enters), or a procedure's body
                entry = code.stmts[frame[PC] - 1][0]
                if isinstance(entry, IfEntry):
                    return any(child == b.index for b in entry.branches) or any(
                        child in _choice_blocks(choice) for choice in _lone_choices(entry))
                return type(child_code) is BlockCode
            if isinstance(owner, ChooseCode):
                return child in _choice_blocks(owner)
            return child == owner.index
        if kind in (ForCode, RepeatCode, WhileCode):
            return child == code.body
        if kind is PhaseCode:  # its turn's frame, or what a turn that is one choice enters
            lone = code.lone_choice
            return child == code.turn_code.index or (lone is not None and child in _choice_blocks(lone))
        if kind is RoundCode:
            if frame[STAGE] == 1:
                return child == code.setup or child in code.phases
            return frame[STAGE] == 3 and child == code.scoring
        if kind is MatchCode:
            return (frame[STAGE] == 1 and child == code.setup) or (frame[STAGE] == 2 and child == code.round_code)
        return False  # draws and deals are always the top frame

    def zone(self, z: Any) -> None:
        if not (is_int(z) and 0 <= z < self.zones):
            raise _Bad(f"{short(repr(z), 20)} is not a zone")

    # ------------------------------------------------------------------ the pending decision
    def _pending(self, s: State) -> None:
        pending = s.pending
        if type(pending) is not list or len(pending) != PENDING.size:
            raise _Bad("a match in progress waits for a decision or a chance event: pending is "
                       "[player, ids, options, code, env]")
        who, ids, extra, index, payload = pending
        if not (is_int(index) and 0 <= index < len(self.codes)):
            raise _Bad("pending: code index out of range")
        if type(ids) is not list or not ids or len(ids) > self.limits.max_options:
            raise _Bad("pending: the legal ids are not a non-empty list")
        code = self.codes[index]
        top = s.stack[-1]
        saved_rng, saved_events = s.rng, len(s.events)
        try:
            if who == CHANCE and is_int(who):
                expected = self._chance(s, code, top, payload)
                if [ids, extra] != expected or any(type(p) is not float for p in extra) \
                        or any(type(a) is not int for a in ids):
                    raise _Bad("pending: the chance outcomes are not the ones the rules give")
            elif type(code) is ChooseCode:
                self._choice(s, code, top, pending)
            else:
                raise _Bad("pending: its code is not a choice or a chance event")
        except _Bad:
            raise
        except Exception as exc:  # a rule that cannot run on this state
            raise _Bad(f"pending: the rules cannot recompute it ({short(str(exc))})") from None
        finally:
            s.rng = saved_rng
            del s.events[saved_events:]
            s.ops = self.limits.step_ops

    def _entered_by_top(self, code: Any, top: list) -> None:
        """The top frame is a block whose last statement run entered ``code``."""
        block = self.codes[top[CODE]]
        if type(block) is not BlockCode or not 0 < top[PC] <= len(block.stmts):
            raise _Bad("pending: the top frame did not start it")
        if block.entered[top[PC] - 1] is not code:
            raise _Bad("pending: the top frame did not start it")

    def _asking_env(self, code: Any, top: list) -> Any:
        """The env of the statement that asked choice ``code``: the top frame's, a block whose
        last statement run entered it (or an `if` with a branch that is that choice alone), or
        an empty one for a turn that is that choice alone (``PhaseCode.lone_choice``: the
        phase's frame on top, the turn has none)."""
        top_code = self.codes[top[CODE]]
        if type(top_code) is PhaseCode and top_code.lone_choice is code:
            return {}
        if type(top_code) is BlockCode and 0 < top[PC] <= len(top_code.stmts) and any(
                lone is code for lone in _lone_choices(top_code.stmts[top[PC] - 1][0])):
            return top[ENV]  # an `if` whose branch is that choice alone: entered with no frame for the branch
        self._entered_by_top(code, top)
        return top[ENV]

    def _choice(self, s: State, code: Any, top: list, pending: list) -> None:
        who, ids, extra, _, env = pending
        asking = self._asking_env(code, top)
        if extra is not None:
            raise _Bad("pending: a choice has no probabilities")
        self.env(env, "pending env", self._alt_required(code))
        if env != asking:
            raise _Bad("pending: the env is not the one of the statement that asks")
        player = s.current if code.by is None else code.by(s, env)
        if who != player or not is_int(who):
            raise _Bad(f"pending: seat {short(repr(who), 20)} decides, but the rules ask seat {player}")
        found = code.options(s, env)
        if ids != sorted(found):
            raise _Bad("pending: the legal ids are not the ones the rules give")
        # the id lists are compared by value; keep ints plain (True == 1 in a list compare)
        if any(type(a) is not int for a in ids):
            raise _Bad("pending: the legal ids are not integers")

    def _chance(self, s: State, code: Any, top: list, payload: Any) -> list[Any]:
        kind = type(code)
        kind_of = self.kind_of
        if kind is DrawCode or kind is DealCode:
            if top[CODE] != code.index or payload is not None:
                raise _Bad("pending: a draw's chance event belongs to the top frame")
            src = top[DRAW_SRC] if kind is DrawCode else top[DEAL_SRC]
            if kind is DealCode and not s.shuffled[src]:
                raise _Bad("pending: a deal is random only from a shuffled zone")
            if kind is DrawCode and not (top[DRAW_MODE] == 2 or s.shuffled[src]):
                raise _Bad("pending: this draw is not random")
            return _outcomes(_count(s.zones[src], kind_of, code.fewest))
        self._entered_by_top(code, top)
        env = top[ENV]
        if kind is RandomPickCode:
            pool = list(code.pool(s, env))
            dst = code.dest(s, env)
            face = code.face(s, env, dst)
            if payload != [pool, dst, face]:
                raise _Bad("pending: the cards to pick from are not the ones the rules give")
            return _outcomes(_count(pool, kind_of, code.fewest))
        if kind is LetChanceCode:
            counts, values = code.outcomes(s, env)
            if payload != {str(k): v for k, v in values.items()} or len(counts) < max(code.fewest, 1):
                raise _Bad("pending: the values to pick from are not the ones the rules give")
            return _outcomes(counts)
        raise _Bad("pending: its code is not a chance event")


def _count(cards: list, kind_of: Any, fewest: int) -> dict[int, int]:
    """The cards' kinds and their copies: the outcomes of a chance event, which has at least
    ``fewest`` of them (2, or 1 when the game keeps single-outcome chance nodes)."""
    counts: dict[int, int] = {}
    for c in cards:
        k = kind_of[c]
        counts[k] = counts.get(k, 0) + 1
    if len(counts) < max(fewest, 1):
        raise _Bad("pending: a chance event with fewer than two outcomes" if fewest > 1 else
                   "pending: a chance event with no outcome")
    return counts


def _outcomes(counts: dict[Any, int]) -> list[Any]:
    total = sum(counts.values())
    outcomes = sorted(counts)
    return [outcomes, [counts[o] / total for o in outcomes]]


def _list(x: Any, length: int, what: str) -> list:
    if type(x) is not list:
        raise _Bad(f"{what} is not a list")
    if len(x) != length:
        raise _Bad(f"{what} has {len(x)} entries, not {length}")
    return x


def _lone_choices(entry: Any) -> list[Any]:
    """The choices an `if` statement's entry enters with no frame for their branch (``codes.lone_choice_of``)."""
    return [choice for choice in entry.lone if choice is not None] if isinstance(entry, IfEntry) else []


def _choice_blocks(choice: Any) -> set[int]:
    """The blocks a choice enters with a frame: the bodies that can wait, and its `otherwise`."""
    blocks = {alt.body_code for alt in choice.alts if alt.body_code >= 0}
    if choice.orelse is not None:
        blocks.add(choice.orelse)
    return blocks


def _counter(x: Any, what: str) -> None:
    if not (is_int(x) and 0 <= x < BIG):
        raise _Bad(f"{what} is not a non-negative integer: {short(repr(x), 40)}")


_STATEMENTS = (A.Move, A.Draw, A.Deal, A.Shuffle, A.Flip, A.Assign, A.Let, A.Emit, A.End, A.Skip, A.Next, A.Place,
               A.Remove, A.CallProc, A.Pass, A.If, A.For, A.Repeat, A.While, A.Choose, A.Alternative)


def _roots(model: Any) -> list[Any]:
    """Every AST node held by the spec's model (sections are plain dataclasses)."""
    out: list[Any] = []
    seen: set[int] = set()
    todo = [model]
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, A.Node):
            out.append(item)
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        else:
            fields = getattr(item, "__dataclass_fields__", None)
            if fields is not None:
                todo.extend(getattr(item, f, None) for f in fields)
    return out
