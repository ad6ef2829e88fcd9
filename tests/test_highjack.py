"""Highjack (games/highjack.yaml): one test or a few per ruling R1..R12 of
docs/rulings-highjack.md, per card type, per Action and per Win Action.

Positions are arranged with tests/support.py on a real state that waits for the first
hit of a turn (explicit chance), then the rules run through the public API only. The
arranged Take a Hit pile is no longer shuffled, so every later hit takes its top card
(the last name listed), which makes draws deterministic without touching the engine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml

import interpreter
from interpreter.state import State, move_card
from tests.support import act, labels, set_zone, zone_index, zone_names

ROOT = Path(__file__).resolve().parent.parent
PATH = str(ROOT / "games" / "highjack.yaml")
DOC = ROOT / "docs" / "rulings-highjack.md"

STASH = ["Rolling Papers", "Lighter", "Grinder", "Bong"]
ACTIONS = {"Munchies": 3, "Bogart": 3, "Buzzkill": 3, "Paranoia": 2, "Puff Puff Pass": 2, "Roach": 2, "Hotbox": 1}


# ---------------------------------------------------------------- helpers


def game(players: int = 3, options: dict | None = None, explicit: bool = True) -> interpreter.Game:
    return interpreter.load_game(PATH, players=players, options=options, explicit_chance=explicit)


def to_first_hit(state: State, rng: random.Random) -> None:
    """Resolve the deal of a round at random, up to the first hit of its first turn."""
    while state.is_chance_node() and state.turn == 0:
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    assert state.is_chance_node() and state.turn == 1, "expected the first hit of the round"


def opened(players: int = 3, options: dict | None = None) -> State:
    """A new match waiting for the first hit of turn 1 (seat 0), with every card kind in the pile."""
    g = game(players, options)
    for seed in range(200):
        state = g.new_initial_state(seed)
        to_first_hit(state, random.Random(seed))
        if len(state.chance_outcomes()) == g.cards.kinds:
            return state
    raise AssertionError("no seed leaves every kind in the pile")


def arrange(state: State, hands: dict | None = None, stash: dict | None = None, session_pile: dict | None = None,
            pile: list | None = None, ashtray_top: list | None = None) -> State:
    """Put exactly these cards in these zones (lists bottom to top); every other card goes to
    the Ashtray (under ``ashtray_top``). Must be called while the first hit of a turn is pending."""
    assert state.is_chance_node()
    names = list(state.game.cards.names)
    set_zone(state, "ashtray", None, names)  # gather every card
    for zone, spec in (("hand", hands), ("stash", stash), ("session_pile", session_pile)):
        for p, cards in (spec or {}).items():
            set_zone(state, zone, p, cards, source="ashtray")
    set_zone(state, "pile", None, pile or [], source="ashtray", face=0)
    # set_zone takes a copy from another zone when the Ashtray has none left: refuse that
    for zone, spec in (("hand", hands), ("stash", stash), ("session_pile", session_pile)):
        for p, cards in (spec or {}).items():
            assert zone_names(state, zone, p) == list(cards), f"not enough copies for {zone}({p}): {cards}"
    assert zone_names(state, "pile") == list(pile or [])
    # move the named cards to the top of the Ashtray, in order, face up
    ash = zone_index(state, "ashtray")
    for name in ashtray_top or []:
        card = next(c for c in state.zones[ash] if state.game.cards.names[c] == name)
        move_card(state, card, ash, 1)
    return state


def hit(state: State) -> None:
    """Resolve the pending first hit of the turn: it takes the top card of the arranged pile."""
    assert state.is_chance_node()
    top = state.zones[zone_index(state, "pile")][-1]
    kind = state.game.cards.kind_of[top]
    assert kind in [o for o, _ in state.chance_outcomes()], "arranged top card not among the pending outcomes"
    state.apply_action(kind)


def chance(state: State, kind_name: str) -> None:
    """Resolve a pending chance event (a random card) by the card's kind."""
    assert state.is_chance_node(), "expected a chance event"
    kind = state.game.cards.kind_names.index(kind_name)
    assert kind in [o for o, _ in state.chance_outcomes()], (kind_name, state.chance_outcomes())
    state.apply_action(kind)


def chance_bool(state: State, value: bool) -> None:
    assert state.is_chance_node(), "expected a chance event"
    for outcome, _ in state.chance_outcomes():
        if state.action_to_string(outcome) == f"chance: {'yes' if value else 'no'}":
            state.apply_action(outcome)
            return
    shown = [state.action_to_string(o) for o, _ in state.chance_outcomes()]
    raise AssertionError(f"no chance outcome {value}: {shown}")


def hand(state: State, p: int) -> list[str]:
    return zone_names(state, "hand", p)


def stash(state: State, p: int) -> list[str]:
    return zone_names(state, "stash", p)


def spile(state: State, p: int) -> list[str]:
    return zone_names(state, "session_pile", p)


def pile(state: State) -> list[str]:
    return zone_names(state, "pile")


def ashtray(state: State) -> list[str]:
    return zone_names(state, "ashtray")


def events(state: State, kind: str, since: int = 0) -> list[dict]:
    return [e for e in state.events[since:] if e["type"] == kind]


def round_end(state: State) -> dict:
    ends = events(state, "round_end")
    assert ends, "the round has not ended"
    return ends[-1]


def with_totals(state: State, totals: list[int]) -> State:
    """The same position with other match totals.

    (Not through the state's JSON: ``arrange`` leaves positions no match can reach, such as
    a pending chance draw of a kind no longer in the pile, which ``state_from_json`` refuses.)
    """
    other = state.clone()
    other.total = list(totals)
    return other


def seen(state: State, p: int) -> str:
    """Everything Toker ``p`` observes, as text (without the game's name, which is "Highjack")."""
    obs = state.observation(p)
    obs.pop("game")
    return json.dumps(obs)


def deciding(state: State) -> int:
    return state.current_player()


def card_counts(state: State) -> int:
    return sum(len(z) for z in state.zones)


def session_round(state: State, starter_card: str, commits: dict[int, str]) -> None:
    """The current Toker plays a Session card; the others commit the given cards in turn order."""
    act(state, f"play {starter_card}")
    for p, card in commits.items():
        assert deciding(state) == p, f"expected Toker {p} to commit, not {deciding(state)}"
        act(state, f"commit {card} face down")


# ---------------------------------------------------------------- R1: setup, turn order, visibility


@pytest.mark.parametrize("players", [2, 3, 4, 5, 8])
def test_r1_deal_four_each_rest_is_the_pile_and_left_of_dealer_starts(players):
    g = game(players, explicit=False)
    state = g.new_initial_state(11)
    total = 60 * (1 if players <= 4 else 2)
    assert state.observation(0)["dealer"] == players - 1
    assert state.current_player() == 0  # left of the dealer
    # seat 0 has taken its first hit already; everybody else holds the 4 dealt cards
    assert len(hand(state, 0)) == 5
    assert all(len(hand(state, p)) == 4 for p in range(1, players))
    assert len(pile(state)) == total - 4 * players - 1
    assert card_counts(state) == total


