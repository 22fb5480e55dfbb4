"""``report.html`` for one run directory, built from its files alone."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote

from ..judge import near_miss_lines
from ..scoring import rubric_satisfied
from ._components import (
    SIDE_NAMES,
    ModelColours,
    breakable_name,
    agreement_section,
    ci_text,
    config_list,
    dimension_charts,
    gate_zero_categories,
    leaderboard_forest,
    method_note,
    money_total,
    num_cell,
    redline_overall,
    reward_cell,
    scenario_labels,
    scenario_turn_heatmap,
    status_badge,
    trial_sort_key,
    verdict_badge,
)
from ._html import (Markup, count, el, fixed, integer, is_number, join, mean_count, money, natural_key, plain, rate,
                    score100, seconds, slug_id)
from ._load import RunData, TrialRecord, config_value, load_run
from ._page import page, write_atomic
from ._fragments import FragmentCache, cache_dir
from ._integrity import card_text, golden_findings, integrity_badge, summary_callout, trial_findings
from ._redline import AuthorColours, fragment_for, render_annotated, render_path
from ._pack import Packer
from ._pairwise import clean_pairs, headline, pairwise_for, pairwise_section
from ._stats import cached_share, judge_agreement, mean, total
from ._tasks import load_run_tasks, source_root
from ._transcript import read_events, render_transcript

DIAG_LABELS = {
    "surgicalness_score": "Surgicalness (inline share of edits)",
    "redlines": "Redlines (clusters of touched paragraphs)",
    "edit_operations": "Edit operations",
    "total_revisions": "Tracked revisions",
    "touched_paragraphs": "Touched paragraphs",
    "comments_added": "Comments added",
    "median_insertion_chars": "Median insertion (chars)",
}
# What kind of number each diagnostic is, so each reads one way everywhere (issue 26): a rate as a
# percentage, a count as a whole number (its mean over trials with one decimal); anything else is a
# score with two decimals.
RATE_DIAGNOSTICS = frozenset({"surgicalness_score", "paragraph_precision", "paragraph_recall", "paragraph_f1",
                              "span_precision", "span_recall", "span_f1"})
COUNT_DIAGNOSTICS = frozenset({"redlines", "edit_operations", "total_revisions", "touched_paragraphs", "comments_added",
                               "median_insertion_chars", "inline_operations", "block_operations",
                               "model_touched_paragraphs", "golden_touched_paragraphs"})


def diagnostic_text(key: str, value: object, *, mean: bool = False) -> str:
    """*value* of the diagnostic *key* in its kind's one format; *mean*: a mean over trials."""
    if key in RATE_DIAGNOSTICS or key.endswith("_rate"):
        return rate(value)
    if key in COUNT_DIAGNOSTICS:
        return mean_count(value) if mean else integer(value)
    return fixed(value)


_SLUG = re.compile(r"[^A-Za-z0-9._-]")
CARD_HELP = {
    "95% CI": "95% bootstrap confidence interval over the scenario x turn cell means",
    "best@k": "the same score using each task's best trial (equals the score with one trial per task)",
    "trials": "graded trials that enter the score (gate failures included as 0); 'N of M' when some were not scored",
    "input groups": "distinct input contracts; their rubric variants and trials are averaged first",
    "gate failures": "outputs with no tracked change or comment by the task author, or failed by the integrity audit: reward 0",
    "integrity": "the integrity audit: trials whose gate failed on a fatal finding (reward 0) · trials graded with a flag",
    "judging incomplete": "trials whose judge panel did not finish: listed, not averaged",
    "errored": "trials whose agent run failed (provider or agent error) or that were never graded: listed, not averaged",
    "cached input": "agent input tokens read from the provider's prompt cache (billed at its cache price)",
    "coverage": "scenario x turn cells with at least one scored task (the real benchmark has 12)",
}


def write_run_report(run_dir: Path, output: Path | None = None, *, pack: bool | None = None,
                     tasks: Iterable[Any] | None = None) -> Path:
    """Write ``<run_dir>/report.html`` (or *output*) from the run's files; return its path.

    Needs nothing but the files: config.json, trials/**/grade.json, metrics.json,
    transcript.jsonl, annotated_view.md, redline.docx and metrics_summary.json. Missing or
    malformed files are reported on the page; only a path that is not a run directory raises
    :class:`ReportError`. ``pack`` stores the documents compressed (expanded by the page's script
    when opened); ``None`` packs only when the page would otherwise exceed ``PACK_LIMIT_BYTES``.
    ``tasks``: the run's tasks when the caller has them loaded (the runner), instead of reading
    them again from the source config.json names.
    """
    run = load_run(run_dir)
    out = Path(output) if output is not None else Path(run_dir) / "report.html"
    return write_atomic(out, render_run(run, pack=pack, link_from=out.parent, tasks=tasks))


# ------------------------------------------------------------------------------ page

