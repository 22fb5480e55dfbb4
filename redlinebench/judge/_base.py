"""The judge interface, its result record and the registry of judge kinds by name."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import ConfigError


@dataclass
class JudgeResult:
    """One judge's answer for one task. ``ok`` False means it produced no verdicts at all."""

    judge: str
    ok: bool
    verdicts: dict[str, str] = field(default_factory=dict)
    justifications: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    #: the ``invalid`` ids -> the verdict as the judge wrote it ("pass", "Pass.", "N/A"): counted
    #: FAIL (SPEC §5.3), and reported (the run's end, the report, ``judge check``)
    near_misses: dict[str, str] = field(default_factory=dict)
    #: JSON slips repaired to read the reply instead of asking again (``_parse.REPAIRS``)
    repaired: list[str] = field(default_factory=list)
    error: str | None = None
    attempts: int = 0
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    cache_read_tokens: int = 0    # of prompt_tokens: read from the provider's prompt cache
    cache_write_tokens: int = 0   # of prompt_tokens: written to it
    cached: bool = False
    raw: str | None = None
    method: str = "llm"
    unreachable: bool = False     # no verdicts because its endpoint could not be reached at all

    def returned(self) -> dict[str, str]:
        """The verdicts this judge actually returned: a rubric it left out (``missing``) is not a
        vote (SPEC §5.4), so it is not here, even though ``verdicts`` lists it as FAIL."""
        if not self.ok:
            return {}
        left_out = set(self.missing)
        return {rid: v for rid, v in self.verdicts.items() if rid not in left_out}

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "method": self.method,
            "ok": self.ok,
            "verdicts": dict(self.verdicts),
            "justifications": dict(self.justifications),
            "missing": list(self.missing),
            "invalid": list(self.invalid),
            **({"near_misses": dict(self.near_misses)} if self.near_misses else {}),
            **({"json_repaired": list(self.repaired)} if self.repaired else {}),
            "error": self.error,
            "attempts": self.attempts,
            "latency_s": round(self.latency_s, 4),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "cached": self.cached,
            "raw": self.raw,
            **({"unreachable": True} if self.unreachable else {}),
        }


@runtime_checkable
class Judge(Protocol):
    """Grades all of a task's rubrics against one output document."""

    name: str
    method: str   # "llm" | "heuristic": recorded as the grade's judge_method

    async def grade(self, task: Any, view: str, doc: Any, **options: Any) -> JudgeResult: ...


_REGISTRY: dict[str, Callable[..., Judge]] = {}


def judge(kind: str) -> Callable[[Callable[..., Judge]], Callable[..., Judge]]:
    """Register a judge factory under ``kind`` so a run can rebuild it from the name."""

    def deco(factory: Callable[..., Judge]) -> Callable[..., Judge]:
        _REGISTRY[kind] = factory
        return factory

    return deco


def create_judge(kind: str, **kwargs: Any) -> Judge:
    """Build a registered judge kind with its arguments (``create_judge("litellm", model=...)``)."""
    from . import _heuristic, _litellm_judge  # noqa: F401  (registration side effects)

    factory = _REGISTRY.get(kind)
    if factory is None:
        raise ConfigError(f"unknown judge kind {kind!r}; known: {', '.join(sorted(_REGISTRY))}")
    try:
        return factory(**kwargs)
    except TypeError as exc:
        raise ConfigError(f"judge {kind!r}: bad arguments ({exc})") from None


def judge_slug(name: str) -> str:
    """File-name-safe judge name (same rule as the runner's model slug)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)
