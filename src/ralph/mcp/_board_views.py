"""Board tools on the board's views, fields and linked repositories."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._board_lookups import ProjectNumber, board_lookups
from ralph.mcp._context import ToolContext
from ralph.tracker import FieldOption

__all__ = ["register_board_view_tools"]


def register_board_view_tools(tools: ToolContext) -> None:
    board, ours = board_lookups(tools)

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
