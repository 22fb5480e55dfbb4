"""docs/INTEGRATIONS.md says what the code does (each check pins one statement of the page)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "INTEGRATIONS.md"


def _pip_installs(text: str) -> list[str]:
    return [m.group(0) for m in re.finditer(r"pip install[^\n`]*", text)]


def test_installs_come_from_a_checkout_as_in_the_readme():
    """redlinebench is not on PyPI: `pip install "redlinebench[inspect]"` cannot work."""
    readme = _pip_installs((ROOT / "README.md").read_text(encoding="utf-8"))
    assert 'pip install ".[dev]" && python -m pytest' in readme  # the README's own phrasing
    doc = DOC.read_text(encoding="utf-8")
    installs = _pip_installs(doc)
    assert 'pip install ".[inspect]"' in installs and 'pip install ".[lighteval]"' in installs
    from_index = [line for line in installs if re.search(r"pip install\s+[\"']?redlinebench", line)]
    assert from_index == []


def test_the_exported_task_toml_keeps_the_tasks_timeouts_as_documented():
    doc = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "`[agent] timeout_sec` and `[verifier] timeout_sec` are the task's when it sets them" in doc
    assert "1800 s each only when it does not" in doc


def test_the_default_inspect_output_dir_is_documented():
    doc = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "The default `output_dir` is a fresh `inspect-outputs/<random 12-hex id>/` in the redlinebench cache" in doc
    for where in ("`$REDLINEBENCH_CACHE`", "`~/.cache/redlinebench`", "`-T output_dir=DIR`",
                  '`redlinebench(output_dir="DIR")`'):
        assert where in doc


def test_no_message_of_the_package_names_an_install_from_pypi():
    """`pip install 'redlinebench[lighteval]'` was printed by the lighteval and Inspect tasks."""
    from redlinebench.errors import install_hint

    hits = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in sorted((ROOT / "redlinebench").rglob("*.py"))
            for m in re.finditer(r"pip install\s+[\"']?redlinebench\[[^\n]*", p.read_text(encoding="utf-8"))]
    assert hits == []
    assert install_hint("lighteval") == 'pip install ".[lighteval]" in the redlinebench checkout'
