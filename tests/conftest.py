"""Shared fixtures: a fake clock and task stores on every backend."""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.bytecode import keep_bytecode_outside_the_tree

# Before anything else is imported: bytecode outside the tree, for this process, its
# xdist workers and every process a test starts (tests/bytecode.py says why and where).
keep_bytecode_outside_the_tree()

from ralph._command_process import collect_less  # noqa: E402

# A worker keeps over a million objects alive (schemas, parsed sources, collected
# tests): each full collection walks them all. Collecting the young less often, as
# the ``ralph`` command does, lets fewer reach the old generation: the collector's time
# 9.8 -> 5.4 s in 90 CPU-s of unit, tracker and web tests.
collect_less()

from ralph.tasks import TaskStore, open_store  # noqa: E402
from ralph.tasks._lifecycle import DEFAULT_LEASE_SECONDS, RetryPolicy  # noqa: E402
from tests.published import DEFINITIONS  # noqa: E402

PG_URL = os.environ.get("RALPH_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")

# The fakes' published schemas: the copies beside the repository, whatever is set; set
# here as well as per test, as module- and session-scoped fixtures start fakes before any
# test's own environment is made.
_PUBLISHED = {name: str(path) for name, path in DEFINITIONS.items()}
os.environ.update(_PUBLISHED)


#: A developer's own settings and credentials, which must never steer a test or leak into
#: the processes it starts.
_DEVELOPER_VARIABLES = (
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GITLAB_TOKEN",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "PGPASSWORD",
)


def is_developer_setting(name: str) -> bool:
    """A developer's RALPH_* setting (RALPH_TEST_* configure the tests) or credential."""
    ralph_setting = name.startswith("RALPH_") and not name.startswith("RALPH_TEST_")
    return ralph_setting or name in _DEVELOPER_VARIABLES


@pytest.fixture(scope="session")
def _pacing_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder per test for GitHub's shared pacing, not made: the first pacer to write
    makes it, and most tests have none (a directory per test cost more than many a test)."""
    root = tmp_path_factory.mktemp("pacing")
    return (root / str(number) for number in itertools.count())


@pytest.fixture(autouse=True)
def _without_developer_environment(
    monkeypatch: pytest.MonkeyPatch, _pacing_folders: Iterator[Path]
) -> None:
    for name in list(os.environ):
        if is_developer_setting(name) and name not in _PUBLISHED:
            monkeypatch.delenv(name)
    # The fakes' published schemas: the copies beside the repository, whatever is set.
    for name, path in _PUBLISHED.items():
        if os.environ.get(name) != path:
            monkeypatch.setenv(name, path)
    # GitHub pacing shared by token lives in the user's state folder: each test its own,
    # so parallel tests neither wait on one another nor write into the real home.
    monkeypatch.setenv("RALPH_GH_PACING_DIR", str(next(_pacing_folders)))


class FakeClock:
    """Wall-clock seconds that only move when a test says so."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _postgres_available() -> str | None:
    """None when PostgreSQL answers, else why not."""
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3):
            return None
    except Exception as exc:
        return f"PostgreSQL at {PG_URL} is not reachable: {exc}"


_PG_PROBLEM: list[str | None] = []


def pytest_itemcollected(item: pytest.Item) -> None:
    """A test that takes a PostgreSQL schema is marked ``postgres``, so ``-m "not postgres"``
    leaves it out; fixtures that choose PostgreSQL by parameter mark that parameter."""
    if "pg_schema_url" in getattr(item, "fixturenames", ()):
        item.add_marker(pytest.mark.postgres)


def require_postgres() -> None:
    """Skip without PostgreSQL, except on CI, where its absence is a failure."""
    if not _PG_PROBLEM:
        _PG_PROBLEM.append(_postgres_available())
    problem = _PG_PROBLEM[0]
    if problem is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{problem} (CI=true: PostgreSQL is required; .ci/run starts it)")
    pytest.skip(problem)


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema, dropped afterwards."""
    require_postgres()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{separator}options={quote(f'-csearch_path={schema}')}"
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA {schema} CASCADE")


StoreFactory = Callable[..., TaskStore]

BACKENDS = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make_store(backend: str, tmp_path, request: pytest.FixtureRequest) -> Iterator[StoreFactory]:
    """Builds stores of the test's backend; every store shares one database."""
    stores: list[TaskStore] = []
    url = request.getfixturevalue("pg_schema_url") if backend == "postgres" else None

    def make(
        *,
        clock: Callable[[], float] | None = None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        retry_policy: RetryPolicy | None = None,
    ) -> TaskStore:
        options: dict[str, Any] = {
            "lease_seconds": lease_seconds,
            "retry_policy": retry_policy or RetryPolicy(base_seconds=30.0),
        }
        if clock is not None:
            options["clock"] = clock
        if backend == "memory":
            if stores:
                return stores[0]
            store: TaskStore = open_store("memory://", **options)
        elif backend == "sqlite":
            store = open_store(f"sqlite:///{tmp_path / 'ralph.db'}", **options)
        else:
            assert url is not None
            store = open_store(url, **options)
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory, clock: FakeClock) -> TaskStore:
    return make_store(clock=clock)
