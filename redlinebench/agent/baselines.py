"""Reference agents that need no model and no network.

* ``noop``: hands the input back unchanged. It fails the validity gate by construction: the floor.
* ``accept-all``: leaves every outstanding change of the other side in place, replies "Accepted."
  on each of their open threads and adds one closing comment: what a party that wants to sign
  now would do.
* ``golden``: the attorney redline, re-attributed to the task's author string so the gate and
  the judges see it as the agent's work: an upper bound where a golden exists. Tasks without a
  golden (accept-only turns) fall back to ``accept-all``, and the trial's metrics say so.
"""

from __future__ import annotations

import io
import shutil
import time
import zipfile
from pathlib import Path
from typing import Any

from .base import REDLINE, TRANSCRIPT, Episode, agent
from .transcript import Transcript

ACCEPTED_REPLY = "Accepted."


def _closing_text(task: Any) -> str:
    return (
        f"{task.represented_party} accepts {task.counterparty}'s outstanding changes in this draft and has "
        "no further comments. We are ready to sign."
    )


def _base_metrics() -> dict[str, Any]:
    return {"steps": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": 0.0, "cost_known": True,
            "model_latency_s": 0.0, "retries": 0, "tool_calls": {}, "tool_errors": 0,
            "edits_ok": 0, "edits_failed": 0}


@agent("noop")
class NoopAgent:
    name = "noop"
    label = "noop"

    def __init__(self, **_: Any) -> None:
        pass

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        with Transcript(workdir / TRANSCRIPT) as log:
            log.write({"type": "start", "task_id": task.task_id, "agent": self.name, "trial": trial})
            shutil.copyfile(task.contract_path, workdir / REDLINE)
            log.write({"type": "end", "status": "completed", "end_reason": "baseline",
                       "note": "input returned unchanged"})
        return Episode("completed", "baseline", _base_metrics())


def accept_all(doc: Any, task: Any, log: Transcript | None = None) -> dict[str, int]:
    """Reply "Accepted." on each open thread of another author and add one closing comment.

    A thread is theirs when another author started it, and open when it is not resolved and its
    last word is not already ours. Returns counts for the metrics.
    """
    comments = list(doc.comments)
    parent = {c.id: c.parent for c in comments}

    def root(cid: str) -> str:
        seen = set()
        while parent.get(cid) and cid not in seen:  # a reply to a reply still belongs to the root
            seen.add(cid)
            cid = parent[cid]
        return cid

    last_author: dict[str, str] = {}
    for c in comments:  # document order: a thread's later replies come after its root
        last_author[root(c.id)] = c.author
    replies = 0
    for c in comments:
        if (c.parent is None and c.author != task.author and not c.resolved
                and last_author.get(c.id) != task.author):
            new_id = doc.add_comment(author=task.author, text=ACCEPTED_REPLY, reply_to=c.id)
            replies += 1
            if log is not None:
                log.write({"type": "action", "action": "reply", "reply_to": c.id, "comment_id": new_id,
                           "text": ACCEPTED_REPLY})
    target = next((p for p in doc.paragraphs if p.text.strip()), None)
    if target is None:
        target = doc.paragraphs[0]
    closing_id = doc.add_comment(author=task.author, text=_closing_text(task), paragraph_id=target.id)
    if log is not None:
        log.write({"type": "action", "action": "comment", "paragraph_id": target.id, "comment_id": closing_id,
                   "text": _closing_text(task)})
    return {"replies": replies, "comments_added": replies + 1}


@agent("accept-all")
class AcceptAllAgent:
    name = "accept-all"
    label = "accept-all"

    def __init__(self, **_: Any) -> None:
        pass

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        from ..docx import RedlineDocument

        metrics = _base_metrics()
        with Transcript(workdir / TRANSCRIPT) as log:
            log.write({"type": "start", "task_id": task.task_id, "agent": self.name, "trial": trial})
            doc = RedlineDocument.open(task.contract_path, name=f"{task.task_id}/contract.docx")
            counts = accept_all(doc, task, log)
            doc.save(workdir / REDLINE)
            metrics["tool_calls"] = {"add_comment": counts["comments_added"]}
            metrics["accept_all"] = counts
            log.write({"type": "end", "status": "completed", "end_reason": "baseline"})
        return Episode("completed", "baseline", metrics)


