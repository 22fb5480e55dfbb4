"""Fail before spending anything: a model or judge whose provider key is missing is found up front.

Without this, a run with the default judge panel and one missing key would pay for every agent
episode and then mark every trial ``judging_incomplete``.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..errors import ConfigError


def missing_credentials(models: Iterable[str]) -> dict[str, list[str]]:
    """``{model: [env vars, any one of which would do]}`` for models litellm cannot authenticate."""
    from .._litellm import get_litellm

    litellm = get_litellm()
    missing: dict[str, list[str]] = {}
    for model in dict.fromkeys(models):
        try:
            report = litellm.validate_environment(model=model)
        except Exception:  # an unknown provider: litellm will say so itself, with its own message
            continue
        if not report.get("keys_in_environment", True) and report.get("missing_keys"):
            missing[model] = list(report["missing_keys"])
    return missing


def check_credentials(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                      judge_api_base: str | None) -> None:
    """Raise one ConfigError naming every model without credentials.

    Models sent to an explicit endpoint (``--api-base`` / ``--judge-api-base`` or a judge's own
    ``api_base``) are not checked: local servers often need no key.
    """
    wanted = [] if api_base else list(agent_models)
    if not judge_api_base:
        wanted += [j.model for j in judges if getattr(j, "model", None) and not getattr(j, "api_base", None)]
    missing = missing_credentials(wanted)
    if missing:
        lines = "; ".join(f"{m} needs {' or '.join(keys)}" for m, keys in missing.items())
        raise ConfigError(f"missing provider credentials: {lines}. Set them in the environment, use "
                          "--judges heuristic for an offline judge, or --skip-key-check if your provider "
                          "authenticates another way")
