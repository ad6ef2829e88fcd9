"""Each generic mechanism of the interpreter, driven by a tiny inline spec."""

from __future__ import annotations

import json
import random
import re
import textwrap

import pytest

import interpreter
from interpreter import IllegalActionError, RuleError
from rulespec import SpecError
from tests.conftest import ROOT, require
from tests.support import act, card_ids, engine_mode, labels, play_random, zone_names

BASE = """
game: {name: Tiny, players: [2, 3, 4]}
"""


def make(*parts: str, players: int = 2, options: dict | None = None, explicit: bool = False,
         base: str = BASE) -> interpreter.Game:
    text = "\n".join(textwrap.dedent(p) for p in (base,) + parts)
    return interpreter.game_from_text(text, players=players, options=options, explicit_chance=explicit)


def names_in(state, zone, owner=None):
    return zone_names(state, zone, owner)


# ---------------------------------------------------------------- card tables


def test_card_table_attributes_copies_families_and_decks():
    game = make("""
        options: {decks: {type: int, default: 2, min: 1, max: 3}}
        cards:
          decks: option.decks
          name: "{colour} {rank}"
          list:
            - {family: {colour: [Red, Blue], rank: "1..3"}, copies: 2}
        zones: {deck: {}}
        round: {turn: [end game]}
    """)
    table = game.cards
    assert table.count == 2 * 3 * 2 * 2  # colours x ranks x copies x decks
    assert table.kinds == 6  # copies and decks share a kind
    assert table.kind_names == ("Red 1", "Red 2", "Red 3", "Blue 1", "Blue 2", "Blue 3")
    assert table.attrs["rank"][:4] == (1, 1, 2, 2)
    assert make("""
        options: {decks: {type: int, default: 2, min: 1, max: 3}}
        cards:
          decks: option.decks
          name: "{colour} {rank}"
          list:
            - {family: {colour: [Red, Blue], rank: "1..3"}, copies: 2}
        zones: {deck: {}}
        round: {turn: [end game]}
    """, options={"decks": 1}).cards.count == 12


def test_all_cards_start_in_the_first_shared_zone_face_by_zone():
    game = make("""
        cards: {list: [{name: A, copies: 3}, {name: B}]}
        zones:
          hand: {per: player, visibility: owner}
          pile: {visibility: hidden}
        round: {turn: [end game]}
    """)
    state = game.new_initial_state(0)
    assert names_in(state, "pile") == ["A", "A", "A", "B"]


# ---------------------------------------------------------------- zones, deal, draw, move


CARD_GAME = """
cards: {list: [{family: {n: "1..8"}, name: "C{n}"}]}
zones:
  pile: {visibility: hidden}
  hand: {per: player, visibility: owner}
  table: {visibility: public}
  down: {per: player, visibility: public, face: down}
  discard: {visibility: top}
"""


