"""The pages as a reader gets them: headless Chromium, no console errors, no fetches, not blank."""

from __future__ import annotations

import pytest

from redlinebench.report import write_comparison, write_run_report

from .browser import Chromium, png_stats
from .runfixture import MODELS, TASKS

pytestmark = pytest.mark.chromium

COMMON = {
    "text": "document.body.innerText",
    "scripts": "document.scripts.length",
    "pwned": "typeof window.__pwned",
    "svgs": "document.querySelectorAll('svg.chart').length",
}


def _assert_clean(result, *, min_height: int) -> None:
    assert result.errors == []
    assert [u for u in result.requests if not u.startswith("file://")] == []
    assert result.values["scripts"] == 1 and result.values["pwned"] == "undefined"
    stats = png_stats(result.screenshot)
    assert stats["width"] == 320 and stats["height"] >= min_height // 4
    assert stats["variance"] > 1000 and 0.03 < stats["ink"] < 0.8, stats  # neither blank nor a solid block


async def test_run_report_in_chromium(chromium, run_dir):
    page = write_run_report(run_dir)
    sort_js = """(() => { const t = document.querySelector('#tasks table'); const th = [...t.tHead.rows[0].cells]
        .find(c => c.textContent === 'Reward'); th.click(); th.click();
        return [...t.tBodies[0].rows].map(r => r.cells[6].textContent.trim()); })()"""
    golden_js = """new Promise(res => { const d = document.querySelector('details.trial'); d.closest('details.task').open = true;
        d.open = true; setTimeout(() => { const s = d.querySelector('[data-golden]');
        if (!s) { res(null); return; }
        const r = s.querySelectorAll('input[type=radio]');
        res([s.getAttribute('data-filled'), s.querySelectorAll('.rl-doc').length, r.length ? r[0].name : null]); }, 200); })"""
    async with Chromium(chromium) as browser:
        modes_js = """(() => { const doc = document.querySelector('details.trial .rl-doc');
            const visible = () => [...doc.querySelectorAll('.rl-p')].filter(p => p.offsetParent !== null).length;
            const dels = () => [...doc.querySelectorAll('del')].filter(d => d.offsetParent !== null).length;
            const all = [visible(), dels()];
            doc.querySelector('input.rl-mode-changes').click(); const changes = visible();
            doc.querySelector('input.rl-mode-final').click(); const final = [visible(), dels()];
            doc.querySelector('input.rl-mode-all').click();
            return [all, changes, final]; })()"""
        result = await browser.open(page, evaluate={**COMMON, "sorted": sort_js, "golden": golden_js, "modes": modes_js},
                                    scale=0.25)
    _assert_clean(result, min_height=2500)
    text = result.values["text"]
    assert "84.8" in text and "42.5" in text and "95% CI" in text
    for task_id in TASKS:
        assert task_id in text
    for model in MODELS:
        assert model in text  # the hostile model name shows as text
    assert result.values["svgs"] >= 6
    rewards = [float(x) for x in result.values["sorted"]]
    assert rewards == sorted(rewards, reverse=True) and rewards[0] == 100.0
    (all_paras, all_dels), changes, (final_paras, final_dels) = result.values["modes"]
    assert all_dels == 3 and final_dels == 0 and final_paras == all_paras  # "Final" hides deletions, keeps every clause
    assert 0 < changes < all_paras  # "Changes only" keeps the edited and commented clauses
    if result.values["golden"] is not None:  # the engine read the golden: it is copied beside the trial, ids made unique
        filled, docs, name = result.values["golden"]
        assert filled == "1" and docs == 1 and name.endswith("-g")


async def test_comparison_in_chromium(chromium, run_dir, run_b, tmp_path):
    page = write_comparison([run_dir, run_b], tmp_path / "compare.html")
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={
            **COMMON, "rows": "document.querySelectorAll('#leaderboard tbody tr').length",
            "heat": "document.querySelectorAll('#rubrics td.h').length"}, scale=0.25)
    _assert_clean(result, min_height=2000)
    assert result.values["rows"] == 5 and result.values["heat"] > 0
    assert "80.0" in result.values["text"] and "85.8" in result.values["text"]


