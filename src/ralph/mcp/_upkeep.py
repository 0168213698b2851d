"""The board's upkeep as the original's tools: archiving (``archive_item``,
``bulk_archive``), the hygiene report (``project_hygiene``), the board's status updates
(``create_status_update``, ``update_status_update``, ``delete_status_update``) and the
routing rules (``configure_routing``). Each calls the library functions ``ralph hygiene``,
``ralph report`` and ``ralph route`` call (``ralph.board``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from ralph.board import RoutingFile, hygiene_report, route_issue
from ralph.dashboard import HygieneConfig, ProjectStatus, format_hygiene_markdown
from ralph.errors import RalphError
from ralph.mcp._context import ToolContext
from ralph.tracker import StatusUpdate, dashboard_items
from ralph.workflow import parse_state

__all__ = ["register_upkeep_tools"]

#: The original's cap on one bulk_archive call.
MAX_BULK_ARCHIVE = 200

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


def _before(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            "Invalid updatedBefore date. Use ISO 8601 format (e.g., 2026-02-01T00:00:00Z)"
        ) from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def register_upkeep_tools(tools: ToolContext) -> None:
    project = tools.project

    def _number_of(item_id: str | None) -> int:
        for item in project.tracker.project_board().items():
            if item.id == item_id and item.number is not None:
                return item.number
        raise ValueError(
            f"no issue on the board has the item id {item_id!r}; give the issue's number"
        )

    # -- archiving --------------------------------------------------------------------------

    @tools.write("archive item")
    def archive_item(
        number: int | None = None, projectItemId: str | None = None, unarchive: bool = False
    ) -> dict[str, Any]:
        """Archive an issue's board item (off lists and the dashboard, still read by
        number), or put it back with ``unarchive``."""
        if (number is None) == (projectItemId is None):
            raise ValueError(
                "Either number or projectItemId must be provided"
                if number is None
                else "Provide either number or projectItemId, not both"
            )
        if number is None:
            number = _number_of(projectItemId)
        tracker = project.tracker
        issue = tracker.unarchive_issue(number) if unarchive else tracker.archive_issue(number)
        return {"number": issue.number, "archived": not unarchive, "title": issue.title}

    @tools.write("bulk archive")
    def bulk_archive(
        workflowStates: Annotated[list[str], Field(min_length=1)],
        maxItems: Annotated[int, Field(ge=1)] = 50,
        dryRun: bool = False,
        updatedBefore: str | None = None,
    ) -> dict[str, Any]:
        """Archive the board's items in these workflow states (at most ``maxItems``, 200
        a call), only those last updated before ``updatedBefore`` when given."""
        states = {parse_state(s).value for s in workflowStates}
        before = _before(updatedBefore)
        found = [
            item
            for item in dashboard_items(project.tracker)
            if item.workflow_state in states and (before is None or item.updated_at < before)
        ]
        found.sort(key=lambda item: item.updated_at)
        chosen = found[: min(maxItems, MAX_BULK_ARCHIVE)]
        items = [{"number": i.number, "title": i.title} for i in chosen]
        if dryRun:
            return {"dryRun": True, "wouldArchive": len(items), "items": items, "errors": []}
        archived: list[dict[str, Any]] = []
        errors: list[str] = []
        for item in chosen:
            try:
                project.tracker.archive_issue(item.number)
            except RalphError as exc:  # one refused item does not stop the rest
                errors.append(f"#{item.number}: {exc}")
            else:
                archived.append({"number": item.number, "title": item.title})
        return {
            "dryRun": False,
            "archivedCount": len(archived),
            "items": archived,
            "errors": errors,
        }

    # -- hygiene ----------------------------------------------------------------------------

    @tools.read("project hygiene")
    def project_hygiene(
        archiveDays: Annotated[float, Field(ge=0)] = 14,
        staleDays: Annotated[float, Field(ge=0)] = 7,
        orphanDays: Annotated[float, Field(ge=0)] = 14,
        wipLimits: dict[str, int] | None = None,
        similarityThreshold: Annotated[float, Field(ge=0, le=1)] = 0.8,
        format: Literal["json", "markdown"] = "json",
    ) -> dict[str, Any]:
        """The Project Hygiene Report: archive candidates, stale, orphaned, field gaps,
        WIP violations and duplicate candidates (``markdown`` adds ``formatted``)."""
        limits = {parse_state(state).value: limit for state, limit in (wipLimits or {}).items()}
        config = HygieneConfig(
            archive_days=archiveDays,
            stale_days=staleDays,
            orphan_days=orphanDays,
            wip_limits=limits,
            similarity_threshold=similarityThreshold,
        )
        report = hygiene_report(project.tracker, config)
        answer = report.to_dict()
        if format == "markdown":
            answer["formatted"] = format_hygiene_markdown(report)
        return answer

    # -- status updates ---------------------------------------------------------------------

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

    # -- routing ----------------------------------------------------------------------------

    @tools.write("configure routing")
    def configure_routing(
        operation: Literal[
            "list_rules", "add_rule", "update_rule", "remove_rule", "validate_rules", "dry_run"
        ],
        configPath: str | None = None,
        rule: dict[str, Any] | None = None,
        ruleIndex: Annotated[int | None, Field(ge=0)] = None,
        issueNumber: int | None = None,
    ) -> dict[str, Any]:
        """Read and change ``.ralph-routing.yml`` (inside the project): list, add, update
        or remove a rule (each change checked whole before it is written), validate the
        file, or say where an issue would go (``dry_run``, nothing written)."""
        routing = RoutingFile.of(project.config.root, configPath)
        where = {"configPath": routing.shown}
        if operation == "list_rules":
            return {**where, **routing.listing()}
        if operation == "validate_rules":
            return {**where, **routing.validation()}
        if operation == "dry_run":
            if issueNumber is None:
                raise ValueError("dry_run needs issueNumber: the issue to route")
            decision = route_issue(project.tracker, routing.load(), issueNumber)
            return {**where, "dryRun": True, **decision.to_dict()}
        if operation in ("update_rule", "remove_rule") and ruleIndex is None:
            raise ValueError(f"{operation} needs ruleIndex: the rule's place in the list, from 0")
        if operation in ("add_rule", "update_rule") and rule is None:
            raise ValueError(f"{operation} needs rule: {{match: {{...}}, action: {{...}}}}")
        if operation == "add_rule" and rule is not None:
            rules = routing.add(rule)
        elif operation == "update_rule" and rule is not None and ruleIndex is not None:
            rules = routing.replace(ruleIndex, rule)
        elif operation == "remove_rule" and ruleIndex is not None:
            rules = routing.remove(ruleIndex)
        else:  # pragma: no cover - every operation is handled above
            raise ValueError(f"unknown operation {operation!r}")
        return {**where, "operation": operation, "rules": rules}
