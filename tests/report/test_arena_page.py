"""arena.html (issue 32 item 6): ratings with intervals, the head-to-head matrix in words, every game's moves with
their integrity record and redline, the agreed text and each side's issue levels; hostile text stays text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from redlinebench.report import ReportError, write_arena_report

from .arenafixture import PLAYERS, build_arena
from .htmlcheck import assert_safe, parse, text


@pytest.fixture
def arena_dir(tmp_path: Path) -> Path:
    return build_arena(tmp_path / "arena")


def test_page_shows_ratings_matrix_games(arena_dir: Path) -> None:
    out = write_arena_report(arena_dir)
    assert out == arena_dir / "arena.html"
    tree = parse(out)
    assert_safe(tree)
    body = text(tree)
    rows = tree.xpath("//table[contains(@class,'ar-ratings')]/tbody/tr")
    assert [r.xpath("string(td[2])") for r in rows] == PLAYERS
    assert rows[0].xpath("string(td[3])") == "1123" and "1010 – 1251" in rows[0].xpath("string(td[4])")
    assert rows[1].xpath("string(td[5])").split() == ["1", "/", "0", "/", "1"]
    assert rows[0].xpath("string(td[11])") == "60.0" and rows[2].xpath("string(td[11])") == "—"
    # matrix: words and signs, both directions of each pairing
    h2h = tree.xpath("//table[contains(@class,'ar-h2h')]/tbody/tr")
    first_row = [c.text_content() for c in h2h[0].xpath("td")]
    assert first_row[0] == "—" and "1–0–0" in first_row[1] and "▲ ahead" in first_row[1] and "not played" in first_row[2]
    assert "0–0–1" in h2h[1].xpath("string(td[1])") and "▼ behind" in h2h[1].xpath("string(td[1])")
    # games: outcomes in words, moves in order, integrity finding shown, agreed text rendered
    games = tree.xpath("//details[contains(@class,'ar-game')]")
    assert len(games) == 3
    assert "Closed at move 3" in games[0].text_content() and "closed" in games[0].xpath("string(summary)")
    assert [m.xpath("string(summary)").split(" · ")[0] for m in games[0].xpath(".//details[contains(@class,'ar-move')]")] \
        == ["Move 1", "Move 2", "Move 3"]
    assert "move-1 reward 60.0" in games[0].xpath("string(.//details[contains(@class,'ar-move')][1]/summary)")
    assert "Agreed text" in games[0].text_content() and "twenty-four (24) months of fees" in games[0].text_content()
    assert "walk-away" in games[0].text_content() and "breach" in games[0].text_content()
    forfeit = games[1].text_content()
    assert "Forfeit by the second seat" in forfeit and "untracked_change" in forfeit and "integrity fail" in forfeit
    # the game whose folder points outside the run is shown, its folder not read
    assert "not found in the run directory" in games[2].text_content()
    assert "<script>" in body and not tree.xpath("//script[contains(., '__pwned')]")


def test_missing_or_bad_summary_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="arena_summary.json"):
        write_arena_report(tmp_path)
    (tmp_path / "arena_summary.json").write_text("[1, 2]")
    with pytest.raises(ReportError, match="not an arena summary"):
        write_arena_report(tmp_path)


def test_broken_move_files_become_notes(arena_dir: Path) -> None:
    (arena_dir / "games/s1-a-vs-b-t1/move-02/grade.json").write_text("{not json")
    (arena_dir / "games/s1-a-vs-b-t1/move-03/redline.docx").write_bytes(b"not a zip")
    tree = parse(write_arena_report(arena_dir))
    game = tree.xpath("//details[contains(@class,'ar-game')]")[0].text_content()
    assert "grade.json: unreadable" in game and "could not be displayed" in game


@pytest.mark.chromium
@pytest.mark.parametrize("width", [390, 1280])
async def test_arena_page_fits_the_screen(arena_dir: Path, width: int, chromium: str) -> None:
    import os

    from .browser import Chromium

    out = write_arena_report(arena_dir)
    overflow_js = """(() => { const w = document.documentElement.clientWidth; const bad = [];
        document.querySelectorAll('details').forEach(d => d.open = true);
        document.querySelectorAll('body *').forEach(e => { const r = e.getBoundingClientRect();
            if (r.width && r.right > w + 1 && !e.closest('.tablewrap, .rl-body, .redlines, pre'))
                bad.push(e.tagName + '.' + e.className); });
        return {bad: bad.slice(0, 10), scroll: document.documentElement.scrollWidth, width: w}; })()"""

    async with Chromium(chromium) as browser:
        result = await browser.open(out, width=width, height=844, evaluate={"layout": overflow_js},
                                    before_screenshot="document.querySelectorAll('details').forEach(d => d.open = true)")
    assert not result.errors, result.errors
    layout = result.values["layout"]
    assert layout["bad"] == [] and layout["scroll"] <= layout["width"] + 1, layout
    where = os.environ.get("REDLINEBENCH_SHOTS")
    if where:
        Path(where, f"arena-{width}.png").write_bytes(result.screenshot)


def test_report_command_writes_the_arena_page(arena_dir: Path) -> None:
    from click.testing import CliRunner

    from redlinebench.cli import main

    result = CliRunner().invoke(main, ["report", str(arena_dir)])
    assert result.exit_code == 0, result.output
    assert "arena report:" in result.output and (arena_dir / "arena.html").is_file()
    assert not (arena_dir / "report.html").exists()
