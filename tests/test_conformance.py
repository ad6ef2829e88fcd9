"""Conformance: random matches of every spec in games/, in every variant the spec lists.

Each hypothesis example is one complete match (a variant, a seed for the game, a seed for
the random choices, implicit or explicit chance). After every action it checks

- the engine's invariants: every card in exactly one zone and its recorded location,
  pieces and cells agreeing, legal actions sorted, unique, in range and empty exactly at
  the end, chance probabilities positive and summing to 1, the history within the
  declared bound, returns within the declared bounds at the end;
- the invariants the spec declares (``game.check_invariants``);
- clone equality, and that a clone or a JSON round trip (``state_from_json(to_json())``)
  continues exactly like the original (stepped in parallel, refreshed every few steps), and
  that a clone left behind is not changed by the original playing on;
- secrecy: redealing what a player cannot see (``sample_consistent``) leaves their view
  unchanged, and every card ``visible_cards`` says they see is in their view;
- illegal ids, ids only another player could use, and actions after the end raise
  ``IllegalActionError`` naming the legal choices and leave the state unchanged;

and after the match that replaying the same seed and actions gives identical events,
scores, views and state (with explicit chance, the same match from any seed). Expensive
checks run on a sample of steps (every check runs in every match). A failure names the
spec, variant, seeds and the action list.

The number of matches follows the hypothesis profile: ``max_examples`` matches per spec
(split over its variants; at least one per variant), so 50 by default and 1,000 with
``--hypothesis-profile=thorough``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interpreter
from interpreter import IllegalActionError
from interpreter.sampling import sample_consistent
from interpreter.views import visible_cards
from tests.conftest import GAMES

SPECS = sorted(GAMES.glob("*.yaml"))

JSON_EVERY = 5  # refresh the parallel copy from a JSON round trip (else from a clone)
SECRECY_ALL_EVERY = 8  # every player's secrecy; in between, one player per step in turn
ILLEGAL_EVERY = 16  # illegal actions


def _variants(spec: Path) -> list[dict[str, Any]]:
    game = interpreter.load_game(str(spec))
    return game.variants or [{"name": "defaults", "players": None, "options": {}}]


def _cases() -> list[Any]:
    cases = []
    for spec in SPECS:
        variants = _variants(spec)
        for i, variant in enumerate(variants):
            name = variant["name"] or f"variant {i}"
            cases.append(pytest.param(spec, i, len(variants), id=f"{spec.stem}-{name}".replace(" ", "_")))
    return cases


_GAMES: dict[tuple[str, int, bool], interpreter.Game] = {}


def _game(spec: Path, index: int, explicit: bool) -> interpreter.Game:
    key = (str(spec), index, explicit)
    if key not in _GAMES:
        variant = _variants(spec)[index]
        _GAMES[key] = interpreter.load_game(str(spec), players=variant["players"], options=variant["options"],
                                            explicit_chance=explicit)
    return _GAMES[key]


def test_every_spec_is_covered():
    assert SPECS, "no specs in games/"
    covered = {c.values[0] for c in _cases()}
    assert covered == set(SPECS)


def test_matches_per_spec_follow_the_profile():
    per_spec = settings.default.max_examples
    for spec in SPECS:
        variants = len(_variants(spec))
        assert _examples_per_variant(variants) * variants >= per_spec


def _examples_per_variant(variants: int) -> int:
    return max(1, math.ceil(settings.default.max_examples / variants))


@pytest.mark.parametrize("spec, index, count", _cases())
def test_random_matches_conform(spec: Path, index: int, count: int):
    examples = _examples_per_variant(count)
    played: list[int] = []

    @settings(max_examples=examples)
    @given(game_seed=st.integers(0, 2**32 - 1), action_seed=st.integers(0, 2**32 - 1), explicit=st.booleans())
    def run(game_seed: int, action_seed: int, explicit: bool) -> None:
        game = _game(spec, index, explicit)
        match = Match(game, game_seed, action_seed)
        try:
            match.play()
        except Exception as exc:
            variant = _variants(spec)[index]
            raise AssertionError(
                f"{spec.name} variant {variant['name']!r} (players={game.num_players}, options={variant['options']}, "
                f"explicit_chance={explicit}) game seed {game_seed}, action seed {action_seed}, "
                f"after {len(match.actions)} actions {match.actions}: {type(exc).__name__}: {exc}") from exc
        played.append(len(match.actions))

    run()
    assert len(played) >= examples, f"only {len(played)} complete matches ran"


class Match:
    """One random match, checked after every action."""

    def __init__(self, game: interpreter.Game, game_seed: int, action_seed: int):
        self.game = game
        self.seed = game_seed
        self.rng = random.Random(action_seed)
        self.actions: list[int] = []
        self.step = 0
        self.last_legal: dict[int, list[int]] = {}  # per player, their legal ids when they last decided
        self.wrong_player_checked = False

    def play(self) -> None:
        game = self.game
        s = game.new_initial_state(self.seed)
        shadow = _round_trip(s)
        left, left_text = s.clone(), s.to_json()  # a copy left behind: playing on must not change it
        while True:
            self.check_state(s)
            if self.step % JSON_EVERY == 0:
                assert left.to_json() == left_text, "playing on changed a copy of an earlier state"
                left, left_text = s.clone(), s.to_json()
                shadow = _round_trip(s) if (self.step // JSON_EVERY) % 2 == 0 else s.clone()
            assert shadow == s, "a copy (clone or JSON round trip) did not continue like the original"
            self.check_secrecy(s)
            wrong = self.wrong_player_ids(s)
            if self.step % ILLEGAL_EVERY == 0 or s.is_terminal() or (wrong and not self.wrong_player_checked):
                self.check_illegal(s, wrong)
                self.wrong_player_checked = self.wrong_player_checked or bool(wrong)
            if s.is_terminal():
                break
            action = self.choose(s)
            player = s.current_player()
            if player >= 0:
                self.last_legal[player] = s.legal_actions()
            s.apply_action(action)
            shadow.apply_action(action)
            self.actions.append(action)
            self.step += 1
        self.check_end(s)
        assert _round_trip(s) == s
        self.check_determinism(s)

    # ------------------------------------------------------------------ choices
    def choose(self, s: interpreter.State) -> int:
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            x = self.rng.random()
            acc = 0.0
            for a, p in outcomes:
                acc += p
                if x < acc:
                    return a
            return outcomes[-1][0]
        legal = s.legal_actions()
        return legal[self.rng.randrange(len(legal))]

    # ------------------------------------------------------------------ invariants
    def check_state(self, s: interpreter.State) -> None:
        game = self.game
        check_engine_invariants(s)
        failed = game.check_invariants(s)
        assert failed == [], f"spec invariants failed: {failed}"
        clone = s.clone()
        assert clone is not s and clone == s, "clone differs from the state"
        assert len(s.history) <= game.max_game_length

    def check_end(self, s: interpreter.State) -> None:
        game = self.game
        returns = s.returns()
        assert len(returns) == game.num_players
        if game.min_utility is not None:
            assert all(r >= game.min_utility - 1e-9 for r in returns), (returns, game.min_utility)
        if game.max_utility is not None:
            assert all(r <= game.max_utility + 1e-9 for r in returns), (returns, game.max_utility)
        if game.utility_sum is not None:
            assert abs(sum(returns) - game.utility_sum) < 1e-9, (returns, game.utility_sum)
        assert set(s.winners()) <= set(range(game.num_players))

    # ------------------------------------------------------------------ secrecy
    def check_secrecy(self, s: interpreter.State) -> None:
        n = self.game.num_players
        if self.step % SECRECY_ALL_EVERY == 0 or s.is_terminal():
            players = range(n)
        else:
            players = [self.step % n]
        for p in players:
            check_secrecy(s, p, seed=self.seed * 31 + self.step)

    # ------------------------------------------------------------------ illegal actions
    def wrong_player_ids(self, s: interpreter.State) -> list[int]:
        """Ids another player could choose when they last decided, not legal now."""
        if s.is_terminal():
            return []
        legal = set(s.legal_actions())
        current = s.current_player()
        ids = {a for p, ids in self.last_legal.items() if p != current for a in ids} - legal
        return sorted(ids)

    def check_illegal(self, s: interpreter.State, wrong_player: list[int]) -> None:
        game = self.game
        legal = s.legal_actions()
        if s.is_terminal():
            candidates = [0, game.num_distinct_actions - 1] + self.actions[-1:]
        else:
            size = game.max_chance_outcomes if s.is_chance_node() else game.num_distinct_actions
            not_legal = [a for a in range(size) if a not in legal]
            candidates = [-1, size, game.num_distinct_actions + game.max_chance_outcomes]
            if not_legal:
                candidates.append(not_legal[self.rng.randrange(len(not_legal))])
            if wrong_player:
                candidates.append(wrong_player[self.rng.randrange(len(wrong_player))])
        for bad in candidates:
            snapshot = s.clone()
            with pytest.raises(IllegalActionError) as info:
                s.apply_action(bad)
            assert s == snapshot, f"an illegal action {bad} changed the state"
            message = str(info.value)
            if legal:
                first = legal[0]
                assert f"{first} ({s.action_to_string(first)})" in message, (
                    f"the error for {bad} does not name the legal choices: {message}")

    # ------------------------------------------------------------------ determinism
    def check_determinism(self, s: interpreter.State) -> None:
        again = self.game.new_initial_state(self.seed)
        for action in self.actions:
            again.apply_action(action)
        assert again.events == s.events, "same seed and actions gave different events"
        assert again.scores() == s.scores() and again.returns() == s.returns()
        assert again.winners() == s.winners()
        for p in range(self.game.num_players):
            assert again.observation(p) == s.observation(p), f"same seed and actions gave player {p} another view"
        assert again == s
        if self.game.explicit_chance:
            # every random draw is a chance node: the seed must not matter
            other = self.game.new_initial_state(self.seed + 1)
            for action in self.actions:
                other.apply_action(action)
            mine, theirs = s.to_dict(), other.to_dict()
            del mine["rng"], theirs["rng"]
            assert mine == theirs, "with explicit chance, another seed and the same actions gave another match"


def _round_trip(s: interpreter.State) -> interpreter.State:
    restored = s.game.state_from_json(s.to_json())
    assert restored == s, "state_from_json(to_json()) differs from the state"
    return restored


def check_engine_invariants(s: interpreter.State) -> None:
    game = s.game
    count = game.cards.count
    assert len(s.loc) == count and len(s.face) == count
    seen = []
    for z, cards in enumerate(s.zones):
        for c in cards:
            assert s.loc[c] == z, f"card {c} is in zone {z} but recorded in {s.loc[c]}"
        seen.extend(cards)
    assert sorted(seen) == list(range(count)), "cards were lost or duplicated"
    for x, cell in enumerate(s.piece_cell):
        if cell >= 0:
            assert s.cell_piece[cell] == x, f"piece {x} on cell {cell} but the cell holds {s.cell_piece[cell]}"
    for cell, x in enumerate(s.cell_piece):
        if x >= 0:
            assert s.piece_cell[x] == cell
    legal = s.legal_actions()
    assert legal == sorted(set(legal)), f"legal actions not sorted and unique: {legal}"
    player = s.current_player()
    if s.is_terminal():
        assert legal == [] and player == interpreter.TERMINAL
        assert s.chance_outcomes() == []
        return
    assert legal, "a state that is not terminal has no legal action"
    for p in range(game.num_players):
        if p != player:
            assert s.legal_actions(p) == [], f"player {p} has legal actions on player {player}'s decision"
    if s.is_chance_node():
        assert player == interpreter.CHANCE
        outcomes = s.chance_outcomes()
        assert [a for a, _ in outcomes] == legal
        assert all(p > 0 for _, p in outcomes) and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9, outcomes
        assert all(0 <= a < game.max_chance_outcomes for a in legal), (legal, game.max_chance_outcomes)
    else:
        assert 0 <= player < game.num_players
        assert s.chance_outcomes() == []
        assert all(0 <= a < game.num_distinct_actions for a in legal), (legal, game.num_distinct_actions)


def _zone_view(view: dict[str, Any], s: interpreter.State, z: int) -> Any:
    link = s.game.link
    family = link.zone_family[z]
    offset = z - link.zone_base[family]
    entry = view["zones"][family]
    per = link.zone_defs[family].per
    if per == "player":
        return entry[offset]
    if per == "cell":
        return entry.get(s.game.board.names[offset], [])
    return entry


def _shown(zv: Any) -> tuple[list[str], int]:
    """Card names a zone view shows, and how many cards it says the zone holds."""
    if isinstance(zv, list):
        return [name for name in zv if name is not None], len(zv)
    if "cards" in zv:
        return list(zv["cards"]), zv["count"]
    if zv.get("top") is not None:
        return [zv["top"]], zv["count"]
    return [], zv["count"]


def check_secrecy(s: interpreter.State, p: int, seed: int) -> None:
    view = s.observation(p)
    names = s.game.cards.names
    visible = visible_cards(s, p)
    for z, cards in enumerate(s.zones):
        shown, size = _shown(_zone_view(view, s, z))
        assert size == len(cards), f"player {p}'s view of {s.game.link.zone_label[z]} has the wrong count"
        seen = Counter(names[c] for c in cards if c in visible)
        assert Counter(shown) == seen, (
            f"player {p}'s view of {s.game.link.zone_label[z]} shows {sorted(shown)}, "
            f"but the cards they see there are {sorted(seen.elements())}")
    sample = sample_consistent(s, p, seed)
    check_engine_invariants(sample)
    assert sample.observation(p) == view, f"redealing what player {p} cannot see changed their view"
