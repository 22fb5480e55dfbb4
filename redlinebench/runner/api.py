"""The composer: tasks + agents + judges + scheduler + summary + report for one run directory."""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Collection

from .._termtable import warn
from ..errors import ConfigError
from . import paths
from .atomic import read_json, write_json
from .lock import hold as hold_lock, release as release_lock
from .record import build_config
from .scheduler import Launch, Progress, TrialKey
from .spec import RESUMABLE_FIELDS, RunSpec, available


@dataclass
class RunResult:
    run_dir: Path
    spec: RunSpec
    progress: Progress
    summary: dict[str, Any] | None
    report: Path | None
    config: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        # a notebook cell ending in `result` shows this, not the whole summary and progress
        p = self.progress
        board = ", ".join(f"{e.get('model')} {e.get('redline_overall', '-')}"
                          for e in (self.summary or {}).get("leaderboard", [])[:5])
        return (f"RunResult({self.spec.run_id!r}, {p.total} trials, {p.failures} failed, ok={self.ok}"
                + (f", redline_overall: {board}" if board else "") + ")")

    @property
    def problems(self) -> list[str]:
        """What keeps this run's score from being complete, in words (empty when nothing does):
        an entrant stopped after failures in a row, errored episodes, unfinished judging."""
        out = []
        if self.progress.stopped:
            out.append(f"stopped early: {self.progress.stopped}; `run --resume` continues")
        if self.progress.failures:
            out.append(f"{self.progress.failures} trial(s) failed (see progress.errors); `run --resume` reruns them")
        if self.judging_incomplete:
            out.append(f"judging is incomplete for {len(self.judging_incomplete)} trial(s); "
                       "`redlinebench score` finishes it")
        return out

    @property
    def judging_incomplete(self) -> list[dict[str, Any]]:
        """The summary's rows of trials whose episode finished but whose judging did not."""
        from .leaderboard import judging_incomplete

        return judging_incomplete(self.summary)

    @property
    def ok(self) -> bool:
        return not self.problems


#: Where a run goes when no run directory is given (``runs/<run_id>``, below the current folder).
DEFAULT_RUNS = Path("runs")


def default_run_dir(spec: RunSpec, base: Path | None = None) -> Path:
    return (base or DEFAULT_RUNS) / spec.run_id


def load_selected_tasks(spec: RunSpec, taskset: Any | None = None) -> tuple[Any, list[Any]]:
    """Resolve the spec's data source (unless given) and apply its filter; an empty selection is a user error."""
    if taskset is None:
        from ..tasks import load_tasks

        taskset = load_tasks(spec.source, unused=spec.filter.excludes_name)
        if taskset.left_out:
            warn(f"{len(taskset.left_out)} broken task(s) outside the selection left out: "
                 f"{', '.join(taskset.left_out)} (`redlinebench tasks validate` lists their problems)")
    tasks = spec.filter.select(taskset.tasks)
    if spec.filter.task_ids:
        known = {t.task_id for t in taskset.tasks}
        missing = [t for t in spec.filter.task_ids if t not in known]
        if missing:
            raise ConfigError(f"unknown task id(s): {', '.join(missing)} (source has {len(known)} tasks)")
    if not tasks:
        raise ConfigError(f"no task matches {spec.filter.describe()} in "
                          f"{getattr(taskset.source, 'label', spec.source)} ({available(taskset.tasks)})")
    return taskset, tasks


def judge_names(judges: list[Any]) -> list[str]:
    return [str(getattr(j, "name", j)) for j in judges]


def create_judge_list(spec: RunSpec) -> list[Any]:
    if spec.judges.strip().lower() == "none":
        return []
    from ..judge import create_judges

    judges = list(create_judges(spec.judges, api_base=spec.judge_api_base) if spec.judge_api_base
                  else create_judges(spec.judges))
    for j in judges:  # --no-prompt-cache reaches the judges too
        if hasattr(j, "prompt_cache"):
            j.prompt_cache = spec.prompt_cache
    return judges


