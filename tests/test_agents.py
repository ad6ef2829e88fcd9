"""The bots: the registry, legal and reproducible choices, information-set search that never peeks."""

from __future__ import annotations

import hashlib
import random

import pytest

import interpreter
from interpreter import sampling
from interpreter.agents import AgentError, agent_names, derive_seed, evaluate, make_agent, parse_agent_spec
from interpreter.agents import greedy as greedy_module
from interpreter.agents import mcts as mcts_module
from interpreter.views import visible_cards
from tests.conftest import GAMES

HIGHHAND = str(GAMES / "highhand.yaml")
HIGHJACK = str(GAMES / "highjack.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")


def test_registry_and_parameters():
    assert agent_names() == ["random", "greedy", "mcts"]
    assert parse_agent_spec("mcts") == ("mcts", {})
    assert parse_agent_spec("MCTS:500:depth=6") == ("mcts", {"iterations": 500, "depth": 6})
    assert parse_agent_spec("mcts:c=0.5") == ("mcts", {"c": 0.5})
    assert parse_agent_spec("greedy:8") == ("greedy", {"samples": 8})
    game = interpreter.load_game(TICTACTOE)
    assert make_agent("mcts", game, 0).label == "mcts:200"
    assert make_agent("mcts:50:depth=2", game, 0).label == "mcts:50:depth=2"
    assert make_agent("greedy", game, 1).label == "greedy"
    for bad, message in [
        ("wizard", "unknown agent 'wizard'"),
        ("random:3", "agent 'random' takes at most 0 parameter(s)"),
        ("mcts:depth=x", "'x' is not a number"),
        ("mcts:speed=3", "agent 'mcts' has no parameter 'speed'"),
        ("mcts:0", "iterations must be a whole number of at least 1"),
        ("greedy:0.5", "samples must be a whole number of at least 1"),
    ]:
        with pytest.raises(AgentError, match=message.replace("(", r"\(").replace(")", r"\)")):
            make_agent(bad, game, 0)


def test_derived_seeds_are_stable():
    assert derive_seed(1, "match", 0) == derive_seed(1, "match", 0)
    assert derive_seed(1, "match", 0) != derive_seed(1, "match", 1)
    # the first 63 bits of sha256("7/x"): the same on every platform and run, whatever PYTHONHASHSEED
    assert derive_seed(7, "x") == int.from_bytes(hashlib.sha256(b"7/x").digest()[:8], "big") >> 1


def test_a_redeal_shuffles_as_random_shuffle_does():
    """Search worlds are redealt by sampling.shuffle: the very swaps of ``Random.shuffle`` from the
    same draws, so bots decide as they did with it (the figures in docs/agents.md replay)."""
    for seed in range(300):
        cards = list(range(seed % 70))
        theirs, ours = random.Random(seed), random.Random(seed)
        expected = list(cards)
        theirs.shuffle(expected)
        sampling.shuffle(ours, cards)
        assert cards == expected
        assert ours.random() == theirs.random()  # the same draws were used up


def test_a_rollout_plays_the_actions_random_randrange_picks():
    """The search's expansion and rollout (mcts._iterate, its draw written out) play exactly the
    actions ``Random.randrange`` picks from the same generator, chance sampled as the state
    samples it: a reference replay, step by step, from the same state and seed."""
    from tests.support import played

    game = interpreter.load_game(HIGHJACK, players=4)
    agent = make_agent("mcts:1:depth=12", game, 0)
    sizes = set()
    for seed in range(12):
        state = played(game, seed, 5 + 7 * seed)
        if state.is_terminal():
            continue
        world = state.clone()
        agent._iterate(mcts_module._Node(4), world, random.Random(seed), 4)
        actions = world.history[len(state.history):]
        reference, rng = state.clone(), random.Random(seed)
        for action in actions:
            pending = reference.pending
            if pending.player < 0:
                expected = reference.sample_chance_outcome(rng)
            else:
                sizes.add(len(pending.legal))
                expected = pending.legal[rng.randrange(len(pending.legal))]
            assert action == expected, f"seed {seed}"
            reference.apply_action(expected)
        assert len(actions) > 1
    assert any(n > 2 and n & (n - 1) for n in sizes)  # sizes that reject some draws were met


