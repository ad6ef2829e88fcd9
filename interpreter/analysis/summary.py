"""What a run of ``simulate`` says: its statistics (``summarize``, JSON-ready), their tables
(``print_summary``) and its figure (``plot``).

Win rates count a shared win (several winners) as an equal share for each winner; their
95% confidence intervals are Wilson score intervals. The first player's advantage is a test
of the first mover's win rate against a fair share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from .match_counts import ENGINE_EVENTS, summarize_counts
from .simulate import MatchRecord, SimulationResult
from .stats import describe, histogram, one_proportion_p, wilson

__all__ = [
    "summarize", "records_json", "print_summary", "plot", "win_share", "winning_margin", "first_player_skipped",
    "options_text", "report_table", "percent", "p_text", "SIGNIFICANCE",
]

SIGNIFICANCE = 0.05
HISTOGRAM_BINS = 12  # of the histograms in a summary (and its table)


# ====================================================================== statistics


def win_share(record: MatchRecord, seat: int) -> float:
    """The seat's share of the match's win: 1 / the number of winners, 0 when it did not win."""
    return 1.0 / len(record.winners) if seat in record.winners else 0.0


def summarize(result: SimulationResult) -> dict[str, Any]:
    """JSON-ready statistics of a run."""
    records = result.records
    games = len(records)
    n = result.players
    seats = []
    for p in range(n):
        wins = sum(win_share(r, p) for r in records)
        low, high = wilson(wins, games)
        agent = result.agents[p] if not result.rotate else "(rotating)"
        seats.append({
            "seat": p, "name": result.seat_names[p], "agent": agent, "wins": wins,
            "win_rate": wins / games if games else 0.0, "ci": [low, high],
            "score": describe([float(r.totals[p]) for r in records]),
        })
    by_agent: dict[str, list[float]] = {}
    for r in records:
        for p, label in enumerate(r.agents):
            by_agent.setdefault(label, []).append(win_share(r, p))
    agents = []
    for label, shares in by_agent.items():
        wins = sum(shares)
        low, high = wilson(wins, len(shares))
        agents.append({"agent": label, "seats_played": len(shares), "wins": wins,
                       "win_rate": wins / len(shares), "ci": [low, high]})
    skipped = first_player_skipped(result)
    margins = [m for m in map(winning_margin, records) if m is not None]
    return {
        "spec": result.spec, "game": result.game, "players": n, "options": result.options,
        "agents": result.agents, "rotate": result.rotate, "seed": result.seed, "games": games,
        "seats": seats, "by_agent": agents,
        "rounds": describe([float(r.rounds) for r in records]),
        "actions": describe([float(r.actions) for r in records]),
        "lead_changes": describe([float(r.lead_changes) for r in records]),
        "margin": {**describe(margins), "matches": len(margins)},
        "histograms": {
            "actions": histogram([float(r.actions) for r in records], bins=HISTOGRAM_BINS),
            "rounds": histogram([float(r.rounds) for r in records], bins=HISTOGRAM_BINS),
            "margin": histogram(margins, bins=HISTOGRAM_BINS),
        },
        "first_player": _first_player_advantage(records, n) if skipped is None else None,
        "first_player_skipped": skipped,
        "shared_wins": sum(1 for r in records if len(r.winners) > 1),
        "no_winner": sum(1 for r in records if not r.winners),
        **summarize_counts(result.tally, n, result.card_kinds, result.action_names, result.zone_names,
                           result.seat_names),
    }


def winning_margin(record: MatchRecord) -> float | None:
    """How far the winners were from the nearest other seat: the smallest difference between a
    winner's total and a loser's (whichever way the scores run); None when every seat won or none did."""
    losers = [p for p in range(len(record.totals)) if p not in record.winners]
    if not record.winners or not losers:
        return None
    return float(min(abs(record.totals[w] - record.totals[p]) for w in record.winners for p in losers))


def first_player_skipped(result: SimulationResult) -> str | None:
    """Why the first-player-advantage test does not apply to a run (None when it does)."""
    if result.players < 2:
        return "one player"
    if not any(r.first_player is not None for r in result.records):
        return "no match had a decision"
    if len(set(result.agents)) > 1 and not result.rotate:
        return "the seats run different agents: the first seat's wins would measure its agent too; use --rotate"
    return None


def _first_player_advantage(records: list[MatchRecord], n: int) -> dict[str, Any]:
    """How often the seat that moved first won, against a fair share."""
    firsts = [r for r in records if r.first_player is not None]
    first_wins = sum(win_share(r, r.first_player) for r in firsts if r.first_player is not None)
    low, high = wilson(first_wins, len(firsts))
    return {"games": len(firsts), "wins": first_wins, "win_rate": first_wins / len(firsts) if firsts else 0.0,
            "ci": [low, high], "expected": 1.0 / n, "p": one_proportion_p(first_wins, len(firsts), 1.0 / n)}


def records_json(result: SimulationResult) -> list[dict[str, Any]]:
    out = []
    for r in result.records:
        data = asdict(r)
        data.pop("moves", None)
        data.pop("counts", None)
        data["margin"] = winning_margin(r)
        out.append(data)
    return out


# ====================================================================== printing


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _ci(ci: Sequence[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _num(x: float) -> str:
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.1f}"


def p_text(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def options_text(options: dict[str, Any]) -> str:
    """Options as ``k=v, ...`` for a report heading (``none`` when there are none)."""
    import json

    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in options.items()) or "none"


def report_table(title: str) -> Any:
    """A rich table in the style of every report (simulate, ladder)."""
    from rich import box
    from rich.table import Table

    return Table(title=title, box=box.SIMPLE, title_justify="left", show_edge=False)


def print_summary(summary: dict[str, Any], console: Any, by_seat: bool = False) -> None:
    """The statistics of a run as tables (``by_seat``: the card tables per seat too)."""
    games = summary["games"]
    console.print(f"[bold]{summary['game']}[/bold]: {games} matches, {summary['players']} players, "
                  f"seed {summary['seed']}", highlight=False)
    seat_text = ", ".join(f"{s['name']} {a}" for s, a in zip(summary["seats"], summary["agents"]))
    console.print(f"agents: {seat_text}" + (" (rotated one seat each match)" if summary["rotate"] else ""),
                  highlight=False)
    console.print(f"options: {options_text(summary['options'])}", highlight=False)
    console.print()

    table = report_table("Win rate per seat")
    for name, justify in (("seat", "left"), ("agent", "left"), ("wins", "right"), ("win rate", "right"),
                          ("95% CI", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in summary["seats"]:
        table.add_row(s["name"], s["agent"], _num(s["wins"]), percent(s["win_rate"]), _ci(s["ci"]))
    console.print(table)
    console.print()

    if len(summary["by_agent"]) > 1 or summary["rotate"]:
        table = report_table("Win rate per agent (per seat played)")
        for name, justify in (("agent", "left"), ("seats played", "right"), ("wins", "right"),
                              ("win rate", "right"), ("95% CI", "right")):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for a in summary["by_agent"]:
            table.add_row(a["agent"], str(a["seats_played"]), _num(a["wins"]), percent(a["win_rate"]), _ci(a["ci"]))
        console.print(table)
        console.print()

    table = report_table("Final score per seat")
    for name in ("seat", "mean", "sd", "min", "median", "max"):
        table.add_column(name, justify="left" if name == "seat" else "right")
    for s in summary["seats"]:
        d = s["score"]
        table.add_row(s["name"], f"{d['mean']:.1f}", f"{d['sd']:.1f}", _num(d["min"]), _num(d["median"]),
                      _num(d["max"]))
    console.print(table)
    console.print()

    table = report_table("Per match")
    for name in ("", "mean", "sd", "min", "median", "max"):
        table.add_column(name, justify="left" if not name else "right")
    rows = [("rounds", "rounds"), ("actions", "actions"), ("lead_changes", "lead changes")]
    if summary["margin"]["matches"]:
        rows.append(("margin", "winning margin"))
    for key, label in rows:
        d = summary[key]
        table.add_row(label, f"{d['mean']:.1f}", f"{d['sd']:.1f}", _num(d["min"]), _num(d["median"]),
                      _num(d["max"]))
    console.print(table)
    console.print()
    _print_histogram(summary["histograms"]["actions"], "Match length (actions per match)", console)
    _print_counts(summary, console, by_seat)

    first = summary["first_player"]
    skipped = summary["first_player_skipped"]
    if skipped is not None and summary["players"] > 1:
        console.print(f"First-player advantage: not tested ({skipped})", highlight=False)
    if first is not None:
        verdict = "significant" if first["p"] < SIGNIFICANCE else "not significant"
        console.print(f"First-player advantage: the seat that moved first won {percent(first['win_rate'])} "
                      f"{_ci(first['ci'])} of {first['games']} matches; a fair share is {percent(first['expected'])} "
                      f"(p {'= ' if first['p'] >= 0.001 else ''}{p_text(first['p'])}, {verdict})", highlight=False)
    shared = summary["shared_wins"]
    console.print(f"Shared wins: {shared} of {games} matches ({percent(shared / games if games else 0.0)})"
                  + (f"; no winner: {summary['no_winner']}" if summary["no_winner"] else ""), highlight=False)


def _print_histogram(hist: dict[str, Any], title: str, console: Any, width: int = 40) -> None:
    counts, edges = hist["counts"], hist["edges"]
    if not any(counts):
        return
    table = report_table(title)
    for name, justify in (("from", "right"), ("to", "right"), ("matches", "right"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    top = max(counts)
    for i, count in enumerate(counts):
        high = edges[i + 1] - 1 if float(edges[i + 1]).is_integer() else edges[i + 1]
        table.add_row(_num(edges[i]), _num(high), str(count), "#" * round(width * count / top))
    console.print(table)
    console.print()


def _per_match(total: float, games: int) -> str:
    return f"{total / games:.2f}" if games else "0"


def _print_counts(summary: dict[str, Any], console: Any, by_seat: bool) -> None:
    """Actions chosen per seat, cards chosen and moved per kind, events per seat: means per match."""
    games = summary["games"]
    seat_names = [s["name"] for s in summary["seats"]]
    if summary["actions_chosen"]:
        _print_per_seat("Actions chosen per match", "action", summary["actions_chosen"], "action", seat_names,
                        games, console)
    cards = [e for e in summary["parameters"] if e["type"] == "card"]
    columns = list(dict.fromkeys((e["action"], e["param"]) for e in cards))
    several = {action for action, _ in columns if sum(1 for a, _ in columns if a == action) > 1}
    labels = {(a, p): f"{a}.{p}" if a in several else a for a, p in columns}
    _print_card_table("Cards chosen per match, by action", summary["cards"]["kinds"], cards,
                      lambda e: labels[e["action"], e["param"]], console, games)
    entered = summary["cards"]["entered"]
    _print_card_table("Cards moved per match, by the zone they entered", summary["cards"]["kinds"], entered,
                      lambda e: e["zone"], console, games)
    if by_seat:
        for column, label in labels.items():
            rows = [e for e in cards if (e["action"], e["param"]) == column]
            _print_per_seat(f"Cards chosen in '{label}' per match, by seat", "card", rows, "value", seat_names,
                            games, console)
        for zone in dict.fromkeys(e["zone"] for e in entered):
            rows = [e for e in entered if e["zone"] == zone]
            _print_per_seat(f"Cards entering {zone} per match, by seat", "card", rows, "kind", seat_names,
                            games, console)
    events = [e for e in summary["events"] if e["event"] not in ENGINE_EVENTS]
    if events:
        _print_per_seat("Events per match", "event", events, "event", seat_names, games, console)


def _print_per_seat(title: str, heading: str, rows: list[dict[str, Any]], field_name: str, seat_names: list[str],
                    games: int, console: Any) -> None:
    table = report_table(title)
    table.add_column(heading)
    no_seat = any(r.get("no_seat") for r in rows)
    for name in seat_names + (["no seat"] if no_seat else []) + ["all"]:
        table.add_column(name, justify="right")
    for r in rows:
        cells = [_per_match(x, games) for x in r["seats"]]
        if no_seat:
            cells.append(_per_match(r.get("no_seat", 0), games))
        table.add_row(str(r[field_name]), *cells, _per_match(r["total"], games))
    console.print(table)
    console.print()


def _print_card_table(title: str, kinds: list[str], entries: list[dict[str, Any]], column_of: Callable[[Any], str],
                      console: Any, games: int) -> None:
    """Card kinds down, one column per action (or zone): the mean count per match."""
    if not entries:
        return
    columns = list(dict.fromkeys(column_of(e) for e in entries))
    cells: dict[tuple[str, str], float] = {}
    for e in entries:
        cells[str(e.get("value", e.get("kind"))), column_of(e)] = e["total"]
    table = report_table(title)
    table.add_column("card")
    for column in columns:
        table.add_column(column, justify="right")
    for kind in kinds:
        if any((kind, c) in cells for c in columns):
            table.add_row(kind, *(_per_match(cells.get((kind, c), 0), games) for c in columns))
    console.print(table)
    console.print()


# ====================================================================== plots


def plot(summaries: Sequence[dict[str, Any]], results: Sequence[SimulationResult], path: str,
         labels: Sequence[str] | None = None, comparison: Sequence[dict[str, Any]] | None = None) -> None:
    """A PNG of one run or two (``simulate_plot.figure``); ``comparison``: the rows of ``compare``."""
    import matplotlib.pyplot as plt

    from .simulate_plot import RunData, figure

    labels = list(labels or [s["spec"] for s in summaries])
    runs = [RunData(label=label, totals=[[float(r.totals[p]) for r in result.records] for p in range(result.players)],
                    actions=[float(r.actions) for r in result.records],
                    margins=[m for m in map(winning_margin, result.records) if m is not None])
            for label, result in zip(labels, results)]
    fig = figure(summaries, runs, comparison)
    try:
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