def test_r1_play_passes_left_and_the_dealer_moves_left_each_round():
    g = game(4, explicit=False)
    rng = random.Random(5)
    state = g.new_initial_state(5)
    dealers: dict[int, int] = {}  # round -> dealer
    turns: list[tuple[int, int, int, int]] = []  # (round, turn, Toker, skipped turns before it)
    seen_events = 0
    skipped = 0
    last = None
    while not state.is_terminal():
        for e in state.events[seen_events:]:
            if e["type"] == "turn_skipped":
                skipped += 1
        seen_events = len(state.events)
        key = (state.round, state.turn)
        if key != last and state.turn >= 1:
            turns.append((state.round, state.turn, state.current, skipped))
            dealers.setdefault(state.round, state.observation(0)["dealer"])
            last = key
            skipped = 0
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    assert len(dealers) >= 3, "the seeded match should last several rounds"
    for r, dealer in dealers.items():
        assert dealer == (3 + (r - 1)) % 4  # seat 3 deals first, then the deal moves left
    for (r0, t0, p0, _), (r1, t1, p1, skips) in zip(turns, turns[1:]):
        if r1 == r0:
            assert t1 == t0 + 1
            assert p1 == (p0 + 1 + skips) % 4, (r0, t0, p0, p1, skips)
    # the first Toker of a round is the one left of that round's dealer (unless skipped)
    starts = [(r, p, skips) for (r, t, p, skips) in turns if t == 1]
    for r, p, skips in starts:
        dealer = (3 + (r - 1)) % 4
        assert p == (dealer + 1 + skips) % 4


def test_r1_hands_secret_public_zones_public_and_hidden_counts_public():
    state = arrange(opened(3), hands={0: ["Bong", "Session 5"], 1: ["Highjack", "Munchies", "Lighter"], 2: []},
                    stash={0: ["Grinder"], 2: ["Lighter", "Lighter"]}, session_pile={1: ["Session 2", "Session 9"]},
                    pile=["Session 7", "Roach", "Paranoia"], ashtray_top=["Buzzkill", "Hotbox"])
    hit(state)  # seat 0 takes Paranoia
    obs2 = state.observation(2)
    zones = obs2["zones"]
    assert zones["hand"][0] == {"count": 3}
    assert zones["hand"][1] == {"count": 3}
    assert zones["hand"][2] == []
    assert zones["pile"] == {"count": 2}
    assert zones["stash"] == [["Grinder"], [], ["Lighter", "Lighter"]]
    assert zones["session_pile"][1] == ["Session 2", "Session 9"]
    assert zones["ashtray"]["top"] == "Hotbox"
    assert zones["ashtray"]["count"] == 60 - 13
    text = seen(state, 2)
    for secret in ("Highjack", "Munchies", "Paranoia", "Session 5", "Session 7", "Roach", "Buzzkill", "Bong"):
        assert secret not in text, secret
    # the owner sees their own hand
    assert sorted(state.observation(0)["zones"]["hand"][0]) == ["Bong", "Paranoia", "Session 5"]


# ---------------------------------------------------------------- R2: a turn


def test_r2_a_turn_is_one_hit_then_exactly_one_card_played():
    state = arrange(opened(3), hands={0: ["Bong", "Lighter"], 1: ["Session 4"], 2: ["Session 8"]},
                    pile=["Roach", "Munchies", "Grinder"])
    assert state.current == 0 and state.turn == 1
    hit(state)
    assert sorted(hand(state, 0)) == ["Bong", "Grinder", "Lighter"]
    assert pile(state) == ["Roach", "Munchies"]
    assert set(labels(state)) == {"play Bong", "play Lighter", "play Grinder"}
    act(state, "play Lighter")
    assert sorted(hand(state, 0)) == ["Bong", "Grinder"]
    assert stash(state, 0) == ["Lighter"]
    # exactly one card: the turn has passed to the next Toker, who has taken a hit
    # (the arranged pile is in order: hits now take its top card without a chance event)
    assert state.current == 1 and state.turn == 2 and deciding(state) == 1
    assert sorted(hand(state, 1)) == ["Munchies", "Session 4"]
    assert pile(state) == ["Roach"]


# ---------------------------------------------------------------- R3 / card type Stash Box


def test_r3_stash_card_goes_to_the_stash_box_and_duplicates_stack_and_score():
    state = arrange(opened(3), hands={0: ["Bong"], 1: [], 2: []}, stash={0: ["Bong"]},
                    pile=["Grinder", "Lighter"])
    hit(state)
    act(state, "play Bong")
    assert stash(state, 0) == ["Bong", "Bong"]
    assert state.observation(1)["zones"]["stash"][0] == ["Bong", "Bong"]
    # seat 1 has taken the last card, Grinder, and plays it: the round ends
    act(state, "play Grinder")
    end = round_end(state)
    # seat 0: two Bongs (40) - Lighter in hand (10); seat 1: Grinder (15)
    assert end["scores"] == [30, 15, 0]


def test_card_type_stash_box_points_5_10_15_20():
    state = arrange(opened(3), hands={0: [], 1: [], 2: []},
                    stash={0: ["Rolling Papers"], 1: ["Lighter", "Grinder"], 2: ["Bong", "Rolling Papers", "Lighter"]},
                    pile=["Grinder"])
    hit(state)
    act(state, "play Grinder")  # last pile card: the round ends
    assert round_end(state)["scores"] == [5 + 15, 10 + 15, 20 + 5 + 10]


# ---------------------------------------------------------------- R4: Action cards


def test_r4_action_goes_face_up_to_the_ashtray_and_opponent_is_another_toker():
    state = arrange(opened(3), hands={0: ["Munchies"], 1: [], 2: []}, pile=["Bong", "Lighter", "Grinder", "Session 3"])
    hit(state)
    act(state, "play Munchies")
    # the Action is already face up on the Ashtray while its instruction resolves
    assert ashtray(state)[-1] == "Munchies"
    assert state.observation(1)["zones"]["ashtray"]["top"] == "Munchies"
    assert events(state, "action_played")[-1] == {"type": "action_played", "player": 0, "card": "Munchies"}
    # issue 13: the default reads "Opponent" as another Toker (R4); the player is not offered
    assert set(labels(state)) == {"Munchies: P1 takes 2 hits", "Munchies: P2 takes 2 hits"}
    act(state, "Munchies: P1 takes 2 hits")
    # P1 took Grinder and Lighter, then its own turn's hit, Bong
    assert sorted(hand(state, 1)) == ["Bong", "Grinder", "Lighter"]


