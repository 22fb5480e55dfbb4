"""A realistic arena run directory (SPEC §8.9) for the arena page tests: three players, a closed
game with three moves, a forfeit on an integrity finding, a no-deal, and hostile strings wherever
a model, a document or a judge can put text."""

from __future__ import annotations

import json
from pathlib import Path

from .docxfixture import Cmt, Doc, Para, write_docx
from .runfixture import HOSTILE, HOSTILE_IMG

FIRST_AUTHOR = "Reviewing Counsel (AgentCo Legal)"
SECOND_AUTHOR = "Reviewing Counsel (LargeCo Legal)"
PLAYERS = ["openai/gpt-5.5", "anthropic/claude-sonnet-4-5-20250929", f"evil/{HOSTILE}"]


def _issue(issue: str, level: str, quote: str) -> dict:
    return {"issue": issue, "level": level, "quote": quote, "justification": f"The agreed text says {quote!r}."}


def _move(folder: Path, number: int, model: str, author: str, *, fatal: bool = False, reward: float | None = None) -> None:
    folder.mkdir(parents=True)
    doc = Doc([Para([("text", "Limitation of Liability", None)], level=0, heading=True),
               Para([("text", "Liability is capped at ", None), ("del", "twelve (12)", author),
                     ("ins", f"twenty-four (24) {HOSTILE_IMG}", author), ("text", " months of fees.", None)], level=1)],
              comments=[Cmt(1, author, f"Move {number}: market standard {HOSTILE}", para=1)])
    write_docx(folder / "input.docx", Doc([Para([("text", "Liability is capped at twelve (12) months of fees.", None)])]))
    write_docx(folder / "redline.docx", doc)
    findings = [{"kind": "untracked_change", "severity": "fatal", "paragraph_id": "p-002",
                 "detail": f"'twelve (12)' -> 'three (3)' {HOSTILE}"}] if fatal else []
    grade = {"task_id": "redline-s1-t1-g01a" if number == 1 else "redline-s1-t2-g01a", "model": model, "trial": 1,
             "scenario_id": "1", "turn": number, "side": "A" if number % 2 else "B", "author": author,
             "gate": {"passed": not fatal, **({"reason": "integrity: untracked_change 'twelve (12)'"} if fatal else {})},
             "integrity": {"passed": not fatal, "version": "integrity-v3", "findings": findings},
             "score": {"weighted": reward} if reward is not None else {}}
    (folder / "grade.json").write_text(json.dumps(grade))
    (folder / "metrics.json").write_text(json.dumps({"model": model, "status": "completed"}))
    (folder / "transcript.jsonl").write_text('{"type": "start"}\n')


def _side(model: str, utility: float, breach: bool, issues: list[dict]) -> dict:
    return {"model": model, "utility": utility, "breach": breach, "issues": issues}


def build_arena(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    a, b, c = PLAYERS
    games = []
    # closed at move 3
    g1 = {"game_id": "s1-a-vs-b-t1", "dir": "games/s1-a-vs-b-t1", "scenario": 1, "first": a, "second": b, "trial": 1,
          "outcome": "closed", "moves": 3, "closed_at": 3,
          "sides": {"first": _side(a, 0.75, False, [_issue("Liability cap", "preferred", "twenty-four (24) months"),
                                                    _issue(f"Data {HOSTILE}", "fallback", "annual audit")]),
                    "second": _side(b, 0.25, True, [_issue("Liability cap", "walk_away", "twenty-four (24) months"),
                                                    _issue("Audit", "fallback", f"annual audit {HOSTILE_IMG}")])}}
    for n, (model, author) in enumerate([(a, FIRST_AUTHOR), (b, SECOND_AUTHOR), (a, FIRST_AUTHOR)], 1):
        _move(root / g1["dir"] / f"move-{n:02d}", n, model, author, reward=0.6 if n == 1 else None)
    write_docx(root / g1["dir"] / "agreed.docx",
               Doc([Para([("text", "Liability is capped at twenty-four (24) months of fees.", None)], level=1)]))
    games.append(g1)
    # forfeit by the second seat on an untracked change
    g2 = {"game_id": "s1-b-vs-c-t1", "dir": "games/s1-b-vs-c-t1", "scenario": 1, "first": b, "second": c, "trial": 1,
          "outcome": "forfeit", "moves": 2, "forfeit_by": "second",
          "sides": {"first": _side(b, 0.0, False, []), "second": _side(c, 0.0, False, [])}}
    _move(root / g2["dir"] / "move-01", 1, b, FIRST_AUTHOR, reward=0.4)
    _move(root / g2["dir"] / "move-02", 2, c, SECOND_AUTHOR, fatal=True)
    games.append(g2)
    # no deal, and a game whose folder is outside the run (must not be read)
    games.append({"game_id": "s2-c-vs-a-t1", "dir": "../../etc", "scenario": 2, "first": c, "second": a, "trial": 1,
                  "outcome": "no_deal", "moves": 6,
                  "sides": {"first": _side(c, 0.0, False, []), "second": _side(a, 0.0, False, [])}})
    summary = {
        "models": PLAYERS, "scenarios": [1, 2], "max_turns": 6, "trials": 1, "judge_method": "heuristic-arena-1",
        "games": games,
        "models_summary": [
            {"model": a, "rating": 1123.4, "rating_ci": [1010.2, 1250.9], "wins": 2, "ties": 0, "losses": 0,
             "closed_rate": 0.5, "utility_first": 0.75, "utility_second": 0.0, "breaches": 0, "forfeits": 0,
             "turn1_reward": 0.6},
            {"model": b, "rating": 987.1, "rating_ci": [870.0, 1101.5], "wins": 1, "ties": 0, "losses": 1,
             "closed_rate": 0.5, "utility_first": 0.0, "utility_second": 0.25, "breaches": 1, "forfeits": 0,
             "turn1_reward": 0.4},
            {"model": c, "rating": 889.5, "rating_ci": [760.3, 1001.0], "wins": 0, "ties": 0, "losses": 2,
             "closed_rate": 0.0, "utility_first": 0.0, "utility_second": 0.0, "breaches": 0, "forfeits": 1,
             "turn1_reward": None},
        ],
        "head_to_head": [{"a": a, "b": b, "wins_a": 1, "ties": 0, "wins_b": 0, "score": 0.5},
                         {"a": b, "b": c, "wins_a": 1, "ties": 0, "wins_b": 0, "score": 1.0}],
    }
    (root / "arena_summary.json").write_text(json.dumps(summary))
    return root
