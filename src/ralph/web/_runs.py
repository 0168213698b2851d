"""The runs: a list, and a page per run with its task graph drawn (status colours, the
critical path heavier), per-task time, attempts, cost and tokens with a link to each
task's history, log and agent transcripts, what needs a person with the command that
continues, and its latest events; ``/api/runs``, ``/api/runs/N`` and ``/api/tasks/N`` are
``ralph runs list``, ``ralph runs show N`` and ``ralph tasks show N`` with ``--json``.
``/runs/N/files/NAME`` serves a file the run keeps (``RunFiles``) as plain text, and
only those: any other name is a 404. Cancelling a run is a
POST through the same function as ``ralph runs cancel``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ralph.graph import Role
from ralph.orchestrate import (
    RunFiles,
    batch_words,
    build_report,
    cancel_run,
    key_waits,
    load_report,
    run_batches,
)
from ralph.tasks import RunStatus, TaskStatus
from ralph.tracker import Issue
from ralph.views import run_document, runs_document, task_document
from ralph.web._context import WebContext, context_of, done
from ralph.web._forms import action_form, back_to, number_of
from ralph.web._graph import layout_graph, render_svg
from ralph.workflow import WorkflowState

__all__ = ["routes"]

#: Events shown on a run's page, the newest last.
LATEST_EVENTS = 15


@dataclass(frozen=True)
class WaitingIssue:
    """An issue of the run that waits for a person, and what the page offers."""

    issue: Issue
    #: "approve" (a plan in review at a gate) or "retry" (escalated).
    action: str


def runs_page(request: Request) -> Response:
    web = context_of(request)
    runs = runs_document(web.project.store)
    return web.page(request, "runs.html", {"runs": runs})


def runs_api(request: Request) -> Response:
    return JSONResponse(runs_document(context_of(request).project.store))


def _waiting(web: WebContext, run_id: int, group: list[int]) -> list[WaitingIssue]:
    store = web.project.store
    gates = {
        n
        for t in store.list_tasks(run_id, status=TaskStatus.PENDING)
        if t.role == Role.HUMAN
        for n in t.issues[:1]
    }
    found = []
    with web.tracker():
        for number in dict.fromkeys([*group, *gates]):
            issue = web.project.tracker.get_issue(number)
            if issue.workflow_state is WorkflowState.HUMAN_NEEDED:
                found.append(WaitingIssue(issue, "retry"))
            elif number in gates and issue.workflow_state is WorkflowState.PLAN_IN_REVIEW:
                found.append(WaitingIssue(issue, "approve"))
    return found


def _run_values(web: WebContext, run_id: int) -> dict[str, Any]:
    store = web.project.store
    run = store.get_run(run_id)
    tasks = store.list_tasks(run_id)
    events = store.events(run_id)
    report = build_report(
        run,
        tasks,
        events,
        store.charges(run_id),
        store.messages(run_id),
        key_waits(store, run_id),
        run_batches(store, run, tasks),
    )
    layout = layout_graph(report.tasks, {t.id: t.deps for t in tasks})
    group = [int(n) for n in run.config.get("group", [])] or (
        [run.root_issue] if run.root_issue else []
    )
    continues = f"ralph {run.mode} {run.root_issue}" if run.root_issue else ""
    return {
        "files": _files(web, run_id).listing(),
        "run": run,
        "report": report,
        "svg": render_svg(layout, report.critical_keys),
        "critical": set(report.critical_keys),
        "batches": [(batch, batch_words(batch, run.id)) for batch in report.batches],
        "events": events[-LATEST_EVENTS:],
        "waiting": _waiting(web, run_id, group),
        "continues": continues,
        "active": run.status is RunStatus.ACTIVE,
        # A session that ended short of finishing asks its workers to stop and leaves its
        # run active for the next one: stopping while tasks still run, paused after.
        "stopping": run.shutdown_requested and any(t.status is TaskStatus.RUNNING for t in tasks),
    }


def run_page(request: Request) -> Response:
    web = context_of(request)
    values = _run_values(web, number_of(request))
    values["notice"] = request.query_params.get("notice", "")
    name = "_run.html" if request.query_params.get("fragment") else "run.html"
    return web.page(request, name, values)


def _files(web: WebContext, run_id: int) -> RunFiles:
    return RunFiles(web.project.config.root, run_id)


def run_api(request: Request) -> Response:
    web = context_of(request)
    run_id = number_of(request)
    report = load_report(web.project.store, run_id)
    return JSONResponse(run_document(report, _files(web, run_id).listing()))


def run_file(request: Request) -> Response:
    """A task's log or an agent's transcript, as text to read in the browser (never as
    HTML: a transcript holds what agents and issues said)."""
    web = context_of(request)
    run_id = number_of(request)
    web.project.store.get_run(run_id)  # RunNotFound: a 404 like any other bad id
    path = _files(web, run_id).path_of(str(request.path_params["name"]))
    kind = "text/plain; charset=utf-8"
    if path.suffix == ".jsonl":
        kind = "application/x-ndjson; charset=utf-8"
    return FileResponse(
        path,
        media_type=kind,
        content_disposition_type="inline",
        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"},
    )


def task_api(request: Request) -> Response:
    web = context_of(request)
    return JSONResponse(task_document(web.project.store, number_of(request)))


async def cancel_action(request: Request) -> Response:
    run_id = number_of(request)
    form = await action_form(request)

    def act(web: WebContext) -> str:
        canceled = cancel_run(web.project.store, run_id)
        return f"Run {run_id} canceled ({len(canceled)} unfinished task(s) canceled)."

    return await done(request, back_to(form, f"/runs/{run_id}"), act)


routes = [
    Route("/runs", runs_page, name="runs"),
    Route("/api/runs", runs_api, name="runs_api"),
    Route("/runs/{number}", run_page, name="run"),
    Route("/api/runs/{number}", run_api, name="run_api"),
    Route("/api/tasks/{number}", task_api, name="task_api"),
    Route("/runs/{number}/files/{name}", run_file, name="run_file"),
    Route("/runs/{number}/cancel", cancel_action, methods=["POST"], name="cancel"),
]
