"""The flow of a match, each part driven by a tiny inline spec: seats, the dealer, turns,
phases and rounds; `next`, `skip` and `skip_when`; scoring, winners and the ends of a round and
of a match (and what they cost); a match that never ends; procedures that wait, called deeper
than Python nests calls."""

from __future__ import annotations

import random
import textwrap

import pytest

import interpreter
from rulespec import SpecError
from tests.conftest import ROOT
from tests.support import act, engine_mode, play_random, tiny_game

# ---------------------------------------------------------------- turns, seats, dealer


def test_seat_order_start_player_dealer_rotation_and_rounds():
    game = tiny_game("""
        variables: {log: {type: players, initial: []}}
        round:
          setup: ["dealer = left(dealer) if round > 1 else dealer"]
          turn:
            - log += [current]
            - if: turn == num_players
              then: [end round]
        match: {end_when: round >= 3}
    """, players=3)
    state = game.new_initial_state(0)
    # no decision at all: the match runs to the end
    assert state.is_terminal()
    # round 1 dealer 0 -> starts at 1; round 2 dealer 1 -> 2; round 3 dealer 2 -> 0
    assert state.observation(0)["variables"]["log"] == [1, 2, 0, 2, 0, 1, 0, 1, 2]
    assert [e["round"] for e in state.events if e["type"] == "round_start"] == [1, 2, 3]


def test_unreachable_phases_are_rejected():
    with pytest.raises(Exception) as info:
        tiny_game("""
        variables: {trace: {type: players, initial: []}, steps: {type: int, initial: 0}}
        round:
          phases:
            - name: bid
              first: player(1)
              turn: [steps += 1, "trace += [current]"]
              end_when: steps >= 2
              next: play
            - name: skipped
              turn: [pass]
              end_when: true
            - name: play
              first: player(0)
              order: right
              turn: [steps += 1, "trace += [current]"]
              end_when: steps >= 5
        match: {end_when: true}
    """, players=3)
    # phase `skipped` is unreachable (bid jumps to play): the checker rejects that
    assert "phase 'skipped' can never be reached" in str(info.value)


def test_phases_order_right_and_next():
    game = tiny_game("""
        variables: {trace: {type: players, initial: []}, steps: {type: int, initial: 0}}
        round:
          phases:
            - name: bid
              first: player(1)
              turn: [steps += 1, "trace += [current]"]
              end_when: steps >= 2
            - name: play
              first: player(0)
              order: right
              turn: [steps += 1, "trace += [current]"]
              end_when: steps >= 5
        match: {end_when: true}
    """, players=3)
    state = game.new_initial_state(0)
    assert state.observation(0)["variables"]["trace"] == [1, 2, 0, 2, 1]


def test_skip_next_turn():
    game = tiny_game("""
        variables: {trace: {type: players, initial: []}}
        round:
          setup: [skip player(2)]
          turn:
            - trace += [current]
            - if: turn == 4
              then: [end round]
        match: {end_when: true}
    """, players=3)
    state = game.new_initial_state(0)
    assert state.observation(0)["variables"]["trace"] == [1, 0, 1, 2]
    assert {"type": "turn_skipped", "player": 2} in state.events

# ---------------------------------------------------------------- scoring and match end


def test_scores_with_floors_totals_and_match_end_by_target():
    game = tiny_game("""
        options: {target: {type: int, default: 5, min: 1, max: 100}}
        round:
          turn: [end round]
          scoring:
            - for: p in players
              do: ["p.score = max(0, round * (p.seat + 1) - 2)"]
        match: {end_when: max(p.total for p in players) >= option.target}
    """)
    state = game.new_initial_state(0)
    ends = [e for e in state.events if e["type"] == "round_end"]
    assert [e["scores"] for e in ends] == [[0, 0], [0, 2], [1, 4]]
    assert ends[-1]["totals"] == [1, 6]
    assert state.winners() == [1] and state.returns() == [0.0, 1.0]


