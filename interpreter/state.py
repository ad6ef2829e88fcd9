"""A game state: plain, copyable data, plus the OpenSpiel-shaped API over it.

Everything that changes during play lives here as lists, ints, strings and dicts:
zones (card ids, bottom to top), card locations and facing, variables, pieces,
flow counters, the continuation stack of the rules (``stack``), the pending decision
or chance event, the random generator (one int), the history and the event log.
``clone()`` copies lists; ``to_json()`` writes exactly this data.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Annotated, Any, NamedTuple, Protocol

from rulespec.errors import SourceSpan

from . import rng as RNG
from .board import Board
from .cards import CardTable
from .errors import GameLengthError, IllegalActionError, RuleError
from .frames import PENDING, STAGE

__all__ = ["State", "GameLike", "Pending", "CHANCE", "TERMINAL", "action_id", "move_card", "move_piece", "move_zone",
           "take_card", "draw_top"]

CHANCE = -1
TERMINAL = -4

_FORMAT = 1

# How ``clone()`` copies a field of the state's data (the metadata of its annotation in ``State``):
VALUE = "value"  # an int or a bool: shared (immutable)
LIST = "list"  # a flat list: a new list of the same items
LISTS = "lists"  # a list of flat lists: a new list of new lists
RECORD = "record"  # None, or an immutable record (a tuple never changed in place): shared
FRAMES = "frames"  # the continuation stack: each frame copied, and the dicts and lists directly in it
_KINDS = {"VALUE": VALUE, "LIST": LIST, "LISTS": LISTS, "RECORD": RECORD, "FRAMES": FRAMES}


class Pending(NamedTuple):
    """What the match waits for: a decision (``player`` is a seat) or a chance event (``CHANCE``).
    Immutable (applying an action replaces it), so copies of a state share it."""

    player: int
    legal: list[int]  # the legal ids (or chance outcomes), sorted
    options: list[float] | None  # a chance event's probabilities; None for a decision
    code: int  # the index of the code that asks
    payload: Any  # a decision's env (the parameters bound so far), or what a chance event picks from


assert Pending._fields == PENDING.slots  # the record's layout is declared in frames (PENDING), once


def action_id(action: Any) -> int:
    """``action`` as a plain int: Python ints (not bools), numpy integers and 0-d integer arrays.

    Anything else raises ``IllegalActionError``: every entry point that applies an id from
    outside checks it here, so ``history`` and ``to_json()`` hold plain ints only.
    """
    kind = type(action)
    if kind is int:
        return action
    if kind is not bool and isinstance(action, int):  # an int subclass (IntEnum, ...)
        return int(action)
    dtype = getattr(action, "dtype", None)
    if dtype is not None and getattr(dtype, "kind", None) in ("i", "u") and getattr(action, "shape", None) == ():
        try:
            return int(action)
        except (TypeError, ValueError, OverflowError):
            pass
    try:
        shown = repr(action)
    except Exception:  # a hostile __repr__
        shown = f"a {kind.__name__}"
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise IllegalActionError(f"an action id is an integer, not {kind.__name__} {shown}")


class State:
    # Every field is declared once, here. A field of the state's data is annotated
    # ``Annotated[type, how clone() copies it]``: those are ``_FIELDS``, in this order (the order of
    # ``to_json()``); the others are not data (not compared, not saved). ``__slots__`` is every field.
    # ``clone()`` is written out by hand for speed: tests/test_state_fields.py checks it against this.
    game: GameLike  # not data: the game the state belongs to
    zones: Annotated[list[list[int]], LISTS]  # card ids per zone instance, bottom to top
    loc: Annotated[list[int], LIST]  # zone of each card
    face: Annotated[list[int], LIST]  # 1 face up, 0 face down, per card
    shuffled: Annotated[list[bool], LIST]  # per zone: order unknown (draws are random)
    g: Annotated[list[Any], LIST]  # global variables by slot
    pv: Annotated[list[list[Any]], LISTS]  # per-player variables: [slot][seat]
    score: Annotated[list[Any], LIST]  # this round's score per seat
    total: Annotated[list[Any], LIST]  # match total per seat
    skips: Annotated[list[int], LIST]  # turns each seat will skip
    piece_cell: Annotated[list[int], LIST]  # cell of each piece, -1 off the board
    cell_piece: Annotated[list[int], LIST]  # piece on each cell, -1 empty
    piece_owner: Annotated[list[int], LIST]  # seat owning each piece (a rule may give it to another)
    piece_kind: Annotated[list[str], LIST]  # kind of each piece (a rule may change it)
    round: Annotated[int, VALUE]
    turn: Annotated[int, VALUE]
    current: Annotated[int, VALUE]
    dealer: Annotated[int, VALUE]
    next_seat: Annotated[int, VALUE]  # the seat a `next` statement gave the next turn to; -1: the phase's order
    in_play: Annotated[bool, VALUE]  # turns are running (round end conditions apply)
    ending: Annotated[bool, VALUE]  # `end game` was reached
    stack: Annotated[list[list[Any]], FRAMES]  # frames: the continuation of the rules
    pending: Annotated[Pending | None, RECORD]  # what the match waits for: a decision or a chance event
    rng: Annotated[int, VALUE]
    history: Annotated[list[int], LIST]
    events: Annotated[list[dict[str, Any]], LIST]
    over: Annotated[bool, VALUE]
    winners_: Annotated[list[int], LIST]
    returns_: Annotated[list[float], LIST]
    ops: int  # not data: work left in this step (reset when a step starts)
    log_size: int  # not data: the size of ``events`` in units (derived from it, kept to bound the log)
    dirty: bool  # not data: something the round's end conditions read changed since they were last evaluated

    __slots__ = tuple(__annotations__)

    def __init__(self, game: GameLike):
        self.game = game
        self.ops = game.link.limits.step_ops
        self.log_size = 0
        self.dirty = True

    # ------------------------------------------------------------------ API
    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        pending = self.pending
        if pending is None:
            return TERMINAL
        return pending.player

    def is_terminal(self) -> bool:
        return self.over

    # (a finished match has nothing pending: ``pending`` alone tells what is asked)
    def is_chance_node(self) -> bool:
        pending = self.pending
        return pending is not None and pending.player == CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        pending = self.pending
        if pending is None:
            return []
        if player is not None and player != pending.player:
            return []
        return list(pending.legal)

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        mask = [0] * (self.game.num_distinct_actions if not self.is_chance_node() else self.game.max_chance_outcomes)
        for a in self.legal_actions(player):
            mask[a] = 1
        return mask

    def legal_action_params(self) -> list[Any]:
        """The legal actions' structure (``interpreter.actions.Action``: name and parameters),
        in the order of ``legal_actions()``; empty at a chance node and at the end."""
        if self.is_chance_node():
            return []
        return [self.game.action_params(a, self) for a in self.legal_actions()]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        pending = self.pending
        if pending is None or pending.player != CHANCE:
            return []
        return list(zip(pending.legal, pending.options or ()))

    def sample_chance_outcome(self, rng: Any) -> int:
        """A chance outcome drawn by its probability with ``rng`` (anything with random())."""
        outcomes = self.chance_outcomes()
        x = rng.random()
        acc = 0.0
        for action, probability in outcomes:
            acc += probability
            if x < acc:
                return action
        return outcomes[-1][0]

    def apply_action(self, action: int) -> None:
        """Apply a legal action (or chance outcome); an illegal one raises and changes nothing.

        ``action`` is an int (numpy integers are accepted and stored as plain ints); anything
        else (bool, float, str, None, ...) raises ``IllegalActionError``.
        """
        if type(action) is not int:
            action = action_id(action)
        pending = self.pending
        if pending is None:  # (the match is over: a finished match has nothing pending)
            raise IllegalActionError(f"action {action}: the game is over, no action is legal")
        try:
            index = pending.legal.index(action)
        except ValueError:
            raise IllegalActionError(self._illegal_message(action)) from None
        history = self.history
        game = self.game
        if len(history) >= game.max_game_length:
            raise GameLengthError(game.length_message(), game.max_actions_span)
        history.append(action)
        self.pending = None
        game.resolve(self, pending, index)

    def _illegal_message(self, action: int) -> str:
        pending = self.pending
        assert pending is not None
        who = "chance" if pending.player == CHANCE else f"player {pending.player}"
        shown = [f"{a} ({self.action_to_string(a)})" for a in pending.legal[:12]]
        more = f" and {len(pending.legal) - 12} more" if len(pending.legal) > 12 else ""
        return (f"action {action} ({self.game.describe_action(action, pending.player == CHANCE)}) is not legal now; "
                f"{who} may choose: {', '.join(shown)}{more}")

    def action_to_string(self, action: int, player: int | None = None) -> str:
        return self.game.action_label(self, action)

    def scores(self) -> list[float]:
        return list(self.total)

    def winners(self) -> list[int]:
        return list(self.winners_) if self.over else []

    def returns(self) -> list[float]:
        if not self.over:
            return [0.0] * self.game.num_players
        return list(self.returns_)

    def rewards(self) -> list[float]:
        return self.returns() if self.over else [0.0] * self.game.num_players

    def move_number(self) -> int:
        return len(self.history)

    def observation(self, player: int, events: bool = True) -> dict[str, Any]:
        return self.game.observe(self, player, events)

    def clone(self) -> State:
        cls = type(self)  # (a subclass's states clone as that subclass)
        other = cls.__new__(cls)
        other.game = self.game
        other.zones = list(map(list.copy, self.zones))  # (a C loop: a search clones every iteration)
        other.loc = self.loc.copy()  # (list.copy: Python's fastest copy of a list, and a clone makes many)
        other.face = self.face.copy()
        other.shuffled = self.shuffled.copy()
        other.g = self.g.copy()
        other.pv = list(map(list.copy, self.pv))
        other.score = self.score.copy()
        other.total = self.total.copy()
        other.skips = self.skips.copy()
        other.piece_cell = self.piece_cell.copy()
        other.cell_piece = self.cell_piece.copy()
        other.piece_owner = self.piece_owner.copy()
        other.piece_kind = self.piece_kind.copy()
        other.round = self.round
        other.turn = self.turn
        other.current = self.current
        other.dealer = self.dealer
        other.next_seat = self.next_seat
        other.in_play = self.in_play
        other.ending = self.ending
        other.stack = _copy_frames(self.stack)
        other.pending = self.pending
        other.rng = self.rng
        other.history = self.history.copy()
        other.events = self.events.copy()
        other.over = self.over
        other.winners_ = self.winners_.copy()
        other.returns_ = self.returns_.copy()
        other.ops = self.ops
        other.log_size = self.log_size
        other.dirty = self.dirty
        return other

    def detached(self) -> State:
        """A copy that shares no list or dict with this state at any depth (``clone()`` shares
        what lies deeper than it copies: events, the list values of variables, a decision's
        env): a new match starts from one (``Game.new_initial_state``), so no match sees
        another's values."""
        return self.detacher()()

    def detacher(self) -> Callable[[], State]:
        """``detached`` of this state as a function, for a state copied often and never changed
        itself (a game's start): how each field a clone would share is copied is worked out
        now, from its shape (C's ``list.copy`` and ``dict.copy`` where nothing nests)."""
        copies = [(name, _shape_copier(getattr(self, name))) for name in self.shared_by_clone()]

        def detached() -> State:
            other = self.clone()
            for name, copy in copies:
                setattr(other, name, copy(getattr(self, name)))
            return other

        return detached

    def shared_by_clone(self) -> tuple[str, ...]:
        """The fields holding a list or dict that ``clone()`` shares with this state."""
        return tuple(name for name, kind in _COPIES.items()
                     if kind != VALUE and _holds_container(getattr(self, name), _CLONE_DEPTH[kind]))

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _FIELDS}
        data["format"] = _FORMAT
        data["game"] = self.game.fingerprint()
        return json.loads(json.dumps(data))

    def to_json(self) -> str:
        data = {name: getattr(self, name) for name in _FIELDS}
        data["format"] = _FORMAT
        data["game"] = self.game.fingerprint()
        return json.dumps(data, separators=(",", ":"))

    def serialize(self) -> str:
        return self.to_json()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return other.game is self.game and all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    def __hash__(self) -> int:  # states are mutable; hash by identity
        return id(self)

    def __str__(self) -> str:
        return self.game.render_text(self, None)

    def __repr__(self) -> str:
        return f"<State {self.game.name} round={self.round} moves={len(self.history)} player={self.current_player()}>"

    @classmethod
    def from_dict(cls, game: GameLike, data: dict[str, Any]) -> State:
        """A state of ``game`` from ``to_dict()`` data, checked (``StateError`` when it is not one).

        The state owns its data: ``data`` is copied, so changing it later changes nothing here.
        """
        return game.state_from_data(data)


