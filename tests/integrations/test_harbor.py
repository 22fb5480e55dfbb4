"""Harbor: export real task trees, run the exported test.sh logic locally, import job directories."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.errors import RedlineBenchError
from redlinebench.integrations import harbor
from redlinebench.integrations.harbor import _wheel
from redlinebench.tasks import load_tasks
from tests.tasks.treefactory import build_tree

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = [(1, 1, 1, "ab", True), (2, 4, 1, "a", False)]
_REAL_BUILD_WHEEL = _wheel.build_wheel
#: The Dockerfile line that installs redlinebench (into a venv: Debian's own Python refuses pip).
VENV_PIP = "RUN python3 -m venv /opt/redlinebench && /opt/redlinebench/bin/pip install --no-cache-dir"
#: ... and in the same layer removes any embedded task set the install brought (a full wheel from an index).
STRIP = "/opt/redlinebench/lib/python3*/site-packages/redlinebench/_data/benchmark"


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> Path:
    """A real tools-only wheel of this checkout, built once per session (pip wheel, offline)."""
    return _REAL_BUILD_WHEEL(tmp_path_factory.mktemp("wheel"), tools_only=True)


@pytest.fixture(autouse=True)
def _one_wheel_build_per_session(built_wheel, monkeypatch):
    """An export without --wheel builds a wheel; here it gets a copy of the session's one."""
    def build(dest: Path, **_kw) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copyfile(built_wheel, dest / built_wheel.name))

    monkeypatch.setattr(_wheel, "build_wheel", build)


@pytest.fixture
def tree(tmp_path) -> Path:
    return build_tree(tmp_path / "bench", LAYOUT)


def _stand_in_wheel(path: Path) -> bytes:
    """A zip with a redlinebench dist-info: what the export checks a --wheel for."""
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("redlinebench-0.1.0.dist-info/METADATA", "Name: redlinebench\n")
    path.write_bytes(buf.getvalue())
    return buf.getvalue()


@pytest.fixture
def exported(tree, tmp_path) -> Path:
    wheel = tmp_path / "redlinebench-0.1.0-py3-none-any.whl"
    _stand_in_wheel(wheel)
    out = tmp_path / "harbor"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", str(tree),
                                    "--wheel", str(wheel), "--judges", "heuristic"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "exported 3 Harbor task(s)" in res.output
    return out


def test_export_writes_a_runnable_harbor_task(exported, tree):
    task = exported / "redline-s1-t1-g01a"
    src = tree / "tasks" / "redline-s1-t1-g01a"
    cfg = tomllib.loads((task / "task.toml").read_text())
    assert cfg["metadata"]["author"] == "Reviewing Counsel (AgentCo Legal)"
    assert cfg["metadata"]["input_group"] == "s1-t1-g01"
    assert cfg["verifier"]["env"]["REDLINEBENCH_JUDGES"] == "heuristic"
    assert cfg["verifier"]["env"] == {"REDLINEBENCH_JUDGES": "heuristic"}  # heuristic judges read no key
    assert cfg["verifier"]["environment_mode"] == "separate" and cfg["artifacts"] == ["/app/output"]
    assert cfg["agent"]["timeout_sec"] == 3600.0 and cfg["verifier"]["timeout_sec"] == 1800.0  # the task's own
    # agent side: the same contract and grounding, and where to leave the result
    assert (task / "environment/app/contract.docx").read_bytes() == (src / "environment/app/contract.docx").read_bytes()
    assert (task / "environment/app/grounding/playbook.md").is_file()
    instruction = (task / "instruction.md").read_text()
    assert instruction.startswith((src / "instruction.md").read_text().rstrip("\n"))
    assert "/app/output/redline.docx" in instruction and "Reviewing Counsel (AgentCo Legal)" in instruction
    docker = (task / "environment/Dockerfile").read_text().splitlines()
    assert "COPY redlinebench-0.1.0-py3-none-any.whl /tmp/redlinebench-0.1.0-py3-none-any.whl" in docker
    assert any(line.startswith(f"{VENV_PIP} /tmp/redlinebench-0.1.0") for line in docker)
    assert "ENV PATH=/opt/redlinebench/bin:$PATH" in docker and "FROM python:3.11-slim" in docker  # the default base
    assert (task / "environment/redlinebench-0.1.0-py3-none-any.whl").read_bytes() == \
        (task.parent.parent / "redlinebench-0.1.0-py3-none-any.whl").read_bytes()  # the --wheel given
    # verifier side: test.sh calls verify on a pristine copy of the task
    script = task / "tests/test.sh"
    assert script.stat().st_mode & stat.S_IXUSR
    assert 'redlinebench verify' in script.read_text()
    assert '--task-dir "$TESTS_DIR/task/redline-s1-t1-g01a"' in script.read_text()
    copy = task / "tests/task/redline-s1-t1-g01a"
    assert (copy / "tests/rubrics.json").read_bytes() == (src / "tests/rubrics.json").read_bytes()
    assert (copy / "tests/attorney_redlines.docx").is_file()
    assert not (exported / "redline-s2-t4-g01a/tests/task/redline-s2-t4-g01a/tests/attorney_redlines.docx").exists()
    loaded = harbor.load_single_task(copy)
    original = load_tasks(tree).get("redline-s1-t1-g01a")
    assert loaded.rubrics == original.rubrics and loaded.author == original.author


def test_the_default_export_installs_a_wheel_built_from_the_checkout(tree, tmp_path, monkeypatch):
    """redlinebench is not on PyPI: without --wheel or --package-spec the Dockerfile must not
    `pip install redlinebench==VERSION` but install a wheel of this package copied next to it."""
    from redlinebench import __version__

    monkeypatch.setattr(_wheel, "build_wheel", _REAL_BUILD_WHEEL)  # really build, once, here
    before = sorted(p.name for p in ROOT.iterdir())
    out = tmp_path / "harbor"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", str(tree),
                                    "--task", "redline-s1-t1-g01a", "--judges", "heuristic"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    name = f"redlinebench-{__version__}-py3-none-any.whl"
    assert f"installs {name}, built from this redlinebench's source checkout" in res.output
    env = out / "redline-s1-t1-g01a" / "environment"
    docker = (env / "Dockerfile").read_text().splitlines()
    assert f"COPY {name} /tmp/{name}" in docker
    assert f"{VENV_PIP} /tmp/{name} && rm -rf /tmp/{name} {STRIP}" in docker
    assert not [line for line in docker if "redlinebench==" in line]
    with zipfile.ZipFile(env / name) as whl:
        names = set(whl.namelist())
        meta = whl.read(f"redlinebench-{__version__}.dist-info/METADATA").decode()
    assert {"redlinebench/__init__.py", "redlinebench/cli/integrations.py",
            "redlinebench/integrations/harbor/_verify.py"} <= names
    assert any(n.startswith("redlinebench/configs/") for n in names)  # package data is in it
    assert not any(n.startswith("redlinebench/_data/benchmark/") for n in names)  # the answer key is not
    assert not any("__pycache__" in n for n in names)
    assert "Name: redlinebench" in meta and f"Version: {__version__}" in meta
    # the build runs on a copy: the checkout gets no build/ or *.egg-info
    assert sorted(p.name for p in ROOT.iterdir()) == before


