"""Waiters of a run's events share a read only when it holds all they could have seen:
taken at their change count or a later one, from their cursor or below, and begun after
their own last look ended (a change whose notification was lost moves no count)."""

from __future__ import annotations

import time

from ralph.tasks._event_reads import SharedEventReads
from ralph.tasks._model import Event, EventKind


class Reads:
    """A run's events, counting the reads of them."""

    def __init__(self, *ids: int) -> None:
        self.ids = list(ids)
        self.count = 0

    def __call__(self, cursor: int) -> list[Event]:
        self.count += 1
        return [Event(id=i, run_id=1, kind=EventKind.TASK_DONE) for i in self.ids if i > cursor]


def test_a_read_begun_after_a_waiters_last_look_is_shared() -> None:
    shared, run = SharedEventReads(), Reads(5)
    looked = time.monotonic()
    assert [e.id for e in shared.after(1, 0, 3, looked, run)] == [5]
    assert [e.id for e in shared.after(1, 0, 3, looked, run)] == [5]
    assert run.count == 1


def test_a_read_begun_before_a_waiters_last_look_ended_is_not() -> None:
    """The fallback poll after a lost notification: same count, a newer row."""
    shared, run = SharedEventReads(), Reads(5)
    shared.after(1, 0, 3, time.monotonic(), run)
    ended = time.monotonic()
    run.ids.append(6)
    assert [e.id for e in shared.after(1, 0, 3, ended, run)] == [5, 6]
    assert run.count == 2


def test_a_read_at_an_older_count_or_from_a_higher_cursor_is_not() -> None:
    shared, run = SharedEventReads(), Reads(5, 6)
    looked = time.monotonic()
    shared.after(1, 5, 3, looked, run)  # from cursor 5
    assert [e.id for e in shared.after(1, 0, 3, looked, run)] == [5, 6]
    assert [e.id for e in shared.after(1, 0, 4, looked, run)] == [5, 6]  # a later count
    assert run.count == 3


def test_a_higher_cursor_takes_its_part_of_a_shared_read() -> None:
    shared, run = SharedEventReads(), Reads(5, 6, 7)
    looked = time.monotonic()
    shared.after(1, 0, 3, looked, run)
    assert [e.id for e in shared.after(1, 6, 3, looked, run)] == [7]
    assert run.count == 1


def test_each_run_keeps_its_own_read() -> None:
    shared, first, second = SharedEventReads(), Reads(5), Reads(9)
    looked = time.monotonic()
    shared.after(1, 0, 3, looked, first)
    assert [e.id for e in shared.after(2, 0, 3, looked, second)] == [9]
    assert [e.id for e in shared.after(1, 0, 3, looked, first)] == [5]
    assert (first.count, second.count) == (1, 1)
