"""The figure of ``rulespec simulate --plot``: one run, or two side by side (``--compare``).

Panels: final score per seat; win rate per seat (and per agent when the seats run different
agents); match length and winning margin as histograms on shared bins; actions chosen per
match; the cards chosen in the most used card actions; with a comparison, the effect size of
every difference with its interval. Every legend sits outside the panels (below them), so it
covers no data. Works on plain data (``RunData``) so that it depends on nothing but matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from .stats import histogram_edges

__all__ = ["RunData", "figure", "CARD_PANELS"]

CARD_PANELS = 2  # card-valued actions drawn (the most chosen ones)
COLUMNS = 3
LEGEND_COLUMNS, LEGEND_ROW, LEGEND_PAD = 6, 0.28, 0.25  # the legend: entries a row, inches a row and around
RUN_COLORS = ("C0", "C1")
Panel = Callable[[Any, dict[str, Any]], None]  # draws one panel on an axes, adding to the figure's legend


@dataclass
class RunData:
    """What the figure needs of one run besides its summary: per-match values."""

    label: str
    totals: list[list[float]]  # per seat, every match's final total
    actions: list[float]  # every match's length in actions
    margins: list[float]  # every winning margin (matches with winners and losers)


def figure(summaries: Sequence[dict[str, Any]], runs: Sequence[RunData],
           comparison: Sequence[dict[str, Any]] | None = None) -> Any:
    """The matplotlib figure (not saved: ``plot`` saves it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = _panels(summaries, runs, comparison)
    rows = math.ceil(len(panels) / COLUMNS)
    fig, axes = plt.subplots(rows, COLUMNS, figsize=(6 * COLUMNS, 4.8 * rows), squeeze=False)
    flat = list(axes.flat)
    legend: dict[str, Any] = {}
    for ax, draw in zip(flat, panels):
        draw(ax, legend)
    for ax in flat[len(panels):]:
        ax.remove()
    fig.suptitle(summaries[0]["game"] + (": " + " vs ".join(r.label for r in runs) if len(runs) > 1 else ""))
    shown = {label: handle for label, handle in legend.items() if handle is not None}
    bottom = 0.0
    if shown:  # a strip below the panels, kept free for the legend
        columns = min(len(shown), LEGEND_COLUMNS)
        bottom = (LEGEND_ROW * math.ceil(len(shown) / columns) + LEGEND_PAD) / fig.get_figheight()
        fig.legend(list(shown.values()), list(shown), loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=columns,
                   fontsize="small")
    fig.tight_layout(rect=(0.0, bottom, 1.0, 1.0))  # (cheaper than the constrained layout: one pass)
    return fig


def _panels(summaries: Sequence[dict[str, Any]], runs: Sequence[RunData],
            comparison: Sequence[dict[str, Any]] | None) -> list[Panel]:
    """The drawing functions of the panels that apply, in order."""
    panels: list[Panel] = [lambda ax, lg: _scores(ax, lg, summaries, runs),
                           lambda ax, lg: _win_rates(ax, lg, summaries, runs)]
    if any(len(s["by_agent"]) > 1 for s in summaries):  # (every seat the same agent: the panel would repeat)
        panels.append(lambda ax, lg: _agent_rates(ax, lg, summaries, runs))
    panels.append(lambda ax, lg: _histogram(ax, lg, [r.actions for r in runs], runs, "Match length",
                                            "actions per match"))
    if any(r.margins for r in runs):
        panels.append(lambda ax, lg: _histogram(ax, lg, [r.margins for r in runs], runs, "Winning margin",
                                                "winners' total minus the nearest other seat's"))
    if any(s["actions_chosen"] for s in summaries):
        panels.append(lambda ax, lg: _counts(ax, lg, summaries, runs, [s["actions_chosen"] for s in summaries],
                                             "action", "Actions chosen per match"))
    for action, param in _card_actions(summaries[0])[:CARD_PANELS]:
        entries = [[e for e in s["parameters"] if (e["action"], e["param"], e["type"]) == (action, param, "card")]
                   for s in summaries]
        panels.append(partial(_counts, summaries=summaries, runs=runs, entries=entries, field="value",
                              title=f"Cards chosen in '{action}' per match"))
    if comparison:
        panels.append(lambda ax, lg: _effects(ax, lg, comparison))
    return panels


def _card_actions(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """The card-valued (action, parameter) pairs, the most chosen first."""
    totals: dict[tuple[str, str], int] = {}
    for e in summary["parameters"]:
        if e["type"] == "card":
            key = (e["action"], e["param"])
            totals[key] = totals.get(key, 0) + e["total"]
    return sorted(totals, key=lambda k: -totals[k])


def _offsets(count: int) -> tuple[float, list[float]]:
    width = 0.8 / count
    return width, [(k - (count - 1) / 2) * width for k in range(count)]


def _bar(half: float) -> float:
    """An error bar's half length in percent: never negative (at a 0% or 100% rate the interval's
    bound and the rate differ by a rounding error of either sign)."""
    return max(0.0, 100 * half)


def _scores(ax: Any, legend: dict[str, Any], summaries: Sequence[dict[str, Any]], runs: Sequence[RunData]) -> None:
    width, offsets = _offsets(len(runs))
    players = summaries[0]["players"]
    for k, run in enumerate(runs):
        positions = [p + offsets[k] for p in range(len(run.totals))]
        parts = ax.boxplot(run.totals, positions=positions, widths=width * 0.9, patch_artist=True, manage_ticks=False)
        for box_patch in parts["boxes"]:
            box_patch.set_facecolor(RUN_COLORS[k])
            box_patch.set_alpha(0.6)
        legend.setdefault(run.label, parts["boxes"][0] if parts["boxes"] else None)
    ax.set_xticks(range(players), [s["name"] for s in summaries[0]["seats"]])
    ax.set_title("Final score per seat")
    ax.set_ylabel("score")


def _win_rates(ax: Any, legend: dict[str, Any], summaries: Sequence[dict[str, Any]], runs: Sequence[RunData]) -> None:
    width, offsets = _offsets(len(runs))
    for k, summary in enumerate(summaries):
        seats = summary["seats"]
        xs = [p + offsets[k] for p in range(len(seats))]
        err = [[_bar(s["win_rate"] - s["ci"][0]) for s in seats], [_bar(s["ci"][1] - s["win_rate"]) for s in seats]]
        ax.bar(xs, [100 * s["win_rate"] for s in seats], width=width, yerr=err, capsize=4, color=RUN_COLORS[k],
               alpha=0.8)
    legend["fair share"] = ax.axhline(100 / summaries[0]["players"], color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(range(summaries[0]["players"]), [s["name"] for s in summaries[0]["seats"]])
    ax.set_title("Win rate per seat (95% CI)")
    ax.set_ylabel("%")


def _agent_rates(ax: Any, legend: dict[str, Any], summaries: Sequence[dict[str, Any]],
                 runs: Sequence[RunData]) -> None:
    width, offsets = _offsets(len(runs))
    names = list(dict.fromkeys(a["agent"] for s in summaries for a in s["by_agent"]))
    for k, summary in enumerate(summaries):
        found = {a["agent"]: a for a in summary["by_agent"]}
        shown = [(i, found[name]) for i, name in enumerate(names) if name in found]
        ax.bar([i + offsets[k] for i, _ in shown], [100 * a["win_rate"] for _, a in shown], width=width,
               yerr=[[_bar(a["win_rate"] - a["ci"][0]) for _, a in shown],
                     [_bar(a["ci"][1] - a["win_rate"]) for _, a in shown]],
               capsize=4, color=RUN_COLORS[k], alpha=0.8)
    ax.axhline(100 / summaries[0]["players"], color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(names)), names)
    ax.set_title("Win rate per agent, per seat played (95% CI)")
    ax.set_ylabel("%")


def _histogram(ax: Any, legend: dict[str, Any], values: Sequence[Sequence[float]], runs: Sequence[RunData],
               title: str, xlabel: str) -> None:
    """Runs side by side on the same bins."""
    edges = histogram_edges([x for v in values for x in v], bins=20)
    centers = [(lo + hi - 1) / 2 for lo, hi in zip(edges, edges[1:])]  # a bin holds the whole numbers lo to hi - 1
    step = edges[1] - edges[0]
    width, offsets = _offsets(len(runs))
    for k, (data, run) in enumerate(zip(values, runs)):
        counts = [0] * len(centers)
        for x in data:
            counts[min(int((x - edges[0]) // step), len(counts) - 1)] += 1
        ax.bar([c + offsets[k] * step for c in centers], counts, width=width * step, color=RUN_COLORS[k], alpha=0.8)
        legend.setdefault(run.label, ax.patches[-1] if ax.patches else None)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("matches")


def _counts(ax: Any, legend: dict[str, Any], summaries: Sequence[dict[str, Any]], runs: Sequence[RunData],
            entries: Sequence[Sequence[dict[str, Any]]], field: str, title: str) -> None:
    """Mean per match of each entry: one run stacked by seat; two runs side by side (all seats)."""
    names = list(dict.fromkeys(str(e[field]) for es in entries for e in es))
    rows = {name: i for i, name in enumerate(reversed(names))}  # the first entry at the top
    if len(runs) == 1:
        games = max(1, summaries[0]["games"])
        left = [0.0] * len(names)
        for p, seat in enumerate(summaries[0]["seats"]):
            ys, widths = [], []
            for e in entries[0]:
                ys.append(rows[str(e[field])])
                widths.append(e["seats"][p] / games)
            ax.barh(ys, widths, left=[left[y] for y in ys], color=_seat_color(p), height=0.8)
            for y, w in zip(ys, widths):
                left[y] += w
            legend.setdefault(f"seat {seat['name']}", ax.patches[-1] if ax.patches else None)
    else:
        height, offsets = _offsets(len(runs))
        for k, es in enumerate(entries):
            ax.barh([rows[str(e[field])] + offsets[k] for e in es], [e["per_match"] for e in es], height=height,
                    color=RUN_COLORS[k], alpha=0.8)
    ax.set_yticks(range(len(names)), list(reversed(names)), fontsize="small" if len(names) < 16 else "x-small")
    ax.set_title(title)
    ax.set_xlabel("per match")


def _seat_color(seat: int) -> Any:
    import matplotlib

    return matplotlib.colormaps["Set2"](seat % 8)


def _effects(ax: Any, legend: dict[str, Any], rows: Sequence[dict[str, Any]]) -> None:
    """The standardised effect (Cohen's d) of the outcome and length metrics, and of the counts
    that differ significantly, with their 95% intervals; significant ones in red."""
    measured = [r for r in rows if r["effect"] is not None]  # (no spread in either run: no standardised effect)
    shown = [r for r in measured if r["group"] in ("outcome", "length")]
    shown += sorted((r for r in measured if r not in shown and r["significant"]), key=lambda r: -abs(r["effect"]))[:8]
    ys = list(range(len(shown)))[::-1]
    for y, r in zip(ys, shown):
        color = "tab:red" if r["significant"] else "grey"
        low, high = r["effect_ci"]
        ax.plot([low, high], [y, y], color=color, linewidth=2)
        ax.plot([r["effect"]], [y], "o", color=color)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(ys, [r["metric"] for r in shown], fontsize="x-small")
    ax.set_title("Effect B - A (Cohen's d, 95% CI); red: Holm-adjusted p < 0.05")
    ax.set_xlabel("standardised difference")
