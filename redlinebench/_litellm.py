"""The one door to litellm: imports it late, offline-safe, quiet."""

from __future__ import annotations

from types import ModuleType

from . import config as _config  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before import)


def get_litellm() -> ModuleType:
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.drop_params = True
    return litellm
