"""A provider-side rate limit for the loopback fakes: a token bucket answering 429 beyond it.

``rate`` requests per second refill a bucket of ``burst``; a request finding it empty is
refused with 429, with a ``Retry-After`` (whole seconds, as HTTP says, plus ``retry-after-ms``
as OpenAI sends) saying when the next token arrives, or without any hint.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Callable


class TokenBucket:
    def __init__(self, rate: float, burst: int, *, retry_after: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs rate > 0 and burst >= 1")
        self.rate, self.burst, self.retry_after = float(rate), int(burst), retry_after
        self._clock = clock
        self._tokens = float(burst)
        self._at = clock()
        self._lock = threading.Lock()
        self.accepted = 0
        self.refused = 0

    def take(self) -> float | None:
        """``None`` when the request may go ahead, else seconds until a token is available."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
            self._at = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                self.accepted += 1
                return None
            self.refused += 1
            return (1.0 - self._tokens) / self.rate

    def headers(self, wait_s: float) -> dict[str, str]:
        if not self.retry_after:
            return {}
        return {"Retry-After": str(max(1, math.ceil(wait_s))), "retry-after-ms": str(max(1, round(wait_s * 1000)))}
