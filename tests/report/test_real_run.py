"""The report on a run the real runner produced: the baselines over scenario 1, turn 1 of the embedded
synthetic benchmark, scored by the heuristic judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redlinebench.report import write_comparison, write_run_report
from redlinebench.report._html import slug_id
from redlinebench.runner import Entrant, RunSpec, TaskFilter, run

from .htmlcheck import assert_safe, parse, text


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("real")
    spec = RunSpec(entrants=(Entrant("golden"), Entrant("noop"), Entrant("accept-all")), source="embedded",
                   filter=TaskFilter(scenario=1, turn=1), judges="heuristic", run_id="baselines")
    result = run(spec, root / "runs" / "baselines", progress=False)
    return result.run_dir


def test_runner_output_renders_with_tasks_goldens_and_authors(real_run):
    tree = parse(write_run_report(real_run))
    assert_safe(tree)
    summary = json.loads((real_run / "metrics_summary.json").read_text())
    cards = {c.xpath(".//div[@class='model']")[0].text_content(): c.xpath(".//div[@class='big']")[0].text_content()
             for c in tree.xpath("//div[@class='card']")}
    assert cards == {e["model"]: f"{e['redline_overall']:.1f} redline_overall" for e in summary["leaderboard"]}
    body = text(tree)
    assert "Scored by the offline heuristic judge" in body and "Task details limited" not in body
    task_ids = json.loads((real_run / "config.json").read_text())["data"]["task_ids"]
    assert len(tree.xpath("//section[@id='tasks']//tbody/tr")) == 3 * len(task_ids)
    # noop fails the gate by design: the floor, said calmly; no alarm box for it
    alarms = [t for t in tree.xpath("//section[@id='summary']//div[contains(@class,'callout bad')]")
              if "failed the validity gate" in t.text_content()]
    assert alarms == []
    floor = [t.text_content() for t in tree.xpath("//section[@id='summary']//div[contains(@class,'callout info')]")
             if "gate failures by design" in t.text_content()]
    assert len(floor) == 1 and "noop" in floor[0]
    # the golden of a task with one is rendered (by the engine) once; the accept-only task explains its absence
    golden = tree.xpath(f"//details[@id='{slug_id('golden', 'redline-s1-t1-g01a')}']//div[@class='rl-doc']")
    assert len(golden) == 1
    trial = tree.xpath(f"//details[@id='{slug_id('trial', 'golden', 'redline-s1-t1-g01a', '1')}']")[0]
    assert trial.xpath(".//div[@data-golden]")  # slot for the golden beside the model's redline
    assert "The brief the model received" in tree.xpath(f"//details[@id='{slug_id('task', 'redline-s1-t1-g01a')}']")[0].text_content()
    assert "Attorney's note" in trial.text_content()
    # this turn's author is the focus colour in the golden baseline's output
    legend = trial.xpath(".//ul[@class='rl-legend']/li")
    assert legend and "this turn" in legend[0].text_content()


def test_comparison_of_the_baselines(real_run, tmp_path):
    tree = parse(write_comparison([real_run], tmp_path / "c.html"))
    assert_safe(tree)
    assert len(tree.xpath("//section[@id='leaderboard']//tbody/tr")) == 3
    judges = tree.xpath("//section[@id='judges']")[0]
    assert [r.xpath("./td[1]")[0].text_content() for r in judges.xpath(".//tbody/tr")] == ["heuristic"]
    assert "Pairwise" not in judges.text_content()  # one judge: nothing to pair
