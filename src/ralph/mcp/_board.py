"""Board tools (the original's project, view and project-management tools): the board
itself, its items, drafts, order, fields, views and links, over the tracker's
``ProjectBoard``. What a board lacks (the local one has no teams) is a tool error
saying what to use instead."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.dashboard import expand_profile
from ralph.mcp._context import ToolContext
from ralph.mcp._issues import _enum, item_filter
from ralph.tracker import (
    BoardItem,
    Collaborator,
    FieldOption,
    ItemType,
    ProjectBoard,
    ProjectInfo,
)
from ralph.workflow import Estimate, Priority, parse_state

__all__ = ["register_board_tools"]

ProjectNumber = Annotated[
    int | None, Field(description="The project's number (default: this server's board)")
]
_DATE_HELP = "@today, @now, @today-7d, @now-24h, @today-1m, or an ISO date (YYYY-MM-DD)"


def _summary(board: ProjectInfo) -> dict[str, Any]:
    return {"id": board.id, "number": board.number, "url": board.url, "title": board.title}


def _fields(board: ProjectInfo) -> dict[str, Any]:
    return {
        f.name: {"id": f.id, "options": [o.name for o in f.options]}
        for f in board.fields
        if f.data_type == "SINGLE_SELECT"
    }


def register_board_tools(tools: ToolContext) -> None:
    project = tools.project

    def board() -> ProjectBoard:
        return project.tracker.project_board()

    def ours(number: int | None) -> ProjectInfo:
        """This server's board; ``number`` must name it when given."""
        info = board().info()
        if number is not None and number != info.number:
            raise ValueError(
                f"this server serves project #{info.number}, not #{number}; leave number out"
            )
        return info

    # -- projects ---------------------------------------------------------------------------

    @tools.write("set up project")
    def setup_project(
        owner: Annotated[str, Field(min_length=1, description="The board's owner (login)")],
        title: Annotated[str, Field(min_length=1)] = "Ralph Workflow",
        templateProjectNumber: Annotated[
            int | None, Field(ge=1, description="Copy this board of the owner's")
        ] = None,
    ) -> dict[str, Any]:
        """Find or create a board titled ``title`` with Ralph's Workflow State, Priority
        and Estimate fields (copied from a template board when given), linked to the
        repository. GitHub only: the local board is made by ralph init."""
        made = board().set_up(owner, title, template=templateProjectNumber)
        data: dict[str, Any] = {"project": _summary(made), "fields": _fields(made)}
        if templateProjectNumber is not None:
            data["copiedFrom"] = templateProjectNumber
        return data

    @tools.read("get project")
    def get_project(
        owner: Annotated[str | None, Field(description="Default: the board's owner")] = None,
        number: ProjectNumber = None,
    ) -> dict[str, Any]:
        """A board with its fields (options with colours and descriptions) and counts."""
        found = board().info() if number is None else board().project(number, owner=owner)
        return found.to_dict()

    @tools.read("list projects")
    def list_projects(
        owner: Annotated[str | None, Field(description="Default: the board's owner")] = None,
        state: Annotated[str, Field(description="open, closed or all")] = "open",
        limit: Annotated[int, Field(ge=1, le=100)] = 50,
    ) -> dict[str, Any]:
        """The owner's boards, by title."""
        if state not in ("open", "closed", "all"):
            raise ValueError("state must be open, closed or all")
        found = board().projects(state=state, limit=limit, owner=owner)
        listed = []
        for item in found:
            data = item.to_dict()
            del data["fields"], data["readme"]
            listed.append(data)
        return {"projects": listed, "totalCount": len(listed)}

    @tools.write("copy project")
    def copy_project(
        sourceProjectNumber: Annotated[int, Field(ge=1)],
        title: Annotated[str, Field(min_length=1)],
        sourceOwner: str | None = None,
        targetOwner: str | None = None,
        includeDraftIssues: bool = False,
    ) -> dict[str, Any]:
        """Copy a board (its fields, views and workflows; not its items but drafts when
        asked) to a new one. GitHub only."""
        info = board().info()
        made = board().copy(
            sourceProjectNumber,
            title,
            source_owner=sourceOwner or info.owner,
            owner=targetOwner or info.owner,
            include_drafts=includeDraftIssues,
        )
        return {"project": _summary(made), "copiedFrom": sourceProjectNumber}

    @tools.write("update project")
    def update_project(
        title: str | None = None,
        shortDescription: str | None = None,
        readme: str | None = None,
        public: bool | None = None,
        closed: bool | None = None,
    ) -> dict[str, Any]:
        """Change the board's title, description, readme, visibility or open state."""
        if all(v is None for v in (title, shortDescription, readme, public, closed)):
            raise ValueError("give at least one of title, shortDescription, readme, public, closed")
        updated = board().update(
            title=title,
            short_description=shortDescription,
            readme=readme,
            public=public,
            closed=closed,
        )
        data = updated.to_dict()
        del data["fields"]
        return data

    # -- items ------------------------------------------------------------------------------

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
        updatedSince: Annotated[str | None, Field(description=_DATE_HELP)] = None,
        updatedBefore: Annotated[str | None, Field(description=_DATE_HELP)] = None,
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
            estimate=_enum(Estimate, estimate),
            priority=_enum(Priority, priority),
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

    # -- fields, views, links -----------------------------------------------------------------

    @tools.read("list views")
    def list_views(number: ProjectNumber = None) -> dict[str, Any]:
        """The board's views (locally: the filter profiles as saved filters)."""
        info = ours(number)
        views = board().views()
        return {
            "projectId": info.id,
            "views": [v.to_dict() for v in views],
            "totalCount": len(views),
        }

    @tools.read("list project repositories")
    def list_project_repos(number: ProjectNumber = None) -> dict[str, Any]:
        """The repositories linked to the board."""
        info = ours(number)
        repos = []
        for name in board().repositories():
            owner, _, repo = name.rpartition("/")
            repos.append({"owner": owner or None, "repo": repo, "nameWithOwner": name})
        return {"projectId": info.id, "repos": repos, "totalRepos": len(repos)}

    @tools.write("link repository")
    def link_repository(
        repoToLink: Annotated[str, Field(min_length=1, description="OWNER/NAME or NAME")],
        unlink: bool = False,
    ) -> dict[str, Any]:
        """Link a repository to the board, or unlink it."""
        changed = board().link_repository(repoToLink, unlink=unlink)
        return {"repository": repoToLink, "linked": not unlink, "changed": changed}

    @tools.write("update field options")
    def update_field_options(
        fieldName: Annotated[str, Field(min_length=1)],
        options: Annotated[
            list[dict[str, str]],
            Field(min_length=1, description="[{name, color, description}]; replaces all"),
        ],
        number: ProjectNumber = None,
    ) -> dict[str, Any]:
        """Replace every option of a single-select field (its values on every item are
        cleared, as GitHub does; Ralph's own fields and Status are refused). GitHub only."""
        ours(number)
        parsed = []
        for option in options:
            unknown = set(option) - {"name", "color", "description"}
            if unknown or "name" not in option:
                raise ValueError("each option is {name, color, description}")
            parsed.append(
                FieldOption(
                    "",
                    option["name"],
                    option.get("color", "GRAY"),
                    option.get("description", ""),
                )
            )
        field = board().set_field_options(fieldName, parsed)
        return field.to_dict()

    @tools.write("delete field")
    def delete_field(
        field: Annotated[str, Field(min_length=1)],
        confirm: Annotated[bool, Field(description="False: only say what would go")] = False,
    ) -> dict[str, Any]:
        """Delete a field of the board and its values (Workflow State, Priority,
        Estimate and Status are refused); without confirm, a dry run. GitHub only."""
        if not confirm:
            found = board().info().field(field)
            if found is None:
                board().delete_field(field)  # refused with the board's own words
            return {"field": field, "deleted": False, "dryRun": True}
        board().delete_field(field)
        return {"field": field, "deleted": True, "dryRun": False}

    @tools.write("update collaborators")
    def update_collaborators(
        collaborators: Annotated[
            list[dict[str, str]],
            Field(min_length=1, description="[{username | teamSlug, role: READER..NONE}]"),
        ],
    ) -> dict[str, Any]:
        """Give people or teams a role on the board (NONE takes it away). GitHub only."""
        parsed = []
        for entry in collaborators:
            unknown = set(entry) - {"username", "teamSlug", "role"}
            if unknown or "role" not in entry:
                raise ValueError("each collaborator is {username or teamSlug, role}")
            parsed.append(
                Collaborator(
                    entry["role"].upper(),
                    login=entry.get("username", ""),
                    team=entry.get("teamSlug", ""),
                )
            )
        board().update_collaborators(parsed)
        return {"updated": len(parsed)}

    @tools.write("link team")
    def link_team(teamSlug: Annotated[str, Field(min_length=1)], unlink: bool = False) -> Any:
        """Link an organisation's team to the board, or unlink it. GitHub only."""
        board().link_team(teamSlug, unlink=unlink)
        return {"team": teamSlug, "linked": not unlink}
