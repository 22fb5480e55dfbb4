"""What a report says about a floor baseline and about a run in which nothing was scored (issue 18 items 7, 8)."""

from __future__ import annotations

import json
from pathlib import Path

from redlinebench.report import write_run_report

from .htmlcheck import parse, text
from .runfixture import MODELS, PLAN, build_run, slug


def _callouts(tree, cls: str) -> list[str]:
    return [c.text_content() for c in tree.xpath(f"//section[@id='summary']//div[@class='callout {cls}']")]


def test_noop_gate_failures_are_the_floor_and_real_ones_keep_the_alarm(tmp_path: Path, bench: Path):
    plan = {"noop": {task: ["GATE"] for task in PLAN[MODELS[1]]}, MODELS[1]: PLAN[MODELS[1]]}
    run = build_run(tmp_path / "runs", bench=bench, plan=plan)
    for metrics in (run / "trials" / "noop").glob("*/*/metrics.json"):
        data = json.loads(metrics.read_text(encoding="utf-8"))
        metrics.write_text(json.dumps({**data, "agent": "noop"}), encoding="utf-8")   # what the runner records
    tree = parse(write_run_report(run))
    alarms = [c for c in _callouts(tree, "bad") if "failed the validity gate" in c]
    assert len(alarms) == 1 and alarms[0].startswith("1 trial(s)") and MODELS[1] in alarms[0] and "noop" not in alarms[0]
    floor = [c for c in _callouts(tree, "info") if "by design" in c]
    assert len(floor) == 1 and "noop (4 of 4 trials)" in floor[0]
    cards = {c.xpath(".//div[@class='model']")[0].text_content():
             dict(zip([d.text_content() for d in c.xpath(".//dt")], [d.text_content() for d in c.xpath(".//dd")]))
             for c in tree.xpath("//div[@class='card']")}
    assert cards["noop"]["gate failures"] == "4 (expected: noop)" and cards[MODELS[1]]["gate failures"] == "1"
    badges = {r.xpath("./td[2]")[0].text_content(): r.xpath("./td//span[contains(@class,'badge')]")[0]
              for r in tree.xpath("//section[@id='tasks']//tbody/tr") if "gate" in r.text_content()}
    assert "b-na" in badges["noop"].get("class") and "b-fail" in badges[MODELS[1]].get("class")


def test_a_model_named_noop_that_is_an_llm_keeps_the_alarm(tmp_path: Path, bench: Path):
    run = build_run(tmp_path / "runs", bench=bench, plan={"noop": {"redline-s1-t2-g01a": ["GATE"]}})
    metrics = next((run / "trials" / "noop").glob("*/*/metrics.json"))
    metrics.write_text(json.dumps({**json.loads(metrics.read_text()), "agent": "llm"}), encoding="utf-8")
    tree = parse(write_run_report(run))
    assert [c for c in _callouts(tree, "bad") if "failed the validity gate" in c]
    assert not [c for c in _callouts(tree, "info") if "by design" in c]


def test_a_run_whose_every_trial_errored_says_so(tmp_path: Path, bench: Path):
    run = build_run(tmp_path / "runs", bench=bench, plan={MODELS[0]: {"redline-s1-t1-g01a": PLAN[MODELS[0]]["redline-s1-t1-g01a"][:1]}},
                    summary=None)
    trial = run / "trials" / slug(MODELS[0]) / "redline-s1-t1-g01a" / "1"
    (trial / "grade.json").unlink()
    (trial / "metrics.json").write_text(json.dumps({"model": MODELS[0], "agent": "llm", "status": "errored",
                                                    "error": "InternalServerError (500): Connection error."}))
    # what the runner wrote for such a run (issue 18): no score, an n_incomplete of 1, a grid note
    summary = {"n_trials": 0, "judge_method": "heuristic", "n_incomplete": 1, "leaderboard": [
        {"model": MODELS[0], "redline_overall": None, "overall_turn_weighted": None, "ci": [0.0, 0.0], "n_trials": 0,
         "n_gate_failures": 0, "n_incomplete": 1, "n_cells": 0, "missing_cells": ["1-1"], "grid_complete": False,
         "grid_note": "0 of 12 scenario x turn cells scored; the headline is the mean of the cells present"}]}
    (run / "metrics_summary.json").write_text(json.dumps(summary), encoding="utf-8")
    tree = parse(write_run_report(run))
    body = text(tree)
    assert "Scored by the offline heuristic judge" not in body
    assert "Read the headline with care" not in body          # no headline to read
    first = tree.xpath("//section[@id='summary']//div[contains(@class,'callout')]")[0].text_content()
    assert first.startswith("Nothing was scored: the 1 trial errored") and "Connection error" in first
    sub = tree.xpath("//header//div[@class='sub']")[0].text_content()
    assert "1 trial" in sub and "1 trials" not in sub and "1 errored" in sub
    card = tree.xpath("//div[@class='card']")[0]
    assert card.xpath(".//div[@class='big']")[0].text_content() == "— not scored"
    assert dict(zip([d.text_content() for d in card.xpath(".//dt")], [d.text_content() for d in card.xpath(".//dd")]))["trials"] == "0 of 1"


def test_a_run_never_graded_says_how_to_grade_it(tmp_path: Path, bench: Path):
    run = build_run(tmp_path / "runs", bench=bench, summary=None, run_id="unscored")
    for g in run.glob("trials/**/grade.json"):
        g.unlink()
    tree = parse(write_run_report(run))
    first = tree.xpath("//section[@id='summary']//div[contains(@class,'callout')]")[0].text_content()
    assert first.startswith("Nothing was scored: all 13 trials were not graded (`redlinebench score`")
