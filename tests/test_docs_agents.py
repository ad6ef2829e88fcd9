"""docs/agents.md shows the ladders saved beside the seed specs (made by `rulespec ladder ... --save`),
row for row, and every agent it names is a valid agent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import interpreter
from interpreter.agents import make_agent
from interpreter.analysis.ladder import read_ladders

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
SEEDS = ("highhand", "highjack")
GAME = interpreter.load_game(str(ROOT / "games" / "tictactoe.yaml"))


def ladder_rows(ladder: dict) -> list[str]:
    """The Markdown rows docs/agents.md gives for one saved ladder."""
    rows = []
    for a in ladder["agents"]:
        low, high = a["interval"]
        rows.append(f"| {a['rank']} | `{a['agent']}` | {a['rating']:.0f} | {low:.0f} to {high:.0f} | "
                    f"{a['score']:g} / {a['matches']} ({100 * a['score'] / a['matches']:.1f}%) |")
    return rows


def _ladders() -> list[tuple[str, dict]]:
    out = []
    for stem in SEEDS:
        path = ROOT / "games" / f"{stem}.ladder.json"
        out += [(stem, ladder) for ladder in read_ladders(str(path))]
    return out


def test_both_seed_games_have_ladders_and_the_doc_shows_them():
    ladders = _ladders()
    assert {stem for stem, _ in ladders} == set(SEEDS)
    for stem, ladder in ladders:
        assert len(ladder["agents"]) >= 4 and ladder["games"] >= 20
        for row in ladder_rows(ladder):
            assert row in DOC, f"docs/agents.md lacks the {stem} {ladder['players']}p row {row}"


def test_the_doc_gives_the_command_of_each_ladder():
    for stem, ladder in _ladders():
        agents = ",".join(sorted(a["agent"] for a in ladder["agents"]))
        commands = re.findall(rf"rulespec ladder games/{stem}\.yaml --players {ladder['players']} (.*)", DOC)
        assert any(f"--games {ladder['games']}" in c and agents == ",".join(sorted(_agents_of(c))) for c in commands)


def _agents_of(command: str) -> list[str]:
    """The agents of a command line, by the names a ladder gives them (``mcts:100:depth=2:reuse=1`` ->
    ``mcts:100:reuse=1:depth=2``)."""
    match = re.search(r"--agents (\S+)", command)
    assert match, command
    return [make_agent(name, GAME, 0).label for name in match.group(1).split(",")]


def test_every_agent_the_doc_names_is_an_agent():
    names = set(re.findall(r"`((?:mcts|greedy|random)(?::[^`\s]*)?)`", DOC))
    assert names
    for name in names:
        if "[" not in name:
            make_agent(name, GAME, 0)


def test_the_saved_ladders_are_json_of_the_documented_shape():
    for stem in SEEDS:
        data = json.loads((ROOT / "games" / f"{stem}.ladder.json").read_text(encoding="utf-8"))
        assert data["rulespec_ladders"] == 1 and data["ladders"]