def test_r4_option_opponent_may_be_self_true_includes_the_player():
    # (until issue 13 this was the default, and this test was the default's test)
    state = arrange(opened(3, {"opponent_may_be_self": True}), hands={0: ["Munchies"], 1: [], 2: []},
                    pile=["Bong", "Lighter", "Grinder", "Session 3"])
    hit(state)
    act(state, "play Munchies")
    assert set(labels(state)) == {f"Munchies: P{p} takes 2 hits" for p in range(3)}  # any Toker, self included
    act(state, "Munchies: P0 takes 2 hits")
    assert sorted(hand(state, 0)) == ["Grinder", "Lighter", "Session 3"]


def test_r4_an_instruction_that_cannot_be_carried_out_does_nothing():
    state = arrange(opened(3), hands={0: ["Buzzkill", "Roach"], 1: ["Bogart"], 2: []},
                    stash={0: ["Bong"]}, pile=["Lighter", "Grinder", "Session 3"])
    hit(state)
    act(state, "play Buzzkill")
    act(state, "Buzzkill: P2's Stash Box")  # P2 has no Stash Box card
    assert stash(state, 0) == ["Bong"] and stash(state, 2) == []
    assert ashtray(state)[-1] == "Buzzkill"
    assert state.current == 1 and deciding(state) == 1  # the turn is over; P1 took Grinder
    act(state, "play Bogart")
    act(state, "Bogart: take a random card from P2")  # P2's hand is empty
    assert sorted(hand(state, 1)) == ["Grinder"]
    assert events(state, "card_taken") == []
    assert state.current == 2


# ---------------------------------------------------------------- the seven Actions


def test_action_munchies_opponent_takes_two_hits():
    state = arrange(opened(3), hands={0: ["Munchies"], 1: ["Bong"], 2: []},
                    pile=["Session 2", "Session 1", "Lighter", "Grinder", "Session 3"])
    hit(state)  # Session 3
    act(state, "play Munchies")
    act(state, "Munchies: P1 takes 2 hits")
    # P1 took Grinder and Lighter, then its own turn's hit, Session 1
    assert hand(state, 1) == ["Bong", "Grinder", "Lighter", "Session 1"]
    assert pile(state) == ["Session 2"]
    assert hand(state, 0) == ["Session 3"]


def test_action_bogart_takes_a_random_card_from_an_opponent_secretly():
    state = arrange(opened(3), hands={0: ["Bogart"], 1: ["Bong", "Highjack", "Session 2"], 2: []},
                    pile=["Session 1", "Lighter"])
    hit(state)
    act(state, "play Bogart")
    act(state, "Bogart: take a random card from P1")
    # the random card is a chance event over the kinds in P1's hand
    assert sorted(state.game.cards.kind_names[o] for o, _ in state.chance_outcomes()) == \
        ["Bong", "Highjack", "Session 2"]
    before = len(state.events)
    chance(state, "Highjack")
    assert sorted(hand(state, 0)) == ["Highjack", "Lighter"]
    assert sorted(hand(state, 1)) == ["Bong", "Session 1", "Session 2"]  # P1's own hit: Session 1
    taken = [e for e in state.events[before:] if e["type"].startswith("card_taken")]
    assert {"type": "card_taken", "player": 0, "source": 1} in taken
    # only the two Tokers involved learn which card moved
    assert "Highjack" not in seen(state, 2)
    assert any("Highjack" in json.dumps(e) for e in state.observation(1)["events"])


def test_action_buzzkill_moves_a_chosen_stash_card_of_an_opponent_to_the_ashtray():
    state = arrange(opened(3), hands={0: ["Buzzkill"], 1: [], 2: []},
                    stash={1: ["Lighter", "Grinder", "Bong"]}, pile=["Session 1", "Lighter"])
    hit(state)
    act(state, "play Buzzkill")
    act(state, "Buzzkill: P1's Stash Box")
    assert set(labels(state)) == {f"Buzzkill: {c} from P1 to the Ashtray" for c in ("Lighter", "Grinder", "Bong")}
    act(state, "Buzzkill: Grinder from P1 to the Ashtray")
    assert stash(state, 1) == ["Lighter", "Bong"]
    assert ashtray(state)[-2:] == ["Buzzkill", "Grinder"]
    assert state.observation(2)["zones"]["ashtray"]["top"] == "Grinder"


def test_action_paranoia_opponent_skips_their_next_turn():
    state = arrange(opened(3), hands={0: ["Paranoia"], 1: ["Bong"], 2: ["Lighter"]},
                    pile=["Session 1", "Session 2", "Session 3", "Session 4", "Roach"])
    hit(state)
    act(state, "play Paranoia")
    act(state, "Paranoia: P1 skips their next turn")
    assert state.current == 2 and state.turn == 2  # P1 was skipped
    assert events(state, "turn_skipped") == [{"type": "turn_skipped", "player": 1}]
    assert sorted(hand(state, 1)) == ["Bong"]
    assert sorted(hand(state, 2)) == ["Lighter", "Session 4"]
    act(state, "play Lighter")
    assert state.current == 0
    act(state, "play Session 3")  # a Session: P1 and P2 commit
    # P1 holds no Session card: it takes a hit, Session 2, and commits it
    act(state, "commit Session 2 face down")
    assert deciding(state) == 2
    act(state, "commit Session 4 face down")  # P2 took Session 4 on its turn
    # P2 won with 4: it takes P0's only card, the Roach
    act(state, "take a random card from P0")
    assert sorted(hand(state, 2)) == ["Roach"]
    # now P1 plays its next turn normally (it took the last card, Session 1)
    assert state.current == 1 and deciding(state) == 1
    assert sorted(hand(state, 1)) == ["Bong", "Session 1"]
    assert len(events(state, "turn_skipped")) == 1


def test_action_puff_puff_pass_every_toker_passes_one_card_left_secretly():
    state = arrange(opened(3), hands={0: ["Puff Puff Pass", "Bong"], 1: ["Highjack", "Lighter"],
                                      2: ["Session 9", "Munchies"]},
                    pile=["Session 1", "Grinder"])
    hit(state)
    act(state, "play Puff Puff Pass")
    assert deciding(state) == 0
    assert set(labels(state)) == {"pass Bong to P1", "pass Grinder to P1"}
    act(state, "pass Bong to P1")
    assert deciding(state) == 1
    # nobody sees the card P0 set aside, not even its receiver, before everybody passed
    for p in (1, 2):
        assert state.observation(p)["zones"]["passing"][0] == {"count": 1}
        assert "Bong" not in seen(state, p)
    act(state, "pass Highjack to P2")
    assert deciding(state) == 2
    assert "Highjack" not in seen(state, 2)
    act(state, "pass Session 9 to P0")
    assert sorted(hand(state, 0)) == ["Grinder", "Session 9"]
    assert sorted(hand(state, 1)) == ["Bong", "Lighter", "Session 1"]  # and P1's turn began with a hit
    assert sorted(hand(state, 2)) == ["Highjack", "Munchies"]
    assert all(zone_names(state, "passing", p) == [] for p in range(3))
    assert state.current == 1 and deciding(state) == 1


