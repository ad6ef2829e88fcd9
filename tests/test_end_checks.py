"""The round's `end_when` is evaluated only after something it reads changed (the state is
``dirty``): the matches are exactly those of evaluating it after every statement."""

from __future__ import annotations

import random
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
    game = interpreter.load_game(str(GAMES / name), players=players, options=options, explicit_chance=explicit)
    _same_matches(game, range(2), monkeypatch)


def _same_matches(game: interpreter.Game, seeds: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches of ``game`` with tracking, then the same matches with every check evaluated."""
    tracked = [_play(game, seed) for seed in seeds]
    assert type(game.new_initial_state(0)) is State
    monkeypatch.setattr(link_module, "State", AlwaysDirty)  # states made from now on are always dirty
    assert type(game.new_initial_state(0)) is AlwaysDirty
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


_CARDS = """\
rulespec: 1
game: {name: Ends, players: 3, limits: {actions: 3000}}
cards:
  name: "{colour} {number}"
  list:
    - family: {colour: [red, blue, green], number: "1..6"}
zones:
  deck: {visibility: hidden}
  hand: {per: player, visibility: owner}
  pile: {}
variables:
  played: {type: int, initial: 0, reset: round}
  points: {type: int, per: player, initial: 0, reset: round}
  latest: {type: value}
procedures:
  tally(p, c):
    - p.points += c.number
actions:
  play:
    for: card in hand(current)
    do: [move card to pile, played += 1, "call tally(current, card)", latest = card.number]
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
]


@pytest.mark.parametrize("end", _ENDS)
def test_each_kind_of_read_is_tracked(end: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Zones (cards and order), variables, per-player variables, scores, flow names: a round
    that ends on any of them ends at the same statement with and without tracking."""
    game = interpreter.game_from_text(_CARDS.replace("END", end))
    assert not game.link.end_watch.everything
    _same_matches(game, range(8), monkeypatch)


def test_the_comparison_would_catch_a_missed_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """If assignments forgot to mark the state, the matches would differ: the test above can fail."""
    from interpreter import effects

    monkeypatch.setattr(effects, "_marking", lambda fn: fn)
    forgetful = interpreter.game_from_text(_CARDS.replace("END", "played >= 7"))
    monkeypatch.undo()
    with pytest.raises(AssertionError):
        _same_matches(forgetful, range(12), monkeypatch)