def render_run(run: RunData, *, pack: bool | None = False, link_from: Path | None = None,
               tasks: Iterable[Any] | None = None) -> str:
    colours = ModelColours(run.models)
    scen = scenario_labels([run])
    if tasks is None:
        tasks, tasks_note = load_run_tasks(run)
    else:
        wanted = {t.task_id for t in run.trials}
        tasks, tasks_note = {t.task_id: t for t in tasks if t.task_id in wanted}, None
    packer = Packer(pack)
    for task in tasks.values():
        label = getattr(task, "scenario_label", None)
        if label and str(getattr(task, "scenario_id", "")) not in scen:
            scen[str(task.scenario_id)] = str(label)
    compared = _pairwise(run)
    sections = [
        _summary(run, colours, tasks_note, compared),
        pairwise_section(*compared) if compared else None,
        _charts(run, colours, scen),
        _task_table(run),
        _task_details(run, tasks, packer, link_from, FragmentCache(cache_dir(run.path))),
        _diagnostics(run, colours),
        el("section", el("h2", "How the score is computed"), method_note(), id="method"),
        el("section", el("h2", "Run configuration"), _key_settings(run),
           el("details", el("summary", "Every recorded setting (config.json)"), config_list(run.share(run.config)), class_="sub"),
           id="config"),
    ]
    n_errored = sum(1 for t in run.trials if t.errored)
    subtitle = [_source_text(run), f"judges: {_judges_text(run)}", _plural(len(run.trials), "trial"),
                _plural(len({t.task_id for t in run.trials}), "task"), f"{n_errored} errored" if n_errored else None]
    nav = [("summary", "Summary"), *([("pairwise", "Better?")] if compared else []), ("charts", "Charts"), ("tasks", "Tasks"), ("details", "Task details"),
           ("diagnostics", "Diagnostics"), ("method", "Method"), ("config", "Configuration")]
    return packer.finish(page(title=f"RedlineBench report · {run.run_id}", subtitle=subtitle, nav=nav, body=join(sections)))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _key_settings(run: RunData) -> Markup:
    picks = [
        ("Run", run.run_id), ("Created", config_value(run.config, "created")),
        ("Models", ", ".join(run.models) or None), ("Judges", _judges_text(run)),
        ("Tasks from", _source_text(run)), ("Task-set fingerprint", config_value(run.config, "data.fingerprint", "fingerprint")),
        ("Trials per task", config_value(run.config, "spec.trials", "trials")),
        ("redlinebench", config_value(run.config, "versions.redlinebench")),
        ("Plugin agents", _plugins_text(run.config)),
        ("Imported outputs", _imported_text(run.config)),
        ("Run directory", run.path.resolve().name),   # its name only: the page is shared, the folder is not
    ]
    return el("dl", *[join([el("dt", k), el("dd", str(v))]) for k, v in picks if v not in (None, "")], class_="kv")


def _plugins_text(config: Any) -> str | None:
    """``label: distribution version (import path)`` per plugin entrant (config.json ``plugins``)."""
    plugins = config_value(config, "plugins")
    if not isinstance(plugins, dict):
        return None
    parts = []
    for label, rec in plugins.items():
        rec = rec if isinstance(rec, dict) else {}
        dist = " ".join(str(x) for x in (rec.get("distribution"), rec.get("version")) if x) or "not installed"
        parts.append(f"{label}: {dist} ({rec.get('target') or rec.get('agent')})")
    return "; ".join(parts) or None


def _imported_text(config: Any) -> str | None:
    """``label from folder`` per ``import outputs`` entrant (no transcript, no cost)."""
    imported = config_value(config, "imported")
    if not isinstance(imported, list):
        return None
    rows = [f"{i.get('label')} from {i.get('folder')}" for i in imported if isinstance(i, dict)]
    return "; ".join(rows) + " (no transcripts, no costs)" if rows else None


def _source_text(run: RunData) -> str | None:
    kind = config_value(run.config, "data.kind", "source.kind")
    where = config_value(run.config, "data.revision", "data.path", "source.path", "source")
    if isinstance(where, dict):
        where = where.get("path") or where.get("kind")
    if kind is None and where is None:
        return None
    shown = [run.share(str(x)) for x in (kind, where) if x is not None]
    text = " ".join(dict.fromkeys(shown))   # "embedded", not "embedded embedded"
    return f"tasks: {text if len(text) < 90 else '…' + text[-87:]}"


def _judges_text(run: RunData) -> str:
    judges: list[str] = []
    for t in run.trials:
        for j in t.judges:
            if j not in judges:
                judges.append(j)
    if not judges:
        cfg = config_value(run.config, "judges.names", "judges", "judge", "spec.judges")
        if isinstance(cfg, list):
            judges = [str(x) for x in cfg]
        elif cfg:
            judges = [str(cfg)]
    method = run.judge_method
    text = ", ".join(judges) if judges else "unknown"
    return f"{text} ({method})" if method and method not in text else text


def _cells_text(entry: Mapping[str, Any]) -> str | None:
    if is_number(entry.get("n_cells")) and isinstance(entry.get("missing_cells"), list):
        n, missing = int(entry["n_cells"]), len(entry["missing_cells"])
        return "all 12 cells" if entry.get("grid_complete") and n == 12 else f"{n} of {n + missing} cells"
    cells = entry.get("by_scenario_turn")
    if isinstance(cells, dict):
        n = sum(1 for v in cells.values() if is_number(v))
        return f"{n} of 12 cells" if n != 12 else "all 12 cells"
    return None


def _pairwise(run: RunData) -> tuple[list[str], list[dict], dict | None] | None:
    """The run's §6.1 pairs: from metrics_summary.json, or computed from the grades when the summary
    predates them."""
    if len(run.models) < 2:
        return None
    summary = run.summary or {}
    pairs, order = summary.get("pairwise"), summary.get("models")
    if isinstance(pairs, list) and pairs and isinstance(order, list) and len(order) >= 2:
        order = [m for m in order if isinstance(m, str)]
        power = summary.get("power") if isinstance(summary.get("power"), dict) else None
        return order, clean_pairs(pairs, order), power
    graded: dict[str, list[dict]] = defaultdict(list)
    for t in run.trials:
        if isinstance(t.grade, dict):
            graded[t.model].append(t.grade)
    return pairwise_for(graded) if len(graded) >= 2 else None


