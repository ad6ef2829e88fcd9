"""A state as data, each part driven by a tiny inline spec: an illegal action raises and leaves
the state as it was, copies play on independently, a saved state the rules cannot have made is
refused, and private variables are seen by their owner only and never sampled from the truth."""

from __future__ import annotations

import json
import textwrap

import pytest

import interpreter
from interpreter import IllegalActionError
from rulespec import SpecError
from tests.conftest import ROOT, require
from tests.support import CARD_GAME, TINY, act, engine_mode, tiny_game

# ---------------------------------------------------------------- safety


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    game = tiny_game(CARD_GAME, """
        round:
          setup: [deal 2 from pile to hand]
          turn:
            - choose: {action: play, for: c in hand(current), label: "play {c}", do: [move c to table]}
            - if: turn >= 3
              then: [end game]
    """)
    state = game.new_initial_state(0)
    before = state.clone()
    legal = state.legal_actions()
    for bad in [-1, game.num_distinct_actions + 5, next(a for a in range(game.num_distinct_actions) if a not in legal)]:
        with pytest.raises(IllegalActionError) as info:
            state.apply_action(bad)
        assert "may choose" in str(info.value) and "play C" in str(info.value)
        assert state == before
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    done = state.clone()
    with pytest.raises(IllegalActionError, match="game is over"):
        state.apply_action(legal[0])
    assert state == done and state.legal_actions() == []


@pytest.mark.parametrize("mode", ["on", "off"])
def test_playing_on_from_a_state_leaves_its_copies_as_they_were(mode):
    """A pending decision's env is its own: the block that goes on after the decision (a `let`
    after the choice) writes into its frame's env, never into the decision a copy shares."""
    with engine_mode(mode):
        game = tiny_game("""
        game: {name: Lets, players: 2}
        variables: {n: {type: int, initial: 0}}
        round:
          turn:
            - let m = n * 2
            - choose: {action: pick, for: "k in [1, 2]", label: "pick {k}", do: [n += k + m]}
            - let y = n + 1
            - if: y > 50
              then: [end game]
        match: {returns: {value: "0", min: 0, max: 0}}
    """, base="")
        state = game.new_initial_state(0)
        while not state.is_terminal():
            saved = state.to_json()
            ahead = state.clone()
            ahead.apply_action(ahead.legal_actions()[0])  # a copy plays on: the state is as it was
            assert state.to_json() == saved
            copy = state.clone()
            state.apply_action(state.legal_actions()[-1])  # the state plays on: its copy is as it was
            assert copy.to_json() == saved
            copy.apply_action(copy.legal_actions()[-1])
            assert copy.to_json() == state.to_json()

# ---------------------------------------------------------------- private per-player variables

_PRIVATE = """
variables:
  secret: {type: int, per: player, initial: "-1", visibility: owner}
  known: {type: int, per: player, initial: "0"}
round:
  turn:
    - choose:
        action: pick
        for: k in range(0, 3)
        label: "{k}"
        do: [current.secret = k + 10, current.known += 1]
    - if: all(p.secret >= 0 for p in players)
      then: [end game]
match: {}
"""


def test_a_private_variable_is_seen_by_its_owner_only_and_not_sampled_from_the_truth():
    from interpreter.sampling import sample_consistent

    game = tiny_game(_PRIVATE)
    state = game.new_initial_state(0)
    first = state.current_player()
    act(state, "2")
    other = 1 - first
    mine = state.observation(first, events=False)["players"]
    theirs = state.observation(other, events=False)["players"]
    assert mine[first]["secret"] == 12 and mine[first]["known"] == 1
    assert "secret" not in theirs[first] and theirs[first]["known"] == 1
    assert theirs[other]["secret"] == -1
    # a world sampled for the other player knows nothing of the secret; the owner's keeps it
    assert sample_consistent(state, other, 5).pv[0][first] == -1
    assert sample_consistent(state, first, 5).pv[0][first] == 12
    assert sample_consistent(state, other, 5).observation(other) == state.observation(other)


def test_only_a_players_variable_can_be_private():
    text = "\n".join(textwrap.dedent(p) for p in (TINY, _PRIVATE)).replace(
        'known: {type: int, per: player, initial: "0"}', 'known: {type: int, initial: "0", visibility: owner}')
    with pytest.raises(SpecError, match="belongs to no player"):
        interpreter.game_from_text(text)


def test_a_sampled_world_works_out_the_decision_from_forgotten_secrets():
    from interpreter.sampling import sample_consistent

    game = tiny_game("""
        variables:
          secret: {type: int, per: player, initial: 0, visibility: owner}
        round:
          first: player(1)
          turn:
            - if: turn == 1
              then: [current.secret = 3]
            - choose:
                action: pick
                for: m in range(0, 4)
                if: m <= current.secret
                label: "{m}"
                do: [end game]
        match: {}
        """)
    state = game.new_initial_state(0)
    assert len(state.legal_actions()) == 4
    sample = sample_consistent(state, 0, 1)
    assert sample.pv[0][1] == 0 and len(sample.legal_actions()) == 1


def test_a_saved_state_with_pieces_changed_by_no_rule_is_refused():
    game = interpreter.load_game(str(ROOT / "games" / "tictactoe.yaml"))
    state = game.new_initial_state(0)
    data = json.loads(state.to_json())
    for field, value, message in (("piece_owner", [1] * len(data["piece_owner"]), "gives a piece to another"),
                                  ("piece_kind", [["mark"]] + data["piece_kind"][1:], "is not a kind of piece")):
        bad = dict(data, **{field: value})
        with pytest.raises(interpreter.StateError, match=message):
            game.state_from_json(json.dumps(bad))


def test_a_game_with_private_variables_is_not_perfect_information_for_openspiel():
    require("pyspiel")
    from interpreter.adapters.openspiel import _perfect_information

    text = textwrap.dedent(_PRIVATE)
    assert not _perfect_information(tiny_game(text))
    assert _perfect_information(tiny_game(text.replace(", visibility: owner", "")))
