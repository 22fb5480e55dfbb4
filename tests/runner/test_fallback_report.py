"""The minimal report used when redlinebench.report is missing or fails: self-contained and escaped."""

from __future__ import annotations

from redlinebench.runner import api
from redlinebench.runner.fallback_report import write_minimal_report
from redlinebench.runner.paths import RunLayout


def test_minimal_report_lists_models_scores_and_errors_escaped(tmp_path):
    summary = {"judge_method": "heuristic", "leaderboard": [
        {"model": "<script>x</script>", "overall_turn_weighted": 0.6365, "ci": [0.5, 0.7], "n_trials": 3,
         "n_gate_failures": 1, "by_turn": {"1": 0.5}}],
        "run": {"errors": [{"model": "m", "task_id": "t", "trial": 1, "error": "boom & <bad>"}]}}
    config = {"spec": {"run_id": "r1"}, "data": {"kind": "embedded", "n_tasks": 3, "fingerprint": "abc"},
              "judges": {"spec": "heuristic"}}
    page = write_minimal_report(tmp_path, summary, config).read_text()
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert "63.6" in page and "50.0 - 70.0" in page and "boom &amp; &lt;bad&gt;" in page
    assert "http" not in page.replace("http-equiv", "")  # nothing fetched from the network


def test_a_failing_rich_report_falls_back_to_the_minimal_page(tmp_path, monkeypatch, capsys):
    import redlinebench.report as report

    def broken(run_dir, **options):
        raise RuntimeError("chart library exploded")

    monkeypatch.setattr(report, "write_run_report", broken)
    out = api.write_report(RunLayout(tmp_path), {"leaderboard": []}, {"spec": {"run_id": "r"}})
    assert out == tmp_path / "report.html" and "not scored" in out.read_text()
    assert "chart library exploded" in capsys.readouterr().err
