"""On-disk verdict cache: re-scoring an unchanged run costs nothing and gives the same verdicts.

Keyed by a hash of (model, messages, prompt version). Only parsed answers are stored; an
unreadable or corrupt entry is treated as a miss, never as an error.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .. import config
from .._atomic import atomic_write_json
from .._text import encodable


def cache_key(model: str, messages: list[dict[str, str]], prompt_version: str, *,
              endpoint: str | None = None) -> str:
    """What a verdict depends on. ``endpoint`` (an explicit api_base) is part of it: the same
    model name on two local servers can be two different models. (A provider's default endpoint
    is left out, so keys made before this existed still hit.)"""
    fields: dict[str, Any] = {"model": model, "messages": messages, "prompt_version": prompt_version}
    if endpoint:
        fields["endpoint"] = endpoint.rstrip("/")
    blob = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encodable(blob).encode("utf-8")).hexdigest()


class JudgeCache:
    """Files ``<root>/<k[:2]>/<k>.json``; default root ``cache_dir()/judge``."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else config.cache_dir() / "judge"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and isinstance(data.get("verdicts"), dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        try:
            atomic_write_json(path, value, indent=None)
        except OSError:
            return  # a cache that cannot be written only costs money, never a grade
