"""How many workers a role of a team should have now: the pure decision behind a
roster that grows with its queue (as the original's workers did) and shrinks when idle.

A role grows while more of its tasks wait than it has idle workers, by that backlog,
within its own maximum and the room the whole crew has left. It shrinks back toward the
workers it started with (never below: those were asked for) once its queue has stayed
empty with idle workers for ``SHRINK_AFTER_SECONDS``, so a queue that empties for a
moment between two waves does not cost a worker that the next wave needs again.

No clock and no store here: the session's roster (``_roster``) observes the run and
applies the sizes this returns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["SHRINK_AFTER_SECONDS", "RoleSeen", "RoleSize", "next_size"]

#: How long a role's queue stays empty, with idle workers beyond its start, before the
#: extra ones are let go.
SHRINK_AFTER_SECONDS = 5.0


@dataclass(frozen=True)
class RoleSize:
    """One role's roster: its workers now, the bounds it moves between, and since when
    its queue has been empty with idle workers beyond ``floor`` (None: it has not)."""

    workers: int
    #: The workers the session started with for the role: it never shrinks below them.
    floor: int
    #: The most workers the role may have (``floor`` when it is higher).
    cap: int
    quiet_since: float | None = None


@dataclass(frozen=True)
class RoleSeen:
    """What a look at the run found for one role."""

    #: Tasks of the role a worker could claim now.
    ready: int
    #: Workers of the role with no task in hand.
    idle: int


def next_size(size: RoleSize, seen: RoleSeen, room: int, now: float) -> RoleSize:
    """The role's roster after a look at ``now`` (seconds, any monotonic clock);
    ``room``: how many workers the whole crew may still add."""
    backlog = seen.ready - seen.idle
    if backlog > 0:
        # A role the session left to other processes (floor 0, as asked) never grows.
        ceiling = max(size.cap, size.floor) if size.floor > 0 else 0
        grow = max(0, min(backlog, ceiling - size.workers, room))
        return replace(size, workers=size.workers + grow, quiet_since=None)
    extra = min(seen.idle, size.workers - size.floor)
    if seen.ready > 0 or extra <= 0:
        return replace(size, quiet_since=None)
    if size.quiet_since is None:
        return replace(size, quiet_since=now)
    if now - size.quiet_since < SHRINK_AFTER_SECONDS:
        return size
    return replace(size, workers=size.workers - extra, quiet_since=None)