def test_the_session_wheel_is_the_one_export_copies(built_wheel, tree, tmp_path):
    out = tmp_path / "harbor"
    harbor.export_harbor(load_tasks(tree), out, harbor.ExportOptions(judges="heuristic"))
    for task in ("redline-s1-t1-g01a", "redline-s1-t1-g01b", "redline-s2-t4-g01a"):
        env = out / task / "environment"
        assert (env / built_wheel.name).read_bytes() == built_wheel.read_bytes()
        assert f"COPY {built_wheel.name} /tmp/{built_wheel.name}" in (env / "Dockerfile").read_text()


def test_without_a_checkout_the_export_says_to_pass_a_wheel_or_a_spec(tree, tmp_path, monkeypatch):
    site = tmp_path / "site-packages" / "redlinebench"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    monkeypatch.setattr(_wheel, "build_wheel", _REAL_BUILD_WHEEL)
    monkeypatch.setattr(_wheel, "package_dir", lambda: site)
    monkeypatch.setattr(_wheel, "installed_from", lambda: None)  # a wheel install: pip recorded no checkout
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(tmp_path / "out"), "--source", str(tree)])
    assert res.exit_code == 2 and not isinstance(res.exception, (AttributeError, TypeError))
    [line] = res.output.strip().splitlines()
    assert line.startswith("error: ") and "not on PyPI" in line and "not running from a source checkout" in line
    assert "--wheel PATH" in line and "--package-spec SPEC" in line
    assert not list((tmp_path / "out").glob("redline-*"))
    # --package-spec still works for a redlinebench published to your own index, and needs no checkout
    ok = CliRunner().invoke(main, ["export", "harbor", "--out", str(tmp_path / "out"), "--source", str(tree),
                                   "--package-spec", "redlinebench==0.1.0"])
    assert ok.exit_code == 0, ok.output
    docker = (tmp_path / "out" / "redline-s1-t1-g01a" / "environment" / "Dockerfile").read_text()
    assert f"{VENV_PIP} 'redlinebench==0.1.0'" in docker
    assert not list((tmp_path / "out" / "redline-s1-t1-g01a" / "environment").glob("*.whl"))


def test_a_plain_pip_install_builds_from_the_checkout_pip_recorded(tmp_path, monkeypatch):
    """`pip install .` (the README's quick start) puts the package in site-packages and records the
    checkout in direct_url.json: the export builds its wheel from that checkout."""
    from importlib import metadata

    site = tmp_path / "site-packages" / "redlinebench"
    site.mkdir(parents=True)

    class Dist:
        def read_text(self, name):
            assert name == "direct_url.json"
            return json.dumps({"url": ROOT.as_uri(), "dir_info": {}})

    with monkeypatch.context() as m:
        m.setattr(metadata, "distribution", lambda name: Dist())
        assert _wheel.installed_from() == ROOT
    monkeypatch.setattr(_wheel, "installed_from", lambda: ROOT)
    wheel = _REAL_BUILD_WHEEL(tmp_path / "dist", pkg=site)
    with zipfile.ZipFile(wheel) as whl:
        assert "redlinebench/integrations/harbor/_wheel.py" in whl.namelist()


def test_build_isolation_is_used_exactly_when_this_python_lacks_the_build_requirements():
    assert _wheel.unmet_requirements(["packaging>=1"]) == []
    assert _wheel.unmet_requirements(["packaging>=999"])[0].startswith("packaging>=999 (have ")
    assert _wheel.unmet_requirements(["no-such-dist-rb>=1"]) == ["no-such-dist-rb>=1"]


def test_a_failed_build_names_pips_reason_not_see_above(tmp_path):
    """What a fresh venv's setuptools printed before: the message must carry the cause in one line."""
    captured = ("  error: subprocess-exited-with-error\n  \n  × Building wheel for redlinebench (pyproject.toml) "
                "did not run successfully.\n  │ exit code: 1\n  ╰─> [3 lines of output]\n      usage: setup.py\n"
                "      error: invalid command 'bdist_wheel'\n      [end of output]\n  \n  note: This error "
                "originates from a subprocess, and is likely not a problem with pip.\nERROR: Failed building wheel "
                "for redlinebench\nERROR: Failed to build one or more wheels\n"
                "error: See above for output.\n")
    assert _wheel.pip_failure(captured, 1) == "error: invalid command 'bdist_wheel'"
    root = tmp_path / "checkout"
    (root / "redlinebench").mkdir(parents=True)
    (root / "redlinebench" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools>=69"]\n'
                                         'build-backend = "no_such_backend_rb.build"\n'
                                         '[project]\nname = "redlinebench"\nversion = "0.1.0"\n')
    with pytest.raises(RedlineBenchError) as info:
        _REAL_BUILD_WHEEL(tmp_path / "dist", pkg=root / "redlinebench")
    msg = str(info.value)
    assert "cannot build a redlinebench wheel" in msg and "with build isolation" in msg
    assert "no_such_backend_rb" in msg and "See above" not in msg
    assert "--wheel PATH" in msg and "\n" not in msg


def test_dockerfile_needs_a_wheel_or_a_spec():
    with pytest.raises(RedlineBenchError, match="give a wheel or a package spec"):
        harbor.dockerfile("redline-s1-t1-g01a", harbor.ExportOptions(), has_skills=False)
    spec = harbor.dockerfile("redline-s1-t1-g01a", harbor.ExportOptions(package_spec="redlinebench>=0.1"),
                             has_skills=False)
    assert f"{VENV_PIP} 'redlinebench>=0.1'" in spec


