"""``compare.html``: several runs (and the models inside them) side by side."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from ..scoring import rubric_satisfied
from ._components import (
    ModelColours,
    agreement_section,
    ci_text,
    dimension_charts,
    gate_zero_categories,
    leaderboard_forest,
    method_note,
    num_cell,
    redline_overall,
    scenario_labels,
    scenario_turn_heatmap,
)
from ._html import Markup, count, el, is_number, join, money, natural_key, plain, rate, score100, seconds
from ._labels import short_labels
from ._load import ReportError, RunData, TrialRecord, config_value, load_run
from ._page import page, write_atomic
from ._pairwise import band_labels, pairwise_for, pairwise_section
from ._palette import ink_on, ramp
from ._stats import cached_share, judge_agreement, mean
from ._svg import heatmap

TOP_RUBRICS = 40
HEADER_CHARS = 28   # what a rotated column header shows before it would be cut (its max-height)
NAME_CHARS = 32     # a leaderboard model name on one line: longer ones are cut in the middle, whole on hover


@dataclass
class Entry:
    """One model of one run: the unit the dashboard compares."""

    label: str
    model: str
    run: RunData
    summary: dict[str, Any]
    trials: list[TrialRecord]

    @property
    def cost_per_trial(self) -> float | None:
        return mean([t.cost for t in self.trials])


def write_comparison(run_dirs: Sequence[Path], output: Path) -> Path:
    """Write the comparison dashboard for *run_dirs* to *output*; return its path."""
    if not run_dirs:
        raise ReportError("compare needs at least one run directory")
    unique = list(dict.fromkeys(Path(d).resolve() for d in run_dirs))  # the same run twice is compared once
    runs = [load_run(d) for d in unique]
    return write_atomic(Path(output), render_comparison(runs, link_from=Path(output).parent))


def collect_entries(runs: Sequence[RunData]) -> list[Entry]:
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for run in runs:
        for model in run.models:
            seen[model] = seen.get(model, 0) + 1
    for run in runs:
        for model in run.models:
            label = model if seen[model] == 1 else f"{model} [{run.run_id}]"
            entries.append(Entry(label, model, run, run.entry(model) or {}, [t for t in run.trials if t.model == model]))
    entries.sort(key=lambda e: (-(e.summary.get("overall_turn_weighted") if is_number(e.summary.get("overall_turn_weighted")) else -1.0),
                                e.label))
    return entries


def render_comparison(runs: Sequence[RunData], *, link_from: Path | None = None) -> str:
    entries = collect_entries(runs)
    colours = ModelColours((e.label, e.model) for e in entries)
    scen = scenario_labels(runs)
    scored = [(e.label, e.summary) for e in entries if e.summary]
    # the category views count a gate failure as all wrong (its reward is 0), and say so
    charted, category_note = gate_zero_categories(scored, {e.label: e.trials for e in entries})
    compared = _pairwise(entries)
    sections = [
        _leaderboard(entries, runs, colours, link_from, compared),
        pairwise_section(*compared) if compared else None,
        el("section", el("h2", "Where each model scores"), _category_heatmap(charted, category_note),
           dimension_charts(charted, colours, scen, category_note), id="profile"),
        _heatmaps(entries, scen),
        _rubric_heatmap(entries),
        _cost(entries, colours),
        el("section", el("h2", "Judge agreement"),
           el("p", "How often the judges of the panel agree with each other and with the panel's majority, over every "
                   "rubric decision in the compared runs.", class_="lead"),
           agreement_section(judge_agreement([t for r in runs for t in r.trials])), id="judges"),
        el("section", el("h2", "How the score is computed"), method_note(), id="method"),
    ]
    nav = [("leaderboard", "Leaderboard"), *([("pairwise", "Better?")] if compared else []), ("profile", "Profile"), ("cells", "Scenario × turn"), ("rubrics", "Rubrics"),
           ("cost", "Cost"), ("judges", "Judges"), ("method", "Method")]
    subtitle = [f"{len(entries)} model(s)", f"{len(runs)} run(s): " + ", ".join(r.run_id for r in runs)]
    return page(title="RedlineBench comparison", subtitle=subtitle, nav=nav, body=join(sections))


def _pairwise(entries: Sequence[Entry]) -> tuple[list[str], list[dict], dict | None] | None:
    """Every pair of compared entries (models of different runs too), by the scorer, from the grades."""
    graded = {e.label: [t.grade for t in e.trials if isinstance(t.grade, dict)] for e in entries}
    graded = {k: v for k, v in graded.items() if v}
    if len(graded) < 2:
        return None
    return pairwise_for(graded)


def _run_line(run: RunData, link_from: Path | None) -> Markup:
    """The entry's run under its model name, on one line: a long run id is cut with an ellipsis (the whole
    of it on hover), the link to the run's report stays whole."""
    text = f"{run.run_id} · {run.judge_method or 'judging unknown'}"
    link = _report_link(run, link_from)
    return el("div", el("span", text, class_="rid", title=text), el("span", "\u00a0· ", link, class_="rlink") if link else None,
              class_="runline small muted")


