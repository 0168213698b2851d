"""Board tools on the board itself (the original's project tools): set it up, read
it, list and copy boards, change its title and settings. What a board lacks is a tool
error saying what to use instead."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._board_lookups import ProjectNumber, board_lookups
from ralph.mcp._context import ToolContext
from ralph.tracker import ProjectInfo

__all__ = ["register_board_project_tools"]


def _summary(board: ProjectInfo) -> dict[str, Any]:
    return {"id": board.id, "number": board.number, "url": board.url, "title": board.title}


def _fields(board: ProjectInfo) -> dict[str, Any]:
    return {
        f.name: {"id": f.id, "options": [o.name for o in f.options]}
        for f in board.fields
        if f.data_type == "SINGLE_SELECT"
    }


def register_board_project_tools(tools: ToolContext) -> None:
    board, _ = board_lookups(tools)

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
