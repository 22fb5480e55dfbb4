"""The pairwise table under the leaderboard (SPEC §6.1) and the "how many trials" lines.

Kept out of the leaderboard module on purpose: the leaderboard says how each model scored, this
says which differences the data can tell apart. Fits 80 columns: the pair wraps between its two names, never inside one; numbers do not wrap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._termtable import print_message
from ..scoring import verdict

#: The ``ci_method`` values (SPEC §6.1) as the note under the table explains them.
CI_METHODS = ("stratified = groups resampled within each cell; pooled = cells holding one shared group "
              "resampled from a pool; none = one shared group, no interval")


def _pts(x: float | None, sign: bool = False) -> str:
    return "-" if x is None else (f"{100 * x:+.1f}" if sign else f"{100 * x:.1f}")


def _p(x: float | None) -> str:
    return "-" if x is None else ("<0.001" if x < 0.001 else f"{x:.3f}")


def pairwise_rows(summary: Mapping[str, Any]) -> list[dict[str, str]]:
    """The table's rows as text: difference and interval in points (0-100, like redline_overall)."""
    rows = []
    for p in summary.get("pairwise") or []:
        ci, method = p.get("ci"), p.get("ci_method")
        interval = "-" if not ci else f"{_pts(ci[0], True)}, {_pts(ci[1], True)}"
        rows.append({"pair": f"{p['a']}\nvs {p['b']}", "diff": _pts(p.get("diff"), sign=True),
                     "95% CI": f"{interval}\n{method}" if ci and method else interval,
                     "p adj.": _p(p.get("p_holm")),
                     "verdict": verdict(p)})
    return rows


def uncompared_lines(pairs: list[Mapping[str, Any]]) -> list[str]:
    """The pairs that share no scored group, in one or two lines instead of a table row each (a run
    where some models have no scores at all had about 150 rows of "no shared groups")."""
    none = [p for p in pairs if p.get("diff") is None]
    if not none:
        return []
    compared = {m for p in pairs if p.get("diff") is not None for m in (p["a"], p["b"])}
    alone = list(dict.fromkeys(m for p in none for m in (p["a"], p["b"]) if m not in compared))
    lines = []
    if alone:
        lines.append(f"not compared (no scored input group shared with any other model): {', '.join(alone)}")
    rest = [f"{p['a']} vs {p['b']}" for p in none if p["a"] in compared and p["b"] in compared]
    if rest:
        lines.append(f"not compared (no shared groups): {'; '.join(rest)}")
    return lines


def coverage_notes(summary: Mapping[str, Any]) -> list[str]:
    """One line per pair compared on part of what either model did (a filtered or partial run)."""
    return [f"{p['a']} vs {p['b']}: compared on the {p['n_groups']} input group(s) in {p['n_cells']} cell(s) both "
            f"were graded on; {p['n_groups_excluded']} group(s) graded for only one are left out"
            for p in summary.get("pairwise") or [] if p.get("n_groups_excluded")]


def power_lines(summary: Mapping[str, Any]) -> list[str]:
    """The variance split per model and the smallest difference each pair could have shown."""
    section = summary.get("power") or {}
    if not section:
        return []
    if not section.get("available"):
        return [f"smallest detectable difference: not estimated ({section.get('note')}); run 2 or more trials "
                "per task to know whether more trials would help"]
    lines = ["variance of the rewards (points^2 on the 0-100 scale): task-to-task / trial-to-trial"]
    for model, c in (section.get("models") or {}).items():
        if c:
            lines.append(f"  {model}: {1e4 * c['var_task']:.0f} / {1e4 * c['var_trial']:.0f} "
                         f"({c['n_tasks']} tasks, {c['trials_per_task']:g} trials each)")
    mdds = [p for p in section.get("pairs") or [] if p.get("mdd") is not None]
    if mdds:
        lines.append("smallest difference this run could detect (80% power, 5% two-sided), in points:")
        lines.extend(f"  {p['a']} vs {p['b']}: {100 * p['mdd']:.1f}" for p in mdds)
    return lines


def planned_power_lines(plan: Mapping[str, Any], source: str) -> list[str]:
    """``run --dry-run --power-from``: the planned design's MDD and how it moves with the trials."""
    by_k = ", ".join(f"{k}: {100 * v:.1f}" for k, v in plan["by_trials"].items())
    return [f"power (from {source}): with {plan['trials']} trial(s) on these {plan['n_tasks']} task(s), two models "
            f"must differ by about {100 * plan['mdd']:.1f} points for 80% power at 5% (two-sided)",
            f"  by trials per task: {by_k}",
            f"  variance used (points^2): model x task {1e4 * plan['var_interaction']:.0f} "
            f"({plan['interaction_basis']}), trial-to-trial {1e4 * plan['var_trial']:.0f}; method: "
            "docs/STATISTICS.md"]


def print_pairwise(summary: Mapping[str, Any], console: Any) -> None:
    """The table (when the summary holds two or more models), coverage notes and power lines."""
    from rich.table import Table

    from rich import box
    from rich.console import Console

    if console.width > 100:  # logs and pipes get a wide console for the leaderboard; this table fits 80-100
        console = Console(width=100, file=console.file, no_color=console.no_color)
    pairs = summary.get("pairwise") or []
    rows = pairwise_rows({**summary, "pairwise": [p for p in pairs if p.get("diff") is not None]})
    if rows:
        # the title as a line of its own: a table title wraps to the table, narrow with short names
        print_message(console, "paired comparison (SPEC §6.1): first model minus second, in points")
        table = Table(box=box.SIMPLE_HEAD)
        longest_name = max(len(word) for row in rows for word in row["pair"].split())
        for col in rows[0]:
            wraps = col in ("pair", "verdict")
            # the pair column wraps at spaces and is never narrower than a model name: no name is split
            table.add_column(col, justify="left" if wraps else "right", no_wrap=not wraps,
                             overflow="fold" if col == "pair" else "ellipsis",
                             min_width=longest_name if col == "pair" else None,
                             max_width=15 if col == "verdict" else None)
        for row in rows:
            table.add_row(*row.values())
        console.print(table)
        print_message(console, "better / worse: the first model against the second, significant after Holm's "
                      "adjustment for the number of pairs; not distinguishable: the data do not tell them apart. "
                      "The 95% CI is per pair, not adjusted; under it, how it was drawn: " + CI_METHODS + ".")
    for line in [*uncompared_lines(pairs), *coverage_notes(summary), *power_lines(summary)]:
        print_message(console, line)
