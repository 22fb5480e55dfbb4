"""Harbor for real: two exported tasks built and run in Docker by `harbor run -a oracle`, then imported.

The other Harbor tests stop at Harbor's parser and lint, and run solve.sh and test.sh outside a
container. This one builds the exported Dockerfiles (offline: a wheelhouse, no index) on a local base
image, lets Harbor's oracle hand in each task's solution, and checks that Harbor's rewards and the
imported run equal `redlinebench run --agent golden` on the same tasks with the same judges.

Needs a running Docker daemon with the compose v2 plugin, the base image (``.ci/run`` builds
``redlinebench-base:bookworm`` with debootstrap: no image registry needed) and the harbor venv
(``REDLINEBENCH_HARBOR_PYTHON``). Skipped without them, failed under ``REDLINEBENCH_REQUIRE_EXTERNAL=1``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from redlinebench.cli import main
from redlinebench.integrations.harbor import _wheel

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

BASE_IMAGE = os.environ.get("REDLINEBENCH_HARBOR_BASE_IMAGE", "redlinebench-base:bookworm")
TASKS = ("redline-s1-t1-g01a", "redline-s1-t2-g01a")  # one of each side, both with a golden redline
HOW = "(.ci/run installs docker.io and the compose plugin, starts dockerd and builds the base image)"


def _unavailable(why: str) -> None:
    if os.environ.get("REDLINEBENCH_REQUIRE_EXTERNAL") in {"1", "true", "yes"}:
        pytest.fail(f"required in CI: {why}")
    pytest.skip(why)


def _quiet(cmd: list[str], timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def docker() -> str:
    """The docker CLI, with a daemon that answers, compose v2 and the base image present."""
    path = shutil.which("docker")
    if path is None:
        _unavailable(f"docker is not installed {HOW}")
    if _quiet([path, "info"]).returncode != 0:
        _unavailable(f"the Docker daemon does not answer (`docker info` fails; start dockerd) {HOW}")
    if _quiet([path, "compose", "version"]).returncode != 0:
        _unavailable(f"`docker compose` (the compose v2 plugin Harbor drives) is missing {HOW}")
    if _quiet([path, "image", "inspect", BASE_IMAGE]).returncode != 0:
        _unavailable(f"the base image {BASE_IMAGE} is absent (REDLINEBENCH_HARBOR_BASE_IMAGE names another to use) "
                     f"{HOW}")
    return path


@pytest.fixture(scope="module")
def harbor_cli() -> Path:
    value = os.environ.get("REDLINEBENCH_HARBOR_PYTHON")
    cli = Path(value).with_name("harbor") if value else None
    if cli is None or not cli.is_file():
        _unavailable("harbor needs Python 3.12+: set REDLINEBENCH_HARBOR_PYTHON to the python of a venv with "
                     f"`pip install harbor==0.26.0` (got {value!r})")
    return cli


def _wheelhouse(docker: str, wheel: Path, dest: Path) -> Path:
    """Wheels of redlinebench's dependencies for the base image's Python: containers reach no index."""
    probe = _quiet([docker, "run", "--rm", "--network", "none", BASE_IMAGE, "python3", "-c",
                    "import sys; print('%d.%d' % sys.version_info[:2])"])
    assert probe.returncode == 0, f"{BASE_IMAGE} has no working python3: {probe.stderr[-500:]}"
    version = probe.stdout.strip()
    pins = dest.with_name("constraints.txt")  # the versions this test runs with: the same grades, and a
    pins.write_text(_installed_versions(), encoding="utf-8")  # stable wheelhouse Docker's layer cache reuses
    got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(dest), "--only-binary=:all:",
                          "--python-version", version, "-c", str(pins), str(wheel)],
                         capture_output=True, text=True, timeout=600)
    if got.returncode != 0:
        last = (got.stderr.strip().splitlines() or ["?"])[-1]
        _unavailable(f"pip download of the dependencies for Python {version} failed (no package index?): {last}")
    return dest


def _installed_versions() -> str:
    """``name==version`` of every distribution in this Python but redlinebench: pip constraints."""
    from importlib.metadata import distributions

    pins = {(d.metadata["Name"] or "").lower(): d.version for d in distributions()}
    return "".join(f"{name}=={version}\n" for name, version in sorted(pins.items())
                   if name and name != "redlinebench" and "+" not in version)


def _no_keys() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # litellm in harbor would otherwise fetch its price table
    return env


def _golden_summary(tmp_path: Path) -> dict:
    golden = tmp_path / "golden-run"
    ran = CliRunner().invoke(main, ["run", "--agent", "golden", "--judges", "heuristic", "--source", "embedded",
                                    "--tasks", ",".join(TASKS), "--run-dir", str(golden)], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    return json.loads((golden / "metrics_summary.json").read_text())


def _reproduce(harbor_cli: Path, work: Path, house: Path, *extra: str) -> subprocess.CompletedProcess:
    """`redlinebench reproduce` as a user types it, in a fresh process (Harbor's progress on its stdout)."""
    task_args = [arg for task in TASKS for arg in ("--task", task)]
    env = {**_no_keys(), "PYTHONPATH": str(ROOT), "PATH": f"{harbor_cli.parent}:{os.environ.get('PATH', '')}"}
    return subprocess.run([sys.executable, "-m", "redlinebench", "reproduce", *task_args, "--source", "embedded",
                           "--judges", "heuristic", "--workdir", str(work), "--base-image", BASE_IMAGE,
                           "--wheelhouse", str(house), "--n-concurrent", "2", *extra],
                          env=env, capture_output=True, text=True, timeout=1800, cwd=ROOT)


def test_reproduce_with_harbors_oracle_in_docker_scores_as_the_golden_run_and_reruns_for_free(docker, harbor_cli,
                                                                                              tmp_path):
    wheel = _wheel.build_wheel(tmp_path / "dist", tools_only=True)
    house = _wheelhouse(docker, wheel, tmp_path / "wheelhouse")
    work = tmp_path / "work"
    proc = _reproduce(harbor_cli, work, house, "--agent", "oracle", "--model", "oracle")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert "harbor job:" in proc.stdout and "(ran)" in proc.stdout and "imported 2 new trial(s)" in proc.stdout
    [job] = sorted((work / "jobs").iterdir())
    results = [json.loads(p.read_text()) for p in sorted(job.glob("*/result.json"))]
    assert sorted(r["task_name"] for r in results) == sorted(TASKS)
    for r in results:
        assert r.get("exception_info") is None, (r["task_name"], r["exception_info"])
        grade = json.loads((job / r["trial_name"] / "verifier" / "grade.json").read_text())
        assert grade["gate"]["passed"] is True, grade["gate"]  # a real redline graded, not two equal zeros

    ours = _golden_summary(tmp_path)
    theirs = json.loads((work / "results" / "metrics_summary.json").read_text())
    assert ours["redline_overall"] == {"golden": theirs["redline_overall"]["oracle"]}
    ours_row, theirs_row = ours["leaderboard"][0], theirs["leaderboard"][0]
    assert (ours_row.pop("model"), theirs_row.pop("model")) == ("golden", "oracle")
    assert theirs_row == ours_row  # the headline, its CI, the cells, categories, diagnostics and golden agreement
    assert (work / "results" / "report.html").is_file()

    again = _reproduce(harbor_cli, work, house, "--agent", "oracle", "--model", "oracle")
    assert again.returncode == 0, (again.stdout + again.stderr)[-4000:]
    assert "(reused)" in again.stdout and "complete already: nothing run" in again.stdout
    assert "imported 0 new trial(s)" in again.stdout
    assert sorted((work / "jobs").iterdir()) == [job] and len(list(job.glob("*/result.json"))) == 2


#: The answer key by name: a task's rubrics, golden redline, judge fixtures, the oracle's solution.
ANSWER_KEY_NAMES = {"rubrics.json", "attorney_redlines.docx", "golden_calls.json", "solve.sh", "test.sh"}


def test_the_built_agent_image_holds_no_file_of_any_answer_key(docker, tmp_path):
    """Build one exported environment as Harbor does and list every file of the image: no rubric, golden,
    verifier or solution file by name, and no file with the bytes of any task's tests/ or solution/."""
    import hashlib

    from redlinebench.tasks import load_tasks

    wheel = _wheel.build_wheel(tmp_path / "dist", tools_only=True)
    house = _wheelhouse(docker, wheel, tmp_path / "wheelhouse")
    out = tmp_path / "harbor-tasks"
    exported = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded",
                                         "--task", TASKS[0], "--judges", "heuristic", "--wheelhouse", str(house),
                                         "--base-image", BASE_IMAGE], catch_exceptions=False)
    assert exported.exit_code == 0, exported.output
    tag = "redlinebench-agent-image-test:latest"
    built = _quiet([docker, "build", "-q", "-t", tag, str(out / TASKS[0] / "environment")], timeout=1500)
    assert built.returncode == 0, built.stderr[-3000:]
    try:
        listing = _quiet([docker, "run", "--rm", "--network", "none", tag, "sh", "-c",
                          "find / -xdev -type f -size -4M \\( -name '*.json' -o -name '*.docx' -o -name '*.sh' "
                          "-o -name '*.md' \\) -exec sha256sum {} + 2>/dev/null; echo; "
                          "find / -xdev -type f 2>/dev/null | wc -l"], timeout=600)
        assert listing.returncode == 0, listing.stderr[-2000:]
        files = dict(reversed(line.split(None, 1)) for line in listing.stdout.splitlines() if "  /" in line)
        n_files = int(listing.stdout.strip().splitlines()[-1])
        # a login shell (terminus' tmux session) resets PATH from /etc/profile: the tools must still be found
        login = _quiet([docker, "run", "--rm", "--network", "none", tag, "bash", "-lc", "redlinebench doc --help"],
                       timeout=300)
        assert login.returncode == 0, login.stdout + login.stderr
    finally:
        _quiet([docker, "rmi", "-f", tag])
    assert "/app/contract.docx" in files and "/skills/contract-redliner/SKILL.md" in files and n_files > 1000
    by_name = [path for path in files if path.rsplit("/", 1)[-1] in ANSWER_KEY_NAMES]
    assert by_name == []
    assert not [path for path in files if "/_data/benchmark/" in path or "/judge_check/" in path]
    secret = {}
    for task in load_tasks("embedded"):
        for part in ("tests", "solution"):
            for f in (Path(task.root) / part).rglob("*"):
                if f.is_file():
                    secret[hashlib.sha256(f.read_bytes()).hexdigest()] = f
    leaked = {path: str(secret[digest]) for path, digest in files.items() if digest in secret}
    assert leaked == {}


