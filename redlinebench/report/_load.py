"""Read a run directory from its files alone (no runner, no network).

Layout (docs/ARCHITECTURE.md)::

    <run>/config.json
    <run>/metrics_summary.json
    <run>/trials/<model_slug>/<task_id>/<trial>/{grade.json, metrics.json, transcript.jsonl,
                                                 annotated_view.md, redline.docx, judges/*.json}

Every file is treated as possibly missing or malformed: a problem is recorded against the
trial (and shown in the report) instead of dropping the row or raising. Only a path that is
not a run directory at all is an error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ..errors import RedlineBenchError

if TYPE_CHECKING:
    from ._paths import Shareable

_TASK_RE = re.compile(r"^redline-s(\d+)-t(\d+)-g(\d+)([a-z])$")
MAX_JSON_BYTES = 50 * 1024 * 1024
MAX_VIEW_CHARS = 400_000
# baselines that fail the validity gate by construction (agent/baselines.py: noop hands the input
# back unchanged): their gate failures are the floor the scale starts from, not a fault
FLOOR_AGENTS = frozenset({"noop"})


class ReportError(RedlineBenchError):
    """A report could not be produced (not a run directory, unwritable output...)."""


# ----------------------------------------------------------------------------- records

@dataclass
class TrialRecord:
    """Everything the report knows about one (model, task, trial)."""

    path: Path
    model_slug: str
    task_id: str
    trial_name: str
    grade: dict[str, Any] | None = None
    metrics: dict[str, Any] | None = None
    annotated_view: str | None = None
    transcript_steps: int | None = None
    judge_files: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    # -- identity
    @property
    def model(self) -> str:
        for src in (self.grade, self.metrics):
            if src and isinstance(src.get("model"), str) and src["model"]:
                return src["model"]
        return self.model_slug

    @property
    def trial(self) -> int | str:
        value = (self.grade or {}).get("trial")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        return int(self.trial_name) if self.trial_name.isdigit() else self.trial_name

    @property
    def redline_path(self) -> Path | None:
        p = self.path / "redline.docx"
        return p if p.is_file() else None

    def _meta(self, key: str, group: int) -> Any:
        value = (self.grade or {}).get(key)
        if value is not None and not isinstance(value, (dict, list)):
            return value
        m = _TASK_RE.match(self.task_id)
        if m:
            return m.group(group)
        return None

    @property
    def scenario(self) -> str | None:
        v = self._meta("scenario_id", 1)
        return None if v is None else str(int(v)) if str(v).isdigit() else str(v)

    @property
    def turn(self) -> str | None:
        v = self._meta("turn", 2)
        return None if v is None else str(int(v)) if str(v).isdigit() else str(v)

    @property
    def side(self) -> str | None:
        v = (self.grade or {}).get("side")
        return str(v) if isinstance(v, str) else None

    @property
    def input_group(self) -> str | None:
        v = (self.grade or {}).get("input_group")
        if isinstance(v, str):
            return v
        m = _TASK_RE.match(self.task_id)
        return f"s{m.group(1)}-t{m.group(2)}-g{m.group(3)}" if m else None

    # -- grading
    @property
    def score(self) -> dict[str, Any]:
        s = (self.grade or {}).get("score")
        return s if isinstance(s, dict) else {}

    @property
    def reward(self) -> float | None:
        v = self.score.get("weighted")
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    @property
    def gate(self) -> dict[str, Any]:
        g = (self.grade or {}).get("gate")
        return g if isinstance(g, dict) else {}

    @property
    def gate_passed(self) -> bool | None:
        v = self.gate.get("passed")
        return v if isinstance(v, bool) else None

    @property
    def judges(self) -> list[str]:
        j = (self.grade or {}).get("judges")
        if isinstance(j, list):
            return [str(x) if not isinstance(x, dict) else str(x.get("name") or x.get("model") or x) for x in j]
        return []

    @property
    def per_rubric(self) -> list[dict[str, Any]]:
        rows = self.score.get("per_rubric")
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []

    @property
    def missing_judges(self) -> list[str]:
        """Judges of the panel that returned no verdict for some rubric (judging incomplete)."""
        g = self.grade or {}
        explicit = g.get("incomplete_judges") or g.get("missing_judges")
        judging = g.get("judging")
        if not explicit and isinstance(judging, dict):
            explicit = judging.get("missing_judges")
        if isinstance(explicit, list) and explicit:
            return [str(x) for x in explicit]
        missing: list[str] = []
        judges = self.judges
        if len(judges) > 1:
            for row in self.per_rubric:
                votes = row.get("votes")
                if isinstance(votes, dict):
                    for j in judges:
                        if j not in votes and j not in missing:
                            missing.append(j)
        return missing

    @property
    def status(self) -> str:
        """``graded`` | ``gate_failed`` | ``judging_incomplete`` | ``errored`` | ``not_graded``."""
        g = self.grade
        if g is None:
            # the runner records an agent that crashed or hit a provider error in metrics.json, with no grade
            return "errored" if (self.metrics or {}).get("status") == "errored" else "not_graded"
        st = g.get("status")
        if st in {"graded", "gate_failed", "judging_incomplete", "errored"}:
            return st
        if self.gate_passed is False:
            return "gate_failed"
        if g.get("incomplete") is True or self.missing_judges:
            return "judging_incomplete"
        return "graded"

    @property
    def judging_incomplete(self) -> bool:
        return self.status == "judging_incomplete" or bool(self.missing_judges)

    @property
    def scored(self) -> bool:
        """The scorer averages this trial in (a gate failure counts as 0)."""
        return self.status in {"graded", "gate_failed"}

    @property
    def agent(self) -> str | None:
        v = (self.metrics or {}).get("agent")
        return v if isinstance(v, str) and v else None

    @property
    def expected_gate_failure(self) -> bool:
        """A gate failure of a floor baseline (``noop``): what it is for, not an alarm."""
        return self.status == "gate_failed" and self.agent in FLOOR_AGENTS

    # -- the integrity audit (SPEC §5.1), as grading recorded it
    @property
    def integrity(self) -> Any:
        """The grade's ``IntegrityReport``; None when the output was never audited (older grades)."""
        from ..scoring import grade_integrity

        return grade_integrity(self.grade) if self.grade else None

    @property
    def integrity_failed(self) -> bool:
        """The gate failed on a fatal integrity finding (not for want of the author's work)."""
        from ..scoring import integrity_failed

        return self.grade is not None and integrity_failed(self.grade)

    @property
    def integrity_flagged(self) -> bool:
        """Graded with at least one flagged finding (shown to the judges, refused by ``push``)."""
        from ..scoring import integrity_flagged

        return self.grade is not None and integrity_flagged(self.grade)

    @property
    def golden_integrity(self) -> Any:
        """The golden baseline's audit of the task's own golden (metrics.json ``golden_integrity``):
        an ``IntegrityReport``, a string when the audit was skipped, None when not recorded."""
        from ..docx.integrity_types import IntegrityReport

        raw = (self.metrics or {}).get("golden_integrity")
        if not isinstance(raw, dict):
            return None
        if "skipped" in raw:
            return str(raw["skipped"])
        try:
            return IntegrityReport.from_dict(raw)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    @property
    def errored(self) -> bool:
        """No output to grade: the agent run failed, or the trial was never graded."""
        return self.status in {"errored", "not_graded"}

    # -- run metrics (metrics.json written by the runner)
    def metric(self, *names: str) -> float | None:
        m = self.metrics or {}
        for name in names:
            cur: Any = m
            for part in name.split("."):
                cur = cur.get(part) if isinstance(cur, dict) else None
            if isinstance(cur, (int, float)) and not isinstance(cur, bool):
                return float(cur)
        return None

    @property
    def cost(self) -> float | None:
        if (self.metrics or {}).get("cost_known") is False:  # a model without a known price: 0.0 is not a cost
            return None
        return self.metric("cost_usd", "cost", "total_cost", "usage.cost_usd", "usage.cost")

    @property
    def tokens_in(self) -> float | None:
        return self.metric("tokens_in", "input_tokens", "prompt_tokens", "usage.tokens_in", "usage.input_tokens",
                           "usage.prompt_tokens")

    @property
    def cache_read_tokens(self) -> float | None:
        """Input tokens the provider served from its prompt cache (part of ``tokens_in``)."""
        return self.metric("cache_read_tokens")

    @property
    def cache_write_tokens(self) -> float | None:
        return self.metric("cache_write_tokens")

    @property
    def tokens_out(self) -> float | None:
        return self.metric("tokens_out", "output_tokens", "completion_tokens", "usage.tokens_out",
                           "usage.output_tokens", "usage.completion_tokens")

    @property
    def latency(self) -> float | None:
        return self.metric("wall_s", "latency_s", "wall_time_s", "duration_s", "elapsed_s", "latency", "seconds")

    @property
    def tool_calls(self) -> float | None:
        m = self.metrics or {}
        for key in ("tool_calls", "calls_by_tool", "tool_calls_by_name"):
            v = m.get(key)
            if isinstance(v, dict):
                return float(sum(x for x in v.values() if isinstance(x, (int, float)) and not isinstance(x, bool)))
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v)
        return self.metric("n_tool_calls", "tool_calls_total")

    @property
    def tool_calls_by_name(self) -> dict[str, float]:
        m = self.metrics or {}
        for key in ("tool_calls_by_name", "calls_by_tool", "tool_calls"):
            v = m.get(key)
            if isinstance(v, dict):
                return {str(k): float(x) for k, x in v.items() if isinstance(x, (int, float)) and not isinstance(x, bool)}
        return {}

    @property
    def failed_edits(self) -> float | None:
        return self.metric("failed_edits", "edits_failed", "tool_stats.edits_failed", "tools.edits_failed")

    @property
    def judge_cost(self) -> float | None:
        g = self.grade or {}
        usage = g.get("usage") if isinstance(g.get("usage"), dict) else {}
        v = usage.get("cost_usd", g.get("judge_cost_usd"))
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    @property
    def errors(self) -> list[str]:
        """Errors the grader recorded (a judge that failed after all retries, ...)."""
        e = (self.grade or {}).get("errors")
        out = [str(x) for x in e] if isinstance(e, list) else []
        if isinstance((self.grade or {}).get("error"), str):
            out.append(self.grade["error"])  # type: ignore[index]
        return out