def _report_link(run: RunData, link_from: Path | None) -> Markup | None:
    """A relative link to the run's own report.html, when it exists."""
    page = run.path / "report.html"
    if link_from is None or not page.is_file():
        return None
    try:
        href = os.path.relpath(page.resolve(), Path(link_from).resolve())
    except ValueError:  # another drive (Windows)
        return None
    return el("a", "run report", href=quote(Path(href).as_posix()))  # a folder may be named "run #2"


SHORT_CATEGORIES = {"Commercial Context": "Commercial", "Legal correctness": "Legal", "Negotiation Quality": "Negotiation",
                    "Deal-closing Orientation": "Deal-closing", "Counterparty Acceptance Prediction": "Acceptance"}


def _category_heatmap(entries: Sequence[tuple[str, Mapping[str, Any]]], note: Markup) -> Markup | None:
    cats: list[str] = []
    for _label, summary in entries:
        for k in summary.get("by_category") or {}:
            if k not in cats:
                cats.append(str(k))
    rows = [(label, summary["by_category"]) for label, summary in entries if isinstance(summary.get("by_category"), dict)]
    if not cats or not rows:
        return None
    order = [c for c in SHORT_CATEGORIES if c in cats] + sorted(c for c in cats if c not in SHORT_CATEGORIES)
    values = [[cats_.get(c) if is_number(cats_.get(c)) else None for c in order] for _label, cats_ in rows]
    svg = heatmap([label for label, _ in rows], [SHORT_CATEGORIES.get(c, c) for c in order], values, cell_w=96,
                  title="Rubric category profile per model", tips=[[f"{label} · {c}" for c in order] for label, _ in rows])
    return el("figure", el("figcaption", "Category profile (0-100) ", el("span", note, class_="muted small")), svg)


def _names(names: Sequence[str]) -> Markup:
    """A comma list of model labels, each isolated so a right-to-left name keeps the commas in place."""
    return join([join([", " if i else "", el("bdi", n)]) for i, n in enumerate(names)])


def _n_incomplete(e: Entry) -> int:
    """Trials not averaged in (judging incomplete, errored, not graded): the scorer's n_incomplete when it has one."""
    n = e.summary.get("n_incomplete")
    if is_number(n):
        return int(n)
    return sum(1 for t in e.trials if t.judging_incomplete or t.errored)


def _integrity(e: Entry) -> tuple[int, int] | None:
    """(trials failed, trials flagged) by the integrity audit; None when no trial was audited (graded before it)."""
    # the summary's counts are 0 for grades that carry no audit: the grades themselves say whether it ran
    if e.trials and not any(t.integrity is not None and t.integrity.skipped is None for t in e.trials):
        return None
    if not e.trials and not any(k in e.summary for k in ("n_integrity_failures", "n_integrity_flags")):
        return None
    failed, flagged = e.summary.get("n_integrity_failures"), e.summary.get("n_integrity_flags")
    return (int(failed) if is_number(failed) else sum(1 for t in e.trials if t.integrity_failed),
            int(flagged) if is_number(flagged) else sum(1 for t in e.trials if t.integrity_flagged))