#: The LLM agent's task: a turn-2 task, so there is a counterparty thread to reply to.
LLM_TASK = "redline-s1-t2-g01a"


def _terminus_script(task_root: Path) -> list[dict]:
    """What the scripted model answers terminus-2, turn by turn: read the contract, make one tracked edit
    and one reply with `redlinebench doc` in the container, then mark the task complete (twice: terminus
    asks for a confirmation)."""
    import base64

    from redlinebench.integrations.harbor import load_single_task

    task = load_single_task(task_root)
    doc = subprocess.run([sys.executable, "-m", "redlinebench", "doc", "read", "--json", str(task.contract_path)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env={**os.environ,
                                                                                     "PYTHONPATH": str(ROOT)})
    data = json.loads(doc.stdout)
    para = next(p for p in data["paragraphs"] if "fifty percent (50%)" in p["text"])
    thread = next(c for c in data["comments"] if c["parent"] is None)
    edits = [{"op": "replace", "anchor": {"paragraph_id": para["id"], "text": "fifty percent (50%)"},
              "new_text": "more than fifty percent (50%) or the power to direct management",
              "comment": "Control also covers the power to direct management, as our playbook requires."}]
    blob = base64.b64encode(json.dumps(edits).encode()).decode()
    out, author = "/app/output/redline.docx", task.author
    step = lambda cmds, done=False: {"analysis": "scripted", "plan": "scripted", "task_complete": done,  # noqa: E731
                                     "commands": [{"keystrokes": c, "duration": d} for c, d in cmds]}
    return [
        step([(f"cp /app/contract.docx {out} && redlinebench doc read {out} | head -n 40\n", 8)]),
        step([(f"echo {blob} | base64 -d > /tmp/edits.json\n", 0.5),
              (f"redlinebench doc edit {out} /tmp/edits.json --author '{author}'\n", 10),
              (f"redlinebench doc comment {out} --reply-to {thread['id']} --text 'We cannot agree; see our edit.' "
               f"--author '{author}'\n", 10)]),
        step([], done=True),
        step([], done=True),
    ]


def test_terminus_2_driven_by_a_fake_model_redlines_in_the_container_through_reproduce(docker, harbor_cli, tmp_path):
    """Harbor's own LLM agent (its litellm calls on this host reach the loopback fake via --ak api_base) reads,
    edits and replies with `redlinebench doc` inside the container; the imported grade is what `verify` says
    of the same file, the tokens are recorded and the integrity audit is clean."""
    from tests.fakes.openai_server import FakeOpenAI, Reply

    from redlinebench.integrations import harbor
    from redlinebench.tasks import load_tasks

    root = Path(load_tasks("embedded").get(LLM_TASK).root)
    script = _terminus_script(root)
    wheel = _wheel.build_wheel(tmp_path / "dist", tools_only=True)
    house = _wheelhouse(docker, wheel, tmp_path / "wheelhouse")
    work = tmp_path / "work"
    turns: list[int] = []

    def answer(body: dict) -> Reply:
        turns.append(len(turns))
        reply = script[min(len(turns) - 1, len(script) - 1)]
        return Reply.json(reply, usage=(1000, 50))

    with FakeOpenAI() as srv:
        srv.set_handler(answer)
        env = {**_no_keys(), "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-fake",
               "PATH": f"{harbor_cli.parent}:{os.environ.get('PATH', '')}"}
        proc = subprocess.run([sys.executable, "-m", "redlinebench", "reproduce", "--agent", "terminus-2",
                               "--model", "openai/gpt-4o-mini", "--ak", f"api_base={srv.url}", "--task", LLM_TASK,
                               "--source", "embedded", "--judges", "heuristic", "--workdir", str(work),
                               "--base-image", BASE_IMAGE, "--wheelhouse", str(house)],
                              env=env, capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    assert len(turns) >= 4, turns  # the agent really talked to the fake model
    [trial] = list((work / "results" / "trials").glob(f"*/{LLM_TASK}/1"))
    grade = json.loads((trial / "grade.json").read_text())
    assert grade["status"] == "graded" and grade["gate"]["passed"] is True, grade["gate"]
    assert grade["integrity"]["passed"] is True and grade["integrity"]["findings"] == [], grade["integrity"]
    again = harbor.verify(root, trial / "redline.docx", tmp_path / "reverify", judges="heuristic")
    assert again.reward == pytest.approx(grade["score"]["weighted"], abs=1e-9)
    metrics = json.loads((trial / "metrics.json").read_text())
    assert metrics["agent"] == "terminus-2" and metrics["tokens_in"] >= 4000 and metrics["tokens_out"] >= 200
    text = subprocess.run([sys.executable, "-m", "redlinebench", "doc", "read", "--json", str(trial / "redline.docx")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    data = json.loads(text.stdout)
    mine = [r for r in data["revisions"] if r.get("author") == load_tasks("embedded").get(LLM_TASK).author]
    replies = [c for c in data["comments"] if c["parent"] and "We cannot agree" in c["text"]]
    assert mine and replies  # a tracked edit and a reply, made in the container
