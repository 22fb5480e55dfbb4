"""The one door to litellm: imports it late, offline-safe, quiet."""

from __future__ import annotations

import os
from types import ModuleType

from . import config as _config  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before import)

# litellm copies every request's messages for its success log, walking each string for base64
# images to truncate (a fresh walk of the whole growing history on every call). We register no
# logging callbacks and send no images, so that per-call walk is pure overhead: 0 turns it off.
os.environ.setdefault("MAX_BASE64_LENGTH_FOR_LOGGING", "0")


def get_litellm() -> ModuleType:
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.drop_params = True
    return litellm
