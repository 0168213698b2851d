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
from tests.integration.tasks.test_serial_key_queue import merge_run, ready

from .conftest import client_of


def test_the_run_page_says_whose_merge_a_waiting_merge_waits_for(tmp_path: Path) -> None:
    repo, epic = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        store = project.store
        holder, pr, merge = merge_run(store, "hero GH-1", root=epic)
        ready(store, holder, pr)
        store.claim_task(merge.id, f"{socket.gethostname()}:{os.getpid()}/merge")
        waiter, pr_waiter, _ = merge_run(store, "hero GH-1 again", root=epic)
        ready(store, waiter, pr_waiter)
        page = html.unescape(client_of(project).get(f"/runs/{waiter.id}").text)
    said = f"waiting for: the merge of #{epic} (run {holder.id}, pid {os.getpid()}, running)"
    assert said in page
