"""A run page's log and transcript links: each task's log and its agents' transcripts,
kept by the run under ``.ralph/runs/<run>/``, served as text by name; nothing else of
the project (the store, another run's files, a link out of the folder) is served."""

from __future__ import annotations

import json
import os
import re

import pytest
from starlette.testclient import TestClient

from ralph.git import RUN_FILES_DIR
from ralph.project import Project

from .conftest import TOKEN, WebProject, client_of
from .test_pages import cli_json

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def waiting_template(every_board: WebProject) -> WebProject:
    """The same pages and documents on every board: local (SQLite, PostgreSQL), GitHub."""
    return every_board


def test_a_run_page_links_each_task_log_and_transcript(
    client: TestClient, waiting: WebProject
) -> None:
    page = client.get(f"/runs/{waiting.run}").text
    logs = re.findall(rf'href="/runs/{waiting.run}/files/(task-(\d+)\.log)"', page)
    transcripts = re.findall(rf'href="/runs/{waiting.run}/files/(task-\d+\.1\.1\.jsonl)"', page)
    done = re.findall(r'<tr id="row-(\d+)" class="[^"]*" data-status="done"', page)
    assert done
    assert {task for _, task in logs} >= set(done)
    assert len(transcripts) >= len(done)
    name, task = logs[0]
    log = client.get(f"/runs/{waiting.run}/files/{name}")
    assert log.status_code == 200
    assert log.headers["content-type"].startswith("text/plain")
    assert log.headers["x-content-type-options"] == "nosniff"
    assert log.text.startswith("== attempt 1: ")
    assert "agent run 1: simulated agent" in log.text
    assert f"transcript task-{task}.1.1.jsonl" in log.text
    kept = client.get(f"/runs/{waiting.run}/files/task-{task}.1.1.jsonl")
    assert kept.status_code == 200
    first = json.loads(kept.text.splitlines()[0])
    assert first["type"] == "user"
    assert first["text"]


def test_the_run_api_names_the_files_as_the_cli_does(
    client: TestClient, waiting: WebProject
) -> None:
    served = client.get(f"/api/runs/{waiting.run}").json()
    assert served == cli_json(waiting, "runs", "show", str(waiting.run))
    some = next(iter(served["files"].values()))
    assert some[0] == f"{RUN_FILES_DIR}/{waiting.run}/task-{next(iter(served['files']))}.log"
    assert (waiting.repo / some[0]).is_file()


@pytest.mark.parametrize(
    "name",
    [
        "..%2Fralph.db",
        "..%2F..%2Fralph.db",
        "%2E%2E",
        "task-1.log%2F..%2F..%2Fralph.db",
        "ralph.db",
        "task-1.txt",
        "task-999999.log",
        "task-1.log%00",
        "outside.log",
        "task-77.log",  # a symbolic link out of the run's folder
    ],
)
def test_nothing_but_a_file_of_the_run_is_served(
    client: TestClient, waiting: WebProject, name: str
) -> None:
    folder = waiting.repo / RUN_FILES_DIR / str(waiting.run)
    os.symlink(waiting.repo / ".ralph" / "ralph.db", folder / "task-77.log")
    found = client.get(f"/runs/{waiting.run}/files/{name}")
    assert found.status_code == 404
    assert '<section class="error">' in found.text
    assert "SQLite" not in found.text


def test_another_runs_files_are_not_served_under_this_run(
    client: TestClient, waiting: WebProject
) -> None:
    task = next(iter(client.get(f"/api/runs/{waiting.run}").json()["files"]))
    assert client.get(f"/runs/{waiting.run + 1}/files/task-{task}.log").status_code == 404
    assert client.get(f"/runs/abc/files/task-{task}.log").status_code == 404


def test_a_run_file_needs_the_token_like_every_page(
    open_board: Project, waiting: WebProject
) -> None:
    task = next(iter(open_board.store.list_tasks(waiting.run))).id
    path = f"/runs/{waiting.run}/files/task-{task}.log"
    with client_of(open_board, token=TOKEN) as guarded:
        assert guarded.get(path).status_code == 401
        allowed = guarded.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
        assert allowed.status_code == 200


def test_the_runs_own_files_are_no_breach_by_its_agents(
    open_board: Project, waiting: WebProject
) -> None:
    """Workers append logs while other workers' agents run: Ralph's writes, not theirs."""
    tasks = open_board.store.list_tasks(waiting.run)
    assert [t.metadata["breaches"] for t in tasks if t.metadata.get("breaches")] == []
