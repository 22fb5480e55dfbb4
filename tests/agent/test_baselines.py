"""noop, accept-all and golden on real documents (the task-tree fixture), through the engine."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from redlinebench.agent import create_agent
from redlinebench.agent.baselines import ACCEPTED_REPLY, reattribute
from redlinebench.docx import RedlineDocument
from redlinebench.tasks import load_tasks
from tests.runner.taskfixture import AGENTCO, ATTORNEY_A, ATTORNEY_B, LARGECO, build_tree


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = build_tree(tmp_path_factory.mktemp("tree"))
    return {t.task_id: t for t in load_tasks(root).tasks}


async def _run(name, task, tmp_path):
    ep = await create_agent(name).run(task, tmp_path, trial=1)
    return ep, RedlineDocument.open(tmp_path / "redline.docx")


async def test_noop_returns_the_input_byte_for_byte(tasks, tmp_path):
    task = tasks["redline-s1-t2-g02a"]
    ep, _ = await _run("noop", task, tmp_path)
    assert ep.status == "completed"
    assert (tmp_path / "redline.docx").read_bytes() == task.contract_path.read_bytes()


async def test_accept_all_replies_on_open_threads_and_closes(tasks, tmp_path):
    task = tasks["redline-s1-t2-g02a"]
    source = RedlineDocument.open(task.contract_path)
    ep, doc = await _run("accept-all", task, tmp_path)
    ours = [c for c in doc.comments if c.author == LARGECO]
    thread = next(c for c in doc.comments if c.author == AGENTCO and c.parent is None)
    replies = [c for c in ours if c.parent == thread.id]
    assert [c.text for c in replies] == [ACCEPTED_REPLY]
    closing = [c for c in ours if c.parent is None]
    assert len(closing) == 1 and "ready to sign" in closing[0].text
    # The other side's changes are all still there, and we made none of our own.
    assert [(r.type, r.author, r.text) for r in doc.revisions] == [(r.type, r.author, r.text) for r in source.revisions]
    assert ep.metrics["accept_all"] == {"replies": 1, "comments_added": 2}
    assert [f for f in doc.validate() if f.severity == "error"] == []


async def test_accept_all_on_a_clean_draft_only_closes(tasks, tmp_path):
    ep, doc = await _run("accept-all", tasks["redline-s1-t1-g01a"], tmp_path)
    assert [(c.author, c.parent) for c in doc.comments] == [(AGENTCO, None)]
    assert doc.revisions == []


async def test_golden_is_reattributed_to_the_task_author(tasks, tmp_path):
    task = tasks["redline-s1-t2-g02a"]
    ep, doc = await _run("golden", task, tmp_path)
    golden = RedlineDocument.open(task.golden_path)
    assert ep.metrics["golden"]["available"] is True
    assert ep.metrics["golden"]["reattributed_authors"] == [ATTORNEY_B]
    authors = {r.author for r in doc.revisions} | {c.author for c in doc.comments}
    assert authors == {AGENTCO, LARGECO}
    # Same markup as the attorney's, only the names differ; AgentCo's own changes keep their author.
    assert doc.text("accepted") == golden.text("accepted") and doc.text("original") == golden.text("original")
    assert [r.author for r in doc.revisions if r.type == "ins"] == [AGENTCO, AGENTCO]
    assert any(r.author == LARGECO and r.type == "del" and "indirect or" in r.text for r in doc.revisions)
    assert [f for f in doc.validate() if f.severity == "error"] == []


async def test_golden_without_an_attorney_redline_falls_back_and_says_so(tasks, tmp_path):
    task = tasks["redline-s1-t4-g03a"]
    assert task.golden_path is None
    ep, doc = await _run("golden", task, tmp_path)
    assert ep.metrics["golden"]["available"] is False and ep.metrics["golden"]["fallback"] == "accept-all"
    assert any(c.author == LARGECO and c.text == ACCEPTED_REPLY for c in doc.comments)
    events = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    assert "no golden" in events[-1]["note"]


def test_reattribute_rewrites_only_the_mapped_authors_and_dedupes_people(tasks):
    data = tasks["redline-s1-t1-g01a"].golden_path.read_bytes()
    people = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
              b'<w15:people xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml">'
              b'<w15:person w15:author="Dana Whitfield (outside counsel)"/>'
              b'<w15:person w15:author="Reviewing Counsel (AgentCo Legal)"/></w15:people>')
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            if info.filename != "word/people.xml":
                dst.writestr(info, src.read(info))
        dst.writestr("word/people.xml", people)
    out = reattribute(buf.getvalue(), {ATTORNEY_A: AGENTCO})
    with zipfile.ZipFile(io.BytesIO(out)) as z:
        assert z.read("word/people.xml").count(b"w15:person ") == 1
        assert ATTORNEY_A.encode() not in z.read("word/document.xml")
        names = [i.filename for i in z.infolist()]
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert [n for n in names if n != "word/people.xml"] == [i.filename for i in z.infolist()
                                                               if i.filename != "word/people.xml"]
    doc = RedlineDocument.open(out)
    assert {r.author for r in doc.revisions} == {AGENTCO}


def test_accept_all_answers_only_threads_whose_last_word_is_not_ours(tasks):
    from redlinebench.agent.baselines import accept_all

    task = tasks["redline-s1-t2-g02a"]
    doc = RedlineDocument.open(task.contract_path)
    thread = next(c for c in doc.comments if c.author == AGENTCO)
    doc.add_comment(author=LARGECO, text="We will consider it.", reply_to=thread.id)
    assert accept_all(doc, task)["replies"] == 0          # we spoke last
    doc = RedlineDocument.open(task.contract_path)
    doc.add_comment(author=LARGECO, text="Why?", reply_to=thread.id)
    doc.add_comment(author=AGENTCO, text="Data breaches are our main risk.", reply_to=thread.id)
    assert accept_all(doc, task)["replies"] == 1          # they answered: our turn again


async def test_golden_by_the_same_attorney_as_the_input_is_split_element_by_element(tmp_path):
    """One attorney wrote both turns: only this turn's markup becomes the task author's."""
    from datetime import datetime, timezone

    from redlinebench.docx.build import Del, DocumentBuilder, Ins
    from tests.agent.doubles import make_task

    lawyer = "A. Lawyer"
    d1, d2 = datetime(2026, 1, 1, tzinfo=timezone.utc), datetime(2026, 2, 1, tzinfo=timezone.utc)

    def contract(second_turn: bool) -> bytes:
        b = DocumentBuilder(title="MSA")
        b.clause(["Fees are due in ", Ins("fifteen", lawyer, d1), " days."])
        b.clause(["Liability is capped at ", Del("twice ", lawyer, d2) if second_turn else "twice ", "the fees."])
        return b.to_bytes()

    contract_path, golden_path = tmp_path / "in.docx", tmp_path / "golden.docx"
    contract_path.write_bytes(contract(False))
    golden_path.write_bytes(contract(True))
    task = make_task(tmp_path, contract_path=contract_path, golden_path=golden_path)
    workdir = tmp_path / "w"
    workdir.mkdir()
    ep = await create_agent("golden").run(task, workdir, trial=1)
    assert ep.metrics["golden"]["method"] == "by_element" and ep.metrics["golden"]["reattributed_authors"] == [lawyer]
    doc = RedlineDocument.open(workdir / "redline.docx")
    assert sorted((r.type, r.author) for r in doc.revisions) == [("del", task.author), ("ins", lawyer)]
