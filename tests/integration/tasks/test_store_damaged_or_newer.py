"""A store a person changed by hand, or one a newer Ralph made, is one line for every
command that opens it: what is wrong and what to do, never the driver's traceback; and a
command that fails on it leaves nothing half-written."""

from __future__ import annotations

import sqlite3

import pytest

from ralph.db._migrations import NEWEST_VERSION
from ralph.tasks import TASK_STORE_MIGRATIONS
from ralph.tracker import LOCAL_TRACKER_MIGRATIONS


@pytest.fixture
def repo(project, ralph_cli, monkeypatch):
    monkeypatch.chdir(project.path)
    assert ralph_cli("init")[0] == 0
    assert ralph_cli("issue", "new", "First", "-e", "XS")[0] == 0
    return project.path


def issue_titles(repo) -> list[str]:
    with sqlite3.connect(repo / ".ralph" / "ralph.db") as db:
        return [title for (title,) in db.execute("SELECT title FROM ralph_issues ORDER BY number")]


def test_a_dropped_table_is_one_line_and_the_issue_is_not_created_anyway(repo, ralph_cli):
    with sqlite3.connect(repo / ".ralph" / "ralph.db") as db:
        db.execute("DROP TABLE ralph_comments")
    code, _, err = ralph_cli("issue", "new", "Second", "-e", "XS")
    assert code == 2
    assert err.splitlines() == [
        f"ralph: error: the database {repo / '.ralph' / 'ralph.db'} is damaged (no such table: "
        "ralph_comments): restore it from a backup, or move it aside and run `ralph db "
        "migrate` to start an empty one"
    ]
    assert issue_titles(repo) == ["First"]  # created and read back in one transaction


@pytest.mark.parametrize("command", [("status",), ("issue", "new", "Second"), ("hero", "1")])
def test_a_store_made_by_a_newer_ralph_is_refused_saying_to_upgrade(repo, ralph_cli, command):
    with sqlite3.connect(repo / ".ralph" / "ralph.db") as db:
        db.execute(
            "INSERT INTO ralph_schema_version (version, name, applied_at) VALUES (999, 'future', 0)"
        )
    code, out, err = ralph_cli(*command)
    assert code == 2, out + err
    assert err.splitlines() == [
        f"ralph: error: this store was made by a newer Ralph (schema version 999; this Ralph "
        f"knows up to {NEWEST_VERSION}); upgrade Ralph to use it"
    ]
    assert issue_titles(repo) == ["First"]


def test_the_newest_version_is_the_last_of_every_owners_history():
    every = [m.version for m in (*TASK_STORE_MIGRATIONS, *LOCAL_TRACKER_MIGRATIONS)]
    assert max(every) == NEWEST_VERSION