def test_each_seat_is_scored_against_the_best_other_seat():
    from interpreter.agents import evaluate

    class Fixed:
        def __init__(self, h):
            self.h = h
            self.num_players = len(h)

        def heuristics(self, state):
            return list(self.h)

    for h in ([3.0, 1.0], [1.0, 3.0, 3.0], [5.0, -2.0, 0.5, 4.0], [2.0, 2.0, 2.0, 2.0], [0.0, -0.0]):
        expected = [h[p] - max(h[q] for q in range(len(h)) if q != p) for p in range(len(h))]
        assert evaluate(Fixed(h), None) == expected
    assert evaluate(Fixed([9.0]), None) == [9.0]  # alone: its own heuristic


@pytest.mark.parametrize("spec, players", [(HIGHHAND, 2), (HIGHJACK, 4)])
def test_the_heuristics_of_all_seats_are_each_seats_heuristic(spec, players):
    game = interpreter.load_game(spec, players=players)
    rng = random.Random(5)
    state = game.new_initial_state(5)
    while not state.is_terminal():
        every = game.heuristics(state)
        after = state.ops  # (each seat's a step of its own: the budget left is the last seat's)
        assert every == [game.heuristic(state, p) for p in range(players)] and state.ops == after
        if state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert game.heuristics(state) == [game.heuristic(state, p) for p in range(players)]


_HEURISTIC_SPEC = """\
rulespec: 1
game: {name: H, players: 3}
round:
  first: player(0)
  turn:
    - choose:
        action: go
        label: go
        do: [end game]
heuristic: "10 / (p.seat - 1) + count([q for q in players if q != p]) + 1"
"""


def test_the_heuristics_of_all_seats_fail_as_the_failing_seat_fails():
    """Every seat's heuristic is one generated call; when Python raises in it (a division by
    zero for seat 1 only), the seats are scored one by one, and the error is that seat's."""
    game = interpreter.game_from_text(_HEURISTIC_SPEC)
    assert any(unit.name.startswith("h") for unit in game.link.codegen.units)
    state = game.new_initial_state(0)
    with pytest.raises(interpreter.RuleError) as one:
        game.heuristic(state, 1)
    with pytest.raises(interpreter.RuleError) as every:
        game.heuristics(state)
    assert str(every.value) == str(one.value)
    assert "division by zero" in str(one.value)
    assert game.heuristic(state, 0) == 10.0 / -1 + 3


@pytest.mark.parametrize("spec", sorted(p.name for p in GAMES.glob("*.yaml")))
def test_every_seed_game_scores_every_position_for_the_search_agents(spec):
    """greedy and mcts score positions with the spec's heuristic (``evaluate``): it must hold
    at every state of a match, not only at its end (battleship's once read ships not placed yet)."""
    base = interpreter.load_game(str(GAMES / spec))
    for variant in base.variants or [{"players": None, "options": {}}]:
        game = interpreter.load_game(str(GAMES / spec), players=variant["players"], options=variant["options"])
        state, rng = game.new_initial_state(seed=1), random.Random(1)
        for _ in range(120):
            assert len(evaluate(game, state)) == game.num_players
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
            else:
                state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("spec, players", [(HIGHHAND, 2), (HIGHHAND, 4), (HIGHJACK, 3)])
@pytest.mark.parametrize("name", ["random", "greedy:1", "mcts:4"])
def test_agents_choose_legal_actions_reproducibly_and_leave_the_state_alone(spec, players, name):
    game = interpreter.load_game(spec, players=players)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    bots = [make_agent(name, game, p, seed=10 + p) for p in range(players)]
    for _ in range(40):
        if state.is_terminal():
            break
        player = state.current_player()
        before = state.to_json()
        action = bots[player].step(state)
        assert state.to_json() == before
        assert action in state.legal_actions()
        assert make_agent(name, game, player, seed=10 + player).step(state) == action  # same seed, same choice
        state.apply_action(state.legal_actions()[rng.randrange(len(state.legal_actions()))])


def _canonical(state, player):
    """The same state with the cards ``player`` cannot see arranged in id order: a function of the view."""
    out = state.clone()
    seen = visible_cards(state, player)
    slots = [(z, i) for z, cards in enumerate(state.zones) for i, c in enumerate(cards) if c not in seen]
    faces = [state.face[state.zones[z][i]] for z, i in slots]
    for (z, i), card, face in zip(slots, sorted(state.zones[z][i] for z, i in slots), faces):
        out.zones[z][i] = card
        out.loc[card] = z
        out.face[card] = face
    return out


