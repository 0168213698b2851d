"""What a successful hero or team run says last: the pull requests it merged, the merge
commits on the base branch, and where to look next."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ralph.cli._console import Console

if TYPE_CHECKING:
    from ralph.orchestrate import RunReport
    from ralph.project import Project
    from ralph.tracker import PullRequest

__all__ = ["merged_pull_requests", "print_success"]


def merged_pull_requests(project: Project, run_id: int) -> list[PullRequest]:
    """The pull requests the run's merge tasks merged, each once, in merge order. Each is
    read by the number its issue links, as the merge phase finds it: listing every pull
    request would be a scan of the repository on GitHub (a tracker on another service,
    Linear, links none: the code host is asked, ``Project.pull_requests_of``)."""
    from ralph.graph import TaskKind
    from ralph.tasks import TaskStatus
    from ralph.tracker import PullRequestState

    found: dict[int, PullRequest] = {}
    done = project.store.list_tasks(run_id, kind=TaskKind.MERGE.value, status=TaskStatus.DONE)
    for task in done:
        issue = project.tracker.get_issue(task.issues[0])
        for pr in project.pull_requests_of(issue):
            if pr.number not in found and (
                pr.state is PullRequestState.MERGED and issue.number in pr.closes
            ):
                found[pr.number] = pr
    return list(found.values())


def print_success(
    report: RunReport,
    merged: list[PullRequest],
    base: str,
    console: Console,
    *,
    name: Callable[[int], str] = "#{}".format,
    next_steps: bool = True,
) -> None:
    """What merged and, with ``next_steps``, where to look next; ``name`` names an
    issue as its tracker does (``Tracker.issue_name``)."""
    for pr in merged:
        commit = (pr.merge_commit or "")[:7]
        closes = ", ".join(name(n) for n in pr.closes)
        console.print(
            f"Merged pull request #{pr.number} into {pr.base} ({commit})"
            + (f", closing {closes}." if closes else "."),
            markup=False,
        )
    if not next_steps:
        return
    console.print(
        f"Next: `ralph web` to see the board, `ralph runs show {report.run.id}` for this "
        f"run, `git log --oneline {base}` for the change.",
        markup=False,
    )