def test_action_roach_takes_the_ashtray_card_under_it():
    state = arrange(opened(3), hands={0: ["Roach"], 1: [], 2: []}, pile=["Session 1", "Lighter"],
                    ashtray_top=["Bong", "Highjack"])
    hit(state)
    act(state, "play Roach")
    assert sorted(hand(state, 0)) == ["Highjack", "Lighter"]
    assert ashtray(state)[-2:] == ["Bong", "Roach"]


def test_action_roach_on_an_empty_ashtray_does_nothing():
    state = arrange(opened(2), hands={0: ["Roach"], 1: []}, pile=[])
    # put every spare card into the pile so the Ashtray is empty
    spare = ashtray(state)
    set_zone(state, "pile", None, spare, source="ashtray", face=0)
    assert ashtray(state) == []
    hit(state)
    act(state, "play Roach")
    assert ashtray(state) == ["Roach"]
    assert len(hand(state, 0)) == 1  # only the hit


def test_action_hotbox_player_takes_two_hits():
    state = arrange(opened(3), hands={0: ["Hotbox"], 1: [], 2: []},
                    pile=["Session 2", "Session 1", "Lighter", "Grinder", "Session 3"])
    hit(state)
    act(state, "play Hotbox")
    assert sorted(hand(state, 0)) == ["Grinder", "Lighter", "Session 3"]
    assert hand(state, 1) == ["Session 1"] and pile(state) == ["Session 2"]
    assert ashtray(state)[-1] == "Hotbox"


# ---------------------------------------------------------------- R5: Session / card type Session


def test_card_type_session_is_held_face_down_and_starts_a_session():
    state = arrange(opened(3), hands={0: ["Session 5"], 1: ["Session 7"], 2: ["Session 2"]},
                    pile=["Lighter", "Bong"])
    hit(state)
    act(state, "play Session 5")
    assert events(state, "session_called") == [{"type": "session_called", "player": 0}]
    assert zone_names(state, "committed", 0) == ["Session 5"]
    assert state.observation(1)["zones"]["committed"][0] == {"count": 1}
    assert state.observation(0)["zones"]["committed"][0] == ["Session 5"]
    assert deciding(state) == 1 and set(labels(state)) == {"commit Session 7 face down"}


def test_r5_others_commit_secretly_in_turn_order_then_all_reveal_together():
    state = arrange(opened(4), hands={0: ["Session 5"], 1: ["Session 7", "Session 1"], 2: ["Session 2"],
                                      3: ["Session 3", "Bong"]},
                    pile=["Lighter", "Bong"], ashtray_top=["Roach"])
    hit(state)
    act(state, "play Session 5")
    order = []
    while not events(state, "reveal"):
        p = deciding(state)
        order.append(p)
        # nobody but the owner sees a committed card before the reveal
        for q in range(4):
            text = json.dumps(state.observation(q)["zones"]["committed"])
            for owner in range(4):
                if owner != q:
                    for card in zone_names(state, "committed", owner):
                        assert card not in text
        choice = {1: "commit Session 7", 2: "commit Session 2", 3: "commit Session 3"}[p]
        act(state, choice)
    assert order == [1, 2, 3]
    reveals = events(state, "reveal")
    assert len(reveals) == 1
    assert reveals[0]["cards"] == [{"player": 0, "card": "Session 5"}, {"player": 1, "card": "Session 7"},
                                   {"player": 2, "card": "Session 2"}, {"player": 3, "card": "Session 3"}]


def test_r5_tokers_join_in_turn_order_from_the_starter_and_search_in_that_order():
    state = arrange(opened(3), hands={0: ["Bong"], 1: ["Session 5"], 2: ["Lighter"]},
                    pile=["Grinder", "Session 3", "Session 9", "Munchies", "Roach"])
    hit(state)  # Roach
    act(state, "play Bong")
    assert state.current == 1 and hand(state, 1) == ["Session 5", "Munchies"]
    act(state, "play Session 5")
    # left of P1 is P2: it searches first and finds Session 9; then P0 finds Session 3
    assert deciding(state) == 2 and set(labels(state)) == {"commit Session 9 face down"}
    act(state, "commit Session 9")
    assert deciding(state) == 0 and set(labels(state)) == {"commit Session 3 face down"}
    act(state, "commit Session 3")
    assert [c["player"] for c in events(state, "reveal")[0]["cards"]] == [1, 2, 0]
    assert events(state, "session_won") == [{"type": "session_won", "player": 2, "card": "Session 9"}]


def test_r5_a_toker_without_a_session_card_takes_hits_until_one_and_keeps_them():
    state = arrange(opened(3), hands={0: ["Session 5"], 1: ["Session 7"], 2: ["Lighter"]},
                    pile=["Grinder", "Session 4", "Munchies", "Bong", "Rolling Papers"])
    hit(state)  # Rolling Papers
    act(state, "play Session 5")
    act(state, "commit Session 7")
    # P2 took Bong, Munchies, Session 4 and now commits Session 4
    assert deciding(state) == 2
    assert sorted(hand(state, 2)) == ["Bong", "Lighter", "Munchies", "Session 4"]
    assert set(labels(state)) == {"commit Session 4 face down"}
    act(state, "commit Session 4")
    assert sorted(hand(state, 2)) == ["Bong", "Lighter", "Munchies"]
    assert pile(state) == ["Grinder"]


def test_r5_a_toker_who_finds_no_session_card_sits_out_and_must_spark_it_up():
    state = arrange(opened(3), hands={0: ["Session 5"], 1: ["Lighter"], 2: ["Session 2"]},
                    pile=["Grinder", "Munchies", "Bong", "Rolling Papers"])
    hit(state)  # Rolling Papers
    act(state, "play Session 5")
    # P1 searched the whole pile in vain; P2 commits next
    assert deciding(state) == 2
    assert sorted(hand(state, 1)) == ["Bong", "Grinder", "Lighter", "Munchies"]
    sparks = events(state, "spark_it_up")
    assert [e["player"] for e in sparks] == [1]
    act(state, "commit Session 2")
    assert [c["player"] for c in events(state, "reveal")[0]["cards"]] == [0, 2]


