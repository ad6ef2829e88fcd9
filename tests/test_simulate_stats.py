"""`rulespec simulate`'s statistics of cards, actions, events, margins and lengths, and a
`--compare` that does not cry wolf (issue 15, points 1 and 2). Expected figures are derived
here from the matches themselves, played again through the public API."""

from __future__ import annotations

import json
import os
import signal
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

import interpreter
import interpreter.analysis.pool as pool_module
import interpreter.analysis.simulate as simulate_module
from interpreter.agents import make_agent
from interpreter.analysis.compare import compare
from interpreter.analysis.simulate import match_seeds, simulate
from interpreter.analysis.simulate_plot import RunData, figure
from interpreter.analysis.stats import holm
from interpreter.analysis.summary import summarize, winning_margin
from interpreter.errors import WorkerLost
from tests.conftest import GAMES
from tests.support import run

HIGHJACK = str(GAMES / "highjack.yaml")
TICTACTOE = str(GAMES / "tictactoe.yaml")
GAMES_RUN, SEED = 5, 7


@dataclass
class Played:
    state: Any  # the finished match
    decisions: list[tuple[int, int]]  # (seat, action) of every decision


def play_again(spec: str, games: int, seed: int, players: int, options: dict[str, Any]) -> list[Played]:
    """A run's matches, played again through the API with the run's seeds (random agents)."""
    game = interpreter.load_game(spec, players=players, options=options)
    played = []
    for index in range(games):
        state_seed, agent_seeds = match_seeds(seed, index, players)
        bots = [make_agent("random", game, p, agent_seeds[p]) for p in range(players)]
        state = game.new_initial_state(state_seed)
        decisions = []
        while not state.is_terminal():
            seat = state.current_player()
            action = bots[seat].step(state)
            decisions.append((seat, action))
            state.apply_action(action)
        played.append(Played(state, decisions))
    return played


@pytest.fixture(scope="module")
def highjack(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str, list[Played]]:
    """A small Highjack run (4 players, one round per match): its JSON, its text, its matches."""
    out = tmp_path_factory.mktemp("stats") / "h.json"
    status, text, err = run("simulate", HIGHJACK, "--players", "4", "--games", str(GAMES_RUN), "--seed", str(SEED),
                            "--option", "max_rounds=1", "--no-progress", "--json", str(out), "--by-seat")
    assert status == 0, err
    return json.loads(out.read_text()), text, play_again(HIGHJACK, GAMES_RUN, SEED, 4, {"max_rounds": 1})


# ---------------------------------------------------------------------- point 1: what was played


def test_json_has_the_play_count_of_every_card_kind_per_seat(highjack):
    data, _, played = highjack
    game = played[0].state.game
    expected: dict[str, list[int]] = {}
    for match in played:
        for seat, action in match.decisions:
            name, _, kind = game.describe_action(action).partition(" card=")  # "play card=Bong"
            if name == "play":
                expected.setdefault(kind, [0] * 4)[seat] += 1
    plays = {e["value"]: e for e in data["summary"]["parameters"] if e["action"] == "play" and e["type"] == "card"}
    assert expected and {kind: e["seats"] for kind, e in plays.items()} == expected
    for kind, e in plays.items():
        assert e["total"] == sum(expected[kind])
        assert e["per_match"] == pytest.approx(sum(expected[kind]) / GAMES_RUN)
    assert list(plays) == [k for k in data["summary"]["cards"]["kinds"] if k in plays]  # the spec's order


def test_actions_chosen_per_seat_and_events_per_seat(highjack):
    data, _, played = highjack
    game = played[0].state.game
    names = Counter((game.describe_action(a).split(" ")[0], seat) for m in played for seat, a in m.decisions)
    for e in data["summary"]["actions_chosen"]:
        assert e["seats"] == [names[e["action"], p] for p in range(4)]
    events = Counter((ev["type"], ev.get("player", -1)) for m in played for ev in m.state.events)
    assert data["summary"]["events"]
    for e in data["summary"]["events"]:
        assert e["seats"] == [events[e["event"], p] for p in range(4)]
        assert e["no_seat"] == events[e["event"], -1]


