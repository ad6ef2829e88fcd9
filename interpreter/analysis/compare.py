"""Two runs of ``simulate`` compared (``rulespec simulate --compare``): every metric's
difference with its 95% interval, effect size and p-value (two-proportion z-tests for rates,
Welch z-tests for means), adjusted for the number of metrics compared (Holm-Bonferroni).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .match_counts import compared_counts
from .simulate import SimulationResult
from .stats import difference, holm
from .summary import (
    SIGNIFICANCE,
    first_player_skipped,
    options_text,
    p_text,
    percent,
    report_table,
    win_share,
    winning_margin,
)

__all__ = ["compare", "print_comparison", "run_name", "SHOWN_COUNTS"]

SHOWN_COUNTS = 12  # significant differences of counts printed by a comparison (all are in its JSON)


def compare(a: SimulationResult, b: SimulationResult) -> list[dict[str, Any]]:
    """Every compared metric: its value in each run, the difference B - A with its 95% interval,
    the standardised effect with its interval, the p-value, and the p-value adjusted for the
    number of metrics compared (Holm-Bonferroni); ``significant`` is the adjusted p-value below
    ``SIGNIFICANCE``, so that among all the metrics the chance of any false alarm is at most 5%."""
    rows = [{"metric": label, "group": group, **difference(kind, xs, ys)}
            for group, label, kind, xs, ys in _compared_values(a, b)]
    for group, label, key in compared_counts(a.tally, b.tally):
        rows.append({"metric": label, "group": group, **a.tally.difference(b.tally, key)})
    for row, adjusted in zip(rows, holm([row["p"] for row in rows])):
        row["p_adjusted"] = adjusted
        row["significant"] = adjusted < SIGNIFICANCE
    return rows


def _compared_values(a: SimulationResult, b: SimulationResult) -> Iterator[tuple[str, str, str, list[float],
                                                                                  list[float]]]:
    """(group, metric, kind, per-match values of A, of B) of the outcome and length metrics."""
    seats = range(min(a.players, b.players))
    for p in seats:
        yield ("outcome", f"win rate {a.seat_names[p]}", "rate", [win_share(r, p) for r in a.records],
               [win_share(r, p) for r in b.records])
    agents_a, agents_b = _agent_shares(a), _agent_shares(b)
    if len(agents_a) > 1 or len(agents_b) > 1:
        for label in agents_a:
            if label in agents_b:
                yield "outcome", f"win rate {label}", "rate", agents_a[label], agents_b[label]
    for p in seats:
        yield ("outcome", f"final score {a.seat_names[p]}", "mean", [float(r.totals[p]) for r in a.records],
               [float(r.totals[p]) for r in b.records])
    margins_a = [m for m in map(winning_margin, a.records) if m is not None]
    margins_b = [m for m in map(winning_margin, b.records) if m is not None]
    if margins_a and margins_b:
        yield "outcome", "winning margin", "mean", margins_a, margins_b
    if first_player_skipped(a) is None and first_player_skipped(b) is None:
        yield ("outcome", "first player's win rate", "rate", _first_player_shares(a), _first_player_shares(b))
    yield ("outcome", "shared wins", "rate", [float(len(r.winners) > 1) for r in a.records],
           [float(len(r.winners) > 1) for r in b.records])
    for field_name, label in (("rounds", "rounds per match"), ("actions", "actions per match"),
                              ("lead_changes", "lead changes per match")):
        yield ("length", label, "mean", [float(getattr(r, field_name)) for r in a.records],
               [float(getattr(r, field_name)) for r in b.records])


def _first_player_shares(result: SimulationResult) -> list[float]:
    return [win_share(r, r.first_player) for r in result.records if r.first_player is not None]


def _agent_shares(result: SimulationResult) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in result.records:
        for p, label in enumerate(r.agents):
            out.setdefault(label, []).append(win_share(r, p))
    return out


def run_name(result: SimulationResult, other: SimulationResult | None = None, short: bool = False) -> str:
    """A run named by its spec, and by the options that differ from the other run's."""
    import os

    changed = {k: v for k, v in result.options.items() if other is not None and other.options.get(k) != v}
    spec = os.path.basename(result.spec) if short else f"{result.spec} ({result.game})"
    return spec + (f" with {options_text(changed)}" if changed else "")


