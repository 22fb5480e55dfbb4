"""The exported Harbor layout: no answer key on the agent side, one copy of the package, the skill and MCP.

What the agent's container holds is its image: the Dockerfile's ``COPY`` sources (``environment/``) and
what ``pip install`` puts in the venv (the wheel). Both are listed file by file here; the Docker test
(test_harbor_docker.py) lists the built image itself.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.integrations import harbor
from redlinebench.integrations.harbor import _wheel
from redlinebench.tasks import load_tasks

#: A file of the answer key wherever it may sit (a task's tests/, a rubric, a golden redline).
ANSWER_KEY = re.compile(r"(^|/)(rubrics\.json|attorney_redlines\.docx|tests/|judge_check/|solution/)")


@pytest.fixture(scope="module")
def embedded_export(tmp_path_factory) -> Path:
    """The whole embedded set exported the default way (a tools-only wheel built from this checkout)."""
    out = tmp_path_factory.mktemp("export") / "harbor"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded",
                                    "--judges", "heuristic"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def _agent_side_files(task: Path) -> list[str]:
    """Every file the task image gets: the build context's COPY sources and the wheel's members."""
    env = task / "environment"
    names = [p.relative_to(env).as_posix() for p in env.rglob("*") if p.is_file() and p.suffix != ".whl"]
    for wheel in env.glob("*.whl"):
        with zipfile.ZipFile(wheel) as zf:
            names += [f"{wheel.name}!/{n}" for n in zf.namelist()]
    return names


def test_nothing_of_any_answer_key_reaches_the_agent_image(embedded_export):
    tasks = sorted(p for p in embedded_export.iterdir() if (p / "task.toml").is_file())
    assert len(tasks) == 39
    for task in tasks:
        files = _agent_side_files(task)
        assert "app/contract.docx" in files and any(n.endswith("redlinebench/cli/doc.py") for n in files)
        leaked = [n for n in files if ANSWER_KEY.search(n.split("!/", 1)[-1])]
        assert leaked == [], (task.name, leaked[:5])
        docker = (task / "environment/Dockerfile").read_text()
        copies = re.findall(r"^COPY (\S+)", docker, re.MULTILINE)
        assert all(not ANSWER_KEY.search(c) for c in copies), copies
        # on a login shell's PATH too (/etc/profile drops the venv's bin)
        assert "RUN ln -sf /opt/redlinebench/bin/redlinebench /usr/local/bin/redlinebench" in docker
        # the verifier still has the whole task: it gets tests/ from Harbor, not from the image
        assert (task / "tests/task" / task.name / "tests/rubrics.json").is_file()


def test_a_wheel_with_the_embedded_set_is_refused_and_a_spec_install_strips_it(tmp_path):
    full = tmp_path / "redlinebench-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(full, "w") as zf:
        zf.writestr("redlinebench-0.1.0.dist-info/METADATA", "Name: redlinebench\n")
        zf.writestr("redlinebench/_data/benchmark/tasks/redline-s1-t1-g01a/tests/rubrics.json", "{}")
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(tmp_path / "h"), "--source", "embedded",
                                    "--task", "redline-s1-t1-g01a", "--wheel", str(full), "--judges", "heuristic"])
    assert res.exit_code == 2 and "carries the embedded task set" in res.output and str(full) in res.output
    assert not (tmp_path / "h").exists()
    docker = harbor.dockerfile("redline-s1-t1-g01a", harbor.ExportOptions(package_spec="redlinebench==0.1.0"),
                               has_skills=False)
    install = [line for line in docker.splitlines() if "pip install" in line]
    assert install and install[-1].endswith("rm -rf /opt/redlinebench/lib/python3*/site-packages/redlinebench/"
                                            "_data/benchmark")


def test_the_embedded_export_is_small_and_holds_one_copy_of_the_package(embedded_export):
    files = [p for p in embedded_export.rglob("*") if p.is_file()]
    on_disk = {p.stat().st_ino: p.stat().st_size for p in files}  # hard links count once, as du counts them
    assert sum(on_disk.values()) < 20_000_000, sum(on_disk.values())
    wheels = [p for p in files if p.suffix == ".whl"]
    assert len({p.stat().st_ino for p in wheels}) == 1 and len(wheels) == 40  # 39 environments + the shared one
    shared = embedded_export / ".redlinebench"
    assert [p.name for p in shared.iterdir()] == [wheels[0].name]
    # the verifier's copy of each task shares the task's own tests/ bytes, never the agent's inputs (a change
    # to the agent's side must not reach the contract the audit compares with)
    task = embedded_export / "redline-s1-t1-g01a"
    copy = task / "tests/task/redline-s1-t1-g01a"
    assert (task / "tests/rubrics.json").stat().st_ino == (copy / "tests/rubrics.json").stat().st_ino
    contract = task / "environment/app/contract.docx"
    assert contract.stat().st_ino != (copy / "environment/app/contract.docx").stat().st_ino
    assert (task / "task.toml").stat().st_ino != (copy / "task.toml").stat().st_ino


def test_every_layer_before_the_task_files_is_the_same_for_every_task(embedded_export):
    """Docker builds a layer once when its instruction and inputs match: all but the task's own files do."""
    heads = set()
    for task in embedded_export.iterdir():
        if not (task / "task.toml").is_file():
            continue
        lines = [ln for ln in (task / "environment/Dockerfile").read_text().splitlines() if not ln.startswith("#")]
        heads.add("\n".join(lines[:lines.index("WORKDIR /app")]))
    assert len(heads) == 1


