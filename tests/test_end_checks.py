"""The round's `end_when` is evaluated only after something it reads changed (the state is
``dirty``): the matches are exactly those of evaluating it after every statement."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import interpreter
from interpreter import link as link_module
from interpreter.footprint import reads
from interpreter.state import State
from tests.conftest import GAMES


class AlwaysDirty(State):
    """A state whose end conditions are evaluated after every statement, as before tracking."""

    __slots__ = ()

    @property  # type: ignore[override]
    def dirty(self) -> bool:
        return True

    @dirty.setter
    def dirty(self, value: bool) -> None:
        pass


def _configs() -> list[tuple[str, int, dict[str, Any], bool]]:
    out = []
    for path in sorted(GAMES.glob("*.yaml")):
        game = interpreter.load_game(str(path))
        seen = set()
        for variant in [{"players": game.num_players, "options": {}}] + game.variants:
            key = (variant["players"], tuple(sorted(variant["options"].items())))
            if key not in seen:
                seen.add(key)
                out.append((path.name, variant["players"], dict(variant["options"]), False))
        out.append((path.name, game.num_players, {}, True))
    return out


def _play(game: interpreter.Game, seed: int) -> list[str]:
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    trace = [state.to_json()]
    while not state.is_terminal() and len(trace) < 3000:
        actions = state.legal_actions()
        state.apply_action(rng.choice(actions))
        trace.append(state.to_json())
    return trace


@pytest.mark.parametrize("name,players,options,explicit", _configs(),
                         ids=lambda v: str(v) if not isinstance(v, dict) else ",".join(map(str, v.values())))
def test_tracked_end_checks_play_the_same_matches(name: str, players: int, options: dict[str, Any], explicit: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _same_matches(lambda: interpreter.load_game(str(GAMES / name), players=players, options=options,
                                                explicit_chance=explicit), range(2), monkeypatch)


def _same_matches(make: Callable[[], interpreter.Game], seeds: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches of a game with tracking, then the same matches with every check evaluated."""
    game = make()
    tracked = [_play(game, seed) for seed in seeds]
    assert type(game.new_initial_state(0)) is State
    monkeypatch.setattr(link_module, "State", AlwaysDirty)  # states made from now on are always dirty
    game = make()  # (a game keeps a copy of its first state to copy again: a new one, made dirty)
    assert type(game.new_initial_state(0)) is AlwaysDirty and type(game.new_initial_state(1)) is AlwaysDirty
    for seed, trace in zip(seeds, tracked):
        assert trace == _play(game, seed), f"seed {seed}"
    monkeypatch.undo()


def test_what_the_seed_games_end_conditions_read() -> None:
    game = interpreter.load_game(str(GAMES / "highjack.yaml"), players=4)
    keys = reads(game.gamedef.model.round.end_when, game.link)
    assert keys is not None and {k for k in keys if k[0] == "zone"} == {("zone", "session"),
                                                                        ("zone", "session_pile"), ("zone", "stash")}
    watched = {game.link.zone_family[z] for z, on in enumerate(game.link.end_watch.zones) if on}
    assert watched == {"session", "session_pile", "stash"}


def test_a_read_the_footprint_cannot_name_keeps_every_check() -> None:
    from rulespec import ast as A

    game = interpreter.load_game(str(GAMES / "highjack.yaml"), players=4)
    strange = A.Name(game.gamedef.model.round.end_when[0].span, "nobody_knows")  # no reference recorded
    assert reads([strange], game.link) is None


_DECK = """\
cards:
  name: "{colour} {number}"
  list:
    - family: {colour: [red, blue, green], number: "1..6"}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
"""  # 18 cards, a hidden deck and a hand per player: the card games below share it

_CARDS = """\
rulespec: 1
game: {name: Ends, players: 3, limits: {actions: 3000}}
""" + _DECK + """\
  pile: {}
variables:
  played: {type: int, initial: 0, reset: round}
  points: {type: int, per: player, initial: 0, reset: round}
  latest: {type: value}
  fresh: {type: bool, initial: true, reset: turn}
procedures:
  tally(p, c):
    - p.points += c.number
actions:
  play:
    for: card in hand(current)
    do: [fresh = false, move card to pile, played += 1, "call tally(current, card)", latest = card.number]
  draw:
    do: [draw 1 from deck to hand(current), current.score += 1]
round:
  setup:
    - move all cards to deck
    - shuffle deck
    - deal 2 from deck to hand
  turn:
    - choose: [play, draw]
    - if: turn % 4 == 0
      then: [shuffle deck]
  end_when:
    - END
match:
  end_when: round >= 3
"""