async def test_the_checks_themselves_can_fail(chromium, tmp_path):
    """A blank page with a script error and a fetch must trip every detector used above."""
    page = tmp_path / "blank.html"
    page.write_text("<!DOCTYPE html><html><body><script>missingFunction()</script>"
                    "<img src='http://192.0.2.1/x.png' width=1 height=1></body></html>")
    async with Chromium(chromium) as browser:
        result = await browser.open(page, width=1280, height=600, scale=0.25)
    assert any("missingFunction" in e for e in result.errors)
    assert any(u.startswith("http://192.0.2.1/") for u in result.requests)
    stats = png_stats(result.screenshot)
    assert stats["variance"] < 1 and stats["ink"] == 0


async def test_packed_report_expands_documents_when_opened(chromium, run_dir, tmp_path):
    page = write_run_report(run_dir, tmp_path / "packed.html", pack=True)
    open_js = """new Promise(res => { const d = document.querySelector('details.trial'); d.closest('details.task').open = true;
        d.open = true; setTimeout(() => res([d.querySelectorAll('.rl-doc').length, d.querySelectorAll('.packed').length,
        d.querySelector('.rl-doc ins') ? d.querySelector('.rl-doc ins').textContent : null]), 500); })"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={**COMMON, "opened": open_js}, scale=0.25)
    assert result.errors == [] and result.values["pwned"] == "undefined"
    docs, still_packed, first_ins = result.values["opened"]
    assert docs == 2 and first_ins  # the model's redline and the golden copied beside it, both expanded
    assert still_packed == 2  # the annotated view and the transcript stay packed until their sections are opened


async def test_task_table_filter(chromium, run_dir):
    page = write_run_report(run_dir)
    js = """(() => { const box = document.querySelector('input.filter'); box.value = 'gate failed';
        box.dispatchEvent(new Event('input')); const rows = [...document.querySelectorAll('#task-table tbody tr')];
        const shown = rows.filter(r => !r.hidden).map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent);
        box.value = ''; box.dispatchEvent(new Event('input'));
        return [shown, rows.filter(r => !r.hidden).length]; })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={"filtered": js}, full_page=False, scale=0.25)
    assert result.errors == []
    shown, after_clear = result.values["filtered"]
    assert shown == [f"redline-s1-t2-g01a {MODELS[1]}"] and after_clear == 13


# Everything a reader can open, opened, then how wide the page is. Wide tables may scroll inside their
# own .tablewrap; the page itself must not, and no redline may cut off its own content (.rl-doc clips).
NARROW_JS = """new Promise(res => { document.querySelectorAll('details').forEach(d => { d.open = true; });
    setTimeout(() => res([document.documentElement.scrollWidth, window.innerWidth,
        [...document.querySelectorAll('.rl-doc')].filter(d => d.scrollWidth > d.clientWidth)
            .map(d => d.querySelector('.rl-label').textContent)]), 800); })"""


@pytest.mark.parametrize("width", [375, 320])
async def test_pages_fit_a_phone_screen(chromium, run_dir, run_b, tmp_path, width):
    pages = [write_run_report(run_dir), write_comparison([run_dir, run_b], tmp_path / "compare.html")]
    async with Chromium(chromium) as browser:
        for page in pages:
            result = await browser.open(page, width=width, height=800, full_page=False,
                                        evaluate={"closed": "[document.documentElement.scrollWidth, window.innerWidth]",
                                                  "opened": NARROW_JS})
            assert result.errors == []
            scroll_width, inner_width = result.values["closed"]
            assert inner_width == width and scroll_width <= inner_width, (page.name, result.values["closed"])
            scroll_width, inner_width, clipped = result.values["opened"]
            assert scroll_width <= inner_width and clipped == [], (page.name, result.values["opened"])
