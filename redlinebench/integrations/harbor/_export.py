"""``export harbor``: the SPEC §2 tree as runnable Harbor tasks (Dockerfile, test.sh, task.toml)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tomli_w

from ..._atomic import atomic_replace_dir
from ...errors import ConfigError, TaskError
from . import _wheel
from ._keys import judge_env_keys
from ._skill import SKILL_NAME, SKILL_VERSION, SKILLS_DIR, mcp_config, mcp_server_entry, skill_markdown
from ._layout import (APP_DIR, DEFAULT_BASE_IMAGE, OUTPUT_PATH, SHARED_DIR, SOLUTION_DIR, TESTS_DIR, VENV_DIR,
                      VERIFIER_LOGS, WHEELHOUSE, _SAFE_SPEC, _SKIP_COPY, HarborError)


@dataclass(frozen=True)
class ExportOptions:
    """How exported tasks install the package and call the verifier.

    With neither ``wheel`` nor ``package_spec``, :func:`export_harbor` builds a wheel of the
    running package (redlinebench is not on PyPI). The timeouts and resources are defaults for
    tasks that do not set them: a task.toml's own ``[agent]`` / ``[verifier]`` ``timeout_sec``
    (and ``[environment]`` ``cpus`` / ``memory_mb``) are kept.
    """

    package_spec: str | None = None          # pip requirement your own index serves, e.g. "redlinebench==0.1.0"
    wheel: Path | None = None                # or a wheel copied into every environment/
    wheelhouse: Path | None = None           # wheels of the dependencies: install offline (pip --no-index)
    judges: str = "panel"
    base_image: str = DEFAULT_BASE_IMAGE
    agent_timeout_sec: float = 1800.0
    verifier_timeout_sec: float = 1800.0
    cpus: int = 1
    memory_mb: int = 2048
    overwrite: bool = False
    judge_env: tuple[str, ...] | None = None  # provider keys the judges read; None: worked out from ``judges``
    mcp: bool = False                         # install the [mcp] extra; task.toml and /app/.mcp.json serve the tools
    skill: bool = True                        # ship environment/skills/contract-redliner/SKILL.md (skills_dir)


def verifier_env_keys(opts: ExportOptions) -> tuple[str, ...]:
    """The provider keys passed to the verifier: exactly those the chosen judges read."""
    if opts.judge_env is not None:
        return opts.judge_env
    from ...judge import create_judges

    return tuple(judge_env_keys(create_judges(opts.judges)))


def _install_lines(opts: ExportOptions) -> list[str]:
    """Install redlinebench into a venv at ``VENV_DIR``, put first on ``PATH``.

    A venv, not the image's own Python: Debian's system Python refuses ``pip install`` (PEP 668)
    and has no pip at all without python3-pip, while ``python3 -m venv`` works on ``python:*-slim``
    and on a Debian/Ubuntu base with python3-venv alike. With a wheelhouse, pip never touches an
    index (``--no-index``): the image builds where containers have no network or no PyPI. The
    wheelhouse is installed in a layer of its own, before our wheel is copied: that layer depends on
    the wheelhouse alone, so Docker reuses it across tasks, re-exports and rebuilt redlinebench wheels.
    """
    pip = f"{VENV_DIR}/bin/pip install --no-cache-dir"
    venv = f"python3 -m venv {VENV_DIR}"
    lines: list[str] = []
    scratch: list[str] = []
    if opts.wheelhouse is not None:
        lines += [f"COPY {WHEELHOUSE}/ /tmp/{WHEELHOUSE}/", f"RUN {venv} && {pip} --no-index /tmp/{WHEELHOUSE}/*.whl"]
        venv = ""
        pip += f" --no-index --find-links /tmp/{WHEELHOUSE}"
        scratch.append(f"/tmp/{WHEELHOUSE}")
    extra = "[mcp]" if opts.mcp else ""
    if opts.wheel is not None:
        name = opts.wheel.name
        lines.append(f"COPY {name} /tmp/{name}")
        target = f"/tmp/{name}{extra}"
        scratch.append(f"/tmp/{name}")
    else:
        spec = opts.package_spec
        if not spec:  # redlinebench is not on PyPI: a bare requirement would not install
            raise ConfigError("no way to install redlinebench in the task image: give a wheel or a package spec")
        if any(c in spec for c in "'\"\n\\"):
            raise ConfigError(f"--package-spec: quotes, backslashes and newlines are not allowed: {spec!r}")
        target = f"'{spec}'" if not extra or "[" in spec else f"'{_with_extra(spec, extra)}'"
    # The agent shares this image: whatever installed the package (a full wheel from an index), the
    # embedded task set (rubrics, goldens) is removed in the same layer, so no layer ever holds it.
    scratch += [f"{VENV_DIR}/lib/python3*/site-packages/redlinebench/{rel}" for rel in _wheel.ANSWER_KEY_DIRS]
    cleanup = f" && rm -rf {' '.join(scratch)}"
    lines.append(f"RUN {venv + ' && ' if venv else ''}{pip} {target}{cleanup}")
    lines.append(f"ENV PATH={VENV_DIR}/bin:$PATH")
    # A login shell (the tmux session of Harbor's terminus agents, `bash -l`) resets PATH from
    # /etc/profile, which drops the venv: the command is linked where every profile looks.
    lines.append(f"RUN ln -sf {VENV_DIR}/bin/redlinebench /usr/local/bin/redlinebench")
    return lines


def _with_extra(spec: str, extra: str) -> str:
    """``name==1.0`` -> ``name[mcp]==1.0``: the extra goes after the distribution name."""
    match = re.match(r"[A-Za-z0-9._-]+", spec)
    return spec if match is None else spec[:match.end()] + extra + spec[match.end():]


def dockerfile(task_id: str, opts: ExportOptions, *, has_skills: bool) -> str:
    lines = [
        f"# RedlineBench task {task_id}: the contract and grounding in {APP_DIR}, and the redlinebench",
        "# package, which gives the agent its `redlinebench doc` commands and the verifier its grader.",
        f"FROM {opts.base_image}",
        "ENV PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 LITELLM_LOCAL_MODEL_COST_MAP=True",
        *_install_lines(opts),
        f"WORKDIR {APP_DIR}",
        f"COPY app/ {APP_DIR}/",
    ]
    if has_skills:
        lines.append(f"COPY skills/ {SKILLS_DIR}/")
    if opts.mcp:
        lines.append(f"COPY .mcp.json {APP_DIR}/.mcp.json")
    lines.append(f"RUN mkdir -p {Path(OUTPUT_PATH).parent}")
    return "\n".join(lines) + "\n"


def verifier_script(task_id: str, judges: str) -> str:
    """The verifier script. Paths can be moved with env vars so the same script runs outside Harbor."""
    if not _SAFE_SPEC.fullmatch(judges):
        raise ConfigError(f"--judges: only letters, digits and . , : / @ + = _ - are allowed (no shell metacharacters): {judges!r}")
    return f"""#!/usr/bin/env bash
