"""``ralph runs|tasks|store|db`` against a real SQLite store."""

from __future__ import annotations

import json

import pytest

from ralph.graph import build_task_graph
from ralph.pipeline import GroupResult, IssueState, detect_position
from ralph.tasks import open_store
from ralph.tracker import LOCAL_TRACKER_MIGRATIONS


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path}/ralph.db"


@pytest.fixture
def run_id(url):
    issues = [IssueState(n, "", "Research Needed", "S") for n in (41, 42)]
    position = detect_position(issues, is_group=True, group_primary=41)
    graph = build_task_graph(position, GroupResult((41, 42), 41, True), review_mode="auto")
    with open_store(url) as store:
        run = store.create_run("team GH-41", root_issue=41)
        store.add_tasks(run.id, graph)
        claim = store.claim(run.id, "analyst-1", ["analyst"])
        assert claim is not None
        store.complete(claim, {"artifact_path": "thoughts/shared/research/x.md"})
        store.claim(run.id, "analyst-2", ["analyst"])
        return run.id


@pytest.fixture
def ralph(ralph_cli, url):
    """``ralph --store URL ARGS`` in-process."""
    return lambda *args: ralph_cli("--store", url, *args)


def test_runs_list_shows_progress(ralph, run_id):
    code, out, _ = ralph("runs", "list")
    assert code == 0
    assert "team GH-41" in out
    assert "1/8" in out
    code, out, _ = ralph("runs", "list", "--json")
    assert json.loads(out)[0]["tasks"] == {"done": 1, "running": 1, "pending": 6}


def test_runs_show(ralph, run_id):
    code, out, _ = ralph("runs", "show", str(run_id))
    assert code == 0
    assert "Run 1: team GH-41" in out
    assert "Outcome: running · tasks 1/8 done" in out
    # The raw events and the coordination counters are details, asked for.
    assert "task_done" not in out
    code, out, _ = ralph("runs", "show", str(run_id), "--details")
    assert code == 0
    assert "task_done" in out
    assert "claims 2: 0 while blocked" in out


def test_runs_show_without_a_number_shows_the_latest_run(ralph, run_id, url):
    with open_store(url) as store:
        latest = store.create_run("hero GH-7", root_issue=7).id
    code, out, _ = ralph("runs", "show")
    assert code == 0
    assert f"Run {latest}: hero GH-7" in out
    code, out, _ = ralph("runs", "show", "--json")
    assert json.loads(out)["id"] == latest


def test_runs_show_without_any_run_says_how_to_start_one(ralph, url):
    open_store(url).close()  # a store, empty
    code, out, err = ralph("runs", "show")
    assert (code, out) == (2, "")
    assert err == "ralph: error: there are no runs yet; ralph hero N or ralph team N starts one\n"


def test_tasks_graph_marks_status_and_what_blocked_tasks_wait_for(ralph, run_id):
    code, out, _ = ralph("tasks", "graph", str(run_id))
    assert code == 0
    assert "✓ done  Research GH-41" in out
    assert "● running  Research GH-42" in out
    assert "analyst-2" in out
    assert "waits for research:42 (running)" in out
    assert "waits for plan:41 (pending)" in out


def test_tasks_list_filters_and_show_has_history(ralph, run_id):
    code, out, _ = ralph("tasks", "list", "--run", str(run_id), "--status", "done", "--json")
    assert code == 0
    [done] = json.loads(out)
    assert done["key"] == "research:41"
    assert done["result"] == {"artifact_path": "thoughts/shared/research/x.md"}
    code, out, _ = ralph("tasks", "show", str(done["id"]), "--json")
    assert [h["kind"] for h in json.loads(out)["history"]] == [
        "task_added",
        "task_claimed",
        "task_done",
    ]
    code, out, _ = ralph("tasks", "show", str(done["id"]))
    assert "attempt 1 of 3" in out


def test_reap_and_migrate(ralph, run_id):
    code, out, _ = ralph("db", "reap")
    assert code == 0
    assert "0 tasks reaped" in out
    code, out, _ = ralph("store", "reap")  # the old spelling, hidden
    assert code == 0
    assert "0 tasks reaped" in out
    # open_store made the task store's tables only; the database has the tracker's too.
    code, out, _ = ralph("db", "migrate")
    tracker_versions = [m.version for m in LOCAL_TRACKER_MIGRATIONS]
    assert out.strip() == f"applied migrations: {tracker_versions}"
    code, out, _ = ralph("db", "migrate")
    assert out.strip() == "schema is up to date"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["runs", "show", "99"], "no run with id 99"),
        (["tasks", "show", "99"], "no task with id 99"),
        (["tasks", "graph", "99"], "no run with id 99"),
    ],
)
def test_unknown_ids_are_one_line_errors(ralph, run_id, args, message):
    code, _out, err = ralph(*args)
    assert code == 2
    assert err == f"ralph: error: {message}\n"


def test_a_missing_store_is_not_created_by_reading(ralph_cli, tmp_path):
    code, _, err = ralph_cli("--store", f"sqlite:///{tmp_path}/none.db", "runs", "list")
    assert code == 2
    assert "no Ralph store at" in err
    assert not (tmp_path / "none.db").exists()


def test_a_malformed_url_is_named(ralph_cli):
    code, _, err = ralph_cli("--store", "mysql://u:pw@h/db", "runs", "list")
    assert code == 2
    assert "unsupported store URL 'mysql://u:***@h/db'" in err
    assert "pw" not in err


def _holder_and_waiter(url, owner):
    """``ralph hero 4``'s merge (run 1) claimed by ``owner``; ``ralph hero 6``'s (run 2)
    ready but for the key. Returns run 2's id."""
    from tests.integration.tasks.test_serial_key_queue import merge_run, ready

    with open_store(url) as store:
        holder, pr, merge = merge_run(store, "hero GH-4", key="merge:o/r", root=4)
        ready(store, holder, pr)
        store.claim_task(merge.id, owner)
        waiter, pr_waiter, _ = merge_run(store, "hero GH-6", key="merge:o/r", root=6)
        ready(store, waiter, pr_waiter)
        return waiter.id


def _said(ralph, run):
    code, graph, _ = ralph("tasks", "graph", str(run))
    assert code == 0
    code, shown, _ = ralph("runs", "show", str(run))
    assert code == 0
    return graph, shown


def test_a_merge_waiting_for_the_key_of_a_process_that_is_gone_says_so(ralph, url):
    from tests.integration.tasks.test_serial_key_queue import gone_owner

    owner = gone_owner()
    pid = owner.partition(":")[2].partition("/")[0]
    run = _holder_and_waiter(url, owner)
    for said in _said(ralph, run):
        assert f"waiting for: the merge of #4 (run 1, pid {pid}, gone — taken over now)" in said


def test_a_merge_waiting_for_a_process_of_another_machine_names_its_lease_and_the_resume(
    ralph, url
):
    run = _holder_and_waiter(url, "far-away-box:4321/merge")
    for said in _said(ralph, run):
        assert "waiting for: the merge of #4 (run 1, pid 4321 on far-away-box, lease until" in said
        assert "): `ralph hero 4` resumes it" in said


def test_a_merge_waiting_for_a_live_process_of_this_machine_says_it_runs(ralph, url):
    import os
    import socket

    run = _holder_and_waiter(url, f"{socket.gethostname()}:{os.getpid()}/merge")
    for said in _said(ralph, run):
        assert f"waiting for: the merge of #4 (run 1, pid {os.getpid()}, running)" in said
