from click.testing import CliRunner

from redlinebench.cli import main


def test_report_command_writes_the_page(run_dir):
    res = CliRunner().invoke(main, ["report", str(run_dir)])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == f"report: {run_dir / 'report.html'}"
    assert "84.8" in (run_dir / "report.html").read_text()


def test_compare_command(run_dir, run_b, tmp_path):
    out = tmp_path / "cmp.html"
    res = CliRunner().invoke(main, ["compare", str(run_dir), str(run_b), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.is_file() and "google/gemini-3.5-flash" in out.read_text() and "85.8" in out.read_text()


def test_user_errors_are_one_line(tmp_path):
    res = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert res.exit_code == 1
    assert res.output.strip().splitlines() == [f"error: {tmp_path}: not a run directory: no trials/ folder and no "
                                               "metrics_summary.json"]
    res = CliRunner().invoke(main, ["compare"])
    assert res.exit_code == 2 and "Missing argument" in res.output


def test_report_pack_option(run_dir, tmp_path):
    res = CliRunner().invoke(main, ["report", str(run_dir), "--pack", "-o", str(tmp_path / "p.html")])
    assert res.exit_code == 0, res.output
    assert 'class="packed"' in (tmp_path / "p.html").read_text()
    res = CliRunner().invoke(main, ["report", str(run_dir), "-o", str(tmp_path / "u.html")])
    assert 'class="packed"' not in (tmp_path / "u.html").read_text()  # small run: auto leaves it plain
