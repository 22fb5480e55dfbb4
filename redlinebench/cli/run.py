"""``redlinebench run`` and ``redlinebench demo``: thin wiring of options to redlinebench.runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from .._termtable import echo

from ..errors import ConfigError
from ._options import SCENARIO, SIDE, TURN, tasks_option
from .tasks import SOURCE_METAVAR

AGENT_CHOICES = ("llm", "noop", "accept-all", "golden", "playbook")
# Options that define a run; a resumed run takes them from its config.json, and accepts them only
# when they say the same.
_SPEC_OPTIONS = ("model", "agent", "source", "tasks", "scenario", "turn", "side", "limit", "trials", "judges", "run_id",
                 "preset", "max_steps", "max_tokens", "max_cost", "timeout", "temperature", "seed",
                 "no_prompt_cache", "reasoning_effort")
#: RunSpec field (as ``runner.api.spec_changes`` names it) -> the option that sets it.
_FIELD_OPTIONS = {"entrants": "--model/--agent", "filter.task_ids": "--tasks", "filter.scenario": "--scenario",
                  "filter.turn": "--turn", "filter.side": "--side", "filter.limit": "--limit", "trials": "--trials", "judges": "--judges",
                  "seed": "--seed", "limits.max_steps": "--max-steps", "limits.max_tokens": "--max-tokens",
                  "limits.max_cost_usd": "--max-cost", "limits.call_timeout_s": "--timeout",
                  "limits.temperature": "--temperature", "prompt_cache": "--no-prompt-cache",
                  "limits.reasoning_effort": "--reasoning-effort"}
#: preset key -> the option of the same meaning
_PRESET_OPTIONS = {"models": "model", "model": "model", "agents": "agent", "agent": "agent",
                   "prompt_cache": "no_prompt_cache"}


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def _build_spec(opts: dict[str, Any]) -> Any:
    from ..agent.limits import AgentLimits
    from ..runner import Entrant, RunSpec, TaskFilter
    from ..runner.presets import load_preset

    if opts.get("tasks") is not None and not _csv(opts["tasks"]):
        raise ConfigError(f"--tasks {opts['tasks']!r} names no task id; leave it out to run every task")
    preset = load_preset(opts["preset"]) if opts.get("preset") else {}
    models = list(opts["model"]) or list(preset.get("models") or [])   # load_preset folds model into models
    agents = list(opts["agent"]) or list(preset.get("agents") or [])
    if not agents:
        agents = ["llm"] if models else []
    if not agents:
        raise ConfigError("say what to run: --model M (an LLM through litellm) or --agent noop|accept-all|golden")
    plugins = [a for a in agents if a not in AGENT_CHOICES]
    if models and "llm" not in agents and not plugins:
        raise ConfigError(f"--model was given but --agent is {', '.join(agents)}; add --agent llm to run the model")
    entrants = []
    for a in agents:
        if a == "llm":
            if not models:
                raise ConfigError("--agent llm needs --model (a litellm model string, e.g. openai/gpt-5.4-mini)")
            entrants.extend(Entrant("llm", m) for m in models)
        elif a in plugins and models:  # a plugin takes each --model (its factory gets model=...)
            entrants.extend(Entrant(a, m) for m in models)
        else:
            entrants.append(Entrant(a))
    limits = opts.get("_limits") or AgentLimits.from_mapping(preset.get("limits"), where=preset.get("_path", "preset"))
    limits = limits.replace(max_steps=opts.get("max_steps"), max_tokens=opts.get("max_tokens"),
                            max_cost_usd=opts.get("max_cost"), call_timeout_s=opts.get("timeout"),
                            temperature=opts.get("temperature"), reasoning_effort=opts.get("reasoning_effort"))
    api_base = opts.get("api_base") or preset.get("api_base")

    def pick(name: str, default: Any) -> Any:
        value = opts.get(name)
        return value if value is not None else preset.get(name, default)

    source = opts.get("source")
    if source and Path(source).expanduser().exists():  # config.json records it relative to the run folder
        source = str(Path(source).expanduser().resolve())
    spec_kwargs: dict[str, Any] = dict(
        entrants=tuple(entrants),
        source=source,
        filter=TaskFilter(task_ids=_csv(opts.get("tasks")), scenario=opts.get("scenario"), turn=opts.get("turn"),
                          side=opts.get("side"), limit=opts.get("limit")),
        trials=int(pick("trials", 1)),
        concurrency=int(pick("concurrency", 4)),
        workers=int(pick("workers", 1)),
        judges=str(pick("judges", "panel")),
        limits=limits,
        seed=int(pick("seed", 0)),
        api_base=api_base,
        judge_api_base=opts.get("judge_api_base") or preset.get("judge_api_base"),
        prompt_cache=False if opts.get("no_prompt_cache") else bool(preset.get("prompt_cache", True)),
    )
    if opts.get("run_id"):
        spec_kwargs["run_id"] = opts["run_id"]
    elif opts.get("run_dir"):
        from ..runner.paths import run_id_for

        spec_kwargs["run_id"] = run_id_for(Path(opts["run_dir"]))
    return RunSpec(**spec_kwargs)


def _stored_options(stored: Any) -> dict[str, Any]:
    """A stored RunSpec as the run options that would build it again."""
    llm = list(dict.fromkeys(e.model for e in stored.entrants if e.agent == "llm" or e.is_plugin and e.model))
    f, lim = stored.filter, stored.limits
    return {"model": tuple(llm), "agent": tuple(dict.fromkeys(e.agent for e in stored.entrants)),
            "source": stored.source, "tasks": ",".join(f.task_ids) or None, "scenario": f.scenario,
            "turn": f.turn, "side": f.side, "limit": f.limit, "trials": stored.trials, "judges": stored.judges, "seed": stored.seed,
            "run_id": stored.run_id, "max_steps": lim.max_steps, "max_tokens": lim.max_tokens,
            "max_cost": lim.max_cost_usd, "timeout": lim.call_timeout_s, "temperature": lim.temperature,
            "reasoning_effort": lim.reasoning_effort, "no_prompt_cache": not stored.prompt_cache, "_limits": lim}


def _resume_spec(opts: dict[str, Any], given: set[str]) -> Any:
    """The stored spec of ``--run-dir``, with what a resume may change. Options that define the run
    are accepted when they say what the run says (up-arrow, add ``--resume``); each one that
    differs is named. ``--source`` may point at another copy of the same tasks (a moved folder)."""
    from ..runner.api import open_run, spec_changes
    from ..runner.presets import load_preset
    from ..runner.spec import RESUMABLE_FIELDS

    stored, _ = open_run(None, opts["run_dir"], resume=True, check_source="source" not in given)
    spec = stored.replace(**{k: opts.get(k) or getattr(stored, k) for k in RESUMABLE_FIELDS})
    named = [k for k in _SPEC_OPTIONS if k in given]
    if not named:
        return spec
    filled = {**_stored_options(stored), **{k: opts[k] for k in given}}
    if "preset" in given:  # what the preset sets is compared too, not masked by the stored values
        for key in load_preset(opts["preset"]):
            option = _PRESET_OPTIONS.get(key, key)
            if option not in given:
                filled.pop(option, None)
            if key == "limits":  # the preset's limits, and the options of any it leaves out
                for name in ("_limits", "max_steps", "max_tokens", "max_cost", "timeout", "temperature",
                             "reasoning_effort"):
                    if name not in given:
                        filled.pop(name, None)
    candidate = _build_spec({**filled, "run_dir": None})
    changed = spec_changes(candidate, stored)
    if "run_id" in given and opts["run_id"] != stored.run_id:
        changed.append(("run_id", stored.run_id, opts["run_id"]))
    if changed:
        def shown(key: str, value: Any) -> str:
            if key == "entrants":
                return ", ".join(str(e.get("label")) for e in value) or "none"
            return repr(value)

        parts = [f"{_FIELD_OPTIONS.get(k, '--preset (' + k + ')')}: {shown(k, old)} in the run, {shown(k, new)} given"
                 for k, old, new in changed]
        raise ConfigError("--resume continues the run as its config.json says; these options differ from it: "
                          + "; ".join(parts) + ". Drop them, or start a new run in another --run-dir")
    return spec.replace(source=candidate.source) if "source" in given else spec


def _finish(result: Any, console: Any) -> None:
    """Leaderboard table (rich), then plain lines (echo: wrapped at spaces, so paths stay whole)."""
    from ..runner.leaderboard import judging_incomplete_lines, print_leaderboard

    from ._pairwise_table import print_pairwise

    if result.summary is not None:
        print_leaderboard(result.summary, console)
        print_pairwise(result.summary, console)
    p = result.progress
    unknown = f" (+ {p.cost_unknown} episode(s) whose model has no known price)" if p.cost_unknown else ""
    echo(f"trials: {p.total} ({p.skipped} already done), failures: {p.failures}, "
         f"cost: ${p.cost_usd:.4f}{unknown}")
    from ..judge import near_miss_lines

    for line in near_miss_lines((result.summary or {}).get("judge_calls")):
        echo(line)
    for err in p.errors[:10]:
        lines = str(err.get("error") or "").strip().splitlines()
        echo(f"  failed: {err['model']} {err['task_id']} trial {err['trial']}: {lines[-1] if lines else ''}")
    if len(p.errors) > 10:
        echo(f"  ... and {len(p.errors) - 10} more (see metrics_summary.json)")
    limit = result.spec.filter.limit
    if limit is not None:
        data = (result.config or {}).get("data") or {}
        echo(f"--limit {limit}: {data.get('n_tasks', '?')} of {data.get('n_tasks_in_source', '?')} tasks, spread "
             "over the scenario x turn cells (a smoke run: not comparable to a full run's score)")
    echo(f"run directory: {Path(result.run_dir).resolve()}")
    if result.report:
        echo(f"report: {shown_path(result.report)}")
    unjudged = result.judging_incomplete
    for line in judging_incomplete_lines(unjudged):
        echo(line)
    if p.stopped:
        judge = (f"; finish judging the {len(unjudged)} trial(s) whose judges never answered with "
                 f"`redlinebench score {result.run_dir}`" if unjudged else "")
        echo(f"error: stopped early: {p.stopped}. Fix the cause, then continue with "
             f"`redlinebench run --resume --run-dir {result.run_dir}`{judge}", err=True)
        raise SystemExit(1)
    if p.failures:
        # Errored episodes are not scored; a non-zero exit lets scripts and CI notice them.
        echo(f"error: {p.failures} trial(s) errored and were not scored; fix the cause, then re-run them "
             f"with `redlinebench run --resume --run-dir {result.run_dir}`", err=True)
        raise SystemExit(1)
    if unjudged:
        # The episodes are safe on disk; only judging is missing, and the score leaves them out.
        echo(f"error: judging is incomplete for {len(unjudged)} trial(s) (a judge never answered), so "
             f"they are not in the score; fix the cause, then finish them with "
             f"`redlinebench score {result.run_dir}` (only the judges that failed are called again)",
             err=True)
        raise SystemExit(1)


def shown_path(path: Path) -> str:
    """A page as the terminal prints it: absolute, with its file:// URL (a click opens it in most terminals)."""
    full = Path(path).resolve()
    return f"{full} ({full.as_uri()})"