def _integrity_cell(counts: tuple[int, int] | None) -> Markup:
    if counts is None:
        return el("td", "not audited", class_="num muted small", data_v="-1",
                  title="graded before the integrity audit: an untracked change was not caught")
    failed, flagged = counts
    if not failed and not flagged:
        return el("td", "0", class_="num", data_v="0")
    return el("td", el("span", f"{failed} fail · {flagged} flag", class_="badge b-fail b-integrity"), class_="num",
              data_v=str(failed * 1000 + flagged), title="trials the audit failed (reward 0) · graded with a flag")


def _leaderboard(entries: Sequence[Entry], runs: Sequence[RunData], colours: ModelColours,
                 link_from: Path | None = None, compared: tuple[list[str], list[dict], Any] | None = None) -> Markup:
    head = ["#", "Model", "redline_overall", "95% CI", "best@k", "Side A", "Side B", "Trials", "Gate failures",
            "Integrity", "Incomplete", "Cost / trial", "Tokens / trial", "Cached input", "Latency / trial"]
    numeric = set(head) - {"Model"}
    bands = band_labels(compared[0], compared[1]) if compared else {}
    rows = []
    names = dict(zip([e.model for e in entries], short_labels([e.model for e in entries], NAME_CHARS)))
    for rank, e in enumerate(entries, 1):
        s = e.summary
        side = s.get("by_side_turn_weighted") if isinstance(s.get("by_side_turn_weighted"), dict) else {}
        ro = redline_overall(s)
        tokens = mean([(t.tokens_in or 0) + (t.tokens_out or 0) if (t.tokens_in is not None or t.tokens_out is not None) else None
                       for t in e.trials])
        latency = mean([t.latency for t in e.trials])
        cached = cached_share(e.trials)
        rows.append(el("tr",
                       el("td", bands.get(e.label, str(rank)), class_="num", data_v=f"{rank:.6f}"),
                       el("td", el("span", el("span", "", class_="swatch", style=f"background:{colours(e.label)}"),
                                   el("bdi", names[e.model], title=e.model if names[e.model] != e.model else None), class_="nw"),
                          _run_line(e.run, link_from), class_="model"),
                       el("td", el("b", f"{ro:.1f}") if ro is not None else "—", class_="num", data_v=f"{ro:.4f}" if ro is not None else ""),
                       el("td", ci_text(s), class_="num"),
                       num_cell(s.get("best_at_k_turn_weighted"), score100(s.get("best_at_k_turn_weighted"))),
                       num_cell(side.get("A"), score100(side.get("A"))), num_cell(side.get("B"), score100(side.get("B"))),
                       num_cell(s.get("n_trials", len(e.trials))),
                       num_cell(s.get("n_gate_failures")), _integrity_cell(_integrity(e)), num_cell(_n_incomplete(e)),
                       num_cell(e.cost_per_trial, money(e.cost_per_trial)),
                       num_cell(tokens, count(tokens)),
                       num_cell(cached, rate(cached)),
                       num_cell(latency, seconds(latency))))
    # a header may wrap where it has a space, and after the underscore of redline_overall: every column fits at 1280 px
    shown = {"redline_overall": join(["redline_", el("wbr"), "overall"])}
    table = el("table", el("thead", el("tr", *[el("th", shown.get(h, h), class_="num" if h in numeric else None) for h in head])),
               el("tbody", *rows), class_="sortable")
    warnings = []
    methods = {r.judge_method for r in runs}
    if len(methods) > 1:
        warnings.append(el("div", el("b", "Different judging across runs"),
                           "The runs were scored with different judge methods (", ", ".join(sorted(str(m) for m in methods)),
                           "); their scores are not directly comparable.", class_="callout"))
    if any(r.judge_method and "heuristic" in r.judge_method for r in runs):
        warnings.append(el("div", el("b", "Heuristic judge"), "Some runs were scored by the offline heuristic judge: an "
                                                              "approximation for demos, never publishable.", class_="callout info"))
    audit = {e.label: _integrity(e) for e in entries}
    found = [label for label, c in audit.items() if c is not None and any(c)]
    if found:
        warnings.append(el("div", el("b", "Integrity audit findings"), "These entries have trials the integrity audit failed "
                           "(an untracked change, a forged or altered revision, hidden text: reward 0) or flagged: ",
                           _names(found), ". Each run's report lists the findings.", class_="callout bad"))
    unaudited = [label for label, c in audit.items() if c is None]
    if unaudited and len(unaudited) < len(entries):
        warnings.append(el("div", el("b", "Graded before the integrity audit"), "These entries were graded without it, so an "
                           "output that changed the contract without tracking scored like an honest one: ", _names(unaudited),
                           ". Grade them again (`redlinebench score RUN --rejudge`) before comparing.", class_="callout"))
    fps = {str(config_value(r.config, "data.fingerprint", "fingerprint", "source.fingerprint"))
           for r in runs if config_value(r.config, "data.fingerprint", "fingerprint", "source.fingerprint")}
    if len(fps) > 1:
        warnings.append(el("div", el("b", "Different task sets"), "The runs used task sets with different fingerprints; "
                                                                  "compare cell by cell rather than by the headline.", class_="callout"))
    partial = [e.label for e in entries if isinstance(e.summary.get("by_scenario_turn"), dict)
               and sum(1 for v in e.summary["by_scenario_turn"].values() if is_number(v)) not in (0, 12)]
    if partial:
        warnings.append(el("div", el("b", "Partial grid"), "These entries do not cover all 12 scenario × turn cells, so their "
                                                           "headline averages fewer cells: ", _names(partial), class_="callout"))
    scored = [(e.label, e.summary) for e in entries if e.summary]
    forest = leaderboard_forest(scored, colours) if scored else None
    unscored = [e.label for e in entries if not e.summary]
    if unscored:
        warnings.append(el("div", el("b", "Not scored"), "No summary for: ", _names(unscored), class_="callout bad"))
    return el("section", el("h2", "Leaderboard"),
              el("p", "Models ordered by redline_overall (0-100, mean of scenario × turn cell means) with SPEC §6's 95% "
                      "bootstrap interval over the cells, which shows how uneven a model is across cells, not whether "
                      "it beats another. The # column is the paired comparison's rank: models it cannot tell apart "
                      "share a rank (1=); see ", el("a", "Which model is better", href="#pairwise"), ".",
                      class_="lead"),
              *warnings, el("figure", forest) if forest else None, el("div", table, class_="tablewrap"), id="leaderboard")


