"""Budgets for one agent episode. Declared once; the run records them in config.json."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from ..errors import ConfigError


@dataclass(frozen=True)
class AgentLimits:
    """Per-trial limits. ``None`` means unlimited for the token and cost budgets."""

    max_steps: int = 40                   # model calls per episode
    max_tool_calls_per_step: int = 32     # tool calls run from one reply; the rest get an error
    max_tokens: int | None = 2_000_000    # prompt + completion tokens over the episode
    max_cost_usd: float | None = 10.0     # known cost over the episode (unknown prices count 0)
    call_timeout_s: float = 300.0         # one model call, including the provider's own queueing
    max_retries: int = 6                  # provider errors (429, 5xx, timeouts, garbage) per call
    max_output_tokens: int | None = 8192  # per reply
    context_tokens: int = 120_000         # estimated prompt size above which old tool outputs shrink
    keep_recent_tool_outputs: int = 4     # never shortened
    temperature: float | None = None      # None: the provider's default
    #: How hard a thinking model thinks: an effort (minimal, low, medium, high; litellm's
    #: ``reasoning_effort``), a thinking budget in tokens (Anthropic-style ``thinking``), or per model
    #: ``MODEL=VALUE,MODEL=VALUE``. None: the provider's default.
    reasoning_effort: str | None = None

    def reasoning_for(self, model: str) -> str | int | None:
        """This model's effort word or thinking budget (an int), or None (the provider's default)."""
        return _reasoning_for(self.reasoning_effort, model)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None, *, where: str = "limits") -> "AgentLimits":
        """Build from a config mapping, naming the bad key instead of raising a TypeError."""
        if not data:
            return cls()
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ConfigError(f"unknown limit {key!r} (known: {', '.join(sorted(known))})", path=where)
            values[key] = _coerce(key, value, where)
        return cls(**values)

    def replace(self, **changes: Any) -> "AgentLimits":
        data = self.to_dict()
        data.update({k: v for k, v in changes.items() if v is not None})
        return AgentLimits.from_mapping(data)


_INTS = {"max_steps", "max_tool_calls_per_step", "max_tokens", "max_retries", "max_output_tokens", "context_tokens", "keep_recent_tool_outputs"}
_POSITIVE = {"max_steps", "max_tool_calls_per_step", "call_timeout_s", "context_tokens"}
_NULLABLE = {"max_tokens", "max_cost_usd", "max_output_tokens", "temperature"}


EFFORTS = ("none", "minimal", "low", "medium", "high")


def _reasoning_value(text: str) -> str | int:
    text = text.strip().lower()
    if text in EFFORTS:
        return text
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise ValueError(text)


def _reasoning_for(setting: str | None, model: str) -> str | int | None:
    if not setting:
        return None
    if "=" not in setting:
        return _reasoning_value(setting)
    for part in setting.split(","):
        name, _, value = part.rpartition("=")
        if name.strip() == model:
            return _reasoning_value(value)
    return None


def _check_reasoning(value: Any, where: str) -> str:
    text = str(value).strip()
    try:
        parts = [p.rpartition("=") for p in text.split(",")] if "=" in text else [("", "", text)]
        for name, eq, effort in parts:
            if eq and not name.strip():
                raise ValueError(text)
            _reasoning_value(effort)
    except ValueError:
        raise ConfigError(f"reasoning_effort {value!r}: give {', '.join(EFFORTS)} or a thinking budget in tokens, "
                          "for every model or per model as MODEL=VALUE,MODEL=VALUE", path=where) from None
    return text


def _coerce(key: str, value: Any, where: str) -> Any:
    if key == "reasoning_effort":
        return None if value is None or value == "" else _check_reasoning(value, where)
    if value is None:
        if key in _NULLABLE:
            return None
        raise ConfigError(f"limit {key!r} cannot be empty", path=where)
    try:
        number = int(value) if key in _INTS else float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"limit {key!r} must be a number, got {value!r}", path=where) from None
    if isinstance(value, bool) or number < 0 or (key in _POSITIVE and number <= 0):
        raise ConfigError(f"limit {key!r} must be positive, got {value!r}", path=where)
    return number
