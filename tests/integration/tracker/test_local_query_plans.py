"""Every statement the local tracker runs for one issue (read, create, state change,
dependency, sub-issue) finds its rows by an index, on SQLite and PostgreSQL: none scans
the repository's issues, so a board of 10,000 answers as quickly as one of 3.

The statements are the ones the tracker really runs on a board of 10,000 issues,
recorded while it works; each is then explained with its own parameters."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ralph.db import Database, PostgresDatabase, SqliteDatabase
from ralph.db._postgres import _PgTx
from ralph.db._sqlite import _SqliteTx
from ralph.tracker import LocalTracker
from ralph.workflow import Estimate, WorkflowState

pytestmark = pytest.mark.timeout(60)

#: The tables a per-issue statement must never read whole.
TABLES = "ralph_issues|ralph_issue_deps|ralph_comments|ralph_pull_request_closes"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    db: Database
    if request.param == "sqlite":
        db = SqliteDatabase(tmp_path / "ralph.db")
    else:
        db = PostgresDatabase(request.getfixturevalue("pg_schema_url"))
    yield db
    db.close()


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """Every statement run through either dialect's transactions, with its parameters."""
    seen: list[tuple[str, tuple[Any, ...]]] = []
    for tx_class in (_SqliteTx, _PgTx):
        for name in ("rows", "run"):
            original = getattr(tx_class, name)

            def recording(self: Any, sql: str, params: Sequence[Any] = (), _o: Any = original):
                seen.append((sql, tuple(params)))
                return _o(self, sql, params)

            monkeypatch.setattr(tx_class, name, recording)
    return seen


def a_board(tracker: LocalTracker) -> None:
    """Epics with children and chains of dependencies, a few comments."""
    for epic in range(3):
        parent = tracker.create_issue(f"Epic {epic}", estimate=Estimate.L).number
        previous = None
        for child in range(4):
            made = tracker.create_issue(
                f"Child {child} of {epic}",
                parent=parent,
                state=WorkflowState.RESEARCH_NEEDED,
                estimate=Estimate.S,
            )
            if previous is not None:
                tracker.add_dependency(made.number, previous)
            previous = made.number
            tracker.add_comment(made.number, "a note")


#: The numbers of the board's other issues: 10,000 of them, written in two statements.
BULK = range(1_000, 11_000)


def ten_thousand_more(db: Database) -> None:
    """Issues 1,000 to 10,999 in epics of ten, each child blocked by the one before,
    commented on and closed by a pull request: the size the lookups must not grow with.
    PostgreSQL's statistics are gathered, as its autovacuum would on a real board;
    SQLite's planner works without any (Ralph runs no ANALYZE)."""
    numbers = (
        f"WITH RECURSIVE n(i) AS (SELECT {BULK.start} "
        f"UNION ALL SELECT i + 1 FROM n WHERE i < {BULK.stop - 1}) "
    )
    with db.write_transaction() as tx:
        tx.run(
            numbers + "INSERT INTO ralph_issues (repo, number, title, body, workflow_state, "
            "labels, assignees, status, parent, created_at, updated_at) "
            "SELECT 'project', i, 'Issue ' || i, '', 'Backlog', '[]', '[]', 'open', "
            "CASE WHEN (i - i / 10 * 10) = 0 THEN NULL ELSE i - (i - i / 10 * 10) END, i, i FROM n"
        )
        tx.run(
            numbers + "INSERT INTO ralph_issue_deps (repo, blocked, blocking, position) "
            "SELECT 'project', i, i - 1, i FROM n WHERE (i - i / 10 * 10) > 1"
        )
        tx.run(
            numbers + "INSERT INTO ralph_comments (repo, number, author, body, created_at) "
            "SELECT 'project', i, 'ralph', 'A note', i FROM n"
        )
        tx.run(
            numbers + "INSERT INTO ralph_pull_request_closes (repo, pull_request, issue) "
            "SELECT 'project', i + 10000, i FROM n"
        )
        tx.run("UPDATE ralph_tracker_numbers SET last_number = ?", (BULK.stop,))
    if db.dialect == "postgresql":
        with db.write_transaction() as tx:
            tx.run("ANALYZE")


def per_issue_work(tracker: LocalTracker) -> None:
    """What a phase does to one issue, on a board that has many others."""
    tracker.get_issue(3)
    tracker.get_issue(1)
    tracker.get_issue(5_005)
    tracker.relations(5_005)
    tracker.relations_of(range(5_000, 5_010))
    tracker.get_issues(range(5_000, 5_010))
    child = tracker.create_issue("Another child", parent=1, state=WorkflowState.RESEARCH_NEEDED)
    tracker.set_state(3, "__LOCK__", command="research")
    tracker.add_dependency(child.number, 4)
    tracker.add_comment(child.number, "more")
    tracker.close_issue(child.number)


def plan_lines(db: Database, sql: str, params: tuple[Any, ...]) -> list[str]:
    with db.read_transaction() as tx:
        if db.dialect == "postgresql":
            return [str(row["QUERY PLAN"]) for row in tx.rows(f"EXPLAIN {sql}", params)]
        return [str(row["detail"]) for row in tx.rows(f"EXPLAIN QUERY PLAN {sql}", params)]


def repository_scans(db: Database, lines: list[str]) -> list[str]:
    """The plan's lines that read a whole table, or a whole repository's rows of it (an
    index used for its ``repo`` column alone: one repository is the whole board)."""
    if db.dialect == "postgresql":
        whole = re.compile(rf"Seq Scan on ({TABLES})\b|Index Cond: \(repo = '[^']*'::text\)$")
    else:
        # "SCAN" reads every row of a table or index; "SEARCH" looks up by the key in
        # parentheses.
        whole = re.compile(rf"^SCAN ({TABLES})\b|^SEARCH ({TABLES}) .*\(repo=\?\)$")
    return [line.strip() for line in lines if whole.search(line.strip())]


def test_every_per_issue_statement_finds_its_rows_by_an_index(database, recorded):
    tracker = LocalTracker(database, repo="project")
    a_board(tracker)
    ten_thousand_more(database)
    recorded.clear()
    per_issue_work(tracker)
    statements = list(dict.fromkeys(recorded))
    assert any("parent IN (?" in sql for sql, _ in statements)
    assert any("ralph_issue_deps" in sql and "SELECT" in sql for sql, _ in statements)
    scanning = {
        sql: scans
        for sql, params in statements
        if sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "INSERT"))
        and (scans := repository_scans(database, plan_lines(database, sql, params)))
    }
    assert scanning == {}, "\n".join(f"{sql}: {scans}" for sql, scans in scanning.items())


def test_the_children_are_read_in_number_order_without_the_primary_key(database):
    """The lookup SQLite's planner used to take the primary key for, to save a sort."""
    tracker = LocalTracker(database, repo="project")
    a_board(tracker)
    assert tracker.get_issue(1).sub_issues == (2, 3, 4, 5)
    assert tracker.get_issue(3).blocked_by == (2,)
    assert tracker.get_issue(3).blocking == (4,)
    ten_thousand_more(database)
    assert tracker.get_issue(5_000).sub_issues == tuple(range(5_001, 5_010))
    assert tracker.get_issue(5_005).blocked_by == (5_004,)
    assert tracker.get_issue(5_005).blocking == (5_006,)
