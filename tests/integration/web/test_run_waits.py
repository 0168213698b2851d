"""A run page says what a merge ready but for its repository's key waits for: whose
merge holds the key, its run and process, and how to go on."""

from __future__ import annotations

import html
import os
import socket
from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.tasks import TaskStore
from tests.integration.tasks.test_store_contract import spec

from .conftest import client_of


def _merging(store: TaskStore, root: int) -> tuple[int, int]:
    """A run of ``ralph hero root`` whose pull request is made and merge is ready."""
    run = store.create_run(f"hero GH-{root}", root_issue=root, mode="hero")
    pr, merge = store.add_tasks(
        run.id,
        [
            spec("pr", role="integrator", issues=(root,)),
            spec("merge", ["pr"], "integrator", serial_key="merge:o/r", issues=(root,)),
        ],
    )
    store.complete(store.claim_task(pr.id, "pr"))
    return run.id, merge.id


def test_the_run_page_says_whose_merge_a_waiting_merge_waits_for(tmp_path: Path) -> None:
    repo, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        first, second = (project.tracker.create_issue(t).number for t in ("Four", "Six"))
        store = project.store
        _, holding = _merging(store, first)
        store.claim_task(holding, f"{socket.gethostname()}:{os.getpid()}/merge")
        waiting, _ = _merging(store, second)
        page = html.unescape(client_of(project).get(f"/runs/{waiting}").text)
    said = f"waiting for: the merge of #{first} (run 1, pid {os.getpid()}, running)"
    assert said in page
