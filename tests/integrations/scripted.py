"""Scripted Inspect mock models: an agent that edits, one that does nothing, and judges.

Every output carries token usage so Inspect's mockllm never estimates tokens with tiktoken
(which would try to download its encoding).
"""

from __future__ import annotations

import json
import re

from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model

USAGE = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)


def _out(output: ModelOutput) -> ModelOutput:
    output.usage = USAGE
    return output


def _call(name: str, args: dict) -> ModelOutput:
    return _out(ModelOutput.for_tool_call(model="mockllm", tool_name=name, tool_arguments=args))


def editing_agent(messages, tools, tool_choice, config) -> ModelOutput:
    """read_document -> one tracked replace on the payment clause -> end_session."""
    results = [m for m in messages if isinstance(m, ChatMessageTool)]
    if not results:
        assert {t.name for t in tools} == {"read_document", "propose_edits", "add_comment", "mark_reserved",
                                           "end_session"}
        return _call("read_document", {})
    last = results[-1]
    if last.function == "read_document":
        view = last.text   # the read view arrives as plain text
        pid = re.search(r"\[(p-\d+)\][^\n]*Customer shall pay", view).group(1)
        edit = {"op": "replace", "anchor": {"paragraph_id": pid, "text": "30 days"}, "new_text": "45 days",
                "comment": "Our playbook requires 45-day payment terms."}
        return _call("propose_edits", {"edits": [edit]})
    if last.function == "propose_edits":
        statuses = [e["status"] for e in json.loads(last.text.partition("\n\n")[0])["results"]]
        assert statuses == ["ok"], last.text
        return _call("end_session", {})
    raise AssertionError(f"unexpected tool result {last.function}")


def idle_agent(messages, tools, tool_choice, config) -> ModelOutput:
    return _call("end_session", {})


def judge(passes: set[str], calls: list[str]):
    """A scripted judge: PASS for rubric ids ending in one of ``passes``, FAIL for the rest."""

    def reply(messages, tools, tool_choice, config) -> ModelOutput:
        prompt = "\n".join(m.text for m in messages)
        ids = sorted(set(re.findall(r"redline-s\d+-t\d+-g\d+[a-z]-r\d\d", prompt)))
        calls.append(ids[0][:-4] if ids else "?")
        verdicts = [{"rubric_id": i, "verdict": "PASS" if i[-3:] in passes else "FAIL", "justification": "ok"}
                    for i in ids]
        return _out(ModelOutput.from_content(model="mockllm", content="```json\n" + json.dumps(
            {"verdicts": verdicts}) + "\n```"))

    return reply


def role_panel(calls: list[str]):
    """Three judges; majority: r01 PASS, r02 PASS, r03 FAIL, r06 PASS (the penalty rubric)."""
    return [get_model(f"mockllm/judge-{n}", custom_outputs=judge(p, calls))
            for n, p in ((1, {"r01", "r02", "r06"}), (2, {"r01", "r06"}), (3, {"r02", "r03"}))]


def only_score(sample):
    """The sample's one score (Inspect keys it by the scorer's registry name, namespaced when installed)."""
    [score] = sample.scores.values()
    return score


def metric(log, name: str) -> float:
    """A metric of the log's one scorer, found by its unqualified name."""
    [scores] = log.results.scores
    [value] = [m.value for key, m in scores.metrics.items() if key.split("/")[-1] == name]
    return value


def looping_agent(messages, tools, tool_choice, config) -> ModelOutput:
    """Never finishes: reads the document again and again (a message limit must stop it)."""
    return _call("read_document", {})


def document(score) -> "Path":
    """The redline a score graded (the path is in the grade's ``inspect`` record; ``answer`` is a summary)."""
    from pathlib import Path

    return Path(score.metadata["grades"][0]["inspect"]["output"])