def _summary(run: RunData, colours: ModelColours, tasks_note: str | None,
             compared: tuple[list[str], list[dict], Any] | None = None) -> Markup:
    cards = []
    by_model: dict[str, list[TrialRecord]] = defaultdict(list)
    for t in run.trials:
        by_model[t.model].append(t)
    for model in run.models:
        e = run.entry(model) or {}
        ro = redline_overall(e)
        trials = by_model.get(model, [])
        incomplete = sum(1 for t in trials if t.judging_incomplete)
        dl = [
            ("95% CI", ci_text(e)),
            ("best@k", score100(e.get("best_at_k_turn_weighted"))),
            ("trials", _trials_text(e, trials)),
            ("input groups", plain(e.get("n_input_groups"))),
            ("gate failures", _gate_text(e, trials)),
            ("judging incomplete", str(incomplete)),
            ("errored", str(sum(1 for t in trials if t.errored))),
            ("agent cost", money_total([t.cost for t in trials])),
            ("judge cost", money_total([t.judge_cost for t in trials])),
        ]
        cached = cached_share(trials)
        if cached is not None:
            dl.append(("cached input", f"{rate(cached)} of input"))
        cells = _cells_text(e)
        if cells:
            dl.append(("coverage", cells))
        integrity = card_text(e, trials)
        if integrity:
            dl.insert(5, ("integrity", integrity))
        cards.append(el("div",
                        el("div", model, class_="model"),
                        el("div", f"{ro:.1f}" if ro is not None else "—",
                           el("small", " redline_overall" if ro is not None else " not scored"), class_="big"),
                        el("a", f"integrity audit: {integrity}", href="#integrity", class_="alarm") if integrity else None,
                        el("dl", *[join([el("dt", k, title=CARD_HELP.get(k)), el("dd", v)]) for k, v in dl]),
                        class_="card", style=f"--c:{colours(model)}"))
    callouts = _callouts(run)
    if tasks_note and run.trials:
        callouts = join([callouts, el("div", el("b", "Task details limited"),
                                      f"Golden redlines, task briefs and attorneys' rubric notes are not shown: {run.share(tasks_note)}.",
                                      class_="callout info")])
    forest = leaderboard_forest([(m, run.entry(m) or {}) for m in run.models if run.entry(m)], colours) if run.leaderboard else None
    lead = el("p", "redline_overall is the mean over scenario × turn cells of the task rewards (0-100), with a 95% bootstrap "
                   "interval over those cells (how uneven the model is across cells, not whether it beats another). "
                   "Higher is better.", class_="lead")
    verdict_line = el("p", el("b", headline(compared[0], compared[1])), " ",
                      el("a", "Which model is better", href="#pairwise")) if compared else None
    return el("section", el("h2", "Summary"), lead, verdict_line, el("div", *cards, class_="cards"), callouts,
              el("figure", el("figcaption", "Leaderboard"), forest) if forest else None, id="summary")


def _trials_text(entry: Mapping[str, Any], trials: list[TrialRecord]) -> str:
    """Trials that enter the score, and of how many when some did not (errored, judging incomplete)."""
    n = entry.get("n_trials")
    scored = int(n) if is_number(n) else sum(1 for t in trials if t.scored)
    return str(scored) if scored == len(trials) or not trials else f"{scored} of {len(trials)}"


def _gate_text(entry: Mapping[str, Any], trials: list[TrialRecord]) -> str:
    n = entry.get("n_gate_failures")
    text = plain(n) if is_number(n) else str(sum(t.status == "gate_failed" for t in trials))
    floor = [t for t in trials if t.status == "gate_failed"]
    return f"{text} (expected: {trials[0].agent})" if floor and all(t.expected_gate_failure for t in floor) else text


def _list(items: list[Markup], *, keep: int = 6) -> Markup:
    """A bullet list that folds away everything after the first *keep* items."""
    if len(items) <= keep + 2:
        return el("ul", *items)
    return join([el("ul", *items[:keep]),
                 el("details", el("summary", f"show all {len(items)}", class_="small"), el("ul", *items[keep:]))])


