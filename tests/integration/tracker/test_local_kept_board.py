"""The local tracker keeps its board read until a write counts a change, on PostgreSQL
as on SQLite (issue 49: a team's every re-plan reads the board): a board kept by one
tracker shows what another wrote, from its own connections or its own process (and
what its window for closed issues leaves out), and
writers that count changes while they lock issues do not deadlock on the counter."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ralph.db import Database, open_database
from ralph.tracker import Issue, LocalTracker, PullRequest
from ralph.tracker._model import IssueStatus
from ralph.workflow import Estimate, Priority, WorkflowState

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ralph.db'}"
    return str(request.getfixturevalue("pg_schema_url"))


@pytest.fixture
def databases(url: str) -> Iterator[Callable[[], Database]]:
    """Each call: a database of its own (its own connections), as another process's."""
    made: list[Database] = []

    def another() -> Database:
        made.append(open_database(url))
        return made[-1]

    yield another
    for db in made:
        db.close()


def a_pull_request(number: int, *closing: int) -> PullRequest:
    return PullRequest(
        number=number, title="Merge", body="", head="b", base="main", closing=closing
    )


def test_an_unchanged_board_is_read_in_one_statement(databases, statements):
    tracker = LocalTracker(databases(), repo="r")
    epic = tracker.create_issue("Epic", estimate=Estimate.L)
    tracker.create_issue("Child", parent=epic.number)
    first = tracker.board_issues()
    statements.clear()
    assert tracker.board_issues() == first
    assert tracker.board_issues(closed_since=tracker.now()) == first
    assert len(statements) == 2, statements  # the count, once per read


def test_a_kept_board_shows_every_write_of_another_tracker_and_process(url, databases):
    tracker = LocalTracker(databases(), repo="r")
    other = LocalTracker(databases(), repo="r")

    def shown(number: int) -> Issue:
        return next(i for i in tracker.board_issues() if i.number == number)

    epic = tracker.create_issue("Epic", estimate=Estimate.L)
    child = tracker.create_issue("Child", state=WorkflowState.RESEARCH_NEEDED)
    assert [i.number for i in tracker.board_issues()] == [epic.number, child.number]
    late = other.create_issue("Late")
    assert [i.number for i in tracker.board_issues()] == [epic.number, child.number, late.number]
    other.add_sub_issue(epic.number, child.number)
    assert shown(child.number).parent == epic.number
    other.add_dependency(child.number, epic.number)
    assert shown(child.number).blocked_by == (epic.number,)
    other.remove_dependency(child.number, epic.number)
    assert shown(child.number).blocked_by == ()
    other.set_state(child.number, "__LOCK__", command="research")
    assert shown(child.number).workflow_state is WorkflowState.RESEARCH_IN_PROGRESS
    other.update_issue(child.number, title="Renamed", priority=Priority.P0)
    assert (shown(child.number).title, shown(child.number).priority) == ("Renamed", Priority.P0)
    other.project_board().clear_field(epic.number, "Estimate")
    assert shown(epic.number).estimate is None
    before = shown(child.number).updated_at
    other.add_comment(child.number, "A note")
    assert shown(child.number).updated_at > before
    other.archive_issue(late.number)
    assert shown(late.number).archived
    other.close_merged(a_pull_request(7, child.number))
    assert shown(child.number).workflow_state is WorkflowState.DONE
    assert shown(child.number).status is IssueStatus.CLOSED
    other.reopen_issue(child.number)
    assert shown(child.number).status is IssueStatus.OPEN
    # Another process: its write commits the count the kept board is checked against.
    subprocess.run(
        [sys.executable, "-c", _CLOSE_IN_A_PROCESS, url, str(epic.number)],
        check=True,
        timeout=60,
    )
    assert shown(epic.number).status is IssueStatus.CLOSED
    # The window for closed issues: the kept read is filtered, not read again.
    later = tracker.now() + 60
    assert [i.number for i in tracker.board_issues(closed_since=later)] == [
        child.number,
        late.number,
    ]
    other.reopen_issue(epic.number)
    assert shown(epic.number).status is IssueStatus.OPEN


_CLOSE_IN_A_PROCESS = """
import sys
from ralph.db import open_database
from ralph.tracker import LocalTracker
with open_database(sys.argv[1]) as db:
    LocalTracker(db, repo="r").close_issue(int(sys.argv[2]))
"""


def test_writers_locking_several_issues_do_not_deadlock_on_the_change_count(databases):
    """A merge locks each issue it closes in turn and counts a change for each; a
    comment locks its issue, then counts. Were the count's row locked where each change
    is made, the merge would hold it while it waits for the commented issue, and the
    comment would hold that issue while it waits for the count: PostgreSQL's deadlock."""
    setup = LocalTracker(databases(), repo="r")
    first, second = (setup.create_issue(f"Issue {i}").number for i in range(2))
    rounds, failures = 15, []

    def merging() -> None:
        tracker = LocalTracker(databases(), repo="r")
        for i in range(rounds):
            tracker.close_merged(a_pull_request(i, first, second))
            tracker.reopen_issue(first)
            tracker.reopen_issue(second)

    def commenting() -> None:
        tracker = LocalTracker(databases(), repo="r")
        for i in range(rounds * 3):
            tracker.add_comment(second, f"Note {i}")

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except Exception as exc:  # the test's verdict, in the main thread
                failures.append(exc)

        return run

    workers = [threading.Thread(target=guarded(w)) for w in (merging, commenting, commenting)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=100)
    assert not any(worker.is_alive() for worker in workers)
    assert failures == []
    board = {i.number: i for i in setup.board_issues()}
    assert board[first].status is IssueStatus.OPEN
    assert len(setup.get_issue(second).comments) >= rounds * 3 * 2
