import pytest
from click.testing import CliRunner

from redlinebench.cli import main


def test_report_command_writes_the_page(run_dir):
    res = CliRunner().invoke(main, ["report", str(run_dir)])
    assert res.exit_code == 0, res.output
    page = (run_dir / "report.html").resolve()
    assert res.output.strip() == f"report: {page} ({page.as_uri()})"  # absolute, and a link a terminal opens
    assert "84.8" in (run_dir / "report.html").read_text()


def test_report_open_shows_the_page_in_the_default_browser(run_dir, monkeypatch):
    import webbrowser

    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    res = CliRunner().invoke(main, ["report", str(run_dir), "--open"])
    assert res.exit_code == 0, res.output
    page = (run_dir / "report.html").resolve()
    assert opened == [page.as_uri()] and page.is_file()
    assert res.output.strip() == f"report: {page} ({page.as_uri()})"


@pytest.mark.parametrize("browser", ["none", "error"])
def test_report_open_without_a_browser_says_so_and_gives_the_address(run_dir, tmp_path, monkeypatch, browser):
    import webbrowser

    def no_browser(url, *a, **k):
        if browser == "error":
            raise webbrowser.Error("could not locate runnable browser")
        return False

    monkeypatch.setattr(webbrowser, "open", no_browser)
    out = tmp_path / "elsewhere" / "page.html"
    res = CliRunner().invoke(main, ["report", str(run_dir), "-o", str(out), "--open"])
    assert res.exit_code == 0, res.output
    page = out.resolve()
    assert res.output.splitlines() == [f"report: {page} ({page.as_uri()})",
                                       f"no web browser found here; open {page.as_uri()} in one (or copy {page} "
                                       "to a machine that has one)"]


def test_compare_command(run_dir, run_b, tmp_path):
    out = tmp_path / "cmp.html"
    res = CliRunner().invoke(main, ["compare", str(run_dir), str(run_b), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert out.is_file() and "google/gemini-3.5-flash" in out.read_text() and "85.8" in out.read_text()


def test_compare_prints_the_page_whole_and_can_open_it(run_dir, run_b, tmp_path, monkeypatch):
    """The default `compare.html` goes beside the runs (it was written into the working folder); the
    line says where it is and how to open it, as `report` does, and a second one says it replaced it."""
    import webbrowser

    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    res = CliRunner().invoke(main, ["compare", str(run_dir), str(run_b), "--open"])
    assert res.exit_code == 0, res.output
    page = (run_dir.parent / "compare.html").resolve()
    assert res.output.strip() == f"comparison: {page} ({page.as_uri()})"
    assert opened == [page.as_uri()] and list(here.iterdir()) == []
    res = CliRunner().invoke(main, ["compare", str(run_dir), str(run_b)])
    assert res.output.strip().endswith("(replaced the previous one)")


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