def _callouts(run: RunData) -> Markup:
    out = []
    scored = [t for t in run.trials if t.scored or t.judging_incomplete]
    other = [t for t in run.trials if t.errored]
    if run.trials and not scored:
        # nothing to read a score from: say so first, and do not describe a judge that judged nothing
        out.append(_errored_callout(run, other, title=f"Nothing was scored: {_nothing_scored(other)}"))
        other = []
    alarm = summary_callout(run.trials, _trial_id)
    if alarm is not None:
        out.append(alarm)
    if scored and run.judge_method and "heuristic" in run.judge_method.lower():
        out.append(el("div", el("b", "Scored by the offline heuristic judge"),
                      "These numbers approximate the LLM judge panel for demos and smoke tests; they are not comparable with "
                      "published RedlineBench results and must not be published.", class_="callout info"))
    if run.summary_note:
        out.append(el("div", el("b", "Summary"), run.summary_note, class_="callout"))
    # a model with no scored cell has no headline to read with care: its trials' callout says why
    notes: list = [join([el("bdi", str(e.get("model"))), f": {e['grid_note']}"]) for e in run.leaderboard
                   if isinstance(e.get("grid_note"), str) and redline_overall(e) is not None]
    warnings = (run.summary or {}).get("warnings")
    notes += [str(w) for w in warnings] if isinstance(warnings, list) else []
    if notes:
        out.append(el("div", el("b", "Read the headline with care"), el("ul", *[el("li", n) for n in notes[:20]]),
                      class_="callout"))
    slips = near_miss_lines(((run.summary or {}).get("judge_calls")) if isinstance(run.summary, Mapping) else None)
    if slips:  # counted FAIL by the rule; a reader must see that a judge's wording, not the redline, decided them
        out.append(el("div", el("b", "Judge replies read by the letter"), el("ul", *[el("li", x) for x in slips[:20]]),
                      class_="callout"))
    # integrity failures are listed by the audit's callout above, with their findings
    gate = [t for t in run.trials if t.status == "gate_failed" and not t.expected_gate_failure and not t.integrity_failed]
    if gate:
        out.append(el("div", el("b", f"{len(gate)} trial(s) failed the validity gate (scored 0, counted in the averages)"),
                      _list([el("li", el("a", t.task_id, href=f"#{_trial_id(t)}"), " · ", el("bdi", t.model), f" · trial {t.trial}: ",
                                    t.gate.get("reason") or "no reason recorded") for t in gate]),
                      class_="callout bad"))
    floor = [t for t in run.trials if t.expected_gate_failure]
    if floor:
        by_model: dict[str, int] = {}
        for t in floor:
            by_model[t.model] = by_model.get(t.model, 0) + 1
        out.append(el("div", el("b", "The floor: gate failures by design"),
                      join([join([", " if i else "", el("bdi", m), f" ({n} of {sum(1 for t in run.trials if t.model == m)} trials)"])
                            for i, (m, n) in enumerate(by_model.items())]),
                      " returns the contract unchanged, so its output has no tracked change or comment by the task's author: "
                      "it fails the validity gate and scores 0 on purpose. It marks where the scale starts; the other "
                      "entrants' gate results are listed separately.", class_="callout info"))
    inc = [t for t in run.trials if t.judging_incomplete]
    if inc:
        out.append(el("div", el("b", f"{len(inc)} trial(s) with incomplete judging"),
                      "A judge failed after all retries, so these trials have no final panel verdict. They are listed, "
                      "not averaged in; `redlinebench score` on this run (or `run --resume`) asks the failed judges again.",
                      _list([el("li", el("a", t.task_id, href=f"#{_trial_id(t)}"), " · ", el("bdi", t.model), f" · trial {t.trial}",
                                    f": missing {', '.join(t.missing_judges)}" if t.missing_judges else "") for t in inc]),
                      class_="callout"))
    if other:
        out.append(_errored_callout(run, other, title=f"{len(other)} trial(s) errored or not graded"))
    problems = [run.share(p) for p in [*run.problems, *(p for t in run.trials for p in t.problems)]]
    if problems:
        out.append(el("div", el("b", f"{len(problems)} problem(s) reading the run directory"),
                      _list([el("li", p, class_="mono small") for p in problems]), class_="callout bad"))
    return join(out)


def _nothing_scored(trials: list[TrialRecord]) -> str:
    """Why a run has no score: its trials errored, or were never graded (``--judges none``), or both."""
    n, errored = len(trials), sum(1 for t in trials if t.status == "errored")
    every = "the 1 trial" if n == 1 else f"all {n} trials"
    if errored == n:
        return f"{every} errored"
    if errored == 0:
        return f"{every} {'was' if n == 1 else 'were'} not graded (`redlinebench score` on this run grades them)"
    return f"{errored} of {n} trials errored, the others were not graded"


def _errored_callout(run: RunData, trials: list[TrialRecord], *, title: str) -> Markup:
    return el("div", el("b", title),
              _list([el("li", el("a", t.task_id, href=f"#{_trial_id(t)}"), " · ", el("bdi", t.model), f" · trial {t.trial}: ",
                            t.status.replace("_", " "), f" ({run.share(_error(t, 300))})" if t.status == "errored" else "")
                     for t in trials]),
              el("p", "Fix the cause, then `redlinebench run --resume` on this run directory redoes them.", class_="small")
              if any(t.status == "errored" for t in trials) else None,
              class_="callout bad")


def _charts(run: RunData, colours: ModelColours, scen: Mapping[str, str]) -> Markup:
    entries = [(m, run.entry(m)) for m in run.models if run.entry(m)]
    by_model: dict[str, list[TrialRecord]] = {}
    for t in run.trials:
        by_model.setdefault(t.model, []).append(t)
    charted, note = gate_zero_categories(entries, by_model)  # type: ignore[arg-type]
    heat = []
    for m, e in entries:
        h = scenario_turn_heatmap(m, e, scen)  # type: ignore[arg-type]
        if h is not None:
            heat.append(el("figure", el("figcaption", m, " ", el("span", "scenario × turn cell means (hatched: no tasks)",
                                                                   class_="muted small")), h))
    return el("section", el("h2", "Scores by turn, side, scenario and category"),
              dimension_charts(charted, colours, scen, note),
              el("h3", "Scenario × turn") if heat else None, el("div", *heat, class_="grid2") if heat else None,
              id="charts")


def _error(t: TrialRecord, limit: int | None = None) -> str:
    """Why an errored trial failed; cut to *limit* characters for lists (provider errors can run to pages)."""
    err = str((t.grade or {}).get("error") or (t.metrics or {}).get("error") or "no error message recorded")
    return err if limit is None or len(err) <= limit else err[:limit] + "…"


def _trial_id(t: TrialRecord) -> str:
    return slug_id("trial", t.model_slug, t.task_id, t.trial_name)


def _task_id(task_id: str) -> str:
    return slug_id("task", task_id)


