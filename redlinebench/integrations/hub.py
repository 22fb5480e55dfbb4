"""Publishing to the Hugging Face Hub: a model's ``redline_overall`` and the exported dataset.

A result is one entry of ``.eval_results/redlinebench.yaml`` in the *model* repo (SPEC §7),
built with ``huggingface_hub``'s own :class:`EvalResultEntry` so the Hub's leaderboard reads it.
Results that would mislead a leaderboard (heuristic judge, judging left incomplete, a partial
task set) are refused unless the caller forces them; the reasons are returned, not printed.

Everything is planned first (:class:`PushPlan`: the files, the YAML, the commit) and then sent
in one commit, so ``--dry-run`` shows exactly what a real push would upload. The token comes
from ``HF_TOKEN`` or the stored login and is never echoed.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .. import config
from ..errors import HubError
from ..scoring import finding_kinds, integrity_counts, redline_overall

RESULTS_PATH = ".eval_results/redlinebench.yaml"
TASK_ID = "redline_overall"
#: Judge methods whose numbers may go on a leaderboard.
_TRUSTED_METHODS = {"panel", "litellm", "llm", "judge"}
#: Task count of the real benchmark (SPEC §1); a run claiming it must have graded all of them.
REAL_SET_TASKS = 140


# ----------------------------------------------------------------------------- reading results
@dataclass
class RunResults:
    """What ``push results`` reads: the summary and, when given a run directory, its grades."""

    summary: dict[str, Any]
    summary_path: Path
    run_dir: Path | None = None
    run_config: dict[str, Any] = field(default_factory=dict)
    grades: list[dict[str, Any]] = field(default_factory=list)
    #: model -> the agent prompt versions its trials' metrics.json recorded (model-free baselines record none)
    agent_prompts: dict[str, set[str]] = field(default_factory=dict)


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HubError(f"{what} not found", path=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HubError(f"cannot read {what}: {exc}", path=path) from None
    except json.JSONDecodeError as exc:
        raise HubError(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno})", path=path) from None


def load_results(target: str | Path) -> RunResults:
    """Read a run directory (``metrics_summary.json`` + ``config.json`` + grades) or a summary file."""
    target = Path(target)
    if target.is_dir():
        summary_path = target / "metrics_summary.json"
        if not summary_path.is_file():
            raise HubError("no metrics_summary.json in this run directory (run `redlinebench summarize` first)",
                           path=target)
        run_dir: Path | None = target
    elif target.is_file():
        summary_path, run_dir = target, None
        sibling = target.parent / "config.json"
        if (target.parent / "trials").is_dir() and sibling.is_file():
            run_dir = target.parent
    else:
        raise HubError("no such run directory or metrics_summary.json", path=target)

    summary = _read_json(summary_path, "metrics summary")
    if not isinstance(summary, dict) or not isinstance(summary.get("leaderboard"), list):
        raise HubError("not a metrics summary: expected an object with a 'leaderboard' list", path=summary_path)
    results = RunResults(summary=summary, summary_path=summary_path, run_dir=run_dir)
    if run_dir is not None:
        cfg = run_dir / "config.json"
        if cfg.is_file():
            data = _read_json(cfg, "run config")
            results.run_config = data if isinstance(data, dict) else {}
        for grade_path in sorted(run_dir.glob("trials/**/grade.json")):
            data = _read_json(grade_path, "grade file")
            if isinstance(data, dict):
                results.grades.append(data)
                metrics_path = grade_path.with_name("metrics.json")
                metrics = _read_json(metrics_path, "trial metrics") if metrics_path.is_file() else None
                version = metrics.get("prompt_version") if isinstance(metrics, dict) else None
                if isinstance(version, str) and version:
                    results.agent_prompts.setdefault(str(data.get("model")), set()).add(version)
    return results


def pick_entry(summary: Mapping[str, Any], model: str | None = None) -> dict[str, Any]:
    """The leaderboard row to publish: the named model, or the only one."""
    rows = [r for r in summary.get("leaderboard", []) if isinstance(r, Mapping)]
    if not rows:
        raise HubError("the metrics summary has no leaderboard rows: nothing to publish")
    if model is None:
        if len(rows) > 1:
            names = ", ".join(str(r.get("model")) for r in rows)
            raise HubError(f"the summary holds {len(rows)} models ({names}); choose one with --model")
        return dict(rows[0])
    for row in rows:
        if row.get("model") == model:
            return dict(row)
    raise HubError(f"model {model!r} is not in the summary (has: {', '.join(str(r.get('model')) for r in rows)})")


def redline_overall_of(entry: Mapping[str, Any]) -> float:
    """SPEC §6 ``redline_overall``, recomputed from ``overall_turn_weighted`` by the scoring module."""
    otw = entry.get("overall_turn_weighted")
    if isinstance(otw, bool) or not isinstance(otw, (int, float)):
        raise HubError(f"model {entry.get('model')!r} has no overall_turn_weighted score: nothing to publish")
    if not 0.0 <= otw <= 1.0:
        raise HubError(f"model {entry.get('model')!r}: overall_turn_weighted {otw} is outside [0, 1]")
    return redline_overall(float(otw))


# ----------------------------------------------------------------------------- what the run was
def _model_grades(results: RunResults, model: str) -> list[dict[str, Any]]:
    return [g for g in results.grades if g.get("model") == model]


def judges_of(results: RunResults, entry: Mapping[str, Any]) -> list[str]:
    """Judge model names: from the grades when we have them, else the summary / run config."""
    names: set[str] = set()
    for g in _model_grades(results, str(entry.get("model"))):
        names.update(str(j) for j in g.get("judges") or [])
    if not names:
        recorded = results.run_config.get("judges")
        if isinstance(recorded, Mapping):  # the runner's config.json: {"spec", "names"}
            recorded = recorded.get("names")
        for value in (entry.get("judges"), results.summary.get("judges"), recorded):
            if isinstance(value, list):
                names.update(str(j) for j in value)
            elif isinstance(value, str) and value:
                names.update(j.strip() for j in value.split(",") if j.strip())
            if names:
                break
    return sorted(names)


def judge_method_of(results: RunResults, entry: Mapping[str, Any]) -> str:
    # errored trials never reached the judges: they must not turn an LLM-judged entry "mixed"
    methods = {str(g.get("judge_method")) for g in _model_grades(results, str(entry.get("model")))
               if g.get("judge_method") and g.get("status") != "errored"}
    if not methods:
        value = entry.get("judge_method") or results.summary.get("judge_method")
        return str(value) if value else "unknown"
    return methods.pop() if len(methods) == 1 else "mixed"


def _spec(results: RunResults) -> Mapping[str, Any]:
    spec = results.run_config.get("spec")
    return spec if isinstance(spec, Mapping) else {}


#: The agents that take no steps and call no model, named for what they hand in: a step limit
#: next to them would describe a loop that never ran.
MODEL_FREE_AGENTS = {
    "golden": "golden baseline (attorney redline, no model)",
    "accept-all": "accept-all baseline (accepts the other side's changes, no model)",
    "noop": "noop baseline (contract returned unchanged, no model)",
    "outputs": "imported redlines (`import outputs`, no model run by redlinebench)",
}


def agent_of(results: RunResults, model: str | None = None) -> str:
    """The agent that produced ``model``'s trials, as the run recorded it (a model's loop with its
    step limit; a baseline by what it hands in)."""
    cfg = results.run_config
    for entrant in _spec(results).get("entrants") or []:
        if isinstance(entrant, Mapping) and entrant.get("label", entrant.get("model")) == model:
            if str(entrant.get("agent")) in MODEL_FREE_AGENTS:
                return MODEL_FREE_AGENTS[str(entrant.get("agent"))]
            limits = _spec(results).get("limits") or {}
            steps = limits.get("max_steps") if isinstance(limits, Mapping) else None
            name = f"redlinebench {entrant.get('agent')} agent"
            return f"{name} (max {steps} steps)" if steps else name
    harbor_agents = sorted({str(g["harbor"]["agent"]) for g in results.grades
                            if g.get("model") == model and isinstance(g.get("harbor"), Mapping)
                            and g["harbor"].get("agent")})
    if harbor_agents:
        return f"Harbor agent {', '.join(harbor_agents)}"
    value = cfg.get("agent")
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping) and (value.get("name") or value.get("kind")):
        return str(value.get("name") or value.get("kind"))
    return "redlinebench tool-loop agent"


def _source_info(results: RunResults) -> Mapping[str, Any]:
    cfg = results.run_config
    for value in (cfg.get("data"), cfg.get("source"), _spec(results).get("source")):
        if isinstance(value, Mapping):
            return value
        if isinstance(value, str) and value:
            return {"path": value}
    return {}


@functools.lru_cache(maxsize=1)
def _embedded_fingerprint() -> str | None:
    """The shipped set's content fingerprint (package data: it cannot change while we run, and
    every entry's refusal check and notes ask for it)."""
    from ..tasks import fingerprint_dirs, task_dirs

    try:
        return fingerprint_dirs(task_dirs(config.embedded_benchmark_dir() / "tasks"))
    except OSError:
        return None  # not built into this installation: nothing to compare with


