"""Charts of a ``metrics_summary.json`` for notebooks and other pages (inline SVG, no matplotlib)."""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import ConfigError
from ._components import SIDE_NAMES, ModelColours, ci_pair
from ._html import is_number
from ._svg import ForestRow, Series, forest, grouped_bars

DIMENSIONS = {
    "by_turn": ("Turn", lambda k: f"Turn {k}"),
    "by_side_turn_weighted": ("Side", lambda k: SIDE_NAMES.get(k, f"Side {k}")),
    "by_scenario_turn_weighted": ("Scenario", lambda k: f"Scenario {k}"),
    "by_category": ("Rubric category", lambda k: k),
}


class SVGChart(str):
    """SVG markup that Jupyter displays as a picture (``_repr_svg_``) and pages can inline."""

    def _repr_svg_(self) -> str:
        return str(self)


def summary_chart(summary: Mapping[str, Any], by: str = "overall") -> SVGChart:
    """Chart the leaderboard of *summary*: ``overall`` (scores with 95% CIs) or one of
    ``by_turn``, ``by_side_turn_weighted``, ``by_scenario_turn_weighted``, ``by_category``."""
    board = [e for e in summary.get("leaderboard") or [] if isinstance(e, dict)]
    colours = ModelColours(str(e.get("model")) for e in board)
    if by == "overall":
        rows = [ForestRow(str(e.get("model")), e.get("overall_turn_weighted") if is_number(e.get("overall_turn_weighted")) else None,
                          ci_pair(e), colours(str(e.get("model")))) for e in board]
        return SVGChart(forest(rows, title="redline_overall with 95% confidence intervals"))
    if by not in DIMENSIONS:
        raise ConfigError(f"unknown chart {by!r}: use overall, {', '.join(DIMENSIONS)}")
    title, label = DIMENSIONS[by]
    keys: list[str] = []
    for e in board:
        for k in (e.get(by) or {}):
            if str(k) not in keys:
                keys.append(str(k))
    keys.sort(key=lambda k: (not k.isdigit(), int(k) if k.isdigit() else 0, k))
    series = [Series(str(e.get("model")), colours(str(e.get("model"))),
                     [(e.get(by) or {}).get(k) if is_number((e.get(by) or {}).get(k)) else None for k in keys]) for e in board]
    return SVGChart(grouped_bars([label(k) for k in keys], series, title=f"{title}: score (0-100) per model"))
