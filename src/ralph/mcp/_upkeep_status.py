"""The board's status updates as the original's tools (``create_status_update``,
``update_status_update``, ``delete_status_update``); ``ralph report`` posts its report
so."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from ralph.dashboard import ProjectStatus
from ralph.mcp._context import ToolContext
from ralph.tracker import StatusUpdate

__all__ = ["register_status_update_tools"]

Status = Literal["ON_TRACK", "AT_RISK", "OFF_TRACK", "INACTIVE", "COMPLETE"]
Day = Annotated[str | None, Field(description="A date, YYYY-MM-DD")]


def _update(update: StatusUpdate) -> dict[str, Any]:
    return {
        "id": update.id,
        "status": update.status.value if update.status else None,
        "body": update.body,
        "startDate": update.start_date,
        "targetDate": update.target_date,
        "createdAt": datetime.fromtimestamp(update.created_at, UTC).isoformat(),
    }


def register_status_update_tools(tools: ToolContext) -> None:
    project = tools.project

    @tools.write("create status update")
    def create_status_update(
        status: Status, body: str = "", startDate: Day = None, targetDate: Day = None
    ) -> dict[str, Any]:
        """Post a status update on the board (``ralph report`` posts its report so)."""
        update = project.tracker.create_status_update(
            ProjectStatus(status), body, start_date=startDate, target_date=targetDate
        )
        return _update(update)

    @tools.write("update status update")
    def update_status_update(
        statusUpdateId: Annotated[str, Field(min_length=1)],
        status: Status | None = None,
        body: str | None = None,
        startDate: Day = None,
        targetDate: Day = None,
    ) -> dict[str, Any]:
        """Change the given fields of a status update."""
        update = project.tracker.update_status_update(
            statusUpdateId,
            status=ProjectStatus(status) if status else None,
            body=body,
            start_date=startDate,
            target_date=targetDate,
        )
        return _update(update)

    @tools.write("delete status update")
    def delete_status_update(
        statusUpdateId: Annotated[str, Field(min_length=1)],
    ) -> dict[str, Any]:
        """Delete a status update."""
        project.tracker.delete_status_update(statusUpdateId)
        return {"deleted": True, "statusUpdateId": statusUpdateId}
