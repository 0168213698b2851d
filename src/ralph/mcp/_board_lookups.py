"""What every board tool module shares: this server's board, the check that a
``number`` argument names it, and that argument's declaration."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from ralph.mcp._context import ToolContext
from ralph.tracker import ProjectBoard, ProjectInfo

__all__ = ["ProjectNumber", "board_lookups"]

ProjectNumber = Annotated[
    int | None, Field(description="The project's number (default: this server's board)")
]


def board_lookups(
    tools: ToolContext,
) -> tuple[Callable[[], ProjectBoard], Callable[[int | None], ProjectInfo]]:
    """``board()``, the tracker's board, and ``ours(number)``, its info once ``number``
    (when given) is found to name it."""
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

    return board, ours
