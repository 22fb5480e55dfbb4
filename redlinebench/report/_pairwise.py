"""Which model is better, and how sure (SPEC §6.1) on the run report and compare.html.

A ranking with ties (models the paired test cannot tell from their neighbour share a rank band),
a matrix of paired differences coloured by size with the verdict written in each cell (colour is
never the only carrier), and, for pairs compared on part of what they did, how much they share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..scoring import rank_bands, verdict
from ._html import Markup, el, join
from ._palette import diverging, ink_on_diverging

#: What each ``ci_method`` (SPEC §6.1) means, said next to the interval.
CI_METHODS = {"stratified": "stratified: groups resampled within each cell",
              "pooled": "pooled: cells holding one shared group resampled from a pool",
              "none": "none: one shared group, no interval"}

#: A difference of this many points or more gets the deepest colour.
FULL_SCALE = 10.0
MARKS = {"better": "▲", "worse": "▼"}


def pairwise_for(grades_by_label: Mapping[str, Sequence[Mapping[str, Any]]]
                 ) -> tuple[list[str], list[dict], dict | None] | None:
    """(leaderboard order, §6.1 pairs, power section) for grade dicts under new labels (compare.html: one model of one
    run per label), by the scorer itself; ``None`` when the grades cannot be summarized."""
    from ..scoring import GradeFileError, summarize

    relabelled = [{**g, "model": label} for label, grades in grades_by_label.items() for g in grades]
    try:
        summary = summarize(relabelled)
    except (GradeFileError, ValueError, TypeError):
        return None
    return summary["models"], summary["pairwise"], summary.get("power")


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def clean_pairs(pairs: Any, order: Sequence[str]) -> list[dict[str, Any]]:
    """The pairs of a summary read from disk that are well formed and name models of ``order``
    (a damaged or hand-edited summary loses its bad rows, never the page)."""
    names, out = set(order), []
    for p in pairs if isinstance(pairs, list) else []:
        if not isinstance(p, dict) or p.get("a") not in names or p.get("b") not in names:
            continue
        ci = p.get("ci")
        tested = _num(p.get("diff")) and isinstance(ci, list) and len(ci) == 2 and all(map(_num, ci)) \
            and _num(p.get("p_holm"))
        counts = all(isinstance(p.get(k), int) for k in ("n_groups", "n_cells", "n_groups_excluded"))
        method = p.get("ci_method") if p.get("ci_method") in CI_METHODS else None  # None: a summary before §6.1's amendment
        if counts and (tested or p.get("diff") is None):
            out.append({**p, "significant": p.get("significant") is True, "ci_method": method} if tested else
                       {**p, "diff": None, "ci": None, "ci_method": None, "significant": False})
    return out


def _pair_lookup(pairs: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[Mapping[str, Any], int]]:
    """(row, column) -> (pair, sign): the matrix reads each pair from either side."""
    out: dict[tuple[str, str], tuple[Mapping[str, Any], int]] = {}
    for p in pairs:
        out[(p["a"], p["b"])] = (p, 1)
        out[(p["b"], p["a"])] = (p, -1)
    return out


def _oriented(p: Mapping[str, Any], sign: int) -> tuple[float | None, list[float] | None, str]:
    diff, ci = p.get("diff"), p.get("ci")
    if diff is None:
        return None, None, verdict(p)
    word = verdict(p)
    if sign < 0:
        diff, ci = -diff, [-ci[1], -ci[0]]
        word = {"better": "worse", "worse": "better"}.get(word, word)
    return diff, ci, word


def _pts(x: float) -> str:
    """Points with their sign; a difference that rounds to nothing is +0.0, never -0.0 (the mirror of +0.0)."""
    text = f"{100 * x:+.1f}"
    return "+0.0" if text == "-0.0" else text


def interval(ci: Sequence[float], method: str | None) -> str:
    """A paired interval in points with its ``ci_method`` beside it ("95% CI +1.0 to +4.2, pooled")."""
    text = f"95% CI {_pts(ci[0])} to {_pts(ci[1])}"
    return f"{text}, {method}" if method else text


def _matrix(order: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> Markup:
    look = _pair_lookup(pairs)
    head = el("tr", el("th", "row vs column", class_="small muted"),
              *[el("th", el("bdi", m), scope="col", class_="pw-col") for m in order])
    rows = []
    for a in order:
        cells = [el("th", el("bdi", a), scope="row")]
        for b in order:
            if a == b:
                cells.append(el("td", "—", class_="num muted"))
                continue
            if (a, b) not in look:  # a summary edited by hand, or one that predates a model
                cells.append(el("td", "not compared", class_="small muted"))
                continue
            p, sign = look[(a, b)]
            diff, ci, word = _oriented(p, sign)
            if diff is None:
                cells.append(el("td", "no shared groups", class_="small muted"))
                continue
            partial = "†" if p.get("n_groups_excluded") else ""
            tip = (f"{a} minus {b}: {_pts(diff)} points, {interval(ci, p.get('ci_method'))}, adjusted p "
                   f"{p['p_holm']:.3g}; {p['n_groups']} shared input groups in {p['n_cells']} cells"
                   + (f", {p['n_groups_excluded']} graded for only one left out" if partial else ""))
            shade = max(-1.0, min(1.0, 100 * diff / FULL_SCALE))
            mark = MARKS.get(word, "≈")
            cells.append(el("td", el("span", mark, aria_hidden="true", class_="pw-mark"), " ", _pts(diff), partial,
                            el("span", f" {word}", class_="pw-word"),
                            el("span", interval(ci, p.get("ci_method")), class_="pw-ci"), class_="num pw", title=tip,
                            style=f"background:{diverging(shade)};color:{ink_on_diverging(shade)}",
                            data_sig="1" if word in MARKS else "0"))
        rows.append(el("tr", *cells))
    return el("table", el("thead", head), el("tbody", *rows), class_="pw-matrix")


def _ranking(order: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> Markup:
    bands = rank_bands(order, pairs)
    groups: dict[int, list[str]] = {}
    for model, rank in zip(order, bands):
        groups.setdefault(rank, []).append(model)
    items = []
    for rank, models in groups.items():
        names = join([join([", " if i else "", el("bdi", m)]) for i, m in enumerate(models)])
        tie = el("span", " (a band: each not distinguishable from the next)", class_="muted") if len(models) > 1 else None
        items.append(el("li", el("b", f"{rank}{'=' if len(models) > 1 else ''}"), " ", names, tie))
    return el("ol", *items, class_="pw-ranks")


def headline(order: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> Markup:
    """One sentence about the top of the board that claims no more than the paired test does
    (model names isolated in <bdi>, so a right-to-left name keeps the words around it in place)."""
    if len(order) < 2:
        return join(["One model: nothing to compare."])
    found = _pair_lookup(pairs).get((order[0], order[1]))
    if found is None or found[0].get("diff") is None:
        return join(["The top two models were not compared on shared input groups."])
    p = found[0]
    first, second = el("bdi", order[0]), el("bdi", order[1])
    if rank_bands(order[:2], [p]) == [1, 1]:
        return join(["No model is ahead at the top: ", first, " and ", second, " are not distinguishable by the "
                     "paired test (5% level, Holm-adjusted over all pairs)."])
    return join([first, " is ahead of ", second, f", the next model, by {_pts(p['diff'])} points on the groups both "
                 f"did ({interval(p['ci'], p.get('ci_method'))}, adjusted p {p['p_holm']:.3g})."])


def _coverage(pairs: Sequence[Mapping[str, Any]]) -> Markup | None:
    partial = [p for p in pairs if p.get("n_groups_excluded")]
    if not partial:
        return None
    items = [el("li", el("bdi", p["a"]), " vs ", el("bdi", p["b"]), f": {p['n_groups']} shared input group(s) in "
                f"{p['n_cells']} cell(s); {p['n_groups_excluded']} group(s) graded for only one are left out")
             for p in partial]
    return el("div", el("b", "† Compared on part of the runs"), "These pairs were not graded on the same input groups "
              "(a filtered or partial run); each is compared only on what both did:", el("ul", *items[:20]),
              el("p", f"... and {len(items) - 20} more", class_="small") if len(items) > 20 else None, class_="callout")


def _power(power: Mapping[str, Any] | None) -> Markup | None:
    if not power:
        return None
    if not power.get("available"):
        return el("p", f"Smallest detectable difference: not estimated ({power.get('note')}). Two or more trials per "
                       "task split the variance into task-to-task and trial-to-trial parts.", class_="small muted")
    rows = [el("tr", el("td", el("bdi", p["a"]), " vs ", el("bdi", p["b"])), el("td", f"{100 * p['mdd']:.1f}", class_="num"))
            for p in power.get("pairs") or [] if p.get("mdd") is not None]
    models = [el("tr", el("td", el("bdi", m)), el("td", f"{1e4 * c['var_task']:.0f}", class_="num"),
                 el("td", f"{1e4 * c['var_trial']:.0f}", class_="num"))
              for m, c in (power.get("models") or {}).items() if c]
    return el("details",
              el("summary", "How many trials are enough: variance split and smallest detectable differences"),
              el("div", el("table", el("thead", el("tr", el("th", "Model"), el("th", "task-to-task (pts²)", class_="num"),
                                                  el("th", "trial-to-trial (pts²)", class_="num"))),
                           el("tbody", *models)), class_="tablewrap"),
              el("div", el("table", el("thead", el("tr", el("th", "Pair"),
                                                  el("th", "detectable at 80% power (pts)", class_="num"))),
                           el("tbody", *rows)), class_="tablewrap") if rows else None,
              el("p", "Normal approximation for the paired §6.1 statistic at 5% two-sided; method and assumptions in "
                      "docs/STATISTICS.md.", class_="small muted"), class_="sub")


def pairwise_section(order: Sequence[str], pairs: Sequence[Mapping[str, Any]], power: Mapping[str, Any] | None = None,
                     *, section_id: str = "pairwise") -> Markup | None:
    """The "Which model is better" section; ``None`` with fewer than two models."""
    if len(order) < 2 or not pairs:
        return None
    return el("section", el("h2", "Which model is better"),
              el("p", el("b", headline(order, pairs)), class_="lead"),
              el("p", "Each pair is compared on the input groups both were graded on (SPEC §6.1): the difference of "
                      "the cell-weighted scores, a 95% paired bootstrap interval, and a sign-flip test adjusted "
                      "with Holm's method for the number of pairs. This is how sure we are that one model beats "
                      "another; the per-model interval above only shows how uneven a model is across cells.",
                 class_="small"),
              el("h3", "Ranking with ties"), _ranking(order, pairs),
              el("h3", "Paired differences (row minus column, points)"),
              el("div", _matrix(order, pairs), class_="tablewrap"),
              el("p", "▲ better and ▼ worse: significant after adjustment; ≈ not distinguishable. Colour shows the "
                      "size of the difference (blue: the row model scores higher, orange: lower; full colour at "
                      f"±{FULL_SCALE:.0f} points). † compared on part of the groups. Under each difference its paired "
                      "95% interval and how it was drawn: " + "; ".join(CI_METHODS.values()) + ". Hover a cell for "
                      "its p-value.", class_="small muted"),
              _coverage(pairs), _power(power), id=section_id)


def band_labels(order: Sequence[str], pairs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """``{model: "1="}``-style rank labels for a leaderboard's # column (ties marked with "=")."""
    bands = rank_bands(order, pairs)
    shared = {r for r in bands if bands.count(r) > 1}
    return {m: f"{r}=" if r in shared else str(r) for m, r in zip(order, bands)}
