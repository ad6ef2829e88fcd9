"""Decisions, each driven by a tiny inline spec: `choose` over cards, players and named options
with conditions, stable action ids, a choice with nothing to choose, a decision inside an effect
and in a procedure named in play, secret commits revealed together (and a match of them played
twice alike), declarations, and priorities among actions."""

from __future__ import annotations

import random
import re

from tests.support import CARD_GAME, act, labels, play_random, tiny_game, zone_names

# ---------------------------------------------------------------- decisions


def test_choose_cards_players_and_named_options_with_conditions():
    game = tiny_game(CARD_GAME, """
        variables: {picked: {type: str, initial: ''}}
        round:
          setup: [deal 3 from pile to hand]
          turn:
            - choose:
                action: give
                for: c in hand(current) if c.n > 6, to in others(current)
                label: "give {c} to {to}"
                do: [move c to hand(to)]
            - choose:
                action: word
                for: w in ['hit', 'stay']
                if: count(hand(current)) < 3
                do: [picked = w]
            - end game
    """)
    state = game.new_initial_state(0)
    # seat 1 starts; it holds C8, C6, C4 (dealt from the top, seat 1 first): only C8 > 6
    assert sorted(labels(state)) == ["give C8 to P0"]
    act(state, "give C8 to P0")
    assert "C8" in zone_names(state, "hand", 0)
    assert sorted(labels(state)) == ["word w=hit", "word w=stay"]
    act(state, "word w=stay")
    assert state.observation(0)["variables"]["picked"] == "stay"


def test_action_ids_are_stable_and_encode_card_kinds():
    game = tiny_game("""
        cards: {list: [{name: X, copies: 2}, {name: Y}]}
        zones: {hand: {per: player}, pile: {}}
        round:
          setup: [deal 3 from pile to hand]
          turn:
            - choose: {action: play, for: c in hand(current), do: [end game]}
    """, players=2)
    state = game.new_initial_state(0)
    # two copies of X are one action
    assert state.legal_actions() == sorted(set(state.legal_actions()))
    ids = [a for a in state.legal_actions()]
    assert all(0 <= a < game.num_distinct_actions for a in ids)
    assert game.num_distinct_actions == 2  # kinds X and Y
    assert tiny_game("""
        cards: {list: [{name: X, copies: 2}, {name: Y}]}
        zones: {hand: {per: player}, pile: {}}
        round:
          setup: [deal 3 from pile to hand]
          turn:
            - choose: {action: play, for: c in hand(current), do: [end game]}
    """, players=2).new_initial_state(5).legal_actions() == state.legal_actions()


def test_choice_with_nothing_to_choose_is_skipped_or_runs_else():
    game = tiny_game("""
        variables: {note: {type: str, initial: ''}}
        zones: {hand: {per: player}}
        round:
          turn:
            - choose: {action: play, for: c in hand(current), do: [pass]}
            - choose:
                action: play
                for: c in hand(current)
                else: [note = 'nothing to play']
            - end game
    """)
    state = game.new_initial_state(0)
    assert state.is_terminal()
    assert state.observation(0)["variables"]["note"] == "nothing to play"


def test_decision_inside_an_effect_is_data_and_survives_json():
    game = tiny_game(CARD_GAME, """
        procedures:
          steal(me):
            - choose:
                action: victim
                by: me
                for: v in others(me)
                do: [move top hand(v) to hand(me)]
        round:
          setup: [deal 2 from pile to hand]
          turn:
            - choose: {action: play, for: c in hand(current), do: [move c to table, call steal(current)]}
            - end game
    """, players=3)
    state = game.new_initial_state(0)
    state.apply_action(state.legal_actions()[0])  # play any card
    assert state.current_player() == 1 and all(label.startswith("victim") for label in labels(state))
    restored = game.state_from_json(state.to_json())
    assert restored == state
    act(restored, "victim v=P2")
    act(state, "victim v=P2")
    assert restored == state and restored.is_terminal()


def test_a_procedure_named_in_play_runs_whether_or_not_it_waits():
    """`call c.effect(...)` names its procedure in play: one that waits (a choice) and one that
    does not, the latter given a frame code only when first called that way."""
    game = tiny_game("""
        cards:
          attributes:
            effect: {type: procedure, default: gain}
          list:
            - {family: {n: "1..4"}, name: "G{n}"}
            - {family: {n: "5..8"}, name: "S{n}", effect: steal}
        zones:
          pile: {visibility: hidden}
          hand: {per: player, visibility: owner}
          table: {visibility: public}
        procedures:
          gain(me, c):
            - me.score += c.n
          steal(me, c):
            - choose:
                action: victim
                by: me
                for: v in others(me)
                do: [v.score -= c.n]
        round:
          setup: [shuffle pile, deal 3 from pile to hand]
          turn:
            - choose:
                action: play
                for: c in hand(current)
                do:
                  - call c.effect(current, c)
                  - move c to table
          end_when: count(table) == 6
        match: {end_when: true}
    """, players=2)
    codes = len(game.codes)
    kinds = set()
    for seed in range(10):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            mover, score = state.current_player(), list(state.score)
            options = labels(state)
            label = random.Random(seed).choice(sorted(options))
            state.apply_action(options[label])
            if not label.startswith("play"):
                continue
            n = int(re.sub(r"[^0-9]", "", label))
            kinds.add(label[:len("play c=G")])
            if label.startswith("play c=G"):  # gain ran at once
                assert state.score[mover] == score[mover] + n
            elif label.startswith("play c=S"):  # steal waits for its victim
                assert list(labels(state)) == ["victim v=P1" if mover == 0 else "victim v=P0"]
                assert state.score == score
    assert kinds == {"play c=G", "play c=S"}
    # the procedure that does not wait got its frame code in play, and the loop stepped it
    assert len(game.codes) > codes