class GameLike(Protocol):
    """What a state needs of its game (``interpreter.Game`` is the one): the seam that keeps this
    module below the game, the views and the checks of saved states."""

    @property
    def name(self) -> str: ...
    @property
    def num_players(self) -> int: ...
    @property
    def num_distinct_actions(self) -> int: ...
    @property
    def max_chance_outcomes(self) -> int: ...
    @property
    def max_game_length(self) -> int: ...
    @property
    def max_actions_span(self) -> SourceSpan: ...
    @property
    def step_ops(self) -> int: ...
    @property
    def board(self) -> Board | None: ...
    @property
    def cards(self) -> CardTable: ...
    @property
    def zone_face(self) -> list[int]: ...
    @property
    def link(self) -> Any: ...  # interpreter.link.Link: the tables and code the rules run on
    @property
    def codes(self) -> list[Any]: ...
    @property
    def ends_at(self) -> list[int | None]: ...  # per code: a block's statement count (None: not a block)
    @property
    def end_check(self) -> Callable[[State], bool] | None: ...  # the round's `end_when`, if any
    @property
    def watched_zones(self) -> tuple[bool, ...]: ...

    def resolve(self, s: State, pending: Pending, index: int) -> None: ...
    def fingerprint(self) -> str: ...
    def length_message(self) -> str: ...
    def describe_action(self, action: int, chance: bool = False) -> str: ...
    def action_label(self, state: State, action: int) -> str: ...
    def action_params(self, action: int, state: State | None = None) -> Any: ...
    def observe(self, state: State, player: int, events: bool = True) -> dict[str, Any]: ...
    def render_text(self, state: State, player: int | None) -> str: ...
    def state_from_data(self, data: Any) -> State: ...


