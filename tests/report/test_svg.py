import re

from redlinebench.report._palette import ink_on, ramp
from redlinebench.report._svg import ForestRow, Series, forest, grouped_bars, heatmap


def _rects(svg: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'(\w[\w-]*)="([^"]*)"', m)) for m in re.findall(r"<rect([^>]*)>", svg)]


def test_bar_heights_are_proportional_to_scores():
    svg = grouped_bars(["Turn 1", "Turn 2"], [Series("m", "#0072B2", [0.5, 1.0])], title="t", plot_height=200)
    bars = [r for r in _rects(svg) if r.get("fill") == "#0072B2"]
    assert [float(b["height"]) for b in bars] == [100.0, 200.0]
    assert "<title>m · Turn 1: 50.0</title>" in svg


def test_missing_values_are_marked_not_drawn_and_labels_escaped():
    svg = grouped_bars(["<b>cat</b>"], [Series("<script>", "#111111", [None])], title="<t>")
    assert "n/a" in svg and "<script>" not in svg and "&lt;script&gt;" not in svg  # single series: no legend
    assert "&lt;b&gt;cat&lt;/b&gt;" in svg and "<title>&lt;t&gt;</title>" in svg
    assert not [r for r in _rects(svg) if r.get("fill") == "#111111"]


def test_forest_draws_ci_whiskers_at_the_right_place():
    svg = forest([ForestRow("m", 0.5, [0.25, 0.75], "#0072B2")], title="lb", width=464)
    # label width 120 (min), right margin 64 -> plot 280 px from x=120: 0.25 -> 190, 0.75 -> 330
    assert 'd="M190 ' in svg and "H330" in svg
    assert ">50.0<" in svg


def test_heatmap_cells_use_the_ramp_and_hatch_empty_cells():
    svg = heatmap(["S1"], ["T1", "T2"], [[0.9, None]], title="h")
    hatch = re.search(r'<pattern id="(hatch-[0-9a-f]{10})"', svg).group(1)
    assert f'fill="{ramp(0.9)}"' in svg and f'fill="url(#{hatch})"' in svg and ">90<" in svg
    assert hatch not in heatmap(["S2"], ["T1", "T2"], [[0.9, None]], title="h")  # unique per chart
    assert ink_on(0.9) == "#FFFFFF" and ink_on(0.1) == "#1B1B1B"
    assert ramp(0) == "#F7F4EA" and ramp(1) == "#083D77" and ramp(2) == ramp(1)


def test_summary_chart_for_notebooks():
    import pytest

    from redlinebench.errors import ConfigError
    from redlinebench.report import summary_chart

    summary = {"leaderboard": [{"model": "a", "overall_turn_weighted": 0.5, "ci": [0.4, 0.6], "by_turn": {"2": 0.25, "1": 0.75}},
                               {"model": "b", "overall_turn_weighted": None, "by_turn": {"1": 0.5}}]}
    overall = summary_chart(summary)
    assert overall._repr_svg_().startswith("<svg") and ">50.0<" in overall and "no score" in overall
    by_turn = summary_chart(summary, "by_turn")
    assert by_turn.index("Turn 1") < by_turn.index("Turn 2") and "<title>a · Turn 1: 75.0</title>" in by_turn
    assert "<title>b · Turn 2" not in by_turn and "n/a" in by_turn
    with pytest.raises(ConfigError, match="unknown chart 'by_moon'"):
        summary_chart(summary, "by_moon")


def _luminance(hex_colour: str) -> float:
    c = [int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def test_heatmap_numbers_are_readable_on_every_cell_colour():
    """The number printed in a heatmap cell keeps a WCAG contrast of at least 4:1 against the cell at every value
    (white text switched on at 0.62 gave 2.4:1 on the mid blues). 4.2:1 is the most this ramp allows with two inks."""
    from redlinebench.report._palette import ink_on, ramp

    worst = 99.0
    for i in range(101):
        a, b = _luminance(ink_on(i / 100)), _luminance(ramp(i / 100))
        worst = min(worst, (max(a, b) + 0.05) / (min(a, b) + 0.05))
    assert worst >= 4.0, worst
