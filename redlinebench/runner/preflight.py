"""Fail before spending anything: a model or judge whose provider key is missing is found up front.

Without this, a run with the default judge panel and one missing key would pay for every agent
episode and then mark every trial ``judging_incomplete``.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..agent.credentials import key_is_set, missing_credentials
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


def _judge_models(judges: Iterable[Any], judge_api_base: str | None) -> tuple[list[str], dict[str, list[str]]]:
    """The judges' model strings whose provider key is checked, and ``{model: [its api_key_env]}``
    for judges that name their own variable and find it unset (or blank)."""
    if judge_api_base:
        return [], {}
    models: list[str] = []
    own: dict[str, list[str]] = {}
    for j in judges:
        model = getattr(j, "model", None)
        if not model or getattr(j, "api_base", None) or getattr(j, "_api_key", None):
            continue
        env = getattr(j, "api_key_env", None)
        if env:
            if not key_is_set(env):
                own[model] = [env]
        else:
            models.append(model)
    return models, own


def missing_keys(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                 judge_api_base: str | None) -> dict[str, list[str]]:
    """``{model: [env vars, any one of which would do]}`` for every model and judge without a key
    (those sent to an explicit endpoint are not checked: local servers often need none). A
    variable set to nothing is a missing key (:func:`~redlinebench.agent.credentials.key_is_set`)."""
    agents, judging = _missing_split(agent_models, judges, api_base=api_base, judge_api_base=judge_api_base)
    return {**agents, **judging}


def _missing_split(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                   judge_api_base: str | None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """:func:`missing_keys` as (the models under test's, the judges')."""
    agents = [] if api_base else [m for m in agent_models if m]
    judge_models, own = _judge_models(judges, judge_api_base)
    found = missing_credentials([*agents, *judge_models])
    return ({m: k for m, k in found.items() if m in agents},
            {**{m: k for m, k in found.items() if m in judge_models}, **own})


def missing_key_message(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                        judge_api_base: str | None) -> str | None:
    """One line naming every model and judge without credentials and what to do, or None.

    ``--judges heuristic`` is suggested only when a judge lacks its key: it cannot help the
    model under test."""
    agents, judging = _missing_split(list(agent_models), list(judges), api_base=api_base,
                                     judge_api_base=judge_api_base)
    if not agents and not judging:
        return None
    parts = [f"{m} needs {' or '.join(keys)}" for m, keys in agents.items()]
    parts += [f"judge {m} needs {' or '.join(keys)}" for m, keys in judging.items() if m not in agents]
    ways = ["set them in the environment (an empty variable is no key)"]
    if judging:
        ways.append("use the offline heuristic judge (--judges heuristic; judges=\"heuristic\" in Python)")
    ways.append("skip this check if your provider authenticates another way (--skip-key-check; check_keys=False)")
    return f"missing provider credentials: {'; '.join(parts)}. To fix: {', or '.join(ways)}"


def check_credentials(agent_models: Iterable[str], judges: Iterable[Any], *, api_base: str | None,
                      judge_api_base: str | None) -> None:
    """Raise one ConfigError naming every model without credentials.

    Models sent to an explicit endpoint (``--api-base`` / ``--judge-api-base`` or a judge's own
    ``api_base``) are not checked: local servers often need no key.
    """
    message = missing_key_message(agent_models, judges, api_base=api_base, judge_api_base=judge_api_base)
    if message:
        raise ConfigError(message)
