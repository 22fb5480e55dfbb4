"""Fail before spending anything: a model or judge whose provider key is missing is found up front.

Without this, a run with the default judge panel and one missing key would pay for every agent
episode and then mark every trial ``judging_incomplete``.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..agent.credentials import missing_credentials
from ..errors import ConfigError


def check_routable(models: Iterable[tuple[str, str | None]]) -> None:
    """Raise one ConfigError naming every (model, endpoint) litellm cannot route to a provider.

    A typo ("gpt4o-mini" without a provider, "nonsense_judge") would otherwise surface only at
    its first call: for a judge, after every agent episode has been paid for. The endpoint is
    passed as the call will pass it: litellm tells some providers by their URL. What can be told
    without importing litellm is (a near-miss of a provider or model, with a suggestion; a
    common provider's prefix); the rest asks litellm.
    """
    from ..agent.providers import key_vars, unroutable

    wanted = list(dict.fromkeys((m, b) for m, b in models if m))
    typos = [f"{m!r}: {why}" for m, b in wanted if (why := unroutable(m, b))]
    if typos:  # told without litellm (whose import costs seconds), with the string meant
        raise ConfigError(f"litellm cannot route {'; '.join(typos)}")
    ask = [(m, b) for m, b in wanted if key_vars(m) is None]  # a listed provider prefix routes
    if not ask:
        return
    from .._litellm import get_litellm

    litellm = get_litellm()
    bad = []
    for model, api_base in ask:
        try:
            litellm.get_llm_provider(model=model, api_base=api_base)
        except Exception:  # noqa: BLE001  litellm's message is long; ours says what to do
            bad.append(model)
    if bad:
        raise ConfigError(f"litellm cannot tell the provider of {', '.join(repr(b) for b in bad)}; write model "
                          "strings as provider/model (e.g. openai/gpt-5.4-mini, hosted_vllm/NAME for a local "
                          "OpenAI-compatible server)")


def missing_keys(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                 judge_api_base: str | None) -> dict[str, list[str]]:
    """``{model: [env vars, any one of which would do]}`` for every model and judge without a key
    (those sent to an explicit endpoint are not checked: local servers often need none)."""
    wanted = [] if api_base else [m for m in agent_models if m]
    if not judge_api_base:
        wanted += [j.model for j in judges if getattr(j, "model", None) and not getattr(j, "api_base", None)]
    return missing_credentials(wanted)


def check_credentials(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                      judge_api_base: str | None) -> None:
    """Raise one ConfigError naming every model without credentials.

    Models sent to an explicit endpoint (``--api-base`` / ``--judge-api-base`` or a judge's own
    ``api_base``) are not checked: local servers often need no key.
    """
    missing = missing_keys(agent_models, judges, api_base=api_base, judge_api_base=judge_api_base)
    if missing:
        lines = "; ".join(f"{m} needs {' or '.join(keys)}" for m, keys in missing.items())
        raise ConfigError(f"missing provider credentials: {lines}. Set them in the environment, use the "
                          "offline heuristic judge (--judges heuristic; judges=\"heuristic\" in Python), or skip "
                          "this check if your provider authenticates another way (--skip-key-check; "
                          "check_keys=False)")