def _synthetic(results: RunResults) -> tuple[str, str] | None:
    """``(which synthetic set, how we know)`` when the run's tasks are synthetic, else None.

    The recorded kind is not enough on its own: ``demo`` runs recorded the embedded set as a plain
    path. So the path, the fingerprint (which survives copying the tree or the run elsewhere) and
    the tree's ``benchmark.json`` are checked too.
    """
    from ..tasks import is_embedded_dir

    embedded = "the embedded synthetic set"
    info = _source_info(results)
    kind = str(info.get("kind") or "")
    if kind == "embedded":
        return embedded, "recorded as embedded"
    if kind == "synthetic":
        return "a synthetic task set", "recorded as synthetic"
    path = info.get("path")
    if isinstance(path, str) and path and is_embedded_dir(path):
        return embedded, f"at {path}"
    fingerprint = info.get("fingerprint")
    if isinstance(fingerprint, str) and fingerprint and fingerprint == _embedded_fingerprint():
        return embedded, f"same fingerprint {fingerprint[:12]}"
    if isinstance(path, str) and path:
        try:
            manifest = json.loads((Path(path) / "benchmark.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            manifest = None
        name = manifest.get("name") if isinstance(manifest, dict) else None
        if isinstance(name, str) and "synthetic" in name.lower():
            return "a synthetic task set", f"{Path(path) / 'benchmark.json'} names it {name!r}"
    return None


def synthetic_source(results: RunResults) -> str | None:
    """Why the run's tasks are a synthetic set, as a phrase such as ``the embedded synthetic set
    (at /path)``; None when nothing says they are."""
    found = _synthetic(results)
    return f"{found[0]} ({found[1]})" if found else None


def _subset_reason(results: RunResults) -> str | None:
    """Why the run covers only part of its task source (None when it covers all of it)."""
    cfg = results.run_config
    flt = _spec(results).get("filter")
    if isinstance(flt, Mapping) and any(v not in (None, [], (), "", 0) for v in flt.values()):
        return "the run used a task filter or limit (partial task set)"
    data = cfg.get("data")
    if isinstance(data, Mapping):
        n, of = data.get("n_tasks"), data.get("n_tasks_in_source")
        if isinstance(n, int) and isinstance(of, int) and n < of:
            return f"the run covers {n} of the {of} tasks of its source (partial task set)"
    if any(cfg.get(k) not in (None, [], {}, "", 0, False) for k in ("task_ids", "filters", "limit")):
        return "the run used a task filter or limit (partial task set)"
    return None


def publish_problems(results: RunResults, entry: Mapping[str, Any], *, dataset_id: str) -> list[str]:
    """Why this row should not go on a leaderboard (empty: fine). Each reason is a full sentence."""
    model = entry.get("model")
    problems: list[str] = []
    method = judge_method_of(results, entry)
    judges = judges_of(results, entry)
    if "heuristic" in method or any("heuristic" in j for j in judges):
        problems.append(f"{model}: graded by the heuristic judge, not an LLM judge panel")
    elif method.lower() not in _TRUSTED_METHODS:
        problems.append(f"{model}: judge method is {method!r}, not an LLM judge panel")

    incomplete = entry.get("n_incomplete") or 0
    if not incomplete:
        incomplete = sum(1 for i in results.summary.get("incomplete", []) or []
                         if isinstance(i, Mapping) and i.get("model") == model)
    if not incomplete:
        incomplete = sum(1 for g in _model_grades(results, str(model))
                         if g.get("status") in ("judging_incomplete", "errored"))
    if incomplete:
        problems.append(f"{model}: {incomplete} trial(s) have incomplete judging or errored; re-judge them first")

    if entry.get("grid_complete") is False:
        missing = ", ".join(entry.get("missing_cells") or []) or "some cells"
        problems.append(f"{model}: partial task set, scenario x turn cells missing: {missing}")
    subset = _subset_reason(results)
    if subset:
        problems.append(f"{model}: {subset}")
    n_tasks = entry.get("n_tasks")
    if isinstance(n_tasks, int) and dataset_id == config.HUB_DATASET_ID and n_tasks < REAL_SET_TASKS:
        problems.append(f"{model}: {n_tasks} of the {REAL_SET_TASKS} tasks of {dataset_id} were graded (partial task set)")
    synthetic = synthetic_source(results) if dataset_id == config.HUB_DATASET_ID else None
    if synthetic:
        problems.append(f"{model}: the run used {synthetic}, not {dataset_id}")
    integrity = integrity_problem(results, entry)
    if integrity:
        problems.append(integrity)
    return problems


def integrity_problem(results: RunResults, entry: Mapping[str, Any]) -> str | None:
    """One sentence naming how many trials the integrity audit (SPEC §5.1) failed or flagged, and the
    kinds; None when it found nothing. Read from the grades when the run directory is at hand, else
    from the summary's counts (which name no kinds)."""
    model = entry.get("model")
    grades = [g for g in _model_grades(results, str(model)) if g.get("status") in ("graded", "gate_failed")]
    counts = integrity_counts(grades) if grades else {
        key: int(entry.get(key) or 0) for key in ("n_integrity_failures", "n_integrity_flags")}
    failed, flagged = counts["n_integrity_failures"], counts["n_integrity_flags"]
    if not failed and not flagged:
        return None
    kinds = finding_kinds(grades)
    named = f" ({', '.join(f'{k} x{n}' for k, n in sorted(kinds.items()))})" if kinds else ""
    return (f"{model}: the integrity audit found problems in {failed + flagged} trial(s): {failed} failed the gate, "
            f"{flagged} flagged{named}; see each grade.json's 'integrity'")


# ----------------------------------------------------------------------------- the YAML
def _utc_now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _ci_note(ci: Any) -> str:
    """The bootstrap CI in leaderboard units (0-100), when the summary has one."""
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        return f"95% CI {100 * ci[0]:.1f}-{100 * ci[1]:.1f}; "
    return ""


def _recorded_revision(results: RunResults, dataset_id: str) -> str | None:
    """The dataset revision the run's tasks came from. Only a Hub source has one: a local, embedded
    or imported tree gets none, since the pinned revision would claim data the run did not use.
    With no source recorded at all (a bare summary) the pinned revision is the documented default."""
    info = _source_info(results)
    pinned = config.HUB_DATASET_REVISION if dataset_id == config.HUB_DATASET_ID else None
    if not info:
        return pinned
    if info.get("kind") == "hub":
        return str(info.get("revision") or "") or pinned
    return None


def _source_note(results: RunResults) -> str:
    """``notes`` text naming a non-Hub task source (no local paths: the notes are public)."""
    info = _source_info(results)
    kind = info.get("kind")
    if not info or kind == "hub":
        return ""
    synthetic = _synthetic(results)
    if synthetic:
        what = synthetic[0]
    elif kind in (None, "path", "env", "local", "directory"):
        what = "a local task tree"
    else:
        what = f"a {kind} task source"
    fingerprint = info.get("fingerprint")
    fp = f", fingerprint {fingerprint[:12]}" if isinstance(fingerprint, str) and fingerprint else ""
    return f"tasks: {what}{fp}, not a Hub revision; "  # never the path: a reader has no use for it


def _prompt_note(results: RunResults, model: str, grades: Sequence[Mapping[str, Any]]) -> str:
    agent = sorted(results.agent_prompts.get(model, ()))
    judge = sorted({str(g["prompt_version"]) for g in grades if g.get("prompt_version")})
    parts = [f"agent prompt {', '.join(agent)}" if agent else "agent prompt: none recorded (a model-free baseline "
             "or an external harness)"]
    if judge:
        parts.append(f"judge prompt {', '.join(judge)}")
    return "; ".join(parts)


def harness_note(results: RunResults, entry: Mapping[str, Any], *, version: str) -> str:
    """The entry's ``notes``: how the number was made (harness version, agent, prompt versions, judge
    panel, trials, task source), so a leaderboard reader can tell two entries apart. No local paths:
    the notes are public."""
    model = str(entry.get("model"))
    grades = _model_grades(results, model)
    judges = judges_of(results, entry)
    method = judge_method_of(results, entry)
    n_trials = entry.get("n_trials", "?")
    n_tasks = entry.get("n_tasks") or len({g.get("task_id") for g in grades}) or "?"
    per_task = _spec(results).get("trials")
    trials = (f"{per_task} per task, {n_trials} graded over {n_tasks} tasks" if isinstance(per_task, int)
              else f"{n_trials} graded over {n_tasks} tasks")
    return (
        f"harness: redlinebench {version}; agent: {agent_of(results, entry.get('model'))}; "
        f"{_prompt_note(results, model, grades)}; model: {model}; "
        f"judge panel: {', '.join(judges) if judges else 'unrecorded'} ({method}); "
        f"trials: {trials}; {_source_note(results)}{_ci_note(entry.get('ci'))}".rstrip("; ")
    )


def build_entry(
    results: RunResults,
    entry: Mapping[str, Any],
    *,
    dataset_id: str,
    revision: str | None,
    source_url: str | None = None,
    source_name: str | None = None,
    date: str | None = None,
):
    """One :class:`huggingface_hub.EvalResultEntry` for this model's ``redline_overall``."""
    from huggingface_hub import EvalResultEntry

    from .. import __version__

    notes = harness_note(results, entry, version=__version__)
    if revision is None:
        revision = _recorded_revision(results, dataset_id)
    cfg = results.run_config
    run_date = date or cfg.get("created") or cfg.get("created_at") or results.summary.get("created_at") or _utc_now()
    return EvalResultEntry(
        dataset_id=dataset_id,
        task_id=TASK_ID,
        value=redline_overall_of(entry),
        dataset_revision=str(revision) if revision else None,
        date=str(run_date),
        source_url=source_url,
        source_name=(source_name or "redlinebench") if source_url else None,
        notes=notes,
    )


def render_results_yaml(entries: Sequence[Any]) -> str:
    """The ``.eval_results/*.yaml`` text for ``entries`` (``huggingface_hub``'s serialisation)."""
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    return yaml.safe_dump(eval_result_entries_to_yaml(list(entries)), sort_keys=False, allow_unicode=True)


def merge_entries(existing: Sequence[Any], new: Any) -> list[Any]:
    """Keep other benchmarks' / revisions' entries; replace the one this result supersedes."""
    same = lambda e: (e.dataset_id, e.task_id, e.dataset_revision) == (new.dataset_id, new.task_id, new.dataset_revision)  # noqa: E731
    return [e for e in existing if not same(e)] + [new]


def parse_results_yaml(text: str, *, where: str) -> list[Any]:
    import yaml
    from huggingface_hub import parse_eval_result_entries

    try:
        data = yaml.safe_load(text) or []
        if not isinstance(data, list):
            raise ValueError("top level is not a list")
        return parse_eval_result_entries(data)
    except (yaml.YAMLError, ValueError, KeyError, TypeError) as exc:
        raise HubError(f"existing eval results file is malformed ({exc}); fix or remove it first", path=where) from None


# ----------------------------------------------------------------------------- plans and pushes
@dataclass
class PushPlan:
    """One commit: what goes where. ``describe()`` is the dry-run output."""

    repo_id: str
    repo_type: str
    files: dict[str, bytes]
    commit_message: str
    create_pr: bool = False
    revision: str | None = None
    create_repo: bool = False
    private: bool = False
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        kind = "PR against" if self.create_pr else "commit to"
        lines = [f"{kind} {self.repo_type} repo {self.repo_id}" + (f" @ {self.revision}" if self.revision else ""),
                 f"message: {self.commit_message}", f"files ({len(self.files)}):"]
        lines += [f"  {path}  ({len(content):,} bytes)" for path, content in sorted(self.files.items())]
        lines += self.notes
        return "\n".join(lines)


@dataclass(frozen=True)
class PushOutcome:
    """What a push did. ``changed`` is False when the target already held every file byte for byte:
    then nothing was committed and no pull request opened (both URLs are None)."""

    commit_url: str | None
    pr_url: str | None
    n_files: int
    changed: bool = True


def resolve_token(token: str | None = None) -> str:
    """``token`` or ``HF_TOKEN`` or the stored login; a clear error otherwise (the token is never shown)."""
    if token:
        return token
    from huggingface_hub import get_token

    found = get_token()
    if not found:
        raise HubError("no Hugging Face token: set HF_TOKEN or run `hf auth login` (or use --dry-run)")
    return found


def _hub_error(exc: Exception, what: str) -> HubError:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    hint = {401: " (token missing or invalid)", 403: " (token lacks write access)",
            404: " (repository or revision not found)"}.get(status or 0, "")
    return HubError(f"{what} failed: {first}{hint}")


#: Paths per ``paths-info`` request when checking whether a push would change anything.
_PATHS_INFO_BATCH = 256


def _git_blob_sha(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def _already_there(api: Any, plan: PushPlan, revision: str | None) -> bool:
    """True when every planned file is on ``revision`` byte for byte.

    huggingface_hub drops such a commit silently and returns the branch head as if it had
    committed (and, with ``create_pr``, opens no PR); checking first lets us say so instead.
    """
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError
    from huggingface_hub.hf_api import RepoFile

    paths = sorted(plan.files)
    for start in range(0, len(paths), _PATHS_INFO_BATCH):
        batch = paths[start:start + _PATHS_INFO_BATCH]
        try:
            remote = api.get_paths_info(plan.repo_id, batch, repo_type=plan.repo_type, revision=revision)
        except (RepositoryNotFoundError, RevisionNotFoundError):
            return False  # a new repo or branch: everything is a change
        found = {f.path: f for f in remote if isinstance(f, RepoFile)}
        for path in batch:
            entry, content = found.get(path), plan.files[path]
            if entry is None:
                return False
            if entry.lfs is not None:
                if entry.lfs.sha256 != hashlib.sha256(content).hexdigest():
                    return False
            elif entry.blob_id != _git_blob_sha(content):
                return False
    return True


def execute(plan: PushPlan, *, token: str | None = None) -> PushOutcome:
    """Send ``plan`` as one commit (creating the repo first when asked); nothing when nothing changed."""
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(token=resolve_token(token))
    revision = None if plan.create_pr else plan.revision  # a PR starts from the default branch
    unchanged = PushOutcome(commit_url=None, pr_url=None, n_files=len(plan.files), changed=False)
    try:
        if plan.files and _already_there(api, plan, revision):
            return unchanged
        if plan.create_repo:
            api.create_repo(plan.repo_id, repo_type=plan.repo_type, exist_ok=True, private=plan.private)
        ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=c) for p, c in sorted(plan.files.items())]
        info = api.create_commit(
            plan.repo_id, ops, commit_message=plan.commit_message, repo_type=plan.repo_type,
            create_pr=plan.create_pr, revision=revision,
        )
    except HfHubHTTPError as exc:
        raise _hub_error(exc, f"push to {plan.repo_id}") from None
    except OSError as exc:  # connection refused / DNS / TLS
        raise HubError(f"push to {plan.repo_id} failed: cannot reach the Hub ({exc})") from None
    if plan.create_pr and not info.pr_url:
        return unchanged  # the files landed on main in the meantime: the library skipped the empty commit
    return PushOutcome(commit_url=str(info.commit_url), pr_url=info.pr_url, n_files=len(plan.files))


def fetch_existing_results(repo_id: str, *, token: str | None, revision: str | None = None) -> list[Any]:
    """Entries already in the model repo's ``.eval_results/redlinebench.yaml`` (``[]`` if none)."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, RepositoryNotFoundError

    api = HfApi(token=token)
    try:
        path = api.hf_hub_download(repo_id, RESULTS_PATH, revision=revision)
    except (EntryNotFoundError, RepositoryNotFoundError):
        return []
    except HfHubHTTPError as exc:
        raise _hub_error(exc, f"reading {RESULTS_PATH} from {repo_id}") from None
    return parse_results_yaml(Path(path).read_text(encoding="utf-8"), where=f"{repo_id}/{RESULTS_PATH}")


def plan_results_push(
    target: str | Path,
    *,
    model_repo: str,
    model: str | None = None,
    dataset_id: str = config.HUB_DATASET_ID,
    revision: str | None = None,
    source_url: str | None = None,
    source_name: str | None = None,
    create_pr: bool = False,
    force: bool = False,
    existing: Sequence[Any] = (),
    date: str | None = None,
) -> tuple[PushPlan, list[str]]:
    """Build the results commit; returns ``(plan, problems)``. Problems raise unless ``force``."""
    _check_repo_id(model_repo, "--model-repo")
    _check_repo_id(dataset_id, "--dataset-repo")
    results = load_results(target)
    entry = pick_entry(results.summary, model)
    problems = publish_problems(results, entry, dataset_id=dataset_id)
    synthetic = synthetic_source(results) if dataset_id == config.HUB_DATASET_ID else None
    if synthetic:  # not a caveat --force can accept: the file would name a dataset the score was not measured on
        raise HubError(f"the run used {synthetic}, not {dataset_id}: a result on it cannot name {dataset_id}, "
                       "even with --force (or --dry-run); pass --dataset-repo ORG/NAME of a dataset holding these "
                       "tasks (`redlinebench push dataset --repo ORG/NAME` publishes them)")
    if problems and not force:
        raise HubError("refusing to publish: " + "; ".join(problems) + " (use --force to publish anyway)")
    new = build_entry(results, entry, dataset_id=dataset_id, revision=revision, source_url=source_url,
                      source_name=source_name, date=date)
    entries = merge_entries(existing, new)
    text = render_results_yaml(entries)
    notes = [f"--- {RESULTS_PATH}", text.rstrip("\n")]
    if problems:
        notes.insert(0, "forced despite: " + "; ".join(problems))
    plan = PushPlan(
        repo_id=model_repo, repo_type="model", files={RESULTS_PATH: text.encode("utf-8")},
        commit_message=f"Add RedlineBench result: redline_overall {new.value} ({entry.get('model')})",
        create_pr=create_pr, notes=notes,
    )
    return plan, problems


def _check_repo_id(repo_id: str, option: str) -> None:
    parts = repo_id.split("/")
    if len(parts) != 2 or not all(parts) or any(c.isspace() for c in repo_id):
        raise HubError(f"{option}: expected ORG/NAME, got {repo_id!r}")


# ----------------------------------------------------------------------------- dataset push
_DATASET_REQUIRED = ("README.md", "eval.yaml")


def plan_dataset_push(
    export_dir: str | Path,
    *,
    repo_id: str,
    create_pr: bool = False,
    private: bool = False,
    message: str | None = None,
) -> PushPlan:
    """Plan uploading an exported dataset directory (parquet index, card, ``eval.yaml``, task tree)."""
    import yaml

    _check_repo_id(repo_id, "--repo")
    root = Path(export_dir)
    if not root.is_dir():
        raise HubError("exported dataset directory not found", path=root)
    missing = [name for name in _DATASET_REQUIRED if not (root / name).is_file()]
    if missing:
        raise HubError(f"not an exported dataset: missing {', '.join(missing)} (run `redlinebench dataset export`)",
                       path=root)
    if not any(root.rglob("*.parquet")):
        raise HubError("not an exported dataset: no parquet index found", path=root)
    if not (root / "tasks").is_dir():
        raise HubError("this export has no tasks/ tree, which the Hub dataset needs beside its index (the "
                       "task files are what a run downloads); export again with `redlinebench dataset export "
                       "--include-tree`", path=root)
    try:
        eval_yaml = yaml.safe_load((root / "eval.yaml").read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise HubError(f"eval.yaml is not valid YAML: {exc}", path=root / "eval.yaml") from None
    tasks = eval_yaml.get("tasks") if isinstance(eval_yaml, dict) else None
    if not isinstance(tasks, list) or not any(isinstance(t, dict) and t.get("id") == TASK_ID for t in tasks):
        raise HubError(f"eval.yaml must list a task with id {TASK_ID!r} (SPEC §7)", path=root / "eval.yaml")

    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or path.is_symlink():
            continue  # no dot-files (caches, .git) and nothing that points outside the export
        if path.is_file():
            files[rel.as_posix()] = path.read_bytes()
    n_tasks = len({p.split("/")[1] for p in files if p.startswith("tasks/") and p.count("/") >= 2})
    return PushPlan(
        repo_id=repo_id, repo_type="dataset", files=files,
        commit_message=message or f"Upload RedlineBench dataset ({n_tasks} tasks)",
        create_pr=create_pr, create_repo=not create_pr, private=private,
        notes=[f"tasks: {n_tasks}", f"total: {sum(len(c) for c in files.values()):,} bytes"],
    )


__all__ = [
    "RESULTS_PATH",
    "TASK_ID",
    "RunResults",
    "PushPlan",
    "PushOutcome",
    "load_results",
    "pick_entry",
    "redline_overall_of",
    "publish_problems",
    "synthetic_source",
    "build_entry",
    "render_results_yaml",
    "parse_results_yaml",
    "merge_entries",
    "plan_results_push",
    "plan_dataset_push",
    "fetch_existing_results",
    "execute",
    "resolve_token",
]