def test_search_draw_that_empties_the_pile_ends_the_round_at_the_end_of_the_turn():
    state = arrange(opened(3), hands={0: ["Session 5"], 1: ["Lighter"], 2: ["Session 2"]},
                    stash={1: ["Bong"]}, pile=["Grinder", "Munchies", "Rolling Papers"])
    hit(state)  # Rolling Papers
    act(state, "play Session 5")
    assert pile(state) == []  # P1's search emptied the pile
    assert not events(state, "round_end")  # the turn (the Session) is not over yet
    act(state, "commit Session 2")
    # P0 won with 5: take a random card from an Opponent
    act(state, "take a random card from P2")  # P2's hand is empty: nothing happens
    end = round_end(state)
    assert end["round"] == 1
    # P0: Session Pile 10 + 5 - Rolling Papers 5; P1: Bong 20 - Lighter, Grinder, Munchies (30) -> 0
    assert end["scores"] == [10, 0, 0]


# ---------------------------------------------------------------- R6: calling "Highjack"


def test_r6_everybody_calls_highjack_automatically_by_default():
    g = game(3)
    assert g.options["missed_call_chance"] == 0
    state = arrange(opened(3), hands={0: ["Session 5"], 1: ["Session 7"], 2: ["Session 2"]}, pile=["Lighter", "Bong"])
    hit(state)
    session_round(state, "Session 5", {1: "Session 7", 2: "Session 2"})
    # no chance event at the reveal: P1 won and now picks whose card is discarded
    assert not state.is_chance_node() and deciding(state) == 1
    assert not [e for e in events(state, "spark_it_up") if e.get("reason") == "missed the call"]


def test_r6_a_toker_who_misses_the_call_forfeits_their_card_to_the_winner():
    state = arrange(opened(3, {"missed_call_chance": 0.5}), hands={0: ["Session 5"], 1: ["Session 9"],
                                                                   2: ["Session 2"]},
                    pile=["Lighter", "Bong"])
    hit(state)
    session_round(state, "Session 5", {1: "Session 9", 2: "Session 2"})
    # one chance event per contender, in seat order: only P1 (the highest card) forgets
    chance_bool(state, False)
    chance_bool(state, True)
    chance_bool(state, False)
    sparks = events(state, "spark_it_up")
    assert [e["player"] for e in sparks] == [1]
    assert "missed" in sparks[0]["reason"]
    # P0 wins with 5 (take a random card from an Opponent)
    assert events(state, "session_won")[-1] == {"type": "session_won", "player": 0, "card": "Session 5"}
    act(state, "take a random card from P1")  # P1's hand is empty
    assert sorted(spile(state, 0)) == ["Session 2", "Session 5", "Session 9"]
    assert spile(state, 0)[-1] == "Session 5"


# ---------------------------------------------------------------- R7: highest card, Stoner's Quarrel


def test_r7_highest_card_wins_highjack_beats_ten():
    state = arrange(opened(3), hands={0: ["Session 10"], 1: ["Highjack"], 2: ["Session 9"]},
                    stash={0: ["Bong"]}, pile=["Session 1", "Lighter", "Bong"])
    hit(state)
    session_round(state, "Session 10", {1: "Highjack", 2: "Session 9"})
    assert events(state, "session_won") == [{"type": "session_won", "player": 1, "card": "Highjack"}]


def test_r7_stoners_quarrel_repeats_twice_and_the_last_highest_takes_all():
    state = arrange(opened(3),
                    hands={0: ["Session 8", "Session 6", "Highjack"], 1: ["Session 8", "Session 6", "Session 3"],
                           2: ["Session 2", "Session 10"]},
                    stash={1: ["Lighter"]}, pile=["Session 1", "Grinder", "Bong"])
    hit(state)  # Bong
    session_round(state, "Session 8", {1: "Session 8", 2: "Session 2"})
    # first quarrel: only P0 and P1 commit again, P0 first
    assert [e["players"] for e in events(state, "stoners_quarrel")] == [[0, 1]]
    assert deciding(state) == 0
    act(state, "commit Session 6")
    assert deciding(state) == 1
    act(state, "commit Session 6")
    # second quarrel
    assert [e["players"] for e in events(state, "stoners_quarrel")] == [[0, 1], [0, 1]]
    assert deciding(state) == 0 and set(labels(state)) == {"commit Highjack face down"}
    act(state, "commit Highjack")
    act(state, "commit Session 3")
    reveals = events(state, "reveal")
    assert len(reveals) == 3
    assert reveals[-1]["cards"] == [{"player": 0, "card": "Highjack"}, {"player": 1, "card": "Session 3"}]
    assert events(state, "session_won") == [{"type": "session_won", "player": 0, "card": "Highjack"}]
    # Highjack Win Action: a Stash Box card from an Opponent, then one hit
    act(state, "take a Stash Box card from P1")
    act(state, "take Lighter")
    assert stash(state, 0) == ["Lighter"] and stash(state, 1) == []
    assert sorted(hand(state, 0)) == ["Bong", "Grinder"]
    # every card of the Session, the winning card on top
    assert sorted(spile(state, 0)) == sorted(["Session 8", "Session 8", "Session 2", "Session 6", "Session 6",
                                               "Highjack", "Session 3"])
    assert spile(state, 0)[-1] == "Highjack"
    assert zone_names(state, "session") == []
    assert sorted(hand(state, 2)) == ["Session 10"]  # P2 was not asked again


def test_r7_a_quarreller_without_a_session_card_searches_the_pile():
    state = arrange(opened(3), hands={0: ["Session 8", "Lighter"], 1: ["Session 8", "Session 2"], 2: ["Session 1"]},
                    pile=["Grinder", "Session 9", "Munchies", "Bong"])
    hit(state)  # Bong
    session_round(state, "Session 8", {1: "Session 8", 2: "Session 1"})
    # quarrel: P0 has no Session card left: it takes Munchies, then Session 9, and commits it
    assert deciding(state) == 0
    assert sorted(hand(state, 0)) == ["Bong", "Lighter", "Munchies", "Session 9"]
    act(state, "commit Session 9")
    assert pile(state) == ["Grinder"]
    act(state, "commit Session 2")
    assert events(state, "session_won") == [{"type": "session_won", "player": 0, "card": "Session 9"}]


def test_r7_quarrel_search_then_single_finder_wins():
    state = arrange(opened(3), hands={0: ["Session 8", "Lighter"], 1: ["Session 8", "Session 2"], 2: ["Session 1"]},
                    pile=["Grinder", "Munchies", "Bong"])
    hit(state)  # Bong
    session_round(state, "Session 8", {1: "Session 8", 2: "Session 1"})
    # quarrel: P0 has no Session card: it takes Munchies, then Grinder, and the pile is empty
    assert deciding(state) == 1
    assert sorted(hand(state, 0)) == ["Bong", "Grinder", "Lighter", "Munchies"]
    assert [e["player"] for e in events(state, "spark_it_up")] == [0]
    act(state, "commit Session 2")
    # P1 is the only one left: it takes every card with its 2 (Win Action: take 2 hits, pile empty)
    assert events(state, "session_won") == [{"type": "session_won", "player": 1, "card": "Session 2"}]
    # the pile is empty, so the round ended with this turn: P1 scores the four Session cards
    assert round_end(state)["scores"] == [0, 15 + 15 + 5 + 5, 0]


