"""Realistic run directories for the report tests (SPEC §6 grade.json, metrics, views, redlines).

Three models (one with a hostile name), four tasks over four scenario x turn cells, two trials
for one model, a gate failure, a judge that went missing, and hostile strings in every place a
document, a model or a judge can put text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .docxfixture import Cmt, Doc, Para, write_docx

HOSTILE = '<script>window.__pwned = 1</script>'
HOSTILE_IMG = '<img src=x onerror="window.__pwned = 2">'
ME = "Reviewing Counsel (AgentCo Legal)"
THEM = "LargeCo Legal"
ATTORNEY = "Attorney Golden"
JUDGES = ["openai/gpt-5.4-mini", "anthropic/claude-haiku-4-5", "gemini/gemini-3.1-flash-lite"]
MODELS = ["openai/gpt-5.5", "anthropic/claude-opus-4-8", f"evil/{HOSTILE}"]

TASKS = {
    "redline-s1-t1-g01a": dict(scenario_id=1, turn=1, side="A", golden=True, rubrics=[
        ("r1", "Rejects in Section 1.3 the inclusion of PCI-DSS Standards in the definition of Applicable Law", "Legal correctness", 5),
        ("r2", "Replaces in Section 2.1 unilateral protection with mutual protection", "Negotiation Quality", 3),
        ("r3", "Caps liability at 12 months of fees", "Commercial Context", 2),
        ("r4", "Agrees to uncapped liability", "Deal-closing Orientation", -4),
    ]),
    "redline-s1-t2-g01a": dict(scenario_id=1, turn=2, side="B", golden=True, rubrics=[
        ("r1", "Accepts the counterparty's change to Section 1.1", "Deal-closing Orientation", 4),
        ("r2", "Deletes in Section 2.1 the warranty that the service is error-free", "Legal correctness", 6),
        ("r3", "Replies to the vendor's comment on Section 1.3", "Counterparty Acceptance Prediction", 2),
    ]),
    "redline-s2-t1-g02b": dict(scenario_id=2, turn=1, side="B", golden=True, rubrics=[
        ("r1", f"Inserts a data-protection addendum {HOSTILE}", "Commercial Context", 5),
        ("r2", f"Strikes the audit clause {HOSTILE_IMG}", "Legal correctness", 3),
        ("r3", "Does not agree to uncapped liability", "Negotiation Quality", 2),
    ]),
    "redline-s3-t4-g01a": dict(scenario_id=3, turn=4, side="B", golden=False, rubrics=[
        ("r1", "Accepts all outstanding edits", "Deal-closing Orientation", 5),
        ("r2", "Closes the open comment threads", "Counterparty Acceptance Prediction", 2),
    ]),
}
LABELS = {1: "Vendor-led SaaS MSA", 2: "Customer-led SaaS MSA", 3: "Professional-services MSA"}

# model -> task -> list of trials; each trial: per-judge verdict strings per rubric, or "GATE" for a gate failure.
# A judge missing from a trial's dict means that judge failed (judging incomplete).
PLAN: dict[str, dict[str, list]] = {
    MODELS[0]: {
        "redline-s1-t1-g01a": [
            {JUDGES[0]: "PPFF", JUDGES[1]: "PPPF", JUDGES[2]: "PFFF"},
            {JUDGES[0]: "PPPF", JUDGES[1]: "PPPF", JUDGES[2]: "PPPF"},
        ],
        "redline-s1-t2-g01a": [{JUDGES[0]: "PPF", JUDGES[1]: "PPP", JUDGES[2]: "PFF"}, {JUDGES[0]: "PFF", JUDGES[1]: "PFF"}],
        "redline-s2-t1-g02b": [{JUDGES[0]: "PPP", JUDGES[1]: "FPF", JUDGES[2]: "PPF"}, {JUDGES[0]: "PPF", JUDGES[1]: "PPF", JUDGES[2]: "PPF"}],
        "redline-s3-t4-g01a": [{JUDGES[0]: "PP", JUDGES[1]: "PP", JUDGES[2]: "PF"}, {JUDGES[0]: "PF", JUDGES[1]: "PF", JUDGES[2]: "PF"}],
    },
    MODELS[1]: {
        "redline-s1-t1-g01a": [{JUDGES[0]: "FPFP", JUDGES[1]: "FPFP", JUDGES[2]: "FPFF"}],
        "redline-s1-t2-g01a": ["GATE"],
        "redline-s2-t1-g02b": [{JUDGES[0]: "PFP", JUDGES[1]: "PFP", JUDGES[2]: "PFP"}],
        "redline-s3-t4-g01a": [{JUDGES[0]: "PP", JUDGES[1]: "PP", JUDGES[2]: "PP"}],
    },
    MODELS[2]: {
        "redline-s2-t1-g02b": [{JUDGES[0]: "FFF", JUDGES[1]: "FFF", JUDGES[2]: "FFP"}],
    },
}

COMPUTE = "compute"


def slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", model)


def reward(rubrics, passed: dict[str, bool]) -> dict:
    pos = sum(w for _, _, _, w in rubrics if w > 0)
    earned = sum(w for rid, _, _, w in rubrics if w > 0 and passed[rid])
    pen = sum(-w for rid, _, _, w in rubrics if w < 0 and passed[rid])
    value = 0.0 if pos == 0 else min(1.0, max(0.0, (earned - pen) / pos))
    return {"weighted": round(value, 4), "earned_weight": earned, "penalty_weight": pen, "total_weight": pos,
            "n_pass": sum(1 for rid, _, _, w in rubrics if w > 0 and passed[rid]),
            "n_total": sum(1 for *_, w in rubrics if w > 0)}


def contract(author: str, *, hostile: bool, turn: int) -> Doc:
    paras = [
        Para([("text", "MASTER SERVICES AGREEMENT", None)], heading=True),
        Para([("text", "Definitions", None)], level=0),
        Para([("text", "“Services” means the hosted hiring platform", None), ("ins", " and related support", THEM),
              ("text", ".", None)], level=1),
        Para([("text", "“Applicable Law” means all laws ", None), ("del", "and PCI-DSS Standards ", author),
              ("text", "in force.", None)], level=1),
        Para([("text", "Protection", None)], level=0),
        Para([("text", "Vendor shall indemnify Customer ", None), ("del", "against all claims", author),
              ("ins", "and each party shall indemnify the other against third-party claims", author),
              ("text", " arising from the Services.", None)], level=1),
        Para([("text", "The service is ", None), ("del", "error-free and ", THEM), ("text", "provided as described.", None)], level=1),
        Para([("ins", "Liability of either party is capped at the fees paid in the prior 12 months.", author)], level=1),
    ]
    if hostile:
        paras.append(Para([("text", "Notice: ", None), ("ins", HOSTILE, author)], level=1))
    comments = [
        Cmt(1, THEM, "Why remove PCI-DSS? We need card data protections.", para=3),
        Cmt(2, author, "We do not process card data; PCI-DSS does not apply." + (" " + HOSTILE_IMG if hostile else ""), para=3, parent=1),
        Cmt(3, author, "Mutual indemnity is market standard for this deal size.", para=5),
    ]
    return Doc(paras, comments)


def episode(model: str, task_id: str) -> list[dict]:
    """A transcript as the LLM agent writes it: read, a batch with one bad anchor, its fix, a reply, end."""
    edit = {"op": "replace", "anchor": {"paragraph_id": "p-004", "text": "and PCI-DSS Standards"}, "new_text": "",
            "comment": "Not applicable"}
    return [
        {"t": 0.0, "type": "start", "task_id": task_id, "model": model, "trial": 1, "tools": ["read_document", "propose_edits",
                                                                                               "add_comment", "end_session"],
         "messages": [{"role": "system", "content": "long system prompt"}]},
        {"t": 1.0, "type": "model", "step": 1, "latency_s": 2.5, "tokens_in": 9000, "tokens_out": 120, "cost_usd": 0.01,
         "finish_reason": "tool_calls", "message": {"role": "assistant", "content": f"Reading the contract first. {HOSTILE}",
                                                    "tool_calls": [{"id": "c1", "type": "function",
                                                                    "function": {"name": "read_document", "arguments": "{}"}}]}},
        {"t": 1.1, "type": "tool", "step": 1, "name": "read_document", "arguments": "{}", "result": {"text": "[p-001] ..."}},
        {"t": 2.0, "type": "model", "step": 2, "latency_s": 4.0, "tokens_in": 20000, "tokens_out": 900, "cost_usd": 0.03,
         "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
             {"id": "c2", "type": "function", "function": {"name": "propose_edits", "arguments": json.dumps({"edits": [edit, edit]})}}]}},
        {"t": 2.1, "type": "tool", "step": 2, "name": "propose_edits", "arguments": json.dumps({"edits": [edit, edit]}),
         "result": {"results": [{"op": "replace", "status": "ok", "paragraph_id": "p-004", "comment_id": "cmt-4"},
                                {"op": "replace", "status": "anchor_failed", "paragraph_id": "p-004",
                                 "error": f"text_not_found: {HOSTILE_IMG}"}]}},
        {"t": 3.0, "type": "retry", "step": 3, "attempt": 1, "error": "RateLimitError: 429", "delay_s": 1.5},
        {"t": 5.0, "type": "tool", "step": 3, "name": "add_comment", "arguments": {"reply_to": "cmt-1", "text": "See above"},
         "result": {"error": "unknown_comment", "message": "cmt-9 does not exist"}},
        {"t": 6.0, "type": "end", "status": "completed", "end_reason": "end_session", "steps": 3},
    ]


def build_benchmark(root: Path) -> Path:
    for task_id, spec in TASKS.items():
        tdir = root / "tasks" / task_id
        (tdir / "tests").mkdir(parents=True, exist_ok=True)
        if spec["golden"]:
            write_docx(tdir / "tests" / "attorney_redlines.docx", contract(ATTORNEY, hostile=False, turn=spec["turn"]))
    return root


def build_run(root: Path, *, bench: Path | None = None, plan: dict | None = None, summary: dict | str | None = COMPUTE,
              run_id: str = "run-2026-11-29-demo") -> Path:
    """Write a complete run directory under *root* and return it."""
    plan = PLAN if plan is None else plan
    run = root / run_id
    run.mkdir(parents=True, exist_ok=True)
    config = {"run_id": run_id, "models": list(plan), "agent": "llm", "judges": JUDGES, "trials": 2,
              "source": {"kind": "directory", "path": str(bench) if bench else None, "fingerprint": "sha256:1f2e3d"},
              "versions": {"redlinebench": "0.1.0", "litellm": "1.110.2"}, "seed": 7,
              "notes": HOSTILE}
    (run / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    for model, tasks in plan.items():
        for task_id, trials in tasks.items():
            spec = TASKS[task_id]
            rubrics = spec["rubrics"]
            for n, trial in enumerate(trials, 1):
                tdir = run / "trials" / slug(model) / task_id / str(n)
                tdir.mkdir(parents=True, exist_ok=True)
                m = re.match(r"redline-s(\d+)-t(\d+)-g(\d+)([a-z])", task_id)
                base = {"task_id": task_id, "model": model, "trial": n, "scenario_id": spec["scenario_id"],
                        "scenario_label": LABELS[spec["scenario_id"]],
                        "turn": spec["turn"], "side": spec["side"], "input_group": f"s{m[1]}-t{m[2]}-g{m[3]}",
                        "variant": m[4], "judge_method": "panel", "judges": JUDGES, "author": ME, "schema_version": 1}
                if trial == "GATE":
                    grade = {**base, "status": "gate_failed", "gate": {"passed": False, "reason": f"no tracked change or comment by {ME}"},
                             "score": {"weighted": 0.0, "earned_weight": 0, "penalty_weight": 0,
                                       "total_weight": sum(w for *_, w in rubrics if w > 0), "n_pass": 0,
                                       "n_total": sum(1 for *_, w in rubrics if w > 0), "per_rubric": [],
                                       "redlines": 0, "edit_operations": 0, "total_revisions": 0, "touched_paragraphs": 0,
                                       "comments_added": 0, "median_insertion_chars": 0}}
                    (tdir / "grade.json").write_text(json.dumps(grade), encoding="utf-8")
                    write_docx(tdir / "redline.docx", Doc([Para([("text", "Untouched contract.", None)])]))
                    (tdir / "metrics.json").write_text(json.dumps({"model": model, "tokens_in": 5000, "tokens_out": 10,
                                                                   "cost_usd": 0.011, "latency_s": 3.2,
                                                                   "tool_calls": {"read_document": 1, "end_session": 1},
                                                                   "edits_failed": 0}), encoding="utf-8")
                    continue
                per, passed = [], {}
                for k, (rid, crit, cat, w) in enumerate(rubrics):
                    votes = {j: ("PASS" if v[k] == "P" else "FAIL") for j, v in trial.items()}
                    npass = sum(v == "PASS" for v in votes.values())
                    verdict = "PASS" if npass * 2 > len(votes) else "FAIL"
                    passed[rid] = verdict == "PASS"
                    per.append({"rubric_id": rid, "verdict": verdict, "weight": w, "is_penalty": w < 0, "category": cat,
                                "criteria": crit, "justification": f"Panel {npass}/{len(votes)} PASS." + (f" {HOSTILE}" if k == 0 else ""),
                                "votes": votes})
                incomplete = len(trial) < len(JUDGES)
                grade = {**base, "status": "judging_incomplete" if incomplete else "graded", "gate": {"passed": True},
                         "score": {**reward(rubrics, passed), "per_rubric": per, "redlines": 3, "edit_operations": 5,
                                   "total_revisions": 8, "touched_paragraphs": 4, "comments_added": 2,
                                   "median_insertion_chars": 52, "surgicalness_score": 0.8}}
                if incomplete:
                    grade["incomplete_judges"] = [j for j in JUDGES if j not in trial]
                    grade["errors"] = [f"{j}: JudgeError: no valid reply after 10 attempts" for j in JUDGES if j not in trial]
                grade["usage"] = {"prompt_tokens": 30000, "completion_tokens": 900, "cost_usd": 0.012}
                (tdir / "grade.json").write_text(json.dumps(grade, indent=1), encoding="utf-8")
                (tdir / "judges").mkdir(exist_ok=True)
                for j, v in trial.items():
                    notes = {rid: f"{j} reads Section {k + 1}: {'met' if v[k] == 'P' else 'not met'}."
                                  + (f" {HOSTILE_IMG}" if k == 1 else "") for k, (rid, *_r) in enumerate(rubrics)}
                    verdicts = {rid: "PASS" if v[k] == "P" else "FAIL" for k, (rid, *_r) in enumerate(rubrics)}
                    if model == MODELS[1]:  # the judge-reply form: a list of verdict objects
                        payload = {"judge": j, "verdicts": [{"rubric_id": r, "verdict": verdicts[r], "justification": notes[r]}
                                                            for r in verdicts]}
                    else:  # the scorer's form: maps keyed by rubric id
                        payload = {"judge": j, "method": "llm", "ok": True, "verdicts": verdicts, "justifications": notes,
                                   "missing": [], "invalid": [], "error": None}
                    (tdir / "judges" / f"{slug(j)}.json").write_text(json.dumps(payload), encoding="utf-8")
                for j in JUDGES:
                    if j not in trial:
                        (tdir / "judges" / f"{slug(j)}.json").write_text(json.dumps(
                            {"judge": j, "ok": False, "verdicts": {}, "justifications": {},
                             "error": "JudgeError: no valid reply after 10 attempts"}), encoding="utf-8")
                hostile = model == MODELS[2] or task_id == "redline-s2-t1-g02b"
                write_docx(tdir / "redline.docx", contract(ME, hostile=hostile, turn=spec["turn"]))
                (tdir / "annotated_view.md").write_text(
                    "[p-004] 1.3 \"Applicable Law\" means all laws ~~and PCI-DSS Standards ~~in force. {cmt-1}\n"
                    "[p-006] 2.1 Vendor shall indemnify Customer ~~against all claims~~++and each party shall indemnify the other++\n"
                    f"[p-009] Notice: ++{HOSTILE}++\n\n## Comments\ncmt-1 (LargeCo Legal): Why remove PCI-DSS?\n", encoding="utf-8")
                (tdir / "transcript.jsonl").write_text("\n".join(json.dumps(e) for e in episode(model, task_id)) + "\n",
                                                       encoding="utf-8")
                (tdir / "metrics.json").write_text(json.dumps({
                    "model": model, "tokens_in": 41000 + 1000 * n, "tokens_out": 2300, "cost_usd": 0.084 if "openai" in model else 0.213,
                    "latency_s": 48.5 + n, "tool_calls": {"read_document": 1, "propose_edits": 2, "add_comment": 2, "end_session": 1},
                    "edits_failed": 1}), encoding="utf-8")
    if summary == COMPUTE:  # what the runner writes: the scorer's summary of every grade in the run
        from redlinebench.scoring import summarize

        summary = summarize(json.loads(p.read_text(encoding="utf-8")) for p in sorted(run.glob("trials/**/grade.json")))
    if summary is not None:
        (run / "metrics_summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return run