def _heatmaps(entries: Sequence[Entry], scen: dict[str, str]) -> Markup:
    figs = []
    for e in entries:
        h = scenario_turn_heatmap(e.label, e.summary, scen)
        if h is not None:
            figs.append(el("figure", el("figcaption", e.label), h))
    body = el("div", *figs, class_="grid2") if figs else el("p", "No scenario × turn cells in the summaries.", class_="muted")
    return el("section", el("h2", "Scenario × turn, per model"),
              el("p", "Cell means (0-100); darker is better, hatched cells had no tasks. Turn 1 is the first markup; later "
                      "turns answer the other side's edits.", class_="lead"), body, id="cells")


def _rubric_rates(entries: Sequence[Entry]) -> tuple[list[tuple[str, str]], dict[tuple[str, str], dict[str, Any]], dict[str, dict]]:
    """(task, rubric) keys in natural order, their criteria/weight, and per-entry satisfied rates."""
    order: list[tuple[str, str]] = []
    info: dict[tuple[str, str], dict[str, Any]] = {}
    rates: dict[str, dict[tuple[str, str], tuple[int, int]]] = {}
    for e in entries:
        acc = rates.setdefault(e.label, {})
        for t in e.trials:
            for r in t.per_rubric:
                key = (t.task_id, str(r.get("rubric_id", "")))
                if key not in info:
                    order.append(key)
                    info[key] = r
                w = r.get("weight")
                penalty = bool(r.get("is_penalty")) or (is_number(w) and w < 0)
                ok = rubric_satisfied(r.get("verdict") == "PASS", penalty=penalty)
                n, k = acc.get(key, (0, 0))
                acc[key] = (n + 1, k + int(ok))
    order.sort(key=lambda key: (natural_key(key[0]), natural_key(key[1])))   # k2 before k10, whatever the grades' order
    return order, info, rates


