"""Pacing by Jira's headers: as fast as asked until Jira says a limit is near, then
spaced; a 429's wait held for every request, and bounded."""

from __future__ import annotations

from ralph.jira import JiraPacer, JiraPacingPolicy

from ...conftest import FakeClock


def _turns(pacer: JiraPacer, clock: FakeClock, count: int) -> list[float]:
    starts = []
    for _ in range(count):
        with pacer.slot():
            starts.append(clock.now)
    return starts


def test_far_from_a_limit_requests_go_at_once():
    clock = FakeClock(0.0)
    pacer = JiraPacer(clock=clock, sleep=clock.advance)
    pacer.observe({"x-ratelimit-limit": "100", "x-ratelimit-remaining": "90"})
    assert _turns(pacer, clock, 3) == [0.0, 0.0, 0.0]


def test_near_a_limit_requests_are_spaced():
    clock = FakeClock(0.0)
    pacer = JiraPacer(JiraPacingPolicy(near_limit_spacing=2.0), clock=clock, sleep=clock.advance)
    pacer.observe({"x-ratelimit-nearlimit": "true"})
    assert _turns(pacer, clock, 3) == [0.0, 2.0, 4.0]


def test_a_remaining_count_under_a_fifth_of_the_limit_is_near_too():
    clock = FakeClock(0.0)
    pacer = JiraPacer(clock=clock, sleep=clock.advance)
    pacer.observe({"x-ratelimit-limit": "100", "x-ratelimit-remaining": "19"})
    assert pacer.near_limit
    pacer.observe({"x-ratelimit-remaining": "50"})
    assert not pacer.near_limit


def test_a_pause_holds_every_request_and_is_bounded():
    clock = FakeClock(0.0)
    pacer = JiraPacer(JiraPacingPolicy(max_pause=30.0), clock=clock, sleep=clock.advance)
    assert pacer.pause(5.0, "429") == 5.0
    assert _turns(pacer, clock, 1) == [5.0]
    assert pacer.pause(10_000.0, "429") == 30.0
    assert _turns(pacer, clock, 1) == [35.0]
