"""How many statements the local tracker sends for one issue: each is a round trip to
PostgreSQL, and group detection reads every issue of a group for every phase and
re-plan of its issues (issue 49: a team on PostgreSQL within 1.15x of SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.db import Database, PostgresDatabase, SqliteDatabase
from ralph.pipeline import detect_group
from ralph.tracker import LocalTracker
from ralph.tracker._rules import TrackerRules
from ralph.workflow import Estimate, WorkflowState

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    db: Database
    if request.param == "sqlite":
        db = SqliteDatabase(tmp_path / "ralph.db")
    else:
        db = PostgresDatabase(request.getfixturevalue("pg_schema_url"))
    yield db
    db.close()


def a_group(tracker: LocalTracker) -> tuple[int, list[int]]:
    """An epic of four children in a chain of dependencies, one commented on, one
    closed by a pull request's record."""
    epic = tracker.create_issue("Epic", estimate=Estimate.L).number
    children: list[int] = []
    for i in range(4):
        child = tracker.create_issue(
            f"Child {i}", parent=epic, state=WorkflowState.BACKLOG, estimate=Estimate.XS
        ).number
        if children:
            tracker.add_dependency(child, children[-1])
        children.append(child)
    tracker.add_comment(children[1], "a note")
    with tracker.db.write_transaction() as tx:
        tx.run(
            "INSERT INTO ralph_pull_request_closes (repo, pull_request, issue) VALUES (?, ?, ?)",
            (tracker.repo, 99, children[1]),
        )
    return epic, children


def test_an_issues_relations_are_one_statement_and_what_its_read_says(database, statements):
    tracker = LocalTracker(database, repo="project")
    epic, children = a_group(tracker)
    for number in [epic, *children]:
        statements.clear()
        lean = tracker.relations(number)
        assert len(statements) == 1, statements
        assert lean == TrackerRules.relations(tracker, number)  # from the whole issue
    middle = tracker.relations(children[1])
    assert middle is not None
    assert (middle.parent, middle.blocked_by, middle.blocking) == (
        epic,
        (children[0],),
        (children[2],),
    )
    whole = tracker.relations(epic)
    assert whole is not None
    assert whole.sub_issues == tuple(children)
    assert whole.title == "Epic"
    assert tracker.relations(12_345) is None


def test_an_issue_is_read_in_three_statements_whole(database, statements):
    tracker = LocalTracker(database, repo="project")
    epic, children = a_group(tracker)
    statements.clear()
    issue = tracker.get_issue(children[1])
    assert len(statements) == 3, statements
    assert (issue.parent, issue.blocked_by, issue.blocking) == (
        epic,
        (children[0],),
        (children[2],),
    )
    assert issue.pull_requests == (99,)
    assert [c.body for c in issue.comments] == ["a note"]
    assert tracker.get_issue(epic).sub_issues == tuple(children)


def test_many_issues_relations_are_one_statement_and_each_ones_answer(
    database, statements, monkeypatch
):
    tracker = LocalTracker(database, repo="project")
    epic, children = a_group(tracker)
    numbers = [epic, *children, 12_345]  # one that does not exist is left out
    statements.clear()
    together = tracker.relations_of(numbers)
    assert len(statements) == 1, statements
    assert together == {n: tracker.relations(n) for n in numbers[:-1]}
    # A long list goes in several statements, each answer still whole.
    monkeypatch.setattr("ralph.tracker.local._tracker._READ_CHUNK", 2)
    statements.clear()
    assert tracker.relations_of(numbers) == together
    assert len(statements) == 3, statements


def test_an_epics_group_is_found_in_three_statements_however_many_children(database, statements):
    tracker = LocalTracker(database, repo="project")
    epic = tracker.create_issue("Epic", estimate=Estimate.L).number
    children = [
        tracker.create_issue(f"Child {i}", parent=epic, estimate=Estimate.XS).number
        for i in range(12)
    ]
    statements.clear()
    group = detect_group(children[3], tracker.relations, tracker.relations_of)
    assert group.issues == tuple(children)
    assert len(statements) == 3, statements  # the seed, its parent, its siblings


def test_a_groups_issues_are_read_whole_in_three_statements(database, statements, monkeypatch):
    tracker = LocalTracker(database, repo="project")
    epic, children = a_group(tracker)
    numbers = [*children, epic]
    statements.clear()
    together = tracker.get_issues(numbers)
    assert len(statements) == 3, statements
    assert together == [tracker.get_issue(n) for n in numbers]
    assert together[1].pull_requests == (99,)
    monkeypatch.setattr("ralph.tracker.local._tracker._READ_CHUNK", 2)
    statements.clear()
    assert tracker.get_issues(numbers) == together
    assert len(statements) == 3 * 3, statements  # three chunks
