"""Bots through the adapters: OpenSpiel's ISMCTSBot through ``resample_from_infostate``, and
actions with structure (``Action``: name and parameters) from the engine and both adapters."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

import interpreter
from interpreter.board import cell_name
from interpreter.visibility import visible_cards
from tests.conftest import GAMES, require

HIGHHAND = str(GAMES / "highhand.yaml")
HIGHJACK = str(GAMES / "highjack.yaml")
CHESS = str(GAMES / "chess.yaml")
SHORT = {HIGHHAND: {"rounds": 1}, HIGHJACK: {"max_rounds": 1}}  # one round: a match in seconds


@pytest.fixture(scope="module")
def ro() -> Any:
    """The OpenSpiel adapter (the test is skipped where OpenSpiel is not installed)."""
    require("pyspiel")
    from interpreter.adapters import openspiel

    return openspiel


def _play_chance(state: Any, rng: random.Random) -> None:
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(rng.choices(outcomes, probabilities)[0])


# ---------------------------------------------------------------------- ISMCTSBot plays our games


@pytest.mark.parametrize("path, options", [
    pytest.param(HIGHHAND, {"rounds": 1}, id="highhand-4p"),
    pytest.param(HIGHHAND, {"rounds": 1, "partnerships": False}, id="highhand-4p-no-partnerships"),
    pytest.param(HIGHJACK, {"max_rounds": 1}, id="highjack-4p"),
])
def test_openspiel_ismcts_bot_completes_a_4_player_match(ro: Any, path: str, options: dict):
    np = require("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    game = ro.register(path, players=4, options=options)
    bots = [ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seat)), uct_c=2.0,
                             max_simulations=5, random_state=np.random.RandomState(seat))
            for seat in range(4)]
    state = game.new_initial_state()
    rng = random.Random(4)
    start, searched = time.monotonic(), 0
    while not state.is_terminal():
        assert state.move_number() < game.max_game_length()
        if state.is_chance_node():
            _play_chance(state, rng)
            continue
        player = state.current_player()
        action = bots[player].step(state)
        assert action in state.legal_actions(player)
        searched += len(state.legal_actions()) > 1  # a single legal action is returned without a search
        state.apply_action(action)
    assert searched > 0 and time.monotonic() - start < 60
    returns = state.returns()
    assert len(returns) == 4 and game.min_utility() <= min(returns) <= max(returns) <= game.max_utility()


def test_ismcts_world_samples_are_reused(ro: Any):
    """With ``max_world_samples`` the bot keeps samples and clones them: clones of a sample work too."""
    np = require("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    game = ro.register(HIGHJACK, players=4, options=SHORT[HIGHJACK])
    state = _after(game, seed=2, decisions=3)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), uct_c=2.0,
                           max_simulations=8, max_world_samples=2, random_state=np.random.RandomState(0))
    assert bot.step(state) in state.legal_actions()


# ---------------------------------------------------------------------- resampled states


def _after(game: Any, seed: int, decisions: int, secret: bool = False) -> Any:
    """A pyspiel state after the deal and ``decisions`` random decisions, at a decision with a
    choice (with ``secret``, once an event addressed to some players only has happened)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    made = 0
    while True:
        assert not state.is_terminal()
        if state.is_chance_node():
            _play_chance(state, rng)
        elif made >= decisions and len(state.legal_actions()) > 1 and (not secret or _secrets(state)):
            return state
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            made += 1


def _secrets(state: Any) -> list[dict]:
    return [e for e in state.rulespec_state.events if "to" in e]


def _sampler(seed: int) -> Any:
    return random.Random(seed).random


