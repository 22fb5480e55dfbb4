"""Rubric ids are listed in natural order (k2 before k10) wherever a page lists them (issue 26 item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redlinebench.report import write_comparison, write_run_report
from redlinebench.report._html import natural_key

from .browser import Chromium
from .htmlcheck import parse
from .runfixture import MODELS

# the fixture's ids, renamed so that the grades list them out of order and a string sort gets them wrong too
RENAME = {"r1": "k10", "r2": "k9", "r3": "k1", "r4": "k02"}
NATURAL = ["k1", "k02", "k9", "k10"]


def _rename_rubrics(run_dir: Path) -> None:
    for grade in run_dir.glob("trials/*/*/*/grade.json"):
        data = json.loads(grade.read_text())
        for row in data.get("score", {}).get("per_rubric", []):
            row["rubric_id"] = RENAME.get(row["rubric_id"], row["rubric_id"])
        grade.write_text(json.dumps(data))


@pytest.fixture
def renamed(run_dir: Path) -> Path:
    _rename_rubrics(run_dir)
    return run_dir


def test_natural_key():
    ids = ["k10", "k2", "k04", "k1", "K3", "k16", "k4", "r1", "k"]
    assert sorted(ids, key=natural_key) == ["k", "k1", "k2", "K3", "k04", "k4", "k10", "k16", "r1"]


def test_the_run_report_lists_a_trials_rubrics_in_natural_order(renamed):
    tree = parse(write_run_report(renamed))
    table = tree.xpath("//section[@id='details']//table[contains(@class,'rubrics')]")[0]
    assert [r.xpath("./td[1]")[0].text_content() for r in table.xpath("./tbody/tr")] == NATURAL


def test_the_comparison_lists_rubrics_in_natural_order(renamed, tmp_path):
    tree = parse(write_comparison([renamed], tmp_path / "c.html"))
    table = tree.xpath("//section[@id='rubrics']//details//table")[0]
    rows = [(r.xpath("./td[1]")[0].text_content(), r.xpath("./td[2]")[0].text_content()) for r in table.xpath("./tbody/tr")]
    assert [rid for task, rid in rows if task == "redline-s1-t1-g01a"] == NATURAL
    assert [task for task, _ in rows] == sorted((task for task, _ in rows), key=natural_key)


@pytest.mark.chromium
async def test_sorting_a_column_in_the_browser_is_natural(chromium, renamed, tmp_path):
    page = write_comparison([renamed], tmp_path / "c.html")
    js = """(() => { const t = document.querySelector('#rubrics details table');
        const th = [...t.tHead.rows[0].cells].find(c => c.textContent === 'Rubric'); const out = [];
        for (const _ of [0, 1]) { th.click(); out.push([...t.tBodies[0].rows].filter(r => r.cells[0].textContent ===
            'redline-s1-t1-g01a').map(r => r.cells[th.cellIndex].textContent)); }
        return out; })()"""
    async with Chromium(chromium) as browser:
        result = await browser.open(page, evaluate={"sorted": js}, full_page=False)
    assert result.errors == []
    up, down = result.values["sorted"]
    assert up == NATURAL and down == NATURAL[::-1]
