"""Random draws, deals, picks and `let`s as chance events (explicit chance): the codes whose
frames or pending records wait for a chance outcome."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .codes import Code
from .effects import TOP
from .frames import (
    DEAL,
    DEAL_FACE,
    DEAL_POS,
    DEAL_SRC,
    DEAL_TARGETS,
    DEAL_TOTAL,
    DRAW,
    DRAW_DST,
    DRAW_FACE,
    DRAW_LEFT,
    DRAW_MODE,
    DRAW_SRC,
    ENV,
)
from .state import CHANCE, Pending, State, move_card

__all__ = ["DrawCode", "DealCode", "RandomPickCode", "LetChanceCode"]


# ---------------------------------------------------------------------- explicit chance


def _kinds_in(cards: list, kind_of: tuple) -> dict[int, int]:
    counts: dict[int, int] = {}
    for c in cards:
        k = kind_of[c]
        counts[k] = counts.get(k, 0) + 1
    return counts


def _chance_node(s: State, code_index: int, counts: dict[Any, int], payload: Any) -> None:
    total = sum(counts.values())
    outcomes = sorted(counts)
    s.pending = Pending(CHANCE, outcomes, [counts[o] / total for o in outcomes], code_index, payload)


class DrawCode(Code):
    """draw N / move top|bottom|random ZONE, with each random card a chance event."""

    __slots__ = ("count", "source", "dest", "face", "mode", "fewest")
    layout = DRAW
    count: Callable[[State, dict], Any] | None
    source: Callable[[State, dict], Any]
    dest: Callable[[State, dict], Any]
    face: Callable[[State, dict, int], int]
    mode: int
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        src = self.source(s, env)
        dst = self.dest(s, env)
        face = self.face(s, env, dst)
        count = 1 if self.count is None else self.count(s, env)
        s.stack.append([self.index, count, src, dst, face, self.mode])

    def step(self, s: State, frame: list) -> None:
        kind_of = s.game.cards.kind_of
        while frame[DRAW_LEFT] > 0:
            src = frame[DRAW_SRC]
            cards = s.zones[src]
            if not cards:
                break
            if frame[DRAW_MODE] == 2 or s.shuffled[src]:
                counts = _kinds_in(cards, kind_of)
                if len(counts) >= self.fewest:
                    _chance_node(s, self.index, counts, None)
                    return
                card = cards[-1]
            else:
                card = cards[-1] if frame[DRAW_MODE] == TOP else cards[0]
            move_card(s, card, frame[DRAW_DST], frame[DRAW_FACE])
            frame[DRAW_LEFT] -= 1
        s.stack.pop()

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        frame = s.stack[-1]
        kind = pending.legal[index]
        kind_of = s.game.cards.kind_of
        cards = s.zones[frame[DRAW_SRC]]
        card = next(c for c in reversed(cards) if kind_of[c] == kind)
        move_card(s, card, frame[DRAW_DST], frame[DRAW_FACE])
        frame[DRAW_LEFT] -= 1


class DealCode(Code):
    __slots__ = ("count", "source", "targets", "face", "fewest")
    layout = DEAL
    count: Callable[[State, dict], Any]
    source: Callable[[State, dict], Any]
    targets: Callable[[State], list[int]]
    face: int
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        targets = self.targets(s)
        s.stack.append([self.index, 0, self.count(s, env) * len(targets), self.source(s, env), targets, self.face])

    def step(self, s: State, frame: list) -> None:
        kind_of = s.game.cards.kind_of
        faces = s.game.zone_face
        targets = frame[DEAL_TARGETS]
        while frame[DEAL_POS] < frame[DEAL_TOTAL]:
            src = frame[DEAL_SRC]
            cards = s.zones[src]
            if not cards:
                break
            if s.shuffled[src]:
                counts = _kinds_in(cards, kind_of)
                if len(counts) >= self.fewest:
                    _chance_node(s, self.index, counts, None)
                    return
            dst = targets[frame[DEAL_POS] % len(targets)]
            move_card(s, cards[-1], dst, faces[dst] if frame[DEAL_FACE] < 0 else frame[DEAL_FACE])
            frame[DEAL_POS] += 1
        s.stack.pop()

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        frame = s.stack[-1]
        kind = pending.legal[index]
        kind_of = s.game.cards.kind_of
        faces = s.game.zone_face
        cards = s.zones[frame[DEAL_SRC]]
        card = next(c for c in reversed(cards) if kind_of[c] == kind)
        dst = frame[DEAL_TARGETS][frame[DEAL_POS] % len(frame[DEAL_TARGETS])]
        move_card(s, card, dst, faces[dst] if frame[DEAL_FACE] < 0 else frame[DEAL_FACE])
        frame[DEAL_POS] += 1


class RandomPickCode(Code):
    """`move random LIST to ZONE` with the card a chance event (by kind)."""

    __slots__ = ("pool", "dest", "face", "bottom", "fewest")
    pool: Callable[[State, dict], Any]
    dest: Callable[[State, dict], Any]
    face: Callable[[State, dict, int], int]
    bottom: bool
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        pool = list(self.pool(s, env))
        if not pool:
            return
        dst = self.dest(s, env)
        face = self.face(s, env, dst)
        counts = _kinds_in(pool, s.game.cards.kind_of)
        if len(counts) < self.fewest:
            move_card(s, pool[0], dst, face, self.bottom)
            return
        _chance_node(s, self.index, counts, [pool, dst, face])

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        pool, dst, face = pending.payload
        kind = pending.legal[index]
        kind_of = s.game.cards.kind_of
        card = next(c for c in pool if kind_of[c] == kind)
        move_card(s, card, dst, face, self.bottom)


class LetChanceCode(Code):
    """`let x = chance(p)` / `let x = random(list)` as a chance event."""

    __slots__ = ("name", "outcomes", "shown", "fewest")
    name: str
    outcomes: Callable[[State, dict], tuple[dict, dict]]
    shown: Callable[[Any, Any], str] | None  # an outcome's value as its label shows it (a card by its name)
    fewest: int  # outcomes that make a chance node (fewest_outcomes)

    def enter(self, s: State, env: dict) -> None:
        counts, values = self.outcomes(s, env)
        if len(counts) < self.fewest or not counts:
            env[self.name] = values[next(iter(counts))] if counts else None
            return
        _chance_node(s, self.index, counts, {str(k): v for k, v in values.items()})

    def resolve_chance(self, s: State, pending: Pending, index: int) -> None:
        outcome = pending.legal[index]
        s.stack[-1][ENV][self.name] = pending.payload[str(outcome)]