def _copy_frames(stack: list[list]) -> list[list]:
    """A copy of each frame, its lists and dicts copied (``_copy_frame``), the common shapes in
    line: a clone copies every frame, and a call per frame costs more than the copy."""
    out: list[list] = []
    append = out.append
    for frame in stack:
        size = len(frame)
        if size == 3:  # most frames: [code, pc, env] (a block's, frames.BLOCK) or three numbers
            code, pc, env = frame
            if type(pc) is int:
                kind = type(env)
                if kind is dict:
                    append([code, pc, env.copy()])
                    continue
                if kind is not list:
                    append([code, pc, env])
                    continue
        elif size == 2 and type(frame[STAGE]) is int:  # [code, stage]: the match's (frames.MATCH)
            append(frame[:])
            continue
        append(_copy_frame(frame))
    return out


def _copy_frame(frame: list) -> list:
    out = frame[:]
    for i, item in enumerate(out):
        if type(item) is dict:
            out[i] = item.copy()
        elif type(item) is list:
            out[i] = item[:]
    return out


_NESTED = (list, dict)


def _shape_copier(value: Any) -> Callable[[Any], Any]:
    """A function that copies a value shaped as ``value`` (lists and dicts at the same places),
    each list and dict in it at any depth; a record (a tuple) is rebuilt of copies of its items."""
    kind = type(value)
    if isinstance(value, tuple):
        nested = [(i, _shape_copier(item)) for i, item in enumerate(value) if type(item) in _NESTED]
        if not nested:
            return _itself  # (immutable, and nothing in it to copy)

        def copy_record(v: tuple) -> tuple:
            out = list(v)
            for i, copy in nested:
                out[i] = copy(out[i])
            return tuple.__new__(kind, out)

        return copy_record
    if kind is dict:
        keyed = [(key, _shape_copier(item)) for key, item in value.items() if type(item) in _NESTED]
        if not keyed:
            return dict.copy

        def copy_dict(v: dict) -> dict:
            out = v.copy()
            for key, copy in keyed:
                out[key] = copy(v[key])
            return out

        return copy_dict
    if kind is list:
        placed = [(i, _shape_copier(item)) for i, item in enumerate(value) if type(item) in _NESTED]
        if not placed:
            return list.copy

        def copy_list(v: list) -> list:
            out = v[:]
            for i, copy in placed:
                out[i] = copy(v[i])
            return out

        return copy_list
    return _itself


