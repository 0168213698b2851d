"""The pacer's arithmetic on a fake clock: a burst while more than half a budget is left,
the refill rate below, a pause after a rate limit, every wait bounded."""

from __future__ import annotations

import threading

import pytest

from ralph.linear import LinearPacer, LinearPacingPolicy, refill_interval

from ...conftest import FakeClock

HOUR = 3600.0


def headers(now, *, requests=(1500, 1500), complexity=(250_000, 250_000), cost=None):
    """Budgets as Linear reports them: (limit, remaining), the reset where a leaky bucket
    refilling ``limit`` an hour is full again (epoch milliseconds)."""
    found = {}
    for name, (limit, remaining) in (("requests", requests), ("complexity", complexity)):
        reset = now + (limit - remaining) * HOUR / limit
        found[f"x-ratelimit-{name}-limit"] = str(limit)
        found[f"x-ratelimit-{name}-remaining"] = str(remaining)
        found[f"x-ratelimit-{name}-reset"] = str(int(reset * 1000))
    if cost is not None:
        found["x-complexity"] = str(cost)
    return found


class Sleeper:
    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.slept: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.clock.advance(seconds)


@pytest.fixture
def clock():
    """A real epoch: Linear's resets are epoch milliseconds, told from seconds by size."""
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def pacer(clock):
    return LinearPacer(clock=clock, sleep=Sleeper(clock))


def test_above_half_a_bucket_asks_for_no_wait():
    assert refill_interval(limit=1500, remaining=751, cost=1) == 0.0


def test_below_half_a_request_waits_for_what_it_costs_to_refill():
    assert refill_interval(limit=1500, remaining=750, cost=1) == pytest.approx(2.4)
    assert refill_interval(limit=250_000, remaining=1000, cost=500) == pytest.approx(7.2)


def test_a_request_the_bucket_cannot_cover_waits_for_the_shortfall_too():
    # 1 to refill its own cost, 1 more that the empty bucket lacks: 2 x 2.4 s
    assert refill_interval(limit=1500, remaining=0, cost=1) == pytest.approx(4.8)


def test_a_full_budget_allows_a_burst(pacer, clock):
    pacer.observe(headers(clock()))
    assert pacer.interval() == 0.0


def test_a_burst_goes_unspaced_until_half_the_budget_is_left(clock):
    sleeper = Sleeper(clock)
    pacer = LinearPacer(clock=clock, sleep=sleeper)
    for remaining in range(1500, 740, -1):  # Linear's answers as the burst drains it
        with pacer.slot():
            pacer.observe(headers(clock(), requests=(1500, remaining)))
    # 750 answers, unspaced; the 751st leaves its spacing to the next, and so on: 8 of
    # the last 9 waited the refill of one request each.
    assert sleeper.slept == pytest.approx([HOUR / 1500] * 8)


def test_at_half_the_budget_requests_go_at_the_refill_rate(pacer, clock):
    """The equilibrium: 1,500 requests an hour refill one every 2.4 s."""
    pacer.observe(headers(clock(), requests=(1500, 750)))
    assert pacer.interval() == pytest.approx(HOUR / 1500)


def test_time_refills_the_bucket_between_answers(pacer, clock):
    pacer.observe(headers(clock(), requests=(1500, 700)))
    assert pacer.interval() > 0
    clock.advance(240)  # 100 requests refilled: above half again
    assert pacer.interval() == 0.0


def test_an_expensive_operation_is_spaced_by_its_last_cost(pacer, clock):
    pacer.observe(headers(clock(), complexity=(250_000, 100_000), cost=1000), "TeamIssues")
    # 1,000 points refill in 14.4 s at 250,000 an hour
    assert pacer.interval("TeamIssues") == pytest.approx(1000 * HOUR / 250_000)
    assert pacer.interval("Viewer") < pacer.interval("TeamIssues")


def test_the_spacing_is_bounded(clock):
    pacer = LinearPacer(LinearPacingPolicy(max_wait=1.0), clock=clock, sleep=Sleeper(clock))
    pacer.observe(headers(clock(), requests=(1500, 0)))
    assert pacer.interval() == 1.0


def test_consecutive_slots_sleep_the_spacing(clock):
    sleeper = Sleeper(clock)
    pacer = LinearPacer(clock=clock, sleep=sleeper)
    pacer.observe(headers(clock(), requests=(1500, 750)))
    for _ in range(3):
        with pacer.slot():
            pass
    assert sleeper.slept == pytest.approx([HOUR / 1500] * 2)


def test_a_pause_holds_the_next_request_and_is_bounded(clock):
    sleeper = Sleeper(clock)
    pacer = LinearPacer(LinearPacingPolicy(max_pause=10.0), clock=clock, sleep=sleeper)
    assert pacer.pause(3600.0, "rate limited") == 10.0
    with pacer.slot():
        pass
    assert sleeper.slept == [10.0]


def test_concurrent_requests_queue_one_behind_another(clock):
    """Each claims its turn before sleeping: four at once start a spacing apart."""
    sleeper = Sleeper(clock)
    lock = threading.Lock()

    def sleep(seconds: float) -> None:
        with lock:
            sleeper.slept.append(seconds)

    pacer = LinearPacer(clock=clock, sleep=sleep)
    pacer.observe(headers(clock(), requests=(1500, 750)))

    def request() -> None:
        with pacer.slot():
            pass

    threads = [threading.Thread(target=request) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert sorted(sleeper.slept) == pytest.approx([HOUR / 1500 * n for n in (1, 2, 3)])


def test_headers_without_budgets_change_nothing(pacer, clock):
    pacer.observe({"content-type": "application/json"})
    assert (pacer.requests, pacer.complexity, pacer.interval()) == (None, None, 0.0)