def test_r7_when_every_quarreller_drops_out_nobody_takes_the_session():
    state = arrange(opened(3), hands={0: ["Session 8"], 1: ["Session 8"], 2: ["Session 1"]},
                    stash={0: ["Bong", "Bong"], 1: ["Grinder"], 2: ["Lighter"]},
                    pile=["Munchies", "Rolling Papers", "Lighter"])
    hit(state)  # Lighter
    session_round(state, "Session 8", {1: "Session 8", 2: "Session 1"})
    # both quarrellers search in vain: P0 takes Rolling Papers and Munchies; P1 finds nothing
    assert events(state, "session_won") == []
    assert len(events(state, "session_void")) == 1
    assert [e["player"] for e in events(state, "spark_it_up")] == [0, 1]
    # the pile is empty: the round ended with this turn, and no Session card scored
    end = round_end(state)
    assert end["round"] == 1
    assert end["scores"] == [40 - 10 - 5 - 5, 15, 10]


def test_r6_r7_when_every_quarreller_misses_the_call_the_session_goes_to_the_ashtray():
    state = arrange(opened(3, {"missed_call_chance": 0.5}),
                    hands={0: ["Session 8", "Session 6"], 1: ["Session 8", "Session 6"], 2: ["Session 1"]},
                    pile=["Munchies", "Rolling Papers", "Lighter"])
    hit(state)  # Lighter
    session_round(state, "Session 8", {1: "Session 8", 2: "Session 1"})
    for _ in range(3):
        chance_bool(state, False)
    act(state, "commit Session 6")
    act(state, "commit Session 6")
    chance_bool(state, True)
    chance_bool(state, True)
    assert events(state, "session_won") == [] and len(events(state, "session_void")) == 1
    assert all(spile(state, p) == [] for p in range(3))
    assert zone_names(state, "session") == []
    assert sorted(ashtray(state)[-5:]) == ["Session 1", "Session 6", "Session 6", "Session 8", "Session 8"]
    assert state.observation(2)["zones"]["ashtray"]["top"] in ("Session 1", "Session 6", "Session 8")
    assert state.current == 1 and not events(state, "round_end")


# ---------------------------------------------------------------- R8 / Win Actions


def test_r8_the_winner_performs_the_win_action_before_taking_the_cards_winning_card_on_top():
    state = arrange(opened(3), hands={0: ["Session 5"], 1: ["Session 7"], 2: ["Session 2", "Lighter"]},
                    pile=["Bong", "Rolling Papers"])
    hit(state)
    session_round(state, "Session 5", {1: "Session 7", 2: "Session 2"})
    # P1 is performing its Win Action: the Session's cards still lie revealed in the Session
    assert deciding(state) == 1
    assert sorted(zone_names(state, "session")) == ["Session 2", "Session 5", "Session 7"]
    assert spile(state, 1) == []
    act(state, "P2 discards")
    act(state, "discard Lighter")
    assert spile(state, 1)[-1] == "Session 7"
    assert sorted(spile(state, 1)) == ["Session 2", "Session 5", "Session 7"]
    assert state.observation(0)["zones"]["session_pile"][1][-1] == "Session 7"  # face up, public


def test_win_action_1_to_3_take_two_hits():
    state = arrange(opened(3), hands={0: ["Session 3"], 1: ["Session 1"], 2: ["Session 2"]},
                    pile=["Rolling Papers", "Roach", "Lighter", "Grinder", "Bong"])
    hit(state)  # Bong
    session_round(state, "Session 3", {1: "Session 1", 2: "Session 2"})
    assert events(state, "session_won")[-1]["player"] == 0
    assert sorted(hand(state, 0)) == ["Bong", "Grinder", "Lighter"]
    assert state.current == 1 and hand(state, 1) == ["Roach"]  # P1's turn began with a hit
    assert pile(state) == ["Rolling Papers"]


def test_win_action_4_to_6_take_a_random_card_from_an_opponent():
    state = arrange(opened(3), hands={0: ["Session 6"], 1: ["Session 1", "Hotbox"],
                                      2: ["Session 2", "Bong", "Highjack"]},
                    pile=["Roach", "Lighter"])
    hit(state)  # Lighter
    session_round(state, "Session 6", {1: "Session 1", 2: "Session 2"})
    assert set(labels(state)) == {f"take a random card from P{p}" for p in (1, 2)}  # others only (R4, issue 13)
    act(state, "take a random card from P2")
    assert sorted(state.game.cards.kind_names[o] for o, _ in state.chance_outcomes()) == ["Bong", "Highjack"]
    chance(state, "Bong")
    assert sorted(hand(state, 0)) == ["Bong", "Lighter"]
    assert hand(state, 2) == ["Highjack"]


def test_win_action_7_to_9_opponent_discards_a_card_of_their_choice():
    state = arrange(opened(3), hands={0: ["Session 9"], 1: ["Session 1", "Hotbox", "Bong"], 2: ["Session 2"]},
                    pile=["Roach", "Lighter"])
    hit(state)
    session_round(state, "Session 9", {1: "Session 1", 2: "Session 2"})
    act(state, "P1 discards")
    assert deciding(state) == 1  # the Opponent chooses
    assert set(labels(state)) == {"discard Hotbox to the Ashtray", "discard Bong to the Ashtray"}
    act(state, "discard Bong")
    assert hand(state, 1) == ["Hotbox", "Roach"]  # then P1's turn began with a hit
    assert ashtray(state)[-1] == "Bong"


def test_win_action_10_move_a_stash_card_from_an_opponent_into_yours():
    state = arrange(opened(3), hands={0: ["Session 10"], 1: ["Session 1"], 2: ["Session 2"]},
                    stash={0: ["Lighter"], 2: ["Bong", "Grinder"]}, pile=["Roach", "Lighter"])
    hit(state)
    session_round(state, "Session 10", {1: "Session 1", 2: "Session 2"})
    act(state, "take a Stash Box card from P2")
    assert set(labels(state)) == {"take Bong from P2's Stash Box", "take Grinder from P2's Stash Box"}
    act(state, "take Bong")
    assert stash(state, 0) == ["Lighter", "Bong"]
    assert stash(state, 2) == ["Grinder"]
    assert hand(state, 0) == ["Lighter"]  # no hit