def open_run(spec: RunSpec | None, run_dir: Path, *, resume: bool,
             check_source: bool = True) -> tuple[RunSpec, dict[str, Any] | None]:
    """Check the run directory against the request. On ``resume`` the stored spec is the run's: a
    given spec may change only RESUMABLE_FIELDS and where the tasks are found (the fingerprint
    check in :func:`arun` proves they are the same tasks); any other difference is an error."""
    layout = paths.RunLayout(run_dir)
    stored = read_json(layout.config) if layout.config.exists() else None
    if resume:
        if not isinstance(stored, dict):
            raise ConfigError("nothing to resume: no readable config.json here" if stored is None else
                              "config.json is not a run configuration (not a JSON object)", path=layout.config)
        resumed = RunSpec.from_dict(stored.get("spec") or {}, where=str(layout.config))
        # the data the run resolved (not whatever this shell would pick now), found from the run folder
        resumed = resumed.replace(source=recorded_source(stored, run_dir) or stored_path(resumed.source, run_dir),
                                  judges=stored_path(resumed.judges, run_dir),
                                  entrants=tuple(replace(e, outputs=stored_path(e.outputs, run_dir))
                                                 for e in resumed.entrants))
        if spec is not None:  # how fast to go, and where the servers are, may change; what to run may not
            changed = spec_differences(spec, resumed)
            if changed:
                raise ConfigError(f"resume continues the run as it was started, but the given spec differs in "
                                  f"{'; '.join(changed)}; pass the same spec (only {', '.join(RESUMABLE_FIELDS)} "
                                  f"may change), or start a new run in another directory", path=run_dir)
            moved = {"source": spec.source} if spec.source is not None else {}
            resumed = resumed.replace(**{k: getattr(spec, k) or getattr(resumed, k) for k in RESUMABLE_FIELDS},
                                      **moved)
        if check_source:
            _check_resumed_source(resumed.source, stored, run_dir)
        return resumed, stored
    if layout.config.exists() or (layout.trials.exists() and any(layout.trials.iterdir())):
        raise ConfigError("this directory already holds a run; pass --resume to continue it, "
                          "or choose another --run-dir", path=run_dir)
    others = _foreign_entries(run_dir)
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise ConfigError(f"this folder holds other files ({shown}); a run writes config.json, trials/ and its "
                          "reports into its own folder: choose a new or empty --run-dir", path=run_dir)
    if spec is None:
        raise ConfigError("no run specification given")
    return spec, None


