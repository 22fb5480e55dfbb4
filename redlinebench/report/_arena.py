"""``arena.html``: the arena's ratings, head-to-head results and every game, move by move (SPEC §8).

Built from the arena's run directory alone: ``arena_summary.json`` and each game's folder
(``games/<game_id>/move-NN/`` laid out like a run's trial, ``agreed.docx`` when the game closed).
Everything shown comes from documents, models and judges, so it is hostile: text only through
the escaping builder; a file that is missing or unreadable becomes a note on the page, never an
exception that loses the rest.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from ._components import breakable_name
from ._fragments import FragmentCache, cache_dir
from ._html import Markup, el, is_number, join
from ._integrity import findings_table
from ._load import ReportError, TrialRecord
from ._page import page, write_atomic
from ._redline import AuthorColours, render_path

SUMMARY = "arena_summary.json"
ARENA_HTML = "arena.html"

#: SPEC §8.4 levels, best first, with the text shown beside the level's marker (never colour alone).
LEVEL_TEXT = {
    "preferred": ("preferred", "b-pass", "1.0"),
    "fallback": ("fallback", "b-warn", "0.5"),
    "inside": ("inside", "b-warn", "0.25"),
    "walk_away": ("walk-away", "b-fail", "0"),
}
OUTCOME_TEXT = {
    "closed": ("closed", "b-pass"),
    "no_deal": ("no deal", "b-na"),
    "forfeit": ("forfeit", "b-fail"),
}
_MOVE_DIR = re.compile(r"^move-(\d+)$")


@dataclass
class Move:
    """One move of a game, read from its folder (a trial's layout)."""

    number: int
    record: TrialRecord
    problems: list[str] = field(default_factory=list)


@dataclass
class Game:
    data: dict[str, Any]
    folder: Path | None
    moves: list[Move]
    problems: list[str]

    @property
    def game_id(self) -> str:
        gid = self.data.get("game_id")
        if isinstance(gid, str) and gid:
            return gid
        return f"s{self.data.get('scenario')}-{self.data.get('first')}-vs-{self.data.get('second')}-t{self.data.get('trial')}"


def write_arena_report(run_dir: Path, output: Path | None = None) -> Path:
    """Write ``arena.html`` for the arena run in *run_dir*; returns its path.

    Raises :class:`ReportError` (naming the file) when ``arena_summary.json`` is missing or not a
    summary; problems with single games or moves are shown on the page instead.
    """
    run_dir = Path(run_dir)
    summary = read_summary(run_dir / SUMMARY)
    output = Path(output) if output is not None else run_dir / ARENA_HTML
    return write_atomic(output, render_arena(summary, run_dir, link_from=output.parent))


def read_summary(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ReportError("no arena_summary.json: not an arena run directory (run `redlinebench arena` first)",
                          path=path) from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read the arena summary ({exc})", path=path) from exc
    if not isinstance(data, dict) or not isinstance(data.get("games"), list):
        raise ReportError("not an arena summary (no 'games' list)", path=path)
    return data


def _safe_folder(run_dir: Path, rel: Any) -> Path | None:
    """The game's folder, only when *rel* is a relative path that stays inside *run_dir*."""
    if not isinstance(rel, str) or not rel or rel.startswith(("/", "\\")) or ".." in Path(rel).parts:
        return None
    folder = run_dir / rel
    try:
        folder.resolve().relative_to(run_dir.resolve())
    except (OSError, ValueError):
        return None
    return folder if folder.is_dir() else None


def _read_json(path: Path, problems: list[str]) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(f"{path.parent.name}/{path.name}: unreadable ({type(exc).__name__})")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path.parent.name}/{path.name}: not a JSON object")
        return None
    return data


def load_games(summary: Mapping[str, Any], run_dir: Path) -> list[Game]:
    games = []
    for raw in summary.get("games") or []:
        if not isinstance(raw, dict):
            continue
        problems: list[str] = []
        folder = _safe_folder(run_dir, raw.get("dir"))
        if folder is None and raw.get("dir") is not None:
            problems.append(f"game folder {str(raw.get('dir'))!r} not found in the run directory")
        moves: list[Move] = []
        if folder is not None:
            numbered = sorted((int(m.group(1)), p) for p in folder.iterdir()
                              if p.is_dir() and (m := _MOVE_DIR.match(p.name)))
            for number, path in numbered:
                move_problems: list[str] = []
                grade = _read_json(path / "grade.json", move_problems)
                metrics = _read_json(path / "metrics.json", move_problems)
                record = TrialRecord(path=path, model_slug=str((grade or metrics or {}).get("model") or ""),
                                     task_id=str((grade or {}).get("task_id") or (metrics or {}).get("task_id") or ""),
                                     trial_name=path.name, grade=grade, metrics=metrics, problems=move_problems)
                moves.append(Move(number, record, move_problems))
        games.append(Game(raw, folder, moves, problems))
    return games


# ---------------------------------------------------------------------------- pieces

def _num(value: Any, fmt: str = "{:.2f}") -> str:
    return fmt.format(float(value)) if is_number(value) and math.isfinite(float(value)) else "—"


def _rating_text(entry: Mapping[str, Any]) -> str:
    return _num(entry.get("rating"), "{:.0f}")


def _interval(entry: Mapping[str, Any]) -> tuple[float, float] | None:
    ci = entry.get("rating_ci")
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(is_number(c) for c in ci):
        return float(ci[0]), float(ci[1])
    return None


def _interval_bar(entry: Mapping[str, Any], lo: float, hi: float) -> Markup:
    """The rating and its interval on one shared scale: a line for the interval, a dot for the rating."""
    ci, r = _interval(entry), entry.get("rating")
    if ci is None or not is_number(r) or hi <= lo:
        return Markup("")

    def pct(v: float) -> float:
        return 100 * (min(hi, max(lo, v)) - lo) / (hi - lo)

    return el("span",
              el("i", class_="ar-ci", style=f"left:{pct(ci[0]):.1f}%;width:{max(0.5, pct(ci[1]) - pct(ci[0])):.1f}%"),
              el("b", class_="ar-dot", style=f"left:{pct(float(r)):.1f}%"),
              class_="ar-scale", aria_hidden="true")


def ratings_table(models_summary: Sequence[Mapping[str, Any]]) -> Markup:
    entries = [e for e in models_summary if isinstance(e, dict)]
    bounds = [v for e in entries for v in (_interval(e) or ()) if math.isfinite(v)]
    lo, hi = (min(bounds), max(bounds)) if bounds else (0.0, 0.0)
    pad = max(10.0, 0.05 * (hi - lo))
    lo, hi = lo - pad, hi + pad
    head = el("tr", el("th", "#"), el("th", "Model"), el("th", "Rating", class_="num"), el("th", "95% interval"),
              el("th", "W / T / L", class_="num"), el("th", "Closed", class_="num"),
              el("th", "Utility first", class_="num"), el("th", "Utility second", class_="num"),
              el("th", "Breaches", class_="num"), el("th", "Forfeits", class_="num"),
              el("th", "Move-1 reward", class_="num", title="move 1 graded as its dataset task (SPEC §8.8), 0-100"))
    rows = []
    for i, e in enumerate(entries, 1):
        ci = _interval(e)
        rows.append(el("tr",
                       el("td", str(i), class_="num"),
                       el("td", el("bdi", breakable_name(str(e.get("model", "?")))), class_="ar-model"),
                       el("td", _rating_text(e), class_="num ar-rating"),
                       el("td", el("span", f"{ci[0]:.0f} – {ci[1]:.0f}" if ci else "—", class_="nw"), " ",
                          _interval_bar(e, lo, hi)),
                       el("td", f"{_num(e.get('wins'), '{:g}')} / {_num(e.get('ties'), '{:g}')} / "
                                f"{_num(e.get('losses'), '{:g}')}", class_="num nw"),
                       el("td", _num(e.get("closed_rate"), "{:.0%}") if is_number(e.get("closed_rate")) else "—",
                          class_="num"),
                       el("td", _num(e.get("utility_first")), class_="num"),
                       el("td", _num(e.get("utility_second")), class_="num"),
                       el("td", _num(e.get("breaches"), "{:g}"), class_="num"),
                       el("td", _num(e.get("forfeits"), "{:g}"), class_="num"),
                       el("td", _num(100 * e["turn1_reward"], "{:.1f}") if is_number(e.get("turn1_reward")) else "—",
                          class_="num")))
    return el("div", el("table", el("thead", head), el("tbody", *rows), class_="ar-ratings"), class_="tablewrap")


def _h2h_index(head_to_head: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[float, float, float, Any]]:
    """(row model, column model) -> (row wins, ties, column wins, row's summed pairing score)."""
    out: dict[tuple[str, str], tuple[float, float, float, Any]] = {}
    for h in head_to_head:
        if not isinstance(h, dict) or not isinstance(h.get("a"), str) or not isinstance(h.get("b"), str):
            continue
        wa, t, wb = (float(h.get(k)) if is_number(h.get(k)) else 0.0 for k in ("wins_a", "ties", "wins_b"))
        score = h.get("score")
        out[(h["a"], h["b"])] = (wa, t, wb, score)
        out[(h["b"], h["a"])] = (wb, t, wa, -float(score) if is_number(score) else None)
    return out


def h2h_matrix(models: Sequence[str], head_to_head: Sequence[Mapping[str, Any]]) -> Markup:
    """Row model against column model: W-T-L in words and a sign, so nothing rests on colour."""
    index = _h2h_index(head_to_head)
    head = el("tr", el("th", "Row vs column"), *[el("th", el("bdi", breakable_name(m)), class_="ar-col") for m in models])
    rows = []
    for a in models:
        cells = []
        for b in models:
            if a == b:
                cells.append(el("td", "—", class_="num muted"))
                continue
            got = index.get((a, b))
            if got is None:
                cells.append(el("td", "not played", class_="small muted"))
                continue
            wa, t, wb, score = got
            mark, cls = (("▲ ahead", "ar-up") if wa > wb else ("▼ behind", "ar-down") if wb > wa else ("= level", "ar-even"))
            cells.append(el("td", el("span", f"{wa:g}–{t:g}–{wb:g}", class_="nw"), el("br"),
                            el("span", mark, class_=f"small {cls}"),
                            el("span", f" ({float(score):+.2f})", class_="small muted") if is_number(score) else None,
                            title=f"{a} against {b}: {wa:g} wins, {t:g} ties, {wb:g} losses (pairings)"))
        rows.append(el("tr", el("th", el("bdi", breakable_name(a)), scope="row"), *cells))
    return el("div", el("table", el("thead", head), el("tbody", *rows), class_="ar-h2h"), class_="tablewrap")


def _level_badge(level: Any) -> Markup:
    text, cls, value = LEVEL_TEXT.get(str(level), (str(level), "b-na", "?"))
    return el("span", text, class_=f"badge {cls}", title=f"utility {value}")


def issues_table(side: Mapping[str, Any]) -> Markup:
    issues = [i for i in side.get("issues") or [] if isinstance(i, dict)]
    if not issues:
        return el("p", "No issue placed (no deal, or the game ended before a deal).", class_="small muted")
    head = el("tr", el("th", "Issue"), el("th", "Level"), el("th", "Agreed clause (quoted)"), el("th", "Why"))
    rows = [el("tr", el("td", el("bdi", i.get("issue", "?"))), el("td", _level_badge(i.get("level"))),
               el("td", el("bdi", i.get("quote") or "—"), class_="small ar-quote"),
               el("td", el("bdi", i.get("justification") or ""), class_="small"))
            for i in issues]
    return el("div", el("table", el("thead", head), el("tbody", *rows), class_="ar-issues"), class_="tablewrap")


def _outcome_badge(outcome: Any) -> Markup:
    text, cls = OUTCOME_TEXT.get(str(outcome), (str(outcome), "b-na"))
    return el("span", text, class_=f"badge {cls}")


def _outcome_line(game: Game) -> str:
    d = game.data
    outcome = d.get("outcome")
    if outcome == "closed":
        return f"Closed at move {d.get('closed_at', '?')}: the agreed text is that move's output with every revision accepted."
    if outcome == "forfeit":
        seat = d.get("forfeit_by")
        who = (d.get("sides") or {}).get(seat, {}).get("model") if isinstance(d.get("sides"), dict) else None
        return (f"Forfeit by the {seat} seat ({who or d.get(seat) or '?'}): its move failed the validity gate or the "
                "integrity audit. Both utilities are 0; the forfeiting seat loses the game.")
    if outcome == "no_deal":
        return f"No deal: nobody closed by move {d.get('moves', '?')}. Both utilities are 0."
    return f"Outcome {outcome!r}."


def _move_status(m: Move) -> Markup:
    r = m.record
    parts: list[Any] = []
    if r.grade is None:
        parts.append(el("span", "not graded", class_="badge b-na"))
    elif r.gate.get("passed") is False:
        parts.append(el("span", "gate failed", class_="badge b-fail"))
    else:
        parts.append(el("span", "valid", class_="badge b-pass"))
    if r.integrity_failed:
        parts.append(el("span", "integrity fail", class_="badge b-fail b-integrity"))
    elif r.integrity_flagged:
        parts.append(el("span", "flagged", class_="badge b-warn b-integrity"))
    return join([join([" " if i else None, p]) for i, p in enumerate(parts)])


def _file_link(path: Path, link_from: Path | None, name: str) -> Markup | None:
    if link_from is None or not path.is_file():
        return None
    try:
        rel = path.resolve().relative_to(link_from.resolve())
    except (OSError, ValueError):
        return None
    return el("a", name, href=quote(rel.as_posix()))


def _move_block(game: Game, m: Move, colours: AuthorColours, cache: FragmentCache | None,
                link_from: Path | None) -> Markup:
    r = m.record
    seat = "first" if m.number % 2 == 1 else "second"
    model = (r.grade or r.metrics or {}).get("model") or (game.data.get(seat) if isinstance(game.data.get(seat), str) else "?")
    dom = f"g-{_slug(game.game_id)}-m{m.number}"
    author = (r.grade or {}).get("author") or (r.metrics or {}).get("author")
    doc = render_path(r.redline_path, colours=colours, dom=dom + "-doc", focus_author=author if isinstance(author, str) else None,
                      label=f"move {m.number} · {model}", missing="This move produced no redline.docx.", cache=cache)
    callouts: list[Any] = []
    reason = r.gate.get("reason")
    if r.gate.get("passed") is False and reason:
        callouts.append(el("div", el("b", "Validity gate failed"), el("bdi", str(reason)), class_="callout bad"))
    report = r.integrity
    if report is not None and report.findings:
        callouts.append(el("div", el("b", f"Integrity audit ({report.version})"), findings_table(report),
                           class_="callout integrity" + (" bad" if report.fatal else "")))
    elif report is not None:
        callouts.append(el("p", f"Integrity audit {report.version}: no finding.", class_="small muted"))
    for p in m.problems:
        callouts.append(el("p", p, class_="small muted"))
    links = [a for a in (_file_link(r.path / "input.docx", link_from, "input.docx"),
                         _file_link(r.path / "redline.docx", link_from, "redline.docx"),
                         _file_link(r.path / "transcript.jsonl", link_from, "transcript"),
                         _file_link(r.path / "grade.json", link_from, "grade.json")) if a is not None]
    files = el("div", "Files: ", *[join([" · " if i else None, a]) for i, a in enumerate(links)],
               class_="files small") if links else None
    reward = r.reward
    reward_text = f" · move-1 reward {100 * reward:.1f}" if m.number == 1 and reward is not None else ""
    return el("details",
              el("summary", el("span", f"Move {m.number}", class_="nw"), " · ", seat, " · ", el("bdi", str(model)),
                 reward_text, " ", _move_status(m)),
              files, *callouts, el("div", doc.html, class_="redlines"),
              class_="ar-move", id=dom)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def _moves_text(n: Any) -> str:
    return "1 move" if n == 1 else f"{n} moves"


def game_block(game: Game, colours: AuthorColours, cache: FragmentCache | None, link_from: Path | None) -> Markup:
    d = game.data
    sides = d.get("sides") if isinstance(d.get("sides"), dict) else {}
    seat_parts = []
    for seat in ("first", "second"):
        s = sides.get(seat) if isinstance(sides.get(seat), dict) else {}
        model = s.get("model") or d.get(seat) or "?"
        breach = el("span", "breach", class_="badge b-fail", title="agreed to a walk-away position") if s.get("breach") else None
        seat_parts.append(el("section",
                             el("h4", f"{seat.capitalize()} seat · ", el("bdi", breakable_name(str(model))), " · utility ",
                                _num(s.get("utility")), " ", breach),
                             issues_table(s), class_="ar-side"))
    timeline = el("ol", *[el("li", _move_block(game, m, colours, cache, link_from)) for m in game.moves],
                  class_="ar-timeline") if game.moves else el("p", "No move folders found for this game.", class_="small muted")
    agreed = None
    if d.get("outcome") == "closed" and game.folder is not None:
        path = game.folder / "agreed.docx"
        doc = render_path(path if path.is_file() else None, colours=colours, dom=f"g-{_slug(game.game_id)}-agreed",
                          focus_author=None, label="Agreed text", missing="agreed.docx is missing from the game folder.",
                          cache=cache)
        agreed = el("details", el("summary", "Agreed text (every revision accepted)"), el("div", doc.html, class_="redlines"),
                    class_="sub")
    summary = el("summary",
                 el("span", f"Scenario {d.get('scenario', '?')}", class_="nw"), " · ",
                 el("bdi", str(d.get("first", "?"))), " vs ", el("bdi", str(d.get("second", "?"))),
                 f" · trial {d.get('trial', '?')} · ", _outcome_badge(d.get("outcome")),
                 f" · {_moves_text(d.get('moves', len(game.moves)))}")
    notes = [el("p", p, class_="small muted") for p in game.problems]
    return el("details", summary, el("p", _outcome_line(game)), *notes, el("div", *seat_parts, class_="grid2"),
              el("h4", "Moves"), timeline, agreed, class_="trial ar-game", id=f"game-{_slug(game.game_id)}")


def _games_filter(games: Sequence[Game]) -> Markup:
    counts: dict[str, int] = {}
    for g in games:
        counts[str(g.data.get("outcome"))] = counts.get(str(g.data.get("outcome")), 0) + 1
    return el("p", "; ".join(f"{OUTCOME_TEXT.get(k, (k,))[0]}: {v}" for k, v in sorted(counts.items())) or "no games",
              class_="small")


ARENA_CSS = """
.ar-scale{position:relative;display:inline-block;width:8em;height:.8em;vertical-align:middle;background:#EEE;border-radius:3px}
.ar-scale .ar-ci{position:absolute;top:.3em;height:.2em;background:#555}
.ar-scale .ar-dot{position:absolute;top:.1em;width:.6em;height:.6em;margin-left:-.3em;border-radius:50%;background:#1B1B1B}
.ar-h2h td{text-align:center;min-width:6em}
.ar-up{color:#1E6B35}.ar-down{color:#9B1C1C}.ar-even{color:#555}
.ar-timeline{list-style:none;padding-left:0}.ar-timeline>li{margin:.3em 0}
.ar-quote{max-width:32em}
.ar-side{min-width:0}
.ar-side h4{text-transform:none;letter-spacing:normal}
@media (max-width:640px){.ar-scale{width:5em}.ar-quote{max-width:none}}
"""


def render_arena(summary: Mapping[str, Any], run_dir: Path, *, link_from: Path | None = None) -> str:
    games = load_games(summary, run_dir)
    models_summary = [e for e in summary.get("models_summary") or [] if isinstance(e, dict)]
    models = [str(e.get("model")) for e in models_summary if e.get("model") is not None]
    for m in summary.get("models") or []:
        if isinstance(m, str) and m not in models:
            models.append(m)
    colours = AuthorColours()
    try:
        cache: FragmentCache | None = FragmentCache(cache_dir(run_dir))
    except Exception:   # a read-only run directory still gets its page, rendered without the cache
        cache = None
    scen = ", ".join(str(s) for s in summary.get("scenarios") or []) or "?"
    subtitle = [f"{len(models)} players", f"scenarios {scen}", f"up to {summary.get('max_turns', '?')} moves",
                f"{summary.get('trials', '?')} trial(s) per pairing", f"judges: {summary.get('judge_method') or '?'}"]
    how = el("div",
             el("p", "Each pairing plays a scenario twice, each model once in each seat. A model's pairing score is its "
                     "utility in the two games minus its opponent's; the ratings are a Bradley-Terry fit of those "
                     "pairing results (1000 = average player; 400 points = 10:1 odds), with a 95% interval from "
                     "resampling the pairings. Utilities: preferred 1, fallback 0.5, inside 0.25, walk-away 0; "
                     "no deal or a forfeit gives both sides 0, and the forfeiting seat loses."),
             el("p", "Every move is audited against its own input like a graded trial; move 1 is also graded as its "
                     "dataset task (Move-1 reward, comparable with `redlinebench run`).", class_="small muted"),
             class_="brief")
    body = join([
        el("section", el("h2", "Ratings"), how, ratings_table(models_summary), id="ratings"),
        el("section", el("h2", "Head to head"),
           el("p", "Pairings won, tied and lost by the row's model against the column's; ▲ the row leads, ▼ it trails, "
                   "= level; in brackets the row's summed pairing score (its utilities minus the opponent's). A player that "
                   "forfeits a game loses that pairing whatever the utilities, so a winner can show a negative sum.",
           class_="small muted"),
           h2h_matrix(models, [h for h in summary.get("head_to_head") or [] if isinstance(h, dict)]), id="h2h"),
        el("section", el("h2", "Games"), _games_filter(games),
           *[game_block(g, colours, cache, link_from) for g in games], id="games"),
    ])
    return page(title="RedlineBench arena", subtitle=subtitle,
                nav=[("ratings", "Ratings"), ("h2h", "Head to head"), ("games", "Games")], body=body, css=ARENA_CSS)
