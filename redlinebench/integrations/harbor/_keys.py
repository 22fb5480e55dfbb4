"""Which provider keys a judge panel needs: passed to Harbor's verifier, checked inside it.

The export lists exactly the variables the chosen judges read (none for ``heuristic``), each as
``${VAR:-}`` so Harbor's ``resolve_env_vars`` never refuses to start a verifier because the host
lacks a key the judges do not use. Inside the container an unset host variable therefore arrives
as an empty string: :func:`missing_keys` counts an empty key as missing, so the verifier stops
with one clear line instead of paying for a run whose every judge call fails.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from unittest import mock

from ...agent.credentials import key_is_set

#: Environment names that hold credentials (hidden while asking litellm which names a model reads).
_SECRET_SUFFIXES = ("_KEY", "_TOKEN")


def _llm_judges(judges: Sequence[Any]) -> list[Any]:
    return [j for j in judges if getattr(j, "method", None) == "llm" and isinstance(getattr(j, "model", None), str)]


def key_names(model: str) -> list[str]:
    """The variables any one of which authenticates ``model`` (litellm's own table), whatever is set now."""
    from ...agent.credentials import missing_credentials

    keep = {k: v for k, v in os.environ.items() if not k.endswith(_SECRET_SUFFIXES)}
    with mock.patch.dict(os.environ, keep, clear=True):  # ask as if no key were set
        return missing_credentials([model]).get(model, [])


def judge_env_keys(judges: Sequence[Any]) -> list[str]:
    """Every variable the LLM judges of a panel may read, sorted (empty for model-free judges)."""
    names: set[str] = set()
    for judge in _llm_judges(judges):
        if getattr(judge, "api_key_env", None):
            names.add(judge.api_key_env)
        elif not getattr(judge, "api_base", None):  # an explicit endpoint gets a placeholder key
            names.update(key_names(judge.model))
    return sorted(names)


def missing_keys(judges: Sequence[Any]) -> dict[str, list[str]]:
    """``{judge name: [variables, any one would do]}`` for LLM judges with no non-empty key set."""
    out: dict[str, list[str]] = {}
    for judge in _llm_judges(judges):
        if getattr(judge, "api_base", None) or getattr(judge, "_api_key", None):
            continue
        wanted = [judge.api_key_env] if getattr(judge, "api_key_env", None) else key_names(judge.model)
        if wanted and not any(key_is_set(name) for name in wanted):
            out[str(getattr(judge, "name", judge.model))] = wanted
    return out
