"""Every table and the progress line readable in an 80-column terminal (rich's width and a real pty)."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from redlinebench._termtable import Col, fit_columns, fit_table
from redlinebench.runner.leaderboard import print_leaderboard
from redlinebench.runner.progress import bar_width, progress_fields
from redlinebench.runner.scheduler import Progress

from .pty_term import run_in_terminal

MODELS = ("openai/gpt-5.4-mini-2026-03-01", "accept-all", "noop")


def _summary() -> dict:
    def entry(model: str, score: float) -> dict:
        return {"model": model, "overall_turn_weighted": score, "ci": [score - 0.05, score + 0.04],
                "by_turn": {t: score for t in "1234"}, "by_side_turn_weighted": {"A": score, "B": score},
                "n_trials": 39, "n_gate_failures": 0, "n_incomplete": 0, "judge_method": "heuristic"}
    return {"judge_method": "heuristic", "grid": {"complete": True},
            "leaderboard": [entry(m, s) for m, s in zip(MODELS, (0.933, 0.398, 0.05))]}


def _terminal(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, force_terminal=True, color_system=None), out


def test_leaderboard_at_80_columns_keeps_every_model_name_and_whole_numbers():
    console, out = _terminal(80)
    print_leaderboard(_summary(), console)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    names = [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")]
    assert names == list(MODELS)  # each name whole on its line: never split, never vanished
    assert "88.3-97.3" in text and "93.3" in text and "…" not in text
    # a 30-character name and the four turns do not fit in 80 columns together: the turns give way
    note = " ".join(text.split("left out at 80 columns:")[1].split())
    assert note.startswith("T1, T2, T3, T4,") and "judge" in note


def test_leaderboard_in_a_pipe_is_drawn_whole():
    out = io.StringIO()
    print_leaderboard(_summary(), Console(file=out, width=80))
    assert "left out" not in out.getvalue() and "side A" in out.getvalue()


def test_fit_leaves_out_columns_of_one_level_together_and_never_cuts_numbers():
    cols = [Col("name", "left", shrink=True), Col("score"), Col("side A", drop=1), Col("side B", drop=1),
            Col("judge", drop=2)]
    rows = [["a-rather-long-model-name", "93.3", "91.8", "94.7", "heuristic"]]
    kept, _, widths = fit_columns(cols, rows, 45)
    assert [cols[i].name for i in kept] == ["name", "score"]
    table, hidden = fit_table(cols, rows, 45)
    assert hidden == ["side A", "side B", "judge"]
    out = io.StringIO()
    Console(file=out, width=45, color_system=None).print(table)
    assert "93.3" in out.getvalue() and max(map(len, out.getvalue().splitlines())) <= 45


@pytest.mark.parametrize("width", [80, 100, 160])
def test_progress_line_fits_and_keeps_its_numbers(width):
    state = Progress(total=1170, done=117, cost_usd=12.3456, failures=3)
    fields = progress_fields("run demo-20261202-033730-b42cc2", state, width)
    used = len(fields["label"]) + bar_width(width) + len("1170/1170") + len(" 0:01:19 ETA 0:00:40 ") + len(fields["tail"]) + 2
    assert used <= width
    assert "$12.3456" in fields["tail"] and "3 failed" in fields["tail"] or "failures 3" in fields["tail"]
    assert fields["label"].startswith("run demo")


def test_progress_line_at_80_columns_keeps_the_run_id_readable_with_the_adaptive_limit():
    """A model run shows its adaptive limit; at 80 columns `429s 0` said nothing and cut the run's
    id to `run 202…`. The count of 429s shows once there is one."""
    limits = {"http://127.0.0.1:9": {"limit": 4, "max": 4, "n_429": 0}}
    state = Progress(total=1, done=0, cost_usd=0.0, failures=1, throttle={123: limits})
    fields = progress_fields("run 20261202-111049-261e97", state, 80)
    assert fields["tail"] == "$0.0000, 1 failed, limit 4/4"
    assert len(fields["label"]) >= 15 and fields["label"].startswith("run 20261202-")
    limits["http://127.0.0.1:9"]["n_429"] = 3
    assert progress_fields("run x", state, 80)["tail"].endswith("limit 4/4, 429s 3")
    assert progress_fields("run x", state, 160)["tail"].endswith("limit 4/4, 429s 3")


def test_a_run_in_an_80x24_terminal(tmp_path):
    code, lines = run_in_terminal(["run", "--agent", "golden", "--agent", "accept-all", "--agent", "noop",
                                   "--tasks", "redline-s1-t1-g01a,redline-s1-t2-g01a", "--judges", "heuristic",
                                   "--run-dir", str(tmp_path / "narrow")], env={"HF_HUB_OFFLINE": "1"})
    assert code == 0, "\n".join(lines)
    # the run's absolute paths are printed whole on purpose (copy and paste): a line wider than the
    # terminal is one path alone; every other line fits
    assert all(len(line) <= 80 or " " not in line.strip() for line in lines), "\n".join(lines)
    frames = [line for line in lines if " ETA " in line]
    assert frames and all("…" not in f for f in frames), frames
    assert re.search(r"6/6 \d:\d\d:\d\d ETA", frames[-1]), frames[-1]
    rows = [line for line in lines if line.startswith("│ ")]
    assert {r.split("│")[1].strip() for r in rows} == {"golden", "accept-all", "noop"}
    assert any(re.search(r"│\s+\d+\.\d │\s+\d+\.\d-\d+\.\d │", r) for r in rows)
    at = next(i for i, line in enumerate(lines) if line.startswith("report:"))
    assert "report.html" in " ".join(lines[at:at + 3]) and "file:///" in " ".join(lines[at:at + 3])


def test_dry_run_plan_in_an_80x24_terminal():
    code, lines = run_in_terminal(["run", "--model", "openai/gpt-5.4-mini", "--judges", "panel", "--dry-run"],
                                  env={"HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "x"})
    assert code == 0, "\n".join(lines)
    table = [line for line in lines if line[:1] in "┏┃┡│└"]
    assert table and max(len(line) for line in table) <= 80
    assert any("anthropic/" in line for line in table)
    assert any(line.startswith("data: embedded (") for line in lines)


def test_a_model_name_in_a_table_cell_is_never_split():
    """Issue 31: `openai/|gpt-5.4-mini`, `anthropic/claude-sonnet-4-|5` in the dry run's estimate.
    A name column is never narrower than its longest name; minor columns give way first."""
    cols = [Col("role", "left"), Col("name", "left", shrink=True, min_width=14), Col("calls", drop=2),
            Col("in", drop=1), Col("out", drop=1), Col("USD"), Col("cached USD")]
    rows = [["judge", "anthropic/claude-sonnet-4-5", "39", "290,878", "32,800", "0.4549", "0.4549"],
            ["judge", "gemini/gemini-3.1-flash-lite", "39", "290,878", "32,800", "0.3658", "0.3658"],
            ["agent", "noop", "-", "0", "0", "0", "0"]]
    table, hidden = fit_table(cols, rows, 80)
    console, out = _terminal(80)
    console.print(table)
    names = [line.split("│")[2].strip() for line in out.getvalue().splitlines() if line.startswith("│")]
    assert names == ["anthropic/claude-sonnet-4-5", "gemini/gemini-3.1-flash-lite", "noop"], out.getvalue()
    assert hidden == ["calls", "in", "out"] and "0.4549" in out.getvalue()
    # a name with spaces (a compare label) wraps at its spaces, never inside the model name
    table, _ = fit_table([Col("name", "left", shrink=True, min_width=8), Col("score")],
                         [["openai/gpt-5.4-mini [run 20261204-230540-4ca2bc]", "93.3"]], 40)
    console, out = _terminal(40)
    console.print(table)
    assert "openai/gpt-5.4-mini" in out.getvalue() and "93.3" in out.getvalue()


@pytest.mark.parametrize("width", [40, 80])
def test_wrap_text_breaks_at_spaces_only(width):
    from redlinebench._termtable import wrap_text

    names = ["anthropic/claude-sonnet-4-5", "openai/gpt-5.4-mini", "gemini/gemini-3.1-flash-lite"]
    text = "warning: " + ", ".join(f"{n} needs a key, re-run with --skip-key-check" for n in names * 3)
    wrapped = wrap_text(text, width)
    assert all(len(line) <= width for line in wrapped.splitlines())
    assert wrapped.split() == text.split()  # only spaces became line ends: no word, no name split
    for name in names:
        assert any(name in line for line in wrapped.splitlines())
    assert wrap_text(text, None) == text
    assert wrap_text("  key:  " + "word " * 30, width, hang=8).splitlines()[1].startswith(" " * 8 + "word")


def _flowing(lines: list[str]) -> list[str]:
    return [line for line in lines if line.strip() and line[:1] not in "┏┃┡│└"]


def test_dry_run_messages_wrap_at_spaces_and_never_split_a_model(tmp_path):
    """Issue 31 item 8, through a real 80x24 pty: the plan, the estimate and the key warnings of a
    two-provider dry run; no line wider than 80, no model name split, no "of them cached"."""
    env = {"HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "x"}
    code, lines = run_in_terminal(["run", "--model", "openai/gpt-5.4-mini", "--model", "anthropic/claude-sonnet-4-5",
                                   "--judges", "panel", "--dry-run"], env=env, cwd=tmp_path)
    assert code == 0, "\n".join(lines)
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    text = "\n".join(lines)
    words = {w.strip(",;()") for line in lines for w in line.split()}
    for model in ("openai/gpt-5.4-mini", "anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5",
                  "gemini/gemini-3.1-flash-lite"):
        assert model in words, text  # whole on one line wherever it is printed
    assert not any(line.rstrip().endswith(("/", "-")) for line in lines), text
    assert "of them cached" not in text
    flowing = " ".join(" ".join(_flowing(lines)).split())
    assert "left out at 80 columns: calls, tokens in, cached tokens in, tokens out (a wider terminal" in flowing
    assert '"max_retries": 6, "max_output_tokens": 8192,' in flowing  # the limits: one message of 260 characters


def test_top_level_help_summaries_end_at_a_sentence_end():
    code, lines = run_in_terminal(["--help"])
    assert code == 0
    commands = lines[lines.index("Commands:") + 1:]
    entries: list[str] = []
    for line in commands:
        if not line.strip():
            continue
        if line.startswith("  ") and not line.startswith("   "):
            entries.append(line.strip())
        else:
            entries[-1] += " " + line.strip()
    assert len(entries) >= 15 and max(len(line) for line in lines) <= 80
    for entry in entries:
        assert entry.endswith(".") and "..." not in entry, entry
    assert not any(line.rstrip().endswith("-") for line in lines), "\n".join(lines)