def test_a_wheelhouse_and_a_base_image_make_an_offline_build_on_any_python_base(tree, tmp_path):
    """--base-image names the FROM (a bare Debian with python3-venv, a registry mirror's python image);
    --wheelhouse is copied into every environment and pip installs from it alone (--no-index), so the
    image builds where containers reach no index. Our own wheel comes from --wheel, not the wheelhouse."""
    wheel = tmp_path / "redlinebench-0.1.0-py3-none-any.whl"
    _stand_in_wheel(wheel)
    house = tmp_path / "house"
    house.mkdir()
    for name in ("lxml-6.0-cp311-cp311-manylinux_2_28_x86_64.whl", "click-8.1-py3-none-any.whl",
                 "redlinebench-0.0.9-py3-none-any.whl"):
        (house / name).write_bytes(name.encode())
    (house / "notes.txt").write_text("not a wheel")
    out = tmp_path / "harbor"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", str(tree), "--task",
                                    "redline-s1-t1-g01a", "--wheel", str(wheel), "--wheelhouse", str(house),
                                    "--base-image", "mirror.example/python:3.12-slim", "--judges", "heuristic"])
    assert res.exit_code == 0, res.output
    env = out / "redline-s1-t1-g01a" / "environment"
    docker = (env / "Dockerfile").read_text().splitlines()
    assert docker[2] == "FROM mirror.example/python:3.12-slim"
    # the dependencies in a layer of their own (reused whatever our wheel), then our wheel, both offline
    assert docker[4:9] == [
        "COPY wheels/ /tmp/wheels/",
        f"{VENV_PIP} --no-index /tmp/wheels/*.whl",
        "COPY redlinebench-0.1.0-py3-none-any.whl /tmp/redlinebench-0.1.0-py3-none-any.whl",
        "RUN /opt/redlinebench/bin/pip install --no-cache-dir --no-index --find-links /tmp/wheels "
        "/tmp/redlinebench-0.1.0-py3-none-any.whl && rm -rf /tmp/wheels /tmp/redlinebench-0.1.0-py3-none-any.whl "
            f"{STRIP}",
        "ENV PATH=/opt/redlinebench/bin:$PATH"], docker
    assert sorted(p.name for p in (env / "wheels").iterdir()) == ["click-8.1-py3-none-any.whl",
                                                                  "lxml-6.0-cp311-cp311-manylinux_2_28_x86_64.whl"]
    assert (env / "wheels" / "click-8.1-py3-none-any.whl").read_bytes() == b"click-8.1-py3-none-any.whl"
    # a spec installs from the wheelhouse too, which must then hold redlinebench
    spec = harbor.dockerfile("t", harbor.ExportOptions(package_spec="redlinebench==0.1.0", wheelhouse=house),
                             has_skills=False)
    assert "--no-index --find-links /tmp/wheels 'redlinebench==0.1.0' && rm -rf /tmp/wheels" in spec
    ours_only = tmp_path / "ours-only"
    ours_only.mkdir()
    (ours_only / "redlinebench-0.0.9-py3-none-any.whl").write_bytes(b"x")
    for bad, why in ((tmp_path / "nowhere", "wheelhouse not found"), (tmp_path / "harbor", "has no .whl file"),
                     (ours_only, "has no .whl file besides redlinebench's own")):
        refused = CliRunner().invoke(main, ["export", "harbor", "--out", str(tmp_path / "x"), "--source", str(tree),
                                            "--wheel", str(wheel), "--wheelhouse", str(bad)])
        assert refused.exit_code != 0 and f"{bad}: " in refused.output and why in refused.output, refused.output
        assert "Traceback" not in refused.output and not (tmp_path / "x").exists()


def test_export_keeps_the_tasks_own_timeouts_and_defaults_the_missing_ones(tmp_path):
    """A task.toml with `[agent] timeout_sec = 3600.0` must not be exported with the 1800 s default."""
    src = build_tree(tmp_path / "bench", [(1, 1, 1, "a", True)])
    toml = src / "tasks" / "redline-s1-t1-g01a" / "task.toml"
    text = toml.read_text().replace("[verifier]\ntimeout_sec = 1800.0", "[verifier]\ntimeout_sec = 900")
    toml.write_text(text)
    opts = harbor.ExportOptions(judges="heuristic", agent_timeout_sec=1200.0, verifier_timeout_sec=600.0)
    [task] = harbor.export_harbor(load_tasks(src), tmp_path / "out", opts)
    cfg = tomllib.loads((task / "task.toml").read_text())
    assert cfg["agent"]["timeout_sec"] == 3600.0 and cfg["verifier"]["timeout_sec"] == 900.0
    # no timeouts in the task: the export's defaults
    toml.write_text(re.sub(r"timeout_sec = [0-9.]+\n", "", text))
    [task] = harbor.export_harbor(load_tasks(src), tmp_path / "out2", opts)
    cfg = tomllib.loads((task / "task.toml").read_text())
    assert cfg["agent"]["timeout_sec"] == 1200.0 and cfg["verifier"]["timeout_sec"] == 600.0
    assert cfg["verifier"]["env"]["REDLINEBENCH_JUDGES"] == "heuristic"
    # the embedded set's tasks say 3600 s for the agent, and keep it
    out = tmp_path / "emb"
    [task] = harbor.export_harbor(load_tasks("embedded").filter(["redline-s1-t1-g01a"]), out)
    assert tomllib.loads((task / "task.toml").read_text())["agent"]["timeout_sec"] == 3600.0


IN_PROCESS_TOOLS = ("read_document", "propose_edits", "add_comment", "mark_reserved", "end_session")


def test_exported_instruction_describes_the_cli_not_the_in_process_tools(tmp_path):
    """The shipped briefs have a Mechanics section naming the agent-loop tools; in a container
    only the `redlinebench doc` commands exist, so the exported brief must say so, consistently."""
    out = tmp_path / "harbor"
    ids = ["redline-s1-t1-g01a", "redline-s2-t2-g01c"]
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded",
                                    *(a for i in ids for a in ("--task", i))], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    for task_id in ids:
        original = load_tasks("embedded").get(task_id)
        assert "## Mechanics" in original.instruction and "`propose_edits`" in original.instruction
        text = (out / task_id / "instruction.md").read_text()
        assert not [t for t in IN_PROCESS_TOOLS if t in text], text
        assert text.count("## Mechanics") == 1 and "## This turn" in text
        assert text.index("## Mechanics") < text.index("## Deliverable (Harbor)") < text.index("## This turn")
        for command in ("doc read", "doc edit", "doc comment", "doc reserve"):
            assert f"redlinebench {command} /app/output/redline.docx" in text
        assert f'--author "{original.author}"' in text and "/app/output/redline.docx" in text
        assert text.startswith(original.instruction.split("## Mechanics")[0])


def test_a_tool_named_outside_mechanics_is_mapped_to_its_command():
    brief = "# Representation\n\nStart with `read_document`; call `end_session` when done.\n"
    text = harbor.container_instruction(brief, "Reviewing Counsel (AgentCo Legal)")
    assert text.startswith(brief.rstrip("\n")) and "## Mechanics (Harbor container)" in text
    assert text.rstrip().endswith("read `read_document` as `redlinebench doc read`, `end_session` as leaving the "
                                  "finished file at /app/output/redline.docx.")
    assert "no in-process document tools" in text


