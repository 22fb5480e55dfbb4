"""Text from models and judges made safe to encode: a lone surrogate becomes U+FFFD.

A provider that cuts an emoji in half (a byte-fallback tokenizer at ``finish_reason=length``), or
a JSON string escaping ``\\ud800``, hands Python a ``str`` that UTF-8 cannot encode; the first
file write then fails and takes finished work with it. Hostile text is made encodable where it
enters (model replies, tool arguments, judge replies) and again where it is written.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, time
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def encodable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (unchanged, and fast, when it has none)."""
    return _SURROGATE.sub(REPLACEMENT, text)


def encodable_obj(value: Any) -> Any:
    """:func:`encodable` over every string of a JSON-like value (dict keys included)."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {encodable_obj(k): encodable_obj(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encodable_obj(v) for v in value]
    return value


def json_safe(value: Any) -> Any:
    """A task's metadata as strict JSON can hold it: TOML dates and times become ISO strings,
    non-finite floats (TOML ``nan``/``inf``, JSON input's ``NaN``) their TOML spelling, since
    ``NaN``/``Infinity`` in an output is not JSON (``JSON.parse`` and the Hub viewer reject it)."""
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
