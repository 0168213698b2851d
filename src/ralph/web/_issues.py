"""An issue's page: its fields and relations, the state history its audit markers record,
its documents rendered from Markdown, its pull requests with checks, reviews and diffs,
the runs that worked on it, and its comments; ``/api/issues/N`` is ``ralph issue show N
--json``. The actions a person takes on it (approve or reject its plan, retry it after
an escalation, its reason beside the button) are POSTs that go through the same
functions as ``ralph approve``, ``ralph review --reject`` and ``ralph issue retry``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ralph.artifacts import parse_frontmatter
from ralph.orchestrate import Outcome, run_outcome
from ralph.phases import approve, reject, retry_escalated
from ralph.tasks import Run
from ralph.tracker import escalation_of
from ralph.views import IssueView, artifacts_of, history_of, load_issue
from ralph.web._context import WebContext, context_of, done
from ralph.web._forms import action_form, back_to, number_of
from ralph.web._pr_diff import FileDiff, pull_request_diff
from ralph.workflow import WorkflowState

__all__ = ["routes"]


@dataclass(frozen=True)
class IssueDocument:
    """One of the issue's documents (research, plan...) as its page shows it."""

    kind: str
    path: str
    source: str
    #: The file on the base branch without its frontmatter, or None where it is not
    #: there (or is not a document).
    text: str | None
    #: Its frontmatter's fields, shown apart.
    fields: dict[str, Any] = field(default_factory=dict)
    #: A document in git (else a pull request's address, the implementation's).
    in_git: bool = True


def _documents(web: WebContext, view: IssueView) -> list[IssueDocument]:
    found = []
    base = web.project.config.base_branch
    for kind, discovery in artifacts_of(view.issue, view.root).items():
        path = PurePosixPath(discovery.path)
        text: str | None = None
        fields: dict[str, Any] = {}
        in_git = not path.is_absolute() and ".." not in path.parts and path.suffix == ".md"
        if in_git:
            text = web.project.git.read_on(base, str(path))
        if text is not None:
            fields, text = parse_frontmatter(text)
        found.append(
            IssueDocument(kind.value, discovery.path, discovery.source, text, fields, in_git)
        )
    return found


@dataclass(frozen=True)
class IssueRun:
    """A run with tasks on the issue, and how it went."""

    run: Run
    outcome: Outcome
    #: Its tasks on this issue: (subject, status), in the run's order.
    tasks: tuple[tuple[str, str], ...]


def _runs(web: WebContext, number: int) -> list[IssueRun]:
    """The runs that worked on issue ``number``, newest first."""
    store = web.project.store
    found = []
    for run in store.list_runs():
        tasks = store.list_tasks(run.id)
        mine = tuple((t.subject, t.status.value) for t in tasks if number in t.issues)
        if mine or run.root_issue == number:
            found.append(IssueRun(run, run_outcome(run, tasks), mine))
    return found


def _diffs(web: WebContext, view: IssueView) -> dict[int, list[FileDiff] | None]:
    return {pr.number: pull_request_diff(web.project.git, pr) for pr in view.prs}


def _view(web: WebContext, number: int) -> IssueView:
    with web.tracker():
        return load_issue(web.project, number)


def issue_page(request: Request) -> Response:
    web = context_of(request)
    view = _view(web, number_of(request))
    issue = view.issue
    values: dict[str, Any] = {
        "view": view,
        "issue": issue,
        "history": history_of(issue),
        "documents": _documents(web, view),
        "comments": [c for c in issue.comments if "ralph-transition:" not in c.body],
        "audits": len([c for c in issue.comments if "ralph-transition:" in c.body]),
        "can_review": issue.workflow_state is WorkflowState.PLAN_IN_REVIEW,
        "can_retry": issue.workflow_state is WorkflowState.HUMAN_NEEDED,
        "escalation": escalation_of(issue.comments),
        "runs": _runs(web, issue.number),
        "diffs": _diffs(web, view),
        "notice": request.query_params.get("notice", ""),
    }
    return web.page(request, "issue.html", values)


def issue_api(request: Request) -> Response:
    web = context_of(request)
    return JSONResponse(_view(web, number_of(request)).to_dict())


async def approve_action(request: Request) -> Response:
    number = number_of(request)
    form = await action_form(request)

    def act(web: WebContext) -> str:
        with web.tracker():
            approved = approve(web.project, number, actor="human")
        listed = ", ".join(f"#{i.number}" for i in approved)
        return f"Approved the plan for {listed}: In Progress."

    return await done(request, back_to(form, f"/issues/{number}"), act)


async def reject_action(request: Request) -> Response:
    number = number_of(request)
    form = await action_form(request)
    feedback = str(form.get("feedback", ""))

    def act(web: WebContext) -> str:
        with web.tracker():
            rejected = reject(web.project, number, feedback, actor="human")
        listed = ", ".join(f"#{i.number}" for i in rejected)
        return f"Rejected the plan for {listed}: Ready for Plan, with your feedback."

    return await done(request, back_to(form, f"/issues/{number}"), act)


async def retry_action(request: Request) -> Response:
    number = number_of(request)
    form = await action_form(request)

    def act(web: WebContext) -> str:
        with web.tracker():
            change = retry_escalated(web.project, number, actor="human")
        return (
            f"#{number}: {change.previous} → {change.new}. Next: run `ralph hero {number}`, "
            "or `ralph serve` picks it up."
        )

    return await done(request, back_to(form, f"/issues/{number}"), act)


routes = [
    Route("/issues/{number}", issue_page, name="issue"),
    Route("/api/issues/{number}", issue_api, name="issue_api"),
    Route("/issues/{number}/approve", approve_action, methods=["POST"], name="approve"),
    Route("/issues/{number}/reject", reject_action, methods=["POST"], name="reject"),
    Route("/issues/{number}/retry", retry_action, methods=["POST"], name="retry"),
]