def test_export_refuses_to_overwrite_and_rejects_bad_options(exported, tree, tmp_path):
    again = CliRunner().invoke(main, ["export", "harbor", "--out", str(exported), "--source", str(tree)])
    assert again.exit_code == 1 and "already exists (use --overwrite" in again.output
    ok = CliRunner().invoke(main, ["export", "harbor", "--out", str(exported), "--source", str(tree),
                                   "--task", "redline-s2-t4-g01a", "--overwrite",
                                   "--package-spec", "redlinebench==0.1.0"])
    assert ok.exit_code == 0, ok.output
    docker = (exported / "redline-s2-t4-g01a/environment/Dockerfile").read_text()
    assert f"{VENV_PIP} 'redlinebench==0.1.0'" in docker
    bad = CliRunner().invoke(main, ["export", "harbor", "--out", str(tmp_path / "x"), "--source", str(tree),
                                    "--judges", "panel; rm -rf /"])
    assert bad.exit_code == 2 and "shell metacharacters" in bad.output
    a_file = tmp_path / "out.txt"
    a_file.write_text("not a directory")
    onto_file = CliRunner().invoke(main, ["export", "harbor", "--out", str(a_file), "--source", str(tree)])
    assert onto_file.exit_code != 0 and isinstance(onto_file.exception, SystemExit)  # not a traceback
    assert f"{a_file}: exists and is not a directory" in onto_file.output