@pytest.mark.parametrize("name", ["mcts:30", "greedy:3"])
def test_search_agents_decide_from_their_information_set_only(monkeypatch, name):
    """Two states the agent cannot tell apart give the same decision: it never reads the hidden cards.

    (the worlds sampled are made a function of the view alone by arranging the hidden cards
    canonically first; the agents get everything else from the view and the legal actions.)
    """
    real = sampling.sample_consistent
    canonical = lambda state, player, rng: real(_canonical(state, player), player, rng)
    monkeypatch.setattr(mcts_module, "Sampler", lambda state, player: sampling.Sampler(_canonical(state, player),
                                                                                       player))
    monkeypatch.setattr(greedy_module, "sample_consistent", canonical)
    game = interpreter.load_game(HIGHJACK, players=3)
    state = game.new_initial_state(seed=8)
    rng = random.Random(8)
    checked = 0
    while checked < 6 and not state.is_terminal():
        player = state.current_player()
        if len(state.legal_actions()) > 1:
            other = real(state, player, 99)  # the same view, other hidden cards and future draws
            assert other.observation(player) == state.observation(player)
            assert other.zones != state.zones or other.rng != state.rng
            agent = make_agent(name, game, player, seed=5)
            assert agent.step(other) == agent.step(state)
            checked += 1
        state.apply_action(state.legal_actions()[rng.randrange(len(state.legal_actions()))])
    assert checked == 6


def _tictactoe(*moves: int):
    game = interpreter.load_game(TICTACTOE)
    state = game.new_initial_state(seed=0)
    for move in moves:
        state.apply_action(move)
    return game, state


@pytest.mark.parametrize("name", ["greedy", "mcts:60"])
def test_search_agents_take_a_winning_move(name):
    game, state = _tictactoe(0, 3, 1, 4)  # x on (0,0) (0,1), o on (1,0) (1,1): x wins on (0,2)
    assert make_agent(name, game, 0, seed=1).step(state) == 2


def test_mcts_blocks_the_opponents_winning_move():
    game, state = _tictactoe(0, 4, 8, 1)  # o threatens the middle column: x must take (2,1)
    assert make_agent("mcts:300", game, 0, seed=1).step(state) == 7


def test_mcts_beats_random_at_tictactoe():
    game = interpreter.load_game(TICTACTOE)
    wins = 0
    for index in range(12):
        me = index % 2
        bots = [make_agent("mcts:60" if p == me else "random", game, p, seed=derive_seed(index, p)) for p in (0, 1)]
        state = game.new_initial_state(seed=index)
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        wins += state.returns()[me] > 0
    assert wins >= 9


def test_a_time_budget_is_a_duration_in_cpu_seconds():
    assert parse_agent_spec("mcts:1s") == ("mcts", {"time": 1.0})
    assert parse_agent_spec("mcts:250ms") == ("mcts", {"time": 0.25})
    assert parse_agent_spec("mcts:500:time=0.5") == ("mcts", {"iterations": 500, "time": 0.5})
    assert parse_agent_spec("mcts:300:2S") == ("mcts", {"iterations": 300, "time": 2.0})
    game = interpreter.load_game(TICTACTOE)
    assert make_agent("mcts:1s", game, 0).label == "mcts:1s"
    assert make_agent("mcts:250ms:prior=1:reuse=1", game, 0).label == "mcts:250ms:prior=1:reuse=1"
    assert make_agent("mcts:500:500ms", game, 0).label == "mcts:500:500ms"
    assert make_agent("mcts:prior=5", game, 0).label == "mcts:200:prior=5"
    for bad, message in [
        ("mcts:0s", "time must be from 1ms to 3600s, not 0s"),
        ("mcts:2h", "'2h' is not a number"),
        ("mcts:time=-1", "time must be from 1ms"),
        ("mcts:time=1e999", "'1e999' is too large"),
        ("mcts:reuse=2", "reuse must be a whole number"),
        ("mcts:prior=1001", "prior must be a whole number of at least 0 \\(and at most 1000\\)"),
        ("greedy:1s", "agent 'greedy' parameter 'samples': '1s' is not a number"),
    ]:
        with pytest.raises(AgentError, match=message):
            make_agent(bad, game, 0)


def test_a_time_budget_stops_the_search(monkeypatch):
    """The search stops when the process has spent its CPU budget, whatever the iteration count."""
    clock = iter(range(10_000))
    monkeypatch.setattr(mcts_module.time, "process_time", lambda: float(next(clock)))
    calls = []
    real = mcts_module.MCTSAgent._iterate
    monkeypatch.setattr(mcts_module.MCTSAgent, "_iterate", lambda self, *a: calls.append(1) or real(self, *a))
    game, state = _tictactoe(0, 4)
    make_agent("mcts:5s", game, 0, seed=1).step(state)  # one clock tick per iteration after the start
    assert len(calls) == 5