def print_comparison(rows: list[dict[str, Any]], a: SimulationResult, b: SimulationResult, console: Any) -> None:
    """Both runs side by side, then the differences that are significant once corrected for the
    number of metrics compared."""
    console.print(f"[bold]Comparison[/bold]: A = {run_name(a, b)}, B = {run_name(b, a)}; "
                  f"{len(a.records)} and {len(b.records)} matches with the same seeds", highlight=False)
    console.print()
    main = [r for r in rows if r["group"] in ("outcome", "length")]
    counted = [r for r in rows if r not in main]
    _print_comparison_table("Side by side (* = significant: Holm-adjusted p < 0.05)", main, console)
    significant_counts = [r for r in counted if r["significant"]]
    if significant_counts:
        largest = sorted(significant_counts, key=_effect_order)[:SHOWN_COUNTS]
        more = len(significant_counts) - len(largest)
        _print_comparison_table(f"Actions, cards and events per match: {len(significant_counts)} of the "
                                f"{len(counted)} compared differ significantly"
                                + (f"; the {len(largest)} largest effects (all in --json)" if more else ""),
                                largest, console)
    elif counted:
        console.print(f"Actions, cards and events: none of the {len(counted)} compared differs significantly.",
                      highlight=False)
        console.print()
    significant = [r for r in rows if r["significant"]]
    what = f"{len(rows)} metrics compared, Holm-adjusted p < {SIGNIFICANCE}"
    if not significant:
        console.print(f"No significant difference among the {what}.", highlight=False)
        return
    console.print(f"Significant differences, {len(significant)} of the {what}:", highlight=False)
    for r in significant:
        if r in main:
            a_text, b_text, diff = _comparison_cells(r)
            console.print(f"  {r['metric']}: {a_text} -> {b_text} ({diff} [{_difference_ci(r)[1:-1]}], "
                          f"adjusted p {'= ' if r['p_adjusted'] >= 0.001 else ''}{p_text(r['p_adjusted'])})",
                          highlight=False)
    if significant_counts:
        console.print(f"  and {len(significant_counts)} counts of actions, cards and events (table above)",
                      highlight=False)


def _effect_order(row: dict[str, Any]) -> float:
    """Sorts the largest standardised effects first (an unmeasurable one, with no spread, first of all)."""
    return -math.inf if row["effect"] is None else -abs(row["effect"])


def _print_comparison_table(title: str, rows: list[dict[str, Any]], console: Any) -> None:
    table = report_table(title)
    for column in ("metric", "A", "B", "B - A", "95% CI", "effect d", "p", "Holm p", ""):
        table.add_column(column, justify="left" if column in ("metric", "") else "right")
    for r in rows:
        a_text, b_text, diff = _comparison_cells(r)
        effect = "n/a" if r["effect"] is None else f"{r['effect']:+.2f}"
        table.add_row(r["metric"], a_text, b_text, diff, _difference_ci(r), effect, p_text(r["p"]),
                      p_text(r["p_adjusted"]), "*" if r["significant"] else "")
    console.print(table)
    console.print()


def _difference_ci(r: dict[str, Any]) -> str:
    low, high = r["ci"]
    if r["kind"] == "rate":
        return f"[{100 * low:+.1f}, {100 * high:+.1f}]"
    return f"[{_signed(low)}, {_signed(high)}]"


def _signed(x: float) -> str:
    return f"{x:+.2f}" if abs(x) < 10 else f"{x:+.1f}"


def _comparison_cells(r: dict[str, Any]) -> list[str]:
    if r["kind"] == "rate":
        return [percent(r["a"]), percent(r["b"]), f"{100 * r['difference']:+.1f} pts"]
    if r["group"] in ("outcome", "length"):
        return [f"{r['a']:.1f}", f"{r['b']:.1f}", f"{r['difference']:+.1f}"]
    return [f"{r['a']:.2f}", f"{r['b']:.2f}", _signed(r["difference"])]