def _shim(tmp_path: Path) -> dict[str, str]:
    """A `redlinebench` on PATH that runs this worktree's package, as the container's would."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "redlinebench"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m redlinebench \"$@\"\n")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PATH=f"{bin_dir}:{env.get('PATH', '')}", PYTHONPATH=str(ROOT))
    return env


def _run_test_sh(task_dir: Path, logs: Path, output: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    env = {**env, "REDLINEBENCH_TESTS_DIR": str(task_dir / "tests"), "REDLINEBENCH_LOGS_DIR": str(logs),
           "REDLINEBENCH_OUTPUT": str(output)}
    return subprocess.run(["bash", str(task_dir / "tests/test.sh")], env=env, capture_output=True, text=True,
                          timeout=300)


def test_exported_test_sh_grades_an_agent_redline_and_a_missing_document(exported, tmp_path):
    env = _shim(tmp_path)
    task = exported / "redline-s1-t1-g01a"
    author = "Reviewing Counsel (AgentCo Legal)"
    # what an agent in the container does, following the exported instruction.md
    out = tmp_path / "app" / "output" / "redline.docx"
    out.parent.mkdir(parents=True)
    out.write_bytes((task / "environment/app/contract.docx").read_bytes())
    rb = str(tmp_path / "bin" / "redlinebench")
    view = subprocess.run([rb, "doc", "read", str(out)], env=env, capture_output=True, text=True, check=True).stdout
    pid = re.search(r"\[(p-\d+)\][^\n]*Customer shall pay", view).group(1)
    edits = tmp_path / "edits.json"
    edits.write_text(json.dumps([{"op": "replace", "anchor": {"paragraph_id": pid, "text": "30 days"},
                                  "new_text": "45 days", "comment": "Our standard payment term."}]))
    subprocess.run([rb, "doc", "edit", str(out), str(edits), "--author", author], env=env, check=True,
                   capture_output=True)
    logs = tmp_path / "logs-good"
    proc = _run_test_sh(task, logs, out, env)
    assert proc.returncode == 0, proc.stderr
    grade = json.loads((logs / "grade.json").read_text())
    assert grade["task_id"] == "redline-s1-t1-g01a" and grade["gate"]["passed"] is True
    assert grade["status"] == "graded" and grade["judge_method"] == "heuristic"
    assert float((logs / "reward.txt").read_text()) == pytest.approx(grade["score"]["weighted"], abs=1e-6)
    assert (logs / "redline.docx").read_bytes() == out.read_bytes()
    assert "~~30~~[A1]++45++[A1]" in (logs / "annotated_view.md").read_text()
    # no document at all: a gate failure is a 0 reward, still written for Harbor
    logs = tmp_path / "logs-missing"
    proc = _run_test_sh(task, logs, tmp_path / "nothing.docx", env)
    assert proc.returncode == 0, proc.stderr
    grade = json.loads((logs / "grade.json").read_text())
    assert grade["gate"]["passed"] is False and grade["status"] == "gate_failed"
    assert (logs / "reward.txt").read_text().strip() == "0.000000"


# --------------------------------------------------------------------------- import
def _grade(task_id: str, weighted: float, **over) -> dict:
    g = {"task_id": task_id, "model": "harbor-agent", "trial": 1, "status": "graded", "judge_method": "llm",
         "judges": ["openai/gpt-5.4-mini"], "gate": {"passed": True}, "score": {"weighted": weighted}}
    g.update(over)
    return g


def _trial(job: Path, name: str, task_id: str, started: str, *, grade: dict | None, reward=None, exc=None,
           message: str = "boom") -> Path:
    d = job / name
    (d / "verifier").mkdir(parents=True)
    (d / "agent").mkdir()
    (d / "agent" / "trajectory.json").write_text('{"steps": []}')
    result = {"task_name": task_id, "trial_name": name, "started_at": started, "finished_at": started,
              "agent_info": {"name": "terminus-2"}, "agent_result": {"n_input_tokens": 1200, "n_output_tokens": 300,
                                                                     "cost_usd": 0.01},
              "verifier_result": {"rewards": {"reward": reward}} if reward is not None else None,
              "exception_info": {"exception_type": exc, "exception_message": message} if exc else None}
    (d / "result.json").write_text(json.dumps(result))
    if grade is not None:
        (d / "verifier" / "grade.json").write_text(json.dumps(grade))
        (d / "verifier" / "redline.docx").write_bytes(b"PK docx of " + name.encode())
    return d


@pytest.fixture
def jobs(tmp_path) -> Path:
    root = tmp_path / "jobs"
    job = root / "2026-11-29__10-00-00"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"agents": [{"name": "terminus-2", "model_name": "openai/gpt-5.5"}]}))
    (job / "result.json").write_text(json.dumps({"n_total_trials": 3, "started_at": "2026-11-29T10:00:00"}))
    # started later, so it is trial 2 even though its name sorts first
    _trial(job, "redline-s1-t1-g01a__aaa", "redline-s1-t1-g01a", "2026-11-29T10:05:00",
           grade=_grade("redline-s1-t1-g01a", 0.25), reward=0.25)
    _trial(job, "redline-s1-t1-g01a__zzz", "redline-s1-t1-g01a", "2026-11-29T10:01:00",
           grade=_grade("redline-s1-t1-g01a", 0.5), reward=0.5)
    _trial(job, "redline-s1-t2-g01a__ccc", "redline-s1-t2-g01a", "2026-11-29T10:02:00",
           grade=None, exc="AgentTimeoutError")
    return root


def test_import_maps_trials_into_the_run_layout_and_summarizes(jobs, tmp_path):
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "imported 3 trial(s)" in res.output
    assert "AgentTimeoutError: boom" in res.output
    base = run / "trials" / "openai_gpt-5.5"
    first = json.loads((base / "redline-s1-t1-g01a/1/grade.json").read_text())
    second = json.loads((base / "redline-s1-t1-g01a/2/grade.json").read_text())
    assert (first["model"], first["trial"], first["score"]["weighted"]) == ("openai/gpt-5.5", 1, 0.5)
    assert (second["trial"], second["score"]["weighted"]) == (2, 0.25)
    assert (base / "redline-s1-t1-g01a/1/redline.docx").read_bytes() == b"PK docx of redline-s1-t1-g01a__zzz"
    assert (base / "redline-s1-t1-g01a/1/harbor/agent/trajectory.json").is_file()
    metrics = json.loads((base / "redline-s1-t1-g01a/1/metrics.json").read_text())
    assert (metrics["agent"], metrics["tokens_in"], metrics["tokens_out"], metrics["cost_usd"]) == (
        "terminus-2", 1200, 300, 0.01)
    errored = json.loads((base / "redline-s1-t2-g01a/1/grade.json").read_text())
    assert errored["status"] == "errored" and "AgentTimeoutError" in errored["errors"][0]
    summary = json.loads((run / "metrics_summary.json").read_text())
    [row] = summary["leaderboard"]
    # one scored group (s1-t1-g01: mean of 0.5 and 0.25) in one cell -> 0.375; the errored trial is listed
    assert row["overall_turn_weighted"] == 0.375 and row["redline_overall"] == 37.5
    assert row["n_trials"] == 2 and summary["n_incomplete"] == 1
    # the run directory is an ordinary run: the report renders from it
    rep = CliRunner().invoke(main, ["report", str(run)], catch_exceptions=False)
    assert rep.exit_code == 0, rep.output
    assert "openai/gpt-5.5" in (run / "report.html").read_text()


def test_imported_metrics_use_the_run_schema_so_loaders_and_the_report_see_tokens(jobs, tmp_path):
    """metrics.json of an imported trial has the field names a local run writes (tokens_in,
    tokens_out, cost_usd, status, ...), so `load_run` and report.html show its tokens and cost."""
    from redlinebench.report import load_run
    from redlinebench.runner.scheduler import METRICS_SCHEMA_VERSION

    job = next(jobs.iterdir())
    timed = job / "redline-s1-t1-g01a__zzz" / "result.json"
    result = json.loads(timed.read_text())
    result["agent_result"]["n_cache_tokens"] = 800
    result["started_at"], result["finished_at"] = "2026-11-29T10:01:00.250000", "2026-11-29T10:09:00+00:00"
    result["agent_execution"] = {"started_at": "2026-11-29T10:02:00", "finished_at": "2026-11-29T10:07:30.5"}
    timed.write_text(json.dumps(result))
    run = tmp_path / "run"
    harbor.import_harbor(jobs, run)
    data = load_run(run)
    by_dir = {(t.task_id, t.trial_name): t for t in data.trials}
    first = by_dir[("redline-s1-t1-g01a", "1")]
    assert (first.tokens_in, first.tokens_out, first.cost) == (1200, 300, 0.01)
    assert first.latency == 330.5 and first.status == "graded"
    m = first.metrics
    assert {"schema_version", "task_id", "model", "agent", "trial", "status", "end_reason", "started", "finished",
            "wall_s", "tokens_in", "tokens_out", "cost_usd", "cost_known"} <= set(m)
    assert not [k for k in m if k.startswith("n_") or k.endswith("_at")]  # Harbor's names are not top-level
    assert (m["schema_version"], m["task_id"], m["model"], m["trial"]) == (
        METRICS_SCHEMA_VERSION, "redline-s1-t1-g01a", "openai/gpt-5.5", 1)
    assert (m["status"], m["cost_known"]) == ("completed", True)
    assert (m["started"], m["finished"]) == ("2026-11-29T10:01:00Z", "2026-11-29T10:09:00Z")
    assert m["harbor"]["n_cache_tokens"] == 800 and m["harbor"]["trial_name"] == "redline-s1-t1-g01a__zzz"
    # Harbor's agent timeout is the run's limit_reached; the errored row still says errored in its grade
    timeout = by_dir[("redline-s1-t2-g01a", "1")]
    assert timeout.metrics["status"] == "limit_reached" and timeout.metrics["end_reason"] == "agent_timeout"
    assert timeout.status == "errored" and timeout.tokens_in == 1200
    # the report's totals include the imported tokens
    rep = CliRunner().invoke(main, ["report", str(run)], catch_exceptions=False)
    assert rep.exit_code == 0, rep.output
    html = (run / "report.html").read_text()
    assert "1.2k / 300" in html  # a trial's tokens in / out
    assert "3.6k / 900" in html  # the run's total: 3 trials x 1,200 in / 300 out


def test_an_agent_crash_is_an_errored_metrics_row_and_unknown_costs_are_not_zero(tmp_path):
    job = tmp_path / "jobs" / "job-1"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"agents": [{"name": "terminus-2", "model_name": "openai/m"}]}))
    d = _trial(job, "redline-s1-t1-g01a__a", "redline-s1-t1-g01a", "2026-11-29T10:00:00", grade=None,
               exc="AgentSetupError", message="pip failed")
    result = json.loads((d / "result.json").read_text())
    result["agent_result"] = {"n_input_tokens": None, "n_output_tokens": None, "cost_usd": None}
    (d / "result.json").write_text(json.dumps(result))
    harbor.import_harbor(tmp_path / "jobs", tmp_path / "run")
    m = json.loads((tmp_path / "run/trials/openai_m/redline-s1-t1-g01a/1/metrics.json").read_text())
    assert (m["status"], m["end_reason"], m["error"]) == ("errored", "AgentSetupError", "AgentSetupError: pip failed")
    assert m["tokens_in"] is None and m["cost_usd"] is None and m["cost_known"] is False
    from redlinebench.report import load_run

    [t] = load_run(tmp_path / "run").trials
    assert t.cost is None and t.tokens_in is None and t.status == "errored"


def test_an_errored_trial_reads_cleanly_and_does_not_make_the_judging_mixed(tmp_path):
    """Harbor often leaves exception_message empty; and an errored row (judge_method "none") was
    never judged, so a heuristic-only import is labelled heuristic, not "mixed"."""
    job = tmp_path / "jobs" / "job-1"
    job.mkdir(parents=True)
    (job / "config.json").write_text(json.dumps({"agents": [{"name": "terminus-2", "model_name": "openai/m"}]}))
    for name, weighted in (("redline-s1-t1-g01a__a", 0.5), ("redline-s1-t1-g01b__b", 0.25)):
        _trial(job, name, name.split("__")[0], "2026-11-29T10:00:00",
               grade=_grade(name.split("__")[0], weighted, judge_method="heuristic", judges=["heuristic"]))
    _trial(job, "redline-s1-t2-g01a__c", "redline-s1-t2-g01a", "2026-11-29T10:01:00", grade=None,
           exc="AgentTimeoutError", message="")
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(tmp_path / "jobs"), "--run-dir", str(run)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "AgentTimeoutError" in res.output and "AgentTimeoutError:" not in res.output
    errored = json.loads((run / "trials/openai_m/redline-s1-t2-g01a/1/grade.json").read_text())
    assert errored["errors"] == ["AgentTimeoutError"] and errored["judge_method"] == "none"
    summary = json.loads((run / "metrics_summary.json").read_text())
    [row] = summary["leaderboard"]
    assert summary["judge_method"] == "heuristic" and row["judge_method"] == "heuristic"
    assert row["judge_methods"] == ["heuristic"] and summary["n_incomplete"] == 1
    table = CliRunner().invoke(main, ["summarize", str(run / "trials")], catch_exceptions=False)
    assert "mixed" not in table.output and "heuristic" in table.output


def test_reimport_is_idempotent_and_adds_only_new_trials(jobs, tmp_path):
    run = tmp_path / "run"
    harbor.import_harbor(jobs, run)
    job = next(jobs.iterdir())
    _trial(job, "redline-s1-t1-g01a__new", "redline-s1-t1-g01a", "2026-11-29T11:00:00",
           grade=_grade("redline-s1-t1-g01a", 1.0), reward=1.0)
    report = harbor.import_harbor(jobs, run)
    assert len(report.skipped) == 3 and [p.name for p in report.imported] == ["3"]
    grades = sorted((run / "trials").glob("*/*/*/grade.json"))
    assert len(grades) == 4


def test_import_errors_name_the_file(tmp_path):
    with pytest.raises(RedlineBenchError, match="Harbor jobs directory not found"):
        harbor.import_harbor(tmp_path / "nope", tmp_path / "run")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RedlineBenchError, match="no Harbor trials"):
        harbor.import_harbor(tmp_path / "empty", tmp_path / "run")
    bad = tmp_path / "bad" / "job" / "t1"
    bad.mkdir(parents=True)
    (bad / "result.json").write_text("{broken")
    with pytest.raises(RedlineBenchError, match=r"t1/result\.json: unreadable JSON"):
        harbor.import_harbor(tmp_path / "bad", tmp_path / "run")


def test_unusable_grades_become_errored_rows_naming_the_file(jobs, tmp_path):
    job = next(jobs.iterdir())
    broken = job / "redline-s1-t1-g01a__aaa" / "verifier" / "grade.json"
    broken.write_text("{not json")
    invalid = job / "redline-s1-t1-g01a__zzz" / "verifier" / "grade.json"
    invalid.write_text(json.dumps({"task_id": "redline-s1-t1-g01a", "gate": {"passed": True}}))  # no score
    report = harbor.import_harbor(jobs, tmp_path / "run")
    assert len(report.imported) == 3 and len(report.errored) == 3
    rows = {json.loads(p.read_text())["harbor"]["trial_name"]: json.loads(p.read_text())
            for p in (tmp_path / "run" / "trials").glob("*/*/*/grade.json")}
    assert rows["redline-s1-t1-g01a__aaa"]["status"] == "errored"
    assert "grade.json: unreadable JSON" in rows["redline-s1-t1-g01a__aaa"]["errors"][0]
    assert "score: missing" in rows["redline-s1-t1-g01a__zzz"]["errors"][0]
    summary = json.loads((tmp_path / "run" / "metrics_summary.json").read_text())
    assert summary["n_incomplete"] == 3 and summary["leaderboard"][0]["n_trials"] == 0


def test_verify_treats_hostile_output_as_a_gate_failure_and_bad_tasks_as_one_line_errors(tree, tmp_path):
    task_dir = tree / "tasks" / "redline-s1-t1-g01a"
    garbage = tmp_path / "out.docx"
    garbage.write_bytes(b"PK\x03\x04 this is not a word document")
    logs = tmp_path / "logs"
    res = CliRunner().invoke(main, ["verify", "--task-dir", str(task_dir), "--output", str(garbage),
                                    "--logs", str(logs), "--judges", "heuristic"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    grade = json.loads((logs / "grade.json").read_text())
    assert grade["status"] == "gate_failed" and grade["gate"]["reason"]
    assert f"why: {grade['gate']['reason']}" in res.output  # the console says why, not only grade.json
    assert (logs / "reward.txt").read_text() == "0.000000\n"
    res = CliRunner().invoke(main, ["verify", "--task-dir", str(tmp_path / "nope"), "--output", str(garbage),
                                    "--logs", str(logs)])
    assert res.exit_code == 2 and res.output.startswith("error: ") and "does not exist" in res.output  # typed
    (task_dir / "tests" / "rubrics.json").write_text("{broken")
    res = CliRunner().invoke(main, ["verify", "--task-dir", str(task_dir), "--output", str(garbage),
                                    "--logs", str(logs), "--judges", "heuristic"])
    assert res.exit_code == 1 and "rubrics.json" in res.output and len(res.output.strip().splitlines()) == 1


def test_import_records_the_task_source_and_rejects_foreign_tasks(jobs, tmp_path):
    tree = build_tree(tmp_path / "bench", [(1, 1, 1, "a", True), (1, 2, 1, "a", True), (1, 3, 1, "a", True)])
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run), "--source", str(tree)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["kind"] == "harbor-import" and cfg["harbor_jobs"] == [str(jobs.resolve())]
    assert (cfg["data"]["n_tasks"], cfg["data"]["n_tasks_in_source"]) == (2, 3)
    assert cfg["data"]["task_ids"] == ["redline-s1-t1-g01a", "redline-s1-t2-g01a"]
    assert Path(cfg["source"]["path"]).resolve() in (tree.resolve(), (tree / "tasks").resolve())
    # a push would now know the set is partial (2 of 3 tasks)
    from redlinebench.integrations import hub

    results = hub.load_results(run)
    problems = hub.publish_problems(results, hub.pick_entry(results.summary), dataset_id="org/x")
    assert any("covers 2 of the 3 tasks of its source" in p for p in problems)
    other = build_tree(tmp_path / "other", [(3, 1, 1, "a", True)])
    bad = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(tmp_path / "run2"),
                                    "--source", str(other)])
    assert bad.exit_code == 1 and "imported trials of tasks not in" in bad.output
    assert "redline-s1-t1-g01a" in bad.output


def test_a_harbor_import_publishes_with_the_harbor_agent_named(jobs, tmp_path):
    from redlinebench.integrations import hub

    run = tmp_path / "run"
    harbor.import_harbor(jobs, run)
    plan, problems = hub.plan_results_push(run, model_repo="org/m", dataset_id="org/x", force=True)
    text = plan.files[hub.RESULTS_PATH].decode()
    import yaml
    from huggingface_hub import parse_eval_result_entries

    [entry] = parse_eval_result_entries(yaml.safe_load(text))
    assert "agent: Harbor agent terminus-2; agent prompt: none recorded" in entry.notes
    assert "model: openai/gpt-5.5" in entry.notes
    assert "value: 37.5" in text
    assert any("incomplete judging or errored" in p for p in problems)
    assert not any("judge method" in p for p in problems)  # the errored row was never judged: still "llm"


def test_a_source_record_that_is_not_an_object_is_a_one_line_error_naming_it(jobs, tmp_path):
    run = tmp_path / "run"
    harbor.import_harbor(jobs, run)
    record = run / "trials" / "openai_gpt-5.5" / "redline-s1-t1-g01a" / "1" / "harbor" / "source.json"
    record.write_text("[1]")
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run)])
    assert res.exit_code == 1, res.output
    assert str(record) in res.output and "not a JSON object" in res.output
    assert "Traceback" not in res.output and "AttributeError" not in res.output
    assert len(res.output.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["..", ".", 12345, "../../etc", "redline-s1-t1-g01a/..", "", "redline-s1-t1-g01"])
def test_a_task_name_that_is_not_a_task_id_is_refused_naming_the_trial(jobs, tmp_path, name):
    job = next(jobs.iterdir())
    bad = _trial(job, "weird__bbb", name, "2026-11-29T10:03:00", grade=_grade("redline-s1-t1-g01a", 1.0), reward=1.0)
    run = tmp_path / "run"
    with pytest.raises(RedlineBenchError, match="not a task id") as err:
        harbor.import_harbor(jobs, run)
    assert str(bad) in str(err.value)
    # nothing is written, least of all outside trials/<model>/<task>/
    assert not run.exists() and not (tmp_path / "trials").exists()
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run)])
    assert res.exit_code == 1 and "weird__bbb" in res.output and "Traceback" not in res.output


def test_an_unreadable_trial_result_is_an_errored_row_and_the_other_trials_are_imported(jobs, tmp_path):
    job = next(jobs.iterdir())
    (job / "redline-s1-t1-g01a__aaa" / "result.json").write_text("{broken")
    (job / "redline-s1-t2-g01a__ccc" / "result.json").write_text("[1]")  # JSON, but not a trial object
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(run)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "imported 3 trial(s)" in res.output
    rows = {json.loads(p.read_text())["harbor"]["trial_name"]: (p.parent, json.loads(p.read_text()))
            for p in (run / "trials").glob("*/*/*/grade.json")}
    tdir, broken = rows["redline-s1-t1-g01a__aaa"]
    assert broken["status"] == "errored" and broken["task_id"] == "redline-s1-t1-g01a"
    assert "redline-s1-t1-g01a__aaa/result.json: unreadable JSON" in broken["errors"][0]
    metrics = json.loads((tdir / "metrics.json").read_text())
    assert (metrics["status"], metrics["end_reason"]) == ("errored", "unreadable_result")
    assert "unreadable JSON" in metrics["error"]
    assert "trial result.json is not an object" in rows["redline-s1-t2-g01a__ccc"][1]["errors"][0]
    assert rows["redline-s1-t1-g01a__zzz"][1]["status"] == "graded"
    assert (run / "trials" / "openai_gpt-5.5" / "redline-s1-t1-g01a" / "2" / "harbor" / "source.json").is_file()
    # and a re-import knows the errored rows: nothing is imported twice
    again = harbor.import_harbor(jobs, run)
    assert again.imported == [] and len(again.skipped) == 3


@pytest.mark.parametrize("name, data", [("passwd", b"root:x:0:0"), ("x.whl", b"not a zip"),
                                        ("other-1.0-py3-none-any.whl", None)])
def test_a_wheel_option_that_is_not_a_redlinebench_wheel_is_refused(tree, tmp_path, name, data):
    import zipfile

    wheel = tmp_path / name
    if data is None:
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr("other-1.0.dist-info/METADATA", "Name: other\n")
    else:
        wheel.write_bytes(data)
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(tmp_path / "h"), "--source", str(tree),
                                    "--wheel", str(wheel), "--judges", "heuristic"])
    assert res.exit_code != 0 and "not a wheel" in res.output and not (tmp_path / "h").exists()


def test_harbor_export_follows_the_links_the_loader_follows(tree, tmp_path):
    grounding = tree / "tasks" / "redline-s1-t1-g01a" / "environment" / "app" / "grounding"
    (grounding / "shared.md").write_text("shared text\n")
    (grounding / "alias.md").symlink_to("shared.md")  # inside the task: the loader reads it
    wheel = tmp_path / "redlinebench-0.1.0-py3-none-any.whl"
    _stand_in_wheel(wheel)
    out = tmp_path / "h"
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", str(tree),
                                    "--wheel", str(wheel), "--judges", "heuristic"])
    assert res.exit_code == 0, res.output
    copied = out / "redline-s1-t1-g01a" / "environment" / "app" / "grounding" / "alias.md"
    assert copied.read_text() == "shared text\n" and not copied.is_symlink()


# ----------------------------------------------------------------------------- keys, oracle, Harbor's own tools
def _export(tree: Path, out: Path, judges: str, *extra: str) -> Path:
    res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", str(tree),
                                    "--judges", judges, *extra], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def test_the_verifier_env_names_only_the_keys_the_judges_read_each_with_an_empty_default(tree, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set-on-this-host")  # what is set here must not matter
    out = _export(tree, tmp_path / "panel", "panel")
    env = tomllib.loads((out / "redline-s1-t1-g01a" / "task.toml").read_text())["verifier"]["env"]
    assert env == {"ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY:-}", "GEMINI_API_KEY": "${GEMINI_API_KEY:-}",
                   "GOOGLE_API_KEY": "${GOOGLE_API_KEY:-}", "OPENAI_API_KEY": "${OPENAI_API_KEY:-}",
                   "REDLINEBENCH_JUDGES": "panel"}
    one = _export(tree, tmp_path / "one", "anthropic/claude-haiku-4-5")
    env = tomllib.loads((one / "redline-s1-t1-g01a" / "task.toml").read_text())["verifier"]["env"]
    assert set(env) == {"ANTHROPIC_API_KEY", "REDLINEBENCH_JUDGES"}


def _golden_layout(task: Path, root: Path, env: dict[str, str]) -> Path:
    """Harbor's oracle in a temp layout: solution/ as /solution, the output under root/app/output."""
    out = root / "app" / "output" / "redline.docx"
    proc = subprocess.run(["bash", str(task / "solution" / "solve.sh")], capture_output=True, text=True, timeout=60,
                          env={**env, "REDLINEBENCH_SOLUTION_DIR": str(task / "solution"),
                               "REDLINEBENCH_OUTPUT": str(out)})
    assert proc.returncode == 0, proc.stderr
    return out


