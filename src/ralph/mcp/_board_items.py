"""Board tools on the board's items: list them, add and remove them, clear a field,
drafts (create, update, convert) and their order on the board."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.dashboard import expand_profile
from ralph.mcp._board_lookups import ProjectNumber, board_lookups
from ralph.mcp._context import ToolContext
from ralph.mcp._issue_filters import DATE_HELP, item_filter
from ralph.mcp._issue_shapes import parse_enum
from ralph.tracker import BoardItem, ItemType
from ralph.workflow import Estimate, Priority, parse_state

__all__ = ["register_board_item_tools"]


def register_board_item_tools(tools: ToolContext) -> None:
    project = tools.project
    board, ours = board_lookups(tools)

    @tools.read("list project items")
    def list_project_items(
        number: ProjectNumber = None,
        profile: str | None = None,
        workflowState: str | None = None,
        estimate: str | None = None,
        priority: str | None = None,
        has: list[str] | None = None,
        no: list[str] | None = None,
        excludeWorkflowStates: list[str] | None = None,
        excludeEstimates: list[str] | None = None,
        excludePriorities: list[str] | None = None,
        itemType: Annotated[
            str | None, Field(description="ISSUE, PULL_REQUEST or DRAFT_ISSUE")
        ] = None,
        updatedSince: Annotated[str | None, Field(description=DATE_HELP)] = None,
        updatedBefore: Annotated[str | None, Field(description=DATE_HELP)] = None,
        includeArchived: bool = False,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> dict[str, Any]:
        """The board's items (issues, pull requests, drafts) in board order, filtered as
        list_issues filters."""
        ours(number)
        if profile is not None:
            workflowState = workflowState or expand_profile(profile).get("workflowState")
        kinds = {kind.value for kind in ItemType}
        if itemType is not None and itemType.upper() not in kinds:
            raise ValueError(f"itemType must be one of {', '.join(sorted(kinds))}")
        wanted = item_filter(
            workflow_state=workflowState,
            estimate=estimate,
            priority=priority,
            has=has,
            no=no,
            exclude_states=excludeWorkflowStates,
            exclude_estimates=excludeEstimates,
            exclude_priorities=excludePriorities,
            since=updatedSince,
            before=updatedBefore,
            now=project.tracker.now(),
        )
        every = board().items()
        found = [
            item
            for item in every
            if (includeArchived or not item.archived)
            and (itemType is None or item.type.value == itemType.upper())
            and wanted.matches(item.filter_fields())
        ]
        return {
            "totalCount": len(every),
            "filteredCount": len(found),
            "items": [item.to_dict() for item in found[:limit]],
        }

    @tools.write("add to project")
    def add_to_project(number: Annotated[int, Field(description="Issue or PR number")]) -> Any:
        """Put an issue or pull request on the board (nothing changes if it is there)."""
        item = board().add_item(number)
        return {"number": number, "projectItemId": item.id, "added": True}

    def item_id(number: int | None, projectItemId: str | None) -> str:
        if (number is None) == (projectItemId is None):
            raise ValueError(
                "Either number or projectItemId must be provided"
                if number is None
                else "Provide either number or projectItemId, not both"
            )
        if projectItemId is not None:
            return projectItemId
        assert number is not None
        return board().item_id_on_board(number)

    @tools.write("remove from project")
    def remove_from_project(
        number: int | None = None, projectItemId: str | None = None
    ) -> dict[str, Any]:
        """Take an item off the board (a draft's content is gone with it). GitHub only:
        every local issue is on its board."""
        board().remove_item(item_id(number, projectItemId))
        return {"number": number, "projectItemId": projectItemId, "removed": True}

    @tools.write("clear field")
    def clear_field(number: int, field: Annotated[str, Field(min_length=1)]) -> Any:
        """Empty one field of an issue's item (Estimate, Priority, or another field of
        the board; Workflow State moves only through update_workflow_state)."""
        board().clear_field(number, field)
        return {"number": number, "field": field, "cleared": True}

    @tools.write("create draft issue")
    def create_draft_issue(
        title: Annotated[str, Field(min_length=1)],
        body: str = "",
        workflowState: str | None = None,
        priority: str | None = None,
        estimate: str | None = None,
    ) -> dict[str, Any]:
        """A draft on the board with its fields (on the local board: an issue in
        Backlog, or the workflowState given)."""
        item = board().add_draft(
            title,
            body,
            state=parse_state(workflowState) if workflowState else None,
            estimate=parse_enum(Estimate, estimate),
            priority=parse_enum(Priority, priority),
        )
        fields_set = [
            name
            for name, value in (
                ("workflowState", workflowState),
                ("priority", priority),
                ("estimate", estimate),
            )
            if value is not None
        ]
        return {
            "projectItemId": item.id,
            "draftIssueId": item.draft_issue_id,
            "number": item.number,
            "title": item.title,
            "fieldsSet": fields_set,
        }

    @tools.write("update draft issue")
    def update_draft_issue(
        draftIssueId: Annotated[str, Field(min_length=1)],
        title: str | None = None,
        body: str | None = None,
    ) -> dict[str, Any]:
        """Change a draft's title or body. GitHub only (a local draft is an issue)."""
        if title is None and body is None:
            raise ValueError("give a title, a body or both")
        item = board().update_draft(draftIssueId, title=title, body=body)
        return {"draftIssueId": draftIssueId, "title": item.title, "body": item.body}

    @tools.write("convert draft issue")
    def convert_draft_issue(
        projectItemId: Annotated[str, Field(min_length=1)],
        repositoryId: Annotated[
            str | None, Field(description="Default and only choice: this server's repository")
        ] = None,
    ) -> dict[str, Any]:
        """Turn a draft into an issue of the repository. GitHub only."""
        tracker = project.tracker
        mine = getattr(tracker, "repository_id", None)
        if repositoryId is not None and mine is not None and repositoryId != mine():
            raise ValueError("repositoryId names another repository than this server's")
        item: BoardItem = board().convert_draft(projectItemId)
        return {"projectItemId": item.id, "number": item.number, "title": item.title}

    @tools.write("reorder item")
    def reorder_item(
        number: int,
        afterNumber: Annotated[
            int | None, Field(description="Place it after this one (default: at the top)")
        ] = None,
    ) -> dict[str, Any]:
        """Move an item to the top of the board or right after another."""
        board().reorder(number, afterNumber)
        return {
            "number": number,
            "position": "top" if afterNumber is None else f"after #{afterNumber}",
        }
