from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.tasks.treefactory import build_tree


@pytest.fixture(scope="session")
def template_tree(tmp_path_factory) -> Path:
    """The default 14-task tree, built once; tests copy it before changing anything."""
    return build_tree(tmp_path_factory.mktemp("template") / "bench")


@pytest.fixture
def tree(template_tree: Path, tmp_path: Path) -> Path:
    """A private copy of the default tree."""
    target = tmp_path / "bench"
    shutil.copytree(template_tree, target)
    return target
