"""A small TOML writer for the task.toml files we emit (Python has a reader, no writer).

Handles what task.toml needs: strings, booleans, integers, floats, lists of scalars, tables,
nested tables and inline tables for mappings inside lists. Keys that are not bare are quoted.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"TOML cannot hold {value!r}")
        return repr(value)
    if isinstance(value, str):
        # JSON string escapes (\" \\ \n \uXXXX) are valid TOML basic-string escapes.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + " }"
    if value is None:
        raise ValueError("TOML has no null")
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def dumps(data: Mapping[str, Any]) -> str:
    """Serialise ``data``: scalars first, then one ``[table]`` per mapping (recursively)."""
    lines: list[str] = []

    def emit(table: Mapping[str, Any], path: list[str]) -> None:
        scalars = [(k, v) for k, v in table.items() if not isinstance(v, Mapping) and v is not None]
        tables = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
        if path and (scalars or not tables):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_key(p) for p in path) + "]")
        for k, v in scalars:
            lines.append(f"{_key(str(k))} = {_value(v)}")
        for k, v in tables:
            emit(v, [*path, str(k)])

    emit(data, [])
    return "\n".join(lines) + "\n"