def test_deal_draw_move_and_order():
    game = make(CARD_GAME, """
        round:
          setup:
            - deal 2 from pile to hand
            - draw 1 from pile to table
            - move top pile to table
            - move bottom pile to table at bottom
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    # unshuffled pile C1..C8 (C8 on top); dealing starts left of the dealer (seat 0 deals)
    assert names_in(state, "hand", 1) == ["C8", "C6"]
    assert names_in(state, "hand", 0) == ["C7", "C5"]
    assert names_in(state, "table") == ["C1", "C4", "C3"]
    assert names_in(state, "pile") == ["C2"]


def test_draw_stops_when_the_pile_is_empty():
    game = make(CARD_GAME, """
        round:
          setup: [draw 20 from pile to table]
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    assert len(names_in(state, "table")) == 8 and names_in(state, "pile") == []


def test_shuffle_is_seeded_and_reshuffle_mixes_returned_cards():
    spec = """
        round:
          setup: [shuffle pile, draw 8 from pile to table]
          turn: [end game]
    """
    orders = {tuple(names_in(make(CARD_GAME, spec).new_initial_state(seed), "table")) for seed in range(8)}
    assert len(orders) > 4  # different seeds, different orders
    a = names_in(make(CARD_GAME, spec).new_initial_state(3), "table")
    b = names_in(make(CARD_GAME, spec).new_initial_state(3), "table")
    assert a == b  # same seed, same order


def test_visibility_owner_hidden_public_top_and_face_down():
    game = make(CARD_GAME, """
        round:
          setup:
            - deal 1 from pile to hand
            - deal 1 from pile to down
            - draw 2 from pile to discard
            - draw 1 from pile to table
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    view = state.observation(0)["zones"]
    assert view["pile"] == {"count": 1}
    assert view["hand"][0] == names_in(state, "hand", 0) and view["hand"][1] == {"count": 1}
    assert view["down"][0] == names_in(state, "down", 0)  # the owner sees their face-down card
    assert view["down"][1] == [None]  # others see a face-down card, not its name
    assert view["discard"] == {"count": 2, "top": names_in(state, "discard")[-1]}
    assert view["table"] == names_in(state, "table")


def test_flip_turns_cards_face_up():
    game = make(CARD_GAME, """
        round:
          setup: [deal 1 from pile to down, "flip down(player(1)) face up"]
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    assert state.observation(0)["zones"]["down"][1] == names_in(state, "down", 1)


# ---------------------------------------------------------------- turns, seats, dealer


def test_seat_order_start_player_dealer_rotation_and_rounds():
    game = make("""
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
        make("""
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
    game = make("""
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
    game = make("""
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


# ---------------------------------------------------------------- decisions


def test_choose_cards_players_and_named_options_with_conditions():
    game = make(CARD_GAME, """
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
    assert "C8" in names_in(state, "hand", 0)
    assert sorted(labels(state)) == ["word w=hit", "word w=stay"]
    act(state, "word w=stay")
    assert state.observation(0)["variables"]["picked"] == "stay"


def test_action_ids_are_stable_and_encode_card_kinds():
    game = make("""
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
    assert make("""
        cards: {list: [{name: X, copies: 2}, {name: Y}]}
        zones: {hand: {per: player}, pile: {}}
        round:
          setup: [deal 3 from pile to hand]
          turn:
            - choose: {action: play, for: c in hand(current), do: [end game]}
    """, players=2).new_initial_state(5).legal_actions() == state.legal_actions()


def test_choice_with_nothing_to_choose_is_skipped_or_runs_else():
    game = make("""
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
    game = make(CARD_GAME, """
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
    game = make("""
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
    game = make(SHOWDOWN.replace("setup: [in_play = players]", "setup: [in_play = players, deal 1 from pile to hand]"),
                players=3)
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


# ---------------------------------------------------------------- board and pieces


BOARD = """
board: {rows: 4, cols: 4}
pieces:
  rook:
    per_player: 1
    start: {"2": [[a1], [a4]]}
cards: {list: [{family: {n: "1..16"}, name: "N{n}"}]}
zones:
  pile: {}
  square: {per: cell, visibility: public}
  won: {per: player}
"""


def test_straight_moves_stop_at_pieces_and_take_what_lies_on_the_destination():
    game = make(BOARD, """
        round:
          setup: [deal 1 from pile to square]
          turn:
            - choose:
                action: go
                for: r in pieces(current), to in slides(r)
                do: [move r to to, move all square(to) to won(current)]
            - end game
        """)
    state = game.new_initial_state(0)
    # seat 1 starts (dealer 0); its rook is on a4; the other rook on a1 blocks the a-file below a2
    reachable = sorted(state.action_to_string(a).split("to=")[1] for a in state.legal_actions())
    assert reachable == ["a2", "a3", "b4", "c4", "d4"]
    act(state, "go r=P1 rook to=a2")
    assert len(names_in(state, "won", 1)) == 1
    assert state.observation(0)["board"]["a2"]["owner"] == 1


def test_n_in_a_row_and_placing_pieces():
    game = make("""
        board: {rows: 3, cols: 3}
        pieces: {mark: {per_player: 3}}
        round:
          turn:
            - choose:
                action: mark
                for: c in empty_cells()
                do:
                  - place mark of current at c
                  - if: line(current, 3)
                    then: [current.score = 1, end game]
    """)
    state = game.new_initial_state(0)
    for cell in ["a1", "a2", "b1", "b2", "c1"]:  # seat 1 (first) takes the bottom row
        act(state, f"mark c={cell}")
    assert state.is_terminal() and state.winners() == [1]


# ---------------------------------------------------------------- patterns and rankings


def test_ranking_patterns_kinds_runs_same_and_best_k_of_n():
    game = make("""
        cards: {name: "{s}{r}", list: [{family: {s: [h, s, d, c], r: "1..13"}}]}
        zones: {deck: {}}
        rankings:
          hand:
            size: 5
            order: r
            categories:
              - {name: straight flush, run: 5, same: s}
              - {name: quads, kinds: [4, 1]}
              - {name: full, kinds: [3, 2]}
              - {name: flush, same: s}
              - {name: straight, run: 5}
              - {name: trips, kinds: [3, 1, 1]}
              - {name: two pairs, kinds: [2, 2, 1]}
              - {name: pair, kinds: [2, 1, 1, 1]}
              - {name: high, highest: 5}
        round: {turn: [end game]}
    """)
    state = game.new_initial_state(0)
    rank = game.link.rankings["hand"]

    def ev(*names):
        return rank.evaluate([card_ids(state, n)[0] for n in names])

    assert ev("h2", "h3", "h4", "h5", "h6", "c13")[2] == "straight flush"
    assert ev("h9", "s9", "d9", "c9", "h2")[2] == "quads"
    assert ev("h9", "s9", "d9", "c2", "h2")[2] == "full"
    assert ev("h1", "h3", "h5", "h7", "h9")[2] == "flush"
    assert ev("h1", "s2", "h3", "h4", "d5")[2] == "straight"
    assert ev("h10", "s11", "h12", "h13", "d1")[2] == "high"  # no wrap
    assert ev("h10", "s10", "h12", "d5")[2] == "pair"  # fewer than five cards
    # best k of n: of seven cards, the five that make the best hand
    value, best, category = ev("h2", "s2", "d7", "c7", "h7", "s9", "d13")
    assert category == "full" and sorted(state.game.cards.names[c] for c in best) == ["c7", "d7", "h2", "h7", "s2"]
    # tie-breaks: higher pair wins, then kickers, then unused cards
    assert ev("h9", "s9", "d2", "c3", "h4") > ev("h8", "s8", "d13", "c12", "h11")
    assert ev("h9", "s9", "d13", "c3", "h4") > ev("d9", "c9", "s12", "h3", "s4")
    assert ev("h9", "s9", "d13", "c3", "h4", "h6") > ev("d9", "c9", "s13", "d3", "s4", "s5")


# ---------------------------------------------------------------- scoring and match end


def test_scores_with_floors_totals_and_match_end_by_target():
    game = make("""
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
    game = make("""
        round: {turn: [end round]}
        match: {end_when: round >= 4}
    """)
    state = game.new_initial_state(0)
    assert state.round == 4 and state.winners() == [0, 1] and state.returns() == [0.5, 0.5]
    game = make("""
        round: {turn: ["emit bang(at=round)", end game]}
    """)
    state = game.new_initial_state(0)
    assert {"type": "bang", "at": 1} in state.events and state.events[-1]["type"] == "match_end"


def test_winners_the_spec_lists_are_sorted_and_each_once():
    game = make("""
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
        game = make(f"""
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


def test_custom_events_with_payloads_and_audience():
    game = make(CARD_GAME, """
        round:
          setup:
            - deal 1 from pile to hand
            - emit dealt(to_seat=player(1), card=top(hand(player(1)))) to player(1)
            - emit announce(cards=count(pile))
          turn: [end game]
    """)
    state = game.new_initial_state(0)
    secret = [e for e in state.events if e["type"] == "dealt"][0]
    assert secret["card"] == names_in(state, "hand", 1)[0] and secret["to"] == [1]
    assert all(e["type"] != "dealt" for e in state.observation(0)["events"])
    assert any(e["type"] == "dealt" for e in state.observation(1)["events"])
    assert {"type": "announce", "cards": 6} in state.events


def test_teams_formed_by_declaration_with_variables():
    game = make("""
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


# ---------------------------------------------------------------- chance


def test_explicit_chance_nodes_for_draws_and_coins():
    game = make(CARD_GAME, """
        round:
          setup: [shuffle pile, draw 1 from pile to table]
          turn:
            - let coin = chance(0.25)
            - if: coin
              then: [current.score = 1]
            - end game
    """, explicit=True)
    state = game.new_initial_state(0)
    assert state.current_player() == interpreter.CHANCE
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 8 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    state.apply_action(outcomes[2][0])
    assert names_in(state, "table") == [game.cards.kind_names[outcomes[2][0]]]
    assert state.chance_outcomes() == [(0, 0.75), (1, 0.25)]
    state.apply_action(1)
    assert state.is_terminal() and state.scores() == [0, 1]


# ---------------------------------------------------------------- safety


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    game = make(CARD_GAME, """
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
        game = make("""
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


def test_a_game_that_never_ends_hits_the_declared_bound_with_its_position():
    game = make("""
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


def test_a_rule_loop_without_decisions_is_an_error_not_a_hang():
    game = make("""
        variables: {x: {type: int, initial: 0}}
        round:
          turn:
            - repeat: [x += 1]
              until: x < 0
              max: 50
            - end game
    """)
    with pytest.raises(RuleError, match="repeat"):
        game.new_initial_state(0)


def test_player_count_and_options_are_checked():
    with pytest.raises(interpreter.OptionError, match="2 to 4"):
        make("round: {turn: [end game]}", players=7)
    with pytest.raises(interpreter.OptionError, match="did you mean 'rounds'"):
        make("""
            options: {rounds: {type: int, default: 1, min: 1, max: 9}}
            round: {turn: [end game]}
        """, options={"ronuds": 2})
    with pytest.raises(interpreter.OptionError, match="maximum"):
        make("""
            options: {rounds: {type: int, default: 1, min: 1, max: 9}}
            round: {turn: [end game]}
        """, options={"rounds": 20})


def test_determinism_same_seed_same_actions_same_everything():
    game = make(SHOWDOWN, players=3)
    runs = []
    for _ in range(2):
        state = game.new_initial_state(11)
        play_random(state, random.Random(5))
        runs.append((state.events, state.scores(), [state.observation(p) for p in range(3)], state.history))
    assert runs[0] == runs[1]


# ---------------------------------------------------------------- errors in the rule language's words


@pytest.mark.parametrize("rule, message", [
    ('"x = leader.score + 1"', "cannot compute '+' with a missing value (none)"),
    ('{if: "leader.score > 1", then: [x = 1]}', "cannot compare none (a missing value) with a whole number using '>'"),
    ('"x = 10 // x"', "division by zero"),
    ('"place mark of current at cell(5, 5)"', "cannot place a mark: the cell is missing (none), for example a cell "
                                              "off the board"),
])
def test_a_rule_failing_in_python_is_reported_in_the_rule_languages_words(rule, message):
    """Comparing none with a number, arithmetic on none, a division by zero, placing a piece
    off the board: the message speaks of missing values and numbers, not of Python's types."""
    game = make(f"""
        board: {{rows: 2, cols: 2}}
        pieces: {{mark: {{per_player: 2}}}}
        variables:
          x: {{type: int, initial: 0}}
          leader: {{type: player, initial: none}}
        round:
          first: player(0)
          turn:
            - choose:
                action: go
                label: go
                do:
                  - {rule}
                  - x = 1
                  - end game
        match: {{}}
    """)
    state = game.new_initial_state(0)
    with pytest.raises(RuleError) as caught:
        state.apply_action(state.legal_actions()[0])
    assert f"this rule failed: {message}" in str(caught.value) or message in str(caught.value)
    assert "NoneType" not in str(caught.value) and "instances of" not in str(caught.value)


# ---------------------------------------------------------------- random over values, with explicit chance

_DIE = """
options:
  faces: {type: int, default: 6, min: 2, max: 20}
cards:
  list:
    - {name: Ace}
    - {name: King}
zones:
  table: {visibility: public}
variables:
  total: {type: int, initial: 0}
  n: {type: int, initial: 3}
round:
  first: player(0)
  turn:
    - choose:
        - action: roll
          label: roll
          do:
            - let face = random(range(1, option.faces + 1))
            - total += face
        - action: pick
          label: pick
          do:
            - let c = random(table)
            - emit picked(card=c)
        - action: grow
          label: grow
          do:
            - let k = random(range(0, n * 3))
            - n += k
    - if: total > 30
      then: [end game]
match: {}
"""


@pytest.mark.parametrize("faces", [6, 12])
def test_random_over_numbers_declares_its_outcomes_from_the_length_of_its_list(faces):
    """`random(range(1, option.faces + 1))` with explicit chance: one outcome per face, all
    declared (OpenSpiel's max_chance_outcomes, the mask) before the game starts."""
    game = make(_DIE, options={"faces": faces}, explicit=True)
    assert game.max_chance_outcomes == faces
    state = game.new_initial_state(0)
    state.apply_action(labels(state)["roll"])
    assert state.chance_outcomes() == [(i, pytest.approx(1 / faces)) for i in range(faces)]
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == [f"chance: {f}" for f in
                                                                                range(1, faces + 1)]
    assert len(state.legal_actions_mask()) == faces
    state.apply_action(faces - 1)
    assert state.g[0] == faces  # total: the last face


def test_random_over_cards_is_labelled_by_the_cards_names():
    game = make(_DIE, explicit=True)
    state = game.new_initial_state(0)
    state.apply_action(labels(state)["pick"])
    assert [state.action_to_string(a) for a, _ in state.chance_outcomes()] == ["chance: Ace", "chance: King"]


def test_random_over_a_list_longer_than_declared_is_a_rule_error():
    """A list whose length depends on the state (range(0, n * 3) with n a variable) cannot be
    declared before the game starts: drawing more outcomes than declared says so."""
    game = make(_DIE, explicit=True)
    state = game.new_initial_state(0)
    assert game.max_chance_outcomes == 6
    with pytest.raises(RuleError, match="has 9 outcomes here, more than the 6 the game declares"):
        state.apply_action(labels(state)["grow"])  # n = 3: 9 outcomes, more than the 6 declared


# ---------------------------------------------------------------- a board whose size is an option

_SIZED = """
options:
  size: {type: int, default: 3, min: 2, max: 20}
board: {rows: option.size, cols: num_players + 1}
pieces:
  stone:
    per_player: 1
    start:
      "2": [[a1], [c3]]
round:
  first: player(0)
  turn:
    - choose:
        action: put
        for: c in empty_cells()
        label: "{c}"
        do: [end game]
match: {}
"""


@pytest.mark.parametrize("size", [3, 6])
def test_the_board_size_can_be_an_expression_of_options_and_players(size):
    """`rows: option.size`, `cols: num_players + 1`: evaluated when the game is loaded."""
    game = make(_SIZED, options={"size": size})
    board = game.link.board
    assert (board.rows, board.cols) == (size, 3)
    state = game.new_initial_state(0)
    assert len(state.legal_actions()) == size * 3 - 2  # every cell but the two starting ones
    assert "c3" in board.names and f"a{size}" in board.names


def test_a_board_size_out_of_bounds_or_a_start_off_the_board_fails_when_the_game_is_loaded():
    with pytest.raises(RuleError, match="the board would have 28 rows; it can have 1 to 26") as caught:
        make(_SIZED.replace("rows: option.size", "rows: option.size * 2"), options={"size": 14})
    # at the expression: line 7 of the text (BASE's three lines, then _SIZED's), after "board: {rows: "
    assert (caught.value.span.line, caught.value.span.col) == (7, len("board: {rows: ") + 1)
    with pytest.raises(RuleError, match="the starting cell 'c3' of stone is not on the 2x3 board"):
        make(_SIZED, options={"size": 2})


def test_a_board_size_may_only_read_options_and_the_player_count():
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _SIZED.replace("cols: num_players + 1", "cols: turn")))
    with pytest.raises(SpecError, match="board.cols can only use num_players and options, not 'turn'"):
        interpreter.game_from_text(text)


# ---------------------------------------------------------------- named tables

_TABLES = """
cards:
  name: "{rank}"
  list:
    - family: {rank: [Ace, King, Jack]}
zones:
  deck: {}
tables:
  points: {Ace: 11, King: 4}
  by_count: {1: 5, 2: 7, -1: 0}
  odds: {low: 0.25, high: 1}
round:
  first: player(0)
  turn:
    - choose:
        action: take
        for: c in deck if c.rank != 'Jack' or JACK
        label: "take {c} ({points[c.rank]})"
        do:
          - current.score += points[c.rank] + by_count[num_players] + by_count[-1]
          - emit took(odds=odds['high'])
          - end game
match: {}
"""


def test_a_table_gives_a_value_for_each_key():
    """Text keys, whole-number keys (written unquoted), number values: `NAME[KEY]`."""
    game = make(_TABLES.replace("JACK", "false"))
    state = game.new_initial_state(0)
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["take Ace (11)", "take King (4)"]
    state.apply_action(labels(state)["take Ace (11)"])
    assert state.total[0] == 11 + 7 + 0
    assert [e["odds"] for e in state.events if e["type"] == "took"] == [1]


def test_a_key_the_table_lacks_is_a_rule_error_naming_the_table_and_its_keys():
    game = make(_TABLES.replace("JACK", "true"))
    with pytest.raises(RuleError, match=r"table 'points' has no entry 'Jack' \(its keys: 'Ace', 'King'\)"):
        state = game.new_initial_state(0)
        [state.action_to_string(a) for a in state.legal_actions()]


@pytest.mark.parametrize("old, new, message", [
    ("points: {Ace: 11, King: 4}", "points: {Ace: 11, 4: 4}", "table 'points' mixes whole-number and text keys"),
    ("odds: {low: 0.25, high: 1}", "odds: {low: 0.25, high: yes}", "table 'odds' mixes"),
    ("+ by_count[-1]", "+ count(points)", "'points' is a table: read one entry with points[KEY]"),
    ("by_count[num_players]", "by_count['two']", "a key of table 'by_count' must be a whole number, not text"),
    ("  odds:", "  deck:", "table 'deck' hides a built-in, zone, variable or define of the same name"),
])
def test_tables_are_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _TABLES.replace("JACK", "false")))
    assert old in text
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text.replace(old, new, 1))


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
    assert _seats_to_move(make(_NEXT, players=3), moves) == seats


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
        game = make(_LONE, players=3)
        assert "action: block" in _LONE
        phase = next(code for code in game.codes if type(code).__name__ == "PhaseCode")
        assert phase.lone_choice is not None
        assert _seats_to_move(game, moves) == seats


def test_next_survives_a_saved_state_and_is_checked_when_loaded():
    """`next` chosen, the turn still running (a decision after it): the choice is in the
    state's data (`next_seat`), saved and restored with it."""
    game = make(_NEXT.replace("    - n += 1", "    - choose:\n        action: ok\n        label: ok\n    - n += 1"),
                players=3)
    state = game.new_initial_state(0)
    act(state, "back")
    assert state.next_seat == 2 and state.current_player() == 0
    restored = game.state_from_json(state.to_json())
    act(restored, "ok")
    assert restored.current_player() == 2
    bad = state.to_json().replace('"next_seat":2', '"next_seat":7')
    with pytest.raises(interpreter.StateError, match="next_seat is not a seat"):
        game.state_from_json(bad)
    plain = make(_NEXT.replace("next", "skip"), players=3)
    forged = plain.new_initial_state(0).to_json().replace('"next_seat":-1', '"next_seat":1')
    with pytest.raises(interpreter.StateError, match="no rule of this game gives a player the next turn"):
        plain.state_from_json(forged)


# ---------------------------------------------------------------- setting one item of a list

_ITEMS = """
variables:
  pits: {type: value, initial: "[4, 4, 4]"}
  names: {type: players, initial: "[player(0), player(1)]"}
  n: {type: int, initial: 0}
round:
  first: player(0)
  turn:
    - choose:
        - action: sow
          label: sow
          do:
            - let before = pits
            - pits[1] += pits[0]
            - pits[0] = 0
            - pits[-1] -= 1
            - emit sown(before=before, after=pits)
        - action: swap
          label: swap
          do: ["names[0] = player(1)"]
        - action: far
          label: far
          do: ["pits[INDEX] = 1"]
    - n += 1
    - if: n >= 2
      then: [end game]
match: {}
"""


def test_an_item_of_a_list_variable_can_be_set():
    """`pits[1] += pits[0]`, `pits[0] = 0`, `pits[-1] -= 1`; a `let` holding the list before
    keeps its value (a list variable gets a new list, never a shared one)."""
    game = make(_ITEMS.replace("INDEX", "1"))
    state = game.new_initial_state(0)
    act(state, "sow")
    assert state.g[0] == [0, 8, 3]
    (event,) = [e for e in state.events if e["type"] == "sown"]
    assert event["before"] == [4, 4, 4] and event["after"] == [0, 8, 3]
    act(state, "swap")
    assert state.g[1] == [1, 1]


def test_setting_an_item_outside_the_list_is_a_rule_error():
    game = make(_ITEMS.replace("INDEX", "3"))
    state = game.new_initial_state(0)
    with pytest.raises(RuleError, match=r"index 3 is outside 'pits' \(3 items\)"):
        act(state, "far")


@pytest.mark.parametrize("old, new, message", [
    ('"pits[INDEX] = 1"', '"n[0] = 1"', "only a list's items can be set: 'n' is a whole number"),
    ('"pits[INDEX] = 1"', '"pits[\'a\'] = 1"', "an index must be a whole number, not text"),
    ('"names[0] = player(1)"', '"names[0] = 3"', "the value of 'names[...]' must be a player"),
])
def test_setting_an_item_is_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _ITEMS))
    assert old in text
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text.replace(old, new, 1))


# ---------------------------------------------------------------- elif

_ELIF = """
variables:
  n: {type: int, initial: 0}
  grade: {type: str, initial: "'-'"}
round:
  turn:
    - choose:
        action: pick
        for: k in [0, 1, 2, 3]
        label: "{k}"
        do:
          - if: k == 0
            then: [grade = "zero"]
            elif:
              - if: k == 1
                then: [grade = "one"]
              - if: k <= 2
                then: [grade = "two"]
            else: [grade = "many"]
    - end game
match: {}
"""


@pytest.mark.parametrize("k, grade", [(0, "zero"), (1, "one"), (2, "two"), (3, "many")])
def test_elif_tries_its_conditions_in_order_and_else_runs_when_none_holds(k, grade):
    state = make(_ELIF).new_initial_state(0)
    act(state, str(k))
    assert state.observation(0, events=False)["variables"]["grade"] == grade


def test_an_elif_condition_is_checked_at_its_own_position():
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _ELIF)).replace("k <= 2", "k <= 'a'")
    with pytest.raises(SpecError) as info:
        interpreter.game_from_text(text, path="elif.yaml")
    line = text.splitlines().index("              - if: k <= 'a'") + 1
    assert f"elif.yaml:{line}:" in str(info.value)


