"""Board tools on who works on the board: collaborators' roles and linked teams."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ralph.mcp._board_lookups import board_lookups
from ralph.mcp._context import ToolContext
from ralph.tracker import Collaborator

__all__ = ["register_board_people_tools"]


def register_board_people_tools(tools: ToolContext) -> None:
    board, _ = board_lookups(tools)

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