def test_match_end_by_round_count_and_by_event_and_shared_wins():
    game = tiny_game("""
        round: {turn: [end round]}
        match: {end_when: round >= 4}
    """)
    state = game.new_initial_state(0)
    assert state.round == 4 and state.winners() == [0, 1] and state.returns() == [0.5, 0.5]
    game = tiny_game("""
        round: {turn: ["emit bang(at=round)", end game]}
    """)
    state = game.new_initial_state(0)
    assert {"type": "bang", "at": 1} in state.events and state.events[-1]["type"] == "match_end"


def test_winners_the_spec_lists_are_sorted_and_each_once():
    game = tiny_game("""
        round: {turn: [end game]}
        match: {winners: "[player(2), player(0), player(2)]"}
    """, players=3)
    state = game.new_initial_state(0)
    assert state.winners() == [0, 2] and state.returns() == [0.5, 0.0, 0.5]
    assert state.events[-1]["winners"] == [0, 2]


def test_the_end_of_a_round_costs_one_unit_of_budget_per_frame_stepped():
    """Each frame stepped costs one unit: a round ending with a scoring block of one
    statement steps one frame more (that block) than a round without scoring."""
    def spent_by_the_last_action(scoring: str) -> int:
        game = tiny_game(f"""
            actions: {{go: {{do: [end round]}}}}
            round: {{turn: [choose: [go]]{scoring}}}
            match: {{end_when: round >= 1}}
        """)
        state = game.new_initial_state(0)
        state.apply_action(state.legal_actions()[0])
        assert state.is_terminal()
        return game.step_ops - state.ops

    assert spent_by_the_last_action(", scoring: [pass]") == spent_by_the_last_action("") + 1


@pytest.mark.parametrize("spec", sorted((ROOT / "games").glob("*.yaml")), ids=lambda p: p.stem)
def test_the_log_pays_for_round_and_match_ends_what_they_measure(spec, monkeypatch):
    """The ends of a round and of a match are logged with their sizes worked out as they are
    made (report fields measured): each is exactly what measuring the event gives."""
    import interpreter.link
    from interpreter.budget import event_units, log_event

    paid = []

    def logged(s, event, span, units=0):
        paid.append((event["type"], units, event_units(event)))
        log_event(s, event, span, units)

    monkeypatch.setattr(interpreter.link, "log_event", logged)
    game = interpreter.load_game(str(spec))
    state = game.new_initial_state(1)
    play_random(state, random.Random(1), limit=5000)
    kinds = {kind for kind, _, _ in paid}
    assert state.is_terminal() and {"round_start", "round_end", "match_end"} <= kinds
    assert [(kind, units) for kind, units, _ in paid] == [(kind, measured) for kind, _, measured in paid]


def test_a_game_that_never_ends_hits_the_declared_bound_with_its_position():
    game = tiny_game("""
        game: {name: Endless, players: 2, limits: {actions: 30}}
        round:
          turn:
            - choose: [wait]
            - if: false
              then: [end game]
        actions: {wait: {}}
    """, base="")
    state = game.new_initial_state(0)
    with pytest.raises(interpreter.GameLengthError) as info:
        for _ in range(100):
            state.apply_action(state.legal_actions()[0])
    assert "<string>:" in str(info.value) and "30" in str(info.value)

# ---------------------------------------------------------------- turn control: next

_NEXT = """
variables:
  n: {type: int, initial: 0}
round:
  first: player(0)
  turn:
    - choose:
        - action: again
          label: again
          do: [next current]
        - action: back
          label: back
          do: [next right(current)]
        - action: twice
          label: twice
          do: [next left(left(current)), next current]
        - action: hop
          label: hop
          do: [skip left(current), next left(current)]
        - action: pass
          label: pass
    - n += 1
    - if: n >= 8
      then: [end game]
match: {}
"""


