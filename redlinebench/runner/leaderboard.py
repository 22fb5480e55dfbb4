"""The leaderboard printed at the end of ``run`` and ``demo``."""

from __future__ import annotations

from typing import Any

from .._termtable import Col, print_fitted, print_message, wide_enough


def _pct(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) else f"{100 * value:.1f}"


def judging_incomplete(summary: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The summary's rows of trials whose episode finished but whose judging did not."""
    rows = (summary or {}).get("incomplete") or []
    return [r for r in rows if isinstance(r, dict) and r.get("status") == "judging_incomplete"]


def judging_incomplete_lines(rows: list[dict[str, Any]], limit: int = 5) -> list[str]:
    """One line per such trial (the first ``limit``), as ``run`` and ``score`` print them."""
    return [f"  judging incomplete: {r.get('model')} {r.get('task_id')} trial {r.get('trial')}: {r.get('reason')}"
            for r in rows[:limit]]


#: The integrity audit's counts (SPEC §5.1): fatal findings fail the gate, flags are graded but shown.
INTEGRITY_COLUMNS = (("n_integrity_failures", "integrity fail"), ("n_integrity_flags", "integrity flags"))


def leaderboard_rows(summary: dict[str, Any]) -> list[dict[str, str]]:
    """One row per model, scores as 0-100 with one decimal (``redline_overall`` convention)."""
    rows = []
    entries = summary.get("leaderboard", [])
    # shown only when some trial has them: most runs never do, and the table is wide already
    integrity_cols = [(key, label) for key, label in INTEGRITY_COLUMNS if any(e.get(key) for e in entries)]
    for e in entries:
        # no scored cell: the summary's [0.0, 0.0] placeholder is not an interval
        ci = e.get("ci") if e.get("overall_turn_weighted") is not None and e.get("ci") else [None, None]
        by_turn = e.get("by_turn") or {}
        by_side = e.get("by_side_turn_weighted") or {}
        row = {"model": str(e.get("model")), "redline_overall": _pct(e.get("overall_turn_weighted")),
               "95% CI": "-" if ci[0] is None else f"{_pct(ci[0])}-{_pct(ci[1])}"}
        for t in ("1", "2", "3", "4"):
            row[f"T{t}"] = _pct(by_turn.get(t))
        for side in ("A", "B"):
            row[f"side {side}"] = _pct(by_side.get(side))
        row["trials"] = str(e.get("n_trials", "-"))
        row["gate fail"] = str(e.get("n_gate_failures", "-"))
        for key, label in integrity_cols:
            row[label] = str(e.get(key) or 0)
        row["incomplete"] = str(e.get("n_incomplete", 0))
        row["judge"] = str(e.get("judge_method") or "-")
        rows.append(row)
    return rows


#: The leaderboard's columns, as :func:`leaderboard_rows` names them: what goes first at a narrow
#: width (the judge, already in the title; incomplete and the gate; sides; trials) and the short headers.
LEADERBOARD_COLUMNS = (
    Col("model", "left", shrink=True, min_width=12),
    Col("redline_overall", short="overall"),
    Col("95% CI"),
    *(Col(f"T{t}", drop=1) for t in "1234"),  # the last to go, together: before a model name is split
    Col("side A", drop=5, short="A"), Col("side B", drop=5, short="B"),
    Col("trials", drop=4, short="n"),
    Col("gate fail", drop=3, short="gate"),
    Col("integrity fail", drop=2, short="integ"), Col("integrity flags", drop=2, short="flags"),
    Col("incomplete", drop=6, short="inc"),
    Col("judge", "left", drop=7),
)


def print_leaderboard(summary: dict[str, Any], console: Any = None) -> None:
    """The one leaderboard table, for ``run``, ``demo``, ``score`` and ``summarize``: fitted to the
    terminal (an 80-column one keeps the model, the headline, its interval and the turns; a model
    name too long for all of them on one line keeps the name whole and leaves out the turns)."""
    from rich.console import Console

    console = console or Console()
    rows = leaderboard_rows(summary)
    if not rows:
        print_message(console, "no graded trials")
        return
    method = summary.get("judge_method")
    partial = "" if (summary.get("grid") or {}).get("complete", True) else ", partial grid"
    title = "redline_overall (0-100)" + (f", judges: {method}" if method else "") + partial
    # the integrity columns are in the rows only when some model has findings
    columns = [c for c in LEADERBOARD_COLUMNS if c.name in rows[0]]
    print_fitted(console, columns, [[r[c.name] for c in columns] for r in rows], title=title,
                 more="--json has all")
    notes = [f"{e.get('model')}: {e['grid_note']}" for e in summary.get("leaderboard", []) if e.get("grid_note")]
    grid_note = (summary.get("grid") or {}).get("note")
    for note in notes or ([grid_note] if grid_note else []):  # each model's missing cells, by name
        print_message(wide_enough(console), note)
    for line in integrity_lines(summary):
        print_message(wide_enough(console), line, style="red")


def integrity_lines(summary: dict[str, Any]) -> list[str]:
    """One line per model whose trials the integrity audit failed or flagged (none when clean)."""
    lines = []
    for e in summary.get("leaderboard", []):
        failed, flagged = e.get("n_integrity_failures") or 0, e.get("n_integrity_flags") or 0
        if failed or flagged:
            lines.append(f"{e.get('model')}: integrity audit: {failed} trial(s) failed the gate on a fatal finding, "
                         f"{flagged} graded with flags (see each grade.json's 'integrity')")
    return lines