def _task_table(run: RunData) -> Markup:
    # Reward and Status right after the row's identity: on a phone they stay on screen, the rest scrolls
    head = ["Task", "Model", "Reward", "Status", "Trial", "S", "T", "Side", "Rubrics passed", "Cost", "Tokens in / out",
            "Latency", "Tool calls", "Failed edits"]
    numeric = {"Trial", "Reward", "Rubrics passed", "Cost", "Tokens in / out", "Latency", "Tool calls", "Failed edits"}
    rows = []
    for t in sorted(run.trials, key=trial_sort_key):
        sc = t.score
        n_pass, n_tot = sc.get("n_pass"), sc.get("n_total")
        passed = f"{plain(n_pass)} / {plain(n_tot)}" if is_number(n_pass) and is_number(n_tot) else "—"
        rows.append(el("tr",
                       el("td", el("a", t.task_id, href=f"#{_trial_id(t)}", class_="mono")),
                       el("td", el("bdi", breakable_name(t.model)), class_="model"),
                       reward_cell(t.reward),
                       el("td", status_badge(t.status, expected=t.expected_gate_failure), " " if integrity_badge(t) else None,
                          integrity_badge(t), data_v="integrity_failed" if t.integrity_failed else t.status),
                       num_cell(t.trial if isinstance(t.trial, int) else None, str(t.trial)),
                       el("td", t.scenario or "—"), el("td", t.turn or "—"), el("td", t.side or "—"),
                       el("td", passed, class_="num", data_v=f"{n_pass / n_tot:.6f}" if is_number(n_pass) and is_number(n_tot) and n_tot else ""),
                       num_cell(t.cost, money(t.cost)),
                       num_cell(total([t.tokens_in, t.tokens_out]), f"{count(t.tokens_in)} / {count(t.tokens_out)}"),
                       num_cell(t.latency, seconds(t.latency)),
                       num_cell(t.tool_calls), num_cell(t.failed_edits)))
    foot = el("tr", el("td", "Total", colspan="9"), el("td", money_total([t.cost for t in run.trials]), class_="num"),
              el("td", count(total([t.tokens_in for t in run.trials])), " / ", count(total([t.tokens_out for t in run.trials])),
                 class_="num"),
              el("td", seconds(mean([t.latency for t in run.trials])), " mean", class_="num"),
              el("td", plain(total([t.tool_calls for t in run.trials])), class_="num"),
              el("td", plain(total([t.failed_edits for t in run.trials])), class_="num"))
    table = el("table", el("thead", el("tr", *[el("th", h, class_="num" if h in numeric else None) for h in head])),
               el("tbody", *rows), el("tfoot", foot), class_="sortable", id="task-table")
    return el("section", el("h2", "Tasks"),
              el("p", "One row per trial. Click a column to sort, type to filter (e.g. a model, a task, \"gate\"); click a "
                      "task to see its rubrics, the judges' reasons and the redline.", class_="lead"),
              el("input", type="search", class_="filter", data_for="task-table", placeholder="Filter rows…",
                 aria_label="Filter the task table"),
              el("div", table, class_="tablewrap"), id="tasks")


# ---------------------------------------------------------------------- task details

def _golden_path(run: RunData, task_id: str) -> Path | None:
    """The attorney redline for *task_id*, found through the run's recorded data source."""
    candidates: list[Path] = []
    for key in ("source.path", "data_source.path", "source", "data_source", "source_path", "benchmark_dir"):
        v = config_value(run.config, key)
        root = source_root(run, v) if isinstance(v, str) and v else None
        if root is not None:
            candidates += [root / "tasks" / task_id, root / task_id]
    for c in candidates:
        p = c / "tests" / "attorney_redlines.docx"
        try:
            if p.is_file():
                return p
        except OSError:
            continue
    return None


def _task_details(run: RunData, tasks: Mapping[str, Any], packer: Packer, link_from: Path | None,
                  cache: FragmentCache | None = None) -> Markup:
    by_task: dict[str, list[TrialRecord]] = defaultdict(list)
    for t in sorted(run.trials, key=trial_sort_key):
        by_task[t.task_id].append(t)
    colours = AuthorColours()
    blocks = []
    for task_id, trials in by_task.items():
        first = trials[0]
        task = tasks.get(task_id)
        golden = getattr(task, "golden_path", None) if task is not None else _golden_path(run, task_id)
        if golden is not None and not Path(golden).is_file():
            golden = None
        golden_dom = slug_id("golden", task_id)
        author = _author(first, task)
        side = first.side or getattr(task, "side", None)  # an errored trial has no grade to say it
        # the golden is the attorney's version of this same turn: its edits carry the task author too
        gold = render_path(golden, colours=colours, dom=golden_dom + "-d", focus_author=author, label="Attorney golden redline",
                           cache=cache,
                           missing="No attorney golden redline for this task (accept-and-close tasks have none by design), "
                                   "or the data source recorded in config.json is not available on this machine.")
        rewards = []
        for model in dict.fromkeys(t.model for t in trials):
            # the same trials the scorer averages: graded and gate failures, not provisional ones
            vals = [t.reward for t in trials if t.model == model and t.status in ("graded", "gate_failed")]
            rewards.append(el("span", el("bdi", model), ": ", el("b", score100(mean(vals))), class_="small",
                              title=f"mean reward over {len(vals)} scored trial(s)"))
        facts = [("Scenario", f"{first.scenario or '—'}" + (f" · {task.scenario_label}" if getattr(task, "scenario_label", None) else "")),
                 ("Turn", first.turn or "—"), ("Side", SIDE_NAMES.get(side or "", side or "—"))]
        if task is not None:
            facts += [("For", str(task.represented_party)), ("Against", str(task.counterparty))]
        facts += [("Input group", first.input_group or "—"), ("Variant", (first.grade or {}).get("variant") or "—"),
                  ("Author of this turn", author or "—")]
        meta = el("div", *[el("span", k, " ", el("b", v)) for k, v in facts], class_="meta")
        brief = (el("details", el("summary", "The brief the model received"), el("div", str(task.instruction), class_="brief"),
                    class_="sub") if task is not None and getattr(task, "instruction", None) else None)
        notes = _attorney_notes(task)
        trial_blocks = [_trial_block(run, t, colours, golden_dom if gold.ok else None, author, notes, packer, link_from,
                                     cache) for t in trials]
        blocks.append(el("details",
                         el("summary", el("span", task_id, class_="tid"),
                            el("span", f"S{first.scenario} · T{first.turn} · {side or '—'}", class_="muted small"),
                            *rewards),
                         el("div", meta, brief,
                            el("details", el("summary", "Attorney golden redline"), packer(gold.html) if gold.ok else gold.html,
                               class_="sub", id=golden_dom),
                            *trial_blocks, class_="inner"),
                         class_="task", id=_task_id(task_id)))
    if not blocks:
        blocks.append(el("p", "This run has no trials yet.", class_="muted"))
    return el("section", el("h2", "Task details"),
              el("p", "For each task: the rubric list with every judge's verdict and reason, the panel's decision and what it "
                      "contributed, then the contract as Word's review pane shows it, beside the attorney's golden redline, "
                      "and the annotated text the judges read.", class_="lead"),
              *blocks, id="details")