def test_an_elif_entry_needs_if_and_then():
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _ELIF)).replace('then: [grade = "one"]', "")
    with pytest.raises(SpecError, match="then"):
        interpreter.game_from_text(text, path="elif.yaml")


# ---------------------------------------------------------------- let names in until

_UNTIL = """
cards:
  list: [{name: a, n: 1}, {name: b, n: 2}, {name: c, n: 3}, {name: d, n: 4}]
zones:
  pile: {visibility: hidden}
  table: {visibility: public}
variables:
  drawn: {type: int, initial: 0}
round:
  setup:
    - repeat:
        - let top_card = top(pile)
        - move top pile to table
        - drawn += 1
      until: top_card.n >= LIMIT
  turn:
    - repeat:
        - let k = drawn
        - choose:
            action: more
            label: more
            do: [drawn += 1]
      until: k >= 6
    - end game
match: {}
"""


def test_until_sees_the_names_its_body_binds_with_let():
    """A `repeat` without a decision (a closure) and one with a decision in its body (frames):
    both stop on a name bound by `let` in the body."""
    game = make(_UNTIL.replace("LIMIT", "3"))
    state = game.new_initial_state(0)
    view = state.observation(0, events=False)
    # cards are in list order on the pile, so top(pile) is the last listed: d (4) stops at once
    assert view["variables"]["drawn"] == 1
    for _ in range(5):
        act(state, "more")
        state = game.state_from_json(state.to_json())  # mid-loop, saved and loaded
    assert state.observation(0, events=False)["variables"]["drawn"] == 6
    act(state, "more")
    assert state.is_terminal()


