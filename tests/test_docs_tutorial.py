"""Every snippet of docs/tutorial.md: steps validate and play, mistakes fail as shown."""

from __future__ import annotations

import random
import re

import pytest

import interpreter
from rulespec import SpecError, compile_text
from tests.conftest import ROOT
from tests.support import play_random

DOC = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", DOC, flags=re.S)
STEPS = [body for lang, body in BLOCKS if lang == "yaml" and body.startswith("# step")]
MISTAKES = []
for i, (lang, body) in enumerate(BLOCKS):
    if lang == "yaml" and body.startswith("# mistake"):
        assert BLOCKS[i + 1][0] == "text", "a mistake is followed by its expected error"
        MISTAKES.append((body, BLOCKS[i + 1][1].strip()))


def test_the_tutorial_has_its_steps_and_mistakes():
    assert len(STEPS) == 8 and len(MISTAKES) == 2


@pytest.mark.parametrize("index", range(len(STEPS)))
def test_each_step_validates_and_plays_to_the_end(index):
    gamedef = compile_text(STEPS[index], "mygame.yaml")
    cases = [{"players": v.players, "options": dict(v.options)} for v in gamedef.model.variants] or [{}]
    for case in cases:
        game = interpreter.Game(gamedef, case.get("players"), case.get("options"))
        for seed in range(5):
            state = game.new_initial_state(seed)
            play_random(state, random.Random(seed))
            assert state.is_terminal()


@pytest.mark.parametrize("index", range(len(MISTAKES)))
def test_each_mistake_fails_with_the_error_shown(index):
    spec, expected = MISTAKES[index]
    with pytest.raises(SpecError) as info:
        compile_text(spec, "mygame.yaml")
    assert str(info.value) == expected


def test_the_python_snippet_runs(tmp_path, monkeypatch):
    code = next(body for lang, body in BLOCKS if lang == "python")
    (tmp_path / "mygame.yaml").write_text(STEPS[4], encoding="utf-8")  # the snippet follows step 5
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "tutorial.md", "exec"), {})


def test_step_three_bids_are_secret_until_settled():
    game = interpreter.Game(compile_text(STEPS[2], "mygame.yaml"), 2)
    state = game.new_initial_state(0)
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == [f"bid {v}" for v in "12345"]
    state.apply_action(state.legal_actions()[-1])
    assert state.observation(1)["zones"]["bid"][0] == {"count": 1}
    assert state.observation(0)["zones"]["bid"][0] == ["5"]


def test_step_four_scores_the_single_highest_bid():
    game = interpreter.Game(compile_text(STEPS[3], "mygame.yaml"), 2)
    state = game.new_initial_state(0)
    def bid(label):
        return next(a for a in state.legal_actions() if state.action_to_string(a) == label)

    state.apply_action(bid("bid 5"))  # seat 0 bids 5 for the prize 5
    state.apply_action(bid("bid 1"))  # seat 1 bids 1
    assert state.scores() == [0, 0] and state.observation(0)["players"][0]["score"] == 5


def test_step_six_a_corner_scores_the_table_value_and_gives_an_extra_turn():
    game = interpreter.Game(compile_text(STEPS[5], "mygame.yaml"), 2, {"size": 4})
    state = game.new_initial_state(0)
    labels = {state.action_to_string(a): a for a in state.legal_actions()}
    assert len(labels) == 16 and "claim a1 (3)" in labels and "claim b1 (2)" in labels and "claim b2 (1)" in labels
    state.apply_action(labels["claim a1 (3)"])  # a corner: 3 points, and seat 0 plays again
    assert state.current_player() == 0 and state.observation(0)["players"][0]["score"] == 3
    labels = {state.action_to_string(a): a for a in state.legal_actions()}
    state.apply_action(labels["claim b2 (1)"])  # an inner cell: the turn passes
    assert state.current_player() == 1 and state.observation(0)["players"][0]["score"] == 4


def test_step_seven_flips_neighbours_and_promotes_a_crowded_stone():
    game = interpreter.Game(compile_text(STEPS[6], "mygame.yaml"), 2, {"size": 3})
    state = game.new_initial_state(0)

    def put(cell):
        state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == f"put {cell}"))

    board = state.observation(0)["board"]
    assert board["a3"] == {"piece": "seed", "owner": 0, "id": board["a3"]["id"]} and board["c3"]["owner"] == 1
    put("b2")            # seat 0 in the middle
    put("a2")            # seat 1 next to it: b2 (a hex neighbour of a2) becomes seat 1's
    board = state.observation(0)["board"]
    assert board["b2"]["owner"] == 1 and board["a2"]["owner"] == 1
    put("c1")            # seat 0
    assert state.observation(0)["board"]["c1"]["owner"] == 0
    assert state.observation(0)["board"]["a3"]["owner"] == 0  # a seed is not a stone: never flipped


def test_step_eight_a_secret_is_seen_by_its_owner_only():
    game = interpreter.Game(compile_text(STEPS[7], "mygame.yaml"), 3)
    state = game.new_initial_state(0)
    views = [state.observation(p)["players"] for p in range(3)]
    for p in range(3):
        for q in range(3):
            assert ("secret" in views[p][q]) == (p == q)
        assert views[p][p]["secret"] in range(1, 10)
    with pytest.raises(interpreter.OptionError, match="at least two per player"):
        interpreter.Game(compile_text(STEPS[7], "mygame.yaml"), 4, {"top": 7})


def test_step_seven_towers_are_built_in_random_games():
    """The tower rule (promotion, then a look along each direction) runs in random play."""
    game = interpreter.Game(compile_text(STEPS[6], "mygame.yaml"), 2)
    towers = 0
    for seed in range(40):
        state = game.new_initial_state(seed)
        play_random(state, random.Random(seed))
        towers += sum(1 for x in state.observation(0)["board"].values() if x["piece"] == "tower")
    assert towers > 0
