"""``redlinebench reproduce``: the public release's one-command road (export, ``harbor run``, import, summarize).

A work directory holds everything a reproduction needs, so running the same command again goes on
where it stopped and pays for nothing twice::

    <workdir>/tasks/                     the Harbor export (``.redlinebench/export.json``: what it was made from)
    <workdir>/jobs/<job>/                Harbor's job; the name encodes the agent, model and export, so a
                                         re-run resumes it (``harbor jobs resume``) or skips it when complete
    <out>                                our run directory: trials, ``metrics_summary.json``, ``report.html``

Everything that would fail later is checked first (:func:`preflight`), one line per problem, before a
wheel or an image is built.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ._export import ExportOptions, export_harbor
from ._keys import key_names, missing_keys
from ._baseline import baseline_delta, read_baseline, summary_rows
from ._layout import DEFAULT_BASE_IMAGE, SHARED_DIR, HarborError, _atomic_write

#: Harbor's agents that call no model (no key, no ``--model``).
MODEL_FREE_AGENTS = frozenset({"oracle", "nop"})
#: Harbor environments that run containers on this machine (Docker and its compose plugin needed).
LOCAL_ENVS = frozenset({"docker"})
MANIFEST = "export.json"
#: Bumped when the export's layout changes in a way an older export must not be reused for.
EXPORT_LAYOUT = "reproduce-export-1"
_KV = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$", re.DOTALL)


@dataclass(frozen=True)
class ReproduceOptions:
    """The public release's flags (agent, model, n_concurrent, env, env_file, agent_env, workdir, out)
    and ours (source, tasks, limit, judges, skill, mcp, agent_kwargs, harbor)."""

    agent: str
    model: str | None = None
    task_ids: tuple[str, ...] = ()
    source: str | None = None
    limit: int | None = None
    judges: str = "panel"
    n_concurrent: int = 4
    env: str = "docker"
    env_file: Path | None = None
    agent_env: tuple[str, ...] = ()          # KEY=VALUE, passed to Harbor's --ae
    agent_kwargs: tuple[str, ...] = ()       # KEY=VALUE, passed to Harbor's --ak (e.g. api_base=URL)
    workdir: Path = Path("redlinebench-reproduce")
    out: Path | None = None
    skill: bool = True
    mcp: bool = False
    base_image: str = DEFAULT_BASE_IMAGE
    wheelhouse: Path | None = None
    harbor: str | None = None                # the harbor CLI [$REDLINEBENCH_HARBOR, else `harbor` on PATH]
    extra_env: Mapping[str, str] = field(default_factory=dict)  # for tests: the environment seen as the host's

    @property
    def run_dir(self) -> Path:
        return self.out if self.out is not None else self.workdir / "results"

    @property
    def tasks_dir(self) -> Path:
        return self.workdir / "tasks"

    @property
    def jobs_dir(self) -> Path:
        return self.workdir / "jobs"


def parse_pairs(pairs: Sequence[str], flag: str) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict, or a one-line error naming the flag."""
    out: dict[str, str] = {}
    for pair in pairs:
        match = _KV.match(pair)
        if match is None:
            raise ConfigError(f"{flag} {pair!r}: expected KEY=VALUE")
        out[match.group(1)] = match.group(2)
    return out


def read_env_file(path: Path) -> dict[str, str]:
    """A ``.env`` file (``KEY=VALUE`` lines, ``export`` and quotes allowed, ``#`` comments) as a dict."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the env file: {getattr(exc, 'strerror', None) or exc}", path=path) from None
    out: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _KV.match(line.removeprefix("export ").strip())
        if match is None:
            raise ConfigError(f"line {n}: expected KEY=VALUE, got {raw.strip()[:40]!r}", path=path)
        value = match.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[match.group(1)] = value
    return out


def host_env(opts: ReproduceOptions) -> dict[str, str]:
    """The variables Harbor will see: this process's, the env file's and the test override."""
    env = dict(os.environ)
    if opts.env_file is not None:
        env.update(read_env_file(opts.env_file))
    env.update(opts.extra_env)
    return env


# ----------------------------------------------------------------------------- preflight
def harbor_executable(opts: ReproduceOptions, env: Mapping[str, str]) -> str | None:
    """The harbor CLI: ``--harbor``, ``$REDLINEBENCH_HARBOR``, or ``harbor`` on PATH."""
    given = opts.harbor or env.get("REDLINEBENCH_HARBOR")
    if given:
        return given if Path(given).is_file() and os.access(given, os.X_OK) else None
    return shutil.which("harbor", path=env.get("PATH"))


#: Run by Harbor's own Python: its agent and environment names, and its own preflight of a cloud
#: environment (credentials), with the variables Harbor will see.
_PROBE = """
import json, sys
from harbor.models.agent.name import AgentName
from harbor.models.environment_type import EnvironmentType
name = sys.argv[1]
out = {"agents": sorted(AgentName.values()), "envs": [e.value for e in EnvironmentType], "env_problem": None}
if name in out["envs"] and name != "docker":
    try:
        from harbor.environments.factory import EnvironmentFactory
        EnvironmentFactory.run_preflight(type=EnvironmentType(name))
    except SystemExit as exc:
        out["env_problem"] = exc.code if isinstance(exc.code, str) else "its preflight failed"
    except Exception as exc:
        out["env_problem"] = str(exc) or type(exc).__name__