def test_a_name_bound_inside_a_nested_block_of_the_body_is_not_seen_by_until():
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _UNTIL.replace("LIMIT", "3"))).replace(
        "        - let top_card = top(pile)", "        - if: true\n          then: [let top_card = top(pile)]")
    with pytest.raises(SpecError, match="top_card"):
        interpreter.game_from_text(text)


# ---------------------------------------------------------------- several for clauses

_CLAUSES = """
variables:
  got: {type: value, initial: "0"}
round:
  turn:
    - got = EXPR
    - end game
match: {}
"""


@pytest.mark.parametrize("expr, value", [
    ("count(1 for a in range(0, 4) for b in range(0, 4) if a < b)", 6),
    ("sum(a * b for a in range(1, 4) if a != 2 for b in range(1, a + 1))", 1 + 3 + 6 + 9),
    ("any(a + b == 7 for a in [1, 2, 3] for b in [4, 5])", True),
    ("all(a < b for a in [1, 2] for b in [3, 4] if b > a)", True),
    ("max(a * 10 + b for a in range(0, 3) for b in range(0, 3) if b != a)", 21),
    ("min(a - b for a in [5, 6] for b in [1, 2] for c in [0] if c == 0)", 3),
    ("[a * 10 + b for a in range(0, 3) if a > 0 for b in range(0, a)]", [10, 20, 21]),
    ("[b for a in [[1, 2], [3]] for b in a]", [1, 2, 3]),
    ("distinct(a + b for a in [1, 2] for b in [1, 2])", [2, 3, 4]),
])
@pytest.mark.parametrize("mode", ["strict", "off"])
def test_a_comprehension_may_have_several_for_clauses(expr, value, mode):
    """Each clause loops inside the one before, with its names bound (Python's order), in
    generated code and in closures alike."""
    with engine_mode(mode):
        game = make(_CLAUSES.replace("EXPR", expr))
        assert bool(game.link.codegen.units) == (mode == "strict")
        state = game.new_initial_state(0)
        assert state.observation(0, events=False)["variables"]["got"] == value


