"""Which provider keys a litellm model string needs: from ``configs/providers.yaml`` for the
common providers, else from litellm's own table."""

from __future__ import annotations

import os
from typing import Iterable
from unittest import mock

#: Sent to an explicit endpoint (``--api-base``, ``--judge-api-base``) when the model's provider key
#: is not set: local OpenAI-compatible servers rarely check keys, but the client refuses to send a
#: request without one. A real endpoint answers 401, which is reported, not retried.
PLACEHOLDER_KEY = "no-key-set"


def key_is_set(name: str) -> bool:
    """Whether the environment variable ``name`` holds a key: set and not blank.

    The one rule for every check (run, ``--dry-run``, judges, ``verify``): ``OPENAI_API_KEY=`` is a
    missing key, not a key. litellm would send the empty string and the provider answer "missing
    credentials", after retries, for every trial."""
    return bool(os.environ.get(name, "").strip())


def needs_placeholder_key(model: str) -> bool:
    """Whether ``model`` has no provider key in the environment (so an explicit endpoint gets
    :data:`PLACEHOLDER_KEY`)."""
    return bool(missing_credentials([model]))


def endpoint_params(model: str, api_base: str | None) -> dict[str, str]:
    """The ``api_base`` / ``api_key`` keyword arguments of a litellm call to ``model`` as the
    built-in agent sends them: with an explicit endpoint and no provider key set, the placeholder
    key (the client refuses to send a request without one). For plugin agents:
    ``litellm.acompletion(model=..., messages=..., **endpoint_params(model, api_base))``."""
    if not api_base:
        return {}
    return {"api_base": api_base, **({"api_key": PLACEHOLDER_KEY} if needs_placeholder_key(model) else {})}


def env_key_hint(model: str, *, placeholder_sent: bool = False) -> str:
    """What to set so ``model`` authenticates, in words (names the variables, never a value)."""
    missing = missing_credentials([model]).get(model, [])
    if placeholder_sent:
        wanted = " or ".join(missing) if missing else "the provider's key variable"
        return f"no key was set, so the placeholder key was sent; set {wanted} in the environment"
    if missing:
        return f"set {' or '.join(missing)} in the environment"
    return "the key in the environment was rejected; check it"


def is_auth_failure(exc: BaseException, *, key_missing: bool = False) -> bool:
    """A missing or rejected credential, by the shared policy (401/403, or no key available)."""
    from .._retry import classify

    return classify(exc, key_missing=key_missing) == "auth"


def missing_credentials(models: Iterable[str]) -> dict[str, list[str]]:
    """``{model: [env vars, any one of which would do]}`` for models litellm cannot authenticate.

    Common providers (``configs/providers.yaml``) are answered from the environment alone, so a
    missing key is reported without importing litellm (seconds); any other model asks litellm."""
    from .providers import key_vars

    missing: dict[str, list[str]] = {}
    ask: list[str] = []
    for model in dict.fromkeys(models):
        keys = key_vars(model)
        if keys is None:
            ask.append(model)
        elif not any(key_is_set(k) for k in keys):
            missing[model] = keys
    if not ask:
        return missing
    from .._litellm import get_litellm

    litellm = get_litellm()
    filled = {k: v for k, v in os.environ.items() if v.strip()}
    for model in ask:
        try:  # asked without the blank variables: litellm counts a set one as a key, even empty
            with mock.patch.dict(os.environ, filled, clear=True):
                report = litellm.validate_environment(model=model)
        except Exception:  # an unknown provider: litellm will say so itself, with its own message
            continue
        if not report.get("keys_in_environment", True) and report.get("missing_keys"):
            missing[model] = list(report["missing_keys"])
    return {m: missing[m] for m in dict.fromkeys(models) if m in missing}
