"""Helpers for rule tests: find cards by name, arrange zones and pieces, play actions by label.

Rule tests set up precise positions by editing a state's plain data through these
helpers (never the engine's internals elsewhere), then drive the rules through the
public API only.
"""

from __future__ import annotations

import functools
import io
import json
import random
import signal
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import interpreter
from interpreter import codegen
from interpreter.state import State, move_card

__all__ = [
    "card_ids", "zone_index", "set_zone", "place_piece", "labels", "act", "play_random", "zone_names",
    "cell_index", "played", "play_until", "inside_an_effect", "bounded", "Hang", "lockstep", "engine_mode",
    "play", "run", "loader", "TINY", "CARD_GAME", "tiny_game", "write_golden",
]

TINY = """
game: {name: Tiny, players: [2, 3, 4]}
"""

# eight cards C1..C8 (C8 on top of the pile when unshuffled) and a zone of each visibility
CARD_GAME = """
cards: {list: [{family: {n: "1..8"}, name: "C{n}"}]}
zones:
  pile: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {visibility: public}
  down: {per: player, visibility: public, face: down}
  discard: {visibility: top}
"""


def tiny_game(*parts: str, players: int = 2, options: dict | None = None, explicit: bool = False,
              base: str = TINY) -> interpreter.Game:
    """The game of a small inline spec: ``base`` (a name and 2 to 4 players; its three lines come
    first, so positions in ``parts`` are counted after them), then ``parts``, each dedented."""
    text = "\n".join(textwrap.dedent(p) for p in (base,) + parts)
    return interpreter.game_from_text(text, players=players, options=options, explicit_chance=explicit)



def card_ids(state: State, name: str) -> list[int]:
    """Ids of every card called ``name``."""
    names = state.game.cards.names
    found = [c for c, n in enumerate(names) if n == name]
    if not found:
        raise KeyError(f"no card named {name!r}")
    return found


def zone_index(state: State, zone: str, owner: Any = None) -> int:
    link = state.game.link
    base = link.zone_base[zone]
    if owner is None:
        return base
    if isinstance(owner, str):
        return base + cell_index(state, owner)
    return base + owner


def cell_index(state: State, name: str) -> int:
    return state.game.board.names.index(name)


def zone_names(state: State, zone: str, owner: Any = None) -> list[str]:
    names = state.game.cards.names
    return [names[c] for c in state.zones[zone_index(state, zone, owner)]]


def set_zone(state: State, zone: str, owner: Any, cards: Iterable[str], source: str | None = None,
             source_owner: Any = None, face: int | None = None) -> None:
    """Put the named cards into a zone (bottom to top), taking free copies from wherever they are.

    With ``source``, copies are taken from that zone first.
    """
    z = zone_index(state, zone, owner)
    used: set[int] = set(state.zones[z])
    for name in cards:
        candidates = card_ids(state, name)
        if source is not None:
            src = zone_index(state, source, source_owner)
            preferred = [c for c in candidates if state.loc[c] == src]
            candidates = preferred + [c for c in candidates if c not in preferred]
        card = next((c for c in candidates if c not in used), None)
        if card is None:
            raise ValueError(f"no free copy of {name!r}")
        used.add(card)
        move_card(state, card, z, state.game.zone_face[z] if face is None else face)


def place_piece(state: State, piece: int, cell: str) -> None:
    c = cell_index(state, cell)
    old = state.piece_cell[piece]
    if old >= 0:
        state.cell_piece[old] = -1
    occupant = state.cell_piece[c]
    if occupant >= 0:
        state.piece_cell[occupant] = -1
    state.cell_piece[c] = piece
    state.piece_cell[piece] = c


def labels(state: State) -> dict[str, int]:
    """Legal actions by their label."""
    return {state.action_to_string(a): a for a in state.legal_actions()}


def act(state: State, label: str) -> None:
    """Apply the legal action whose label is ``label`` (or starts with it, if unique)."""
    options = labels(state)
    if label in options:
        state.apply_action(options[label])
        return
    matches = [k for k in options if k.startswith(label)]
    if len(matches) != 1:
        raise AssertionError(f"no unique action {label!r}; legal: {sorted(options)}")
    state.apply_action(options[matches[0]])


