"""A team session's roster, kept to its queues: at each of the lead's looks, a role with
more ready tasks than idle workers takes more workers (threads of this process, like
the ones it started with), and one whose queue has stayed empty lets its extra idle
workers go (``_roster_sizing`` decides; this applies it).

Bounds: each role's maximum (``max_role_workers``; ``DEFAULT_ROLE_CAP``, integrators
``INTEGRATOR_CAP``: merges take turns per repository, so more integrators only open
pull requests side by side) and the session's (``max_team_workers``, else
``team_workers_for_machine``). A role started with no worker (left to ``ralph worker``
processes) never grows. Correctness stays the store's: a new worker claims like any
other, and a retired one ends before its next claim, its task in hand finished.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ralph.graph import Role
from ralph.orchestrate._roster_sizing import RoleSeen, RoleSize, next_size
from ralph.orchestrate._worker import Crew, Worker
from ralph.tasks import Task, TaskStatus

__all__ = [
    "DEFAULT_ROLE_CAP",
    "INTEGRATOR_CAP",
    "Roster",
    "RosterLine",
    "ready_by_role",
    "team_workers_for_machine",
]

logger = logging.getLogger(__name__)

#: A role's most workers unless ralph.toml says otherwise.
DEFAULT_ROLE_CAP = 8
#: Integrators' own: one merges at a time per repository; the others open pull requests.
INTEGRATOR_CAP = 4
#: Workers per core of a session's crew when ``max_team_workers`` is 0 (agents mostly
#: wait on their model), and the range that is kept within.
_WORKERS_PER_CORE = 8
_MACHINE_RANGE = (16, 64)


def team_workers_for_machine(cores: int | None = None) -> int:
    """The most workers one team session takes on this machine by default."""
    low, high = _MACHINE_RANGE
    return max(low, min(high, _WORKERS_PER_CORE * (cores or os.cpu_count() or 1)))


def ready_by_role(
    tasks: Sequence[Task], now: float, phases: Collection[str] | None = None
) -> dict[str, int]:
    """How many of the run's tasks a worker of each role could claim at ``now`` (wall
    clock): pending, every dependency done, past any backoff, of ``phases`` when given.
    Tasks that share a serialisation key (a repository's merges) count once, and not at
    all while one of them runs: more workers would not run them sooner."""
    done = {t.id for t in tasks if t.status is TaskStatus.DONE}
    held = {t.serial_key for t in tasks if t.status is TaskStatus.RUNNING and t.serial_key}
    counted: set[str] = set()
    ready: Counter[str] = Counter()
    for task in tasks:
        if (
            task.status is not TaskStatus.PENDING
            or task.role == Role.HUMAN
            or task.not_before > now
            or (phases is not None and task.kind not in phases)
            or not done.issuperset(task.deps)
        ):
            continue
        if task.serial_key is not None:
            if task.serial_key in held or task.serial_key in counted:
                continue
            counted.add(task.serial_key)
        ready[task.role] += 1
    return dict(ready)


@dataclass(frozen=True)
class RosterLine:
    """One role's workers over the session: at its start, at most, and at its end."""

    role: str
    start: int
    peak: int
    end: int


class Roster:
    def __init__(
        self,
        crew: Crew,
        hire: Callable[[str, str], Worker],
        starting: Mapping[str, int],
        *,
        caps: Mapping[str, int],
        total: int = 0,
        phases: Collection[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``hire(role, name)``: a new worker of ``role`` (not started); ``starting``:
        the workers per role the session began with (the floor); ``caps``: ralph.toml's
        maximum per role; ``total``: the session's (0: ``team_workers_for_machine``)."""
        self.crew = crew
        self.hire = hire
        self.phases = phases
        self.clock = clock
        self.total = max(sum(starting.values()), total or team_workers_for_machine())
        self.sizes = {
            role: RoleSize(workers=n, floor=n, cap=max(n, caps.get(role, _default_cap(role))))
            for role, n in starting.items()
        }
        self._start = dict(starting)
        self._peak = dict(starting)
        self._hired = dict(starting)

    def look(self, tasks: Sequence[Task]) -> list[str]:
        """Size each role to ``tasks`` (the run's, as just read); a line for each change."""
        ready = ready_by_role(tasks, time.time(), self.phases)
        now = self.clock()
        active = self.crew.active
        said = []
        for role, size in self.sizes.items():
            mine = [w for w in active if w.roles == (role,)]
            idle = [w for w in mine if w.current is None]
            size = replace(size, workers=len(mine))
            room = self.total - len(self.crew.active)
            waiting = ready.get(role, 0)
            sized = next_size(size, RoleSeen(ready=waiting, idle=len(idle)), room, now)
            self.sizes[role] = sized
            if sized.workers > size.workers:
                for _ in range(sized.workers - size.workers):
                    self._hired[role] += 1
                    self.crew.add(self.hire(role, f"{role}-{self._hired[role]}"))
                self._peak[role] = max(self._peak[role], sized.workers)
            elif sized.workers < size.workers:
                # The newest idle ones go: the names the session started with stay.
                for worker in idle[::-1][: size.workers - sized.workers]:
                    worker.retire()
            else:
                continue
            line = f"{role}s: {size.workers} -> {sized.workers} ({waiting} ready)"
            logger.info("roster changed: %s", line, extra={"role": role})
            said.append(line)
        return said

    def lines(self) -> tuple[RosterLine, ...]:
        """Each role's workers at the start, at most and now."""
        return tuple(
            RosterLine(role, self._start[role], self._peak[role], size.workers)
            for role, size in self.sizes.items()
        )


def _default_cap(role: str) -> int:
    return INTEGRATOR_CAP if role == Role.INTEGRATOR else DEFAULT_ROLE_CAP