@agent("golden")
class GoldenAgent:
    name = "golden"
    label = "golden"

    def __init__(self, **_: Any) -> None:
        pass

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        from ..docx import RedlineDocument

        metrics = _base_metrics()
        golden_path = getattr(task, "golden_path", None)
        with Transcript(workdir / TRANSCRIPT) as log:
            log.write({"type": "start", "task_id": task.task_id, "agent": self.name, "trial": trial})
            if golden_path is None or not Path(golden_path).is_file():
                doc = RedlineDocument.open(task.contract_path, name=f"{task.task_id}/contract.docx")
                counts = accept_all(doc, task, log)
                doc.save(workdir / REDLINE)
                metrics["golden"] = {"available": False, "fallback": "accept-all",
                                     "note": "this task has no attorney redline; the accept-all baseline stands in"}
                metrics["accept_all"] = counts
                log.write({"type": "end", "status": "completed", "end_reason": "baseline",
                           "note": "no golden redline: accept-all fallback"})
                return Episode("completed", "baseline", metrics)
            t0 = time.perf_counter()
            data, new_authors, method = golden_output(task)
            out = workdir / REDLINE
            out.write_bytes(data)
            metrics["golden"] = {"available": True, "reattributed_authors": new_authors, "method": method,
                                 "seconds": round(time.perf_counter() - t0, 4)}
            metrics["golden_integrity"] = golden_integrity(task, data)
            log.write({"type": "action", "action": "golden", "reattributed_authors": new_authors,
                       "to": task.author})
            log.write({"type": "end", "status": "completed", "end_reason": "baseline"})
        return Episode("completed", "baseline", metrics)


def golden_output(task: Any) -> tuple[bytes, list[str], str]:
    """The attorney redline as the golden baseline submits it: (docx bytes, the authors whose
    markup became the task author's, the method). The task must have a golden."""
    from ..docx import RedlineDocument

    golden_path = task.golden_path
    source = RedlineDocument.open(task.contract_path, name=f"{task.task_id}/contract.docx")
    golden = RedlineDocument.open(golden_path, name=f"{task.task_id}/attorney_redlines.docx")
    before = {r.author for r in source.revisions} | {c.author for c in source.comments}
    after = {r.author for r in golden.revisions} | {c.author for c in golden.comments}
    new_authors = sorted(a for a in after - before if a and a != task.author)
    data = Path(golden_path).read_bytes()
    method = "by_author"
    if new_authors:
        data = reattribute(data, {a: task.author for a in new_authors})
    elif task.author not in after:
        # The attorney's name already occurs in the input (one attorney wrote several turns):
        # tell this turn's markup from the earlier turns' element by element instead.
        method = "by_element"
        data, moved = reattribute_new_elements(data, Path(task.contract_path).read_bytes(), task.author)
        new_authors = moved
    if new_authors:
        RedlineDocument.open(data, name=f"{task.task_id}/golden (re-attributed)")  # still a valid docx
    return data, new_authors, method


def golden_integrity(task: Any, data: bytes | None = None) -> dict[str, Any]:
    """The integrity audit (SPEC §5.1) of the task's golden against its input: a golden made in
    Word may carry an untracked change, a data defect the golden baseline's report names.
    ``grade.json``'s ``integrity`` shape, or ``{"skipped": reason}`` when it cannot be run."""
    from ..docx import RedlineDocument
    from ..docx.integrity import audit
    from ..errors import RedlineBenchError

    try:
        if data is None:
            data = golden_output(task)[0]
        source = RedlineDocument.open(task.contract_path, name=f"{task.task_id}/contract.docx")
        output = RedlineDocument.open(data, name=f"{task.task_id}/golden")
    except RedlineBenchError as exc:
        return {"skipped": f"cannot open: {exc.problem}"}
    return audit(source, output, task.author).to_dict()


# -- re-attribution -------------------------------------------------------------------------

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W15 = "http://schemas.microsoft.com/office/word/2012/wordml"
_AUTHOR_ATTRS = (f"{{{W}}}author", f"{{{W15}}}author", f"{{{W15}}}userId")


def reattribute(docx: bytes, mapping: dict[str, str]) -> bytes:
    """Rewrite author attributes in every WordprocessingML part of ``docx`` (bytes in, bytes out).

    Only ``w:author`` (revisions, comments), ``w15:author`` and ``w15:userId`` (people.xml) change;
    entry order, compression and every other byte of the package stay as they were. People entries
    that become duplicates are dropped so Word does not list one author twice.
    """
    from lxml import etree

    from ..docx.oxml.parser import hardened_parser

    parser = hardened_parser()
    src = zipfile.ZipFile(io.BytesIO(docx))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.startswith("word/") and info.filename.endswith(".xml") and b"author" in data:
                root = etree.fromstring(data, parser)
                changed = False
                for el in root.iter():
                    for attr in _AUTHOR_ATTRS:
                        value = el.get(attr)
                        if value in mapping:
                            el.set(attr, mapping[value])
                            changed = True
                if changed and info.filename == "word/people.xml":
                    seen: set[str] = set()
                    for person in list(root):
                        author = person.get(f"{{{W15}}}author")
                        if author in seen:
                            root.remove(person)
                        seen.add(author)
                if changed:
                    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            dst.writestr(info, data)
    return buf.getvalue()