def play(state: State, *actions: Any, legal: bool = True,
         action_of: Callable[[State, Any], int] | None = None) -> State:
    """Apply ``actions`` in order and return the state. An int is an action id, a text the legal
    action with exactly that label; ``action_of(state, action)``, when given, gives each one's id
    instead (a card by its name, a bid). With ``legal`` (the default) each must be one of the
    legal actions; without it the state's own check decides."""
    for action in actions:
        if action_of is not None:
            chosen = action_of(state, action)
        elif isinstance(action, str):
            options = labels(state)
            assert action in options, (action, sorted(options))
            chosen = options[action]
        else:
            chosen = action
        if legal:
            assert chosen in state.legal_actions(), (action, state.legal_actions(), sorted(labels(state)))
        state.apply_action(chosen)
    return state


def play_random(state: State, rng: random.Random, limit: int = 10**6) -> list[int]:
    """Play uniformly random actions (and chance outcomes by probability) to the end."""
    taken = []
    while not state.is_terminal() and len(taken) < limit:
        if state.is_chance_node():
            action = state.sample_chance_outcome(rng)
        else:
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
        state.apply_action(action)
        taken.append(action)
    return taken


def played(game: interpreter.Game, seed: int, steps: int) -> State:
    """The state after ``steps`` uniformly random actions from ``new_initial_state(seed)``
    (fewer if the match ends first)."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def play_until(game: interpreter.Game, seed: int, want: Any, limit: int = 400, attempts: int = 50) -> State:
    """The first state of random matches (seeds ``seed``, ``seed + 1``, ...) for which ``want`` holds."""
    for attempt in range(attempts):
        state = game.new_initial_state(seed=seed + attempt)
        rng = random.Random(seed + attempt)
        while not state.is_terminal() and len(state.history) < limit:
            if want(state):
                return state
            state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("no such state")


def inside_an_effect(state: State) -> bool:
    """The state waits on a choice made inside another action's effect (frames below the choice)."""
    from interpreter import flow

    pending = state.pending
    return (pending is not None and pending.player >= 0 and len(state.stack) > 8
            and type(state.game.codes[state.stack[-1][0]]) is flow.BlockCode and bool(state.stack[-1][2]))


@contextmanager
def engine_mode(mode: str) -> Iterator[None]:
    """Games linked inside the block run on ``mode``'s executor: "on" (generated code, the closures
    where it has none), "strict" (generated code with no fallback to the closures) or "off" (the
    closures only). The one place tests choose an executor (``interpreter.codegen.MODE``, read when
    a game is linked), so that the executor's switch can change here alone."""
    before = codegen.MODE
    codegen.MODE = mode
    try:
        yield
    finally:
        codegen.MODE = before


def loader(spec: str | Path, players: int | None = None, explicit_chance: bool = False,
           text: bool = False, cache: bool = False) -> Callable[..., interpreter.Game]:
    """``load(players=players, **options)``: the game of the spec file ``spec`` (of the spec text
    ``spec`` with ``text``) for that many players (None: the spec's default) with those options.
    With ``cache``, each (players, options) is linked once and the same game returned again."""

    def link(players: int | None, options: dict[str, Any]) -> interpreter.Game:
        if text:
            return interpreter.game_from_text(str(spec), players=players, options=options,
                                              explicit_chance=explicit_chance)
        return interpreter.load_game(str(spec), players=players, options=options, explicit_chance=explicit_chance)

    @functools.cache
    def cached(players: int | None, options: tuple[tuple[str, Any], ...]) -> interpreter.Game:
        return link(players, dict(options))

    def load(players: int | None = players, **options: Any) -> interpreter.Game:
        return cached(players, tuple(sorted(options.items()))) if cache else link(players, options)

    return load