def test_argmax_takes_one_for_clause():
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _CLAUSES.replace(
        "EXPR", "argmax(a + b for a in [1, 2] for b in [3, 4])")))
    with pytest.raises(SpecError, match=r"argmax\(\) takes one `for` clause"):
        interpreter.game_from_text(text)


# ---------------------------------------------------------------- single-outcome chance nodes

_SINGLE = """
cards:
  name: "{c}"
  list:
    - {c: x, copies: 2}
    - {c: y}
zones:
  bag: {}
  hand: {per: player}
variables:
  v: {type: int, initial: 0}
round:
  setup:
    - shuffle bag
    - draw 3 from bag to hand(current)
    - let only = random([7])
    - v = only
  turn: [end game]
match: {}
"""


@pytest.mark.parametrize("keep, nodes", [(False, 1), (True, 4)])
def test_single_outcome_chance_nodes_are_kept_when_the_game_asks(keep, nodes):
    """Drawing y first leaves two x: one outcome left, so without the setting only the first
    draw asks; with it every draw and the one-value random() ask too, with probability 1."""
    base = "game: {name: Tiny, players: 2, keep_single_chance: true}\n" if keep else BASE
    state = make(_SINGLE, base=base, explicit=True).new_initial_state(0)
    asked = []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        asked.append(outcomes)
        state.apply_action(outcomes[-1][0])  # y first, when it is offered
    assert len(asked) == nodes
    assert asked[0] == [(0, 2 / 3), (1, 1 / 3)]
    if keep:
        assert asked[1:] == [[(0, 1.0)], [(0, 1.0)], [(0, 1.0)]]
    assert state.observation(0, events=False)["variables"]["v"] == 7
    assert names_in(state, "hand", 0) == ["y", "x", "x"]


def test_a_state_waiting_on_a_single_outcome_survives_json():
    """Saved while waiting on a one-outcome draw or random(), a state loads back (the loader
    checks a pending event's outcomes with the game's own threshold)."""
    base = "game: {name: Tiny, players: 2, keep_single_chance: true}\n"
    game = make(_SINGLE, base=base, explicit=True)
    state = game.new_initial_state(0)
    waits = 0
    while state.is_chance_node():
        state = game.state_from_json(state.to_json())
        waits += 1
        state.apply_action(state.chance_outcomes()[-1][0])
    assert waits == 4


# ---------------------------------------------------------------- geometry

_GEOMETRY = """
board: {rows: 3, cols: 4}
pieces:
  stone: {per_player: 6}
round:
  setup:
    - place stone of player(0) at cell('a3')
    - place stone of player(0) at cell('b2')
    - place stone of player(0) at cell('b1')
    - place stone of player(1) at cell('c3')
  turn:
    - let mine = [c for c in cells if piece_at(c) != none and piece_at(c).owner == player(0)]
    - let top = [c for c in cells if c.row == 0]
    - let bottom = [c for c in cells if c.row == 2]
    - emit geometry(n=neighbours(cell('a3')), d=neighbours(cell('b2'), dirs='diagonal'),
        h=neighbours(cell('b2'), dirs='hex'), all=count(neighbours(cell('b2'), dirs='all')),
        steps=directions('hex'), r1=ray(cell('a3'), 0, 1), r2=ray(cell('d1'), 0, -1),
        r3=ray(cell('a1'), -1, 1), r0=ray(cell('a1'), 0, 0), square=connected(mine, top, bottom),
        hex=connected(mine, top, bottom, dirs='hex'), g=group(cell('a3'), mine), gh=group(cell('a3'),
        mine, dirs='hex'), none=group(cell('d3'), mine))
    - end game
match: {}
"""


def test_geometry_neighbours_directions_rays_and_connectivity():
    """Cells a3 b3 c3 d3 / a2 b2 c2 d2 / a1 b1 c1 d1 (row 0 on top); seat 0 holds a3, b2, b1;
    seat 1 holds c3. On a hex board drawn as a rhombus, (r, c) touches (r-1, c) and
    (r-1, c+1) above, (r+1, c-1) and (r+1, c) below: a3 and b2 are not neighbours there."""
    state = make(_GEOMETRY).new_initial_state(0)
    assert state.is_terminal()
    (event,) = [e for e in state.events if e["type"] == "geometry"]
    assert event["n"] == ["b3", "a2"]                       # left, right, up, down order; off-board left out
    assert event["d"] == ["a3", "c3", "a1", "c1"]
    assert event["h"] == ["b3", "c3", "a2", "c2", "a1", "b1"]
    assert event["all"] == 8
    assert event["steps"] == [[-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0]]
    assert event["r1"] == ["b3", "c3"]                      # stops at (and includes) the first piece
    assert event["r2"] == ["c1", "b1"]
    assert event["r3"] == ["b2"]
    assert event["r0"] == []
    assert event["square"] is False                         # a3 and b2 touch only diagonally
    assert event["hex"] is False
    assert event["g"] == ["a3"]
    assert event["none"] == []


