"""The committed ``eval.yaml`` and ``dataset_card.md`` must equal what the data generates."""

from __future__ import annotations

from pathlib import Path

import pytest

from redlinebench import config
from redlinebench.dataset import render_card, render_eval_yaml
from redlinebench.tasks import load_tasks
from tests.tasks.treefactory import build_tree

REPO = Path(__file__).resolve().parents[2]


def test_eval_yaml_is_current() -> None:
    committed = (REPO / "eval.yaml").read_text(encoding="utf-8")
    assert committed == render_eval_yaml(), "eval.yaml is stale: run `redlinebench dataset eval-yaml`"


def _card_source(tmp_path: Path) -> tuple[Path | str, str]:
    """The embedded set once it is built; until then the test fixture tree."""
    if (config.embedded_benchmark_dir() / "tasks").is_dir():
        return "embedded", "redlinebench dataset card --source embedded"
    root = build_tree(tmp_path / "fixture")
    return root, "python -m tests.tasks.treefactory /tmp/fixture && redlinebench dataset card --source /tmp/fixture"


def test_dataset_card_is_current(tmp_path: Path) -> None:
    source, command = _card_source(tmp_path)
    committed = (REPO / "dataset_card.md").read_text(encoding="utf-8")
    expected = render_card(load_tasks(source))
    if committed != expected:
        pytest.fail(f"dataset_card.md is stale; regenerate it with: {command}")


def test_card_reports_counts_from_the_data(tree: Path) -> None:
    card = render_card(load_tasks(tree))
    assert "**14 tasks** in 12 input groups over 12 scenario x turn cells, 84 rubrics (6-6 per task)" in card
    assert "| 2. Customer-led SaaS MSA | 1 (B) | 1 (A) | 2 (B) | 1 (A) | 5 |" in card
    assert "| **All** | 4 | 3 | 4 | 3 | 14 |" in card
    assert "(accept-and-close turns): `redline-s2-t4-g01a`." in card
    # one penalty rubric per task: 14 of 84
    assert "of which 14 (16.7 %) are penalty rubrics" in card
