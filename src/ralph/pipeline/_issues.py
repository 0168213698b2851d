"""The issue snapshot the pipeline algorithms read, and how it is parsed from JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ralph._json import int_field, object_field, optional_str
from ralph.workflow import OVERSIZED_ESTIMATES

__all__ = ["IssueState"]


@dataclass(frozen=True)
class IssueState:
    """What pipeline detection needs to know about one issue.

    ``workflow_state`` and ``estimate`` are kept as given: the detection rules decide what
    an unknown value means (an unknown state sends the issue to triage).
    """

    number: int
    title: str = ""
    workflow_state: str | None = None
    estimate: str | None = None
    sub_issue_count: int = 0
    #: Triage has had it (its label is on): in Backlog, it was kept there on purpose.
    #: Not in the original's JSON, which has no labels.
    triaged: bool = False

    @property
    def oversized(self) -> bool:
        """M/L/XL and not yet split into sub-issues."""
        return self.estimate in OVERSIZED_ESTIMATES and self.sub_issue_count == 0

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> IssueState:
        """Accepts the original's camelCase keys (``workflowState``, ``subIssueCount``) and
        snake_case ones. ``number`` is required."""
        data = object_field(data, "an issue")
        number = int_field(data, "number")
        assert number is not None
        title = optional_str(data, "title") or ""
        return cls(
            number=number,
            title=title,
            workflow_state=optional_str(data, "workflowState", "workflow_state"),
            estimate=optional_str(data, "estimate"),
            sub_issue_count=int_field(data, "subIssueCount", "sub_issue_count", required=False)
            or 0,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "title": self.title,
            "workflowState": self.workflow_state,
            "estimate": self.estimate,
            "subIssueCount": self.sub_issue_count,
        }