# Harbor verifier for RedlineBench task {task_id}.
# Grades the agent's document with redlinebench (gate, judge panel, reward) and writes
# reward.txt for Harbor plus grade.json, redline.docx and annotated_view.md to the log dir.
set -u
TESTS_DIR="${{REDLINEBENCH_TESTS_DIR:-{TESTS_DIR}}}"
LOGS_DIR="${{REDLINEBENCH_LOGS_DIR:-{VERIFIER_LOGS}}}"
mkdir -p "$LOGS_DIR"
exec redlinebench verify \\
  --task-dir "$TESTS_DIR/task/{task_id}" \\
  --output "${{REDLINEBENCH_OUTPUT:-{OUTPUT_PATH}}}" \\
  --logs "$LOGS_DIR" \\
  --judges "${{REDLINEBENCH_JUDGES:-{judges}}}"
"""


#: The version of what a container agent reads beyond the task's own brief (``container_mechanics``),
#: recorded in every exported task.toml's ``[metadata]``: Harbor results of different brief versions
#: are not comparable. harbor-brief-2: says every change must be tracked and what the integrity audit
#: (SPEC §5.1) refuses.
BRIEF_VERSION = "harbor-brief-2"

#: What the verifier's integrity audit refuses, as the container brief and ``doc --help`` say it.
INTEGRITY_RULES = (
    "Every change must be a tracked change or a comment. The verifier compares your file with the "
    "original contract and scores 0 (no judge reads it) when it finds: text added, removed or altered "
    "without tracking (editing the .docx with python-docx or by hand does exactly that); revisions or "
    "comments under any author name other than yours; the other side's revisions or comments altered; "
    "hidden text (hidden, white or tiny font). Silently removing the other side's revisions or comments, "
    "and text addressed to the grader or judges, are flagged, shown to the judges and keep the result "
    "off the leaderboard."
)

#: The in-process tool API of a local run, and the ``redlinebench doc`` command doing the same in a container.
TOOL_COMMANDS = {
    "read_document": "redlinebench doc read",
    "propose_edits": "redlinebench doc edit",
    "add_comment": "redlinebench doc comment",
    "mark_reserved": "redlinebench doc reserve",
    "end_session": f"leaving the finished file at {OUTPUT_PATH}",
}
_TOOL_NAME = re.compile(r"\b(" + "|".join(TOOL_COMMANDS) + r")\b")
_MECHANICS = re.compile(r"^##[ \t]+Mechanics\b[^\n]*\n.*?(?=^##?[ \t]|\Z)", re.MULTILINE | re.DOTALL)


def _command_phrase(tool: str) -> str:
    command = TOOL_COMMANDS[tool]
    return command if tool == "end_session" else f"`{command}`"


def container_mechanics(author: str) -> str:
    """The ``## Mechanics`` section for a Harbor container, where the work is done with ``redlinebench doc``.

    The in-process tools (``read_document``, ``propose_edits``, ...) exist only inside a local run's
    agent loop; a container agent has a shell, so the brief must describe the CLI instead.
    """
    out = OUTPUT_PATH
    return (
        "## Mechanics (Harbor container)\n\n"
        "Work on the document with the `redlinebench doc` commands installed in this environment. "
        f"Copy `{APP_DIR}/contract.docx` to `{out}` and edit that copy in place:\n\n"
        "```\n"
        f"cp {APP_DIR}/contract.docx {out}\n"
        f"redlinebench doc read {out}                  # paragraphs as [p-NNN] with clause numbers and changes\n"
        f"redlinebench doc edit {out} edits.json --author \"{author}\"\n"
        f"redlinebench doc comment {out} --paragraph-id p-012 --text \"...\" --author \"{author}\"\n"
        f"redlinebench doc reserve {out} --start p-020 --end p-024 --comment \"...\" --author \"{author}\"\n"
        "```\n\n"
        "`edits.json` is a list of `{\"op\": \"replace\"|\"delete\"|\"insert_after\", \"anchor\": "
        "{\"paragraph_id\", \"text\"}, \"new_text\", \"comment\"}` objects, each with a `comment` explaining "
        "the edit; reply to an existing thread with `doc comment --reply-to cmt-N`; `doc reserve` strikes a "
        "range of paragraphs and leaves \"Reserved.\" so later numbering does not shift.\n\n"
        "Every edit is recorded as a native Word tracked change (`w:ins`/`w:del`) with a margin comment, under "
        f"the author name **`{author}`** (pass it exactly as `--author`). Do not accept or delete the other "
        "side's revisions silently: respond to them with tracked changes and replies.\n\n"
        f"**Integrity.** {INTEGRITY_RULES} Make every change with the `redlinebench doc` commands above, which "
        "track everything.\n\n"
        f"## Deliverable (Harbor)\n\nWhen the redline is ready to send, leave it at `{out}`: that file, the same "
        f"document as `{APP_DIR}/contract.docx` with your tracked changes and comments, is what is graded.\n"
    )


def output_note(author: str) -> str:
    """What to append to a brief without a ``## Mechanics`` section (the container mechanics)."""
    return "\n\n" + container_mechanics(author)


