"""Adaptive concurrency per provider endpoint, shared by the agents and the judges calling it.

A fixed ``--concurrency`` either leaves a provider's quota unused or floods it with 429s. Each
endpoint (provider + api_base) gets one AIMD limit on the calls in flight to it:

- it starts small and grows by half per round trip while calls succeed (slow start); after a
  429, by one call every few round trips (additive increase); never above ``--concurrency``;
- a 429 halves it (multiplicative decrease), once per round of calls: 429s answering calls sent
  before the last cut say nothing new and do not cut again;
- calls are paced, the limit's worth spread over one round trip (a burst of starts would empty a
  provider's token bucket at once and be refused together);
- a ``Retry-After`` on a 429 also holds every new call to that endpoint until it has passed
  (and any 429 holds them at least ``MIN_HOLD_S``).

The limit is per process: with ``--workers N`` each worker limits its own share of the
concurrency, and the run reports the sum. The clock is injectable, so tests need no sleeping.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable

#: Calls in flight an endpoint starts with (before any success has been seen).
INITIAL_LIMIT = 4
#: An endpoint nobody configured (``score``, a notebook) is capped here.
DEFAULT_MAX = 16
#: Growth per successful call: below the threshold (before any 429) the limit grows by this much
#: per call (x1.25 per round of calls); above it by ``1 / (limit * RECOVERY_ROUNDS)``, i.e. one
#: more call in flight every ``RECOVERY_ROUNDS`` rounds: slow enough that a provider's burst
#: allowance absorbs the probing, so 429s stay rare once the limit has been found.
SLOW_START_STEP = 0.25
RECOVERY_ROUNDS = 6
#: Any 429 holds new calls at least this long (longer if its ``Retry-After`` says so): the
#: provider's bucket is empty at that moment, so a short hold loses no throughput, while the calls
#: it holds would only be refused too (a ``Retry-After`` of 50 ms is for one call, not for all).
MIN_HOLD_S = 0.5


class AdaptiveLimiter:
    """The AIMD limit of one endpoint. ``on_*`` are the pure state changes; ``slot`` uses them."""

    def __init__(self, max_limit: int, *, initial: int = INITIAL_LIMIT,
                 clock: Callable[[], float] = time.monotonic, pacing: bool = True) -> None:
        self.max = max(1, int(max_limit))
        self.limit = float(min(self.max, max(1, initial)))
        self.threshold = float(self.max)   # slow start below it, additive increase above
        self.clock = clock
        self.in_flight = 0
        self.n_calls = 0
        self.n_429 = 0
        self.min_limit = self.max           # the lowest a 429 has cut it to
        self.resume_at = 0.0                # no new call before this (a Retry-After)
        self._last_cut = -math.inf          # when the limit was last halved
        self.pacing = pacing
        self.rtt: float | None = None       # smoothed duration of a successful call
        self.next_start = 0.0               # pacing: the limit's calls spread over one round trip
        self._wake: list[asyncio.Future[None]] = []

    # -- the state machine ----------------------------------------------------------------
    @property
    def current(self) -> int:
        return max(1, int(self.limit))

    def ready_at(self) -> float:
        """When the next call may start as far as time goes (a Retry-After hold, pacing)."""
        return max(self.resume_at, self.next_start)

    def can_start(self) -> bool:
        return self.in_flight < self.current and self.clock() >= self.ready_at()

    def start(self) -> float:
        self.in_flight += 1
        self.n_calls += 1
        now = self.clock()
        if self.pacing and self.rtt:  # limit calls per round trip, evenly: no bursts into a bucket
            self.next_start = now + self.rtt / self.limit
        return now

    def on_success(self, started: float) -> None:
        rtt = max(0.0, self.clock() - started)
        self.rtt = rtt if self.rtt is None else 0.8 * self.rtt + 0.2 * rtt
        self._done()
        if self.limit < self.threshold:
            self.limit = min(self.max, self.limit + SLOW_START_STEP)
        else:
            self.limit = min(self.max, self.limit + 1.0 / (self.limit * RECOVERY_ROUNDS))

    def on_rate_limited(self, started: float, retry_after: float | None = None) -> None:
        self._done()
        self.n_429 += 1
        now = self.clock()
        hold = max(MIN_HOLD_S, retry_after or 0.0)
        if hold > 0:
            self.resume_at = max(self.resume_at, now + hold)
        if started >= self._last_cut:  # sent after the last cut: the cut was not enough
            self.limit = max(1.0, self.limit / 2.0)
            self.threshold = self.limit
            self._last_cut = now
            self.min_limit = min(self.min_limit, self.current)

    def on_other(self, started: float) -> None:
        """A call that failed some other way (5xx, timeout): no signal about the rate limit."""
        self._done()

    def _done(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self._notify()

    def _notify(self) -> None:
        waiters, self._wake = self._wake, []
        for fut in waiters:
            if not fut.done() and not fut.get_loop().is_closed():
                fut.get_loop().call_soon_threadsafe(_resolve, fut)

    # -- async use --------------------------------------------------------------------------
    async def acquire(self) -> float:
        while not self.can_start():
            wait = self.ready_at() - self.clock()
            if wait > 0 and self.in_flight < self.current:
                await asyncio.sleep(wait)
                continue
            fut = asyncio.get_running_loop().create_future()
            self._wake.append(fut)
            try:
                await asyncio.wait_for(fut, timeout=max(0.05, wait) if wait > 0 else None)
            except asyncio.TimeoutError:
                pass
        return self.start()

    def snapshot(self) -> dict[str, Any]:
        return {"limit": self.current, "max": self.max, "min_limit": self.min_limit, "n_calls": self.n_calls,
                "n_429": self.n_429}


def _resolve(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class _Registry:
    """One limiter per endpoint and event loop (a new loop, as in tests, starts afresh)."""

    def __init__(self) -> None:
        self.max = DEFAULT_MAX
        self.enabled = True
        self._limiters: dict[str, tuple[Any, AdaptiveLimiter]] = {}
        self._lock = threading.Lock()

    def get(self, endpoint: str) -> AdaptiveLimiter:
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._limiters.get(endpoint)
            if entry is None or entry[0] is not loop:
                entry = (loop, AdaptiveLimiter(self.max))
                self._limiters[endpoint] = entry
            return entry[1]

    def snapshot(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: lim.snapshot() for k, (_, lim) in sorted(self._limiters.items())}


_REGISTRY = _Registry()


def configure(max_concurrency: int, *, adaptive: bool = True) -> None:
    """Set this process's ceiling (``--concurrency``, or a worker's share of it); forget old limits."""
    with _REGISTRY._lock:
        _REGISTRY.max = max(1, int(max_concurrency))
        _REGISTRY.enabled = adaptive
        _REGISTRY._limiters.clear()


def endpoint_key(model: str, api_base: str | None) -> str:
    """Which calls share a rate limit: the provider prefix of the model string and the endpoint."""
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return f"{provider}@{(api_base or 'default').rstrip('/')}"


def snapshot() -> dict[str, dict[str, Any]]:
    """``{endpoint: {limit, max, min_limit, n_calls, n_429}}`` for this process."""
    return _REGISTRY.snapshot()


@asynccontextmanager
async def slot(model: str, api_base: str | None) -> AsyncIterator["_Outcome"]:
    """Hold one call's place in its endpoint's limit; the caller reports how the call went.

    Unreported (an exception from our own code, a cancellation) counts as neither success nor 429.
    """
    if not _REGISTRY.enabled:
        yield _Outcome(None, 0.0)
        return
    limiter = _REGISTRY.get(endpoint_key(model, api_base))
    started = await limiter.acquire()
    outcome = _Outcome(limiter, started)
    try:
        yield outcome
    finally:
        outcome.settle()


class _Outcome:
    def __init__(self, limiter: AdaptiveLimiter | None, started: float) -> None:
        self.limiter, self.started = limiter, started
        self._kind: str | None = None
        self._retry_after: float | None = None

    def ok(self) -> None:
        self._kind = "ok"

    def failed(self, exc: BaseException) -> None:
        from ._retry import is_rate_limit, retry_after

        if is_rate_limit(exc):
            self._kind, self._retry_after = "429", retry_after(exc)
        else:
            self._kind = "other"

    def settle(self) -> None:
        if self.limiter is None:
            return
        if self._kind == "ok":
            self.limiter.on_success(self.started)
        elif self._kind == "429":
            self.limiter.on_rate_limited(self.started, self._retry_after)
        else:
            self.limiter.on_other(self.started)
        self.limiter = None