def test_win_action_highjack_move_a_stash_card_then_take_one_hit():
    state = arrange(opened(3), hands={0: ["Highjack"], 1: ["Session 1"], 2: ["Session 2"]},
                    stash={1: ["Rolling Papers"]}, pile=["Session 4", "Roach", "Grinder", "Lighter"])
    hit(state)  # Lighter
    session_round(state, "Highjack", {1: "Session 1", 2: "Session 2"})
    act(state, "take a Stash Box card from P1")
    act(state, "take Rolling Papers")
    assert stash(state, 0) == ["Rolling Papers"] and stash(state, 1) == []
    assert sorted(hand(state, 0)) == ["Grinder", "Lighter"]
    assert hand(state, 1) == ["Roach"] and pile(state) == ["Session 4"]  # P1's turn began


def test_r8_r9_a_win_action_that_completes_the_stash_box_still_collects_the_session():
    # P0 holds three Stash Box kinds and a Session card: taking the Bong with its 10 completes it.
    state = arrange(opened(3), hands={0: ["Session 10", "Bong"], 1: ["Session 7"], 2: ["Session 1"]},
                    stash={0: ["Rolling Papers", "Lighter", "Grinder"], 1: ["Bong"]},
                    session_pile={0: ["Session 3"]}, pile=["Grinder", "Munchies"])
    hit(state)  # Munchies
    session_round(state, "Session 10", {1: "Session 7", 2: "Session 1"})
    act(state, "take a Stash Box card from P1")
    act(state, "take Bong")
    end = round_end(state)
    assert end["completed"] == [0]
    # stash 5+10+15+20, Session Pile 5 + (20+15+5), bonus 50, minus Bong and Munchies in hand
    assert end["scores"][0] == 50 + 45 + 50 - 25


# ---------------------------------------------------------------- R9: round end


def test_r9_the_round_ends_at_the_end_of_the_turn_that_draws_the_last_card():
    state = arrange(opened(3), hands={0: ["Bong"], 1: [], 2: []}, pile=["Lighter"])
    hit(state)
    assert pile(state) == [] and not events(state, "round_end")  # the turn goes on: a card is played
    act(state, "play Bong")
    end = round_end(state)
    assert end["round"] == 1 and end["scores"] == [20 - 10, 0, 0]


def test_r9_an_action_that_empties_the_pile_ends_the_round_after_the_turn():
    state = arrange(opened(3), hands={0: ["Munchies", "Bong"], 1: [], 2: []},
                    stash={0: ["Grinder", "Grinder", "Grinder"], 1: ["Bong", "Bong"]},
                    pile=["Lighter", "Rolling Papers", "Session 1"])
    hit(state)  # Session 1
    act(state, "play Munchies")
    act(state, "Munchies: P1 takes 2 hits")
    # the round ended before P1's turn: P1 holds just these two cards
    end = round_end(state)
    assert end["scores"] == [45 - 20 - 5, 40 - 5 - 10, 0]
    assert len(events(state, "round_end")) == 1


def test_r9_completing_the_stash_box_ends_the_round_at_once_with_the_bonus():
    state = arrange(opened(3), hands={0: ["Bong", "Session 4"], 1: ["Lighter"], 2: []},
                    stash={0: ["Rolling Papers", "Lighter", "Grinder"]}, session_pile={0: ["Session 1"]},
                    pile=["Session 9", "Session 8", "Munchies"])
    hit(state)  # Munchies
    act(state, "play Bong")
    end = round_end(state)
    assert end["round"] == 1 and end["completed"] == [0] and end["bonus"] == [50, 0, 0]
    # 50 (stash) + 5 (Session 1) + 50 bonus - Session 4 (10) - Munchies (5)
    assert end["scores"] == [90, 0, 0]
    assert state.round == 2  # the pile was not empty: the round ended on completion


def test_r9_four_kinds_without_a_session_card_or_duplicates_do_not_complete():
    state = arrange(opened(3), hands={0: ["Bong"], 1: ["Grinder"], 2: []},
                    stash={0: ["Rolling Papers", "Lighter", "Grinder"],
                           1: ["Rolling Papers", "Rolling Papers", "Lighter"]},
                    session_pile={1: ["Session 1"]}, pile=["Session 9", "Session 8", "Munchies"])
    hit(state)
    act(state, "play Bong")  # four kinds, but no Session Pile card
    assert not events(state, "round_end") and state.current == 1
    act(state, "play Grinder")  # Session Pile card, but Bong is missing (duplicates are no kind)
    assert not events(state, "round_end") and state.current == 2


# ---------------------------------------------------------------- R10: round score


def test_r10_round_score_is_stash_plus_session_pile_plus_bonus_minus_hand():
    state = arrange(opened(3), hands={0: ["Session 1", "Munchies"], 1: ["Highjack"], 2: []},
                    stash={0: ["Bong", "Bong", "Lighter"], 1: ["Grinder"], 2: ["Rolling Papers"]},
                    session_pile={0: ["Session 4", "Session 9"], 2: ["Session 10", "Session 6"]},
                    pile=["Hotbox"])
    hit(state)
    act(state, "play Hotbox")  # the pile is empty: nothing to take; the round ends
    end = round_end(state)
    assert end["scores"] == [20 + 20 + 10 + 10 + 15 - 5 - 5, 0, 5 + 20 + 10]
    assert end["totals"] == end["scores"]


def test_r10_round_score_floor_is_zero():
    state = arrange(opened(3), hands={0: ["Bong"], 1: ["Highjack", "Session 10", "Bong"], 2: []},
                    stash={1: ["Rolling Papers"]}, pile=["Hotbox"])
    state = with_totals(state, [0, 35, 0])
    hit(state)
    act(state, "play Bong")
    end = round_end(state)
    assert end["scores"][1] == 0  # 5 - 60 would be -55
    assert end["totals"][1] == 35
    assert end["scores"][0] == 20 - 5


# ---------------------------------------------------------------- R11: match end


def _end_round_with_scores_20_20_0(state: State) -> None:
    """Seat 0 takes the last card (a Bong) and plays it; seat 1 already has a Bong: 20, 20, 0."""
    arrange(state, hands={0: [], 1: [], 2: []}, stash={1: ["Bong"]}, pile=["Bong"])
    hit(state)
    act(state, "play Bong")


def test_r11_chronic_420_with_a_tie_plays_another_round():
    state = with_totals(opened(3), [400, 400, 0])
    _end_round_with_scores_20_20_0(state)
    end = round_end(state)
    assert end["totals"] == [420, 420, 0]
    assert not state.is_terminal()
    assert events(state, "round_start")[-1]["round"] == 2 and state.round == 2
    # the next round is played; whoever is alone on top after it wins
    to_first_hit(state, random.Random(1))
    assert state.current == 1  # the dealer moved left
    arrange(state, hands={0: [], 1: [], 2: []}, stash={0: ["Lighter"]}, pile=["Session 1"])
    hit(state)
    act(state, "play Session 1")  # alone in the Session: P1 wins it; take 2 hits (pile empty)
    assert state.is_terminal()
    assert round_end(state)["totals"] == [430, 425, 0]
    assert state.winners() == [0]