def test_the_oracle_solution_scores_each_task_as_the_golden_baseline(tree, tmp_path):
    """solve.sh then test.sh, per exported task (one has no golden: the accept-all stand-in), give the
    reward `redlinebench run --agent golden` gives the same task with the same judges."""
    out = _export(tree, tmp_path / "harbor", "heuristic")
    run_dir = tmp_path / "golden-run"
    res = CliRunner().invoke(main, ["run", "--agent", "golden", "--judges", "heuristic", "--source", str(tree),
                                    "--run-dir", str(run_dir)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    expected = {json.loads(p.read_text())["task_id"]: json.loads(p.read_text())["score"]["weighted"]
                for p in run_dir.glob("trials/*/*/*/grade.json")}
    assert len(expected) == 3
    env = _shim(tmp_path)
    for task in sorted(p for p in out.iterdir() if (p / "task.toml").is_file()):
        assert (task / "solution" / "solve.sh").stat().st_mode & stat.S_IXUSR
        produced = _golden_layout(task, tmp_path / "oracle" / task.name, env)
        logs = tmp_path / "oracle" / task.name / "logs"
        proc = _run_test_sh(task, logs, produced, env)
        assert proc.returncode == 0, proc.stderr
        assert float((logs / "reward.txt").read_text()) == pytest.approx(expected[task.name], abs=1e-6), task.name
    stand_in = json.loads((tmp_path / "oracle" / "redline-s2-t4-g01a" / "logs" / "grade.json").read_text())
    assert stand_in["gate"]["passed"] is True  # no golden: the accept-all stand-in, a valid redline


def test_a_panel_export_without_keys_stops_with_our_missing_key_error(tree, tmp_path):
    """Harbor resolves ${VAR:-} to "" when the host has no key: the verifier says which keys to set
    and writes no reward (Harbor then marks the trial failed), instead of a run of failed judge calls."""
    out = _export(tree, tmp_path / "harbor", "panel")
    task = out / "redline-s1-t1-g01a"
    env = _shim(tmp_path)
    env.update({k: "" for k in tomllib.loads((task / "task.toml").read_text())["verifier"]["env"]
                if k.endswith("_KEY")})
    produced = _golden_layout(task, tmp_path / "oracle", env)
    logs = tmp_path / "logs"
    proc = _run_test_sh(task, logs, produced, env)
    assert proc.returncode != 0
    assert "have no provider key in the verifier environment" in proc.stderr
    assert "OPENAI_API_KEY" in proc.stderr and "ANTHROPIC_API_KEY" in proc.stderr and "Traceback" not in proc.stderr
    assert not (logs / "reward.txt").exists()


@pytest.fixture(scope="module")
def harbor_python() -> Path:
    """Python 3.12+ with harbor installed: $REDLINEBENCH_HARBOR_PYTHON (.ci/run creates it)."""
    value = os.environ.get("REDLINEBENCH_HARBOR_PYTHON")
    python = Path(value) if value else None
    if python is None or not python.is_file():
        why = ("harbor needs Python 3.12+: set REDLINEBENCH_HARBOR_PYTHON to the python of a venv with "
               f"`pip install harbor==0.26.0` (got {value!r})")
        if os.environ.get("REDLINEBENCH_REQUIRE_EXTERNAL") in {"1", "true", "yes"}:
            pytest.fail(why)
        pytest.skip(why)
    return python


_HARBOR_CHECK = """
import json, os, sys
from pathlib import Path
from harbor.models.task.task import Task
from harbor.utils.env import resolve_env_vars
out = []
for d in sorted(Path(sys.argv[1]).iterdir()):
    if d.name == ".redlinebench":  # the export's own folder (the shared wheel): no task, and Harbor skips it
        continue
    t = Task(d)
    out.append({"name": d.name, "mode": t.config.verifier.environment_mode.value,
                "env": resolve_env_vars(t.config.verifier.env), "solve": t.paths.solve_path.is_file(),
                "artifacts": [a if isinstance(a, str) else a.source for a in t.config.artifacts]})
print(json.dumps(out))
"""


def test_harbor_parses_and_lints_every_export_clean(harbor_python, tmp_path):
    """Harbor's own Task parser and `harbor lint` on the whole embedded set, heuristic and panel exports."""
    from redlinebench.tasks import load_tasks as load

    n = len(load("embedded"))
    harbor_cli = harbor_python.with_name("harbor")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}  # a host with no keys
    for judges in ("heuristic", "panel"):
        out = tmp_path / judges
        res = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded",
                                        "--judges", judges], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        proc = subprocess.run([str(harbor_python), "-c", _HARBOR_CHECK, str(out)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        parsed = json.loads(proc.stdout)
        assert len(parsed) == n == 39
        for task in parsed:
            assert task["mode"] == "separate" and task["solve"] and task["artifacts"] == ["/app/output"]
            keys = {k: v for k, v in task["env"].items() if k != "REDLINEBENCH_JUDGES"}
            assert keys == ({} if judges == "heuristic" else dict.fromkeys(keys, "")) and task["env"]["REDLINEBENCH_JUDGES"] == judges
        # the lint command the export prints, through a shell (its glob) and Harbor's own CLI
        printed = [line for line in res.output.splitlines() if line.startswith("check them with: ")]
        assert printed == [f"check them with: harbor lint {out}/*/"], res.output
        path = {**env, "PATH": f"{harbor_cli.parent}:{env.get('PATH', '')}"}
        lint = subprocess.run(["bash", "-c", printed[0].removeprefix("check them with: ") + " --json"],
                              env=path, capture_output=True, text=True, timeout=300)
        assert lint.returncode == 0, (lint.stdout + lint.stderr)[-3000:]
        assert json.loads(lint.stdout) == []
    # why not `harbor lint OUT`: harbor 0.26 lints task directories only, the folder itself is no task
    whole = subprocess.run([str(harbor_cli), "lint", str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert whole.returncode == 1 and "Missing task configuration" in whole.stdout, whole.stdout + whole.stderr