def test_geometry_connects_through_hex_neighbours():
    spec = _GEOMETRY.replace("cell('a3')\n    - place stone of player(0) at cell('b2')",
                             "cell('b3')\n    - place stone of player(0) at cell('a2')")
    state = make(spec).new_initial_state(0)
    (event,) = [e for e in state.events if e["type"] == "geometry"]
    # b3 (0, 1) touches a2 (1, 0) on a hex board, but a2 does not touch b1 (2, 1)
    assert event["hex"] is False and event["square"] is False
    spec = spec.replace("cell('b1')", "cell('a1')")
    state = make(spec).new_initial_state(0)
    (event,) = [e for e in state.events if e["type"] == "geometry"]
    assert event["hex"] is True and event["square"] is False   # b3-a2 (hex only), a2-a1 (both)
    assert event["gh"] == [] and event["g"] == []               # a3 is empty now: no group


@pytest.mark.parametrize("call, message", [
    ("neighbours(cell('a1'), dirs='round')", "unknown directions 'round'"),
    ("directions(option_dirs)", "must be written as text"),
    ("ray(cell('a1'), 'x', 1)", "must be a whole number"),
])
def test_geometry_arguments_are_checked(call, message):
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _GEOMETRY)).replace(
        "    - end game", f"    - let probe = {call}\n    - end game").replace("option_dirs", "'x' + 'y'")
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text)


# ---------------------------------------------------------------- value lists and text

_VALUES = """
variables:
  todo: {type: value, initial: "[]"}
  word: {type: str, initial: "'hex'"}
round:
  turn:
    - todo = todo + [3]
    - todo = [1, 2] + todo
    - todo = todo + todo
    - todo += [9]
    - emit got(todo=todo, letter=word[1], last=word[-1], tail=[word[i] for i in range(1, 3)])
    - end game
match: {}
"""


def test_a_list_in_a_value_variable_can_be_added_to_and_text_indexed():
    state = make(_VALUES).new_initial_state(0)
    (event,) = [e for e in state.events if e["type"] == "got"]
    assert event["todo"] == [1, 2, 3, 1, 2, 3, 9]
    assert (event["letter"], event["last"], event["tail"]) == ("e", "x", ["e", "x"])


@pytest.mark.parametrize("old, new, message", [
    ("todo = todo + [3]", "todo = todo + 3", "cannot compute '+' of a list and a whole number"),
    ("letter=word[1]", "letter=word['a']", "an index must be a whole number, not text"),
    ("letter=word[1]", "letter=word[7]", "index 7 is outside"),
])
def test_value_lists_and_text_indexes_are_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _VALUES)).replace(old, new)
    with pytest.raises((SpecError, RuleError), match=re.escape(message)):
        interpreter.game_from_text(text).new_initial_state(0)


def test_an_empty_list_takes_the_type_of_the_other_branch():
    """`[] if ... else hand(p)` is a list of cards: an action may loop over it (it was a list
    of anything, and loading the game failed without a position)."""
    game = make("""
        cards: {name: "{n}", list: [{family: {n: "1..4"}}]}
        zones: {deck: {}, hand: {per: player}}
        define:
          leads(p): "[] if count(deck) > 5 else [c for c in hand(p)]"
        actions:
          play:
            for: c in leads(current)
            label: "{c}"
            do: [move c to deck]
        round:
          setup: [deal 2 from deck to hand]
          turn: [{choose: play, else: [end game]}]
        match: {}
        """)
    state = game.new_initial_state(0)
    assert sorted(labels(state)) == sorted(names_in(state, "hand", state.current_player()))


# ---------------------------------------------------------------- defines known before the game

_STATIC = """
options:
  size: {type: int, default: 3, min: 2, max: 5}
define:
  side: option.size
  area: side * side
  twice(n): 2 * n
board: {rows: side, cols: side + 1}
pieces:
  stone: {per_player: area}
actions:
  mark:
    for: k in range(0, twice(area))
    label: "{k}"
    do: [end game]
round:
  turn: [{choose: mark}]
match:
  returns: {value: "1", min: -twice(side), max: area}
game: {name: Tiny, players: 2, limits: {actions: area + 1}}
"""


@pytest.mark.parametrize("size", [2, 4])
def test_defines_of_options_size_boards_pieces_actions_limits_and_returns(size):
    text = "\n".join(textwrap.dedent(p) for p in (_STATIC,))
    game = interpreter.game_from_text(text, options={"size": size})
    assert (game.link.board.rows, game.link.board.cols) == (size, size + 1)
    assert game.num_distinct_actions == 2 * size * size
    assert game.max_game_length == size * size + 1
    assert game.link.utility_bounds[:2] == (-2 * size, size * size)
    assert len(game.link.piece_owner) == 2 * size * size


def test_a_define_reading_the_state_cannot_size_an_action():
    text = textwrap.dedent(_STATIC).replace("twice(n): 2 * n", "twice(n): n * count(players)")
    with pytest.raises(SpecError, match=re.escape("'twice(...)' is not")):
        interpreter.game_from_text(text)


def test_copies_may_use_a_define_of_the_cards_attributes():
    """Validate accepted a define in `copies` that loading refused; now both accept a define
    made of numbers and options, and both refuse one reading the state."""
    spec = """
        define:
          big(n): n > 1
        cards:
          name: "{n}"
          list:
            - family: {n: "1..3"}
              copies: "COPIES"
        zones:
          deck: {}
        round:
          turn: [end game]
        match: {}
        """
    game = make(spec.replace("COPIES", "2 if big(n) else 0"))
    assert len(game.link.cards.kind_of) == 4
    with pytest.raises(SpecError, match=re.escape("copies can only use the card's attributes")):
        make(spec.replace("COPIES", "1 if big(n) and count(deck) > 0 else 0"))


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

    game = make(_PRIVATE)
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
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _PRIVATE)).replace(
        'known: {type: int, per: player, initial: "0"}', 'known: {type: int, initial: "0", visibility: owner}')
    with pytest.raises(SpecError, match="belongs to no player"):
        interpreter.game_from_text(text)


# ---------------------------------------------------------------- pieces that change owner or kind

_CHANGE = """
board: {rows: 1, cols: 3}
pieces:
  man: {per_player: 2}
  king: {per_player: 0}
variables:
  seen: {type: value, initial: "[]"}
round:
  setup:
    - place man of player(0) at cell('a1')
    - place man of player(1) at cell('b1')
  turn:
    - let x = piece_at(cell('a1'))
    - let y = piece_at(cell('b1'))
    - x.kind = 'king'
    - y.owner = player(0)
    - seen = [count(pieces(player(0))), count(pieces(player(1))), count(pieces(player(0), 'king')), str(x.kind)]
    - place man of player(0) at cell('c1')
    - end game
match:
  end_when: count(pieces(player(1))) == 0 and false
"""


