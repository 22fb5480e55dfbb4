"""``redlinebench mcp``: the five tools over MCP stdio, driven by the official SDK's client and by a
second, independent client (raw JSON-RPC over the subprocess's pipes, written here). Every result
must be byte for byte what ``ToolSession`` + ``tool_message`` give our own agent loop."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from redlinebench.docx import RedlineDocument  # noqa: E402
from redlinebench.tools import ToolSession, tool_message  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATE = "2026-01-02T03:04:05Z"
AUTHOR = "Reviewing Counsel (MCP test)"


def _turn4_task():
    from redlinebench.tasks import load_tasks

    return next(t for t in load_tasks("embedded").tasks if t.turn == 4 and t.scenario_id == 2)


def _calls(doc: RedlineDocument) -> list[tuple[str, object]]:
    """A session mixing good calls and hostile arguments; the same list for both sides."""
    paras = [p for p in doc.paragraphs if len(p.text.split()) > 6]
    first, second = paras[0], paras[1]
    word = first.text.split()[2]
    return [
        ("read_document", {}),
        ("read_document", {"start_id": first.id, "end_id": second.id}),
        ("propose_edits", {"edits": [{"op": "insert_after", "anchor": {"paragraph_id": first.id, "text": word},
                                      "new_text": " (as amended)", "comment": "Clarified."}]}),
        ("propose_edits", {"edits": "not a list"}),
        ("propose_edits", {"edits": [{"op": "delete", "anchor": {"paragraph_id": "p-99999", "text": "nowhere"},
                                      "comment": "gone"}]}),
        ("add_comment", {"paragraph_id": second.id, "text": "Please confirm this clause."}),
        ("add_comment", {"paragraph_id": second.id, "text": "x" * 5000}),
        ("add_comment", {"paragraph_id": 7, "text": 3}),
        ("no_such_tool", {"a": 1}),
        ("mark_reserved", {"start_id": "p-1", "end_id": "zzz", "comment": ""}),
        ("read_document", {"unexpected": True}),
        ("end_session", {"summary": "Done."}),
        ("add_comment", {"paragraph_id": second.id, "text": "after the end"}),
    ]


def _local(contract: Path, author: str, out: Path) -> tuple[list[tuple[str, bool]], ToolSession]:
    doc = RedlineDocument.open(contract, name=contract.name)
    session = ToolSession(doc, author, output_path=out, date=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    results = []
    for name, args in _calls(RedlineDocument.open(contract, name=contract.name)):
        result = session.dispatch(name, args)
        results.append((tool_message(result), "error" in result))
    return results, session


def _outs(tmp_path: Path) -> tuple[Path, Path]:
    """Two places of the same file name (end_session's result names the file)."""
    (tmp_path / "served").mkdir()
    (tmp_path / "local").mkdir()
    return tmp_path / "served" / "redline.docx", tmp_path / "local" / "redline.docx"


def _server_args(*extra: str) -> list[str]:
    return ["-m", "redlinebench", "mcp", "--date", DATE, *extra]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


async def _sdk_session(args: list[str], calls: list[tuple[str, object]], *, task: bool = False) -> dict:
    params = StdioServerParameters(command=sys.executable, args=args, env=_env(), cwd=str(ROOT))
    out: dict = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = (await session.list_tools()).tools
            out["results"] = []
            for name, arguments in calls:
                res = await session.call_tool(name, arguments)
                assert len(res.content) == 1 and res.content[0].type == "text"
                out["results"].append((res.content[0].text, bool(res.is_error)))
            if task:
                out["prompts"] = (await session.list_prompts()).prompts
                out["prompt"] = await session.get_prompt("redline_task")
                out["resources"] = (await session.list_resources()).resources
                out["instruction"] = await session.read_resource("redlinebench://task/instruction")
    return out


def test_sdk_client_gets_tool_session_results_byte_for_byte(tmp_path):
    task = _turn4_task()
    served, local_out = _outs(tmp_path)
    calls = _calls(RedlineDocument.open(task.contract_path))
    got = asyncio.run(_sdk_session(_server_args("--document", str(task.contract_path), "--author", AUTHOR,
                                                "--output", str(served)), calls))
    expected, session = _local(task.contract_path, AUTHOR, local_out)
    assert got["results"] == expected
    # the hostile calls came back as the loop's structured errors, flagged as MCP errors
    errors = [json.loads(text.splitlines()[0])["error"] for text, is_error in got["results"] if is_error]
    assert errors == ["invalid_arguments", "text_too_long", "invalid_arguments", "unknown_tool", "invalid_arguments",
                      "invalid_arguments", "session_finished"]
    saved = json.loads(got["results"][-2][0])
    assert saved["status"] == "saved" and saved["edits_ok"] == 1 and saved["comments_added"] == 2
    assert [t.name for t in got["tools"]] == [s["function"]["name"] for s in session.schemas]
    for tool, schema in zip(got["tools"], session.schemas):
        assert tool.input_schema == schema["function"]["parameters"]
        assert tool.description == schema["function"]["description"]
    assert served.read_bytes() == local_out.read_bytes()  # end_session saved the same document


def _rpc(proc: subprocess.Popen, message: dict) -> dict | None:
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        reply = json.loads(line)
        if reply.get("id") == message["id"]:
            return reply


def test_an_independent_json_rpc_client_sees_the_same(tmp_path):
    task = _turn4_task()
    served, local_out = _outs(tmp_path)
    calls = _calls(RedlineDocument.open(task.contract_path))
    proc = subprocess.Popen([sys.executable, *_server_args("--document", str(task.contract_path), "--author",
                                                            AUTHOR, "--output", str(served))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(), cwd=ROOT)
    try:
        init = _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert init["result"]["serverInfo"]["name"] == "redlinebench"
        assert "tools" in init["result"]["capabilities"]
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]
        results = []
        for i, (name, arguments) in enumerate(calls, start=3):
            reply = _rpc(proc, {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                "params": {"name": name, "arguments": arguments}})
            content = reply["result"]["content"]
            results.append((content[0]["text"], bool(reply["result"].get("isError"))))
        # arguments that are not an object never reach a tool: a JSON-RPC error, and the server lives on
        bad = _rpc(proc, {"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                          "params": {"name": "read_document", "arguments": "[1, 2]"}})
        assert "error" in bad
        assert _rpc(proc, {"jsonrpc": "2.0", "id": 100, "method": "ping"})["result"] == {}
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    expected, session = _local(task.contract_path, AUTHOR, local_out)
    assert results == expected
    assert [t["inputSchema"] for t in listed] == [s["function"]["parameters"] for s in session.schemas]
    assert served.read_bytes() == local_out.read_bytes()


def test_task_dir_serves_instruction_and_grounding_and_saves_for_import(tmp_path):
    from redlinebench.agent import kickoff_message, system_prompt

    task = _turn4_task()
    outputs = tmp_path / "outputs"
    para = next(p for p in RedlineDocument.open(task.contract_path).paragraphs if len(p.text.split()) > 6)
    calls = [("add_comment", {"paragraph_id": para.id, "text": "MCP test: agreed as drafted."}), ("end_session", {"summary": "ok"})]
    got = asyncio.run(_sdk_session(_server_args("--task-dir", str(task.root), "--outputs", str(outputs)), calls,
                                   task=True))
    assert [p.name for p in got["prompts"]] == ["redline_task"]
    assert got["prompt"].messages[0].content.text == system_prompt(task) + "\n\n" + kickoff_message(task)
    uris = sorted(str(r.uri) for r in got["resources"])
    assert uris == sorted(["redlinebench://task/instruction",
                           *(f"redlinebench://task/grounding/{n}" for n in task.grounding)])
    assert got["instruction"].contents[0].text == task.instruction
    saved = outputs / f"{task.task_id}.docx"
    doc = RedlineDocument.open(saved)
    assert [c.author for c in doc.comments if c.text == "MCP test: agreed as drafted."] == [task.author]
    # ... which is where `import outputs` finds it
    from redlinebench.runner import TaskFilter, import_outputs

    done = import_outputs(outputs, "mcp-client", run_dir=tmp_path / "run", source="embedded", judges="heuristic",
                          filter=TaskFilter(task_ids=(task.task_id,)), progress=False)
    grade = json.loads((done.run.run_dir / "trials" / "mcp-client" / task.task_id / "1" / "grade.json").read_text())
    assert grade["gate"]["passed"] is True


@pytest.mark.parametrize("args, expected", [
    ([], "give --document FILE --author NAME, or --task-dir DIR"),
    (["--document", "{contract}"], "--author is required with --document"),
    (["--document", "{contract}", "--author", "X", "--output", "{contract}"], "would overwrite the input"),
    (["--document", "{contract}", "--author", "X", "--date", "yesterday"], "is not an ISO timestamp"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, args, expected):
    contract = str(_turn4_task().contract_path)
    proc = subprocess.run([sys.executable, "-m", "redlinebench", "mcp", *(a.format(contract=contract) for a in args)],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2 and expected in proc.stderr and "Traceback" not in proc.stderr


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['mcp'] = None; sys.modules['mcp.server.lowlevel'] = None\n"
            "from redlinebench.cli import main; main()")
    contract = str(_turn4_task().contract_path)
    proc = subprocess.run([sys.executable, "-c", code, "mcp", "--document", contract, "--author", "X", "--output",
                           str(tmp_path / "o.docx")], capture_output=True, text=True, env=_env(), cwd=ROOT,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2 and 'pip install ".[mcp]"' in proc.stderr


def test_a_client_that_leaves_without_end_session_still_gets_its_work_saved(tmp_path):
    task = _turn4_task()
    outputs = tmp_path / "outputs"
    para = next(p for p in RedlineDocument.open(task.contract_path).paragraphs if len(p.text.split()) > 6)
    asyncio.run(_sdk_session(_server_args("--task-dir", str(task.root), "--outputs", str(outputs), "--trial", "2"),
                             [("add_comment", {"paragraph_id": para.id, "text": "MCP test: left early."})]))
    saved = outputs / task.task_id / "2.docx"
    assert [c.author for c in RedlineDocument.open(saved).comments if c.text == "MCP test: left early."] == \
        [task.author]
    # a client that changed nothing leaves nothing (import outputs then scores "no output")
    asyncio.run(_sdk_session(_server_args("--task-dir", str(task.root), "--outputs", str(outputs), "--trial", "3"),
                             [("read_document", {})]))
    assert not (outputs / task.task_id / "3.docx").exists()


def _raw_server(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *_server_args(*args)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)


def test_one_server_per_call_continues_from_the_saved_work_and_says_so(tmp_path):
    """The MCP Inspector's CLI starts a server per call: each call started from the clean contract
    and erased the last call's work, without a word."""
    task = _turn4_task()
    outputs = tmp_path / "outputs"
    paras = [p for p in RedlineDocument.open(task.contract_path).paragraphs if len(p.text.split()) > 6]
    args = _server_args("--task-dir", str(task.root), "--outputs", str(outputs))
    for i, para in enumerate(paras[:2]):
        asyncio.run(_sdk_session(args, [("add_comment", {"paragraph_id": para.id, "text": f"call {i}"})]))
    saved = outputs / f"{task.task_id}.docx"
    assert {c.text for c in RedlineDocument.open(saved).comments} >= {"call 0", "call 1"}
    proc = _raw_server("--task-dir", str(task.root), "--outputs", str(outputs))
    _, err = proc.communicate("", timeout=60)
    assert "continuing from the redline already saved at" in err and "--restart" in err
    proc = _raw_server("--task-dir", str(task.root), "--outputs", str(outputs), "--restart")
    _, err = proc.communicate("", timeout=60)
    assert "starting from the clean document" in err and "will be replaced" in err
    assert {"call 0", "call 1"} <= {c.text for c in RedlineDocument.open(saved).comments}  # nothing saved yet


def test_an_output_that_cannot_be_continued_from_says_so_and_restart_replaces_it(tmp_path):
    contract = str(_turn4_task().contract_path)
    out = tmp_path / "out.docx"
    out.write_text("not a word file")
    args = [sys.executable, *_server_args("--document", contract, "--author", "X", "--output", str(out))]
    proc = subprocess.run(args, capture_output=True, text=True, env=_env(), cwd=ROOT, stdin=subprocess.DEVNULL,
                          timeout=60)
    assert proc.returncode == 2 and "cannot be continued from" in proc.stderr and "--restart" in proc.stderr
    assert "Traceback" not in proc.stderr and out.read_text() == "not a word file"
    proc = subprocess.run([*args, "--restart"], capture_output=True, text=True, env=_env(), cwd=ROOT,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 0 and "will be replaced" in proc.stderr, proc.stderr


def test_an_unwritable_output_is_refused_at_start(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    contract = str(_turn4_task().contract_path)
    proc = subprocess.run([sys.executable, *_server_args("--document", contract, "--author", "X", "--output",
                                                         str(blocker / "out.docx"))],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2 and str(blocker) in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_unreadable_messages_get_a_json_rpc_error_and_a_stderr_line(tmp_path):
    task = _turn4_task()
    proc = _raw_server("--task-dir", str(task.root), "--outputs", str(tmp_path / "o"))
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        replies = []
        for line in ("{not json", json.dumps([{"jsonrpc": "2.0", "id": 2, "method": "ping"}]),
                     json.dumps({"id": 3, "method": "ping"})):
            proc.stdin.write(line + "\n")
            proc.stdin.flush()
            replies.append(json.loads(proc.stdout.readline()))
        assert [r["error"]["code"] for r in replies] == [-32700, -32600, -32600]
        assert replies[0]["id"] is None and replies[2]["id"] == 3
        prompt = _rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "prompts/get", "params": {"name": "nope"}})
        resource = _rpc(proc, {"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                               "params": {"uri": "redlinebench://task/nope"}})
        assert prompt["error"]["code"] == resource["error"]["code"] == -32602
        assert "no prompt named 'nope'" in prompt["error"]["message"]
        assert _rpc(proc, {"jsonrpc": "2.0", "id": 6, "method": "ping"})["result"] == {}  # and it lives on
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    err = proc.stderr.read()
    assert err.count("redlinebench mcp: received") == 3 and "Traceback" not in err, err


def test_the_readme_mcp_commands_run_verbatim_on_a_fresh_checkout(tmp_path):
    """`redlinebench mcp --task-dir benchmark/tasks/<task_id>` was a shell syntax error, and
    benchmark/ does not exist in a checkout: `tasks export` writes the folder from any source."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(redlinebench tasks export .*?)```", readme, flags=re.S).group(1)
    env = {**_env(), "HF_HUB_OFFLINE": "1"}
    env.pop("REDLINEBENCH_BENCHMARK_DIR", None)
    for line in block.strip().splitlines():
        argv = shlex.split(line)
        if argv[:3] == ["claude", "mcp", "add"]:  # what Claude Code would start
            argv = argv[argv.index("--") + 1:]
        assert argv[0] == "redlinebench"
        proc = subprocess.run([sys.executable, "-m", "redlinebench", *argv[1:]], capture_output=True, text=True,
                              env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=120)
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "tasks" / "redline-s1-t2-g01a" / "tests" / "rubrics.json").is_file()
    again = subprocess.run([sys.executable, "-m", "redlinebench", "tasks", "export", "redline-s1-t2-g01a", "--out",
                            "tasks"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert again.returncode == 2 and "already exist" in again.stderr and "--force" in again.stderr
