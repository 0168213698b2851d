"""The board: the dashboard of every issue on the tracker, with who holds each issue
that a phase has locked."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ralph.config import MAX_STUCK_HOURS, Config
from ralph.dashboard import Dashboard, HealthConfig, build_dashboard
from ralph.errors import InvalidInput
from ralph.tasks import TaskStore
from ralph.tracker import Tracker, dashboard_items
from ralph.views._provider_waits import ProviderWaitView, load_provider_waits
from ralph.workflow import LOCK_STATES

__all__ = ["BoardView", "board_health", "load_board"]


def board_health(config: Config, stuck_hours: float | None = None) -> HealthConfig:
    """The health rules of ``ralph status``: stuck after ``stuck_hours`` (ralph.toml's
    when None), critical after twice that, and the project's WIP limits."""
    if stuck_hours is not None and not math.isfinite(stuck_hours):
        raise InvalidInput(f"--stuck-hours {stuck_hours} is not a number of hours")
    if stuck_hours is not None and stuck_hours > MAX_STUCK_HOURS:
        raise InvalidInput(f"--stuck-hours {stuck_hours:g} is too large; at most {MAX_STUCK_HOURS}")
    stuck = stuck_hours if stuck_hours is not None else config.stuck_threshold_hours
    return HealthConfig(
        stuck_threshold_hours=stuck, critical_stuck_hours=2 * stuck, wip_limits=config.wip_limits
    )


@dataclass(frozen=True)
class BoardView:
    dashboard: Dashboard
    #: Issue number -> the holder of its lock in the store, for issues in a lock state.
    holders: Mapping[int, str] = field(default_factory=dict)
    #: The agents whose provider refuses for now: their work waits.
    provider_waits: tuple[ProviderWaitView, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = self.dashboard.to_dict()
        data["lockHolders"] = {str(n): holder for n, holder in sorted(self.holders.items())}
        data["providerWaits"] = [wait.to_dict() for wait in self.provider_waits]
        return data


def load_board(
    tracker: Tracker,
    config: Config,
    *,
    now: float,
    store: TaskStore | None = None,
    stuck_hours: float | None = None,
    archived: bool = False,
) -> BoardView:
    """The board as ``ralph status`` builds it; with ``store``, the lock holders and
    the waits for a provider too; with ``archived``, the archived issues too."""
    health = board_health(config, stuck_hours)
    # Closed issues only from the done window: the rest show nowhere on the dashboard.
    window = now - health.done_window_days * 86_400.0
    dashboard = build_dashboard(
        dashboard_items(tracker, archived=archived, closed_since=window), now=now, config=health
    )
    holders: dict[int, str] = {}
    repo = config.repo or config.root.name
    if store is not None:
        locked = {
            issue.number
            for phase in dashboard.phases
            if phase.state in LOCK_STATES
            for issue in phase.issues
        }
        for lock in store.issue_locks(repo):
            if lock.number in locked and lock.expires_at > now:
                holders[lock.number] = lock.owner
    waits = load_provider_waits(store, now=now) if store is not None else ()
    return BoardView(dashboard, holders, waits)