@dataclass
class RunData:
    """A whole run directory as read from disk."""

    path: Path
    config: dict[str, Any]
    summary: dict[str, Any] | None
    summary_note: str | None
    trials: list[TrialRecord]
    problems: list[str] = field(default_factory=list)

    @cached_property
    def share(self) -> "Shareable":
        """Rewrites this machine's absolute paths in text the pages show (see :mod:`._paths`)."""
        from ._paths import Shareable
        return Shareable(self.path)

    @property
    def run_id(self) -> str:
        v = config_value(self.config, "run_id", "spec.run_id")
        return v if isinstance(v, str) and v else self.path.name

    @property
    def leaderboard(self) -> list[dict[str, Any]]:
        lb = (self.summary or {}).get("leaderboard")
        return [e for e in lb if isinstance(e, dict)] if isinstance(lb, list) else []

    @property
    def models(self) -> list[str]:
        seen: list[str] = [str(e.get("model")) for e in self.leaderboard if e.get("model") is not None]
        for t in self.trials:
            if t.model not in seen:
                seen.append(t.model)
        return seen

    @property
    def judge_method(self) -> str | None:
        v = (self.summary or {}).get("judge_method")
        if isinstance(v, str):
            return v
        for t in self.trials:
            v = (t.grade or {}).get("judge_method")
            if isinstance(v, str):
                return v
        return None

    def entry(self, model: str) -> dict[str, Any] | None:
        for e in self.leaderboard:
            if str(e.get("model")) == model:
                return e
        return None


