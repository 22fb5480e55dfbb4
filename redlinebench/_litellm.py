"""The one door to litellm: imports it late, offline-safe, quiet."""

from __future__ import annotations

import os
import math
from types import ModuleType
from typing import Any

from . import config as _config  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before import)

# litellm copies every request's messages for its success log, walking each string for base64
# images to truncate (a fresh walk of the whole growing history on every call). We register no
# logging callbacks and send no images, so that per-call walk is pure overhead: 0 turns it off.
os.environ.setdefault("MAX_BASE64_LENGTH_FOR_LOGGING", "0")


def get_litellm() -> ModuleType:
    import warnings

    # A malformed reply (a tool call of the wrong shape) makes litellm's pydantic models warn on the
    # terminal mid-progress bar; the reply is handled (and logged) as data, so the warning is noise.
    warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
    # A call cancelled (Ctrl-C, a worker stopping) while litellm's executor step runs leaves the
    # provider coroutine that step returned unawaited; Python then prints a multi-line warning.
    warnings.filterwarnings("ignore", message=r"coroutine '\w+\.acompletion' was never awaited",
                            category=RuntimeWarning)
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.drop_params = True
    return litellm


def _count(value: Any) -> int | None:
    """A token count as a provider should send it (an int >= 0), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return int(value)


def reply_usage(response: Any) -> tuple[tuple[int, int], dict[str, str] | None]:
    """(prompt, completion) tokens of a reply, each an int >= 0, and the raw values that were not.

    A reply is hostile: a negative, fractional, boolean or non-numeric count is counted as 0, so it
    can neither show as negative tokens nor pull the totals (and the limits on them) down. Used by
    the agent and the judges alike.
    """
    usage = getattr(response, "usage", None)
    counts, bad = [], {}
    for field in ("prompt_tokens", "completion_tokens"):
        raw = getattr(usage, field, None) if usage is not None else None
        value = 0 if raw is None else _count(raw)
        if value is None:
            bad[field] = repr(raw)[:100]
            value = 0
        counts.append(value)
    return (counts[0], counts[1]), (bad or None)


def valid_cost(value: Any) -> float | None:
    """A finite dollar amount >= 0; anything else (negative, NaN, inf, a bool) is an unknown cost."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value >= 0 else None


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def cache_usage(response: Any) -> tuple[int, int]:
    """(cache-read, cache-write) input tokens of a reply, each an int >= 0 (hostile values: 0).

    OpenAI-style providers report reads as ``prompt_tokens_details.cached_tokens``; Anthropic's
    (through litellm) as ``cache_read_input_tokens`` and writes as ``cache_creation_input_tokens``.
    Both are already part of ``prompt_tokens``. A read larger than the prompt is clipped to it.
    """
    usage = getattr(response, "usage", None)
    if usage is None:
        return 0, 0
    details = _field(usage, "prompt_tokens_details")
    read = max(_count(_field(usage, "cache_read_input_tokens")) or 0, _count(_field(details, "cached_tokens")) or 0)
    write = _count(_field(usage, "cache_creation_input_tokens")) or 0
    prompt = _count(_field(usage, "prompt_tokens"))
    if prompt is not None:
        read = min(read, prompt)
        write = min(write, prompt - read)
    return read, write


def reasoning_usage(response: Any) -> int:
    """Output tokens spent reasoning (``completion_tokens_details.reasoning_tokens``: OpenAI's
    o-series and GPT-5, DeepSeek, Gemini, and Anthropic thinking as litellm counts it), an int >= 0.
    Already part of ``completion_tokens``, so priced with them."""
    details = _field(getattr(response, "usage", None), "completion_tokens_details")
    return _count(_field(details, "reasoning_tokens")) or 0


#: Providers that serve Claude with explicit cache breakpoints (``cache_control``).
_MARKER_PROVIDERS = frozenset({"anthropic", "bedrock", "bedrock_converse", "vertex_ai", "azure_ai", "openrouter"})


def cache_markers(model: str) -> list[dict[str, Any]] | None:
    """litellm ``cache_control_injection_points`` for a model whose provider caches only what is
    marked (Claude on Anthropic, Bedrock, Vertex, Azure AI, OpenRouter), else ``None``.

    Two breakpoints: the system message (its prefix is tools + system, the same every step) and
    the newest message (so the next step reads everything this one wrote). Providers that cache
    automatically (OpenAI, Gemini, DeepSeek, xAI) need no marker, only a byte-stable prefix.
    """
    provider, _, name = model.partition("/")
    if provider not in _MARKER_PROVIDERS or "claude" not in (name or provider).lower():
        return None
    return [{"location": "message", "role": "system"}, {"location": "message", "index": -1}]
