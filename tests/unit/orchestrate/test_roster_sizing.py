"""A team role's roster, transition by transition: it grows by the backlog its idle
workers do not cover, within its cap and the crew's room, never when the session left
the role to other processes; it shrinks to where it started only after its queue has
stayed empty for a while."""

from __future__ import annotations

import pytest

from ralph.orchestrate._roster_sizing import SHRINK_AFTER_SECONDS, RoleSeen, RoleSize, next_size

pytestmark = pytest.mark.timeout(10)

ROOM = 100


def test_a_queue_longer_than_the_idle_workers_grows_the_role_by_the_difference():
    size = RoleSize(workers=1, floor=1, cap=8)
    assert next_size(size, RoleSeen(ready=5, idle=1), ROOM, 0.0).workers == 5


def test_busy_workers_do_not_count_against_the_queue():
    # One validator busy with a review, three more reviews ready: three more validators.
    size = RoleSize(workers=1, floor=1, cap=8)
    assert next_size(size, RoleSeen(ready=3, idle=0), ROOM, 0.0).workers == 4


def test_idle_workers_enough_for_the_queue_keep_the_role_as_it_is():
    size = RoleSize(workers=4, floor=4, cap=8)
    assert next_size(size, RoleSeen(ready=3, idle=3), ROOM, 0.0) == size


def test_growth_stops_at_the_roles_cap():
    size = RoleSize(workers=2, floor=1, cap=4)
    assert next_size(size, RoleSeen(ready=30, idle=0), ROOM, 0.0).workers == 4


def test_growth_stops_at_the_room_the_crew_has_left():
    size = RoleSize(workers=1, floor=1, cap=8)
    assert next_size(size, RoleSeen(ready=30, idle=0), 2, 0.0).workers == 3
    assert next_size(size, RoleSeen(ready=30, idle=0), 0, 0.0).workers == 1


def test_a_cap_below_the_start_keeps_the_start():
    size = RoleSize(workers=4, floor=4, cap=2)
    assert next_size(size, RoleSeen(ready=9, idle=0), ROOM, 0.0).workers == 4


def test_a_role_started_without_workers_never_grows():
    # `ralph team --workers integrator=0` leaves integrators to `ralph worker` processes.
    size = RoleSize(workers=0, floor=0, cap=8)
    assert next_size(size, RoleSeen(ready=6, idle=0), ROOM, 0.0).workers == 0


def test_an_empty_queue_with_extra_idle_workers_starts_the_quiet_clock_only():
    size = RoleSize(workers=5, floor=1, cap=8)
    after = next_size(size, RoleSeen(ready=0, idle=4), ROOM, 10.0)
    assert (after.workers, after.quiet_since) == (5, 10.0)


def test_the_role_stays_while_its_queue_has_been_empty_a_short_while():
    size = RoleSize(workers=5, floor=1, cap=8, quiet_since=10.0)
    now = 10.0 + SHRINK_AFTER_SECONDS - 0.1
    assert next_size(size, RoleSeen(ready=0, idle=4), ROOM, now) == size


def test_after_the_quiet_while_the_idle_extras_go_down_to_the_start():
    size = RoleSize(workers=5, floor=1, cap=8, quiet_since=10.0)
    after = next_size(size, RoleSeen(ready=0, idle=4), ROOM, 10.0 + SHRINK_AFTER_SECONDS)
    assert (after.workers, after.quiet_since) == (1, None)


def test_only_idle_workers_go_busy_ones_stay():
    size = RoleSize(workers=5, floor=1, cap=8, quiet_since=0.0)
    assert next_size(size, RoleSeen(ready=0, idle=2), ROOM, 60.0).workers == 3


def test_a_role_never_shrinks_below_its_start():
    size = RoleSize(workers=2, floor=2, cap=8)
    after = next_size(size, RoleSeen(ready=0, idle=2), ROOM, 0.0)
    assert (after.workers, after.quiet_since) == (2, None)


def test_work_arriving_during_the_quiet_while_restarts_it():
    size = RoleSize(workers=5, floor=1, cap=8, quiet_since=10.0)
    after = next_size(size, RoleSeen(ready=2, idle=4), ROOM, 12.0)
    assert (after.workers, after.quiet_since) == (5, None)
    # ... and the next empty queue waits the whole while again.
    later = next_size(after, RoleSeen(ready=0, idle=5), ROOM, 13.0)
    assert (later.workers, later.quiet_since) == (5, 13.0)


def test_growing_clears_the_quiet_clock():
    size = RoleSize(workers=2, floor=1, cap=8, quiet_since=10.0)
    after = next_size(size, RoleSeen(ready=4, idle=0), ROOM, 11.0)
    assert (after.workers, after.quiet_since) == (6, None)
