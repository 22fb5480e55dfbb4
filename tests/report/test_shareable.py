"""Pages meant to be shared name no absolute local path (issue 18 item 3)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from redlinebench.config import embedded_benchmark_dir
from redlinebench.report import write_comparison, write_run_report

from redlinebench.report._paths import Shareable


def _local_paths(html: str, *roots: Path) -> list[str]:
    found = [str(r) for r in roots if str(r) in html]
    home = os.path.expanduser("~")
    return found + ([home] if home not in ("/", "~") and home + "/" in html else [])


def test_report_and_comparison_name_no_local_path(run_dir: Path, run_b: Path, tmp_path: Path):
    # a broken file makes a problem message that names the file; an errored trial's message names a path
    (run_dir / "trials").joinpath(next(p.name for p in (run_dir / "trials").iterdir()), "redline-s1-t1-g01a", "1",
                                  "grade.json").write_text("{", encoding="utf-8")
    bad = run_dir / "trials" / "x" / "redline-s1-t2-g01a" / "1"
    bad.mkdir(parents=True)
    (bad / "metrics.json").write_text(json.dumps({"model": "x", "status": "errored",
                                                  "error": f"cannot open {tmp_path}/secret/home/file.docx"}), encoding="utf-8")
    next(run_dir.glob("trials/*/redline-s2-t1-g02b/1/redline.docx")).write_bytes(b"PK\x03\x04 not a zip")
    page = write_run_report(run_dir).read_text(encoding="utf-8")
    assert _local_paths(page, tmp_path, tmp_path.resolve()) == []
    assert "could not be displayed" in page                   # the broken redline is reported, by file name
    assert "…/home/file.docx" in page and "trials/" in page   # the message still says which file
    compare = write_comparison([run_dir, run_b], tmp_path / "c.html").read_text(encoding="utf-8")
    assert _local_paths(compare, tmp_path, tmp_path.resolve()) == []


def test_embedded_source_is_named_embedded_and_still_found(run_dir: Path):
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    embedded = embedded_benchmark_dir()
    config["source"] = {"kind": "embedded", "path": str(embedded), "revision": None}
    config["spec"] = {"source": str(embedded)}
    (run_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
    page = write_run_report(run_dir).read_text(encoding="utf-8")
    assert str(embedded) not in page and str(embedded.resolve()) not in page
    assert "tasks: embedded" in page and "embedded embedded" not in page


def test_relative_source_is_read_from_the_run_directory(run_dir: Path, bench: Path):
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    config["source"]["path"] = os.path.relpath(bench, run_dir)   # what a portable config.json records
    (run_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
    page = write_run_report(run_dir).read_text(encoding="utf-8")
    assert page.count("is not available on this machine") == 1   # only the task without a golden (s3-t4)


def test_shareable_rewrites_only_local_paths(tmp_path: Path):
    share = Shareable(tmp_path / "run")
    assert share(f"{tmp_path}/run/trials/m/t/1/grade.json: bad") == "trials/m/t/1/grade.json: bad"
    assert share(str(tmp_path / "run")) == "."
    assert share(f"{tmp_path}/run-2/x") == "…/run-2/x"                     # a sibling is not the run
    assert share("see https://example.com/a/b/c, and/or 1/2") == "see https://example.com/a/b/c, and/or 1/2"
    assert share(r"C:\Users\alice\bench\tasks") == "…/bench/tasks"
    assert share({"a": [f"{embedded_benchmark_dir()}/tasks"]}) == {"a": ["embedded/tasks"]}



def test_the_minimal_fallback_page_names_no_local_path(tmp_path: Path):
    from redlinebench.runner.fallback_report import write_minimal_report

    config = {"spec": {"run_id": "r1"}, "data": {"kind": "path", "path": str(tmp_path / "private" / "bench")}}
    page = write_minimal_report(tmp_path, {"leaderboard": []}, config).read_text(encoding="utf-8")
    assert str(tmp_path) not in page and "…/bench" in page


def test_a_run_given_by_a_relative_path_names_its_files_from_the_run(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    share = Shareable(Path("runs/x"))
    assert share("runs/x/trials/m/t/1/grade.json: bad") == "trials/m/t/1/grade.json: bad"
    assert share(f"{tmp_path}/runs/x/config.json") == "config.json"
    assert share("other-runs/x/y") == "other-runs/x/y"


def test_transcripts_lose_this_machines_paths_but_keep_the_contracts(run_dir: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))          # the cache below lives in the user's home folder
    transcript = next(run_dir.glob("trials/*/redline-s1-t1-g01a/1/transcript.jsonl"))
    with transcript.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"t": 7.0, "type": "retry", "step": 4, "attempt": 2, "delay_s": 1.0,
                             "error": f"APIError: cache at {tmp_path}/cache/x.json; clause quotes /Schedule/A/1"}) + "\n")
    page = write_run_report(run_dir, pack=False).read_text(encoding="utf-8")
    assert str(tmp_path) not in page and "~/cache/x.json" in page and "/Schedule/A/1" in page
