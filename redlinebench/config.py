"""Every environment variable the package reads, in one place.

Importing this module also sets the defaults that keep imports offline-safe (litellm must
not fetch its model-cost map from the network at import time).
"""

from __future__ import annotations

import os
from pathlib import Path

# litellm fetches a remote model cost map at import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# litellm telemetry / callbacks off by default.
os.environ.setdefault("LITELLM_TELEMETRY", "False")

#: The public dataset and the revision our results are pinned to (SPEC §1).
HUB_DATASET_ID = "crosbylegal/RedlineBench"
HUB_DATASET_REVISION = "eee1b6790982ed1279e86bec7616b662a61993e6"


def benchmark_dir_env() -> Path | None:
    """``$REDLINEBENCH_BENCHMARK_DIR``: an explicit task tree for every command."""
    value = os.environ.get("REDLINEBENCH_BENCHMARK_DIR")
    return Path(value).expanduser() if value else None


def cache_dir() -> Path:
    """Where datasets, judge verdicts and Hub snapshots are cached."""
    value = os.environ.get("REDLINEBENCH_CACHE")
    if value:
        return Path(value).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "redlinebench"


def hub_offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` asks for no Hub traffic."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def require_external_tools() -> bool:
    """In CI, tests that drive LibreOffice / Chromium must fail, not skip, when those are missing."""
    return os.environ.get("REDLINEBENCH_REQUIRE_EXTERNAL", "").strip() in {"1", "true", "yes"}


def embedded_benchmark_dir() -> Path:
    """The synthetic benchmark shipped inside the package (built by ``redlinebench data build-synthetic``)."""
    return Path(__file__).parent / "_data" / "benchmark"


def packaged_configs_dir() -> Path:
    """Judge panels, the judge price table and run presets, shipped inside the package as package data
    (a top-level ``configs/`` would be left out of the wheel, and installs would silently lose them)."""
    return Path(__file__).parent / "configs"


def config_search_dirs(kind: str) -> list[Path]:
    """Where a named judge panel or preset (``kind``: ``"judges"`` or ``"presets"``) is looked up, in
    order: ``./configs/<kind>/`` of the working directory (the user's own), then the shipped copies."""
    return [Path.cwd() / "configs" / kind, packaged_configs_dir() / kind]


def retry_base_delay() -> float:
    """``$REDLINEBENCH_RETRY_BASE_DELAY``: first backoff step in seconds for judge/model retries (tests: 0)."""
    value = os.environ.get("REDLINEBENCH_RETRY_BASE_DELAY", "").strip()
    try:
        return max(0.0, float(value)) if value else 1.0
    except ValueError:
        return 1.0