def _judge_verdicts(t: TrialRecord) -> dict[str, dict[str, dict[str, Any]]]:
    """judge name -> rubric id -> {verdict, justification} from ``judges/*.json``.

    Reads the scorer's form (``verdicts`` and ``justifications`` as maps keyed by rubric id) and
    the judge-reply form (``verdicts`` as a list of ``{rubric_id, verdict, justification}``).
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for stem, data in t.judge_files.items():
        name = str(data.get("judge") or data.get("model") or data.get("name") or stem)
        verdicts, notes = data.get("verdicts"), data.get("justifications")
        table: dict[str, dict[str, Any]] = {}
        if isinstance(verdicts, dict):
            notes = notes if isinstance(notes, dict) else {}
            for rid, v in verdicts.items():
                table[str(rid)] = {"verdict": v, "justification": notes.get(rid)}
        elif isinstance(verdicts, list):
            for v in verdicts:
                if isinstance(v, dict) and "rubric_id" in v:
                    table[str(v["rubric_id"])] = v
        out[name] = table
    return out


def _judge_failures(t: TrialRecord) -> list[str]:
    out = list(t.errors)
    for stem, data in t.judge_files.items():
        err = data.get("error")
        name = str(data.get("judge") or stem)
        if isinstance(err, str) and err and not any(e.startswith(f"{name}:") for e in out):
            out.append(f"{name}: {err}")
    return out


def _slug(s: str) -> str:
    return _SLUG.sub("_", s)


def _author(t: TrialRecord, task: Any) -> str | None:
    for value in (getattr(task, "author", None), (t.grade or {}).get("author"), (t.metrics or {}).get("author")):
        if isinstance(value, str) and value:
            return value
    return None


def _attorney_notes(task: Any) -> dict[str, str]:
    """rubric id -> the attorney's justification (context for the reader; judges do not grade it)."""
    out = {}
    for r in getattr(task, "rubrics", ()) or ():
        note = getattr(r, "justification", None)
        if note:
            out[str(r.id)] = str(note)
    return out


def _rubric_table(t: TrialRecord, notes: Mapping[str, str] | None = None) -> Markup:
    rows = sorted(t.per_rubric, key=lambda r: natural_key(r.get("rubric_id", "")))   # k2 before k10
    if not rows:
        if t.status == "gate_failed":
            return el("p", "The judges were not called: the output failed the validity gate, so the reward is 0.", class_="muted")
        return el("p", "No rubric verdicts recorded for this trial.", class_="muted")
    per_judge = _judge_verdicts(t)
    slug_to_name = {_slug(n): n for n in per_judge}
    body = []
    for r in rows:
        rid = str(r.get("rubric_id", ""))
        w = r.get("weight")
        penalty = bool(r.get("is_penalty")) or (is_number(w) and w < 0)
        verdict = r.get("verdict")
        if verdict == "PASS" and is_number(w):
            effect = f"−{abs(w):g}" if penalty else f"+{w:g}"
        else:
            effect = "0"
        votes = r.get("votes") if isinstance(r.get("votes"), dict) else {}
        judges = list(dict.fromkeys([*votes.keys(), *per_judge.keys()]))
        vote_lines = []
        for j in judges:
            jd = per_judge.get(j) or per_judge.get(slug_to_name.get(_slug(j), ""), {})
            entry = jd.get(rid, {}) if isinstance(jd, dict) else {}
            v = votes.get(j, entry.get("verdict"))
            why = entry.get("justification")
            if why and why == r.get("justification") and len(judges) == 1:
                why = None  # a single judge's reason is the panel's reason: say it once
            vote_lines.append(el("span", el("span", j, class_="jn"), " ", verdict_badge(v, penalty=penalty, explain=False),
                                 el("div", why, class_="just") if why else None, class_="vote"))
        if not judges and t.judges:
            vote_lines.append(el("span", "per-judge votes not recorded", class_="small muted"))
        # data-label: at phone width the table stacks, one block per rubric, each cell named (no column off screen)
        body.append(el("tr",
                       el("td", rid, class_="mono small", data_label="Rubric"),
                       el("td", r.get("category") or "(uncategorized)", class_="small", data_label="Category"),
                       el("td", el("span", f"{w:g}", class_="badge b-pen") if penalty and is_number(w) else plain(w),
                          class_="num", data_label="Weight"),
                       el("td", r.get("criteria") or "",
                          el("div", el("i", "Attorney's note: "), notes[rid], class_="just") if notes and rid in notes else None,
                          class_="crit", data_label="Criterion"),
                       el("td", verdict_badge(verdict, penalty=penalty),
                          el("div", r.get("justification"), class_="just") if r.get("justification") else None,
                          class_="panel", data_label="Panel"),
                       el("td", effect, class_="num", data_label="Effect"),
                       el("td", *vote_lines, data_label="Judges"),
                       class_="r-pass" if rubric_satisfied(verdict == "PASS", penalty=penalty) else "r-fail"))
    sc = t.score
    summary = el("p", "Earned ", el("b", plain(sc.get("earned_weight"))), " − penalty ", el("b", plain(sc.get("penalty_weight"))),
                 " of ", el("b", plain(sc.get("total_weight"))), " positive weight → reward ", el("b", score100(t.reward)),
                 " (", plain(sc.get("n_pass")), " of ", plain(sc.get("n_total")), " positive rubrics passed).", class_="small")
    head = el("tr", el("th", "Rubric"), el("th", "Category"), el("th", "Weight", class_="num"), el("th", "Criterion"),
              el("th", "Panel"), el("th", "Effect", class_="num"), el("th", "Judges"))
    return join([summary, el("div", el("table", el("thead", head), el("tbody", *body), class_="rubrics"), class_="tablewrap")])


