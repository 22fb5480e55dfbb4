"""The ``playbook`` baseline (arena's offline player): moves toward Preferred, concedes to Fallback when the
other side holds, never past Walk-away, closes when every issue is at Fallback or better; a legitimate player."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from redlinebench.agent import create_agent
from redlinebench.agent.baselines import playbook_plan
from redlinebench.docx import RedlineDocument
from redlinebench.docx.integrity import audit
from redlinebench.judge import gate, judge_deal
from redlinebench.synthetic import PACKAGED_DIR
from redlinebench.tasks import load_tasks

RANK = {"walk_away": 0, "inside": 1, "fallback": 2, "preferred": 3}


@pytest.fixture(scope="module")
def tasks():
    return load_tasks(PACKAGED_DIR)


async def _move(task, source: Path, workdir: Path):
    """One move of ``task``'s side on ``source``: (output path, episode, new tracked changes by the author)."""
    workdir.mkdir(parents=True)
    mover = dataclasses.replace(task, contract_path=source)
    episode = await create_agent("playbook").run(mover, workdir, trial=1)
    out = workdir / "redline.docx"
    before = {r.id for r in RedlineDocument.open(source).revisions if r.author == task.author}
    new = [r for r in RedlineDocument.open(out).revisions if r.author == task.author and r.id not in before]
    report = audit(RedlineDocument.open(source), RedlineDocument.open(out), task.author)
    assert report.passed and not report.findings, report.to_dict()
    assert gate(out, task.author, original=Path(source)).passed
    return out, episode, new


async def _levels(task, docx: Path) -> dict[str, str]:
    return {v.issue: v.level for v in (await judge_deal(task, docx, judges="heuristic")).issues}


async def test_first_move_pushes_every_issue_toward_preferred(tasks, tmp_path) -> None:
    vendor = tasks.get("redline-s1-t1-g01a")
    out, episode, new = await _move(vendor, vendor.contract_path, tmp_path / "m1")
    assert episode.status == "completed" and new
    before, after = await _levels(vendor, vendor.contract_path), await _levels(vendor, out)
    assert after["Payment terms"] == "preferred" and before["Payment terms"] == "walk_away"
    assert all(RANK[after[i]] >= RANK[before[i]] for i in before)
    assert all(level != "walk_away" for level in after.values())
    out_doc = RedlineDocument.open(out)
    notes = [c.text for c in out_doc.comments if c.author == vendor.author]
    assert any(n.startswith("AgentCo proposes its position on Payment terms: Net 30") for n in notes)
    transcript = [json.loads(x) for x in (tmp_path / "m1" / "transcript.jsonl").read_text().splitlines()]
    assert any(e.get("type") == "tool" and e.get("name") == "propose_edits" for e in transcript)


async def test_it_concedes_to_fallback_when_the_other_side_holds(tasks, tmp_path) -> None:
    vendor, customer = tasks.get("redline-s1-t1-g01a"), tasks.get("redline-s1-t2-g01a")
    m1, _, _ = await _move(vendor, vendor.contract_path, tmp_path / "m1")
    m2, _, _ = await _move(customer, m1, tmp_path / "m2")          # LargeCo pushes its own Preferred back
    assert (await _levels(vendor, m2))["Payment terms"] == "walk_away"
    plan = playbook_plan(dataclasses.replace(vendor, contract_path=m2), RedlineDocument.open(m2))
    assert ("Payment terms", "fallback") in plan["moves"] and not plan["close"]
    m3, _, new = await _move(vendor, m2, tmp_path / "m3")
    assert new and (await _levels(vendor, m3))["Payment terms"] == "fallback"
    notes = [c.text for c in RedlineDocument.open(m3).comments if c.author == vendor.author]
    assert any(n.startswith("As a compromise on Payment terms, AgentCo can agree to this: Net 45-60") for n in notes)


async def test_it_closes_with_comments_only_when_every_issue_is_fallback_or_better(tasks, tmp_path) -> None:
    customer, template = tasks.get("redline-s1-t2-g01a"), tasks.get("redline-s1-t1-g01a").contract_path
    # LargeCo's own template puts every LargeCo issue at Preferred: nothing to move, so it closes
    out, episode, new = await _move(customer, template, tmp_path / "close")
    assert new == [] and episode.metrics["playbook"]["close"]
    comments = [c for c in RedlineDocument.open(out).comments if c.author == customer.author]
    assert comments and "ready to sign" in comments[-1].text
    # and it does not close while an issue is still short of Fallback
    vendor = tasks.get("redline-s1-t1-g01a")
    assert not playbook_plan(vendor, RedlineDocument.open(vendor.contract_path))["close"]


@pytest.mark.parametrize("scenario", [2, 3])
async def test_two_playbook_players_close_without_a_breach(tasks, tmp_path, scenario) -> None:
    first, second = tasks.get(f"redline-s{scenario}-t1-g01a"), tasks.get(f"redline-s{scenario}-t2-g01a")
    source = Path(first.contract_path)
    for move in range(1, 9):
        mover = first if move % 2 else second
        before = await _levels(mover, source)
        out, _, new = await _move(mover, source, tmp_path / f"m{move}")
        after = await _levels(mover, out)
        assert all(RANK[after[i]] >= RANK[before[i]] for i in before)   # never worse for the mover
        source = out
        if not new:
            break
    else:
        pytest.fail("no close within 8 moves")
    for side in (first, second):
        deal = await judge_deal(side, out, judges="heuristic")
        assert not deal.breach and deal.utility >= 0.5


def test_registered_by_name() -> None:
    agent = create_agent("playbook")
    assert agent.name == agent.label == "playbook"


def test_graded_as_a_run_agent_on_turn_one_tasks(tmp_path) -> None:
    from redlinebench.runner import RunSpec, run
    from redlinebench.runner.spec import Entrant

    spec = RunSpec(entrants=(Entrant("playbook"), Entrant("accept-all")), source=str(PACKAGED_DIR),
                   judges="heuristic", run_id="pb", turn=1)
    run(spec, tmp_path / "run", progress=False)
    summary = json.loads((tmp_path / "run" / "metrics_summary.json").read_text())
    scores = {e["model"]: e for e in summary["leaderboard"]}
    assert scores["playbook"]["n_gate_failures"] == 0
    assert scores["playbook"]["overall_turn_weighted"] > scores["accept-all"]["overall_turn_weighted"]
