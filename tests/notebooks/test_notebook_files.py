"""The notebooks as files: valid nbformat 4.5 (every cell has its own id; notebook 03 had cells without)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_has_a_unique_id_and_the_notebook_validates(path):
    import nbformat

    data = json.loads(path.read_text(encoding="utf-8"))
    ids = [cell.get("id") for cell in data["cells"]]
    assert all(ids) and len(set(ids)) == len(ids), ids
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))


def test_the_first_notebooks_source_line_names_the_set_once():
    """Notebook 01 printed "the embedded synthetic set (embedded synthetic set (no local tree ...))"."""
    from redlinebench.tasks import resolve_source

    text = resolve_source("embedded").describe()
    assert text.count("synthetic set") == 1 and text == "the embedded synthetic set (asked for explicitly)"