def _diag_list(t: TrialRecord, share: Callable[[str], str]) -> Markup:
    sc = t.score
    items = []
    for key, label in DIAG_LABELS.items():
        v = sc.get(key, (t.grade or {}).get("diagnostics", {}).get(key) if isinstance((t.grade or {}).get("diagnostics"), dict) else None)
        if is_number(v):
            items.append((label, diagnostic_text(key, v)))
    ga = sc.get("golden_agreement", (t.grade or {}).get("golden_agreement"))
    if isinstance(ga, dict):
        for k, v in ga.items():
            if is_number(v):
                items.append((f"Golden agreement · {k.replace('_', ' ')}", diagnostic_text(k, v)))
    m = t.metrics or {}
    run_items = [("Cost", money(t.cost)), ("Tokens in / out", f"{count(t.tokens_in)} / {count(t.tokens_out)}"),
                 ("Cached input read / written", f"{count(t.cache_read_tokens)} / {count(t.cache_write_tokens)}"),
                 ("Latency", seconds(t.latency)), ("Tool calls", integer(t.tool_calls)),
                 ("Failed edits", integer(t.failed_edits)), ("Transcript events", integer(t.transcript_steps))]
    by_name = t.tool_calls_by_name
    if by_name:
        run_items.append(("Calls by tool", ", ".join(f"{k} {integer(v)}" for k, v in sorted(by_name.items()))))
    for k in ("stop_reason", "finish_reason", "ended_by", "error"):
        if isinstance(m.get(k), str) and m.get(k):
            run_items.append((k.replace("_", " ").capitalize(), share(m[k])))
    if t.judge_cost is not None:
        run_items.append(("Judge cost", money(t.judge_cost)))
    doc = el("dl", *[join([el("dt", k), el("dd", v)]) for k, v in items], class_="kv") if items else \
        el("p", "No document diagnostics recorded.", class_="muted small")
    return el("div", el("div", el("h4", "Document diagnostics"), doc),
              el("div", el("h4", "Agent run"), el("dl", *[join([el("dt", k), el("dd", v)]) for k, v in run_items], class_="kv")),
              class_="grid2")


TRIAL_FILES = ("redline.docx", "grade.json", "metrics.json", "transcript.jsonl", "annotated_view.md")


def _file_links(t: TrialRecord, link_from: Path | None) -> Markup | None:
    """Relative links to the trial's own files (open the .docx in Word, read the raw JSON)."""
    if link_from is None:
        return None
    links = []
    base = folder = None   # resolved once: each resolve() lstat()s every component of the path
    for name in TRIAL_FILES:
        f = t.path / name
        if f.is_file():
            if base is None:
                base, folder = Path(link_from).resolve(), t.path.resolve()
            # a plain file resolves to its resolved folder + name; only a symlink needs its own
            target = f.resolve() if f.is_symlink() else folder / name
            try:
                rel = os.path.relpath(target, base)
            except ValueError:
                continue
            links.append(el("a", name, href=quote(Path(rel).as_posix())))
    if not links:
        return None
    return el("div", "Files: ", *[join([" · " if i else "", a]) for i, a in enumerate(links)], class_="files small")