@pytest.mark.parametrize("path", [HIGHHAND, HIGHJACK])
def test_a_resampled_state_is_the_same_information_state_for_the_player(ro: Any, path: str):
    game = ro.register(path, players=4, options=SHORT[path])
    redealt = unseen_events = 0
    for decisions, secret in ((0, False), (3, False), (8, False), (4, path == HIGHJACK)):
        state = _after(game, seed=decisions, decisions=decisions, secret=secret)
        real = ro.interpreter_state(state)
        for player in range(4):  # the player to move, and the others
            sample = state.resample_from_infostate(player, _sampler(player))
            world = ro.interpreter_state(sample)
            assert sample.information_state_string(player) == state.information_state_string(player)
            assert sample.observation_string(player) == state.observation_string(player)
            assert sample.current_player() == state.current_player()
            if player == state.current_player():  # another's options follow from their (redealt) cards
                assert sample.legal_actions() == state.legal_actions()
            assert sample.history() == [] and world.history == []  # the real history would tell the deal
            assert all("to" not in e or player in e["to"] for e in world.events)  # others' secrets are gone
            unseen_events += sum(player not in e["to"] for e in _secrets(state))
            redealt += _kinds(world) != _kinds(real)
            _play_out(sample, random.Random(player))
    if path == HIGHJACK:  # hidden hands and secret events: samples differ from the real deal
        assert redealt > 0 and unseen_events > 0


def _kinds(state: Any) -> list[list[int]]:
    kind_of = state.game.cards.kind_of
    return [[kind_of[c] for c in cards] for cards in state.zones]


def _play_out(state: Any, rng: random.Random) -> None:
    """A sampled world plays on to the end, its information states stay computable."""
    while not state.is_terminal():
        if state.is_chance_node():
            _play_chance(state, rng)
        else:
            state.information_state_string(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.returns()) == state.get_game().num_players()


def test_resampling_refuses_bad_arguments(ro: Any):
    game = ro.register(HIGHJACK, players=4, options=SHORT[HIGHJACK])
    state = _after(game, seed=1, decisions=0)
    with pytest.raises(ValueError, match="player 4 is not a seat"):
        state.resample_from_infostate(4, _sampler(0))
    with pytest.raises(ValueError, match="not a seat"):
        state.resample_from_infostate(True, _sampler(0))
    with pytest.raises(TypeError, match="probability sampler is a callable"):
        state.resample_from_infostate(0, 0.5)
    with pytest.raises(ValueError, match=r"gave 1\.5, not a number in \[0, 1\)"):
        state.resample_from_infostate(0, lambda: 1.5)
    import pyspiel

    sample = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))  # OpenSpiel's own
    assert sample.information_state_string(0) == state.information_state_string(0)