def test_a_piece_can_change_kind_and_owner_in_place():
    game = make(_CHANGE)
    state = game.new_initial_state(0)
    view = state.observation(0, events=False)
    assert view["variables"]["seen"] == [3, 1, 1, "king"]
    assert view["board"]["a1"]["piece"] == "king" and view["board"]["a1"]["owner"] == 0
    assert view["board"]["b1"]["piece"] == "man" and view["board"]["b1"]["owner"] == 0
    # seat 0's men: its second man, then seat 1's first man, now seat 0's, is on b1; c1 takes
    # seat 0's second man (the first off the board among its men)
    assert view["board"]["c1"]["owner"] == 0
    assert game.state_from_json(state.to_json()) == state


@pytest.mark.parametrize("old, new, message", [
    ("x.kind = 'king'", "x.kind = 'queen'", "unknown piece kind 'queen'"),
    ("x.kind = 'king'", "x.start = cell('c1')", "a piece's `owner` and `kind` can be set"),
    ("y.owner = player(0)", "y.owner = 3", "the value of 'owner' must be a player"),
])
def test_changing_a_piece_is_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _CHANGE)).replace(old, new)
    with pytest.raises(SpecError, match=re.escape(message)):
        interpreter.game_from_text(text)


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
    game = make(_SKIP_WHEN.replace("FIRST", str(first)).replace("ORDER", order), base="", players=3)
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


# ---------------------------------------------------------------- requirements on options

_REQUIRES = """
game:
  name: Tiny
  players: [2, 3]
  requires:
    - check: option.low < option.high
      message: low must be below high
    - check: num_players * option.low <= 6
      message: too many low cards for this table
options:
  low: {type: int, default: 1, min: 0, max: 9}
  high: {type: int, default: 5, min: 0, max: 9}
round:
  turn: [end game]
match:
  returns: {value: "1", min: 0, max: 1, sum: "2 if option.high == 5 else none"}
"""


@pytest.mark.parametrize("players, options, message", [
    (2, {"low": 5}, "low must be below high (2 players, low=5, high=5)"),
    (3, {"low": 3, "high": 9}, "too many low cards for this table (3 players, low=3, high=9)"),
])
def test_options_that_break_a_requirement_are_refused_with_its_message(players, options, message):
    text = textwrap.dedent(_REQUIRES)
    with pytest.raises(interpreter.OptionError) as info:
        interpreter.game_from_text(text, players=players, options=options)
    assert str(info.value) == message
    assert interpreter.game_from_text(text, players=2, options={"low": 3, "high": 9}).options["low"] == 3


def test_a_returns_sum_may_be_none_for_some_options():
    text = textwrap.dedent(_REQUIRES)
    assert interpreter.game_from_text(text).link.utility_bounds == (0.0, 1.0, 2.0)
    assert interpreter.game_from_text(text, options={"high": 6}).link.utility_bounds == (0.0, 1.0, None)


def test_the_default_options_must_meet_the_requirements():
    text = textwrap.dedent(_REQUIRES).replace("default: 1,", "default: 7,")
    with pytest.raises(SpecError, match="the default options break this requirement for 2 players: low must be below"):
        interpreter.game_from_text(text)


# ---------------------------------------------------------------- starting patterns

_PATTERN = """
options:
  size: {type: int, default: 4, min: 2, max: 8}
board: {rows: option.size, cols: option.size}
pieces:
  man:
    per_player: option.size // 2
    start_when: "(c.row + c.col) % 2 == 1 and (c.row == option.size - 1 if p.seat == 0 else c.row == 0)"
round:
  turn: [end game]
match: {}
"""


@pytest.mark.parametrize("size, seat0, seat1", [
    (4, ["a1", "c1"], ["b4", "d4"]),
    (6, ["a1", "c1", "e1"], ["b6", "d6", "f6"]),
])
def test_pieces_start_on_the_cells_a_pattern_names(size, seat0, seat1):
    state = make(_PATTERN).new_initial_state(0) if size == 4 else \
        make(_PATTERN, options={"size": size}).new_initial_state(0)
    board = state.observation(0, events=False)["board"]
    assert sorted(c for c, x in board.items() if x["owner"] == 0) == seat0
    assert sorted(c for c, x in board.items() if x["owner"] == 1) == seat1


@pytest.mark.parametrize("old, new, message", [
    ("c.row == 0)", "c.row <= 1)", "gives seat 1 4 cells for 2 pieces"),
    ("(c.row == option.size - 1 if p.seat == 0 else c.row == 0)", "c.row == 0", "puts a piece of seat 0"),
    ("c.row == 0)", "count(players) > 0)", "a starting pattern can only use c, p"),
    ("p.seat == 0", "p.score == 0", "a starting pattern can read p.seat, not 'p.score'"),
])
def test_a_starting_pattern_is_checked(old, new, message):
    text = "\n".join(textwrap.dedent(p) for p in (BASE, _PATTERN)).replace(old, new)
    with pytest.raises((SpecError, RuleError), match=re.escape(message)):
        interpreter.game_from_text(text)


def test_random_numbers_may_use_their_values_as_outcome_ids():
    """OpenSpiel draws some numbers with the number as the outcome's id (a count of tricks
    from 1 up): `random(xs, ids='values')` does the same."""
    game = make("""
        options:
          most: {type: int, default: 5, min: 2, max: 9}
        variables:
          tricks: {type: int, initial: 0}
        round:
          setup:
            - let n = random(range(1, option.most + 1), ids='values')
            - tricks = n
          turn: [end game]
        match: {}
        """, explicit=True)
    assert game.max_chance_outcomes == 6
    state = game.new_initial_state(0)
    assert state.chance_outcomes() == [(k, 0.2) for k in range(1, 6)]
    assert state.action_to_string(3) == "chance: 3"
    state.apply_action(3)
    assert state.observation(0, events=False)["variables"]["tricks"] == 3


