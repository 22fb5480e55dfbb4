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


def test_harbor_oracle_in_docker_scores_and_imports_as_the_golden_run(docker, harbor_cli, tmp_path):
    wheel = _wheel.build_wheel(tmp_path / "dist", tools_only=True)
    house = _wheelhouse(docker, wheel, tmp_path / "wheelhouse")
    out = tmp_path / "harbor-tasks"
    task_args = [arg for task in TASKS for arg in ("--task", task)]
    exported = CliRunner().invoke(main, ["export", "harbor", "--out", str(out), "--source", "embedded", *task_args,
                                         "--judges", "heuristic", "--wheel", str(wheel), "--wheelhouse", str(house),
                                         "--base-image", BASE_IMAGE], catch_exceptions=False)
    assert exported.exit_code == 0, exported.output
    golden = tmp_path / "golden-run"
    ran = CliRunner().invoke(main, ["run", "--agent", "golden", "--judges", "heuristic", "--source", "embedded",
                                    "--tasks", ",".join(TASKS), "--run-dir", str(golden)], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    expected = {g["task_id"]: g["score"]["weighted"]
                for g in (json.loads(p.read_text()) for p in golden.glob("trials/*/*/*/grade.json"))}
    assert sorted(expected) == sorted(TASKS)

    jobs = tmp_path / "jobs"
    proc = subprocess.run([str(harbor_cli), "run", "-p", str(out), "-a", "oracle", "-o", str(jobs), "--job-name",
                           "oracle", "-n", "2", "-y"], env=_no_keys(), capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    results = [json.loads(p.read_text()) for p in sorted((jobs / "oracle").glob("*/result.json"))]
    assert sorted(r["task_name"] for r in results) == sorted(TASKS), (proc.stdout + proc.stderr)[-4000:]
    for r in results:
        assert r.get("exception_info") is None, (r["task_name"], r["exception_info"])
        reward = r["verifier_result"]["rewards"]["reward"]
        assert reward == pytest.approx(expected[r["task_name"]], abs=1e-6), r["task_name"]  # harbor rounds to 1e-6
        grade = json.loads((jobs / "oracle" / r["trial_name"] / "verifier" / "grade.json").read_text())
        assert grade["gate"]["passed"] is True, grade["gate"]  # a real redline graded, not two equal zeros

    imported = tmp_path / "imported"
    back = CliRunner().invoke(main, ["import", "harbor", str(jobs), "--run-dir", str(imported), "--source",
                                     "embedded"], catch_exceptions=False)
    assert back.exit_code == 0 and "imported 2 trial(s)" in back.output, back.output
    ours = json.loads((golden / "metrics_summary.json").read_text())
    theirs = json.loads((imported / "metrics_summary.json").read_text())
    assert ours["redline_overall"] == {"golden": theirs["redline_overall"]["harbor:oracle"]}
    ours_row, theirs_row = ours["leaderboard"][0], theirs["leaderboard"][0]
    assert (ours_row.pop("model"), theirs_row.pop("model")) == ("golden", "harbor:oracle")
    assert theirs_row == ours_row  # the headline, its CI, the cells, categories, diagnostics and golden agreement
