"""Near-identical long model names and the phone layout, in headless Chromium (issue 18 items 4 and 9).

Set ``REDLINEBENCH_SHOTS=<dir>`` to keep the screenshots for a look.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from redlinebench.report import write_comparison, write_run_report

from .browser import Chromium, png_stats
from .runfixture import MODELS, PLAN, build_run

pytestmark = pytest.mark.chromium

NEAR = ["anthropic/claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5-20250514", "openai/gpt-4o-mini"]

# every chart label, as the browser lays it out: its text without the hover title, and whether its box leaves the
# chart (text cut off at the SVG's edge is a label the reader cannot read)
CHART_LABELS_JS = """(() => [...document.querySelectorAll('svg.chart')].map(svg => {
    const s = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].map(t => {
        const b = t.getBoundingClientRect(); const title = t.querySelector('title');
        const shown = title ? t.textContent.slice(title.textContent.length) : t.textContent;
        return [shown, title ? title.textContent : null,
                b.left >= s.left - 0.5 && b.right <= s.right + 0.5 && b.top >= s.top - 0.5 && b.bottom <= s.bottom + 0.5];
    }); }))()"""

# point labels of the cost scatter that overlap another (two entries at one spot must both stay legible)
SCATTER_OVERLAP_JS = """(() => { const out = []; document.querySelectorAll('#cost svg.chart').forEach(svg => {
    const boxes = [...svg.querySelectorAll('text')].filter(t => t.previousElementSibling &&
        t.previousElementSibling.tagName === 'circle').map(t => [t.textContent, t.getBoundingClientRect()]);
    boxes.forEach(([a, r], i) => boxes.slice(i + 1).forEach(([b, q]) => {
        if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) out.push([a, b]); })); });
    return out; })()"""

REWARD_JS = """(() => { document.getElementById('tasks').scrollIntoView();
    const table = document.getElementById('task-table'); const box = e => { const r = e.getBoundingClientRect();
        return [r.left, r.right]; };
    const th = [...table.tHead.rows[0].cells].find(c => c.textContent === 'Reward');
    return {head: box(th), cells: [...table.tBodies[0].rows].slice(0, 20).map(r => box(r.cells[th.cellIndex])),
            width: window.innerWidth, scroll: document.documentElement.scrollWidth}; })()"""


@pytest.fixture
def near_runs(tmp_path: Path, bench: Path) -> tuple[Path, Path]:
    plan = {m: {k: v[:1] for k, v in PLAN[MODELS[i % 2]].items()} for i, m in enumerate(NEAR)}
    a = build_run(tmp_path / "runs", bench=bench, plan=plan, run_id="run-a")
    b = build_run(tmp_path / "runs", bench=bench, plan={NEAR[0]: plan[NEAR[0]], NEAR[2]: plan[NEAR[2]]}, run_id="run-b")
    write_run_report(b)
    return a, b


def _keep(name: str, png: bytes) -> None:
    where = os.environ.get("REDLINEBENCH_SHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        (Path(where) / name).write_bytes(png)


def _check_labels(charts: list, full_names: list[str]) -> None:
    assert charts, "no charts"
    for labels in charts:
        assert [s for s, _title, inside in labels if not inside] == [], labels     # nothing runs off a chart
        assert [s for s, title, _ in labels if "…" in s and not title] == [], labels   # a cut label names its whole
        named = {}
        for shown, title, _ in labels:
            full = title or shown
            if full in full_names:
                named.setdefault(shown, set()).add(full)
        assert all(len(v) == 1 for v in named.values()), named                     # no label stands for two names


async def test_near_identical_long_names_stay_distinct_in_chromium(chromium, near_runs, tmp_path):
    a, b = near_runs
    report = write_run_report(a)
    compare = write_comparison([a, b], tmp_path / "compare.html")
    entries = [f"{NEAR[0]} [run-a]", f"{NEAR[0]} [run-b]", f"{NEAR[2]} [run-a]", f"{NEAR[2]} [run-b]", NEAR[1]]
    async with Chromium(chromium) as browser:
        for page, names in ((report, NEAR), (compare, entries)):
            for width in (1280, 390):
                result = await browser.open(page, width=width, height=1400, full_page=False,
                                            evaluate={"labels": CHART_LABELS_JS,
                                                      "heads": "[...document.querySelectorAll('th.rot')].map(t => "
                                                               "[t.textContent, t.title, t.scrollHeight <= t.clientHeight])",
                                                      "overlaps": SCATTER_OVERLAP_JS})
                assert result.errors == []
                _check_labels(result.values["labels"], names)
                heads = result.values["heads"]
                assert len({t for t, _, _ in heads}) == len({title for _, title, _ in heads})    # one header per entry
                assert [t for t, _, whole in heads if not whole] == []                          # and not cut by CSS
                assert result.values["overlaps"] == []
                stats = png_stats(result.screenshot)
                assert stats["variance"] > 1000, stats
                _keep(f"{page.stem}-{width}.png", result.screenshot)
    if page is compare:
        assert {title for _, title, _ in heads} == set(entries)


async def test_the_reward_column_stays_on_a_390px_phone_screen(chromium, near_runs):
    page = write_run_report(near_runs[0])
    async with Chromium(chromium) as browser:
        result = await browser.open(page, width=390, height=800, full_page=False, evaluate={"reward": REWARD_JS})
    assert result.errors == []
    r = result.values["reward"]
    assert r["width"] == 390 and r["scroll"] <= 390, r
    for left, right in [r["head"], *r["cells"]]:
        assert 0 <= left and right <= r["width"], r
    _keep("tasks-390.png", result.screenshot)


# Issue 26 items 1 and 2: every column of the wide tables is on screen at 1280 px (nothing left past the table's
# own scroll box), a compare row is one or two lines high with its run id on one line, and at 390 px a table
# scrolls in its own box while the page itself never gets wider than the screen.
COLUMNS_JS = """((sel) => { const t = document.querySelector(sel); const wrap = t.closest('.tablewrap').getBoundingClientRect();
    const line = parseFloat(getComputedStyle(document.body).lineHeight);
    return {cut: [...t.tHead.rows[0].cells].filter(c => c.getBoundingClientRect().right > wrap.right + 0.5)
                    .map(c => c.textContent),
            overflow: t.closest('.tablewrap').scrollWidth - t.closest('.tablewrap').clientWidth,
            line: line, rows: [...t.tBodies[0].rows].map(r => r.getBoundingClientRect().height),
            names: [...t.querySelectorAll('td.model bdi')].map(b => [b.textContent, b.getBoundingClientRect().height]),
            runs: [...t.querySelectorAll('.rid')].map(s => [s.textContent, s.title, s.getBoundingClientRect().height,
                                                           s.scrollWidth > s.clientWidth]),
            charts: [...document.querySelectorAll('svg.chart')].filter(c => c.getBoundingClientRect().width > 0)
                        .map(c => c.getBoundingClientRect().width / c.width.baseVal.value),
            page: document.documentElement.scrollWidth}; })"""

LONG_RUN = "2026-12-02T10-31-00-nightly-panel-of-three-judges-on-the-full-benchmark"


@pytest.fixture
def wide_pages(tmp_path: Path, bench: Path) -> tuple[Path, Path]:
    plan = {m: {k: v[:1] for k, v in PLAN[MODELS[i % 2]].items()} for i, m in enumerate(NEAR)}
    a = build_run(tmp_path / "runs", bench=bench, plan=plan, run_id=LONG_RUN)
    b = build_run(tmp_path / "runs", bench=bench, plan={NEAR[0]: plan[NEAR[0]], "accept-all": plan[NEAR[2]]}, run_id="run-b")
    write_run_report(b)
    return write_run_report(a), write_comparison([a, b], tmp_path / "compare.html")


async def test_every_column_shows_at_1280px_and_nothing_widens_the_page_at_390px(chromium, wide_pages):
    report, compare = wide_pages
    async with Chromium(chromium) as browser:
        for page, table in ((compare, "#leaderboard table"), (report, "#task-table")):
            for width in (1280, 390):
                result = await browser.open(page, width=width, height=900, full_page=False,
                                            evaluate={"m": f"({COLUMNS_JS})({table!r})"})
                assert result.errors == []
                m = result.values["m"]
                assert m["page"] <= width, (page.name, width, m["page"])               # the page never scrolls sideways
                _keep(f"wide-{page.stem}-{width}.png", result.screenshot)
                if width == 390:   # a chart keeps its size and scrolls in its figure: shrunk, its labels were a blur
                    assert m["charts"] and min(m["charts"]) > 0.99, m["charts"]
                if width == 1280:
                    assert m["cut"] == [] and m["overflow"] <= 0, (page.name, m["cut"], m["overflow"])
                    # a model name wraps after a "/" at most, never inside a part ("accept-" "all")
                    assert m["names"] and all(h <= (name.count("/") + 1) * m["line"] + 1 for name, h in m["names"]), m["names"]
                if table == "#leaderboard table" and width == 1280:
                    # model name and run line: two lines of text and the cell's padding at most
                    assert max(m["rows"]) <= 2 * m["line"] + 12, m["rows"]
                    for text, title, height, cut in m["runs"]:
                        assert height <= m["line"] + 1 and title == text, (text, height)   # one line, whole on hover
                    assert any(cut and text.startswith(LONG_RUN[:4]) for text, _, _, cut in m["runs"])
