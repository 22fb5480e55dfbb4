"""The adaptive per-endpoint limit (issue 14.4), on a fake clock: no sleeping."""

from __future__ import annotations

import asyncio

from redlinebench import _throttle
from redlinebench._throttle import AdaptiveLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _fill(lim: AdaptiveLimiter) -> list[float]:
    starts = []
    while lim.can_start():
        starts.append(lim.start())
    return starts


def test_a_429_halves_the_limit_once_per_round_and_successes_bring_it_back():
    clock = Clock()
    lim = AdaptiveLimiter(32, initial=4, clock=clock, pacing=False)
    rounds = 0
    while lim.current < 32:  # slow start: each success adds a quarter call, x1.25 per round
        for s in _fill(lim):
            lim.on_success(s)
        rounds += 1
    assert rounds <= 10
    starts = _fill(lim)
    assert len(starts) == 32
    clock.now += 1
    lim.on_rate_limited(starts[0])
    assert lim.current == 16 and lim.n_429 == 1
    for s in starts[1:6]:  # the same round's other 429s were sent before the cut: no further cut
        lim.on_rate_limited(s)
    assert lim.current == 16 and lim.n_429 == 6
    clock.now += 1
    late = lim.start()  # sent after the cut, still refused: the cut was not enough
    lim.on_rate_limited(late)
    assert lim.current == 8
    for s in starts[6:]:
        lim.on_success(s)
    assert 8 <= lim.limit < 9  # additive increase above the threshold: slow, one call per few rounds
    assert not lim.can_start()  # any 429 holds new calls a moment (MIN_HOLD_S)
    clock.now += 1
    rounds = 0
    while lim.current < 32:
        for s in _fill(lim):
            lim.on_success(s)
        rounds += 1
    assert 60 <= rounds <= 250  # recovers to the ceiling, never past it
    for s in _fill(lim):
        lim.on_success(s)
    assert lim.current == 32 and lim.min_limit == 8


def test_the_limit_never_exceeds_the_ceiling_nor_drops_below_one():
    clock = Clock()
    lim = AdaptiveLimiter(3, initial=10, clock=clock, pacing=False)
    assert lim.current == 3 and len(_fill(lim)) == 3 and not lim.can_start()
    for _ in range(10):
        clock.now += 1
        lim.on_rate_limited(lim.start() if lim.in_flight < 3 else clock.now)
    assert lim.current == 1


def test_retry_after_holds_new_calls_until_it_has_passed():
    clock = Clock()
    lim = AdaptiveLimiter(8, clock=clock, pacing=False)
    s = lim.start()
    lim.on_rate_limited(s, retry_after=2.5)
    assert not lim.can_start()
    clock.now += 2.4
    assert not lim.can_start()
    clock.now += 0.2
    assert lim.can_start()


def test_a_5xx_or_timeout_frees_the_slot_without_changing_the_limit():
    lim = AdaptiveLimiter(8, initial=4, clock=Clock(), pacing=False)
    s = lim.start()
    lim.on_other(s)
    assert lim.current == 4 and lim.in_flight == 0 and lim.n_429 == 0


def test_agents_and_judges_on_one_endpoint_share_one_limit_never_above_the_concurrency():
    _throttle.configure(3)
    peak = 0
    running = 0

    async def call(model: str) -> None:
        nonlocal peak, running
        async with _throttle.slot(model, "http://127.0.0.1:9/v1") as place:
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            running -= 1
            place.ok()

    async def main() -> None:
        await asyncio.gather(*(call("openai/agent" if i % 2 else "openai/judge") for i in range(40)))

    asyncio.run(main())
    snap = _throttle.snapshot()
    assert list(snap) == ["openai@http://127.0.0.1:9/v1"]
    assert peak == 3 and snap["openai@http://127.0.0.1:9/v1"]["n_calls"] == 40
    _throttle.configure(_throttle.DEFAULT_MAX)


def test_calls_are_paced_over_a_round_trip_instead_of_sent_in_a_burst():
    clock = Clock()
    lim = AdaptiveLimiter(8, initial=4, clock=clock)
    s = lim.start()
    clock.now += 1.0  # a round trip of 1 s
    lim.on_success(s)
    assert lim.rtt == 1.0 and lim.current == 4
    lim.start()
    assert not lim.can_start()  # the next start waits a quarter of the round trip
    clock.now += 0.2
    assert not lim.can_start()
    clock.now += 0.05
    assert lim.can_start()
