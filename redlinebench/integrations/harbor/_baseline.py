"""``reproduce --baseline``: a delta table against an earlier summary, ours or the public release's.

Both write a ``metrics_summary.json`` whose rows carry ``overall_turn_weighted`` (0-1) and the
``by_turn`` / ``by_side_turn_weighted`` / ``by_category`` breakdowns (SPEC §6); the public release
may also hold one model's summary at the top level, or a bare list of rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ...scoring import redline_overall


def summary_rows(data: Any) -> dict[str, dict[str, Any]]:
    """``{model: row}`` from our metrics_summary.json (``leaderboard`` rows) or the public release's shapes:
    a list of rows, or one model's summary with ``overall_turn_weighted`` at the top level."""
    if isinstance(data, Mapping) and isinstance(data.get("leaderboard"), list):
        rows = data["leaderboard"]
    elif isinstance(data, list):
        rows = data
    elif isinstance(data, Mapping) and "overall_turn_weighted" in data:
        rows = [data]
    else:
        raise ConfigError("not a metrics summary (no leaderboard rows and no overall_turn_weighted)")
    out: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(rows):
        if isinstance(row, Mapping) and isinstance(row.get("overall_turn_weighted"), (int, float)):
            out[str(row.get("model") or row.get("model_name") or f"row {i + 1}")] = dict(row)
    if not out:
        raise ConfigError("the summary has no row with a numeric overall_turn_weighted")
    return out


def _flat(row: Mapping[str, Any]) -> dict[str, float]:
    """The comparable numbers of a row, as (label -> value in 0..1)."""
    out = {"overall": float(row["overall_turn_weighted"])}
    for key, prefix in (("by_turn", "turn "), ("by_side_turn_weighted", "side "), ("by_category", "")):
        part = row.get(key)
        if isinstance(part, Mapping):
            for name, value in part.items():
                if isinstance(value, Mapping):
                    value = value.get("mean", value.get("score"))
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    out[f"{prefix}{name}"] = float(value)
    return out


def baseline_delta(ours: Any, baseline: Any) -> list[dict[str, Any]]:
    """Rows ``{model, baseline_model, metric, ours, baseline, delta}`` (points, 0-100) for each model of our
    run against the baseline's model of the same name, or its only model when names differ."""
    mine, theirs = summary_rows(ours), summary_rows(baseline)
    rows = []
    for model, row in mine.items():
        other = model if model in theirs else (next(iter(theirs)) if len(theirs) == 1 else None)
        if other is None:
            continue
        a, b = _flat(row), _flat(theirs[other])
        for metric in [m for m in a if m in b]:
            # points as the leaderboard writes them (one formula: scoring's redline_overall)
            rows.append({"model": model, "baseline_model": other, "metric": metric,
                         "ours": redline_overall(a[metric]), "baseline": redline_overall(b[metric]),
                         "delta": redline_overall(a[metric] - b[metric])})
    return rows


def read_baseline(path: Path) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read the baseline summary: {getattr(exc, 'strerror', None) or exc}",
                          path=path) from None
    try:
        summary_rows(data)
    except ConfigError as exc:
        raise ConfigError(str(exc), path=path) from None
    return data
