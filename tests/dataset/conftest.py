from tests.tasks.conftest import template_tree, tree  # noqa: F401  (shared fixture trees)

import datasets
import pytest


@pytest.fixture(autouse=True)
def _private_datasets_cache(tmp_path, monkeypatch):
    """``datasets`` reads HF_DATASETS_CACHE once at import: point its module constant at tmp."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-datasets-cache")