@pytest.mark.parametrize("moves, seats", [
    (["again", "again", "pass"], [0, 0, 0, 1]),     # extra turns, then the order goes on
    (["back", "pass", "pass"], [0, 2, 0, 1]),       # the order goes on from the chosen seat
    (["twice", "pass"], [0, 0, 1]),                 # the last `next` of a turn counts
    (["hop", "pass"], [0, 2, 0]),                   # a skip still applies to the seat chosen
])
def test_next_gives_a_player_the_next_turn(moves, seats):
    assert _seats_to_move(tiny_game(_NEXT, players=3), moves) == seats


def _seats_to_move(game: interpreter.Game, moves: list[str]) -> list[int]:
    """The seat to move at the start, then after each of ``moves`` (labels)."""
    state = game.new_initial_state(0)
    seen = [state.current_player()]
    for move in moves:
        act(state, move)
        seen.append(state.current_player())
    return seen


# the same choice as the whole turn (no statement after it): the phase enters it with no frame
# for the turn, in generated code its own step and the choice's entry in one function
_LONE = _NEXT.replace("    - n += 1\n    - if: n >= 8\n      then: [end game]\n", "").replace(
    "        - action: pass\n          label: pass\n",
    "        - action: block\n          label: block\n          do: [skip left(current)]\n"
    "        - action: pass\n          label: pass\n          do:\n            - n += 1\n"
    "            - if: n >= 8\n              then: [end game]\n")


@pytest.mark.parametrize("mode", ["off", "on"])
@pytest.mark.parametrize("moves, seats", [
    (["again", "again", "pass"], [0, 0, 0, 1]),
    (["back", "pass", "pass"], [0, 2, 0, 1]),
    (["twice", "pass"], [0, 0, 1]),
    (["hop", "pass"], [0, 2, 0]),
    (["block", "pass", "pass"], [0, 2, 0, 1]),       # the next seat in order has a turn to skip
    (["pass", "block", "pass"], [0, 1, 0, 1]),       # (seat 2 skipped, from seat 1)
])
def test_next_and_skip_when_the_turn_is_one_choice(mode, moves, seats):
    with engine_mode(mode):
        game = tiny_game(_LONE, players=3)
        assert "action: block" in _LONE
        phase = next(code for code in game.codes if type(code).__name__ == "PhaseCode")
        assert phase.lone_choice is not None
        assert _seats_to_move(game, moves) == seats


def test_next_survives_a_saved_state_and_is_checked_when_loaded():
    """`next` chosen, the turn still running (a decision after it): the choice is in the
    state's data (`next_seat`), saved and restored with it."""
    game = tiny_game(
        _NEXT.replace("    - n += 1", "    - choose:\n        action: ok\n        label: ok\n    - n += 1"), players=3)
    state = game.new_initial_state(0)
    act(state, "back")
    assert state.next_seat == 2 and state.current_player() == 0
    restored = game.state_from_json(state.to_json())
    act(restored, "ok")
    assert restored.current_player() == 2
    bad = state.to_json().replace('"next_seat":2', '"next_seat":7')
    with pytest.raises(interpreter.StateError, match="next_seat is not a seat"):
        game.state_from_json(bad)
    plain = tiny_game(_NEXT.replace("next", "skip"), players=3)
    forged = plain.new_initial_state(0).to_json().replace('"next_seat":-1', '"next_seat":1')
    with pytest.raises(interpreter.StateError, match="no rule of this game gives a player the next turn"):
        plain.state_from_json(forged)

# ---------------------------------------------------------------- seats out of the hand

_SKIP_WHEN = """
game: {name: Tiny, players: 3}
variables:
  out: {type: bool, per: player, initial: "false"}
  turns: {type: players, initial: "[]"}
round:
  first: player(FIRST)
  ORDER
  skip_when: p.out
  turn:
    - "turns += [current]"
    - choose:
        - {action: stay, label: stay, do: [pass]}
        - {action: fold, label: fold, do: [current.out = true]}
match: {end_when: round >= 1}
"""


