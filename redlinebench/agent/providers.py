"""What a litellm model string means, as far as it can be told without importing litellm.

Importing litellm costs seconds of CPU, and a typo in ``--model`` or a missing key should be
reported before that. The facts are data (``configs/providers.yaml``: the provider prefixes
litellm routes, the key variables of the common ones) plus litellm's own model table, read as a
file. Every answer here is either sure or ``None``: when in doubt, the caller asks litellm.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

from ..config import packaged_configs_dir

#: How alike a typo and what it meant must be (difflib's ratio): opnai/openai 0.91, gpt4o/gpt-4o 0.91.
_CUTOFF = 0.8


@functools.lru_cache(maxsize=1)
def _facts() -> dict[str, Any]:
    import yaml

    data = yaml.safe_load((packaged_configs_dir() / "providers.yaml").read_text(encoding="utf-8"))
    return {"keys": {str(k): [str(v) for v in vs] for k, vs in data["keys"].items()},
            "providers": frozenset(str(p) for p in data["providers"])}


@functools.lru_cache(maxsize=1)
def _model_table() -> dict[str, Any]:
    """litellm's model table (the copy it ships and reads offline), found without importing it;
    empty when it is not where litellm keeps it."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return {}
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "model_prices_and_context_window_backup.json"
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return table if isinstance(table, dict) else {}
    return {}


def key_vars(model: str) -> list[str] | None:
    """The variables any one of which authenticates ``provider/...`` (as litellm reads them), for
    the providers listed in ``configs/providers.yaml``; ``None`` for any other model string."""
    provider, slash, _ = model.partition("/")
    return list(_facts()["keys"].get(provider, [])) or None if slash else None


def unroutable(model: str, api_base: str | None = None) -> str | None:
    """Why litellm surely cannot route ``model``, with the string it likely meant ("no provider
    'opnai'; did you mean openai/gpt-4o?"), or ``None``: routable, or not sure (litellm decides).

    Sure means: no endpoint given (litellm tells some providers by their URL), the string is not
    in litellm's model table, its prefix is no provider litellm knows, and a near one is.
    """
    if api_base or not model or model in _model_table():
        return None
    provider, slash, name = model.partition("/")
    if slash:
        if provider in _facts()["providers"] or not name:
            return None
        near = difflib.get_close_matches(provider, sorted(_facts()["providers"]), n=1, cutoff=_CUTOFF)
        return f"no provider {provider!r} in litellm; did you mean {near[0]}/{name}?" if near else None
    if model.startswith("ft:"):  # fine-tuned OpenAI ids: litellm routes them by their shape
        return None
    bare = [k for k in _model_table() if "/" not in k]
    near = difflib.get_close_matches(model, bare, n=1, cutoff=_CUTOFF)
    if not near:
        return None
    owner = _model_table()[near[0]].get("litellm_provider") if isinstance(_model_table()[near[0]], dict) else None
    meant = f"{owner}/{near[0]}" if isinstance(owner, str) and owner in _facts()["providers"] else near[0]
    return f"no provider named and no such model in litellm's table; did you mean {meant}?"
