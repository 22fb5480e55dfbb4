"""The pages of a real run (golden, accept-all and noop on the embedded set, heuristic judge) at
390 px and 1280 px (issue 31 item 7): measured in headless Chromium, plus what the HTML says.

Set ``REDLINEBENCH_SHOTS=<dir>`` to keep full-page screenshots for a look.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import html as lxml_html

from redlinebench.cli import main
from redlinebench.report import write_comparison

from .browser import Chromium

# a table in the contract (s2-t1), penalty rubrics the golden avoids, noop failing every gate
TASKS = "redline-s1-t1-g01a,redline-s2-t1-g01a,redline-s3-t4-g01a"


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pages")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(main, ["run", "--agent", "golden", "--agent", "accept-all", "--agent", "noop",
                                       "--source", "embedded", "--tasks", TASKS, "--judges", "heuristic",
                                       "--run-dir", str(root / "run"), "--no-progress"])
    assert result.exit_code == 0, result.output
    write_comparison([root / "run"], root / "compare.html")
    return root


def _tree(page: Path):
    return lxml_html.fromstring(page.read_text(encoding="utf-8"))


# --- what the pages say (no browser) ---------------------------------------------------------------

def test_an_avoided_penalty_reads_as_avoided_with_its_reason(real_run):
    tree = _tree(real_run / "run" / "report.html")
    avoided = [b for b in tree.xpath("//span[contains(@class,'badge')]") if b.text_content() == "FAIL · avoided"]
    assert avoided and all("b-pass" in b.get("class") for b in avoided)
    # the reason is text on the page, beside the panel's badge, not only a hover title
    panels = tree.xpath("//td[@class='panel'][span[contains(.,'avoided')]]")
    assert panels and all("penalty not incurred" in td.text_content() for td in panels)
    assert not [b for b in tree.xpath("//span[@class='badge b-na']") if b.text_content() == "FAIL"]


def test_a_model_failing_every_gate_scores_nothing_in_the_category_views(real_run):
    for page in (real_run / "run" / "report.html", real_run / "compare.html"):
        tree = _tree(page)
        fig = next(f for f in tree.xpath("//figure") if "By rubric category" in f.xpath("string(./figcaption)"))
        caption = fig.xpath("string(./figcaption)")
        assert "counts as all wrong" in caption and "noop 3 of 3" in caption
        noop = next(tr for tr in fig.xpath(".//details//tbody/tr") if tr.xpath("string(./td[1])").strip() == "noop")
        assert [td.text_content() for td in noop.xpath("./td")[1:]] == ["0.0"] * (len(noop.xpath("./td")) - 1)
        golden = next(tr for tr in fig.xpath(".//details//tbody/tr") if tr.xpath("string(./td[1])").strip() == "golden")
        assert any(float(td.text_content()) > 50 for td in golden.xpath("./td")[1:])


def test_one_judge_is_not_called_unanimous(real_run):
    text = _tree(real_run / "run" / "report.html").xpath("string(//section[@id='diagnostics'])")
    assert "unanimous" not in text and "One judge (heuristic)" in text and "no panel" in text


def test_the_redline_viewer_keeps_a_table_as_a_table(real_run):
    tree = _tree(real_run / "run" / "report.html")
    rows = tree.xpath("//div[contains(@class,'rl-tr')]")
    assert rows
    first = rows[0].xpath(".//div[@class='rl-td']")
    assert len(first) == 2 and "Monthly availability" in first[0].text_content()
    assert "Service credit" in first[1].text_content()


# --- measured in Chromium ----------------------------------------------------------------------------

# every visible element whose box passes the viewport's right edge without a scrolling ancestor to hold it
OVERFLOW_JS = """(() => { const W = window.innerWidth, out = [];
  const scrolls = e => { for (let a = e.parentElement; a; a = a.parentElement) {
      const s = getComputedStyle(a); if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) return true; }
    return false; };
  for (const e of document.body.querySelectorAll('*')) { const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > W + 1 && !scrolls(e)) out.push(e.tagName + '.' + e.className + ' ' + Math.round(r.right)); }
  return {offenders: out.slice(0, 10), scroll: document.documentElement.scrollWidth, width: W}; })()"""

# the leaderboard chart as a phone shows it: each value label and bar right edge against the viewport
FOREST_JS = """(() => { const svg = [...document.querySelectorAll('svg.chart')].find(s => s.getBoundingClientRect().width > 0
      && s.getAttribute('aria-label').startsWith('redline_overall'));
  const texts = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect().right]);
  const bars = [...svg.querySelectorAll('rect')].map(r => r.getBoundingClientRect().right);
  return {texts, bars, width: window.innerWidth}; })()"""

# every shown scenario x turn heatmap: its column labels and whether each is on screen
HEATMAP_JS = """(() => [...document.querySelectorAll('svg.chart')].filter(s => s.getBoundingClientRect().width > 0
      && s.getAttribute('aria-label').includes('scenario × turn')).map(s => [...s.querySelectorAll('text')]
      .filter(t => /^Turn \\d$/.test(t.textContent)).map(t => [t.textContent, t.getBoundingClientRect().right <= window.innerWidth]))
  )()"""

# the first task's rubric table opened: each panel verdict cell on screen; the key-value numbers on one line
RUBRIC_JS = """(() => { const d = document.querySelector('details.task'); d.open = true;
  d.querySelectorAll('details').forEach(x => x.open = true);
  const cells = [...d.querySelectorAll('td.panel')].map(td => { const r = td.getBoundingClientRect();
      return [td.textContent.slice(0, 30), r.width > 0 && r.left >= 0 && r.right <= window.innerWidth]; });
  const lines = e => { const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT); let most = 0;
      for (let n = walk.nextNode(); n; n = walk.nextNode()) { const range = document.createRange(); range.selectNodeContents(n);
        most = Math.max(most, new Set([...range.getClientRects()].map(r => Math.round(r.top))).size); }
      return most; };  // the lines of its longest-wrapped text: "0/./0/%" down a narrow column is 4
  const numbers = [...d.querySelectorAll('.kv dd, td.num')].filter(e => e.textContent.trim().length <= 12
      && e.getBoundingClientRect().width > 0).map(e => [e.textContent.trim(), lines(e)]);
  return {cells, numbers}; })()"""

# compare.html's leaderboard at a phone's width: each model's headline score whole and on screen
SCORES_JS = """(() => { const table = document.querySelector('#leaderboard table');
  const col = [...table.tHead.rows[0].cells].findIndex(c => c.textContent === 'redline_overall');
  return [...table.tBodies[0].rows].map(r => { const c = r.cells[col]; const b = c.getBoundingClientRect();
    return [c.textContent.trim(), b.left >= 0 && b.right <= window.innerWidth && c.scrollWidth <= c.clientWidth + 1]; }); })()"""

# every link of the sticky nav: where its target lands, against the nav's bottom edge
ANCHOR_JS = """(() => { const nav = document.querySelector('nav.toc'); const out = [];
  for (const a of nav.querySelectorAll('a[href^="#"]')) { const t = document.getElementById(a.getAttribute('href').slice(1));
    if (!t) continue; t.scrollIntoView({block: 'start'});
    const room = document.documentElement.scrollHeight - window.scrollY - window.innerHeight;
    out.push([a.textContent, Math.round(t.getBoundingClientRect().top), Math.round(nav.getBoundingClientRect().bottom), room > 1]); }
  return out; })()"""


def _keep(name: str, png: bytes) -> None:
    where = os.environ.get("REDLINEBENCH_SHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        (Path(where) / name).write_bytes(png)


@pytest.mark.chromium
async def test_the_pages_fit_a_phone(chromium, real_run):
    report, compare = real_run / "run" / "report.html", real_run / "compare.html"
    async with Chromium(chromium) as browser:
        for page in (report, compare):
            result = await browser.open(page, width=390, height=844, evaluate={"o": OVERFLOW_JS, "f": FOREST_JS,
                                                                             "h": HEATMAP_JS, "a": ANCHOR_JS})
            _keep(f"{page.stem}-390.png", result.screenshot)
            assert result.errors == []
            o = result.values["o"]
            assert o["offenders"] == [] and o["scroll"] <= o["width"], o   # only scroll containers run past the edge
            f = result.values["f"]
            values = [(t, right) for t, right in f["texts"] if re.fullmatch(r"\d+\.\d", t)]
            assert len(values) == 3, f                                         # one value per model
            assert all(right <= f["width"] for _, right in values), f        # golden's value on screen
            assert all(right <= f["width"] for right in f["bars"]), f         # and its bar
            heat = result.values["h"]
            assert heat and all([t for t, _ in h] == ["Turn 1", "Turn 2", "Turn 3", "Turn 4"] and all(v for _, v in h)
                                for h in heat), heat
            for name, top, nav_bottom, room in result.values["a"]:
                if room:  # a section the page can scroll to the top lands below the sticky nav, not under it
                    assert top >= nav_bottom - 1, (page.name, name, top, nav_bottom)
        scores = (await browser.open(compare, width=390, height=844, evaluate={"s": SCORES_JS})).values["s"]
        assert len(scores) == 3 and all(re.fullmatch(r"\d+\.\d", t) and ok for t, ok in scores), scores
        result = await browser.open(report, width=390, height=844, evaluate={"r": RUBRIC_JS})
        r = result.values["r"]
        assert r["cells"] and all(ok for _, ok in r["cells"]), r["cells"]    # PASS/FAIL on screen for every rubric
        assert r["numbers"] and all(n == 1 for _, n in r["numbers"]), [x for x in r["numbers"] if x[1] != 1]


@pytest.mark.chromium
async def test_the_pages_at_desktop_width(chromium, real_run):
    js = """(() => { const row = document.querySelector('.rl-tr'); const cells = [...row.querySelectorAll('.rl-td')]
        .map(c => c.getBoundingClientRect());
      const why = [...document.querySelectorAll('.why')].map(e => e.getBoundingClientRect().width);
      return {same_line: cells.length === 2 && Math.abs(cells[0].top - cells[1].top) < 1 && cells[1].left > cells[0].right - 2,
              why}; })()"""
    async with Chromium(chromium) as browser:
        for page in (real_run / "run" / "report.html", real_run / "compare.html"):
            result = await browser.open(page, width=1280, height=900, evaluate={"o": OVERFLOW_JS})
            _keep(f"{page.stem}-1280.png", result.screenshot)
            assert result.errors == [] and result.values["o"]["offenders"] == [], result.values["o"]
        before = "document.querySelectorAll('details').forEach(d => d.open = true)"
        result = await browser.open(real_run / "run" / "report.html", width=1280, height=900, full_page=False,
                                    evaluate={"open": before, "v": js})
        v = result.values["v"]
        assert v["same_line"]                              # a table row's cells side by side, not one per line
        assert v["why"] and all(w > 0 for w in v["why"])   # the reason a penalty was avoided is on screen