def _element_key(el: Any) -> tuple:
    """What identifies one tracked change or comment across two versions of a document: its kind,
    author, date and its own text (text of revisions nested inside it is theirs, not its)."""
    own = []
    for t in el.iter(f"{{{W}}}t", f"{{{W}}}delText", f"{{{W}}}instrText"):
        holder = t.getparent()
        while holder is not None and holder.get(f"{{{W}}}author") is None:
            holder = holder.getparent()
        if holder is el:
            own.append(t.text or "")
    return (el.tag, el.get(f"{{{W}}}author"), el.get(f"{{{W}}}date"), "".join(own))


def reattribute_new_elements(golden: bytes, source: bytes, author: str) -> tuple[bytes, list[str]]:
    """Give ``author`` every authored element of ``golden`` that the input ``source`` does not have.

    Elements are matched by kind, author, date and own text, as a multiset, part by part. Returns
    the new bytes and the authors that were replaced.
    """
    from collections import Counter

    from lxml import etree

    from ..docx.oxml.parser import hardened_parser

    parser = hardened_parser()
    author_attr = f"{{{W}}}author"
    with zipfile.ZipFile(io.BytesIO(source)) as zs:
        before = {n: zs.read(n) for n in zs.namelist() if n.startswith("word/") and n.endswith(".xml")}
    replaced: set[str] = set()
    src = zipfile.ZipFile(io.BytesIO(golden))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            name = info.filename
            if name.startswith("word/") and name.endswith(".xml") and name != "word/people.xml" and b"author" in data:
                root = etree.fromstring(data, parser)
                known: Counter = Counter()
                if name in before:
                    old_root = etree.fromstring(before[name], parser)
                    known.update(_element_key(el) for el in old_root.iter() if el.get(author_attr) is not None)
                changed = False
                for el in list(root.iter()):
                    if el.get(author_attr) is None:
                        continue
                    key = _element_key(el)
                    if known[key] > 0:
                        known[key] -= 1
                    elif el.get(author_attr) != author:
                        replaced.add(el.get(author_attr))
                        el.set(author_attr, author)
                        changed = True
                if changed:
                    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            dst.writestr(info, data)
    return buf.getvalue(), sorted(replaced)


# -- playbook: an offline negotiator for the arena ------------------------------------------

_PROPOSE = "{party} proposes its position on {issue}: {position}."
_CONCEDE = "As a compromise on {issue}, {party} can agree to this: {position}."
_LEVEL_RANK = {"walk_away": 0, "inside": 1, "fallback": 2, "preferred": 3}


def _proposed_preferred(comments: list[str], party: str, issue: str) -> bool:
    marker = _PROPOSE.format(party=party, issue=issue, position="")[:-1]
    return any(text.startswith(marker) for text in comments)