def _itself(value: Any) -> Any:
    return value


# the depth from which clone() shares a field's lists and dicts (0: the field's value itself)
_CLONE_DEPTH = {LIST: 1, LISTS: 2, FRAMES: 3, RECORD: 1}


def _holds_container(value: Any, depth: int) -> bool:
    """Is there a list or dict ``depth`` levels inside ``value`` (a record's items are one level in)?"""
    level = [value]
    for _ in range(depth):
        level = [item for v in level if type(v) in (list, dict) or isinstance(v, tuple)
                 for item in (v.values() if type(v) is dict else v)]
    return any(type(item) in _NESTED for item in level)


def _declared_copy(annotation: str) -> str | None:
    """How a field annotated ``annotation`` is copied: the kind in ``Annotated[type, KIND]``, None if not data."""
    node = ast.parse(annotation, mode="eval").body
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Annotated"):
        return None
    kind = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else None
    if not isinstance(kind, ast.Name) or kind.id not in _KINDS:
        raise TypeError(f"State field annotated {annotation!r}: the last part names how it is copied "
                        f"({', '.join(_KINDS)})")
    return _KINDS[kind.id]


# The state's data: field name -> how clone() copies it, in declaration order.
_COPIES: dict[str, str] = {
    name: kind for name, annotation in State.__annotations__.items()
    if (kind := _declared_copy(annotation)) is not None
}
_FIELDS: tuple[str, ...] = tuple(_COPIES)


