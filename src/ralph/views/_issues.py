"""An issue as people look at it: its fields and relations, the state history its audit
markers record, the documents linked from its comments (or found on disk), its pull
requests with their checks and reviews, and the tool calls its agents were refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.artifacts import ArtifactKind, Discovery, Links, discover
from ralph.errors import TaskNotFound
from ralph.project import Project
from ralph.tracker import Issue, PullRequest, iso
from ralph.workflow import TransitionRecord, parse_all_transitions

if TYPE_CHECKING:
    from ralph.tasks import TaskStore

__all__ = [
    "IssueView",
    "Refusal",
    "artifacts_of",
    "history_of",
    "issue_dict",
    "load_issue",
    "refusals_of",
]

_DOCUMENT_ROOT = Path("thoughts") / "shared"


@dataclass(frozen=True)
class Refusal:
    """Tools an agent working on the issue was refused, in one task of one run."""

    run: int
    task: str
    tools: tuple[str, ...]


def history_of(issue: Issue) -> list[TransitionRecord]:
    """State changes recorded in the issue's comments, oldest first."""
    return [
        record
        for comment in issue.comments
        for record in parse_all_transitions(comment.body, iso(comment.created_at) or "")
    ]


def artifacts_of(issue: Issue, root: Path | None) -> dict[ArtifactKind, Discovery]:
    """Documents linked from the comments, or found on disk under thoughts/shared."""
    files: list[str] = []
    if root is not None and (root / _DOCUMENT_ROOT).is_dir():
        files = [p.relative_to(root).as_posix() for p in (root / _DOCUMENT_ROOT).rglob("*.md")]
    bodies = [c.body for c in issue.comments]
    found = {}
    for kind in ArtifactKind:
        discovery = discover(kind, issue.number, bodies, files, Links(), group_primary=issue.parent)
        if discovery is not None:
            found[kind] = discovery
    return found


def refusals_of(store: TaskStore, number: int) -> list[Refusal]:
    """Tool calls agents were refused in the store's runs, for tasks on issue ``number``:
    the newest run first, each run's tasks in the order of their first refusal."""
    refused: dict[tuple[int, int], list[str]] = {}
    for charge in store.refused_charges():
        if charge.task_id is not None:
            refused.setdefault((charge.run_id, charge.task_id), []).extend(charge.refused)
    found = []
    for (run_id, task_id), tools in refused.items():
        try:
            task = store.get_task(task_id)
        except TaskNotFound:  # a charge outlived its task: nothing to show it against
            continue
        if number in task.issues:
            found.append(Refusal(run_id, task.subject, tuple(dict.fromkeys(tools))))
    return sorted(found, key=lambda refusal: -refusal.run)


def _pr_dict(pr: PullRequest) -> dict[str, Any]:
    return {
        "number": pr.number,
        "title": pr.title,
        "state": pr.state.value,
        "head": pr.head,
        "base": pr.base,
        "mergeable": pr.mergeable,
        "mergeCommit": pr.merge_commit,
        "url": pr.url,
        "reviewDecision": pr.review_decision.value if pr.review_decision else None,
        "mergeState": pr.merge_state.value if pr.merge_state else None,
        "checks": [
            {
                "name": c.name,
                "status": c.status.value,
                "conclusion": c.conclusion.value if c.conclusion else None,
                "required": c.required,
                "url": c.url,
            }
            for c in pr.checks
        ],
        "reviews": [
            {"author": r.author, "state": r.state.value, "body": r.body, "at": iso(r.submitted_at)}
            for r in pr.reviews
        ],
        "unresolvedThreads": sum(1 for t in pr.threads if not t.resolved),
    }


def issue_dict(
    issue: Issue,
    *,
    full: bool = True,
    prs: Sequence[PullRequest] = (),
    root: Path | None = None,
) -> dict[str, Any]:
    """The issue in the original's camelCase JSON; ``full`` adds the body, relations,
    comments, pull requests, history and documents."""
    data: dict[str, Any] = {
        "number": issue.number,
        "title": issue.title,
        "state": issue.workflow_state.value if issue.workflow_state else None,
        "workflowState": issue.workflow_state.value if issue.workflow_state else None,
        "estimate": issue.estimate.value if issue.estimate else None,
        "priority": issue.priority.value if issue.priority else None,
        "labels": list(issue.labels),
        "status": issue.status.value,
        "closeReason": issue.close_reason.value if issue.close_reason else None,
        "parent": issue.parent,
        "archived": issue.archived,
        "createdAt": iso(issue.created_at),
        "updatedAt": iso(issue.updated_at),
        "url": issue.url,
    }
    if not full:
        return data
    data |= {
        "body": issue.body,
        "subIssues": list(issue.sub_issues),
        "blockedBy": list(issue.blocked_by),
        "blocking": list(issue.blocking),
        "closedAt": iso(issue.closed_at),
        "comments": [
            {"author": c.author, "createdAt": iso(c.created_at), "body": c.body}
            for c in issue.comments
        ],
        "pullRequests": [_pr_dict(pr) for pr in prs]
        or [{"number": n} for n in issue.pull_requests],
        "history": [
            {"from": r.from_state, "to": r.to_state, "command": r.command, "at": r.at}
            for r in history_of(issue)
        ],
        "artifacts": {
            kind.value: {"path": found.path, "source": found.source}
            for kind, found in artifacts_of(issue, root).items()
        },
    }
    return data


@dataclass(frozen=True)
class IssueView:
    """An issue with what its page shows beside it."""

    issue: Issue
    related: Mapping[int, Issue]
    prs: tuple[PullRequest, ...]
    refusals: tuple[Refusal, ...]
    root: Path | None

    def to_dict(self) -> dict[str, Any]:
        """``ralph issue show N --json``."""
        data = issue_dict(self.issue, prs=self.prs, root=self.root)
        data["refusedTools"] = [
            {"run": r.run, "task": r.task, "tools": list(r.tools)} for r in self.refusals
        ]
        return data


def load_issue(project: Project, number: int) -> IssueView:
    """Issue ``number`` with its related issues, pull requests and refused tool calls;
    IssueNotFound when the tracker has no such issue."""
    tracker = project.tracker
    # One step of reads: a remote tracker reads the relatives together, not one by one.
    with tracker.snapshot():
        issue = tracker.get_issue(number)
        related = {
            n: tracker.get_issue(n)
            for n in {*issue.sub_issues, *issue.blocked_by, *issue.blocking, issue.parent}
            if n is not None
        }
    prs = tuple(project.pull_requests_of(issue))
    refusals = tuple(refusals_of(project.store, number))
    return IssueView(issue, related, prs, refusals, project.config.root)