def run(*argv: str, stdin: str = "", out: io.StringIO | None = None,
        err: io.StringIO | None = None) -> tuple[int, str, str]:
    """``rulespec ARGV...`` in this process with ``stdin`` as its input: its exit status and what
    it wrote to ``out`` and ``err`` (new buffers unless given)."""
    from interpreter.cli import main

    out = io.StringIO() if out is None else out
    err = io.StringIO() if err is None else err
    status = main(list(argv), out=out, err=err, stdin=io.StringIO(stdin))
    return status, out.getvalue(), err.getvalue()


def redecide(state: State) -> None:
    """Recompute the pending decision after a test rearranged zones (its options are stale)."""
    pending = state.pending
    assert pending is not None and pending.player >= 0, "a player must be deciding"
    code = state.game.codes[pending.code]
    state.pending = None
    code.enter(state, pending.payload)


def write_golden(path: Path, about: str, cases: dict[str, Any], **header: Any) -> None:
    """Write a golden file: ``{"about": about, **header, "cases": cases}``, each item of a case
    (a value of its dict, or of its list) on a line of its own, so that a diff shows which changed."""
    dumps = functools.partial(json.dumps, ensure_ascii=False)

    def items(case: Any) -> str:
        if isinstance(case, dict):
            return "{\n" + ",\n".join(f"   {dumps(k)}: {dumps(v)}" for k, v in case.items()) + "\n  }"
        return "[\n" + ",\n".join(f"   {dumps(v)}" for v in case) + "\n  ]"

    lines = [f" {dumps(k)}: {dumps(v)}" for k, v in {"about": about, **header}.items()]
    body = ",\n".join(f"  {dumps(k)}: {items(v)}" for k, v in cases.items())
    text = "{\n" + ",\n".join(lines) + ',\n "cases": {\n' + body + "\n }\n}\n"
    assert json.loads(text) == {"about": about, **header, "cases": cases}
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")


class Hang(Exception):
    pass


@contextmanager
def bounded(seconds: int) -> Iterator[None]:
    """A SIGALRM guard (a hang guard, never a speed assertion): the block fails when it takes longer,
    even if the code under test swallowed the ``Hang`` raised into it."""
    fired: list[bool] = []

    def on_alarm(signum: int, frame: Any) -> None:
        fired.append(True)
        raise Hang(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        assert not fired, f"took more than {seconds} s"


def uniform_choice(options: list[int], rng: random.Random) -> int:
    """The lockstep's default choice: uniformly among the options."""
    return options[rng.randrange(len(options))]


Choose = Callable[[list[int], random.Random], int]


def lockstep(ours: Any, theirs: Any, rng: random.Random, where: str,
             choose: Choose = uniform_choice) -> Iterator[tuple[int, int, list[int]]]:
    """Play our OpenSpiel-adapted state ``ours`` and OpenSpiel's ``theirs`` with the same actions
    to the end, checking at every node that both have the same current player and legal action
    ids (a chance node's too), and at a chance node the same outcomes in the same order with the
    same probabilities (to 12 places).

    Yields ``(player, action, options)`` before applying ``action`` to both (first ours, then
    theirs), so the caller can check labels and count things on the states as they are;
    ``options`` are OpenSpiel's legal ids or, at a chance node, its outcome ids in its order,
    and ``action`` is ``choose(options, rng)``. Ends asserting that ours is terminal too.
    ``where`` (e.g. "seed 3") starts every failure message.
    """
    step = 0
    while not theirs.is_terminal():
        at = f"{where}, step {step}"
        assert not ours.is_terminal(), f"{where}: ours ended early at step {step}"
        player = theirs.current_player()
        assert ours.current_player() == player, at
        legal = theirs.legal_actions()
        assert ours.legal_actions() == legal, at
        if theirs.is_chance_node():
            outcomes = theirs.chance_outcomes()
            assert [(o, round(p, 12)) for o, p in ours.chance_outcomes()] == \
                [(o, round(p, 12)) for o, p in outcomes], at
            options = [o for o, _ in outcomes]
        else:
            options = legal
        action = choose(options, rng)
        yield player, action, options
        ours.apply_action(action)
        theirs.apply_action(action)
        step += 1
    assert ours.is_terminal(), f"{where}: OpenSpiel ended, ours did not"