@pytest.mark.parametrize("first, order, moves, seats", [
    (0, "order: left", ["fold", "stay", "stay", "stay", "fold", "stay"], [0, 1, 2, 1, 2, 1, 1]),
    (0, "order: right", ["stay", "fold", "stay", "stay"], [0, 2, 1, 0, 1]),
    (1, "order: left", ["fold", "fold", "fold"], [1, 2, 0]),
])
def test_turns_pass_over_the_seats_skip_when_names(first, order, moves, seats):
    """A folded seat gets no more turns (the list ends with the turn now waiting); when every
    seat is out the round ends."""
    game = tiny_game(_SKIP_WHEN.replace("FIRST", str(first)).replace("ORDER", order), base="", players=3)
    state = game.new_initial_state(0)
    for move in moves:
        act(state, move)
    assert state.observation(0, events=False)["variables"]["turns"] == seats
    everyone_out = moves.count("fold") == 3
    assert state.is_terminal() == everyone_out


def test_skip_when_is_a_condition_on_p():
    text = textwrap.dedent(_SKIP_WHEN).replace("FIRST", "0").replace("ORDER", "").replace("p.out", "p")
    with pytest.raises(SpecError, match="skip_when"):
        interpreter.game_from_text(text)


def test_turns_pass_over_a_seat_out_of_the_hand_even_after_a_skip():
    game = tiny_game("""
        game: {name: Tiny, players: 3}
        variables:
          out: {type: bool, per: player, initial: "false"}
          turns: {type: players, initial: "[]"}
        round:
          first: player(1)
          skip_when: p.out
          turn:
            - "turns += [current]"
            - if: turn == 1
              then: [player(0).out = true, skip player(2)]
            - choose: {action: go, label: go, do: [pass]}
            - if: turn >= 3
              then: [end game]
        match: {}
        """, base="", players=3)
    state = game.new_initial_state(0)
    act(state, "go")
    act(state, "go")
    # turn 2: seat 2 skips its turn and seat 0 is out, so seat 1 plays again; turn 3: seat 2
    assert state.observation(0, events=False)["variables"]["turns"] == [1, 1, 2]


_DEEP_WAITING_CALLS = """\
rulespec: 1
game: {name: Deep, players: 2, limits: {actions: 1000}}
variables:
  n: {type: int}
procedures:
  down(d):
    # the calls go 300 deep within one step of the rules, then every level waits on its way back
    - n += 1
    - if: d > 0
      then: ["call down(d - 1)"]
    - choose: go
    - n += 100
actions:
  go: {do: [pass]}
round:
  turn:
    - call down(299)
    - end game
match:
  returns: {value: "0", min: -1, max: 1}
"""


def test_a_procedure_that_waits_can_call_itself_deeper_than_python_nests_calls():
    """A call (or an `if`) whose block can wait steps that block at once only while the stack of
    frames is shallow; deeper, the loop steps it, so 300 nested waiting calls neither reach
    Python's recursion limit nor change what happens."""
    game = interpreter.game_from_text(_DEEP_WAITING_CALLS)
    state = game.new_initial_state(0)
    depths = []
    while not state.is_terminal():
        depths.append(len(state.stack))
        state.apply_action(state.legal_actions()[0])
    assert len(depths) == 300 and max(depths) > 300
    assert state.g[game.link.var_slots["n"]] == 300 * 101
    saved = interpreter.game_from_text(_DEEP_WAITING_CALLS).new_initial_state(0)
    for _ in range(250):  # a state saved 250 calls deep resumes as the one that never stopped
        saved.apply_action(saved.legal_actions()[0])
    resumed = game.state_from_json(saved.to_json())
    while not resumed.is_terminal():
        resumed.apply_action(resumed.legal_actions()[0])
    assert resumed.to_json() == state.to_json()