def container_instruction(instruction: str, author: str) -> str:
    """The brief as a container agent must read it: the CLI in place of the in-process tool API.

    A ``## Mechanics`` section (which names ``read_document``, ``propose_edits``, ``end_session``)
    is replaced by :func:`container_mechanics`; a brief without one gets it appended. A tool name
    left elsewhere in the brief is mapped to its command in a closing note, so the brief never
    offers tools the container does not have.
    """
    if OUTPUT_PATH in instruction and not _TOOL_NAME.search(instruction):  # already written for the container
        if INTEGRITY_RULES in instruction:
            return instruction
        return instruction.rstrip("\n") + f"\n\n**Integrity.** {INTEGRITY_RULES}\n"
    mechanics = container_mechanics(author)
    text, n = _MECHANICS.subn(lambda _m: mechanics + "\n", instruction, count=1)
    if not n:
        text = instruction.rstrip("\n") + "\n\n" + mechanics
    text = text.rstrip("\n") + "\n"
    leftover = sorted(set(_TOOL_NAME.findall(text)), key=list(TOOL_COMMANDS).index)
    if leftover:
        mapping = ", ".join(f"`{name}` as {_command_phrase(name)}" for name in leftover)
        text += f"\nThis container has no in-process document tools; in the brief above, read {mapping}.\n"
    return text


