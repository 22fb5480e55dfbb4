"""A minimal self-contained report.html, used when ``redlinebench.report`` is not available."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from .atomic import write_text


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return html.escape(str(value))


def _shown_path(value: Any) -> str:
    """A data folder as a shared page may name it: an absolute path keeps only its folder name."""
    if not value or value == "embedded":
        return ""
    path = Path(str(value))
    return f"…/{path.name}" if path.is_absolute() else str(value)


def write_minimal_report(run_dir: Path, summary: dict[str, Any] | None, config: dict[str, Any]) -> Path:
    rows = []
    for entry in (summary or {}).get("leaderboard", []):
        otw = entry.get("overall_turn_weighted")
        ci = entry.get("ci") or [None, None]
        rows.append(
            "<tr><td>{}</td><td>{}</td><td>{} - {}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
                html.escape(str(entry.get("model"))),
                "-" if otw is None else f"{100 * otw:.1f}",
                "-" if ci[0] is None else f"{100 * ci[0]:.1f}", "-" if ci[1] is None else f"{100 * ci[1]:.1f}",
                _fmt(entry.get("n_trials")), _fmt(entry.get("n_gate_failures")),
                html.escape(", ".join(f"{k}: {100 * v:.1f}" for k, v in (entry.get("by_turn") or {}).items()
                                      if isinstance(v, (int, float)))),
            )
        )
    run = (summary or {}).get("run", {})
    errors = "".join(f"<li>{html.escape(str(e.get('model')))} / {html.escape(str(e.get('task_id')))} "
                     f"trial {e.get('trial')}: {html.escape(str(e.get('error'))[:300])}</li>"
                     for e in run.get("errors", []))
    data = config.get("data", {})
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>redlinebench run {html.escape(str(config.get('spec', {}).get('run_id')))}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:70em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left}}th{{background:#f3f3f3}}</style></head>
<body><h1>redlinebench run {html.escape(str(config.get('spec', {}).get('run_id')))}</h1>
<p>Data: {html.escape(str(data.get('kind')))} {html.escape(_shown_path(data.get('path')))}, {data.get('n_tasks')} tasks,
fingerprint <code>{html.escape(str(data.get('fingerprint')))}</code>. Judges: {html.escape(str(config.get('judges', {}).get('spec')))}
(method {html.escape(str((summary or {}).get('judge_method')))}).</p>
<table><tr><th>model</th><th>redline_overall</th><th>95% CI</th><th>trials</th><th>gate failures</th><th>by turn</th></tr>
{''.join(rows) or '<tr><td colspan="6">not scored (judges: none)</td></tr>'}</table>
{f'<h2>Errors</h2><ul>{errors}</ul>' if errors else ''}
</body></html>
"""
    out = run_dir / "report.html"
    write_text(out, page)
    return out