# ----------------------------------------------------------------------------- reading

def read_json(path: Path, problems: list[str], *, what: str) -> Any:
    """Parse a JSON file; on any problem record a sentence naming the file and return None."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            problems.append(f"{path}: {what} is {size} bytes, larger than the {MAX_JSON_BYTES} byte limit; skipped")
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        problems.append(f"{path}: {what} is not UTF-8 text ({exc.reason})")
    except json.JSONDecodeError as exc:
        problems.append(f"{path}: {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    except OSError as exc:
        problems.append(f"{path}: {what} could not be read ({exc.strerror or exc})")
    return None


def _read_text(path: Path, problems: list[str], *, what: str) -> str | None:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            text = fh.read(MAX_VIEW_CHARS + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{path}: {what} could not be read ({exc.strerror or exc})")
        return None
    if len(text) > MAX_VIEW_CHARS:
        text = text[:MAX_VIEW_CHARS] + "\n… (truncated for the report)"
    return text


def _count_lines(path: Path, problems: list[str]) -> int | None:
    try:
        n = 0
        with path.open("rb") as fh:
            for line in fh:
                if line.strip():
                    n += 1
        return n
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{path}: transcript could not be read ({exc.strerror or exc})")
        return None


def _trial_dirs(trials_root: Path) -> Iterable[tuple[str, str, Path]]:
    if not trials_root.is_dir():
        return
    for model_dir in sorted(p for p in trials_root.iterdir() if p.is_dir()):
        for task_dir in sorted(p for p in model_dir.iterdir() if p.is_dir()):
            for trial_dir in sorted((p for p in task_dir.iterdir() if p.is_dir()), key=_trial_key):
                yield model_dir.name, task_dir.name, trial_dir


def _trial_key(p: Path) -> tuple[int, int | str]:
    return (0, int(p.name)) if p.name.isdigit() else (1, p.name)


def load_trial(model_slug: str, task_id: str, trial_dir: Path) -> TrialRecord:
    rec = TrialRecord(path=trial_dir, model_slug=model_slug, task_id=task_id, trial_name=trial_dir.name)
    grade = read_json(trial_dir / "grade.json", rec.problems, what="grade.json")
    if grade is not None and not isinstance(grade, dict):
        rec.problems.append(f"{trial_dir / 'grade.json'}: expected a JSON object, found {type(grade).__name__}")
        grade = None
    rec.grade = grade
    metrics = read_json(trial_dir / "metrics.json", rec.problems, what="metrics.json")
    rec.metrics = metrics if isinstance(metrics, dict) else None
    rec.annotated_view = _read_text(trial_dir / "annotated_view.md", rec.problems, what="annotated view")
    rec.transcript_steps = _count_lines(trial_dir / "transcript.jsonl", rec.problems)
    judges_dir = trial_dir / "judges"
    if judges_dir.is_dir():
        for jf in sorted(judges_dir.glob("*.json")):
            data = read_json(jf, rec.problems, what="judge reply")
            if isinstance(data, dict):
                rec.judge_files[jf.stem] = data
    if grade is None and (trial_dir / "redline.docx").is_file() and not rec.problems:
        rec.problems.append(f"{trial_dir}: has a redline but no grade.json (not scored yet: run `redlinebench score`)")
    return rec


def load_run(run_dir: str | Path) -> RunData:
    """Read *run_dir*; raise :class:`ReportError` only if it is not a run directory."""
    path = Path(run_dir)
    if not path.exists():
        raise ReportError("run directory does not exist", path=path)
    if not path.is_dir():
        raise ReportError("is not a directory (expected a run directory with config.json and trials/)", path=path)
    problems: list[str] = []
    has_trials = (path / "trials").is_dir()
    has_summary = (path / "metrics_summary.json").is_file()
    has_config = (path / "config.json").is_file()
    if not (has_trials or has_summary):
        raise ReportError("not a run directory: no trials/ folder and no metrics_summary.json", path=path)
    config = read_json(path / "config.json", problems, what="config.json") if has_config else None
    if not has_config:
        problems.append(f"{path / 'config.json'}: missing; run settings are unknown")
    if config is not None and not isinstance(config, dict):
        problems.append(f"{path / 'config.json'}: expected a JSON object")
        config = None
    trials = [load_trial(m, t, d) for m, t, d in _trial_dirs(path / "trials")]
    summary, note = _load_summary(path, trials, problems)
    return RunData(path=path, config=config or {}, summary=summary, summary_note=note, trials=trials, problems=problems)


def _load_summary(path: Path, trials: list[TrialRecord], problems: list[str]) -> tuple[dict | None, str | None]:
    summary = read_json(path / "metrics_summary.json", problems, what="metrics_summary.json")
    if isinstance(summary, dict):
        return summary, None
    grades = [t.grade for t in trials if t.grade is not None]
    if not grades:
        return None, "no metrics_summary.json and no grade.json files: nothing is scored yet"
    try:
        from ..scoring import summarize  # late: the report must still render if scoring is absent
    except ImportError:
        return None, "no metrics_summary.json, and the scoring module is not installed to compute one"
    try:
        return summarize(grades), "computed from the grade.json files (metrics_summary.json was missing)"
    except RedlineBenchError as exc:
        problems.append(f"{path}: could not summarize the grade files: {exc}")
        return None, "the grade files could not be summarized"


def config_value(config: Mapping[str, Any], *keys: str) -> Any:
    """First present value among dotted *keys* in *config*."""
    for key in keys:
        cur: Any = config
        for part in key.split("."):
            cur = cur.get(part) if isinstance(cur, Mapping) else None
        if cur not in (None, "", [], {}):
            return cur
    return None