def _trial_block(run: RunData, t: TrialRecord, colours: AuthorColours, golden_dom: str | None, author: str | None,
                 notes: Mapping[str, str], packer: Packer, link_from: Path | None = None,
                 cache: FragmentCache | None = None) -> Markup:
    dom = _trial_id(t)
    callouts = []
    if t.expected_gate_failure:
        callouts.append(el("div", el("b", f"Validity gate failed, as {t.agent} does by design: reward 0 (the floor)"),
                        t.gate.get("reason") or "no reason recorded", class_="callout info"))
    elif t.status == "gate_failed" and not (t.integrity_failed and t.integrity is not None):
        callouts.append(el("div", el("b", "Validity gate failed: reward 0"), t.gate.get("reason") or "no reason recorded",
                        class_="callout bad"))
    callouts += [c for c in (trial_findings(t), golden_findings(t)) if c is not None]
    failures = [run.share(f) for f in _judge_failures(t)]
    if t.judging_incomplete:
        missing = t.missing_judges
        callouts.append(el("div", el("b", "Judging incomplete"),
                        f"No verdicts from {', '.join(missing)}. " if missing else "",
                        "This trial's reward is provisional: the scorer lists it instead of averaging it in. "
                        "`redlinebench score` on the run (or `run --resume`) asks the failed judges again.",
                        el("ul", *[el("li", f, class_="mono small") for f in failures]) if failures else None,
                        class_="callout"))
    elif failures:
        callouts.append(el("div", el("b", "Judge errors"), el("ul", *[el("li", f, class_="mono small") for f in failures]),
                        class_="callout"))
    if t.status == "errored":
        callouts.append(el("div", el("b", "Trial errored"), run.share(_error(t)), class_="callout bad"))
    if t.problems:
        callouts.append(el("div", el("b", "Problems reading this trial"), el("ul", *[el("li", run.share(p), class_="mono small") for p in t.problems]),
                        class_="callout bad"))
    model_doc = render_path(t.redline_path, colours=colours, missing="This trial produced no redline.docx.", cache=cache,
                            **_redline_options(t, author))
    doc_html = packer(model_doc.html) if model_doc.ok else model_doc.html
    if golden_dom:
        slot = el("div", el("div", "The attorney golden redline appears here when this trial is opened "
                                   "(it is stored once, in the task's 'Attorney golden redline' section).", class_="rl-missing"),
                  data_golden=golden_dom, id=dom + "-g")
        redlines = el("div", doc_html, slot, class_="redlines two")
    else:
        redlines = el("div", doc_html, class_="redlines")
    transcript_path = t.path / "transcript.jsonl"
    if transcript_path.is_file():
        events, problems = read_events(transcript_path)
        timeline = join([el("ul", *[el("li", run.share(p), class_="mono small") for p in problems]) if problems else None,
                         render_transcript(run.share(events, known_only=True))])
        transcript = el("details", el("summary", f"What the agent did ({len(events)} transcript events)"), packer(timeline),
                        class_="sub")
    else:
        transcript = el("p", "No transcript.jsonl for this trial.", class_="small muted")
    if t.annotated_view:
        view = render_annotated(t.annotated_view)
        annotated = el("details", el("summary", "Annotated view the judges read"), packer(view), class_="sub")
    else:
        annotated = el("p", "No annotated_view.md for this trial.", class_="small muted")
    return el("details",
              el("summary", el("bdi", t.model), " · trial ", str(t.trial), " · reward ", score100(t.reward), " ",
                 status_badge(t.status, expected=t.expected_gate_failure), " " if integrity_badge(t) else None,
                 integrity_badge(t)),
              _file_links(t, link_from), *callouts, el("h4", "Rubrics"), _rubric_table(t, notes), _diag_list(t, run.share), el("h4", "Redline"), redlines, annotated, transcript,
              class_="trial", id=dom)


def _redline_options(t: TrialRecord, author: str | None) -> dict[str, Any]:
    """How a trial's redline is rendered on the page: also the key of its cached rendering."""
    return {"dom": _trial_id(t) + "-doc", "focus_author": str(author) if author else None,
            "label": f"\u2068{t.model}\u2069 · trial {t.trial}"}  # isolated: a right-to-left name keeps its place


def prerender_trial(trial_dir: Path, *, run_dir: Path, model: str, trial: int, task: Any,
                    document: Any | None = None) -> bool:
    """Render a finished trial's redline into the run's cache, as the report will show it.

    Called by the run's workers as each trial is graded, so writing report.html at the end only
    assembles. ``document`` is the trial's redline.docx already opened (by grading). Returns
    whether a rendering is now cached; never raises (the report re-renders).
    """
    trial_dir = Path(trial_dir)
    t = TrialRecord(path=trial_dir, model_slug=trial_dir.parent.parent.name, task_id=trial_dir.parent.name,
                    trial_name=trial_dir.name, grade={"model": model, "trial": trial})
    if t.redline_path is None:
        return False
    fragment, _ = fragment_for(t.redline_path, cache=FragmentCache(cache_dir(run_dir)), document=document,
                               **_redline_options(t, _author(t, task)))
    return fragment is not None


# ------------------------------------------------------------------------- diagnostics

def _diagnostics(run: RunData, colours: ModelColours) -> Markup:
    models = [m for m in run.models if run.entry(m)]
    keys: list[str] = []
    for m in models:
        d = (run.entry(m) or {}).get("diagnostics")
        if isinstance(d, dict):
            keys += [k for k in d if k not in keys and is_number(d[k])]
    ga_keys: list[str] = []
    for m in models:
        ga = (run.entry(m) or {}).get("golden_agreement")
        if isinstance(ga, dict):
            ga_keys += [k for k in ga if k not in ga_keys and is_number(ga[k])]
    parts = []
    if keys or ga_keys:
        head = el("tr", el("th", "Diagnostic (mean per trial)"), *[el("th", el("span", "", class_="swatch",
                                                                               style=f"background:{colours(m)}"), m, class_="num") for m in models])
        body = []
        for k in keys:
            cells = []
            for m in models:
                v = ((run.entry(m) or {}).get("diagnostics") or {}).get(k)
                cells.append(el("td", diagnostic_text(k, v, mean=True), class_="num"))
            body.append(el("tr", el("td", DIAG_LABELS.get(k, k.replace("_", " "))), *cells))
        for k in ga_keys:
            vals = [((run.entry(m) or {}).get("golden_agreement") or {}).get(k) for m in models]
            body.append(el("tr", el("td", "Golden agreement · ", k.replace("_", " ")),
                           *[el("td", diagnostic_text(k, v, mean=True), class_="num") for v in vals]))
        parts.append(el("div", el("table", el("thead", head), el("tbody", *body)), class_="tablewrap"))
        parts.append(el("p", "Diagnostics describe the shape of the redline (counting only the task author's changes); they "
                             "are reported, never ranked.", class_="small muted"))
    else:
        parts.append(el("p", "No document diagnostics in metrics_summary.json.", class_="muted"))
    parts.append(el("h3", "Judge agreement"))
    parts.append(agreement_section(judge_agreement(run.trials)))
    return el("section", el("h2", "Diagnostics"), *parts, id="diagnostics")