@pytest.mark.parametrize("call, message", [
    ("random(['a', 'b'], ids='values')", "needs a list of whole numbers"),
    ("random(range(1, 3), ids='value')", "random(ids=...) is 'values' or 'positions'"),
])
def test_random_ids_are_checked(call, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        make(f"""
            round:
              setup:
                - let n = {call}
              turn: [end game]
            match: {{}}
            """)


# ---------------------------------------------------------------- found by review

def test_defines_fanning_out_are_computed_once_per_value_and_self_calls_never_run():
    chain = "\n".join(f"  d{k}: d{k - 1} + d{k - 1}" for k in range(1, 31))
    text = f"""
game: {{name: Tiny, players: 2, limits: {{actions: d30 // 1000000}}}}
define:
  d0: 1
{chain}
round:
  turn: [end game]
match: {{}}
"""
    assert interpreter.game_from_text(text).max_game_length == 2 ** 30 // 10 ** 6
    looping = text.replace("  d0: 1", "  d0: 1\n  f(n): 1 if n > 20 else f(n + 1) + f(n + 1)").replace(
        "d30 // 1000000", "f(0)")
    with pytest.raises(SpecError, match="itself|not known before"):
        interpreter.game_from_text(looping)


def test_a_sampled_world_works_out_the_decision_from_forgotten_secrets():
    from interpreter.sampling import sample_consistent

    game = make("""
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


def test_turns_pass_over_a_seat_out_of_the_hand_even_after_a_skip():
    game = make("""
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


def test_a_loop_over_an_empty_list_binds_a_name_of_any_type():
    """`x.row`, `y.row` and `x + 1` of a name bound by a loop over an empty list (`[]`, a `let`
    of `[]`, a define's parameter given `[]`): the game loads, and each count is 0 in play."""
    game = make("""
        board: {rows: 2, cols: 2}
        define:
          low(xs): count(x for x in xs if x.row > 0)
        variables:
          n: {type: int, initial: -1}
        round:
          turn:
            - let ys = []
            - n = low([]) + count([y.row for y in ys]) + count([x + 1 for x in []])
            - end game
        match: {}
        """)
    state = game.new_initial_state(0)
    assert state.is_terminal()
    assert state.observation(0, events=False)["variables"]["n"] == 0


def test_a_size_may_not_call_a_define_that_reads_the_state():
    with pytest.raises(SpecError, match=re.escape("not 'g(...)'")):
        make("""
            define:
              g(n): n + turn
            board: {rows: "g(2)", cols: 2}
            round:
              turn: [end game]
            match: {}
            """)


def test_geometry_of_a_value_that_is_not_a_cell_is_empty():
    game = make("""
        board: {rows: 3, cols: 3}
        variables:
          v: {type: value, initial: "-2"}
        round:
          turn:
            - emit got(n=neighbours(v), r=ray(v, 1, 1), g=group(cell('a1'), [v, cell('a1')]))
            - end game
        match: {}
        """)
    (event,) = [e for e in game.new_initial_state(0).events if e["type"] == "got"]
    assert (event["n"], event["r"], event["g"]) == ([], [], ["a1"])


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
    assert not _perfect_information(make(text))
    assert _perfect_information(make(text.replace(", visibility: owner", "")))


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
    game = make(_PRIORITY)
    state = game.new_initial_state(0)
    assert sorted(labels(state)) == ["take 1", "take 2"]
    act(state, "take 2")
    assert sorted(labels(state)) == ["take 1"]
    act(state, "take 1")
    assert state.is_terminal()
    state = make(_PRIORITY.replace("initial: 3", "initial: 0").replace("stones <= 0 or ", "")).new_initial_state(0)
    assert sorted(labels(state)) == ["wait"]
    act(state, "wait")
    assert sorted(labels(state)) == ["take 1"]
    assert game.state_from_json(game.new_initial_state(0).to_json()) is not None


# ---------------------------------------------------------------- stacks on cells, areas off the board

_STACKS = """
cards:
  name: "{colour}"
  list:
    - {colour: white, copies: 3}
    - {colour: black, copies: 3}
board: {rows: 1, cols: 4}
zones:
  box: {visibility: public}
  point: {per: cell}
  bar: {per: player}
  home: {per: player}
define:
  mine(p): "'white' if p.seat == 0 else 'black'"
  owner_of(c): none if count(point(c)) == 0 else (player(0) if top(point(c)).colour == 'white' else player(1))
round:
  first: player(0)
  setup:
    - repeat: [move top box to point(cell('d1'))]
      until: count(box) == 3
    - repeat: [move top box to point(cell('a1'))]
      until: count(box) == 0
  turn:
    - choose:
        action: step
        for: c in cells if count(point(c)) > 0 and top(point(c)).colour == mine(current)
        label: "from {c}"
        do:
          - let to = cell(0, c.col + (1 if current.seat == 0 else -1))
          - if: to == none
            then: [move top point(c) to home(current)]
            elif:
              - if: count(point(to)) == 1 and owner_of(to) != current
                then: [move top point(to) to bar(left(current)), move top point(c) to point(to)]
              - if: count(point(to)) <= 1 or owner_of(to) == current
                then: [move top point(c) to point(to)]
    - if: count(home(current)) == 3
      then: [current.score = 1, end game]
match: {}
"""


def test_tokens_stack_on_a_cell_and_wait_in_areas_off_the_board():
    """Stacks are cards in a per-cell zone; a bar and a home are per-player zones: a lone
    token hit goes to its owner's bar, three tokens borne off win."""
    game = make(_STACKS)
    state = game.new_initial_state(0)
    view = state.observation(0, events=False)["zones"]
    assert view["point"] == {"a1": ["white", "white", "white"], "d1": ["black", "black", "black"]}
    act(state, "from a1")                                  # white: a1 -> b1
    act(state, "from d1")                                  # black: d1 -> c1
    act(state, "from b1")                                  # white hits the lone black on c1
    view = state.observation(0, events=False)["zones"]
    assert view["point"]["c1"] == ["white"] and view["bar"][1] == ["black"]
    assert view["point"]["a1"] == ["white", "white"]
    act(state, "from d1")                                  # black: d1 -> c1? white holds it alone: a hit
    view = state.observation(0, events=False)["zones"]
    assert view["point"]["c1"] == ["black"] and view["bar"][0] == ["white"]


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


def test_moving_a_whole_zone_ends_as_moving_its_cards_one_by_one():
    """``move_zone`` (`move all` of a zone) against ``move_cards`` of the zone's list (plus the
    rule that a shuffled zone moved whole into an empty one stays shuffled), from states met in
    Highjack games: every pair of zones, on top and at the bottom, the same zones, locations,
    faces, shuffled flags and end-check mark."""
    from interpreter.state import move_cards, move_zone

    game = interpreter.load_game(str(ROOT / "games" / "highjack.yaml"), players=4)
    rng = random.Random(5)
    zones = len(game.new_initial_state(0).zones)
    checked = 0
    for seed in range(4):
        state = game.new_initial_state(seed)
        for _ in range(rng.randrange(5, 60)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        for _ in range(60):
            src, dst, face, bottom = rng.randrange(zones), rng.randrange(zones), rng.randrange(2), rng.random() < 0.3
            whole, each = state.clone(), state.clone()
            whole.shuffled[src] = each.shuffled[src] = rng.random() < 0.5
            whole.dirty = each.dirty = False
            move_zone(whole, src, dst, face, bottom)
            keeps_shuffle = each.shuffled[src] and not each.zones[dst]
            move_cards(each, list(each.zones[src]), dst, face, bottom)
            if keeps_shuffle and len(each.zones[dst]) > 1:
                each.shuffled[dst] = True
            assert (whole.zones, whole.loc, whole.face, whole.shuffled, whole.dirty) == \
                (each.zones, each.loc, each.face, each.shuffled, each.dirty), (src, dst, face, bottom)
            checked += bool(state.zones[src]) and src != dst
    assert checked > 50


def test_a_spec_path_may_be_a_path_object():
    from pathlib import Path

    import pytest

    from rulespec import compile_file

    path = ROOT / "games" / "tictactoe.yaml"
    assert isinstance(path, Path)
    by_path = interpreter.load_game(path)
    by_text = interpreter.load_game(str(path))
    assert by_path.new_initial_state(3).to_json() == by_text.new_initial_state(3).to_json()
    assert compile_file(path).name == compile_file(str(path)).name
    with pytest.raises(TypeError, match="a file name is text or a path object, not int"):
        interpreter.load_game(7)  # type: ignore[arg-type]
