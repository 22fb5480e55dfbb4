"""Token cost of judge calls: litellm's price map first, then our fallback table.

The fallback (``configs/judges/prices.yaml``, shipped in the package) covers models litellm does
not know, so a judge's cost is never silently reported as 0; with no price anywhere the cost is
``None`` (unknown), and summaries say so.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import yaml

from .. import config
from .._litellm import get_litellm

log = logging.getLogger(__name__)

#: The judge configs shipped with the package (panels and the price table).
CONFIG_DIR = config.packaged_configs_dir() / "judges"


@functools.lru_cache(maxsize=1)
def fallback_prices() -> dict[str, dict[str, float]]:
    """``{model: {"input": $/1M tokens, "output": $/1M tokens}}``, with an optional ``default`` entry."""
    path = CONFIG_DIR / "prices.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        # costs then come from litellm alone (unknown models: None); say why rather than hide it
        log.warning("judge price table unusable (%s): %s", path, exc)
        return {}
    prices = data.get("prices", {}) if isinstance(data, dict) else {}
    out = {}
    for model, entry in prices.items():
        if isinstance(entry, dict) and all(isinstance(entry.get(k), (int, float)) for k in ("input", "output")):
            out[str(model)] = {"input": float(entry["input"]), "output": float(entry["output"])}
    return out


def _bare(model: str) -> str:
    return model.split("/", 1)[1] if "/" in model else model


def call_cost(model: str, response: Any, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Dollar cost of one response; ``None`` when neither litellm nor the fallback table knows the model."""
    hidden = getattr(response, "_hidden_params", None)
    known = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if isinstance(known, (int, float)) and known > 0:
        return float(known)  # litellm already priced this response
    litellm = get_litellm()
    if model in litellm.model_cost or _bare(model) in litellm.model_cost:
        try:
            cost = litellm.completion_cost(completion_response=response, model=model)
            if cost is not None and cost > 0:
                return float(cost)
        except Exception:  # noqa: BLE001  litellm raises many kinds for unmapped models
            pass
    table = fallback_prices()
    entry = table.get(model) or table.get(_bare(model)) or table.get("default")
    if entry is None:
        return None
    return (prompt_tokens * entry["input"] + completion_tokens * entry["output"]) / 1_000_000