def playbook_plan(task: Any, live_doc: Any) -> dict[str, Any]:
    """What the playbook agent does on ``live_doc`` for ``task``'s side (pure: nothing is written).

    Per issue of the side's positions table (the embedded set's ``tests/positions.json``): the
    level the agreed text (every pending revision accepted) puts it at; when every issue is at
    Fallback or better it closes. Otherwise an issue not at Preferred is moved to Preferred the
    first time; once the side has proposed Preferred and the other side changed it back (its own
    comment says so), an issue below Fallback is moved to Fallback and one at Fallback is held.
    A move is taken only when no issue of the side ends worse, so nothing is ever moved past
    Walk-away. Returns ``{"close": bool, "levels": {...}, "moves": [(issue, level)], "clauses":
    {number: text}}``.
    """
    from ..docx import RedlineDocument
    from ..tasks._positions import apply_move, clause_paragraphs, load_headings, load_issue_tests

    tests = load_issue_tests(task)
    agreed = RedlineDocument.open(live_doc.to_bytes(), name=f"{task.task_id}/agreed")
    agreed.accept()
    state = clause_paragraphs(agreed.paragraphs, load_headings(task))
    levels = {t.issue: t.place(state)[0] for t in tests}
    plan: dict[str, Any] = {"close": False, "levels": dict(levels), "moves": [], "clauses": {}}
    if all(_LEVEL_RANK[v] >= _LEVEL_RANK["fallback"] for v in levels.values()):
        plan["close"] = True
        return plan
    mine = [c.text for c in live_doc.comments if c.author == task.author]
    party = task.represented_party
    for t in tests:
        level = levels[t.issue]
        if level == "preferred":
            continue
        held = _proposed_preferred(mine, party, t.issue)
        if not held and "preferred" in t.moves:
            targets = ["preferred", "fallback"]
        elif _LEVEL_RANK[level] < _LEVEL_RANK["fallback"]:
            targets = ["fallback", "preferred"]
        else:
            continue   # at Fallback after the other side held against Preferred: concede here
        for target in targets:
            move = t.moves.get(target)
            if not move:
                continue
            candidate = apply_move(state, move)
            now = {u.issue: u.place(candidate)[0] for u in tests}
            if now[t.issue] != target or any(_LEVEL_RANK[now[i]] < _LEVEL_RANK[levels[i]] for i in levels
                                              if i != t.issue):
                continue
            state, levels = candidate, now
            plan["moves"].append((t.issue, target))
            for number in move:
                plan["clauses"][number] = t.issue   # the last issue that set the clause explains it
            break
    own: dict[str, str] = {}   # the first entry of a number is the clause's own paragraph
    for number, text in state:
        own.setdefault(number, text)
    plan["clauses"] = {n: (own[n], issue) for n, issue in plan["clauses"].items()}
    return plan


@agent("playbook")
class PlaybookAgent:
    """Negotiates from its side's positions table (embedded set): see :func:`playbook_plan`.

    Every change goes through the tools (``propose_edits`` / ``add_comment``) under the task's
    author, one tracked replacement per clause with a comment naming the position, so its
    moves pass the integrity audit as any agent's must. A closing move is comments only: a reply
    "Accepted." on each open thread of the other side and one closing comment.
    """

    name = "playbook"
    label = "playbook"

    def __init__(self, **_: Any) -> None:
        pass

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        from ..tasks._positions import load_headings, template_numbers
        from .episode import open_episode

        with open_episode(task, workdir, trial=trial, agent=self.name) as ep:
            doc = ep.session.doc
            plan = playbook_plan(task, doc)
            paragraphs = doc.paragraphs
            numbers = template_numbers(paragraphs, load_headings(task))
            own: dict[str, Any] = {}   # template clause number -> its paragraph in the live document
            for number, p in zip(numbers, paragraphs):
                if number and p.number and not p.in_table:
                    own.setdefault(number, p)
            ep.transcript.write({"type": "note", "text": "playbook plan", "levels": plan["levels"],
                                 "moves": plan["moves"], "close": plan["close"]})
            rows = {row.issue: row for row in _positions_of(task)}
            moved = {issue: level for issue, level in plan["moves"]}
            edits = []
            for number, (text, issue) in sorted(plan["clauses"].items(), key=lambda kv: _clause_key(kv[0])):
                para = own.get(number)
                if para is None or " ".join(para.text.split()) == " ".join(text.split()):
                    continue
                template = _PROPOSE if moved[issue] == "preferred" else _CONCEDE
                position = rows[issue].preferred if moved[issue] == "preferred" else rows[issue].fallback
                edits.append({"op": "replace", "anchor": {"paragraph_id": para.id, "text": para.text},
                              "new_text": text, "comment": template.format(party=task.represented_party,
                                                                           issue=issue, position=position)})
            applied = 0
            if edits and not plan["close"]:
                result = ep.call("propose_edits", {"edits": edits})
                applied = int(result.get("applied", 0)) if isinstance(result, dict) else 0
            if applied == 0:
                counts = accept_all(doc, task, ep.transcript)
                ep.session.record_edits(0, 0, comments=counts["comments_added"])
                ep.extra["accept_all"] = counts
            ep.extra["playbook"] = {"close": applied == 0, "levels": plan["levels"], "moves": plan["moves"],
                                    "edits_applied": applied}
            ep.end_reason = "baseline"
            ep.call("end_session", {"summary": "closing: every issue at fallback or better" if applied == 0
                                    else f"{applied} clause(s) moved toward the playbook"})
        return ep.episode()


def _positions_of(task: Any) -> list:
    from ..tasks import positions

    return positions(task)


def _clause_key(number: str) -> tuple[int, ...]:
    return tuple(int(x) for x in number.split(".") if x.isdigit())
