"""A Jira project's board as a ``ProjectBoard``: there is none to manage here. Managing
a board as a board is GitHub's (Projects V2); a Jira project's boards are Jira's own.
Every operation refuses in one line that says so and names what to use instead (the
MCP tools' words, since they are who asks)."""

from __future__ import annotations

from collections.abc import Mapping

from ralph.errors import NotAvailable
from ralph.tracker._unmanaged_board import UnmanagedBoard

__all__ = ["JiraBoard"]

_ISSUES = "list the project's issues with list_issues (by state: pipeline_dashboard)"
_SET_UP = "its statuses and estimate field are Jira's, checked by `ralph init --jira PROJECT`"
_CODE_HOST = "pull requests go to the code host in ralph.toml (code_host)"

#: What to use instead on a Jira project, by operation (as LinearBoard's).
_INSTEAD: Mapping[str, str] = {
    "info": f"{_ISSUES}; {_SET_UP}; {_CODE_HOST}",
    "projects": "this server serves one Jira project; pipeline_dashboard shows it",
    "update": "rename or describe the project in Jira's project settings",
    "set_up": "set a Jira project up with `ralph init --jira PROJECT`",
    "copy": "set another Jira project up with `ralph init --jira PROJECT`",
    "items": "list the project's issues with list_issues",
    "add_item": "every issue of the project is on its board; create one with create_issue",
    "remove_item": "every issue of the project is on its board; close it with close_issue",
    "clear_field": "set the field with update_estimate or update_priority",
    "add_draft": "create an issue with create_issue (it waits in Backlog)",
    "update_draft": "Jira has no drafts; change an issue with update_issue",
    "convert_draft": "Jira has no drafts; create an issue with create_issue",
    "reorder": "order the project's issues on Jira's own boards",
    "views": "filter the project's issues with list_issues; Jira keeps its own boards",
    "set_field_options": _SET_UP,
    "delete_field": "the project's statuses and fields are Jira's and stay",
    "repositories": _CODE_HOST,
    "link_repository": _CODE_HOST,
    "collaborators": "the project's people are managed in Jira's project settings",
    "link_team": "the project is this server's",
    "other_projects": "this server serves one Jira project; leave the project number out",
    "memberships": "an issue is on its project's board; move it with update_workflow_state",
}


class JiraBoard(UnmanagedBoard):
    kind = "jira"

    def __init__(self, project_key: str) -> None:
        self.project_key = project_key

    def unavailable(self, operation: str) -> NotAvailable:
        instead = _INSTEAD.get(operation, "use what the tools for issues offer")
        return NotAvailable(
            f"managing a project board is GitHub's (Projects V2), not the Jira project "
            f"{self.project_key}'s: {instead}"
        )