# ---------------------------------------------------------------- secret commits, reveal, ties


SHOWDOWN = """
cards: {list: [{family: {v: "1..6"}, name: "V{v}", copies: 2}]}
zones:
  pile: {visibility: hidden}
  hand: {per: player, visibility: owner}
  secret: {per: player, visibility: owner}
  shown: {visibility: public}
variables:
  in_play: {type: players, initial: []}
  best: {type: int, initial: 0}
  reveals: {type: int, initial: 0}
procedures:
  commit_all:
    - for: p in in_play
      do:
        - while: count(hand(p)) == 0 and count(pile) > 0
          do: [draw 1 from pile to hand(p)]
        - choose:
            action: commit
            by: p
            for: c in hand(p)
            do: [move c to secret(p)]
            else: ["in_play -= [p]"]
  reveal:
    - reveals += 1
    - best = max(top(secret(p)).v for p in in_play)
    - let tied = [p for p in in_play if top(secret(p)).v == best]
    - for: p in in_play
      do: [move all secret(p) to shown]
    - in_play = tied
round:
  setup: [in_play = players]
  turn:
    - call commit_all
    - call reveal
    - while: count(in_play) > 1
      do: [call commit_all, call reveal]
    - end game
"""


def test_secret_commits_are_hidden_until_the_reveal_and_ties_repeat_among_the_tied():
    game = tiny_game(SHOWDOWN.replace("setup: [in_play = players]",
                                      "setup: [in_play = players, deal 1 from pile to hand]"), players=3)
    state = game.new_initial_state(0)
    # unshuffled pile V1 V1 ... V6 V6 (top last); dealing starts left of seat 0:
    # seat 1 gets V6, seat 2 V6, seat 0 V5
    assert [zone_names(state, "hand", p) for p in range(3)] == [["V5"], ["V6"], ["V6"]]
    act(state, "commit c=V5")  # seat 0 commits first
    assert state.observation(1)["zones"]["secret"][0] == {"count": 1}  # hidden from seat 1
    assert state.observation(0)["zones"]["secret"][0] == ["V5"]  # its owner sees it
    act(state, "commit c=V6")
    act(state, "commit c=V6")
    # V6 = V6 > V5: only seats 1 and 2 go again, each drawing until they hold a card
    assert state.observation(0)["variables"]["in_play"] == [1, 2]
    assert state.observation(0)["zones"]["shown"] == ["V5", "V6", "V6"]
    assert state.current_player() == 1 and sorted(labels(state)) == ["commit c=V5"]
    act(state, "commit c=V5")
    act(state, "commit c=V4")
    assert state.is_terminal()
    assert state.observation(0)["variables"]["in_play"] == [1]
    assert state.observation(0)["variables"]["reveals"] == 2


def test_teams_formed_by_declaration_with_variables():
    game = tiny_game("""
        variables: {partner_of_first: {type: player, initial: none}}
        round:
          turn:
            - choose:
                - action: declare
                  for: mate in others(current)
                  if: partner_of_first == none
                  do: [partner_of_first = mate]
                - action: wait
            - if: turn >= 2
              then: [end game]
    """, players=4)
    state = game.new_initial_state(0)
    act(state, "declare mate=P3")
    assert "declare" not in " ".join(labels(state))
    assert state.observation(0)["variables"]["partner_of_first"] == 3


def test_determinism_same_seed_same_actions_same_everything():
    game = tiny_game(SHOWDOWN, players=3)
    runs = []
    for _ in range(2):
        state = game.new_initial_state(11)
        play_random(state, random.Random(5))
        runs.append((state.events, state.scores(), [state.observation(p) for p in range(3)], state.history))
    assert runs[0] == runs[1]

# ---------------------------------------------------------------- priorities among actions

_PRIORITY = """
variables:
  stones: {type: int, initial: 3}
actions:
  take:
    for: k in [1, 2]
    if: k <= stones
    priority: 1
    label: "take {k}"
    do: [stones -= k]
  wait:
    label: wait
    do: [stones += 1]
round:
  turn:
    - choose: [take, wait]
    - if: stones <= 0 or turn >= 6
      then: [end game]
match: {}
"""


def test_only_the_options_of_the_highest_priority_offering_any_are_offered():
    """Taking (priority 1) is forced while there is a stone; waiting (priority 0) only
    when nothing can be taken."""
    game = tiny_game(_PRIORITY)
    state = game.new_initial_state(0)
    assert sorted(labels(state)) == ["take 1", "take 2"]
    act(state, "take 2")
    assert sorted(labels(state)) == ["take 1"]
    act(state, "take 1")
    assert state.is_terminal()
    state = tiny_game(_PRIORITY.replace("initial: 3", "initial: 0").replace("stones <= 0 or ", "")).new_initial_state(0)
    assert sorted(labels(state)) == ["wait"]
    act(state, "wait")
    assert sorted(labels(state)) == ["take 1"]
    assert game.state_from_json(game.new_initial_state(0).to_json()) is not None