def _foreign_entries(run_dir: Path) -> list[str]:
    """What a folder holds besides a run's own beginnings (hidden files, an empty trials/): a new run
    never writes into a folder of the user's files."""
    try:
        entries = sorted(run_dir.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:
        return []
    return [p.name + ("/" if p.is_dir() else "") for p in entries
            if not p.name.startswith(".") and not (p.name == paths.RunLayout(run_dir).trials.name and p.is_dir())]


def spec_changes(given: RunSpec, stored: RunSpec) -> list[tuple[str, Any, Any]]:
    """``(field, stored value, given value)`` for each field ``given`` would change in a stored run
    besides RESUMABLE_FIELDS; nested fields dotted (``filter.scenario``, ``limits.max_steps``).

    The run id is the directory's; the source may name another place holding the same tasks (a
    moved run or data folder: the fingerprint decides), and leaving it unset means "the run's own".
    """
    def flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in d.items():
            if isinstance(value, dict):
                out.update(flat(value, f"{prefix}{key}."))
            else:
                out[prefix + key] = value
        return out

    # a plugin's own label is learnt when the run starts: the same entrant given again has none yet
    named = {(e.agent, e.model, e.outputs): e.name for e in stored.entrants if e.name}
    given = given.replace(entrants=tuple(replace(e, name=e.name or named.get((e.agent, e.model, e.outputs)))
                                         for e in given.entrants))
    a, b = flat(given.to_dict()), flat(stored.to_dict())
    skip = {"run_id", "source", *RESUMABLE_FIELDS}
    return [(key, b.get(key), a[key]) for key in a if key not in skip and a[key] != b.get(key)]


def spec_differences(given: RunSpec, stored: RunSpec) -> list[str]:
    """:func:`spec_changes` in words: ``trials: 1 in the run, 3 given``."""
    return [f"{key}: {old!r} in the run, {new!r} given" for key, old, new in spec_changes(given, stored)]


def _resume_changes(spec: RunSpec) -> dict[str, Any]:
    d = spec.to_dict()
    return {k: d[k] for k in RESUMABLE_FIELDS if k in d}


def recorded_source(config: dict[str, Any], run_dir: str | Path | None = None) -> str | None:
    """The task source config.json says the run used, as ``load_tasks`` accepts it: ``embedded``,
    ``hub@REV``, or the folder (recorded relative to the run directory, or absolute by older runs)."""
    src = config.get("source") if isinstance(config.get("source"), dict) else {}
    kind, path, revision = src.get("kind"), src.get("path"), src.get("revision")
    if kind == "embedded":
        return "embedded"
    if kind == "hub":
        return f"hub@{revision}" if revision else "hub"
    if not isinstance(path, str) or not path:
        return None
    return str(paths.local_path(path, run_dir)) if run_dir is not None else path


def _check_resumed_source(source: str | None, stored: dict[str, Any], run_dir: Path) -> None:
    """A folder the run recorded relative to itself that is not there (the run folder moved without
    its data): say where it was looked for and how to point at it."""
    recorded = (stored.get("source") or {}).get("path") if isinstance(stored.get("source"), dict) else None
    if source is None or Path(source).exists() or source == "embedded" or source.startswith("hub"):
        return
    raise ConfigError(f"the run's tasks are not where it recorded them ({recorded!r} from the run folder: "
                      f"{source}); give their folder with --source DIR (the same tasks: their fingerprint is "
                      "checked)", path=run_dir)


def stored_path(value: str | None, run_dir: str | Path) -> str | None:
    """A spec value config.json recorded as a path relative to the run (``./``, ``../``, ``~``; see
    ``record``), as a path on this machine; names (``panel``, ``hub@REV``) as they are."""
    if isinstance(value, str) and value.startswith(("./", "../", "~")) or value == ".":
        return str(paths.local_path(value, run_dir))
    return value


def run(spec: RunSpec | None, run_dir: Path | None = None, **kwargs: Any) -> RunResult:
    """Run (or resume) a benchmark run end to end; see :func:`arun`. Not for a running event loop
    (in Jupyter, ``await arun(...)`` instead)."""
    return asyncio.run(arun(spec, run_dir, **kwargs))


async def arun(
    spec: RunSpec | None,
    run_dir: Path | None = None,
    *,
    resume: bool = False,
    progress: bool = True,
    on_update: Callable[[Progress], None] | None = None,
    agents: dict[str, Any] | None = None,
    judges: list[Any] | None = None,
    taskset: Any | None = None,
    check_keys: bool = True,
) -> RunResult:
    """Run (or resume) a benchmark run: trials, grades, metrics_summary.json, report.html.

    ``agents`` / ``judges`` / ``taskset`` let a caller inject ready-made objects (tests, notebooks);
    the run still records the names from ``spec``.
    """
    if run_dir is None:
        if spec is None:
            raise ConfigError("give a run directory to resume")
        run_dir = default_run_dir(spec)
    run_dir = Path(run_dir)
    if spec is not None and not resume and getattr(spec, "_generated_id", False):
        spec = spec.replace(run_id=paths.run_id_for(run_dir))  # the folder names the run, as in the CLI
    spec, stored = open_run(spec, run_dir, resume=resume)
    layout = paths.RunLayout(run_dir)
    injected = set(agents or ())
    judge_list = judges if judges is not None else create_judge_list(spec)
    if stored is None and check_keys:  # a typo or a missing key, told before the tasks load and litellm imports
        _check_models(spec, judge_list, injected_agents=injected)
    spec, agents, plugins = build_plugin_agents(spec, agents, stored)  # a plugin that does not load stops us here
    taskset, tasks = load_selected_tasks(spec, taskset)
    config = build_config(spec, taskset, tasks, judge_names(judge_list), run_dir)
    if stored is not None:
        old = (stored.get("data") or {}).get("fingerprint")
        new = config["data"]["fingerprint"]
        if old and new and old != new:
            raise ConfigError(f"the tasks changed since this run started (fingerprint {old} -> {new}); "
                              "start a new run instead of resuming", path=layout.config)
        # What a resume may change (pace, endpoints) is recorded, so the next resume uses it too, and
        # so is where the tasks (and a panel file) are now, relative to where the run folder is now.
        fresh = config
        spec_now = {**(stored.get("spec") or {}), **_resume_changes(spec), "judges": fresh["spec"]["judges"]}
        if spec_now.get("source") is not None:
            spec_now["source"] = fresh["spec"]["source"]
        config = {**stored, "spec": spec_now, "resumed": [*stored.get("resumed", []), fresh["created"]],
                  "source": fresh["source"], "data": {**(stored.get("data") or {}), "path": fresh["data"]["path"]}}
    # a new run's models and keys were checked above, before its tasks loaded: only a resumed run's left work is
    _preflight(spec, layout, tasks, judge_list, injected_agents=injected, check_keys=check_keys and stored is not None)
    if plugins:
        config["plugins"] = plugins
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        lock = hold_lock(run_dir)
        write_json(layout.config, config, durable=True)
    except OSError as exc:
        raise ConfigError(f"cannot write the run directory: {exc.strerror or exc}", path=run_dir) from None
    try:
        return await _execute(spec, layout, tasks, judge_list, config, agents=agents, progress=progress,
                              on_update=on_update)
    finally:
        release_lock(lock)


def build_plugin_agents(spec: RunSpec, agents: dict[str, Any] | None, stored: dict[str, Any] | None
                        ) -> tuple[RunSpec, dict[str, Any] | None, dict[str, Any]]:
    """Load every plugin entrant (and the outputs agent) before anything runs, so a plugin that does
    not import is one ConfigError, not a run of errored trials. Returns the spec (a new run's plugin
    entrants named by their agent's own ``label``, when it is a distinct non-empty string), the agents
    (given ones kept) and config.json's ``plugins``: per label, the import path, distribution and
    version (``--resume`` warns when the installed version is not the one the run started with)."""
    from ..agent.plugins import load_plugin
    from .scheduler import make_agent

    given = dict(agents or {})
    records: dict[str, Any] = {}
    before = (stored or {}).get("plugins") if isinstance((stored or {}).get("plugins"), dict) else {}
    entrants = list(spec.entrants)
    for i, e in enumerate(spec.entrants):
        if e.is_plugin and e.label not in given:  # an injected agent object is the caller's, not loaded here
            old = before.get(e.label) if isinstance(before.get(e.label), dict) else None
            try:
                record = load_plugin(e.agent).record()
            except ConfigError as exc:
                if old is None:
                    raise
                raise ConfigError(f"{exc}; the run started with {_provided_by(old)}: install it again to "
                                  "resume") from None
            records[e.label] = record
            if old is not None and old.get("version") != record["version"]:
                warn(f"agent {e.agent!r} is {record['distribution']} {record['version']} now; the run "
                     f"started with {old.get('version')}: the trials left are run with the new version")
                records[e.label] = {**old, "resumed_with": record["version"]}
            elif old is not None:
                records[e.label] = old
        if (e.is_plugin or e.outputs is not None) and e.label not in given:
            agent = make_agent(e, spec)
            own = getattr(agent, "label", None)
            taken = {x.label for x in entrants} | set(given)
            if stored is None and e.is_plugin and isinstance(own, str) and own.strip() and own.strip() not in taken:
                entrants[i] = replace(e, name=own.strip())
                if e.label in records:
                    records[entrants[i].label] = records.pop(e.label)
            given[entrants[i].label] = agent
    return spec.replace(entrants=tuple(entrants)), (given or None), records


def _provided_by(record: dict[str, Any]) -> str:
    """Where a recorded plugin came from, in words: ``mypkg 0.1.0 (mypkg.agent:make)``."""
    dist = record.get("distribution")
    what = f"{dist} {record.get('version')}" if dist else "a module outside any installed distribution"
    return f"{what} ({record.get('target') or record.get('agent')})"


async def _execute(spec: RunSpec, layout: paths.RunLayout, tasks: list[Any], judge_list: list[Any],
                   config: dict[str, Any], *, agents: dict[str, Any] | None, progress: bool,
                   on_update: Callable[[Progress], None] | None) -> RunResult:
    grader = None
    if spec.judges.strip().lower() != "none":
        from .grading import make_grader

        grader = make_grader(layout, judge_list)

    from .progress import progress_bar

    # The launch forks the workers (if any), so it comes before the progress bar's thread.
    with Launch(spec, layout, tasks, grader=grader, agents=agents,
                after=functools.partial(prerender_report, layout)) as launch:
        with progress_bar(f"run {spec.run_id}", enabled=progress) as bar:
            def update(state: Progress) -> None:
                bar(state)
                if on_update:
                    on_update(state)

            state = await launch.run(update)

    summary = None
    if grader is not None:
        from .grading import write_summary

        summary = write_summary(layout, spec, tasks, state, judge_list)
    report = write_report(layout, summary, config, tasks)
    return RunResult(run_dir=layout.root, spec=spec, progress=state, summary=summary, report=report,
                     config=config)


def _preflight(spec: RunSpec, layout: paths.RunLayout, tasks: list[Any], judges: list[Any], *,
               injected_agents: set[str], check_keys: bool = True) -> None:
    """Before anything is spent, for the work that is actually left (a finished run resumes
    without keys): a judge spec that can grade, and (unless ``check_keys`` is off) every model
    and judge string routed to a provider, with its credentials."""
    from .store import TrialState, trial_state

    grading = spec.judges.strip().lower() != "none"
    models: list[str] = []
    need_grades = False
    for e in spec.entrants:
        for t in tasks:
            for k in range(1, spec.trials + 1):
                state = trial_state(layout.trial_dir(e.label, t.task_id, k), want_grade=grading)
                if state is TrialState.TODO and e.agent == "llm" and e.label not in injected_agents:
                    models.append(e.model or "")
                need_grades = need_grades or state is not TrialState.FINISHED
    grading_judges = judges if (grading and need_grades) else []
    if grading and need_grades and not judges:
        raise ConfigError(f"--judges {spec.judges!r} names no judge, so nothing could be graded; use panel, "
                          "heuristic, a comma list of models or a YAML file (or none to skip grading)")
    if not check_keys:  # the escape hatch for providers litellm reaches another way
        return
    _check_models(spec, grading_judges, models=models)


def _check_models(spec: RunSpec, judges: list[Any], *, models: list[str] | None = None,
                  injected_agents: Collection[str] = ()) -> None:
    """Every model string routed to a provider, with its credentials: ``models`` (default: every
    LLM entrant not injected) and the judges'."""
    from .preflight import check_credentials, check_routable

    if models is None:
        models = [e.model or "" for e in spec.entrants if e.agent == "llm" and e.label not in injected_agents]
    if spec.judges.strip().lower() == "none":
        judges = []
    check_routable([*((m, spec.api_base) for m in models),
                    *((j.model, getattr(j, "api_base", None) or spec.judge_api_base) for j in judges
                      if getattr(j, "method", "llm") == "llm" and getattr(j, "model", None))])
    check_credentials(models, judges, api_base=spec.api_base, judge_api_base=spec.judge_api_base)


def prerender_report(layout: paths.RunLayout, key: TrialKey, trial_dir: Path, document: Any = None) -> None:
    """Render a finished trial's redline for report.html now, while the run is going anyway
    (in its worker process), so the report at the end is assembled, not rendered. ``document``
    is the redline as grading opened it (None: it is opened here)."""
    try:
        from ..report import prerender_trial
    except ImportError:
        return
    prerender_trial(trial_dir, run_dir=layout.root, model=key.label, trial=key.trial, task=key.task,
                    document=document)


def write_report(layout: paths.RunLayout, summary: dict[str, Any] | None, config: dict[str, Any],
                 tasks: list[Any] | None = None) -> Path:
    """The rich report from ``redlinebench.report`` when it exists, else a minimal page.

    A report failure never costs the run: the minimal page is written instead and the reason
    printed, since every trial and grade is already safely on disk.
    """
    from .fallback_report import write_minimal_report

    try:
        from ..report import write_run_report
    except ImportError:
        return write_minimal_report(layout.root, summary, config)
    try:
        out = write_run_report(layout.root, tasks=tasks)
    except Exception as exc:  # noqa: BLE001  the report is a view of finished work
        warn(f"the full report failed ({type(exc).__name__}: {exc}); writing a minimal one")
        return write_minimal_report(layout.root, summary, config)
    return Path(out) if out else layout.report


def trial_keys(spec: RunSpec, tasks: list[Any]) -> list[TrialKey]:
    return [TrialKey(e, t, k) for e in spec.entrants for t in tasks for k in range(1, spec.trials + 1)]