print(json.dumps(out))
"""


def harbor_probe(harbor: str, env_name: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """What this Harbor knows (agents, environments) and says of ``env_name``, asked of its own Python
    (the interpreter on the harbor script's ``#!`` line); None when that cannot be asked."""
    try:
        first = Path(harbor).read_bytes()[:300].split(b"\n", 1)[0].decode("utf-8", "replace")
    except OSError:
        return None
    python = first[2:].strip().split()[0] if first.startswith("#!") and first[2:].strip() else None
    if not python or not Path(python).is_file():
        return None
    try:
        proc = subprocess.run([python, "-c", _PROBE, env_name], capture_output=True, text=True, timeout=120,
                              env=dict(env))
        data = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("agents"), list) else None


def _unknown(kind: str, flag: str, name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{flag} {name!r}: Harbor has no such {kind} ({hint}known: {', '.join(known)})"


def _docker_problem(env: Mapping[str, str]) -> str | None:
    docker = shutil.which("docker", path=env.get("PATH"))
    if docker is None:
        return ("docker: not found on PATH; `--env docker` (the default) runs each task in a local container "
                "(install Docker, or run on a cloud environment: --env modal|daytona|e2b)")
    for args, what in ((["info"], "the Docker daemon does not answer (`docker info` fails: start dockerd)"),
                       (["compose", "version"], "the compose v2 plugin Harbor drives is missing (`docker compose "
                                                "version` fails: install docker-compose-plugin)")):
        try:
            ok = subprocess.run([docker, *args], capture_output=True, timeout=60, env=dict(env)).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if not ok:
            return f"docker: {what}"
    return None


def _agent_key_problem(opts: ReproduceOptions, env: Mapping[str, str]) -> str | None:
    if opts.agent in MODEL_FREE_AGENTS:
        return None
    if not opts.model:
        return f"--model: agent {opts.agent!r} needs one (e.g. --model anthropic/claude-opus-4-8)"
    kwargs = parse_pairs(opts.agent_kwargs, "--ak")
    if kwargs.get("api_base") or kwargs.get("base_url"):
        return None  # an explicit endpoint (a proxy, a local or fake model) takes whatever key it takes
    have = {**env, **parse_pairs(opts.agent_env, "--agent-env")}
    wanted = key_names(opts.model)
    if wanted and not any(have.get(name) for name in wanted):
        return (f"agent key: {opts.agent} with {opts.model} needs {' or '.join(wanted)} (set it, put it in "
                f"--env-file, or pass --agent-env {wanted[0]}=...)")
    return None


def _judge_key_problem(opts: ReproduceOptions, env: Mapping[str, str]) -> str | None:
    from unittest import mock

    from ...judge import create_judges

    panel = create_judges(opts.judges)
    with mock.patch.dict(os.environ, dict(env), clear=True):
        missing = missing_keys(panel)
    if not missing:
        return None
    wanted = "; ".join(f"{name} needs {' or '.join(keys)}" for name, keys in missing.items())
    return (f"judge keys: the judges ({opts.judges}) grade in Harbor's verifier with this host's keys: {wanted} "
            "(or --judges heuristic for a key-free, unpublishable check)")


def preflight(opts: ReproduceOptions) -> list[str]:
    """Every problem that would stop the run later, one line each (empty: go). Builds and runs nothing."""
    problems: list[str] = []
    try:
        env = host_env(opts)
        parse_pairs(opts.agent_env, "--agent-env")
        parse_pairs(opts.agent_kwargs, "--ak")
    except ConfigError as exc:
        return [str(exc)]
    harbor = harbor_executable(opts, env)
    if harbor is None:
        where = opts.harbor or env.get("REDLINEBENCH_HARBOR")
        problems.append(f"harbor: {where!r} is not an executable" if where else
                        "harbor: not found on PATH (Python 3.12+: `pip install harbor==0.26.0`, or --harbor PATH)")
    else:
        probe = harbor_probe(harbor, opts.env, env) or {}
        if probe.get("agents") and opts.agent not in probe["agents"]:
            problems.append(_unknown("agent", "--agent", opts.agent, probe["agents"]))
        if probe.get("envs") and opts.env not in probe["envs"]:
            problems.append(_unknown("environment", "--env", opts.env, probe["envs"]))
        elif probe.get("env_problem"):
            problems.append(f"--env {opts.env}: {' '.join(str(probe['env_problem']).split())}")
    if opts.env in LOCAL_ENVS:
        problem = _docker_problem(env)
        if problem:
            problems.append(problem)
    for check in (_agent_key_problem, _judge_key_problem):
        problem = check(opts, env)
        if problem:
            problems.append(problem)
    return problems


# ----------------------------------------------------------------------------- export (reused when unchanged)
def package_fingerprint() -> str:
    """A hash of the running package's files (what the tools-only wheel is built from)."""
    from . import _wheel

    pkg = _wheel.package_dir()
    skip = tuple(f"{rel}/" for rel in _wheel.ANSWER_KEY_DIRS)
    h = hashlib.blake2b(digest_size=16)
    for path in sorted(pkg.rglob("*")):
        rel = path.relative_to(pkg).as_posix()
        if not path.is_file() or "__pycache__" in rel or rel.endswith((".pyc", ".pyo")) or rel.startswith(skip):
            continue
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def export_manifest(tasks: Sequence[Any], opts: ReproduceOptions) -> dict[str, Any]:
    """What an export is made from: an earlier export with the same manifest is reused as it is."""
    from ...tasks import fingerprint_dirs

    return {
        "layout": EXPORT_LAYOUT,
        "package": package_fingerprint(),
        "tasks": {t.task_id: fingerprint_dirs([Path(t.root)]) for t in tasks},
        "judges": opts.judges, "skill": opts.skill, "mcp": opts.mcp, "base_image": opts.base_image,
        "wheelhouse": str(opts.wheelhouse) if opts.wheelhouse else None,
    }


def ensure_export(tasks: Sequence[Any], opts: ReproduceOptions) -> tuple[dict[str, Any], bool]:
    """Export the tasks into ``<workdir>/tasks`` unless an export with the same manifest is there.

    Returns (manifest, reused). A different export is replaced whole: Harbor runs every task of the folder.
    """
    manifest = export_manifest(tasks, opts)
    path = opts.tasks_dir / SHARED_DIR / MANIFEST
    try:
        if json.loads(path.read_text(encoding="utf-8")) == manifest:
            return manifest, True
    except (OSError, ValueError):
        pass
    if opts.tasks_dir.exists():
        if any(opts.tasks_dir.iterdir()) and not (opts.tasks_dir / SHARED_DIR).is_dir():
            raise ConfigError("exists and is not an export reproduce made (no .redlinebench/ inside): "
                              "choose another --workdir", path=opts.tasks_dir)
        shutil.rmtree(opts.tasks_dir)
    export_opts = ExportOptions(judges=opts.judges, base_image=opts.base_image, wheelhouse=opts.wheelhouse,
                                mcp=opts.mcp, skill=opts.skill)
    export_harbor(tasks, opts.tasks_dir, export_opts)
    _atomic_write(path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest, False


# ----------------------------------------------------------------------------- harbor
def job_name(opts: ReproduceOptions, manifest: Mapping[str, Any]) -> str:
    """Stable for the same agent, model, export and settings (then Harbor resumes the job), new otherwise."""
    from ...runner.paths import slug

    settings = {"agent": opts.agent, "model": opts.model, "env": opts.env, "export": manifest,
                "agent_kwargs": sorted(opts.agent_kwargs), "agent_env": sorted(k.split("=", 1)[0]
                                                                               for k in opts.agent_env)}
    digest = hashlib.blake2b(json.dumps(settings, sort_keys=True).encode(), digest_size=5).hexdigest()
    return f"reproduce-{slug(opts.agent)}-{slug(opts.model or 'none')}-{digest}"


def harbor_command(harbor: str, opts: ReproduceOptions, job: str) -> list[str]:
    """``harbor jobs resume`` for a job already started, else ``harbor run`` with the public release's flags."""
    job_dir = opts.jobs_dir / job
    if (job_dir / "config.json").is_file():
        return [harbor, "jobs", "resume", "-p", str(job_dir)]
    cmd = [harbor, "run", "-p", str(opts.tasks_dir), "-a", opts.agent, "-o", str(opts.jobs_dir), "--job-name", job,
           "-n", str(opts.n_concurrent), "-e", opts.env, "-y"]
    if opts.model:
        cmd += ["-m", opts.model]
    if opts.env_file is not None:
        cmd += ["--env-file", str(opts.env_file)]
    for pair in opts.agent_env:
        cmd += ["--ae", pair]
    for pair in opts.agent_kwargs:
        cmd += ["--ak", pair]
    return cmd


def job_complete(job_dir: Path, task_ids: Sequence[str]) -> bool:
    """Every task has a finished trial in the job (then nothing is left for Harbor to run)."""
    done: set[str] = set()
    for result in job_dir.glob("*/result.json"):
        try:
            data = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and data.get("task_name") and data.get("finished_at"):
            done.add(str(data["task_name"]))
    return bool(task_ids) and set(task_ids) <= done


def harbor_env(opts: ReproduceOptions) -> dict[str, str]:
    env = {**os.environ, **opts.extra_env}
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm in Harbor would fetch its price table
    return env


@dataclass
class ReproduceResult:
    run_dir: Path
    job_dir: Path
    reused_export: bool
    harbor_ran: bool
    imported: int
    summary_path: Path | None
    report_path: Path | None = None
    notes: list[str] = field(default_factory=list)


def select_tasks(opts: ReproduceOptions) -> list[Any]:
    from ...tasks import load_tasks

    tasks = load_tasks(opts.source).filter(list(opts.task_ids) or None)
    selected = list(tasks)
    if opts.limit is not None:
        selected = selected[:opts.limit]
    if not selected:
        raise ConfigError("no task matches --task/--tasks: nothing to run")
    return selected


def reproduce(opts: ReproduceOptions, *, run_harbor: Any = None) -> ReproduceResult:
    """Preflight, export (or reuse), ``harbor run`` (or resume, or nothing), import, summarize, report.

    ``run_harbor(cmd, env) -> int`` runs Harbor (default: a subprocess whose output is this process's).
    """
    from ...report import write_run_report
    from ._import import import_harbor

    problems = preflight(opts)
    if problems:
        raise PreflightError(problems)
    tasks = select_tasks(opts)
    manifest, reused = ensure_export(tasks, opts)
    job = job_name(opts, manifest)
    job_dir = opts.jobs_dir / job
    harbor = harbor_executable(opts, host_env(opts))
    assert harbor is not None  # preflight checked it
    ran = False
    if not job_complete(job_dir, [t.task_id for t in tasks]):
        cmd = harbor_command(harbor, opts, job)
        runner = run_harbor or (lambda c, e: subprocess.run(c, env=e).returncode)
        code = runner(cmd, harbor_env(opts))
        ran = True
        if code != 0 and not any(job_dir.glob("*/result.json")):
            raise HarborError(f"harbor exited with {code} and left no trial ({shlex.join(cmd)})", path=job_dir)
    report = import_harbor(job_dir, opts.run_dir, source=opts.source, summarize=True)
    result = ReproduceResult(opts.run_dir, job_dir, reused, ran, len(report.imported), report.summary_path)
    result.notes += [f"errored trial kept as an errored row: {line}" for line in report.errored]
    if report.summary_path is not None:
        result.report_path = write_run_report(opts.run_dir)
    return result


class PreflightError(ConfigError):
    """What would fail later, found before anything is built: one line per problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


__all__ = ["ReproduceOptions", "ReproduceResult", "PreflightError", "baseline_delta", "ensure_export",
           "harbor_command", "job_name", "preflight", "read_baseline", "reproduce", "summary_rows"]