def test_card_moves_add_up_to_where_the_cards_end(highjack):
    """Every card starts in the zone the engine first puts cards in; what entered a zone family
    minus what left it is what the family holds at the end of each match."""
    data, _, played = highjack
    link = played[0].state.game.link
    cards = played[0].state.game.cards
    start = link.zone_family[link.start_zone]
    held: Counter[tuple[str, str]] = Counter()
    for match in played:
        for card, zone in enumerate(match.state.loc):
            held[cards.kind_names[cards.kind_of[card]], link.zone_family[zone]] += 1
        for card in range(cards.count):
            held[cards.kind_names[cards.kind_of[card]], start] -= 1
    net: Counter[tuple[str, str]] = Counter()
    for e in data["summary"]["cards"]["moved"]:
        net[e["kind"], e["to"]] += e["total"]
        net[e["kind"], e["from"]] -= e["total"]
        assert e["total"] == sum(e["seats"]) + e["no_seat"]
    assert +net == +held and -net == -held
    entered = {(e["kind"], e["zone"]): e["total"] for e in data["summary"]["cards"]["entered"]}
    into = Counter()
    for e in data["summary"]["cards"]["moved"]:
        into[e["kind"], e["to"]] += e["total"]
    assert entered == dict(into)


def test_margin_and_length_histogram_come_from_the_matches(highjack):
    data, _, played = highjack
    summary, matches = data["summary"], data["matches"]
    margins = []
    for m in matches:
        losers = [t for p, t in enumerate(m["totals"]) if p not in m["winners"]]
        won = [m["totals"][w] for w in m["winners"]]
        margin = min(abs(w - t) for w in won for t in losers) if won and losers else None
        assert m["margin"] == margin
        if margin is not None:
            margins.append(margin)
    assert summary["margin"]["matches"] == len(margins)
    assert summary["margin"]["mean"] == pytest.approx(statistics.fmean(margins))
    hist = summary["histograms"]["actions"]
    assert sum(hist["counts"]) == GAMES_RUN
    for m in matches:
        assert m["actions"] == len(played[m["index"]].state.history)
        i = max(k for k, edge in enumerate(hist["edges"][:-1]) if edge <= m["actions"])
        assert hist["edges"][i] <= m["actions"] < hist["edges"][i + 1]
    assert [sum(1 for m in matches if lo <= m["actions"] < hi) for lo, hi in
            zip(hist["edges"], hist["edges"][1:])] == hist["counts"]


def test_the_tables_print_the_counts(highjack):
    data, text, _ = highjack
    summary = data["summary"]
    for title in ("Actions chosen per match", "Cards chosen per match, by action",
                  "Cards moved per match, by the zone they entered", "Events per match",
                  "Match length (actions per match)", "Cards chosen in 'play' per match, by seat"):
        assert title in text
    assert "winning margin" in text
    bong = next(e for e in summary["parameters"] if e["action"] == "play" and e["value"] == "Bong")
    seat_row = [line for line in text.splitlines() if line.split()[:1] == ["Bong"]]
    per_seat = [f"{n / GAMES_RUN:.2f}" for n in bong["seats"]] + [f"{bong['total'] / GAMES_RUN:.2f}"]
    assert any(line.split()[1:] == per_seat for line in seat_row), seat_row


def test_statistics_are_identical_whatever_jobs(tmp_path):
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}.json"
        status, text, err = run("simulate", HIGHJACK, "--players", "4", "--games", "6", "--seed", "3", "--option",
                                "max_rounds=1", "--no-progress", "--jobs", jobs, "--json", str(out))
        assert status == 0, err
        outs.append((text, out.read_text()))
    assert outs[0] == outs[1]
    assert json.loads(outs[0][1])["summary"]["parameters"]


def test_a_worker_gone_before_sending_its_tally_fails_the_run(monkeypatch):
    """The counts of a worker's matches travel once, at the end: a worker that dies after its
    last chunk (killed, out of memory) takes them with it, and the run fails with a worker
    error, through the API and on the command line (never a quiet exit). A killed worker is
    the system's doing, not a bug: exit status 1, the signal named, no "please report"."""
    collect = pool_module.Pool.finish

    def kill_one_then_collect(pool: Any) -> Any:
        os.kill(pool.procs[0].pid, signal.SIGKILL)
        pool.procs[0].join()
        return collect(pool)

    monkeypatch.setattr(pool_module.Pool, "finish", kill_one_then_collect)
    with pytest.raises(WorkerLost, match=r"a worker process was killed by SIGKILL \(out of memory\?\)"):
        simulate(TICTACTOE, games=40, seed=1, jobs=2)
    status, out, err = run("simulate", TICTACTOE, "--games", "40", "--jobs", "2", "--no-progress")
    assert (status, out, err) == (1, "", "rulespec: error: a worker process was killed by SIGKILL (out of memory?)\n")


