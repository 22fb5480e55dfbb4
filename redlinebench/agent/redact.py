"""Keep credentials out of everything a run writes.

Provider error messages sometimes echo the key they were given; transcripts, metrics and
error strings pass through :func:`redact` so a run directory can be shared as is. Secrets are
the values of environment variables whose names look like credentials, plus any registered
explicitly (e.g. a key given on the command line).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
_MIN_LEN = 8  # shorter values would redact ordinary words
_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on (no-op for empty or very short values)."""
    if value and len(value) >= _MIN_LEN:
        _registered.add(value)


@lru_cache(maxsize=16)
def _pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    if not secrets:
        return None
    return re.compile("|".join(re.escape(s) for s in sorted(secrets, key=len, reverse=True)))


def _secrets() -> tuple[str, ...]:
    found = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and v and len(v) >= _MIN_LEN}
    # Flags like "True"/"False" in variables such as LITELLM_LOCAL_MODEL_COST_MAP are not secrets
    # (they are short); long booleans or paths would be harmless to redact anyway.
    return tuple(sorted(found | _registered))


def redact(text: str) -> str:
    """Replace every known secret in ``text`` by ``[redacted]``."""
    return Redactor()(text)


class Redactor:
    """:func:`redact` with the secrets looked up once (a transcript writes many lines)."""

    def __init__(self) -> None:
        self._pattern = _pattern(_secrets())

    def __call__(self, text: str) -> str:
        return self._pattern.sub("[redacted]", text) if self._pattern is not None else text
