"""A board's built-in workflows (a project's Settings → Workflows), as GitHub runs them.

GitHub's API lists them with whether each is on (``ProjectV2.workflows``: ``name``,
``enabled``) but not what each one sets or watches for: that is set on the board only.
A new board has "Item closed" and "Pull request merged" on (both set Status to Done);
"Auto-close issue" closes an issue when its Status becomes the one it watches for
(Done unless a person chose another), whoever set it, an API call included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ralph.github.fake._model import Node, _iso

if TYPE_CHECKING:
    from ralph.github.fake._model import Issue, Item, ProjectV2

__all__ = ["AUTO_CLOSE", "ITEM_CLOSED", "ProjectWorkflow", "issue_closed", "status_set"]

ITEM_CLOSED = "Item closed"
AUTO_CLOSE = "Auto-close issue"

#: Every built-in workflow of a new board, in GitHub's list, and whether it starts on.
_BUILT_IN = (
    ("Item added to project", False),
    ("Item reopened", False),
    (ITEM_CLOSED, True),
    ("Code changes requested", False),
    ("Code review approved", False),
    ("Pull request merged", True),
    ("Auto-archive items", False),
    ("Auto-add to project", False),
    (AUTO_CLOSE, False),
    ("Pull request linked to issue", False),
    ("Auto-add sub-issues to project", False),
)


class ProjectWorkflow(Node):
    typename = "ProjectV2Workflow"

    def __init__(self, project: ProjectV2, number: int, name: str, enabled: bool) -> None:
        super().__init__(project.world, "PWF_")
        self.project = project
        self.number = number
        self.name = name
        self.enabled = enabled
        self.createdAt = self.updatedAt = _iso(project.world.clock())
        #: The Status it sets (Item closed) or closes an issue on (Auto-close issue):
        #: a setting of the board that GitHub's API does not show.
        self.status = "Done"


def built_in_workflows(project: ProjectV2) -> list[ProjectWorkflow]:
    return [
        ProjectWorkflow(project, number, name, enabled)
        for number, (name, enabled) in enumerate(_BUILT_IN, start=1)
    ]


def _on(project: ProjectV2, name: str) -> ProjectWorkflow | None:
    found = next((w for w in project.workflow_list if w.name == name), None)
    return found if found is not None and found.enabled else None


def status_set(item: Item, status: str) -> None:
    """After ``item``'s Status became ``status``: Auto-close issue closes its issue."""
    workflow = _on(item.project, AUTO_CLOSE)
    content: Any = item.content
    if workflow is None or workflow.status != status or content.typename != "Issue":
        return
    if content.state == "OPEN":
        content.close("COMPLETED")


def issue_closed(issue: Issue) -> None:
    """After ``issue`` closed: Item closed sets its Status on each board that has it on."""
    for item in issue.items:
        workflow = _on(item.project, ITEM_CLOSED)
        status = next((f for f in item.project.field_list if f.name == "Status"), None)
        if workflow is None or status is None:
            continue
        option = next((o for o in status.option_list if o["name"] == workflow.status), None)
        if option is not None:
            item.values[status.id] = option["id"]
