"""Labels in charts and headers: near-identical long model names stay distinct (issue 18 item 4)."""

from __future__ import annotations

import re

from lxml import html as lhtml

from redlinebench.report._labels import short_labels
from redlinebench.report._svg import ForestRow, Point, Series, forest, grouped_bars, heatmap, scatter

NEAR = ["anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5-20250514", "openai/gpt-4o-mini"]


def _abbreviated(svg: str) -> dict[str, str]:
    """label shown -> full name in its hover title, for every abbreviated label of *svg*."""
    out = {}
    for t in lhtml.fromstring(svg).iter("text"):
        title = t.find("title")
        if title is not None:
            out[(title.tail or "").strip()] = title.text_content()
    return out


def test_short_labels_are_unique_and_keep_what_tells_names_apart():
    labels = short_labels(NEAR, 24)
    assert len(set(labels)) == 3 and labels[2] == "openai/gpt-4o-mini"  # a name that fits is kept whole
    assert all(len(lab) <= 24 for lab in labels)
    assert labels[0].endswith("20250929") and labels[1].endswith("20250514")
    assert labels[0].startswith("anthropic/") and "…" in labels[0]


def test_short_labels_two_runs_of_one_model_and_equal_names():
    names = [f"{NEAR[0]} [run-a]", f"{NEAR[0]} [run-b]", NEAR[0], NEAR[0]]
    labels = short_labels(names, 20)
    assert len(set(labels[:3])) == 3 and labels[2] == labels[3]
    assert labels[0].endswith("[run-a]") and labels[1].endswith("[run-b]")
    # a name that is a prefix of another, and a budget too small for any cut: still distinct
    assert len(set(short_labels(["ab", "abc", "abcd", "abcde"], 2))) == 4


def test_forest_abbreviates_uniquely_with_a_key_and_hover_titles():
    rows = [ForestRow(n, 0.5, (0.4, 0.6), "#123456") for n in NEAR]
    svg = forest(rows, title="t", width=300)            # 110 px of labels: no name fits
    shown = _abbreviated(svg)
    assert sorted(shown.values()) == sorted(NEAR) and all(len(lab) <= 15 for lab in shown), shown
    tree = lhtml.fromstring(svg)
    body = " ".join(tree.itertext())
    assert "Key" in body and NEAR[0] in body and NEAR[1] in body


def test_legend_shows_whole_names_and_flows_onto_rows():
    series = [Series(n, "#000", [0.5]) for n in NEAR]
    svg = grouped_bars(["Turn 1"], series, title="t", width=460)
    assert all(n in svg for n in NEAR) and "…" not in svg
    ys = {t.get("y") for t in lhtml.fromstring(svg).iter("text") if t.text_content() in NEAR}
    assert len(ys) >= 2  # three long names cannot share one row of 460 px


def test_heatmap_and_scatter_labels_stay_distinct():
    rows = [f"{NEAR[0]} [run-a]", f"{NEAR[0]} [run-b]"]
    svg = heatmap(rows, ["Legal"], [[0.5], [0.7]], title="t")
    shown = _abbreviated(svg)
    assert sorted(shown.values()) == rows and all(re.search(r"…\[run-[ab]\]$", s) for s in shown), shown
    pts = [Point(n, 0.1 * i, 0.5, "#000") for i, n in enumerate(NEAR[:2], 1)]
    svg = scatter(pts, title="t", x_label="x", x_format=str, width=320)
    assert svg.count("<title>" + NEAR[0]) >= 1 and "Key" in svg