# ---------------------------------------------------------------------- primitives


def move_card(s: State, card: int, dst: int, face: int, bottom: bool = False) -> None:
    src = s.loc[card]
    if src >= 0:
        cards = s.zones[src]
        if cards and cards[-1] == card:
            cards.pop()
        else:
            cards.remove(card)
        if not cards:
            s.shuffled[src] = False
    if bottom:
        s.zones[dst].insert(0, card)
    else:
        s.zones[dst].append(card)
    s.loc[card] = dst
    s.face[card] = face
    watched = s.game.watched_zones
    if watched[dst] or (src >= 0 and watched[src]):
        s.dirty = True


def move_cards(s: State, cards: list, dst: int, face: int, bottom: bool = False) -> None:
    """``move_card`` for each of ``cards`` in turn (the same zones, faces and order; a bad card
    fails where ``move_card`` would, the cards before it moved), in one call."""
    zones = s.zones
    loc = s.loc
    faces = s.face
    watched = s.game.watched_zones
    target = zones[dst]
    if not bottom and cards == target and cards:
        # (every card of ``dst`` in its own order, as `move all cards to deck` at the start: each
        # leaves the zone and goes back on top, so only the faces change)
        for card in cards:
            faces[card] = face
        if len(cards) == 1:
            s.shuffled[dst] = False
        if watched[dst]:
            s.dirty = True
        return
    dirty = False
    for card in cards:
        src = loc[card]
        if src >= 0:
            held = zones[src]
            if held and held[-1] == card:
                held.pop()
            else:
                held.remove(card)
            if not held:
                s.shuffled[src] = False
            if watched[src]:
                dirty = True
        if bottom:
            target.insert(0, card)
        else:
            target.append(card)
        loc[card] = dst
        faces[card] = face
        if watched[dst]:
            dirty = True
    if dirty:
        s.dirty = True


