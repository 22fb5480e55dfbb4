"""Outputs of real agent runs for the audit's zero-false-positive corpus (SPEC §5.1).

A scripted model behind the loopback OpenAI-compatible fake (tests/fakes/openai_server.py)
drives ``redlinebench.runner.run`` end to end: real litellm, the real tool loop and tool
session, the engine, grading with the integrity audit. The script reads the contract as a model
does, from the ``read_document`` view alone (parsed by tests/docx/viewgrammar.py, never the
engine), and then makes a varied set of calls: replace, delete, insert_after, striking and
rewriting the other side's insertions (rejecting them), restoring text the other side deleted,
a new comment on a span, a reply, a partial read, mark_reserved, an edit of its own insertion,
end_session. Every call is legitimate, so every output must audit clean.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path

from tests.docx.viewgrammar import parse_read
from tests.fakes.openai_server import FakeOpenAI, Reply

#: one task per turn, over the three scenarios (turns 2-4 carry the other side's revisions)
TASK_IDS = ("redline-s1-t1-g01a", "redline-s2-t2-g01a", "redline-s3-t3-g01a", "redline-s1-t4-g01a",
            "redline-s3-t2-g01b")
MODEL = "scripted-redliner"
_LINE = re.compile(r"^\[(p-\d+)\] ")
_YOU = re.compile(r"^# A\d+ \(you(?:; [^)]*)?\) = (.*)$")
#: a pure deletion (not a replacement, not nested): ``{-text}A2``
_DELETION = re.compile(r"\{-([^{}+]+)\}(A\d+)")


def _view(messages: list[dict]) -> str:
    for m in messages:
        if m.get("role") == "tool" and isinstance(m.get("content"), str) and m["content"].startswith("# "):
            return m["content"]
    raise AssertionError("the script reads the document first")


def _me(view: str) -> str:
    for line in view.splitlines():
        m = _YOU.match(line)
        if m:
            return m.group(1)
    return ""


def _unique(text: str, words: list[str]) -> str | None:
    quote = " ".join(words)
    return quote if len(words) >= 2 and text.count(quote) == 1 else None


def plan(view: str) -> list[list[tuple[str, dict]]]:
    """The script's tool calls after the first read, one list per model turn, from the view alone."""
    facts = parse_read(view)
    me = _me(view)
    lines = {m.group(1): line for line in view.splitlines() if (m := _LINE.match(line))}
    changed = {pid for (_k, _a, _t, pid) in facts.revisions}
    plain = [pid for pid, text in facts.texts.items()
             if "/tb" not in pid and pid not in changed and len(text.split()) >= 8
             and "[" not in lines.get(pid, "[")[len(pid) + 3:]]
    picks = iter(plain[len(plain) // 5:] + plain[: len(plain) // 5])
    edits: list[dict] = []
    p1, p2, p3, p4, p5 = (next(picks, None) for _ in range(5))
    if p1:
        words = facts.texts[p1].split()
        edits.append({"op": "replace", "anchor": {"paragraph_id": p1, "text": " ".join(words[2:4]), "occurrence": 1},
                      "new_text": "mutually agreed", "comment": "Both parties must agree."})
    if p2:
        words = facts.texts[p2].split()
        edits.append({"op": "delete", "anchor": {"paragraph_id": p2, "text": " ".join(words[-4:-1]), "occurrence": 1},
                      "comment": "Not acceptable to us."})
    if p3:
        words = facts.texts[p3].split()
        edits.append({"op": "insert_after", "anchor": {"paragraph_id": p3, "text": " ".join(words[:3]),
                                                       "occurrence": 1},
                      "new_text": " (as amended)", "comment": "Clarified."})
    theirs = [(kind, author, text, pid) for (kind, author, text, pid) in facts.revisions
              if author != me and "/tb" not in pid and len(text.strip()) >= 3]
    insertions = [r for r in theirs if r[0] == "ins" and facts.texts.get(r[3], "").count(r[2].strip()) == 1]
    for k, (_kind, _who, text, pid) in enumerate(insertions[:2]):
        if k == 0:   # reject: strike their insertion (a w:del inside their w:ins)
            edits.append({"op": "delete", "anchor": {"paragraph_id": pid, "text": text.strip()},
                          "comment": "We reject this insertion."})
        else:        # rewrite their insertion
            edits.append({"op": "replace", "anchor": {"paragraph_id": pid, "text": text.strip()},
                          "new_text": text.strip() + " (subject to the cap)", "comment": "Narrowed."})
    used = {pid for (_k, _a, _t, pid) in insertions[:2]}
    for _kind, _who, text, pid in insertions[2:]:   # an edit spanning plain text and their insertion
        current = facts.texts[pid]
        at = current.find(text.strip())
        before = re.search(r"(?:\S+\s+){1,2}$", current[:at])
        if pid not in used and before:
            edits.append({"op": "replace", "anchor": {"paragraph_id": pid,
                                                      "text": current[before.start():at + len(text.strip())]},
                          "new_text": "as the parties agree in writing", "comment": "Reworded."})
            break
    for pid, line in lines.items():   # restore the first deletion of theirs that has plain text before it
        m = _DELETION.search(line)
        if not m or _author(view, m.group(2)) == me:
            continue
        before = line[:m.start()]
        before = re.split(r"[}>\]]", before)[-1].split()
        anchor = _unique(facts.texts[pid], before[-3:])
        if anchor:
            edits.append({"op": "insert_after", "anchor": {"paragraph_id": pid, "text": anchor},
                          "new_text": " " + m.group(1).strip(), "comment": "We restore this text."})
            break
    turns: list[list[tuple[str, dict]]] = [[("propose_edits", {"edits": edits})]]
    if p4:
        words = facts.texts[p4].split()
        turns.append([("add_comment", {"paragraph_id": p4, "span": " ".join(words[1:3]),
                                       "text": "Please explain this obligation."})])
    others = [cid for cid, (author, parent, _resolved) in facts.comments.items() if author != me and not parent]
    if others:
        turns.append([("add_comment", {"reply_to": others[0], "text": "Agreed, subject to our edits."})])
    if p1:
        turns.append([("read_document", {"start_id": p1, "end_id": p1})])
    if p5:
        turns.append([("mark_reserved", {"start_id": p5, "end_id": p5, "comment": "We delete this clause."})])
    if p3:
        turns.append([("propose_edits", {"edits": [
            {"op": "replace", "anchor": {"paragraph_id": p3, "text": "(as amended)"},
             "new_text": "(as amended from time to time)", "comment": "Clearer."}]})])
    turns.append([("end_session", {"summary": "Redlined."})])
    return turns


def _author(view: str, alias: str) -> str:
    for line in view.splitlines():
        m = re.match(rf"^# {alias}(?: \([^)]*\))? = (.*)$", line)
        if m:
            return m.group(1)
    return ""


def scripted_model(body: dict) -> Reply:
    """The fake server's handler: read first, then the plan's turns, then end_session."""
    messages = body["messages"]
    step = sum(1 for m in messages if m["role"] == "assistant")
    if step == 0:
        return Reply.tool_calls([("read_document", {})])
    turns = plan(_view(messages))
    return Reply.tool_calls(turns[min(step - 1, len(turns) - 1)])


@contextmanager
def _env(**values: str):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def scripted_llm_outputs(run_dir: Path, task_ids=TASK_IDS, *, provider: str = "openai"
                         ) -> list[tuple[str, bytes, bytes, str, dict]]:
    """Run the scripted model on ``task_ids`` (embedded set, heuristic judges) in ``run_dir``,
    over the fake's OpenAI (``provider="openai"``) or Anthropic (``"anthropic"``) route:
    (name, input bytes, output bytes, author, trial grade) per task."""
    import json

    from redlinebench.runner import Entrant, RunSpec, run
    from redlinebench.tasks import load_tasks

    tasks = {t.task_id: t for t in load_tasks("embedded") if t.task_id in task_ids}
    key = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}[provider]
    with FakeOpenAI() as srv, _env(**{key: "sk-scripted-0123456789"}):
        srv.set_handler(scripted_model)
        spec = RunSpec(entrants=(Entrant("llm", f"{provider}/{MODEL}"),), source="embedded", tasks=tuple(task_ids),
                       judges="heuristic", api_base=srv.url if provider == "openai" else srv.base_url,
                       run_id="scripted", concurrency=2)
        run(spec, run_dir, progress=False)
    out = []
    for task_id in task_ids:
        trial = run_dir / "trials" / f"{provider}_{MODEL}" / task_id / "1"
        task = tasks[task_id]
        grade = json.loads((trial / "grade.json").read_text())
        grade["metrics"] = json.loads((trial / "metrics.json").read_text())
        out.append((f"{task_id} llm-scripted ({provider})", Path(task.contract_path).read_bytes(),
                    (trial / "redline.docx").read_bytes(), task.author, grade))
    return out