def _interrupted(run_dir: Path) -> None:
    echo(f"interrupted: finished trials are saved in {run_dir}; continue with "
         f"`redlinebench run --resume --run-dir {run_dir}`", err=True)
    raise SystemExit(130)


def _planned_power(tasks: list[Any], trials: int, prior: Path) -> None:
    """``--power-from``: the prior run's variance components applied to this plan's tasks and trials."""
    from ..scoring import planned_mdd, power_of
    from ._pairwise_table import planned_power_lines
    from .scoring import collect_grade_files, load_grades

    grades, _problems = load_grades(collect_grade_files([prior]), skip_invalid=True)
    if not grades:
        raise ConfigError("no grade.json below this folder: --power-from needs a graded run", path=prior)
    try:
        plan = planned_mdd(power_of(grades), [(t.scenario_id, t.turn, t.input_group, t.task_id) for t in tasks],
                           trials)
    except ValueError as exc:
        raise ConfigError(f"--power-from: {exc} (run the prior with --trials 2 or more)", path=prior) from None
    for line in planned_power_lines(plan, str(prior)):
        echo(line)


def _dry_run(spec: Any, power_from: Path | None = None) -> None:
    from rich.console import Console

    from .._termtable import Col, print_fitted
    from ..runner.api import create_judge_list, load_selected_tasks
    from ..runner.estimate import estimate

    taskset, tasks = load_selected_tasks(spec)
    judges = create_judge_list(spec)
    est = estimate(spec, tasks, judges)
    cells = sorted({(int(t.scenario_id), int(t.turn)) for t in tasks})
    source = getattr(taskset, "source", None)
    echo(f"plan: run {spec.run_id}: {len(spec.entrants)} entrant(s) x {len(tasks)} task(s) x "
         f"{spec.trials} trial(s) = {est.n_trials} trials at concurrency {spec.concurrency}")
    kind = getattr(source, "kind", "?")
    echo(f"data: {kind if kind == 'embedded' else getattr(source, 'named', kind)} "
         f"({len(cells)} of 12 scenario x turn cells)")
    echo(f"entrants: {', '.join(e.label for e in spec.entrants)}")
    echo(f"judges: {spec.judges} -> {', '.join(str(getattr(j, 'name', j)) for j in judges) or 'none'}")
    echo(f"limits per trial: {json.dumps(spec.limits.to_dict())}")
    # a narrow terminal keeps the costs and whole model names: the token columns give way first
    cols = (Col("role", "left"), Col("name", "left", shrink=True, min_width=14), Col("calls", drop=2),
            Col("tokens in", short="in", drop=1), Col("cached tokens in", drop=3, short="cached in"),
            Col("tokens out", short="out", drop=1), Col("cost USD", short="USD"),
            Col("cost with caching", short="cached USD"))
    rows = [[r["role"], r["name"], f"{r['calls']:,}", f"{r['tokens_in']:,}", f"{r.get('cache_read_tokens', 0):,}",
             f"{r['tokens_out']:,}", "unknown price" if r["cost_usd"] is None else _usd(r["cost_usd"]),
             "unknown price" if r.get("cost_cached_usd", r["cost_usd"]) is None
             else _usd(r.get("cost_cached_usd", r["cost_usd"]))] for r in est.rows]
    print_fitted(Console(), cols, rows, title="estimate (a model of a typical episode, not a measurement)")
    total, total_cached = est.total_cost, est.total_cost_cached
    echo("total: " + ("unknown (a model has no price in litellm's table)" if total is None
                            else f"about ${_usd(total)} without prompt caching, about ${_usd(total_cached)} "
                                 f"with it"))
    from ..runner.estimate import ASSUMED_CACHE_HIT

    echo(f"caching assumption: each agent call finds {ASSUMED_CACHE_HIT:.0%} of the previous call's prompt "
         "in the provider's cache (read at its cache price; providers needing markers write the rest); "
         "judges are estimated without caching" + ("" if spec.prompt_cache else
                                                         "; this run has --no-prompt-cache, so both totals agree"))
    from ..runner.preflight import missing_keys

    models = [e.model for e in spec.entrants if e.agent == "llm" and e.model]
    missing = missing_keys(models, judges, api_base=spec.api_base, judge_api_base=spec.judge_api_base)
    warn_missing_keys(missing, "run")
    if not missing:
        echo("credentials: every model and judge has a key (or an explicit endpoint)")
    if power_from is not None:
        _planned_power(tasks, spec.trials, power_from)
    echo("nothing was run (--dry-run)")


