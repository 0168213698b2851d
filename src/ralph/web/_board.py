"""The board: a column per workflow state in pipeline order, a card per issue (estimate,
priority, who holds it, whether Ralph holds it back (a cap: "held: budget"), what runs
on it now, its warnings), the WIP limits and health
warnings of ``ralph status``; ``/api/board`` is the same as JSON."""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ralph.dashboard import PhaseSnapshot, WarningType
from ralph.project import Project
from ralph.runtimes import Activity
from ralph.tasks import RunStatus, TaskStatus
from ralph.tracker import IssueQuery
from ralph.views import BoardView, hold_document, load_board
from ralph.web._context import WebContext, context_of
from ralph.workflow import WorkflowState

__all__ = ["CARDS_PER_COLUMN", "board_fingerprint", "routes"]

#: The cards a column shows before "N more" (a link to the whole column): a board of
#: 10,000 issues stays a page a browser draws at once, and its server time small.
CARDS_PER_COLUMN = 30


@dataclass(frozen=True)
class Running:
    """A task running now on an issue."""

    run: int
    task: int
    subject: str
    owner: str
    #: What its agent is doing, one line ("turn 2 · 2.0k tokens · Edit calc/x.py").
    now: str = ""


def board_fingerprint(project: Project) -> Hashable:
    """What changes when a card should move or change: each issue's state, fields and
    last update."""
    tracker = project.tracker
    if tracker.remote:
        issues = tracker.list_issues(IssueQuery(status=None, board=True))
    else:
        # The dashboard's read, which a local board keeps while nothing changed: the
        # feed looks twice a second during a run, at any board size.
        issues = [i for i in tracker.board_issues() if not i.archived]
    return tuple(
        (i.number, i.workflow_state, i.estimate, i.priority, i.updated_at, i.status) for i in issues
    )


def _running(project: Project) -> dict[int, list[Running]]:
    found: dict[int, list[Running]] = {}
    store = project.store
    for run in store.list_runs(status=RunStatus.ACTIVE):
        for task in store.list_tasks(run.id, status=TaskStatus.RUNNING):
            owner = (task.owner or "").rpartition("/")[2]
            activity = Activity.from_dict(task.metadata.get("activity"))
            now = activity.summary() if activity is not None else ""
            for number in task.issues:
                found.setdefault(number, []).append(
                    Running(run.id, task.id, task.subject, owner, now)
                )
    return found


def _load(web: WebContext) -> BoardView:
    with web.tracker():
        return load_board(
            web.project.tracker, web.project.config, now=time.time(), store=web.project.store
        )


def _values(web: WebContext, column: str | None) -> dict[str, Any]:
    board = _load(web)
    dashboard = board.dashboard
    flags: dict[int, list[str]] = {}
    over_limit: set[str] = set()
    for warning in dashboard.warnings:
        if warning.type is WarningType.WIP_EXCEEDED:
            over_limit.add(warning.message.split(":")[0])
            continue
        if warning.type in (
            WarningType.PIPELINE_GAP,
            WarningType.LOCK_COLLISION,
            WarningType.BLOCKED,
        ):
            continue
        for number in warning.issues:
            flags.setdefault(number, []).append(warning.message)
    titles = {card.number: card.title for phase in dashboard.phases for card in phase.issues}
    return {
        "board": board,
        "phases": _phases_in_view(dashboard.phases),
        "titles": titles,
        "dashboard": dashboard,
        "flags": flags,
        "over_limit": over_limit,
        "limits": web.project.config.wip_limits,
        "running": _running(web.project),
        "held": {h.number: h for h in web.project.store.holds(web.project.config.repo)},
        # The column shown whole (``?column=STATE``), if it is one; the others are cut.
        "column": column if column in {p.state for p in dashboard.phases} else None,
        "cards_per_column": CARDS_PER_COLUMN,
    }


def _phases_in_view(phases: Sequence[PhaseSnapshot]) -> list[PhaseSnapshot]:
    """The columns in pipeline order, Human Needed first when it holds cards: what waits
    for a person is what a person opening the board should see first."""
    waiting = [p for p in phases if p.state == WorkflowState.HUMAN_NEEDED.value and p.issues]
    return waiting + [p for p in phases if p not in waiting]


def board_page(request: Request) -> Response:
    web = context_of(request)
    name = "_board.html" if request.query_params.get("fragment") else "board.html"
    return web.page(request, name, _values(web, request.query_params.get("column")))


def board_api(request: Request) -> Response:
    web = context_of(request)
    holds = web.project.store.holds(web.project.config.repo)
    return JSONResponse({**_load(web).to_dict(), "holds": [hold_document(h) for h in holds]})


routes = [
    Route("/", board_page, name="board"),
    Route("/api/board", board_api, name="board_api"),
]
