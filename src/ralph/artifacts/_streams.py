"""What a work stream is called (docs/compatibility.md): its plan's frontmatter,
its worktree and branch, and its pull request's title. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["StreamNames"]


@dataclass(frozen=True)
class StreamNames:
    """A stream of ``epic``'s issues. ``epic`` is the issue the stream's group was split
    from (the members' parent; the group's primary when they have none)."""

    epic: int
    issues: tuple[int, ...]

    @classmethod
    def of(cls, epic: int, issues: Iterable[int]) -> StreamNames:
        return cls(epic, tuple(sorted(set(issues))))

    @classmethod
    def from_frontmatter(
        cls, fields: Mapping[str, Any], *, epic: int | None = None
    ) -> StreamNames | None:
        """The stream a plan's frontmatter names (``stream_id``, ``stream_issues``,
        ``epic_issue``, else ``epic``); None for a plan that is not a stream's."""
        stream = fields.get("stream_id")
        named = fields.get("epic_issue")
        epic = named if isinstance(named, int) else epic
        if not stream or epic is None:
            return None
        listed = fields.get("stream_issues")
        if not isinstance(listed, list):
            listed = str(stream).removeprefix("stream-").split("-")
        issues = [int(n) for n in listed if isinstance(n, int) or str(n).isdigit()]
        return cls.of(epic, issues) if issues else None

    @property
    def id(self) -> str:
        """``stream-42-44`` (the original's stream id)."""
        return "stream-" + "-".join(str(n) for n in self.issues)

    @property
    def worktree(self) -> str:
        """``GH-40-stream-42-44``."""
        return f"GH-{self.epic}-{self.id}"

    @property
    def branch(self) -> str:
        return f"feature/{self.worktree}"

    def frontmatter(self) -> dict[str, Any]:
        """What the runner writes into the stream's plan."""
        return {"stream_id": self.id, "stream_issues": list(self.issues), "epic_issue": self.epic}

    def pull_request_title(self, title: str) -> str:
        """``Title [stream-42-44 of GH-40]``."""
        return f"{title} [{self.id} of GH-{self.epic}]"