def task_toml(original: Mapping[str, Any], task: Any, opts: ExportOptions) -> str:
    """The original task.toml with Harbor's run sections set (metadata kept as is).

    The task's own ``[agent]`` and ``[verifier]`` ``timeout_sec`` win over the export defaults.
    The verifier runs in a container of its own (``environment_mode = "separate"``: a fresh copy of
    the task environment, so nothing the agent did to its sandbox can reach the grader); the agent's
    ``/app/output`` reaches it as a declared artifact, at the same path. Its env passes only the
    provider keys the judges read, each ``${VAR:-}``, so a missing key is our verifier's clear error,
    not Harbor's refusal to start.
    """
    data: dict[str, Any] = {k: v for k, v in original.items()}
    data.setdefault("version", "1.0")
    metadata = dict(data.get("metadata") or {})
    for key, value in task.metadata().items() if hasattr(task, "metadata") else ():
        metadata.setdefault(key, value)
    metadata["redlinebench_brief_version"] = BRIEF_VERSION
    metadata["redlinebench_skill_version"] = SKILL_VERSION
    data["metadata"] = metadata
    output_dir = str(Path(OUTPUT_PATH).parent)
    artifacts = list(data.get("artifacts") or [])
    if output_dir not in artifacts:
        artifacts.append(output_dir)
    data["artifacts"] = artifacts
    verifier = dict(data.get("verifier") or {})
    verifier["environment_mode"] = "separate"
    verifier["timeout_sec"] = _timeout(verifier.get("timeout_sec"), opts.verifier_timeout_sec)
    env = dict(verifier.get("env") or {})
    for key in verifier_env_keys(opts):
        env.setdefault(key, "${" + key + ":-}")
    env["REDLINEBENCH_JUDGES"] = opts.judges
    verifier["env"] = env
    data["verifier"] = verifier
    agent = dict(data.get("agent") or {})
    agent["timeout_sec"] = _timeout(agent.get("timeout_sec"), opts.agent_timeout_sec)
    data["agent"] = agent
    environment = dict(data.get("environment") or {})
    environment.setdefault("cpus", opts.cpus)
    environment.setdefault("memory_mb", opts.memory_mb)
    if opts.skill:
        environment["skills_dir"] = SKILLS_DIR  # Harbor copies it to the agent's own skills folder
    else:
        environment.pop("skills_dir", None)
    if opts.mcp:
        servers = [s for s in environment.get("mcp_servers") or [] if s.get("name") != mcp_server_entry("")["name"]]
        environment["mcp_servers"] = [*servers, mcp_server_entry(task.author)]
    data["environment"] = environment
    # TOML has no null: drop None values (neither Harbor's reader nor ours needs them).
    return tomli_w.dumps(_drop_none(data))


