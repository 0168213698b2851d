"""Reconciliation's decisions: which issues a person took away, whose agents stop (only
those of tasks taken before the read that saw it), and how often the board is read: once
per period for every session and worker of a process, never once per task."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ralph.db import open_database
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.orchestrate import BoardReads, Crew, Reconciler, Worker, withdrawn
from ralph.orchestrate._execute import Execution, ExecutionStatus
from ralph.runtimes import StopSignal
from ralph.tasks import Claim, TaskStore, open_store
from ralph.tracker import CloseReason, Issue, IssueQuery, IssueStatus, LocalTracker
from ralph.workflow import WorkflowState

_S = WorkflowState


@pytest.mark.parametrize(
    ("state", "is_open", "why"),
    [
        (_S.CANCELED, True, "was moved to Canceled"),
        (_S.DONE, True, "was moved to Done"),
        (_S.HUMAN_NEEDED, True, "was moved to Human Needed"),
        (_S.RESEARCH_IN_PROGRESS, False, "was closed"),
        (None, True, "was taken off the board"),
        (_S.RESEARCH_IN_PROGRESS, True, ""),
        (_S.BACKLOG, True, ""),
        (_S.IN_PROGRESS, True, ""),
    ],
)
def test_an_issue_is_withdrawn_when_a_person_takes_it_out_of_the_pipeline(state, is_open, why):
    status = IssueStatus.OPEN if is_open else IssueStatus.CLOSED
    issue = Issue(number=2, title="Add alpha", workflow_state=state, status=status)
    assert withdrawn(issue) == why


def test_an_issue_missing_from_the_board_is_withdrawn():
    assert withdrawn(None) == "is not on the board any more"


class CountingTracker(LocalTracker):
    def __init__(self) -> None:
        super().__init__(open_database("memory://"), repo="demo")
        self.reads = 0

    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        self.reads += 1
        return super().list_issues(query)


@pytest.fixture
def tracker() -> CountingTracker:
    tracker = CountingTracker()
    for title in ("Add alpha", "Add beta", "Add gamma"):
        tracker.create_issue(title, state=_S.RESEARCH_NEEDED)
    return tracker


@pytest.fixture
def store() -> Iterator[TaskStore]:
    with open_store("memory://") as opened:
        yield opened


def _busy_crew(store: TaskStore, issues: list[int]) -> tuple[Crew, list[StopSignal]]:
    """Workers each holding a research task of one issue, as a crew in the middle of
    running them (their agents would be listening to the signals returned)."""
    run = store.create_run("hero GH-1", root_issue=1)
    store.add_tasks(
        run.id,
        [
            TaskSpec(f"research:{n}", TaskKind.RESEARCH, Role.ANALYST, (n,), f"Research GH-{n}", "")
            for n in issues
        ],
    )

    def execute(claim: Claim, stop: StopSignal) -> Execution:
        return Execution(claim.task_id, ExecutionStatus.DONE)

    workers, signals = [], []
    for n in issues:
        worker = Worker(store, run.id, f"w{n}", ["analyst"], execute)
        claim = store.claim(run.id, worker.name, ["analyst"])
        assert claim is not None
        worker.current, worker._stop = claim, StopSignal()
        worker.working_since = time.monotonic()
        workers.append(worker)
        signals.append(worker._stop)
    return Crew(workers), signals


def test_only_the_agents_of_withdrawn_issues_stop(store, tracker):
    crew, (alpha, beta, gamma) = _busy_crew(store, [1, 2, 3])
    tracker.set_state(1, "__LOCK__", command="ralph_research")  # Ralph's own move
    tracker.set_state(2, "Human Needed")
    tracker.close_issue(3, CloseReason.NOT_PLANNED)
    said = Reconciler(BoardReads(tracker), every=0).look([crew])
    assert not alpha.stopped
    assert beta.reason == "#2 was moved to Human Needed"
    assert gamma.reason == "#3 was closed"
    assert said == [
        "#2 was moved to Human Needed: stopping the agent of research:2",
        "#3 was closed: stopping the agent of research:3",
    ]


def test_a_read_older_than_the_task_stops_nothing(store, tracker):
    board = BoardReads(tracker)
    tracker.set_state(2, "Human Needed")
    board.read()  # sees #2 in Human Needed
    tracker.set_state(2, "Research Needed")  # the person puts it back; a task takes it
    crew, signals = _busy_crew(store, [1, 2])
    assert Reconciler(board, every=None).look([crew]) == []
    assert not any(signal.stopped for signal in signals)
    tracker.set_state(2, "Human Needed")
    board.read()  # a read after the task was taken
    assert Reconciler(board, every=None).look([crew]) != []
    assert signals[1].stopped


def test_one_read_serves_every_session_of_a_process_within_its_period(store, tracker):
    board = BoardReads(tracker)
    crews = [_busy_crew(store, [n])[0] for n in (1, 2, 3)]
    reconcilers = [Reconciler(board, every=60) for _ in crews]
    for _ in range(10):
        for reconciler, crew in zip(reconcilers, crews, strict=True):
            reconciler.look([crew])
    assert tracker.reads == 1


def test_under_the_service_sessions_only_use_its_reads(store, tracker):
    board = BoardReads(tracker)
    crew, _ = _busy_crew(store, [1])
    reconciler = Reconciler(board, every=None)
    assert reconciler.look([crew]) == []
    assert tracker.reads == 0


def test_an_idle_crew_reads_nothing(store, tracker):
    reconciler = Reconciler(BoardReads(tracker), every=0)
    assert reconciler.look([Crew([])]) == []
    assert tracker.reads == 0
