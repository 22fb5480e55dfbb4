"""Per-run judge audit log (JSONL): one line per judge call, never an API key."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

from .._text import encodable

# Things that look like credentials: provider keys, bearer tokens, key=... pairs.
_SECRET_PATTERNS = [
    re.compile(r"\b(sk|pk|rk|hf|gsk|xai|AIza)[-_A-Za-z0-9]{8,}"),
    re.compile(r"(://)[^/\s:@]+:[^/\s@]+@"),                       # user:password@ in a URL
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|x-api-key|authorization|token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{4,}"),
]
_KEY_ENV_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")


def _known_secrets() -> list[str]:
    return [v for k, v in os.environ.items() if k.endswith(_KEY_ENV_SUFFIXES) and len(v) >= 6]


def redact(text: str | None, extra_secrets: list[str] | None = None) -> str | None:
    """Remove anything that looks like a credential from free text (error messages, replies)."""
    if text is None:
        return None
    for secret in [*(extra_secrets or []), *_known_secrets()]:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = _SECRET_PATTERNS[0].sub("[redacted]", text)
    text = _SECRET_PATTERNS[1].sub(lambda m: m.group(1) + "[redacted]@", text)
    for pattern in _SECRET_PATTERNS[2:]:
        text = pattern.sub(lambda m: m.group(1) + "[redacted]", text)
    return text


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {k: _scrub(v, secrets) for k, v in value.items()
                if str(k).lower() not in {"api_key", "authorization", "headers"}}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    return value


class AuditLog:
    """Appends JSON lines under a lock; every string passes through :func:`redact`."""

    def __init__(self, path: str | Path, *, secrets: list[str] | None = None) -> None:
        self.path = Path(path)
        self._secrets = [s for s in (secrets or []) if s]
        self._lock = threading.Lock()

    def add_secret(self, secret: str | None) -> None:
        if secret and secret not in self._secrets:
            self._secrets.append(secret)

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps({"ts": round(time.time(), 3), **_scrub(record, self._secrets)},
                          ensure_ascii=False, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(encodable(line) + "\n")