def test_r11_chronic_the_single_highest_total_at_420_wins():
    state = with_totals(opened(3), [400, 390, 0])
    _end_round_with_scores_20_20_0(state)
    assert state.is_terminal()
    assert state.winners() == [0]
    assert state.returns() == [1.0, 0.0, 0.0]


def test_r11_chronic_target_option_and_highest_total_wins_when_several_pass_it():
    state = with_totals(opened(3, {"target": 100}), [90, 95, 0])
    _end_round_with_scores_20_20_0(state)
    assert state.is_terminal() and state.winners() == [1]  # 110 vs 115


def test_r11_one_hitter_quitter_the_first_bonus_wins_points_not_counted():
    state = arrange(opened(3, {"end_rule": "one_hitter_quitter"}), hands={0: ["Bong"], 1: [], 2: []},
                    stash={0: ["Rolling Papers", "Lighter", "Grinder"]}, session_pile={0: ["Session 1"]},
                    pile=["Session 9", "Munchies"])
    state = with_totals(state, [0, 900, 0])
    hit(state)
    act(state, "play Bong")
    assert state.is_terminal()
    assert state.winners() == [0]


def test_r11_one_hitter_quitter_goes_on_without_a_bonus():
    state = with_totals(opened(3, {"end_rule": "one_hitter_quitter"}), [0, 900, 0])
    _end_round_with_scores_20_20_0(state)
    assert not state.is_terminal() and state.round == 2


def test_r11_max_rounds_guard_chronic_highest_total_wins_and_equal_highest_share():
    state = opened(3, {"max_rounds": 1})
    _end_round_with_scores_20_20_0(state)
    assert state.is_terminal()
    assert state.winners() == [0, 1]
    assert state.returns() == [0.5, 0.5, 0.0]
    # One Hitter Quitter counts no points: ended by the guard without a bonus, it is a draw among
    # all, although P2 scored most (issue 13; until then the highest total, P2, won alone)
    state = opened(3, {"max_rounds": 1, "end_rule": "one_hitter_quitter"})
    arrange(state, hands={0: [], 1: [], 2: []}, stash={2: ["Bong", "Bong"]}, pile=["Bong"])
    hit(state)
    act(state, "play Bong")
    assert state.is_terminal() and state.winners() == [0, 1, 2]


def test_r11_default_options():
    options = game(3).options
    assert options["end_rule"] == "chronic"
    assert options["target"] == 420
    assert options["max_rounds"] == 30
    assert options["opponent_may_be_self"] is False  # issue 13: "Opponent" is another Toker by default


# ---------------------------------------------------------------- R12: decks


@pytest.mark.parametrize("players", range(2, 9))
def test_r12_one_deck_for_2_to_4_two_decks_for_5_to_8(players):
    g = game(players, explicit=False)
    decks = 1 if players <= 4 else 2
    assert g.options["decks"] == decks
    assert g.cards.count == 60 * decks


def test_r12_the_decks_option_overrides_the_player_count():
    # (6 Tokers with 1 deck was accepted until issue 13; too few decks are now refused, see
    # tests/test_highjack_rulings.py: a deck seats at most 4 Tokers)
    assert game(6, {"decks": 3}, explicit=False).cards.count == 180
    assert game(3, {"decks": 2}, explicit=False).cards.count == 120


def test_eight_players_play_with_120_cards():
    g = game(8, explicit=False)
    names = g.cards.names
    assert len(names) == 120
    assert names.count("Bong") == 6 and names.count("Highjack") == 4 and names.count("Hotbox") == 2
    state = g.new_initial_state(3)
    assert card_counts(state) == 120
    assert len(pile(state)) == 120 - 32 - 1
    rng = random.Random(3)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        assert card_counts(state) == 120
        assert sorted(c for z in state.zones for c in z) == list(range(120))
    assert state.winners()


# ---------------------------------------------------------------- the reference deck


def test_reference_deck_composition():
    g = game(3, explicit=False)
    table = g.cards
    assert table.count == 60
    counts: dict[str, int] = {}
    for name in table.names:
        counts[name] = counts.get(name, 0) + 1
    kind = {name: table.kind_attrs[i] for i, name in enumerate(table.kind_names)}
    # Stash Box (Gold): 12
    for name, points in zip(STASH, (5, 10, 15, 20)):
        assert counts[name] == 3 and kind[name]["type"] == "stash" and kind[name]["points"] == points
    # Action (Red): 16, 5 points each
    for name, copies in ACTIONS.items():
        assert counts[name] == copies and kind[name]["type"] == "action" and kind[name]["points"] == 5
    assert sum(ACTIONS.values()) == 16
    # Session (Green): 1-10 x3 and 2 Highjack
    for v in range(1, 11):
        name = f"Session {v}"
        points = 5 if v <= 3 else 10 if v <= 6 else 15 if v <= 9 else 20
        assert counts[name] == 3 and kind[name]["type"] == "session"
        assert kind[name]["points"] == points and kind[name]["value"] == v
    assert counts["Highjack"] == 2 and kind["Highjack"]["points"] == 20 and kind["Highjack"]["value"] > 10
    assert sum(counts.values()) == 12 + 16 + 32
    # Win Actions by value
    wins = {f"Session {v}": kind[f"Session {v}"]["win"] for v in range(1, 11)}
    assert len({wins[f"Session {v}"] for v in (1, 2, 3)}) == 1
    assert len({wins[f"Session {v}"] for v in (4, 5, 6)}) == 1
    assert len({wins[f"Session {v}"] for v in (7, 8, 9)}) == 1
    assert len({wins["Session 1"], wins["Session 4"], wins["Session 7"], wins["Session 10"],
                kind["Highjack"]["win"]}) == 5


def test_reference_deck_is_labelled_as_the_projects_not_the_publishers():
    text = Path(PATH).read_text()
    lowered = " ".join(text.lower().split())
    assert "reference deck" in lowered
    assert "not the publisher" in lowered
    spec = yaml.safe_load(text)
    assert len(spec["cards"]["list"]) == 4 + 7 + 5
    doc = " ".join(DOC.read_text().lower().split())
    assert "reference deck" in doc and "not the publisher" in doc
    for name in STASH + list(ACTIONS) + ["highjack"]:
        assert name.lower() in doc


def test_rulings_document_lists_every_ruling_and_every_option():
    doc = DOC.read_text()
    for n in range(1, 13):
        assert f"R{n}" in doc, f"R{n} missing"
    for option in ("opponent_may_be_self", "missed_call_chance", "end_rule", "target", "max_rounds", "decks"):
        assert f"`{option}`" in doc, option
    assert "guard" in doc.lower()
    spec = yaml.safe_load(Path(PATH).read_text())
    assert set(spec["options"]) == {"end_rule", "target", "max_rounds", "opponent_may_be_self",
                                    "missed_call_chance", "decks"}