def solution_script() -> str:
    """``solution/solve.sh`` for Harbor's oracle agent: hand in our golden baseline's redline."""
    return f"""#!/usr/bin/env bash
# Harbor oracle solution: the redline `redlinebench run --agent golden` hands in (the attorney
# redline re-attributed to the task's author; accept-all where the task has no golden).
set -eu
SOLUTION_DIR="${{REDLINEBENCH_SOLUTION_DIR:-{SOLUTION_DIR}}}"
OUTPUT="${{REDLINEBENCH_OUTPUT:-{OUTPUT_PATH}}}"
mkdir -p "$(dirname "$OUTPUT")"
cp "$SOLUTION_DIR/redline.docx" "$OUTPUT"
"""


def write_solution(task: Any, solution_dir: Path) -> None:
    """Write ``solution/redline.docx`` (our golden agent's output) and ``solution/solve.sh``."""
    import asyncio

    from ...agent import create_agent
    from ...agent.base import REDLINE

    solution_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="redlinebench-solution-") as tmp:
        episode = asyncio.run(create_agent("golden").run(task, Path(tmp), trial=1))
        produced = Path(tmp) / REDLINE
        if episode.status != "completed" or not produced.is_file():
            raise HarborError(f"the golden baseline left no redline ({episode.error or episode.end_reason})",
                              path=task.root)
        shutil.copyfile(produced, solution_dir / "redline.docx")
    script = solution_dir / "solve.sh"
    script.write_text(solution_script(), encoding="utf-8")
    script.chmod(0o755)


def _timeout(own: Any, default: float) -> float:
    """The task's own timeout when it sets a usable one, else the export default."""
    if isinstance(own, (int, float)) and not isinstance(own, bool) and own > 0:
        return float(own)
    return float(default)


def _drop_none(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_drop_none(v) for v in value if v is not None]
    return value


def _link_or_copy(src: Path, dst: Path) -> None:
    """A hard link where the file system allows one (one copy on disk), else a copy."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _copy_tree(src: Path, dst: Path, *, skip: set[str] = frozenset(), like: Path | None = None) -> None:
    """Copy a task folder, hidden files and ``skip`` left out; a symlink is followed only where the
    task loader follows it (inside the task), so both exports ship the same files. A ``tests/`` file
    that ``like`` already holds at the same relative path (the export's own copy) is hard-linked to it."""
    from ...tasks._files import OUTSIDE, link_stays_inside

    skip_like = _SKIP_COPY | {"task.toml", "instruction.md"}  # rewritten by the export: never shared
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src).as_posix()
        if rel in skip or any(p.startswith(".") for p in Path(rel).parts):
            continue
        target = dst / rel
        if path.is_symlink():
            if not link_stays_inside(path, src):
                raise TaskError(OUTSIDE, path=path)
            if path.is_dir():
                shutil.copytree(path.resolve(), target, dirs_exist_ok=True)
                continue
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            # only the verifier's files (tests/): the agent's inputs stay a copy of their own, so nothing done
            # to the agent's side of the export (its /app) can reach the input the audit compares with
            twin = like / rel if like is not None and rel.startswith("tests/") and rel not in skip_like else None
            if twin is not None and twin.is_file() and not twin.is_symlink():
                _link_or_copy(twin, target)
            else:
                shutil.copyfile(path, target)


