"""What the benchmarks that run whole projects share: a PostgreSQL schema of their own
per project, and a board of XS issues whose implementations never touch one file."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.workflow import Estimate, WorkflowState

__all__ = ["fresh_store", "module_body", "xs_board"]


def module_body(name: str) -> str:
    """An XS issue whose implementation adds one module (no two issues touch one file)."""
    return (
        f"Add the `{name}` module.\n\n```diff\n--- /dev/null\n+++ b/greet/{name}.py\n"
        f"@@ -0,0 +1 @@\n+NAME = {name!r}\n```\n"
    )


def xs_board(folder: Path, issues: int, store: str | None = None) -> Path:
    """The demo project with its epic closed and ``issues`` XS issues in Backlog."""
    repo, epic = create_demo_project(folder, store_url=store)
    with open_project(load_config(repo)) as project:
        project.tracker.close_issue(epic)
        for i in range(issues):
            project.tracker.create_issue(
                f"Add m{i}",
                body=module_body(f"m{i}"),
                estimate=Estimate.XS,
                state=WorkflowState.BACKLOG,
            )
    return repo


@contextmanager
def fresh_store(store: str | None, prefix: str) -> Iterator[str | None]:
    """A store of its own for one project: on PostgreSQL, a new schema, dropped after."""
    if store is None:
        yield None
        return
    import psycopg

    schema = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(store, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in store else "?"
    try:
        yield f"{store}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(store, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")