def warn_missing_keys(missing: dict[str, list[str]], what: str) -> None:
    """A dry run's line per model whose key is not set (``what``: "run", "tournament")."""
    for model, keys in missing.items():
        echo(f"warning: {model} needs {' or '.join(keys)}, which is not set (or empty); the {what} would refuse "
             "to start (set it, or use --skip-key-check if the provider authenticates another way)", err=True)


def register(main: click.Group) -> None:
    @main.command("run")
    @click.option("--model", "-m", multiple=True, metavar="MODEL",
                  help="litellm model string, e.g. openai/gpt-5.4-mini, anthropic/claude-sonnet-4-5, "
                       "ollama_chat/qwen3 or openai/<name> with --api-base. Repeat to run several models.")
    @click.option("--agent", "-a", multiple=True, metavar="AGENT",
                  help="llm (default with --model), a baseline (noop, accept-all, golden, playbook), or your own "
                       "agent: an import path pkg.module:factory or a name registered in the 'redlinebench.agents' "
                       "entry-point group (it gets each --model, if any). Repeatable.")
    @click.option("--source", metavar=SOURCE_METAVAR,
                  help="Task tree (a dataset root containing tasks/, or a tasks/ directory), the pinned Hub "
                       "snapshot, or the embedded synthetic set. Default: $REDLINEBENCH_BENCHMARK_DIR, "
                       "./benchmark/, the Hub snapshot, the embedded set (see `redlinebench tasks where`).")
    @tasks_option("run")
    @click.option("--scenario", type=SCENARIO, help="Only this scenario (the public set has 1-3).")
    @click.option("--turn", type=TURN, help="Only this turn (the public set has 1-4).")
    @click.option("--side", type=SIDE, help="Only tasks of this side: A (vendor) or B (customer), either case.")
    @click.option("--limit", type=click.IntRange(1), default=None, metavar="N",
                  help="Only the first N selected tasks, spread over the scenario x turn cells (one of each "
                       "cell before a second of any; the same N tasks on every run): a smoke run. Its score "
                       "covers a part of the benchmark and is not comparable to a full run.")
    @click.option("--trials", "-k", type=click.IntRange(1, 1000), default=None, help="Trials per task [1].")
    @click.option("--concurrency", "-j", type=click.IntRange(1, 1024), default=None,
                  help="Trials running at once [4].")
    @click.option("--workers", "-w", type=click.IntRange(1, 256), default=None,
                  help="Processes sharing the trials (Linux) [1]. Worth it when the model answers fast "
                       "(a local vLLM server) at high concurrency: litellm and the document engine then "
                       "need more than one CPU core. The concurrency is split between them.")
    @click.option("--judges", metavar="SPEC", default=None,
                  help="panel (default: the three SPEC judges), heuristic (offline, unpublishable), none "
                       "(no scoring), a comma list of litellm models, or a panel YAML file.")
    @click.option("--run-dir", type=click.Path(path_type=Path), help="Run directory [runs/<run_id>].")
    @click.option("--run-id", help="Name of the run (default: UTC time + random suffix).")
    @click.option("--resume", is_flag=True, help="Continue the run in --run-dir: finished trials are skipped, "
                  "interrupted and errored ones redone, missing grades computed. Its stored settings are used.")
    @click.option("--dry-run", is_flag=True, help="Print the plan and a token/cost estimate; run nothing.")
    @click.option("--power-from", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="RUN_DIR",
                  help="With --dry-run: the smallest difference between two models the plan could detect "
                       "(80% power, 5% two-sided), from the variance of a prior run with 2+ trials per task.")
    @click.option("--api-base", metavar="URL", help="OpenAI-compatible endpoint for the model (vLLM, Ollama, "
                  "LM Studio, a proxy), e.g. http://localhost:8000/v1.")
    @click.option("--judge-api-base", metavar="URL", help="OpenAI-compatible endpoint for the judges "
                  "(default: each judge's provider, or OPENAI_API_BASE).")
    @click.option("--preset", metavar="NAME|PATH", help="YAML defaults from configs/presets/ (options win).")
    @click.option("--max-steps", type=click.IntRange(1, 10_000), help="Model calls per episode [40].")
    @click.option("--max-tokens", type=click.IntRange(1), help="Prompt+completion tokens per episode [2,000,000].")
    @click.option("--max-cost", type=click.FloatRange(0), help="USD per episode (known prices) [10].")
    @click.option("--timeout", type=click.FloatRange(1), help="Seconds per model call [300].")
    @click.option("--temperature", type=click.FloatRange(0, 2), help="Sampling temperature (default: provider's).")
    @click.option("--seed", type=int, default=None, help="Seed passed to providers that accept one [0].")
    @click.option("--reasoning-effort", metavar="EFFORT", default=None,
                  help="How hard thinking models think: none, minimal, low, medium, high, or a thinking budget in "
                  "tokens; per model as MODEL=VALUE,MODEL=VALUE (default: the provider's). Recorded in config.json "
                  "and each trial's metrics.json.")
    @click.option("--no-prompt-cache", is_flag=True, help="Turn prompt caching off: no cache markers for "
                  "providers that need them (Anthropic, Bedrock/Vertex Claude). On by default; it does not "
                  "change what the model sees, only what the provider bills.")
    @click.option("--no-progress", is_flag=True, help="No progress bar (e.g. in CI logs).")
    @click.option("--skip-key-check", is_flag=True, help="Do not check provider credentials before starting "
                  "(for providers that authenticate without environment variables).")
    def run_cmd(**opts: Any) -> None:
        """Run agents on benchmark tasks, grade them and write a run directory.

        \b
        Examples:
          redlinebench run --model openai/gpt-5.4-mini --judges panel
          redlinebench run --model openai/my-model \\
              --api-base http://localhost:8000/v1 --judges heuristic
          redlinebench run --agent golden --agent noop --judges heuristic --scenario 1
          redlinebench run --agent my_pkg.agent:make_agent --model openai/gpt-5.4-mini
          redlinebench run --resume --run-dir runs/20260101-120000-abc123

        Layout: RUN_DIR/config.json, RUN_DIR/trials/<model>/<task>/<trial>/{redline.docx,
        transcript.jsonl, metrics.json, grade.json, and, when the gate passed, judges/<judge>.json
        and annotated_view.md}, RUN_DIR/metrics_summary.json, RUN_DIR/report.html. API keys come from
        the provider's usual environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...) and are
        never written.
        """
        from rich.console import Console

        from ..runner import run as run_benchmark
        from ..runner.api import default_run_dir

        if opts["resume"]:
            if not opts.get("run_dir"):
                raise ConfigError("--resume needs --run-dir (the directory of the run to continue)")
            if opts["dry_run"]:
                raise ConfigError("--dry-run plans a new run; it does not combine with --resume")
            ctx = click.get_current_context()
            given = {k for k in opts if ctx.get_parameter_source(k) is click.core.ParameterSource.COMMANDLINE}
            spec = _resume_spec(opts, given)
            run_dir = opts["run_dir"]
        else:
            if opts["power_from"] is not None and not opts["dry_run"]:
                raise ConfigError("--power-from goes with --dry-run (it states the power of a planned run)")
            spec = _build_spec(opts)
            if opts["dry_run"]:
                _dry_run(spec, opts["power_from"])
                return
            run_dir = opts.get("run_dir") or default_run_dir(spec)
        console = Console()
        try:
            result = run_benchmark(spec, run_dir, resume=opts["resume"], progress=not opts["no_progress"],
                                   check_keys=not opts["skip_key_check"])
        except KeyboardInterrupt:
            _interrupted(Path(run_dir))
        _finish(result, console)

    @main.command("demo")
    @click.option("--run-dir", type=click.Path(path_type=Path), help="Run directory [runs/demo-<time>].")
    @click.option("--source", metavar=SOURCE_METAVAR, help="Another task tree to run the baselines on "
                  "[the embedded synthetic set].")
    @click.option("--concurrency", "-j", type=click.IntRange(1, 1024), default=4, show_default=True,
                  help="Trials at once.")
    @click.option("--workers", "-w", type=click.IntRange(1, 256), default=None,
                  help="Processes sharing the trials (Linux) [one per core, at most 4]: the baselines and "
                       "the heuristic judge are CPU-bound.")
    @click.option("--no-progress", is_flag=True, help="No progress bar.")
    def demo_cmd(run_dir: Path | None, source: str | None, concurrency: int, workers: int | None,
                 no_progress: bool) -> None:
        """Run the three baselines on the embedded synthetic set, offline, and print the leaderboard.

        noop (the input unchanged: fails the validity gate), accept-all (leaves the other side's
        changes in place, answers "Accepted." on their open threads, adds one closing comment) and
        golden (the attorney redline: the upper bound) are graded by the offline heuristic judge. No API key, no network. The report path is printed at the end.
        """
        from rich.console import Console

        from ..config import embedded_benchmark_dir
        from ..runner import Entrant, RunSpec
        from ..runner import run as run_benchmark
        from ..runner.paths import run_id_for
        from ..runner.spec import new_run_id
        from ..runner.workers import default_workers

        if source is None:
            embedded = embedded_benchmark_dir()
            if not embedded.is_dir():
                raise ConfigError("the embedded synthetic benchmark is missing from this installation "
                                  "(build it with `redlinebench data build-synthetic`)", path=embedded)
            source = "embedded"
        spec = RunSpec(entrants=(Entrant("golden"), Entrant("accept-all"), Entrant("noop")),
                       source=source, judges="heuristic", concurrency=concurrency,
                       workers=workers or default_workers(),
                       run_id=run_id_for(run_dir) if run_dir else "demo-" + new_run_id())
        run_dir = run_dir or default_demo_dir(spec.run_id)
        console = Console()
        try:
            result = run_benchmark(spec, run_dir, progress=not no_progress)
        except KeyboardInterrupt:
            _interrupted(Path(run_dir))
        _finish(result, console)
        echo("judge: heuristic (an offline approximation for demos and CI; publish only panel scores)")


def default_demo_dir(run_id: str) -> Path:
    from ..runner.api import DEFAULT_RUNS

    return DEFAULT_RUNS / run_id


def _usd(value: float) -> str:
    return f"{value:.2f}" if value >= 1 else f"{value:.4f}"
