"""A tracker whose service keeps no status updates on the board Ralph uses (a Linear
team, a Jira project, a GitLab project): each status-update call is refused in one line
saying how to publish the report instead."""

from __future__ import annotations

from ralph.dashboard import ProjectStatus
from ralph.errors import NotAvailable
from ralph.tracker._model import StatusUpdate
from ralph.tracker._tracker import Tracker

__all__ = ["TrackerWithoutStatusUpdates"]


class TrackerWithoutStatusUpdates(Tracker):
    #: Why there are none, and what to do instead (the one line each refusal says).
    no_status_updates: str = "this tracker has no status updates"

    def list_status_updates(self) -> list[StatusUpdate]:
        raise NotAvailable(self.no_status_updates)

    def delete_status_update(self, update_id: str) -> None:
        raise NotAvailable(self.no_status_updates)

    def _create_status_update(
        self,
        status: ProjectStatus,
        body: str,
        start_date: str | None,
        target_date: str | None,
        author: str,
    ) -> StatusUpdate:
        raise NotAvailable(self.no_status_updates)

    def _update_status_update(
        self,
        update_id: str,
        status: ProjectStatus | None,
        body: str | None,
        start_date: str | None,
        target_date: str | None,
    ) -> StatusUpdate:
        raise NotAvailable(self.no_status_updates)
