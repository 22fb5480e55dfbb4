"""The ``fake_hub`` pytest fixture: a started :class:`FakeHub` that ``huggingface_hub`` talks to.

Kept apart from :mod:`tests.fakes.hub_server` so the server itself imports no pytest (the
integration benchmark uses it from an install without the test tooling).
"""

from __future__ import annotations

import sys
from typing import Iterator

import pytest

from tests.fakes.hub_server import FakeHub


# ---------------------------------------------------------------------- pointing the library
def point_hub_at(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Make ``huggingface_hub`` (and ``datasets``, if imported) talk to ``url`` for this test."""
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "0")
    from huggingface_hub import constants, hf_api

    monkeypatch.setattr(constants, "ENDPOINT", url)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_api.api, "endpoint", url)
    ds_config = sys.modules.get("datasets.config")
    if ds_config is not None:
        monkeypatch.setattr(ds_config, "HF_ENDPOINT", url)
        monkeypatch.setattr(ds_config, "HUB_DATASETS_URL", url + "/datasets/{repo_id}/resolve/{revision}/{path}")
        monkeypatch.setattr(ds_config, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(ds_config, "HF_DATASETS_OFFLINE", False)


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """A started :class:`FakeHub` that ``huggingface_hub`` points at for the test's duration."""
    hub = FakeHub().start()
    point_hub_at(monkeypatch, hub.url)
    try:
        yield hub
    finally:
        hub.stop()


__all__ = ["fake_hub", "point_hub_at"]