def test_tree_reuse_keeps_the_subtree_of_consecutive_own_decisions_only():
    game = interpreter.load_game(HIGHHAND, players=2, options={"rounds": 1})
    state = game.new_initial_state(seed=4)
    rng = random.Random(4)
    while state.current_player() < 0:
        state.apply_action(state.sample_chance_outcome(rng))
    me = state.current_player()
    agent = make_agent("mcts:40:reuse=1", game, me, seed=2)
    blocker = agent.step(state)
    kept = agent._kept
    assert kept is not None and kept[0] == state.history + [blocker]
    state.apply_action(blocker)
    assert state.current_player() == me  # the taker move of the same turn
    assert agent._kept_root(state) is kept[1] and agent._kept is None
    agent._kept = kept
    other = state.clone()
    other.apply_action(other.legal_actions()[0])
    assert agent._kept_root(other) is None  # something happened in between: a fresh tree
    fresh = make_agent("mcts:40", game, me, seed=2)
    assert fresh.step(state) in state.legal_actions()


def _a_real_choice(game, seed):
    """A state, reached by random play from ``seed``, where a player chooses among two or more actions."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while state.current_player() < 0 or len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[rng.randrange(len(state.legal_actions()))]
                           if state.current_player() >= 0 else state.sample_chance_outcome(rng))
    return state


def test_informed_rollouts_play_the_movers_best_one_step_action(monkeypatch):
    """``rollout=P``: that share of rollout steps plays the mover's best action by one step of lookahead."""
    assert parse_agent_spec("mcts:50:rollout=0.25") == ("mcts", {"iterations": 50, "rollout": 0.25})
    game = interpreter.load_game(HIGHJACK, players=3)
    assert make_agent("mcts:50:rollout=1", game, 0).label == "mcts:50:rollout=1"
    assert make_agent("mcts:50:prior=1:rollout=0.5:depth=2", game, 0).label == "mcts:50:prior=1:rollout=0.5:depth=2"
    assert make_agent("mcts:50:rollout=0", game, 0).label == "mcts:50"
    for bad in ("mcts:rollout=1.5", "mcts:rollout=-0.1"):
        with pytest.raises(AgentError, match="rollout must be a share from 0 to 1"):
            make_agent(bad, game, 0)
    state = _a_real_choice(game, seed=5)
    me = state.current_player()
    calls = []
    real = mcts_module.MCTSAgent._best_step
    monkeypatch.setattr(mcts_module.MCTSAgent, "_best_step", lambda self, *a: calls.append(1) or real(self, *a))
    make_agent("mcts:20:depth=3", game, me, seed=1).step(state)
    assert calls == []
    make_agent("mcts:20:depth=3:rollout=1", game, me, seed=1).step(state)
    assert len(calls) >= 20  # every rollout step with a choice (about three an iteration)
    greedy_steps = len(calls)
    calls.clear()
    make_agent("mcts:20:depth=3:rollout=0.5", game, me, seed=1).step(state)
    assert 0 < len(calls) < greedy_steps
    # the same seed, the same decisions
    moves = {make_agent("mcts:30:depth=4:rollout=0.5", game, me, seed=s).step(state) for s in (3, 3, 3)}
    assert len(moves) == 1


