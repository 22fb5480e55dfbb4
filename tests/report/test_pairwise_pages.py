"""'Which model is better' (SPEC §6.1) on the run report and compare.html: rank bands, a matrix that
does not rely on colour alone, headlines that claim no more than the test, partial coverage named;
and in headless Chromium at desktop and phone width."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from lxml import html as lxml_html

from redlinebench.report import write_comparison, write_run_report
from redlinebench.scoring import summarize
from tests.scoring.test_pairwise import grade

from .browser import Chromium


def make_run(root: Path, means: dict[str, float], seed: int, *, partial: str | None = None,
             summary: bool = True) -> Path:
    """A graded run (trials/<model>/<task>/<trial>/grade.json): a shared task effect, per-model noise."""
    rng, grades = random.Random(seed), []
    for s in (1, 2, 3):
        for t in (1, 2, 3, 4):
            for g in (1, 2, 3):
                effect = rng.gauss(0, 0.15)
                for model, mu in means.items():
                    if model == partial and s == 3:
                        continue
                    for k in (1, 2):
                        gr = grade(model, s, t, g, min(1, max(0, mu + effect + rng.gauss(0, 0.05))), trial=k)
                        d = root / "trials" / model.replace("/", "_") / gr["task_id"] / str(k)
                        d.mkdir(parents=True, exist_ok=True)
                        (d / "grade.json").write_text(json.dumps(gr), encoding="utf-8")
                        grades.append(gr)
    if summary:
        (root / "metrics_summary.json").write_text(json.dumps(summarize(grades)), encoding="utf-8")
    return root


MEANS = {"openai/gpt-5.5": 0.47, "anthropic/claude-opus-4-8": 0.468, "noop": 0.05}


def section(page: Path):
    tree = lxml_html.fromstring(page.read_text(encoding="utf-8"))
    (sec,) = tree.xpath("//section[@id='pairwise']")
    return tree, sec


@pytest.mark.parametrize("with_summary", [True, False])  # an older summary without pairwise: computed from grades
def test_run_report_ranks_with_ties_and_never_names_a_leader_the_test_does_not(tmp_path, with_summary):
    run = make_run(tmp_path / "run", MEANS, 1, partial="noop", summary=with_summary)
    tree, sec = section(write_run_report(run))
    text = sec.text_content()
    assert "No model is ahead at the top" in text and " is ahead of " not in text
    ranks = [li.text_content() for li in sec.xpath(".//ol[@class='pw-ranks']/li")]
    assert ranks[0].startswith("1= openai/gpt-5.5, anthropic/claude-opus-4-8") and ranks[1].startswith("3 noop")
    cells = sec.xpath(".//td[contains(@class,'pw')]")
    assert len(cells) == 6
    for td in cells:  # every coloured cell also carries a mark and a word
        mark = td.xpath("./span[@class='pw-mark']")[0].text
        word = td.xpath("./span[@class='pw-word']")[0].text.strip()
        assert (mark, word) in {("▲", "better"), ("▼", "worse"), ("≈", "not distinguishable")}
        assert "background:" in td.get("style") and "adjusted p" in td.get("title")
    assert "†" in text and "in 8 cell(s); 12 group(s) graded for only one are left out" in text
    summary_text = tree.xpath("//section[@id='summary']")[0].text_content()
    assert "No model is ahead at the top" in summary_text


def test_a_clear_leader_is_named_with_its_margin(tmp_path):
    run = make_run(tmp_path / "run", {"strong": 0.7, "weak": 0.4}, 2)
    _, sec = section(write_run_report(run))
    text = sec.text_content()
    assert "strong is ahead of weak, the next model, by +2" in text  # ~30 points less clamping at 1
    assert [li.text_content() for li in sec.xpath(".//ol[@class='pw-ranks']/li")] == ["1 strong", "2 weak"]


def test_compare_page_pairs_models_of_different_runs_and_bands_its_rank_column(tmp_path):
    a = make_run(tmp_path / "a", MEANS, 3, partial="noop")
    b = make_run(tmp_path / "b", {"qwen/qwen3": 0.2}, 4)
    page = write_comparison([a, b], tmp_path / "compare.html")
    tree, sec = section(page)
    assert len(sec.xpath(".//td[contains(@class,'pw')]")) == 4 * 3
    ranks = [tr.xpath("./td")[0].text_content() for tr in tree.xpath("//section[@id='leaderboard']//table/tbody/tr")]
    assert ranks[:2] == ["1=", "1="] and "3" in ranks
    lead = tree.xpath("//section[@id='leaderboard']/p[@class='lead']")[0].text_content()
    assert "Overlapping intervals mean the ranking" not in lead and "not whether it beats another" in lead


@pytest.mark.chromium
async def test_pairwise_section_fits_desktop_and_phone(chromium, tmp_path):
    a = make_run(tmp_path / "a", {**MEANS, "a-model-with-a-very-long-name/that-goes-on-and-on-20250929": 0.3}, 5,
                 partial="noop")
    pages = [write_run_report(a), write_comparison([a], tmp_path / "compare.html")]
    js = """(() => { const s = document.getElementById('pairwise'); const m = s.querySelector('table.pw-matrix');
        const w = m.closest('.tablewrap');
        return {scroll: document.documentElement.scrollWidth, width: window.innerWidth,
                wrapRight: w.getBoundingClientRect().right, cells: s.querySelectorAll('td.pw').length,
                sectionRight: s.getBoundingClientRect().right}; })()"""
    async with Chromium(chromium) as browser:
        for page in pages:
            for width in (1280, 390):
                result = await browser.open(page, width=width, height=900, full_page=False, evaluate={"v": js})
                assert result.errors == []
                v = result.values["v"]
                assert v["scroll"] <= width, v          # nothing pushes the page sideways (the matrix scrolls inside)
                assert v["wrapRight"] <= width + 0.5 and v["sectionRight"] <= width + 0.5, v
                assert v["cells"] == 12


def test_a_damaged_pairwise_in_the_summary_loses_its_bad_rows_not_the_page(tmp_path):
    run = make_run(tmp_path / "run", MEANS, 6)
    path = run / "metrics_summary.json"
    summary = json.loads(path.read_text())
    summary["pairwise"][0]["ci"] = "wide"
    summary["pairwise"][1] = ["not", "a", "pair"]
    summary["pairwise"].append({"a": "ghost", "b": "noop", "diff": 1.0})
    summary["power"] = "lots"
    path.write_text(json.dumps(summary))
    _, sec = section(write_run_report(run))
    # pairs 1 and 2, each from both sides, and the headline, which has no top pair to speak of
    assert sec.text_content().count("not compared") == 4 + 1
    assert len(sec.xpath(".//td[contains(@class,'pw')]")) == 2


def test_a_difference_that_rounds_to_nothing_has_no_minus_sign():
    """Issue 26 (seen on the demo's comparison of two identical runs): the matrix read ≈ +0.0 one way, ≈ -0.0 the other."""
    from redlinebench.report._pairwise import _pts

    assert [_pts(x) for x in (-0.0004, -0.0, 0.0, 0.0004, -0.0006, 0.0123)] == ["+0.0", "+0.0", "+0.0", "+0.0", "-0.1", "+1.2"]


def test_every_paired_interval_shows_how_it_was_drawn(tmp_path):
    """SPEC §6.1 (amended): ``ci_method`` is said next to the interval, in every cell and in the headline."""
    run = make_run(tmp_path / "run", {"strong": 0.7, "weak": 0.4, "noop": 0.05}, 2)
    path = run / "metrics_summary.json"
    summary = json.loads(path.read_text())
    summary["pairwise"][0]["ci_method"] = "pooled"  # as a --limit run of one group per cell records it
    path.write_text(json.dumps(summary))
    _, sec = section(write_run_report(run))
    cis = [td.xpath("./span[@class='pw-ci']")[0].text_content() for td in sec.xpath(".//td[contains(@class,'pw')]")]
    assert len(cis) == 6 and all(c.startswith("95% CI ") for c in cis)
    assert sum(c.endswith(", pooled") for c in cis) == 2 and sum(c.endswith(", stratified") for c in cis) == 4
    lead = sec.xpath(".//p[@class='lead']")[0].text_content()
    assert "strong is ahead of weak" in lead and ", pooled, adjusted p" in lead
    assert "pooled: cells holding one shared group resampled from a pool" in sec.text_content()
