"""Trackers on every backend, and real git repositories for the local tracker's merges."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.git import GitRepo
from ralph.tracker import LocalTracker, MemoryTracker, Tracker

from ..conftest import Project

TRACKERS = ["memory", "local-sqlite", "local-postgres"]


@pytest.fixture(params=TRACKERS)
def tracker_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def tracker(
    tracker_kind: str, project: Project, clock, tmp_path: Path, request
) -> Iterator[Tracker]:
    if tracker_kind == "memory":
        yield MemoryTracker(clock=clock)
        return
    if tracker_kind == "local-sqlite":
        from ralph.tasks._sqlite import SqliteStore

        store = SqliteStore(tmp_path / "ralph.db", clock=clock)
    else:
        from ralph.tasks._postgres import PostgresStore

        store = PostgresStore(request.getfixturevalue("pg_schema_url"), clock=clock)
    yield LocalTracker(store, repo="project", git=GitRepo(project.path), clock=clock)
    store.close()
