"""The pacer's arithmetic on a fake clock: the budgets spread evenly, every wait bounded."""

from __future__ import annotations

import threading

import pytest

from ralph.linear import LinearPacer, LinearPacingPolicy, even_interval

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


def test_the_time_to_the_reset_is_shared_out_by_cost():
    assert even_interval(remaining=100, reset_in=50.0, cost=1) == 0.5
    assert even_interval(remaining=100, reset_in=50.0, cost=10) == 5.0


def test_nothing_left_waits_the_whole_time_to_the_reset():
    assert even_interval(remaining=0, reset_in=30.0, cost=1) == 30.0


def test_a_passed_reset_asks_for_no_wait():
    assert even_interval(remaining=0, reset_in=-1.0, cost=1) == 0.0


def test_a_full_budget_allows_a_burst(pacer, clock):
    pacer.observe(headers(clock()))
    assert pacer.interval() == 0.0


def test_at_half_the_budget_requests_go_at_the_refill_rate(pacer, clock):
    """The equilibrium: 1,500 requests an hour refill one every 2.4 s."""
    pacer.observe(headers(clock(), requests=(1500, 750)))
    assert pacer.interval() == pytest.approx(HOUR / 1500)


def test_an_expensive_operation_is_spaced_by_its_last_cost(pacer, clock):
    pacer.observe(headers(clock(), complexity=(250_000, 200_000), cost=5000), "TeamIssues")
    # 50,000 points short: full again in 720 s, shared out 5,000 of 200,000 at a time.
    assert pacer.interval("TeamIssues") == pytest.approx(720 * 5000 / 200_000)
    assert pacer.interval("Viewer") < pacer.interval("TeamIssues")


def test_the_spacing_is_bounded(clock):
    pacer = LinearPacer(LinearPacingPolicy(max_wait=5.0), clock=clock, sleep=Sleeper(clock))
    pacer.observe(headers(clock(), requests=(1500, 1)))
    assert pacer.interval() == 5.0


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