@pytest.mark.parametrize("exitcode, kind, message", [
    (-9, "WorkerLost", "a worker process was killed by SIGKILL (out of memory?)"),
    (-200, "WorkerLost", "a worker process was killed by signal 200 (out of memory?)"),
    (0, "WorkerError", "a worker process stopped unexpectedly (exit code 0)"),
    (None, "WorkerError", "a worker process stopped unexpectedly (exit code None)"),
])
def test_only_a_worker_killed_by_a_signal_is_lost_any_other_end_is_a_bug(exitcode, kind, message):
    error = pool_module.lost_worker(exitcode)
    assert (type(error).__name__, str(error)) == (kind, message)


def test_an_os_error_inside_a_worker_s_match_is_reported_not_taken_for_the_parent_gone(monkeypatch):
    """Only the pipe's errors mean the parent is gone: an OSError raised while playing is a
    failure the parent reports (an internal error, named), not a worker quietly ending."""
    def fails(*args: Any, **kwargs: Any) -> Any:
        raise OSError("raised while playing")

    monkeypatch.setattr(simulate_module, "run_match", fails)
    status, out, err = run("simulate", TICTACTOE, "--games", "8", "--jobs", "2", "--no-progress")
    assert (status, out) == (70, "")
    assert err.startswith("rulespec: internal error: WorkerError: OSError: raised while playing (please report")


# ---------------------------------------------------------------------- point 2: comparisons


def test_holm_adjusts_for_the_number_of_tests():
    # sorted 0.005, 0.01, 0.03, 0.04 are multiplied by 4, 3, 2, 1 (0.02, 0.03, 0.06, 0.04), then kept rising
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.2, 0.9]) == pytest.approx([0.4, 0.9])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # (never above 1, and never below a smaller p's)
    assert holm([]) == []


def test_a_comparison_of_two_runs_of_the_same_rules_raises_no_alarm():
    """Two runs of the same rules with other seeds differ by chance only: among this many
    metrics some p-values fall under 0.05, and the correction keeps every one of them from
    being called significant."""
    a = simulate(HIGHJACK, 12, players=4, options={"max_rounds": 1}, seed=1)
    b = simulate(HIGHJACK, 12, players=4, options={"max_rounds": 1}, seed=2)
    rows = compare(a, b)
    assert len(rows) > 50
    assert any(r["p"] < 0.05 for r in rows)  # what an uncorrected table would have starred
    assert not any(r["significant"] for r in rows)
    assert all(r["p_adjusted"] >= r["p"] for r in rows)


def test_differences_come_with_intervals_and_effect_sizes():
    a = simulate(HIGHJACK, 10, players=4, options={"max_rounds": 1}, seed=4)
    b = simulate(HIGHJACK, 10, players=4, options={"max_rounds": 2}, seed=4)
    rows = {r["metric"]: r for r in compare(a, b)}
    row = rows["actions per match"]
    xs, ys = [float(r.actions) for r in a.records], [float(r.actions) for r in b.records]
    diff = statistics.fmean(ys) - statistics.fmean(xs)
    se = (statistics.variance(xs) / len(xs) + statistics.variance(ys) / len(ys)) ** 0.5
    assert row["difference"] == pytest.approx(diff)
    assert row["ci"] == pytest.approx([diff - 1.959964 * se, diff + 1.959964 * se])
    sd = ((statistics.variance(xs) + statistics.variance(ys)) / 2) ** 0.5
    assert row["effect"] == pytest.approx(diff / sd)
    assert row["significant"] and row["p_adjusted"] < 0.05
    plays = rows["'play' chosen"]
    per_match = [next(e["per_match"] for e in summarize(r)["actions_chosen"] if e["action"] == "play") for r in (a, b)]
    assert plays["group"] == "actions" and [plays["a"], plays["b"]] == pytest.approx(per_match)
    assert plays["ci"][0] <= plays["difference"] <= plays["ci"][1]


