"""A project that reads issues (``ralph status``, ``issue list``) opens its code host
and its task store the first time something asks them anything, and closes a code host
opened with the project, before its tracker; a project that runs phases opens both at
once, so a code host it cannot have stops the run before any agent works. The guarded
settings' checkpoint is read from the store's database without opening the store, when
its tables are as this Ralph would leave them."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from ralph.config import Config, GitHubSettings
from ralph.db import is_current, migrate, open_database
from ralph.db._migrations import NEWEST_VERSION
from ralph.errors import ConfigError, RalphError, StoreUnavailable
from ralph.project import _open, migrate_database, open_database_alone, open_project
from ralph.project._backends import CODE_HOSTS, TRACKERS
from ralph.project._on_use import StoreOnUse
from ralph.tasks import TASK_STORE_MIGRATIONS, TaskStore
from ralph.tracker import LOCAL_TRACKER_MIGRATIONS

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def config(tmp_path: Any) -> Config:
    config = Config(root=tmp_path, store_url=f"sqlite:///{tmp_path}/ralph.db")
    with open_database_alone(config) as db:
        migrate_database(db)
    return config


def _recorded(opener: Any, name: str, events: list[str]) -> Any:
    @contextmanager
    def recording(*args: Any) -> Iterator[Any]:
        events.append(f"{name} opened")
        with opener(*args) as opened:
            yield opened
        events.append(f"{name} closed")

    return recording


def test_the_code_host_is_opened_on_first_use_and_closed_before_the_tracker(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    monkeypatch.setitem(TRACKERS, "local", _recorded(TRACKERS["local"], "tracker", events))
    monkeypatch.setitem(CODE_HOSTS, "local", _recorded(CODE_HOSTS["local"], "host", events))
    with open_project(config, on_use=True) as project:
        project.tracker.create_issue("Read without the code host")
        assert events == ["tracker opened"]
        assert project.code_host.kind == "local"
        assert project.code_host.list_pull_requests() == []
        assert project.code_host.tracker is project.tracker
        assert events == ["tracker opened", "host opened"]
    assert events == ["tracker opened", "host opened", "host closed", "tracker closed"]


def test_a_code_host_never_asked_for_is_never_opened(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    monkeypatch.setitem(CODE_HOSTS, "local", _recorded(CODE_HOSTS["local"], "host", events))
    with open_project(config, on_use=True) as project:
        assert project.tracker.get_issue(project.tracker.create_issue("Only issues").number)
    assert events == []


def test_threads_asking_at_once_open_one_code_host(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real = CODE_HOSTS["local"]
    asking = threading.Barrier(4, timeout=10)

    @contextmanager
    def slow(*args: Any) -> Iterator[Any]:
        events.append("host opened")
        time.sleep(0.05)  # bounded: long enough for the other threads to ask meanwhile
        with real(*args) as opened:
            yield opened

    monkeypatch.setitem(CODE_HOSTS, "local", slow)
    with open_project(config, on_use=True) as project:

        def ask() -> None:
            asking.wait()
            assert project.code_host.kind == "local"

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert events == ["host opened"]


def test_a_project_that_runs_phases_opens_its_code_host_at_once(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    monkeypatch.setitem(CODE_HOSTS, "local", _recorded(CODE_HOSTS["local"], "host", events))
    with open_project(config):
        assert events == ["host opened"]
    assert events == ["host opened", "host closed"]


def test_a_code_host_without_its_token_stops_a_run_as_the_project_opens(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in os.environ if "TOKEN" in n]:
        monkeypatch.delenv(name)
    github = replace(config, code_host="github", github=GitHubSettings(owner="o", repo="r"))
    with pytest.raises(ConfigError, match="token"), open_project(github):
        pytest.fail("opened without a token")


def test_a_code_host_asked_for_after_the_project_closed_does_not_open(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    monkeypatch.setitem(CODE_HOSTS, "local", _recorded(CODE_HOSTS["local"], "host", events))
    with open_project(config, on_use=True) as project:
        late = project.code_host
    with pytest.raises(RalphError, match="closed"):
        late.list_pull_requests()
    assert events == []


def _recorded_store(monkeypatch: pytest.MonkeyPatch, events: list[str]) -> None:
    real = _open._task_store

    def recording(db: Any) -> TaskStore:
        events.append("store opened")
        return real(db)

    monkeypatch.setattr(_open, "_task_store", recording)


def test_a_project_that_reads_issues_never_opens_its_task_store(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    _recorded_store(monkeypatch, events)
    with open_project(config, on_use=True) as project:
        number = project.tracker.create_issue("Only issues").number
        assert project.tracker.get_issue(number).title == "Only issues"
        assert events == []
        assert project.store.load_checkpoint("absent") is None
        assert events == []
        project.store.save_checkpoint("later", {"asked": True})
        assert events == ["store opened"]
        assert project.store.load_checkpoint("later") == {"asked": True}
    assert events == ["store opened"]


def test_a_project_that_runs_phases_opens_its_task_store_at_once(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    _recorded_store(monkeypatch, events)
    with open_project(config):
        assert events == ["store opened"]


def _opening(db: Any, opened: list[TaskStore]) -> TaskStore:
    opened.append(TaskStore(db))
    return opened[-1]


def test_a_checkpoint_read_before_the_store_opens_is_the_one_the_store_kept(
    config: Config,
) -> None:
    with open_database(config.resolved_store_url) as db:
        TaskStore(db).save_checkpoint("guarded-settings:repo", {"test_command": "make test"})
        opened: list[TaskStore] = []
        store = StoreOnUse(db, lambda: _opening(db, opened))
        assert store.load_checkpoint("guarded-settings:repo") == {"test_command": "make test"}
        assert store.load_checkpoint("other") is None
        assert opened == []


def test_a_store_with_older_tables_opens_to_read_a_checkpoint_and_is_brought_up_to_date(
    tmp_path: Any,
) -> None:
    with open_database(f"sqlite:///{tmp_path}/old.db") as db:
        migrate(db, TASK_STORE_MIGRATIONS[:1], LOCAL_TRACKER_MIGRATIONS)
        assert not is_current(db, TASK_STORE_MIGRATIONS)
        opened: list[TaskStore] = []
        store = StoreOnUse(db, lambda: _opening(db, opened))
        assert store.load_checkpoint("guarded-settings:repo") is None
        assert len(opened) == 1
        assert is_current(db, TASK_STORE_MIGRATIONS)


def test_a_store_a_newer_ralph_made_is_refused_however_little_is_read(
    config: Config,
) -> None:
    with open_database(config.resolved_store_url) as db:
        with db.write_transaction() as tx:
            tx.run(
                "INSERT INTO ralph_schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (NEWEST_VERSION + 1, "from a newer Ralph", 0.0),
            )
        assert not is_current(db, TASK_STORE_MIGRATIONS)
        store = StoreOnUse(db, lambda: TaskStore(db))
        with pytest.raises(StoreUnavailable, match="newer Ralph"):
            store.load_checkpoint("guarded-settings:repo")


def test_a_checkpoint_asked_for_after_the_project_closed_is_refused(config: Config) -> None:
    with open_project(config, on_use=True) as project:
        late = project.store
    with pytest.raises(RalphError, match="closed"):
        late.load_checkpoint("guarded-settings:repo")


def test_no_refused_tool_is_read_before_the_store_opens_and_one_opens_it(config: Config) -> None:
    """``issue show`` lists the tools agents were refused: with none, it never loads the
    store; with one, the store opens and gives the charges it kept."""
    with open_database(config.resolved_store_url) as db:
        kept = TaskStore(db)
        run = kept.create_run("a")
        kept.record_charge(run.id, None, 0.1)
        opened: list[TaskStore] = []
        store = StoreOnUse(db, lambda: _opening(db, opened))
        assert store.refused_charges() == []
        assert opened == []
        kept.record_charge(run.id, None, 0.1, refused=["Bash"])
        assert [charge.refused for charge in store.refused_charges()] == [("Bash",)]
        assert len(opened) == 1