def test_a_baseline_scores_each_iteration_against_its_own_world(monkeypatch):
    """``baseline=1``: every score of an iteration is less its sampled world's score at the root."""
    assert parse_agent_spec("mcts:baseline=1") == ("mcts", {"baseline": 1})
    game = interpreter.load_game(HIGHJACK, players=3)
    assert make_agent("mcts:50:prior=1:baseline=1:reuse=1", game, 0).label == "mcts:50:prior=1:reuse=1:baseline=1"
    assert make_agent("mcts:50:baseline=0", game, 0).label == "mcts:50"
    for bad in ("mcts:baseline=2", "mcts:baseline=0.5", "mcts:baseline=-1"):
        with pytest.raises(AgentError, match="baseline must be a whole number of at least 0 \\(and at most 1\\)"):
            make_agent(bad, game, 0)
    state = _a_real_choice(game, seed=5)
    me = state.current_player()
    scored: list[tuple[object, list[float]]] = []
    real = mcts_module.evaluate
    monkeypatch.setattr(mcts_module, "evaluate", lambda g, s: scored.append((s, v := real(g, s))) or v)
    plain = make_agent("mcts:20:depth=2:reuse=1", game, me, seed=1)
    plain.step(state)
    plain_calls = len(scored)
    scored.clear()
    agent = make_agent("mcts:20:depth=2:reuse=1:baseline=1", game, me, seed=1)
    action = agent.step(state)
    assert len(scored) == plain_calls + 20  # one score of the root world per iteration
    # a game whose every position scores the same: less the root world's score, nothing is left
    monkeypatch.setattr(mcts_module, "evaluate", lambda g, s: [7.0] * g.num_players)
    for spec, kept_value in (("mcts:20:depth=2:reuse=1", 7.0), ("mcts:20:depth=2:reuse=1:baseline=1", 0.0)):
        bot = make_agent(spec, game, me, seed=1)
        bot.step(state)
        assert bot._kept is not None
        child = bot._kept[1]
        assert child.visits > 0 and child.value == [kept_value * child.visits] * game.num_players
    monkeypatch.setattr(mcts_module, "evaluate", real)
    moves = {make_agent("mcts:30:depth=2:baseline=1", game, me, seed=3).step(state) for _ in range(3)}
    assert len(moves) == 1 and action in state.legal_actions()


def _battleship_tight():
    base = interpreter.load_game(str(GAMES / "battleship.yaml"))
    (variant,) = [v for v in base.variants if v.get("name") == "4x3 tight"]
    return interpreter.load_game(str(GAMES / "battleship.yaml"), players=variant["players"], options=variant["options"])


def test_mcts_drops_sampled_worlds_in_which_the_rules_fail():
    """A redeal of hidden cards ignores what the rules imply about them: in battleship's tight
    variant it gives the opponent a fleet whose ships overlap or leave the board, and the
    rules then fail in that world (an index past a list). Such a world is not a possible one:
    the search drops the iteration and plays on; the match ends normally (it raised before)."""
    game = _battleship_tight()
    state = game.new_initial_state(seed=0)
    bots = [make_agent("mcts:30", game, p, seed=p) for p in range(2)]
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert len(state.history) == 18  # every ship placed (3 a player), then every shot (6 a player)
    assert sum(bot.worlds_dropped for bot in bots) > 0


def test_greedy_drops_sampled_worlds_in_which_the_rules_fail(monkeypatch):
    """greedy drops a world where the rules fail (here: its first world, as if) and decides by
    the others; when they fail in every world, it plays a random legal action."""
    game = interpreter.load_game(TICTACTOE)
    state = game.new_initial_state(seed=0)
    legal = state.legal_actions()
    calls = []

    def failing_first_world(game, after):
        calls.append(1)
        if len(calls) == 1:
            raise interpreter.RuleError("no possible world")
        return evaluate(game, after)

    monkeypatch.setattr(greedy_module, "evaluate", failing_first_world)
    agent = make_agent("greedy:3", game, 0, seed=1)
    assert agent.step(state) in legal
    assert agent.worlds_dropped == 1 and len(calls) == 1 + 2 * len(legal)  # (the first world stops at its first action)

    def failing(game, after):
        raise interpreter.RuleError("no possible world")

    monkeypatch.setattr(greedy_module, "evaluate", failing)
    picks = {make_agent("greedy:3", game, 0, seed=seed).step(state) for seed in range(20)}
    assert picks <= set(legal) and len(picks) > 1


def test_mcts_plays_at_random_when_the_rules_fail_in_every_world(monkeypatch):
    """No iteration completed (the rules failed in each world): no statistics to choose by, so a
    random legal action, drawn from the bot's own generator (reproducible)."""
    game = interpreter.load_game(TICTACTOE)
    state = game.new_initial_state(seed=0)

    def fail(self, *args):
        raise interpreter.RuleError("no possible world")

    monkeypatch.setattr(mcts_module.MCTSAgent, "_play_out", fail)
    picks = {make_agent("mcts:5", game, 0, seed=seed).step(state) for seed in range(20)}
    assert picks <= set(state.legal_actions()) and len(picks) > 1
    agent = make_agent("mcts:5", game, 0, seed=3)
    assert agent.step(state) == make_agent("mcts:5", game, 0, seed=3).step(state)
    assert agent.worlds_dropped == 5
