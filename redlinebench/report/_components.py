"""Page pieces shared by the run report and the comparison dashboard."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from ..scoring import redline_overall as scoring_redline_overall
from ._html import Markup, el, is_number, join, money, plain, rate, score100
from ._load import RunData, TrialRecord
from ._palette import ModelColours
from ._stats import Agreement
from ._svg import ForestRow, Series, forest, grouped_bars, heatmap

SIDE_NAMES = {"A": "Side A · vendor", "B": "Side B · customer"}
STATUS_TEXT = {
    "graded": ("graded", "b-pass"),
    "gate_failed": ("gate failed", "b-fail"),
    "judging_incomplete": ("judging incomplete", "b-warn"),
    "errored": ("errored", "b-fail"),
    "not_graded": ("not graded", "b-na"),
}


def breakable_name(name: str) -> Markup:
    """A model name that may wrap after each ``/`` (``anthropic/`` ``claude-…``) and nowhere else: a narrow
    column stays narrow, and ``accept-all`` never splits at its hyphen."""
    parts = name.split("/")
    return join([join([el("wbr") if i else None, el("span", p + ("/" if i < len(parts) - 1 else ""), class_="nw")])
                 for i, p in enumerate(parts)])


def redline_overall(entry: Mapping[str, Any] | None) -> float | None:
    """SPEC §6: ``round(100 * overall_turn_weighted, 1)`` (a summary's own value wins if present)."""
    if not entry:
        return None
    v = entry.get("redline_overall")
    if is_number(v):
        return float(v)
    otw = entry.get("overall_turn_weighted")
    return scoring_redline_overall(float(otw)) if is_number(otw) else None


def ci_pair(entry: Mapping[str, Any] | None) -> tuple[float, float] | None:
    """The entry's confidence interval; None when it has no score (the summary then stores a
    [0, 0] placeholder, which is not an interval)."""
    if "overall_turn_weighted" in (entry or {}) and (entry or {}).get("overall_turn_weighted") is None:
        return None
    ci = (entry or {}).get("ci")
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(is_number(c) for c in ci):
        return float(ci[0]), float(ci[1])
    return None


def ci_text(entry: Mapping[str, Any] | None) -> str:
    ci = ci_pair(entry)
    return f"{100 * ci[0]:.1f} – {100 * ci[1]:.1f}" if ci else "—"


def status_badge(status: str, *, expected: bool = False) -> Markup:
    """*expected*: a floor baseline's gate failure, shown neutral (it is what that agent is for)."""
    text, cls = STATUS_TEXT.get(status, (status, "b-na"))
    if expected:
        return el("span", f"{text} (expected)", class_="badge b-na", title="a floor baseline fails the gate by design")
    return el("span", text, class_=f"badge {cls}")


def verdict_badge(verdict: object, *, penalty: bool = False, explain: bool = True) -> Markup:
    """A verdict as what it means for the reward: a penalty rubric's FAIL (the undesirable edit is
    absent) is good news, shown as "avoided" in green with the reason in words, not a grey FAIL
    explained only on hover; its PASS is "penalized" in red. ``explain``: the reason under the badge."""
    if verdict == "PASS":
        if penalty:
            return el("span", "PASS · penalized", class_="badge b-pen",
                      title="penalty rubric: the undesirable edit is present, so its weight is subtracted")
        return el("span", "PASS", class_="badge b-pass")
    if verdict == "FAIL":
        if penalty:
            return join([el("span", "FAIL · avoided", class_="badge b-pass",
                            title="penalty rubric: the undesirable edit is absent, so nothing is subtracted"),
                         el("span", "penalty not incurred: the undesirable edit is absent", class_="why small")
                         if explain else None])
        return el("span", "FAIL", class_="badge b-fail")
    return el("span", "no verdict", class_="badge b-na")


def reward_cell(value: float | None) -> Markup:
    if value is None:
        return el("td", "—", class_="num", data_v="")
    w = max(0.0, min(1.0, value))
    return el("td", el("span", f"{100 * value:.1f}", class_="reward"),
              el("span", el("i", style=f"width:{100 * w:.0f}%"), class_="bar", aria_hidden="true"),
              class_="num", data_v=f"{value:.6f}")


def num_cell(value: object, text: str | None = None) -> Markup:
    if not is_number(value):
        return el("td", "—", class_="num", data_v="")
    return el("td", text if text is not None else plain(value), class_="num", data_v=f"{float(value):.6f}")  # type: ignore[arg-type]


def scenario_labels(runs: Sequence[RunData]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for run in runs:
        for t in run.trials:
            lab = (t.grade or {}).get("scenario_label")
            if t.scenario and isinstance(lab, str) and lab and t.scenario not in labels:
                labels[t.scenario] = lab
    try:  # the benchmark's own scenario names, for grade files that do not carry them
        from ..tasks import SCENARIO_LABELS
    except ImportError:
        SCENARIO_LABELS = {}
    scenarios = {t.scenario for run in runs for t in run.trials if t.scenario}
    for key, label in SCENARIO_LABELS.items():
        if str(key) in scenarios:
            labels.setdefault(str(key), str(label))
    return labels


def _sorted_keys(keys: Any) -> list[str]:
    def k(x: str) -> tuple:
        parts = str(x).split("-")
        return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)
    return sorted({str(x) for x in keys}, key=k)


def _full_range(keys: set[str]) -> list[str]:
    """Observed keys, with numeric gaps filled from 1 so the grid shows what was not run."""
    if keys and all(k.isdigit() for k in keys):
        return [str(i) for i in range(1, max(int(k) for k in keys) + 1)]
    return _sorted_keys(keys)


GATE_ZERO_NOTE = ("Weight of correct outcomes / total weight, pooled over all rubrics; a trial that failed the "
                  "validity gate counts as all wrong (its reward is 0). metrics_summary.json's by_category (SPEC §6) "
                  "credits such a trial with every penalty rubric it did not trigger.")


def gate_zero_categories(entries: Sequence[tuple[str, Mapping[str, Any]]],
                         trials: Mapping[str, Sequence[Any]]) -> tuple[list[tuple[str, Mapping[str, Any]]], Markup]:
    """``entries`` with ``by_category`` recomputed from the trials' grades, a gate failure counted as
    all wrong (:func:`by_category_gate_zero`), and a note naming each model's gate failures."""
    from ..scoring import by_category_gate_zero

    out, failures = [], []
    for model, e in entries:
        graded = [t for t in trials.get(model, ()) if t.status in ("graded", "gate_failed") and t.grade]
        failed = sum(t.status == "gate_failed" for t in graded)
        if failed:
            failures.append(join(["; " if failures else "", el("bdi", model), f" {failed} of {len(graded)}"]))
            e = {**e, "by_category": by_category_gate_zero([t.grade for t in graded])}
        out.append((model, e))
    return out, join([GATE_ZERO_NOTE, *([" Trials that failed the gate: ", *failures, "."] if failures else [])])


def dimension_charts(entries: Sequence[tuple[str, Mapping[str, Any]]], colours: ModelColours,
                     scen_labels: Mapping[str, str], category_note: Markup | None = None) -> Markup:
    """By turn, side, scenario and category: grouped bars (one series per model) plus tables
    (``category_note``: the category chart's caption, :func:`gate_zero_categories`)."""
    figs = []
    specs = [
        ("by_turn", "By turn", lambda k: f"Turn {k}", "Mean of input-group scores per turn."),
        ("by_side_turn_weighted", "By side", lambda k: SIDE_NAMES.get(k, f"Side {k}"), "Mean of the side's scenario × turn cells."),
        ("by_scenario_turn_weighted", "By scenario", lambda k: f"S{k} · {scen_labels[k]}" if k in scen_labels else f"Scenario {k}",
         "Mean of the scenario's turn cells."),
        ("by_category", "By rubric category", lambda k: k, category_note or GATE_ZERO_NOTE),
    ]
    for key, title, fmt, note in specs:
        keys: list[str] = []
        for _, e in entries:
            d = e.get(key)
            if isinstance(d, dict):
                keys.extend(str(x) for x in d)
        if not keys:
            continue
        keys = _sorted_keys(keys) if key != "by_category" else sorted(set(keys))
        series = []
        for model, e in entries:
            d = e.get(key) if isinstance(e.get(key), dict) else {}
            vals = [d.get(k) if is_number(d.get(k)) else None for k in keys]
            series.append(Series(model, colours(model), vals))
        chart = grouped_bars([fmt(k) for k in keys], series, title=f"{title}: redline score (0-100) per model")
        head = el("tr", el("th", ""), *[el("th", fmt(k), class_="num") for k in keys])
        body = [el("tr", el("td", el("span", "", class_="swatch", style=f"background:{s.colour}"), s.name),
                   *[el("td", score100(v), class_="num") for v in s.values]) for s in series]
        table = el("details", el("summary", "numbers", class_="small muted"),
                   el("div", el("table", el("thead", head), el("tbody", *body)), class_="tablewrap"), class_="sub")
        figs.append(el("figure", el("figcaption", title, " ", el("span", note, class_="muted small")), chart, table))
    if not figs:
        return el("p", "No aggregated scores yet.", class_="muted")
    return el("div", *figs, class_="grid2")


def leaderboard_forest(entries: Sequence[tuple[str, Mapping[str, Any]]], colours: ModelColours) -> Markup:
    rows = []
    for model, e in entries:
        v = e.get("overall_turn_weighted")
        rows.append(ForestRow(model, float(v) if is_number(v) else None, ci_pair(e), colours(model)))
    title = "redline_overall with 95% bootstrap confidence intervals"
    return for_screens(forest(rows, title=title), forest(rows, title=title, width=NARROW_CHART))


def scenario_turn_heatmap(model: str, entry: Mapping[str, Any], scen_labels: Mapping[str, str]) -> Markup | None:
    cells = entry.get("by_scenario_turn")
    if not isinstance(cells, dict) or not cells:
        return None
    scen, turns = set(), set()
    for k in cells:
        parts = str(k).split("-")
        if len(parts) == 2:
            scen.add(parts[0])
            turns.add(parts[1])
    scen_l, turn_l = _full_range(scen), _full_range(turns)
    if not scen_l:
        return None
    vals = [[cells.get(f"{s}-{t}") if is_number(cells.get(f"{s}-{t}")) else None for t in turn_l] for s in scen_l]
    rows = [f"S{s} · {scen_labels[s]}" if s in scen_labels else f"Scenario {s}" for s in scen_l]
    cols, title = [f"Turn {t}" for t in turn_l], f"{model}: scenario × turn cell means"
    tips = [[f"{model} · S{s} T{t}" for t in turn_l] for s in scen_l]
    cell_w = 52.0  # a phone shows every turn: narrower cells, the scenario names abbreviated with a key
    return for_screens(heatmap(rows, cols, vals, title=title, corner="", tips=tips),
                       heatmap(rows, cols, vals, title=title, corner="", tips=tips, cell_w=cell_w,
                               label_max=max(72.0, NARROW_CHART - 4 - cell_w * len(cols))))


#: The width a chart is drawn at for a phone (390 px less the page's margins), so it is not cut or scrolled.
NARROW_CHART = 356.0


def for_screens(wide: Markup, narrow: Markup) -> Markup:
    """A chart drawn twice, for a desktop and for a phone; CSS shows one (an SVG scaled down to a
    phone's width would shrink its text below reading size)."""
    return join([el("div", wide, class_="chart-wide"), el("div", narrow, class_="chart-narrow")])


def agreement_section(agree: Agreement) -> Markup:
    if not agree.judges:
        return el("p", "No per-judge votes were recorded (single judge or heuristic judge), so there is no agreement to report.",
                  class_="muted")
    jrows = [el("tr", el("td", j.name, class_="mono"), num_cell(j.votes), el("td", rate(j.pass_rate), class_="num"),
                el("td", rate(j.panel_agreement), class_="num")) for j in agree.judges]
    if len(agree.judges) == 1:  # one judge agrees with itself: "100% unanimous" would claim a panel that was not there
        lead = el("p", f"One judge ({agree.judges[0].name}) decided all {agree.rubric_votes} rubric decisions: there is "
                       "no panel, so no agreement to measure.", class_="lead")
    else:
        lead = el("p", f"{agree.rubric_votes} rubric decisions had per-judge votes from {len(agree.judges)} judges; ",
                  el("b", rate(agree.unanimity)), " were unanimous.", class_="lead")
    parts = [
        lead,
        el("div", el("table", el("thead", el("tr", el("th", "Judge"), el("th", "Votes", class_="num"),
                                            el("th", "PASS rate", class_="num"), el("th", "Agrees with panel", class_="num"))),
                     el("tbody", *jrows)), class_="tablewrap"),
    ]
    if agree.pairs:
        prow = [el("tr", el("td", p.a, class_="mono"), el("td", p.b, class_="mono"), num_cell(p.n),
                   el("td", rate(p.agreement), class_="num"),
                   el("td", "—" if p.kappa is None else f"{p.kappa:.2f}", class_="num")) for p in agree.pairs]
        parts.append(el("h4", "Pairwise"))
        parts.append(el("div", el("table", el("thead", el("tr", el("th", "Judge"), el("th", "Judge"), el("th", "Shared", class_="num"),
                                                        el("th", "Agreement", class_="num"), el("th", "Cohen's κ", class_="num"))),
                                  el("tbody", *prow)), class_="tablewrap"))
        parts.append(el("p", "κ above 0.6 is usually read as substantial agreement; below 0.4 as weak.", class_="small muted"))
    return join(parts)


def method_note() -> Markup:
    return join([
        el("p", "Each task is graded against attorney-written rubrics by a panel of LLM judges. A rubric passes when more "
                "than half of the judges that answered it say PASS (a tie fails). Penalty rubrics (negative weight) describe "
                "an undesirable edit: when present, their weight is subtracted.", class_="lead"),
        el("div", "reward   = clamp((earned − penalty) / total positive weight, 0, 1)\n"
                  "           0 when the output fails the validity gate (no tracked change or comment by the task author)\n"
                  "group    = mean reward of an input group (its rubric variants and trials)\n"
                  "cell     = mean of the group scores in one scenario × turn cell\n"
                  "headline = mean of the cell means (each cell counts equally); redline_overall = 100 × headline\n"
                  "95% CI   = percentile bootstrap over the cell means (5000 resamples)", class_="formula"),
        el("p", "Side A is the vendor (AgentCo), side B the customer. Category scores pool every rubric: a positive rubric is "
                "correct when it passes, a penalty rubric when it fails.", class_="small muted"),
        el("h3", "Terms"),
        el("dl", *[join([el("dt", k), el("dd", v)]) for k, v in GLOSSARY], class_="kv glossary"),
    ])


GLOSSARY = (
    ("Turn", "One round of the negotiation: turn 1 marks up a clean contract; turns 2-4 answer the other side's tracked "
             "changes and comments."),
    ("Task", "One turn for one side, graded by one attorney's rubric set. Tasks that share the same input contract form an "
             "input group; their rubric variants are averaged."),
    ("Rubric", "An attorney-written criterion with a weight (importance). A negative weight marks a penalty rubric: it "
               "describes an edit that should not be made."),
    ("Validity gate", "The output must open as a Word document and carry at least one tracked change or comment by the "
                      "task's author; otherwise the reward is 0 and the judges are not asked."),
    ("Panel", "The judges that grade each rubric PASS or FAIL; the majority of those that answered decides, a tie fails."),
    ("Judging incomplete", "A judge failed after all retries, so the panel's verdict is not final; such trials are listed, "
                           "not averaged, until they are scored again."),
    ("Surgicalness", "The share of edits that change less than 30% of their clause (inline edits rather than rewrites)."),
    ("Golden agreement", "How far the model touched the same clauses and text spans as the attorney's own redline."),
)


def config_list(config: Mapping[str, Any], *, limit: int = 80) -> Markup:
    """Flatten the run configuration into a key/value list (everything escaped)."""
    items: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any, depth: int) -> None:
        if len(items) >= limit:
            return
        if isinstance(value, dict) and depth < 3 and value:
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v, depth + 1)
        elif isinstance(value, list) and all(not isinstance(x, (dict, list)) for x in value):
            items.append((prefix, ", ".join(str(x) for x in value) if value else "[]"))
        else:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
            items.append((prefix, text if len(text) <= 400 else text[:400] + "…"))

    walk("", config, 0)
    if not items:
        return el("p", "config.json is missing or empty.", class_="muted")
    return el("dl", *[join([el("dt", k), el("dd", v, class_="mono")]) for k, v in items], class_="kv")


def trial_sort_key(t: TrialRecord) -> tuple:
    def n(x: str | None) -> tuple:
        return (0, int(x)) if x and x.isdigit() else (1, x or "")
    return (n(t.scenario), n(t.turn), t.task_id, t.model, str(t.trial))


def money_total(values: Sequence[float | None]) -> str:
    present = [v for v in values if v is not None]
    return money(sum(present)) if present else "—"