def _twins(game: Any, seed: int, decisions: int, in_id_order: bool) -> tuple[Any, Any, int]:
    """Two real pyspiel states (each reached by its own history) that the player to move cannot
    tell apart, while another player can: two chance outcomes of the first history exchanged,
    such that the player's cards are other copies (they look the same: an id is no name) and,
    ``in_id_order``, the ids of the cards hidden from the player list the kinds in another order."""
    rng = random.Random(seed)
    interp = game.rulespec_game
    state = interp.new_initial_state()
    chance_at, made = [], 0
    while state.is_chance_node() or made < decisions or len(state.legal_actions()) < 2:
        if state.is_chance_node():
            chance_at.append(len(state.history))
            state.apply_action(state.sample_chance_outcome(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            made += 1
    history, player = list(state.history), state.current_player()
    for j in chance_at:
        for i in chance_at:
            if i >= j or history[i] == history[j]:
                continue
            swapped = list(history)
            swapped[i], swapped[j] = history[j], history[i]
            other = _replay(interp, swapped)
            if other is None or other.observation(player) != state.observation(player):
                continue
            if all(other.observation(q) == state.observation(q) for q in range(interp.num_players)):
                continue
            if visible_cards(other, player) == visible_cards(state, player):
                continue  # wanted: the player sees other copies of the same cards
            if in_id_order and _hidden_in_id_order(other, player) == _hidden_in_id_order(state, player):
                continue  # wanted: the ids of the hidden cards list the kinds in another order
            first, second = _pyspiel_state(game, history), _pyspiel_state(game, swapped)
            if first.information_state_string(player) == second.information_state_string(player):
                return first, second, player
    raise AssertionError("no two histories the player cannot tell apart")


def _hidden_in_id_order(state: Any, player: int) -> list[int]:
    """The kinds of the cards hidden from ``player``, in the order of their ids."""
    seen, kind_of = visible_cards(state, player), state.game.cards.kind_of
    return [kind_of[card] for card in sorted(card for cards in state.zones for card in cards if card not in seen)]


def _replay(interp: Any, history: list[int]) -> Any:
    state = interp.new_initial_state()
    try:
        for action in history:
            state.apply_action(action)
    except interpreter.InterpreterError:
        return None
    return state


def _pyspiel_state(game: Any, history: list[int]) -> Any:
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


def _world(state: Any) -> Any:
    """What any seat or tool reads of a pyspiel state: every seat's view (variables included)
    and information state, the cards as kinds (copies are alike), the random generator, the
    history and the events."""
    inner = state.rulespec_state
    n = state.get_game().num_players()
    return ([state.observation_string(p) for p in range(n)], [state.information_state_string(p) for p in range(n)],
            [inner.observation(p) for p in range(-1, n + 1)], _kinds(inner), inner.rng, inner.history,
            inner.events, state.history(), state.legal_actions(), state.current_player())


# the seeds: the first (trying 0, 1, 2, ...) whose match has such twins; with two decks the
# copies of a card have ids far apart, so a sampler ordering hidden cards by id would differ
@pytest.mark.parametrize("decisions, decks, seed", [(0, 1, 5), (6, 1, 5), (0, 2, 28), (6, 2, 8)])
def test_a_resampled_state_never_leaks_what_the_player_cannot_see(ro: Any, decisions: int, decks: int,
                                                                 seed: int):
    """Two real matches the player cannot tell apart give the same sampled world for the same
    draws of the sampler (and it goes on alike): the sample is made from the player's view alone."""
    game = ro.register(HIGHJACK, players=4, options=dict(SHORT[HIGHJACK], decks=decks))
    first, second, player = _twins(game, seed=seed, decisions=decisions, in_id_order=decks > 1)
    assert _world(first) != _world(second)  # the real matches differ, for other players too
    for seed in range(3):
        a = first.resample_from_infostate(player, _sampler(seed))
        b = second.resample_from_infostate(player, _sampler(seed))
        assert _world(a) == _world(b)
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        for _ in range(25):  # the same moves and chance outcomes in both worlds
            if a.is_terminal():
                break
            if a.is_chance_node():
                _play_chance(a, rng_a)
                _play_chance(b, rng_b)
            else:
                action = rng_a.choice(a.legal_actions())
                rng_b.choice(b.legal_actions())
                a.apply_action(action)
                b.apply_action(action)
            assert _world(a) == _world(b)


def test_plain_mcts_bot_clones_the_true_state(ro: Any):
    """What docs/embedding.md warns about: OpenSpiel's MCTSBot searches clones of the real state,
    hidden cards included (an ISMCTS sample has other cards)."""
    game = ro.register(HIGHJACK, players=4, options=SHORT[HIGHJACK])
    state = _after(game, seed=3, decisions=2)
    assert _kinds(ro.interpreter_state(state.clone())) == _kinds(ro.interpreter_state(state))
    samples = [state.resample_from_infostate(state.current_player(), _sampler(k)) for k in range(4)]
    assert any(_kinds(ro.interpreter_state(s)) != _kinds(ro.interpreter_state(state)) for s in samples)


# ---------------------------------------------------------------------- actions with structure


def _random_states(path: str, players: int, options: dict, count: int) -> list[Any]:
    game = interpreter.load_game(path, players=players, options=options)
    rng = random.Random(11)
    state, out = game.new_initial_state(seed=11), []
    while len(out) < count and not state.is_terminal():
        out.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("path, players, options", [
    (HIGHJACK, 4, SHORT[HIGHJACK]), (HIGHHAND, 4, SHORT[HIGHHAND]), (CHESS, 2, {}),
])
def test_legal_action_params_decode_every_legal_action(path: str, players: int, options: dict):
    """Each legal id's structure: the spec's action and parameter names, and values that read as
    ``describe_action`` reads them; JSON-ready."""
    for state in _random_states(path, players, options, 25):
        game = state.game
        decoded = state.legal_action_params()
        assert [a.id for a in decoded] == state.legal_actions()
        for action in decoded:
            spec = game.link.actions.find(action.id)
            assert action.name == spec.name and list(action.params) == [name for name, _ in spec.params]
            assert [p.type for p in action.params.values()] == [t for _, t in spec.params]
            shown = " ".join([action.name] + [f"{k}={v.name}" for k, v in action.params.items()])
            assert shown == game.describe_action(action.id)
            assert json.loads(json.dumps(action.to_dict())) == action.to_dict()


def test_a_card_parameter_carries_the_card_attributes():
    cards_seen = 0
    for state in _random_states(HIGHJACK, 4, SHORT[HIGHJACK], 40):
        game, player = state.game, state.current_player()
        hand = state.observation(player)["zones"]["hand"][player]
        for action in state.legal_action_params():
            if action.name != "play":
                continue
            card = action["card"]
            assert card.type == "card" and card.name in hand  # the card played is in the hand
            assert dict(card.attributes) == game.cards.kind_attrs[card.value]
            assert card["points"] == game.cards.kind_attrs[card.value]["points"]
            cards_seen += 1
    assert cards_seen > 0


def test_cell_piece_and_player_parameters():
    moves = declarations = 0
    for state in _random_states(HIGHHAND, 4, SHORT[HIGHHAND], 40):
        board = state.game.board
        for action in state.legal_action_params():
            for value in action.params.values():
                if value.type == "cell":
                    assert value.name == board.names[value.value]
                    assert cell_name(value["row"] * board.cols + value["col"], board.rows, board.cols) == value.name
                elif value.type == "piece":
                    cell = state.piece_cell[value.value]
                    assert value["cell"] == (board.names[cell] if cell >= 0 else None)  # where it is now
                    assert value["owner"] == state.piece_owner[value.value]
                    assert value["kind"] == state.piece_kind[value.value]
                    moves += 1
                elif value.type == "player":
                    assert value.name == state.game.seat_names[value.value]
                    declarations += 1
    assert moves > 0 and declarations > 0


def test_action_params_of_any_id():
    game = interpreter.load_game(HIGHJACK, players=4)
    assert game.action_params(game.num_distinct_actions) is None  # no action has this id
    first = game.action_params(0)
    assert first is not None and first.id == 0 and first.name == game.link.actions.specs[0].name
    np = pytest.importorskip("numpy")
    assert game.action_params(np.int64(0)) == first
    with pytest.raises(interpreter.IllegalActionError):
        game.action_params(True)
    chance = interpreter.load_game(HIGHJACK, players=4, explicit_chance=True).new_initial_state()
    assert chance.is_chance_node() and chance.legal_action_params() == []
    with pytest.raises(TypeError):
        first.params["x"] = first["card"]  # read-only  # type: ignore[index]


def test_the_openspiel_state_gives_action_params(ro: Any):
    game = ro.register(HIGHJACK, players=4, options=SHORT[HIGHJACK])
    state = game.new_initial_state()
    assert state.is_chance_node() and state.legal_action_params() == []
    state = _after(game, seed=6, decisions=1)
    decoded = state.legal_action_params()
    assert [a.id for a in decoded] == state.legal_actions()
    assert decoded == ro.interpreter_state(state).legal_action_params()
    assert state.action_params(decoded[0].id) == decoded[0]


def test_the_pettingzoo_info_lists_the_legal_actions_structure():
    require("pettingzoo")
    from interpreter.adapters.pettingzoo import env as rulespec_env

    env = rulespec_env(HIGHJACK, players=4, options=SHORT[HIGHJACK])
    env.reset(seed=3)
    rng, steps = random.Random(3), 0
    for agent in env.agent_iter(max_iter=60):
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = [int(a) for a in observation["action_mask"].nonzero()[0]]
        assert [a["id"] for a in info["legal_actions"]] == legal
        state = env.unwrapped.state
        assert info["legal_actions"] == [a.to_dict() for a in state.legal_action_params()]
        others = [env.unwrapped.infos[a] for a in env.unwrapped.agents if a != agent]
        assert all("legal_actions" not in i for i in others)
        env.step(rng.choice(legal))
        steps += 1
    assert steps > 10
