"""The leaderboard printed at the end of ``run`` and ``demo``."""

from __future__ import annotations

from typing import Any


def _pct(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) else f"{100 * value:.1f}"


def leaderboard_rows(summary: dict[str, Any]) -> list[dict[str, str]]:
    rows = []
    for e in summary.get("leaderboard", []):
        ci = e.get("ci") or [None, None]
        by_turn = e.get("by_turn") or {}
        by_side = e.get("by_side_turn_weighted") or {}
        rows.append({
            "model": str(e.get("model")),
            "redline_overall": _pct(e.get("overall_turn_weighted")),
            "95% CI": f"{_pct(ci[0])}-{_pct(ci[1])}",
            "by turn": " ".join(f"T{k}:{_pct(v)}" for k, v in sorted(by_turn.items())),
            "by side": " ".join(f"{k}:{_pct(v)}" for k, v in sorted(by_side.items())),
            "trials": str(e.get("n_trials", "-")),
            "gate fails": str(e.get("n_gate_failures", "-")),
        })
    return rows


def print_leaderboard(summary: dict[str, Any], console: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    rows = leaderboard_rows(summary)
    if not rows:
        console.print("no graded trials")
        return
    method = summary.get("judge_method")
    table = Table(title=f"Leaderboard (judges: {method})" if method else "Leaderboard")
    for col in rows[0]:
        table.add_column(col, justify="right" if col in {"redline_overall", "trials", "gate fails"} else "left")
    for row in rows:
        table.add_row(*row.values())
    console.print(table)