_ENDS = [
    "played >= 7",
    "any(p.points > 15 for p in players)",
    "count(deck) == 0",
    "top(pile) != none and top(pile).number == 6",
    "turn > 12 and current == player(1)",
    "any(p.score >= 4 for p in players)",
    "latest == 5",
    "count(hand(dealer)) >= 5",
    "fresh and played >= 7",  # true only once a new turn resets `fresh`
]


@pytest.mark.parametrize("end", _ENDS)
def test_each_kind_of_read_is_tracked(end: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Zones (cards and order), variables, per-player variables, scores, flow names: a round
    that ends on any of them ends at the same statement with and without tracking."""
    game = interpreter.game_from_text(_CARDS.replace("END", end))
    assert not game.link.end_watch.everything
    _same_matches(lambda: interpreter.game_from_text(_CARDS.replace("END", end)), range(8), monkeypatch)


def test_the_comparison_would_catch_a_missed_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """If assignments forgot to mark the state, the matches would differ: the test above can fail."""
    from interpreter import codegen_blocks, effects

    def forgetful() -> interpreter.Game:
        with monkeypatch.context() as patch:
            patch.setattr(effects, "_marking", lambda fn: fn)
            patch.setattr(codegen_blocks, "_marks", lambda L, key: False)
            return interpreter.game_from_text(_CARDS.replace("END", "played >= 7"))

    with pytest.raises(AssertionError, match="seed"):
        _same_matches(forgetful, range(12), monkeypatch)


_PIECES = """\
rulespec: 1
game: {name: P, players: 2, limits: {actions: 400}}
board: {rows: 3, cols: 3}
pieces:
  mark: {per_player: 9}
variables:
  moves: {type: int, initial: 0}
round:
  first: player(0)
  turn:
    - choose:
        - action: put
          for: c in empty_cells()
          do: [place mark of current at c]
        - action: lift
          for: x in pieces(current)
          if: x.cell != none
          do: [remove x]
        - action: slide
          for: x in pieces(current)
          if: x.cell != none and count(slides(x)) > 0
          do: [move x to first(slides(x))]
    - moves += 1
  end_when:
    - END
match:
  end_when: round >= 2
"""


@pytest.mark.parametrize("end", ["line(current, 3)",
                                 "piece_at(cell('b2')) != none and piece_at(cell('b2')).owner == player(1)",
                                 "count(empty_cells()) <= 3", "any(x.cell == cell('a1') for x in pieces(player(0)))"])
def test_pieces_are_tracked(end: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = interpreter.game_from_text(_PIECES.replace("END", end))
    assert not game.link.end_watch.everything
    _same_matches(lambda: interpreter.game_from_text(_PIECES.replace("END", end)), range(10), monkeypatch)


_PEEK = """\
rulespec: 1
game: {name: Peek, players: 2, limits: {actions: 3000}}
""" + _DECK + """\
variables:
  passes: {type: int, initial: 0}
actions:
  pass:
    do: [passes += 1]
round:
  setup: [move all cards to deck, shuffle deck, deal 3 from deck to hand]
  turn:
    - choose: [pass]
    - choose: [pass]
  end_when:
    - any(c.number == 6 for c in hand(left(current)))
match:
  end_when: round >= 1
"""


def test_a_sampled_world_looks_at_its_end_conditions_again() -> None:
    """The sampler deals the hidden cards anew behind the writers' backs: a world where the round
    should end after the next statement must end there, in the middle of a turn too."""
    from interpreter.sampling import sample_consistent

    game = interpreter.game_from_text(_PEEK)
    compared = ended = 0
    for seed in range(30):
        state = game.new_initial_state(seed)
        if state.is_terminal():
            continue
        state.apply_action(state.legal_actions()[0])  # the turn's first choice: the check ran
        if state.is_terminal():
            continue
        for k in range(10):
            sample = sample_consistent(state, state.current_player(), k)
            tracked, checked = sample.clone(), sample.clone()
            checked.dirty = True  # as if the check followed every statement
            tracked.apply_action(tracked.legal_actions()[0])
            checked.apply_action(checked.legal_actions()[0])
            assert tracked == checked, f"seed {seed} sample {k}"
            compared += 1
            ended += checked.is_terminal()
    assert compared and ended  # the comparison covered worlds whose round ended