def test_the_skill_is_shipped_where_harbor_and_the_agents_look(embedded_export):
    task = embedded_export / "redline-s2-t2-g01a"
    skill = task / "environment/skills/contract-redliner/SKILL.md"
    text = skill.read_text()
    front = text.split("---\n")[1]
    assert re.search(r"^name: contract-redliner$", front, re.MULTILINE)
    assert re.search(r"^description: \S.{40,}", front, re.MULTILINE)
    for command in ("redlinebench doc read", "redlinebench doc edit", "redlinebench doc comment",
                    "--reply-to", "/app/output/redline.docx"):
        assert command in text
    assert harbor.INTEGRITY_RULES in text  # what the audit refuses
    assert "COPY skills/ /skills/" in (task / "environment/Dockerfile").read_text()
    cfg = tomllib.loads((task / "task.toml").read_text())
    assert cfg["environment"]["skills_dir"] == "/skills"
    assert cfg["metadata"]["redlinebench_skill_version"] == "contract-redliner-1"
    assert "mcp_servers" not in cfg["environment"]


def test_mcp_export_installs_the_extra_and_serves_the_tools_on_the_contract(tmp_path):
    wheel = _wheel.build_wheel(tmp_path / "dist", tools_only=True)
    out = tmp_path / "harbor"
    task = load_tasks("embedded").get("redline-s1-t2-g01a")
    harbor.export_harbor([task], out, harbor.ExportOptions(judges="heuristic", wheel=wheel, mcp=True))
    env = out / task.task_id / "environment"
    docker = (env / "Dockerfile").read_text()
    assert f"/tmp/{wheel.name}[mcp]" in docker and "COPY .mcp.json /app/.mcp.json" in docker
    server = json.loads((env / ".mcp.json").read_text())["mcpServers"]["redline"]
    assert server["command"] == "redlinebench"
    assert server["args"] == ["mcp", "--document", "/app/contract.docx", "--author", task.author,
                              "--output", "/app/output/redline.docx"]
    cfg = tomllib.loads((out / task.task_id / "task.toml").read_text())
    assert cfg["environment"]["mcp_servers"] == [{"name": "redline", "transport": "stdio", **server}]


def test_no_skill_leaves_the_skill_out_of_the_image_and_the_task(tmp_path):
    out = tmp_path / "harbor"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded", "--task",
                                    "redline-s1-t1-g01a", "--judges", "heuristic", "--no-skill"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    task = out / "redline-s1-t1-g01a"
    assert not (task / "environment/skills").exists()
    assert "skills" not in (task / "environment/Dockerfile").read_text()
    assert "skills_dir" not in tomllib.loads((task / "task.toml").read_text())["environment"]