def move_zone(s: State, src: int, dst: int, face: int, bottom: bool = False) -> None:
    """``move_cards`` of every card of zone ``src``, in its order (`move all` of a zone), with one
    extend rather than a removal per card when it goes on top of another zone. A shuffled zone
    moved whole into an empty one stays in unknown order."""
    cards = s.zones[src]
    keeps_shuffle = s.shuffled[src] and not s.zones[dst]
    if bottom or src == dst:
        move_cards(s, list(cards), dst, face, bottom)
    elif cards:
        loc = s.loc
        faces = s.face
        for card in cards:
            loc[card] = dst
            faces[card] = face
        s.zones[dst].extend(cards)
        cards.clear()
        s.shuffled[src] = False
        watched = s.game.watched_zones
        if watched[src] or watched[dst]:
            s.dirty = True
    if keeps_shuffle and len(s.zones[dst]) > 1:
        s.shuffled[dst] = True


LARGE_ZONE = 64  # cards in a zone past which taking one from its middle is paid for


def take_card(s: State, zone: int, mode: int) -> int | None:
    """The card to take from ``zone``: 0 top, 1 bottom, 2 random; random when shuffled."""
    cards = s.zones[zone]
    if not cards:
        return None
    if mode == 2 or s.shuffled[zone]:
        s.rng, i = RNG.below(s.rng, len(cards))
        if len(cards) > LARGE_ZONE:
            s.ops -= len(cards)  # taking from the middle of a large zone costs its length (the caller's loop checks)
        return cards[i]
    return cards[-1] if mode == 0 else cards[0]


def draw_top(s: State, src: int, dst: int, face: int) -> bool:
    """``take_card(s, src, 0)`` then ``move_card`` of that card to ``dst``, in one call (a
    draw or a deal: the commonest move). False, and nothing moves, when ``src`` is empty."""
    cards = s.zones[src]
    if not cards:
        return False
    if s.shuffled[src]:
        s.rng, i = RNG.below(s.rng, len(cards))
        if len(cards) > LARGE_ZONE:
            s.ops -= len(cards)  # as take_card
        card = cards.pop(i)
    else:
        card = cards.pop()
    if not cards:
        s.shuffled[src] = False
    s.zones[dst].append(card)
    s.loc[card] = dst
    s.face[card] = face
    watched = s.game.watched_zones
    if watched[dst] or watched[src]:
        s.dirty = True
    return True


def deal_cards(s: State, src: int, dsts: list[int], faces: list[int], rounds: int) -> None:
    """``rounds`` rounds of ``draw_top`` from ``src`` to each zone of ``dsts`` in turn (with
    ``faces[i]`` for ``dsts[i]``), in one call: the same cards, random numbers and budget; the
    deal stops when ``src`` runs out."""
    cards = s.zones[src]
    if src in dsts:  # (each card goes back on top of the zone it came from: one at a time)
        for _ in range(rounds):
            for z, f in zip(dsts, faces):
                if not draw_top(s, src, z, f):
                    return
        return
    n = len(cards)
    k = min(rounds * len(dsts), n)
    if k <= 0:
        return
    if s.shuffled[src]:
        s.rng, picks = RNG.below_run(s.rng, n, k)
        if n > LARGE_ZONE:  # as draw_top: a draw from a large zone costs its length
            s.ops -= sum(size for size in range(n, n - k, -1) if size > LARGE_ZONE)
    else:
        picks = [-1] * k  # (the top card each time)
    zones = s.zones
    loc = s.loc
    face = s.face
    width = len(dsts)
    for j, i in enumerate(picks):
        card = cards.pop(i)
        z = dsts[j % width]
        zones[z].append(card)
        loc[card] = z
        face[card] = faces[j % width]
    if not cards:
        s.shuffled[src] = False
    watched = s.game.watched_zones
    if watched[src] or any(watched[z] for z in dsts[:k]):
        s.dirty = True


def move_piece(s: State, piece: int, cell: int, span: Any = None) -> None:
    occupant = s.cell_piece[cell]
    if occupant >= 0 and occupant != piece:
        names = s.game.board.names if s.game.board else ()
        raise RuleError(f"cell {names[cell]} already holds a piece", span)
    old = s.piece_cell[piece]
    if old >= 0:
        s.cell_piece[old] = -1
    s.cell_piece[cell] = piece
    s.piece_cell[piece] = cell