def export_task(task: Any, out: Path, opts: ExportOptions) -> Path:
    """Write one runnable Harbor task for ``task`` under ``out/<task_id>``."""
    src = Path(task.root)
    dest = out / task.task_id
    if dest.exists():
        if not opts.overwrite:
            raise HarborError("already exists (use --overwrite to replace it)", path=dest)
    tmp = out / f".{task.task_id}.partial"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        _copy_tree(src, tmp, skip=_SKIP_COPY)
        _copy_tree(src, tmp / "tests" / "task" / task.task_id, like=tmp)
        original: dict[str, Any] = {}
        toml_path = src / "task.toml"
        if toml_path.is_file():
            try:
                original = tomllib.loads(toml_path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise TaskError(f"not valid TOML: {exc}", path=toml_path) from None
        (tmp / "task.toml").write_text(task_toml(original, task, opts), encoding="utf-8")
        instruction = task.instruction if task.instruction.strip() else (src / "instruction.md").read_text("utf-8")
        instruction = container_instruction(instruction, task.author)
        (tmp / "instruction.md").write_text(instruction, encoding="utf-8")
        env_dir = tmp / "environment"
        env_dir.mkdir(exist_ok=True)
        if opts.wheel is not None:
            _link_or_copy(opts.wheel, env_dir / opts.wheel.name)
        if opts.wheelhouse is not None:
            _copy_wheelhouse(opts.wheelhouse, env_dir / WHEELHOUSE, skip_ours=opts.wheel is not None)
        skill = env_dir / "skills" / SKILL_NAME / "SKILL.md"
        if not opts.skill:
            shutil.rmtree(env_dir / "skills", ignore_errors=True)
        elif not skill.is_file():  # a task's own skill wins
            skill.parent.mkdir(parents=True, exist_ok=True)
            skill.write_text(skill_markdown(INTEGRITY_RULES), encoding="utf-8")
        if opts.mcp:
            (env_dir / ".mcp.json").write_text(mcp_config(task.author), encoding="utf-8")
        (env_dir / "Dockerfile").write_text(
            dockerfile(task.task_id, opts, has_skills=(env_dir / "skills").is_dir()), encoding="utf-8")
        script = tmp / "tests" / "test.sh"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(verifier_script(task.task_id, opts.judges), encoding="utf-8")
        script.chmod(0o755)
        write_solution(task, tmp / "solution")
        atomic_replace_dir(tmp, dest)  # the old export stays whole until the new one is complete
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def _wheelhouse_wheels(wheelhouse: Path, *, skip_ours: bool) -> list[Path]:
    """The wheels an environment gets; ours is left out when ``--wheel`` (or the built one) installs it."""
    return [p for p in sorted(wheelhouse.glob("*.whl"))
            if p.is_file() and not (skip_ours and p.name.lower().startswith("redlinebench-"))]


def _copy_wheelhouse(wheelhouse: Path, dest: Path, *, skip_ours: bool) -> None:
    """Hard-link the wheelhouse into ``environment/wheels/`` (a copy across file systems): every task
    of an export gets the same ~200 MB, which Docker caches as one layer."""
    dest.mkdir(parents=True, exist_ok=True)
    for wheel in _wheelhouse_wheels(wheelhouse, skip_ours=skip_ours):
        try:
            os.link(wheel, dest / wheel.name)
        except OSError:
            shutil.copyfile(wheel, dest / wheel.name)


def _check_wheelhouse(wheelhouse: Path, *, skip_ours: bool) -> None:
    """Refuse a wheelhouse the image build would fail on (pip's ``/tmp/wheels/*.whl`` matching nothing)."""
    if not wheelhouse.is_dir():
        raise ConfigError("wheelhouse not found (a directory of .whl files, e.g. from `pip download -d DIR ...`)",
                          path=wheelhouse)
    if not _wheelhouse_wheels(wheelhouse, skip_ours=skip_ours):
        besides = " besides redlinebench's own" if skip_ours else ""
        raise ConfigError(f"the wheelhouse has no .whl file{besides} (fill it with "
                          "`pip download -d DIR --only-binary=:all: <redlinebench wheel>`)", path=wheelhouse)


def _answer_key_files(path: Path) -> list[str]:
    """The files of a wheel under the embedded task set (rubrics, goldens): none may reach the agent."""
    import zipfile

    prefixes = tuple(f"redlinebench/{rel}/" for rel in _wheel.ANSWER_KEY_DIRS)
    with zipfile.ZipFile(path) as zf:
        return [n for n in zf.namelist() if n.startswith(prefixes)]


def _shared_wheel(wheel: Path, out: Path) -> Path:
    """The export's one copy of the wheel (``out/.redlinebench/``): every environment hard-links it."""
    shared = out / SHARED_DIR
    shared.mkdir(exist_ok=True)
    target = shared / wheel.name
    if not target.is_file() or target.read_bytes() != wheel.read_bytes():
        _atomic_replace_file(wheel, target)
    return target


def _atomic_replace_file(src: Path, dst: Path) -> None:
    tmp = dst.with_name(f".{dst.name}.partial")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _is_wheel(path: Path) -> bool:
    """A redlinebench wheel: pip would otherwise fail inside every task image's build."""
    import zipfile

    if path.suffix != ".whl" or not zipfile.is_zipfile(path):
        return False
    try:
        with zipfile.ZipFile(path) as zf:
            return any(n.split("/", 1)[0].startswith("redlinebench-") and n.split("/", 1)[0].endswith(".dist-info")
                       for n in zf.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def lint_command(out: str | Path) -> str:
    """The shell command that lints an export with Harbor's own checks.

    ``harbor lint`` (0.26) takes task directories only (``TASK_DIR...``): given the export folder it
    reports ``Missing task configuration`` for the folder itself, and Harbor has no dataset-level lint
    (its ``dataset.toml`` is a registry manifest of published tasks). The glob names every task
    folder of the export and nothing else (``*/``: directories only; the shell skips hidden ones).
    """
    return f"harbor lint {shlex.quote(str(out))}/*/"


def export_harbor(tasks: Iterable[Any], out: str | Path, opts: ExportOptions | None = None) -> list[Path]:
    """Export every task as a Harbor task directory under ``out`` (a Harbor dataset)."""
    opts = opts or ExportOptions()
    opts = replace(opts, judge_env=verifier_env_keys(opts))  # the judges are read once, not per task
    if opts.wheel is not None:
        if not opts.wheel.is_file():
            raise ConfigError("wheel not found", path=opts.wheel)
        if not _is_wheel(opts.wheel):
            raise ConfigError("not a wheel (a .whl zip archive with a redlinebench-*.dist-info/ inside)",
                              path=opts.wheel)
        leaked = _answer_key_files(opts.wheel)
        if leaked:
            raise ConfigError(f"the wheel carries the embedded task set ({len(leaked)} files such as {leaked[0]}): "
                              "the agent would find the answer key in its container; leave --wheel out (the "
                              "export builds a tools-only wheel) or pass one without redlinebench/_data/benchmark",
                              path=opts.wheel)
    if opts.wheelhouse is not None:  # our wheel is --wheel or built below unless a spec installs it
        _check_wheelhouse(opts.wheelhouse, skip_ours=opts.package_spec is None)
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError("exists and is not a directory", path=out) from None
    except OSError as exc:
        raise ConfigError(f"cannot create the output directory: {exc.strerror or exc}", path=out) from None
    if opts.wheel is None and not opts.package_spec:
        with tempfile.TemporaryDirectory(prefix="redlinebench-export-") as tmp:
            wheel = _shared_wheel(_wheel.build_wheel(Path(tmp), tools_only=True), out)
    elif opts.wheel is not None:
        wheel = _shared_wheel(opts.wheel, out)
    else:
        wheel = None
    return [export_task(task, out, replace(opts, wheel=wheel)) for task in tasks]