def test_the_comparison_prints_corrected_p_values_and_intervals():
    status, out, err = run("simulate", HIGHJACK, "--players", "4", "--games", "8", "--option", "max_rounds=1",
                           "--compare-option", "max_rounds=2", "--no-progress")
    assert status == 0, err
    assert "Holm p" in out and "95% CI" in out and "effect d" in out
    assert "Actions, cards and events per match: " in out
    assert "Holm-adjusted p < 0.05" in out


def test_first_player_advantage_is_tested_only_where_it_applies(tmp_path):
    out = tmp_path / "t.json"
    status, text, err = run("simulate", TICTACTOE, "--games", "10", "--agents", "greedy,random", "--no-progress",
                            "--json", str(out))
    assert status == 0, err
    summary = json.loads(out.read_text())["summary"]
    assert summary["first_player"] is None and "different agents" in summary["first_player_skipped"]
    assert "First-player advantage: not tested" in text
    status, text, err = run("simulate", TICTACTOE, "--games", "10", "--agents", "greedy,random", "--rotate",
                            "--no-progress", "--json", str(out))
    assert status == 0, err
    assert json.loads(out.read_text())["summary"]["first_player"]["games"] == 10
    assert "the seat that moved first won" in text
    a = simulate(TICTACTOE, 6, ["greedy", "random"], seed=1)
    assert "first player's win rate" not in {r["metric"] for r in compare(a, a)}
    same = simulate(TICTACTOE, 6, ["random"], seed=1)
    assert "first player's win rate" in {r["metric"] for r in compare(same, same)}


# ---------------------------------------------------------------------- point 2: the plot


def _figure(results: list[Any], comparison: list[dict[str, Any]] | None = None) -> Any:
    summaries = [summarize(r) for r in results]
    runs = [RunData(label=f"run {k}", totals=[[float(m.totals[p]) for m in r.records] for p in range(r.players)],
                    actions=[float(m.actions) for m in r.records],
                    margins=[x for x in map(winning_margin, r.records) if x is not None])
            for k, r in enumerate(results)]
    return figure(summaries, runs, comparison)


def _titles(fig: Any) -> list[str]:
    return [ax.get_title() for ax in fig.axes]


def test_the_plot_drops_the_agent_panel_for_one_agent_and_keeps_legends_off_the_panels():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    one = simulate(TICTACTOE, 8, ["random"], seed=1)
    two = simulate(TICTACTOE, 8, ["greedy", "random"], seed=1)
    fig = _figure([one])
    try:
        assert not any("per agent" in t for t in _titles(fig))
        assert {"Match length", "Winning margin", "Actions chosen per match"} <= set(_titles(fig))
        _assert_legends_cover_nothing(fig)
    finally:
        plt.close(fig)
    fig = _figure([two, two], compare(two, two))
    try:
        assert any("per agent" in t for t in _titles(fig))
        assert any(t.startswith("Effect B - A") for t in _titles(fig))
        length = next(ax for ax in fig.axes if ax.get_title() == "Match length")
        bars = length.patches
        assert {p.get_facecolor() for p in bars} and len({p.get_facecolor() for p in bars}) == 2  # side by side
        _assert_legends_cover_nothing(fig)
    finally:
        plt.close(fig)


def _assert_legends_cover_nothing(fig: Any) -> None:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert legends
    for legend in legends:
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            assert not box.overlaps(ax.get_window_extent(renderer)), ax.get_title()
        if fig._suptitle is not None:
            assert not box.overlaps(fig._suptitle.get_window_extent(renderer))


def test_the_plot_of_cards_shows_the_most_chosen_card_actions(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    result = simulate(HIGHJACK, 3, players=4, options={"max_rounds": 1}, seed=2)
    fig = _figure([result])
    try:
        titles = _titles(fig)
        assert sum(1 for t in titles if t.startswith("Cards chosen in '")) == 2
    finally:
        plt.close(fig)


def test_plot_without_matplotlib_fails_before_any_match(monkeypatch, tmp_path):
    def no_simulation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("simulated although --plot cannot draw")

    monkeypatch.setattr(simulate_module, "simulate", no_simulation)
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ModuleNotFoundError
    status, out, err = run("simulate", TICTACTOE, "--games", "3", "--no-progress", "--plot",
                           str(tmp_path / "p.png"))
    assert status == 2
    assert err == "rulespec: error: this needs matplotlib: pip install 'rulespec[plot]'\n"
    assert out == ""
