"""Scripted arena players and a private deal-judge double for the arena tests.

Players (plugins by import path, ``tests.runner.arena_players:editor``): ``editor`` makes one
tracked change every move; ``closer`` edits while the document holds no tracked change, then
closes (a comment only); ``cheater`` comments and rewrites a clause without tracking it. Each may
sleep ``ARENA_PLAYER_DELAY`` seconds per move, so a test can kill a tournament mid-game, and
report ``ARENA_PLAYER_COST`` USD per move, so a test can reach the spending cap.

The deal judge here is a test double of ``redlinebench.judge.judge_deal`` (SPEC §8.5 belongs to
another module): it scores a side by the share of its own tracked words that survived, so two
strategies get different, deterministic utilities. ``python -m tests.runner.arena_players ARGS``
runs the CLI with it installed.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redlinebench.agent.base import REDLINE, TRANSCRIPT, Episode

WORD = re.compile(r"\b([a-z]{6,})\b")


def _metrics() -> dict[str, Any]:
    """What a move costs: ``ARENA_PLAYER_COST`` USD (default nothing)."""
    return {"steps": 0, "tokens_in": 0, "tokens_out": 0, "cost_usd": float(os.environ.get("ARENA_PLAYER_COST") or 0),
            "cost_known": True}


def _clean_paragraph(doc: Any) -> tuple[str, str] | None:
    """(paragraph id, a lower-case word found once in it) of the last paragraph no revision touches."""
    touched = {r.paragraph_id for r in doc.revisions}
    for p in reversed(doc.paragraphs):
        words = [w for w in WORD.findall(p.text) if p.text.count(w) == 1]
        if p.id not in touched and words:
            return p.id, words[0]
    return None


def _edit(doc: Any, author: str) -> None:
    pid, word = _clean_paragraph(doc)  # type: ignore[misc]
    out = doc.apply_edits([{"op": "replace", "anchor": {"paragraph_id": pid, "text": word},
                            "new_text": word.upper(), "comment": "Our position."}], author=author)
    assert all(r.get("status") == "ok" for r in out), out


class _Player:
    name = "scripted"
    label = "scripted"

    def __init__(self, **_: Any) -> None:
        self.delay = float(os.environ.get("ARENA_PLAYER_DELAY") or 0)

    def move(self, doc: Any, task: Any, workdir: Path) -> None:
        raise NotImplementedError

    async def run(self, task: Any, workdir: Path, *, trial: int) -> Episode:
        from redlinebench.docx import RedlineDocument

        if self.delay:
            await asyncio.sleep(self.delay)
        doc = RedlineDocument.open(task.contract_path)
        (workdir / TRANSCRIPT).write_text('{"type": "start"}\n')
        self.move(doc, task, workdir)
        if not (workdir / REDLINE).exists():
            doc.save(workdir / REDLINE)
        return Episode("completed", "scripted", _metrics())


class Editor(_Player):
    def move(self, doc: Any, task: Any, workdir: Path) -> None:
        _edit(doc, task.author)


class Closer(_Player):
    def move(self, doc: Any, task: Any, workdir: Path) -> None:
        if doc.revisions:
            doc.add_comment(author=task.author, text="Agreed; ready to sign.", paragraph_id=doc.paragraphs[0].id)
        else:
            _edit(doc, task.author)


class Cheater(_Player):
    """A comment for the gate's evidence, and a clause rewritten in the XML without a tracked change."""

    def move(self, doc: Any, task: Any, workdir: Path) -> None:
        pid, word = _clean_paragraph(doc)  # type: ignore[misc]
        doc.add_comment(author=task.author, text="Minor tidy-up.", paragraph_id=pid)
        tmp = workdir / "tmp.docx"
        doc.save(tmp)
        with zipfile.ZipFile(tmp) as zin, zipfile.ZipFile(workdir / REDLINE, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = zin.read(item.filename)
                if item.filename == "word/document.xml":
                    data = data.replace(word.encode(), b"nothing", 1)
                zout.writestr(item, data)
        tmp.unlink()


def editor(**kw: Any) -> Editor:
    return Editor(**kw)


def stubborn(**kw: Any) -> Editor:
    """A second editor under another name: two editors play every game to the cap."""
    return Editor(**kw)


def closer(**kw: Any) -> Closer:
    return Closer(**kw)


def cheater(**kw: Any) -> Cheater:
    return Cheater(**kw)


# -- the deal-judge double -------------------------------------------------------------------------------------

@dataclass
class Deal:
    issues: list
    utility: float
    breach: bool
    complete: bool = True
    usage: dict = field(default_factory=dict)


async def fake_deal(task: Any, agreed_docx: Path, *, judges: str, judge_api_base: str | None = None,
                    cache_dir: Path | None = None, log_path: Path | None = None) -> Deal:
    """Utility = share of upper-cased words (the editors' marks) whose first letter falls in the
    side's half of the alphabet; breach when there is none. Deterministic, and different per side."""
    from redlinebench.docx import RedlineDocument

    text = RedlineDocument.open(agreed_docx).text("current")
    marks = re.findall(r"\b[A-Z]{6,}\b", text)
    mine = [w for w in marks if (w[0] <= "M") == (task.side == "A")]
    utility = round(len(mine) / len(marks), 4) if marks else 0.0
    level = "preferred" if utility >= 0.5 else "walk_away" if not mine else "inside"
    return Deal([{"issue": "Marks", "level": level, "quote": " ".join(mine[:3]), "justification": "counted"}],
                utility, not mine)


def install() -> None:
    import importlib

    importlib.import_module("redlinebench.runner.arena").default_deal_judge = lambda: fake_deal


if __name__ == "__main__":
    install()
    from redlinebench.cli import main

    sys.exit(main(sys.argv[1:]))
