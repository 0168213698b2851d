"""Team mode: a lead and role-typed workers over one store, in one process, across
processes, and across a crash of the lead."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections import Counter
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Ending, Lead, SessionOptions, load_report
from ralph.project import open_project
from ralph.tasks import EventKind, RunStatus, Task, TaskStatus, TaskStore, open_store
from ralph.workflow import WorkflowState

from ..conftest import ralph_process, spawn_ralph
from .conftest import Demo, assert_sound


def owner(task: Task) -> str:
    assert task.owner is not None  # a finished task keeps the worker that did it
    return task.owner


def wait_until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_team_with_two_workers_per_role_carries_the_epic_soundly(demo: Demo):
    result = demo.team(demo.epic, per_role=2)
    assert result.run is not None
    assert result.ending is Ending.FINISHED
    # The session started two of each; its roster may have grown with the queues.
    assert [line.start for line in result.roster] == [2, 2, 2, 2]
    assert len(result.workers) >= 8
    epic = demo.project.tracker.get_issue(demo.epic)
    assert all(demo.state(n) is WorkflowState.DONE for n in (demo.epic, *epic.sub_issues))
    report = demo.report(result)
    assert_sound(report)
    assert report.counters.messages == 0
    owners = {
        owner(t).rpartition("/")[2].split("-")[0]
        for t in demo.project.store.list_tasks(result.run.id, status=TaskStatus.DONE)
    }
    assert owners == {"analyst", "builder", "validator", "integrator"}
    # Research ran side by side on two analysts.
    research = [t.owner for t in demo.project.store.list_tasks(result.run.id, kind="research")]
    assert len(set(research) - {None}) >= 2


def test_ralph_demo_runs_the_whole_pipeline_and_says_the_agents_are_simulated(tmp_path):
    started = time.monotonic()
    result = ralph_process("demo", "--keep", str(tmp_path / "kept"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.monotonic() - started < 60
    out = result.stdout
    assert "simulated" in out
    for line in ("✓ every issue Done", "✓ the change merged on main", "✓ the tests pass on main"):
        assert line in out
    assert "ralph team N --agent claude" in out
    assert "board: Done 4" in out
    # The plan made before triage sized the epic never ran: it is not shown as work.
    assert "earlier tasks" not in out
    assert "replaced" not in out
    assert "[]" not in out
    assert re.search(
        r"Merged pull request #\d+ into main \([0-9a-f]{7}\), closing #2, #3, #4\.", out
    )
    assert "Outcome: succeeded · tasks 12/12 done · " in out
    assert "│ Research GH-1 " not in out
    kept = tmp_path / "kept"
    assert (kept / "ralph.toml").is_file()
    # The kept project answers ralph's own commands: the report can be printed again.
    again = ralph_process("runs", "show", "1", cwd=kept)
    assert again.returncode == 0
    assert "Outcome: succeeded" in again.stdout
    listed = ralph_process("runs", "list", "--json", cwd=kept)
    (run,) = json.loads(listed.stdout)
    assert (run["outcome"], run["done"]) == ("succeeded", {"done": 12, "total": 12, "replaced": 6})
    table = ralph_process("runs", "list", cwd=kept)
    assert "succeeded" in table.stdout
    assert "12/18" not in table.stdout


def test_ralph_demo_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    result = ralph_process("demo", "--keep", str(tmp_path / "full"), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"ralph: error: {tmp_path / 'full'} is not empty; give --keep a new or empty folder"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["team", "1", "--workers", "coder=2"], "bad --workers item 'coder=2'"),
        (["worker", "--roles", "coder"], "unknown role(s) ['coder']"),
        (["worker", "--run", "99"], "no run with id 99"),
        (["worker", "--wait", "nan"], "--wait nan is not valid"),
        (["worker", "--wait", "-1"], "--wait -1.0 is not valid"),
    ],
)
def test_bad_orchestration_input_is_one_line(tmp_path, args, message):
    repo, _ = create_demo_project(tmp_path / "greet")
    result = ralph_process(*args, cwd=repo)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr


def test_ralph_hero_prints_the_report_and_exits_zero(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    result = ralph_process("hero", str(epic), cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Run 1: hero GH-1" in result.stdout
    assert "Outcome: succeeded" in result.stdout
    # A success names what merged where and what to look at next.
    assert re.search(
        r"Merged pull request #\d+ into main \([0-9a-f]{7}\), closing #", result.stdout
    )
    assert "Next: `ralph web` to see the board" in result.stdout
    assert "`git log --oneline main`" in result.stdout
    # Timing and coordination counters are details: runs show --details has them.
    assert "makespan" not in result.stdout
    details = ralph_process("runs", "show", "--details", cwd=repo)
    assert "makespan" in details.stdout
    assert "0 while blocked" in details.stdout


def _frozen_with_a_task_running(pid: int, store: TaskStore) -> bool:
    """Stop the process (SIGSTOP, every thread at rest, so the store stands still) and
    look: True, left stopped, when one of its tasks is running; else it goes on."""
    os.kill(pid, signal.SIGSTOP)
    threads = Path(f"/proc/{pid}/task")
    wait_until(lambda: all(_state(stat) in "TtZX" for stat in threads.glob("*/stat")))
    (run,) = store.list_runs()
    if store.list_tasks(run.id, status=TaskStatus.RUNNING):
        return True
    os.kill(pid, signal.SIGCONT)
    return False


def _state(stat: Path) -> str:
    try:
        return stat.read_text().rpartition(")")[2].split()[0]  # the field after the name
    except (FileNotFoundError, ProcessLookupError):
        return "X"  # the thread ended


def _done_events(db: Path) -> int:
    with open_store(f"sqlite:///{db}") as store:
        runs = store.list_runs()
        if not runs:
            return 0
        return sum(1 for e in store.events(runs[0].id) if e.kind is EventKind.TASK_DONE)


def test_killing_the_lead_mid_run_and_running_again_finishes_without_duplicates(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    db = repo / ".ralph" / "ralph.db"
    lead = spawn_ralph("team", str(epic), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "0.3"})
    try:
        wait_until(lambda: _done_events(db) >= 4)
        # Killed while a task runs: a lead seen between two tasks is let go on. The store
        # is opened first, as opening it writes, and a frozen lead may hold the write lock.
        with open_store(f"sqlite:///{db}") as store:
            wait_until(lambda: _frozen_with_a_task_running(lead.pid, store))
    finally:
        lead.send_signal(signal.SIGKILL)
        lead.communicate()
    with open_store(f"sqlite:///{db}") as store:
        (run,) = store.list_runs()
        assert run.status is RunStatus.ACTIVE
        assert any(t.status is TaskStatus.RUNNING for t in store.list_tasks(run.id))

    again = ralph_process("team", str(epic), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Resumed run 1." in again.stdout
    with open_project(load_config(repo)) as project:
        store, tracker = project.store, project.tracker
        (run,) = store.list_runs()
        assert run.status is RunStatus.FINISHED
        report = load_report(store, run.id)
        assert_sound(report)
        keys = [t.key for t in store.list_tasks(run.id)]
        assert len(keys) == len(set(keys))
        done = Counter(e.task_id for e in store.events(run.id) if e.kind is EventKind.TASK_DONE)
        assert set(done.values()) == {1}
        issues = [
            tracker.get_issue(epic),
            *map(tracker.get_issue, tracker.get_issue(epic).sub_issues),
        ]
        assert all(i.workflow_state is WorkflowState.DONE for i in issues)
        for issue in issues:
            bodies = Counter(c.body for c in issue.comments)
            assert max(bodies.values()) == 1, issue.number
        documents = project.git.run(
            "ls-tree", "-r", "--name-only", "main", "thoughts/shared"
        ).stdout
        research = [p for p in documents.splitlines() if "/research/" in p]
        assert len(research) == 3
        assert len(project.code_host.list_pull_requests()) == 1


def test_a_lead_and_two_worker_processes_share_a_postgresql_store(tmp_path, pg_schema_url):
    repo, epic = create_demo_project(tmp_path / "greet", store_url=pg_schema_url)
    env = {"RALPH_SCRIPTED_DELAY": "0.2"}  # long enough for both processes to take work
    # Workers first: they wait for the run the lead is about to write.
    workers = [spawn_ralph("worker", "--concurrency", "2", cwd=repo, env=env) for _ in range(2)]
    lead = ralph_process(
        "team",
        str(epic),
        "--workers",
        "analyst=0,builder=0,validator=0,integrator=0",
        cwd=repo,
        env=env,
        timeout=180,
    )
    outputs = [w.communicate(timeout=60) for w in workers]
    assert lead.returncode == 0, lead.stdout + lead.stderr
    assert all(w.returncode == 0 for w in workers), outputs
    with open_project(load_config(repo)) as project:
        (run,) = project.store.list_runs()
        assert_sound(load_report(project.store, run.id))
        done = project.store.list_tasks(run.id, status=TaskStatus.DONE)
        assert len({owner(t).partition("/")[0] for t in done}) == 2  # both processes worked
        assert project.tracker.get_issue(epic).workflow_state is WorkflowState.DONE


def _running(db: Path) -> list[str]:
    with open_store(f"sqlite:///{db}") as store:
        runs = store.list_runs()
        return (
            [t.key for t in store.list_tasks(runs[0].id, status=TaskStatus.RUNNING)] if runs else []
        )


def test_a_first_interrupt_lets_running_tasks_finish_and_a_rerun_goes_on(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    db = repo / ".ralph" / "ralph.db"
    lead = spawn_ralph("team", str(epic), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "0.5"})
    wait_until(lambda: bool(_running(db)))
    lead.send_signal(signal.SIGINT)
    out, err = lead.communicate(timeout=60)
    assert lead.returncode == 130, out + err
    assert "no new tasks" in err
    assert _running(db) == []
    with open_store(f"sqlite:///{db}") as store:
        (run,) = store.list_runs()
        assert run.status is RunStatus.ACTIVE
        assert store.list_tasks(run.id, status=TaskStatus.DONE)  # the task in hand finished
    assert ralph_process("team", str(epic), cwd=repo).returncode == 0


def test_a_second_interrupt_hands_running_tasks_back_at_once(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    db = repo / ".ralph" / "ralph.db"
    said = tmp_path / "team.err"
    with said.open("w") as stderr:
        lead = spawn_ralph(
            "team", str(epic), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "30"}, stderr=stderr
        )
        try:
            wait_until(lambda: bool(_running(db)))
            started = time.monotonic()
            lead.send_signal(signal.SIGINT)
            # Two signals before Python handles the first are one: wait until it did.
            wait_until(lambda: "Stopping: no new tasks" in said.read_text())
            lead.send_signal(signal.SIGINT)
            out, _ = lead.communicate(timeout=20)
        finally:
            if lead.poll() is None:
                lead.kill()
                lead.communicate(timeout=30)
    err = said.read_text()
    assert time.monotonic() - started < 15  # not the agent's 30 s
    assert lead.returncode == 130, out + err
    assert _running(db) == []
    with open_store(f"sqlite:///{db}") as store:
        (run,) = store.list_runs()
        released = [e for e in store.events(run.id) if e.kind is EventKind.TASK_RELEASED]
        assert released


def test_a_run_that_leaves_work_for_a_person_exits_1_and_says_what(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    result = ralph_process(
        "hero", str(epic), cwd=repo, env={"RALPH_SCRIPTED_FAULTS": "research=escalate"}
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Needs a person:" in result.stdout
    assert "scripted fault: the agent asks a person" in result.stdout
    assert "Outcome: needs a person" in result.stdout
    # Whichever child's research escalated first (they run side by side) is named.
    assert re.search(r"`ralph issue retry [234]`, then `ralph hero 1` goes on\.", result.stdout)
    # Every place the run is shown says the same, none of them "finished".
    listed = ralph_process("runs", "list", cwd=repo).stdout
    assert "needs a person" in listed
    assert "finished" not in listed
    assert "Outcome: needs a person" in ralph_process("runs", "show", cwd=repo).stdout
    (run,) = json.loads(ralph_process("runs", "list", "--json", cwd=repo).stdout)
    shown = json.loads(ralph_process("runs", "show", "--json", cwd=repo).stdout)
    assert run["outcome"] == shown["outcome"] == shown["report"]["outcome"] == "needs_person"


def test_a_worker_whose_agent_cannot_work_hands_its_task_back_and_stops(tmp_path):
    repo, epic = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        team = SessionOptions.from_config(project.config, mode="team")
        run, _ = Lead(project, epic, team).open_run()
        assert run is not None
    worker = ralph_process(
        "worker",
        "--run",
        str(run.id),
        cwd=repo,
        env={"RALPH_SCRIPTED_FAULTS": "triage=misconfigured"},
    )
    assert worker.returncode == 2, worker.stdout + worker.stderr
    assert (
        "Stopped: the agent (simulated agent (scripted)) cannot work: scripted fault: the key "
        "was refused; set ANTHROPIC_API_KEY" in worker.stdout
    )
    with open_project(load_config(repo)) as project:
        (triage,) = project.store.list_tasks(run.id, kind="triage")
        assert triage.status is TaskStatus.PENDING
        assert project.tracker.get_issue(epic).workflow_state is WorkflowState.BACKLOG
