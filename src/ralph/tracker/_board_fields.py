"""The board's own fields and their options: the names GitHub's Projects V2 board and the
local boards share, here apart from the GitHub client so a local board loads none of it."""

from __future__ import annotations

__all__ = ["ESTIMATE", "FIELDS", "PRIORITY", "PROJECT_TITLE", "STATUS", "WORKFLOW_STATE"]

WORKFLOW_STATE = "Workflow State"
ESTIMATE = "Estimate"
PRIORITY = "Priority"
#: GitHub's built-in field, synced one way from Workflow State.
STATUS = "Status"

PROJECT_TITLE = "Ralph Workflow"

#: name -> options (name, colour, description), in display order.
FIELDS: dict[str, tuple[tuple[str, str, str], ...]] = {
    WORKFLOW_STATE: (
        ("Backlog", "GRAY", "Awaiting triage"),
        ("Research Needed", "PURPLE", "Needs investigation before planning"),
        ("Research in Progress", "PURPLE", "Investigation underway (locked)"),
        ("Ready for Plan", "BLUE", "Research complete, ready for planning"),
        ("Plan in Progress", "BLUE", "Plan being written (locked)"),
        ("Plan in Review", "BLUE", "Plan awaiting approval"),
        ("In Progress", "ORANGE", "Implementation underway"),
        ("In Review", "YELLOW", "PR created, awaiting code review"),
        ("Done", "GREEN", "Completed and merged"),
        ("Human Needed", "RED", "Escalated - requires human intervention"),
        ("Canceled", "GRAY", "Ticket canceled or superseded"),
    ),
    PRIORITY: (
        ("P0", "RED", "Critical - Drop everything, fix now"),
        ("P1", "ORANGE", "High - Must do this sprint"),
        ("P2", "YELLOW", "Medium - Should do soon"),
        ("P3", "GRAY", "Low - Nice to have"),
    ),
    ESTIMATE: (
        ("XS", "BLUE", "Extra Small (1)"),
        ("S", "GREEN", "Small (2)"),
        ("M", "YELLOW", "Medium (3)"),
        ("L", "ORANGE", "Large (4)"),
        ("XL", "RED", "Extra Large (5)"),
    ),
}
