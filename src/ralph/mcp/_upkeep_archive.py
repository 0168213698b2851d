"""Board upkeep tools that keep the board tidy: archiving an item or many
(``archive_item``, ``bulk_archive``) and the hygiene report (``project_hygiene``), the
library functions ``ralph hygiene`` calls (``ralph.board``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from ralph.board import hygiene_report
from ralph.dashboard import HygieneConfig, format_hygiene_markdown
from ralph.errors import RalphError
from ralph.mcp._context import ToolContext
from ralph.tracker import dashboard_items
from ralph.workflow import parse_state

__all__ = ["register_archive_tools"]

#: The original's cap on one bulk_archive call.
MAX_BULK_ARCHIVE = 200


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


def register_archive_tools(tools: ToolContext) -> None:
    project = tools.project

    def _number_of(item_id: str | None) -> int:
        for item in project.tracker.project_board().items():
            if item.id == item_id and item.number is not None:
                return item.number
        raise ValueError(
            f"no issue on the board has the item id {item_id!r}; give the issue's number"
        )

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