def _rubric_heatmap(entries: Sequence[Entry]) -> Markup:
    order, info, rates = _rubric_rates(entries)
    if not order:
        return el("section", el("h2", "Rubrics across models"), el("p", "No rubric verdicts in the compared runs.", class_="muted"),
                  id="rubrics")
    labels = [e.label for e in entries]
    shown = dict(zip(labels, short_labels(labels, HEADER_CHARS)))

    def rate(label: str, key: tuple[str, str]) -> float | None:
        n, k = rates.get(label, {}).get(key, (0, 0))
        return k / n if n else None

    def spread(key: tuple[str, str]) -> float:
        vals = [v for v in (rate(lb, key) for lb in labels) if v is not None]
        return (max(vals) - min(vals)) if len(vals) > 1 else 0.0

    def table(keys: Sequence[tuple[str, str]]) -> Markup:
        head = el("tr", el("th", "Task"), el("th", "Rubric"), el("th", "Weight", class_="num"), el("th", "Criterion"),
                  *[el("th", shown[lb], class_="rot", title=lb) for lb in labels])
        body = []
        for key in keys:
            r = info[key]
            cells = []
            for lb in labels:
                v = rate(lb, key)
                if v is None:
                    cells.append(el("td", "not run", class_="h none", title=f"{lb}: not run on this task"))
                else:
                    n, _ = rates[lb][key]
                    cells.append(el("td", f"{100 * v:.0f}", class_="h", data_v=f"{v:.4f}", title=f"{lb}: satisfied in {100 * v:.0f}% of {n} trial(s)",
                                    style=f"background:{ramp(v)};color:{ink_on(v)}"))
            w = r.get("weight")
            pen = bool(r.get("is_penalty")) or (is_number(w) and w < 0)
            body.append(el("tr", el("td", key[0], class_="mono small nowrap"), el("td", key[1], class_="mono small"),
                           el("td", el("span", plain(w), class_="badge b-pen", title="penalty rubric") if pen else plain(w),
                              class_="num"), el("td", r.get("criteria") or "", class_="crit"), *cells))
        return el("div", el("table", el("thead", head), el("tbody", *body), class_="heat sortable"), class_="tablewrap")

    key = [(shown[lb], lb) for lb in labels if shown[lb] != lb]
    legend = el("dl", *[join([el("dt", short), el("dd", el("bdi", full))]) for short, full in key],
                class_="kv key small") if key else None

    multi = len(labels) > 1
    top = sorted(order, key=lambda k: -spread(k))[:TOP_RUBRICS] if multi else order[:TOP_RUBRICS]
    top = [k for k in top if spread(k) > 0] if multi else top
    parts = [el("p", "Share of trials in which each model satisfied the rubric (a penalty rubric is satisfied when the "
                     "undesirable edit is absent). 100 = always, 0 = never.", class_="lead")]
    if multi:
        parts.append(el("h3", f"Where the models differ most ({len(top)} rubrics)"))
        parts.append(table(top) if top else el("p", "The models agree on every rubric.", class_="muted"))
    if legend is not None:
        parts.append(join([el("h4", "Column key"), legend]))
    parts.append(el("details", el("summary", f"All {len(order)} rubrics"), table(order), class_="sub", open=not multi))
    return el("section", el("h2", "Rubrics across models"), *parts, id="rubrics")


def _cost(entries: Sequence[Entry], colours: ModelColours) -> Markup:
    from ._svg import Point, scatter

    points = []
    for e in entries:
        c, v = e.cost_per_trial, e.summary.get("overall_turn_weighted")
        ci = e.summary.get("ci") if isinstance(e.summary.get("ci"), list) else None
        if c is not None and is_number(v):
            points.append(Point(e.label, c, float(v), colours(e.label), ci))
    if not points:
        body = el("p", "No cost figures recorded in metrics.json.", class_="muted")
    elif max(p.x for p in points) == 0:
        body = el("p", "Every entry cost $0 (offline baselines or local models), so there is nothing to plot.", class_="muted")
    else:
        body = el("figure", el("figcaption", "Score against mean agent cost per trial ",
                               el("span", "(judge cost excluded; bars are 95% CIs)", class_="muted small")),
                  scatter(points, title="redline_overall against agent cost per trial", x_label="agent cost per trial (USD)",
                          x_format=money))
    return el("section", el("h2", "Score against cost"), body, id="cost")


__all__ = ["write_comparison", "render_comparison", "collect_entries"]
