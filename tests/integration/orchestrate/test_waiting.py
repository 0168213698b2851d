"""Waiting is not failing: a phase that is not ready yet (checks running, a review
missing) goes back to the store with a wake-up time, holds no worker and no issue lock
while it waits, and spends no attempt; a run whose only work waits for a person ends
like a human gate (exit 1, "Needs a person") and the same command looks again, unless
``--wait`` keeps it going. ``WaitGate`` stands in for what the merge policy will wait
for."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.config import MergeWaitSettings, load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import Ending, wake_waiting
from ralph.phases import get_phase
from ralph.project import open_project
from ralph.tasks import EventKind, RunStatus, TaskStatus
from ralph.workflow import WorkflowState

from ..conftest import ralph_environment, ralph_process
from .conftest import BODIES, Demo, assert_sound
from .test_team import wait_until
from .waiting_gate import WaitGate

DONE = WorkflowState.DONE
MERGE = type(get_phase("merge"))
RESEARCH = type(get_phase("research"))
WAITING_RALPH = Path(__file__).with_name("waiting_ralph.py")


@pytest.fixture
def quick(demo: Demo) -> Demo:
    """The demo with waits of a tenth of a second, doubling to half a second."""
    config = dataclasses.replace(
        demo.project.config, merge=MergeWaitSettings(wait_seconds=0.1, max_wait_seconds=0.5)
    )
    demo.project = dataclasses.replace(demo.project, config=config)
    return demo


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch):
    """Install a gate before a phase's check for the test."""

    def install(phase: type, gate: WaitGate) -> WaitGate:
        monkeypatch.setattr(phase, "check", phase.check)  # type: ignore[attr-defined]  # put back after
        gate.install(phase)
        return gate

    return install


def task_events(demo: Demo, run_id: int, key: str) -> list[EventKind]:
    task = next(t for t in demo.project.store.list_tasks(run_id) if t.key == key)
    return [e.kind for e in demo.project.store.events(run_id) if e.task_id == task.id]


def test_a_merge_waiting_for_checks_waits_without_escalating_and_merges_when_ready(
    quick: Demo, gated
):
    number = quick.issue("farewell")
    gate = gated(MERGE, WaitGate("checks (2 pending)", looks=3))
    result = quick.hero(number)
    assert result.ending is Ending.FINISHED
    assert result.run is not None
    assert quick.state(number) is DONE
    assert gate.waited == 3
    merge = quick.project.store.list_tasks(result.run.id, kind="merge")[0]
    assert (merge.status, merge.attempts, merge.metadata["waits"]) == (TaskStatus.DONE, 1, 3)
    kinds = task_events(quick, result.run.id, f"merge:{number}")
    assert kinds.count(EventKind.TASK_WAITING) == 3
    assert EventKind.TASK_FAILED not in kinds
    report = quick.report(result)
    assert report.needs_person == ()
    assert report.counters.escalations == 0
    assert_sound(report)
    assert not quick.duplicate_comments(number)


def test_a_waiting_task_holds_no_worker_another_task_runs_meanwhile(demo: Demo, gated):
    config = dataclasses.replace(
        demo.project.config, merge=MergeWaitSettings(wait_seconds=0.5, max_wait_seconds=1)
    )
    demo.project = dataclasses.replace(demo.project, config=config)
    first, second, third = demo.group()
    gated(RESEARCH, WaitGate("checks (1 pending)", looks=2, issue=first))
    result = demo.hero(third, concurrency=1)
    assert result.ending is Ending.FINISHED
    assert result.run is not None
    assert [demo.state(n) for n in (first, second, third)] == [DONE] * 3
    store = demo.project.store
    tasks = {t.id: t for t in store.list_tasks(result.run.id)}
    waiting_id = next(t.id for t in tasks.values() if t.key == f"research:{first}")
    events = store.events(result.run.id)
    first_wait = next(
        i
        for i, e in enumerate(events)
        if e.task_id == waiting_id and e.kind is EventKind.TASK_WAITING
    )
    taken_again = next(
        i
        for i, e in enumerate(events)
        if i > first_wait and e.task_id == waiting_id and e.kind is EventKind.TASK_CLAIMED
    )
    meanwhile = {
        tasks[e.task_id].key
        for e in events[first_wait:taken_again]
        if e.kind is EventKind.TASK_DONE and e.task_id is not None
    }
    assert meanwhile & {f"research:{second}", f"research:{third}"}, meanwhile
    assert tasks[waiting_id].attempts == 1
    assert_sound(demo.report(result))


def test_a_merge_waiting_for_a_review_ends_the_run_for_a_person_and_a_rerun_looks_again(
    quick: Demo, gated
):
    # A long backoff: each session looks once, and only a wake-up brings a look sooner.
    config = dataclasses.replace(
        quick.project.config, merge=MergeWaitSettings(wait_seconds=60, max_wait_seconds=120)
    )
    quick.project = dataclasses.replace(quick.project, config=config)
    number = quick.issue("farewell")
    gate = gated(MERGE, WaitGate("review", for_person=True))
    first = quick.hero(number)
    assert first.ending is Ending.WAITING_FOR_HUMAN
    assert gate.waited == 1
    assert first.waiting == ((number, "review"),)
    assert first.gates == ()
    assert first.run is not None
    assert first.run.status is RunStatus.ACTIVE
    assert quick.state(number) is WorkflowState.IN_REVIEW  # not escalated
    store = quick.project.store
    merge = store.list_tasks(first.run.id, kind="merge")[0]
    assert (merge.status, merge.attempts, merge.owner) == (TaskStatus.PENDING, 0, None)
    assert (merge.waiting_for, merge.waiting_for_person) == ("review", True)
    repo = quick.project.config.repo
    assert store.get_issue_lock(repo, number) is None
    report = quick.report(first)
    assert report.counters.escalations == 0
    [need] = report.needs_person
    assert need.startswith(f"Merge PR for GH-{number}: waiting for: review;")
    assert f"`ralph hero {number}` looks again" in need
    [line] = [t for t in report.tasks if t.key == f"merge:{number}"]
    assert (line.waiting_for, line.for_person, line.next_check) == (
        "review",
        True,
        merge.not_before,
    )

    still = quick.hero(number)  # nobody reviewed yet: it looks once more, and stops again
    assert still.resumed
    assert still.ending is Ending.WAITING_FOR_HUMAN
    assert gate.waited == 2
    assert store.list_tasks(first.run.id, kind="merge")[0].metadata["waits"] == 2

    gate.open()  # the review came in
    done = quick.hero(number)
    assert done.resumed
    assert done.ending is Ending.FINISHED
    assert quick.state(number) is DONE
    kinds = task_events(quick, first.run.id, f"merge:{number}")
    assert EventKind.TASK_WOKEN in kinds  # looked again at once, not after the backoff
    assert store.list_tasks(first.run.id, kind="merge")[0].attempts == 1
    assert len(store.list_runs(root_issue=number)) == 1
    assert_sound(quick.report(done))


def test_wait_keeps_the_run_going_until_the_person_is_done(quick: Demo, gated):
    number = quick.issue("farewell")
    gate = gated(MERGE, WaitGate("review", for_person=True, looks=3))
    result = quick.hero(number, wait=True)
    assert result.ending is Ending.FINISHED
    assert gate.waited == 3
    assert quick.state(number) is DONE
    assert result.run is not None
    merge = quick.project.store.list_tasks(result.run.id, kind="merge")[0]
    assert (merge.attempts, merge.metadata["waits"]) == (1, 3)


def test_a_wait_for_checks_with_a_person_wait_beside_it_ends_only_when_the_checks_are_done(
    quick: Demo, gated
):
    """Two roots' worth of work in one run is not needed: one merge waits for checks
    first, then for a review. The run goes on through the first and stops at the second."""
    number = quick.issue("farewell")
    gate = gated(MERGE, WaitGate("checks (1 pending)", looks=2))
    original = gate.check

    def checks_then_review(n: int) -> None:
        if gate.looks >= 2:
            gate.reason, gate.for_person, gate.looks_left = "review", True, None
        original(n)

    gate.check = checks_then_review
    result = quick.hero(number)
    assert result.ending is Ending.WAITING_FOR_HUMAN
    assert result.waiting == ((number, "review"),)
    assert gate.waited >= 3


def test_a_review_seen_elsewhere_wakes_the_waiting_merge(quick: Demo, gated):
    number = quick.issue("farewell")
    other = quick.issue("export")
    config = dataclasses.replace(
        quick.project.config, merge=MergeWaitSettings(wait_seconds=3600, max_wait_seconds=3600)
    )
    quick.project = dataclasses.replace(quick.project, config=config)
    gated(MERGE, WaitGate("review", for_person=True, issue=number))
    first = quick.hero(number)
    assert first.run is not None
    store = quick.project.store
    assert wake_waiting(store, issues=[other]) == []
    [woken] = wake_waiting(store, issues=[number])
    assert woken.key == f"merge:{number}"
    assert woken.not_before <= woken.updated_at


def test_the_live_view_says_what_a_task_waits_for_and_when_it_looks_again(quick: Demo, gated):
    number = quick.issue("farewell")
    gated(MERGE, WaitGate("review", for_person=True))
    lines = io.StringIO()
    view = LiveView(
        quick.project.store,
        quick.project.tracker,
        Console(file=lines, force_terminal=False, width=200),
    )
    quick.hero(number, observer=view)
    said = [line for line in lines.getvalue().splitlines() if "Merge PR" in line]
    assert any(
        "[hero-" in line and "not ready — waiting for: review (next look " in line for line in said
    ), said
    table = io.StringIO()
    view = LiveView(
        quick.project.store,
        quick.project.tracker,
        Console(file=table, force_terminal=True, width=160, color_system=None),
    )
    with view.showing():
        quick.hero(number, observer=view)
    assert "waiting for: review (next look " in table.getvalue()


# -- the command line ---------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, int]:
    """A demo project on disk with one issue in Research Needed, as the working
    directory, waits of a tenth of a second."""
    folder, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(folder)) as project:
        title, body = BODIES["farewell"]
        number = project.tracker.create_issue(
            title, body=body, state=WorkflowState.RESEARCH_NEEDED
        ).number
    monkeypatch.chdir(folder)
    monkeypatch.setenv("RALPH_MERGE_WAIT_SECONDS", "0.1")
    monkeypatch.setenv("RALPH_MERGE_MAX_WAIT_SECONDS", "0.5")
    return folder, number


def test_hero_waiting_for_a_review_exits_1_naming_what_it_waits_for(ralph_cli, repo, gated):
    _, number = repo
    gate = gated(MERGE, WaitGate("review", for_person=True))
    code, out, err = ralph_cli("hero", str(number))
    assert code == 1, out + err
    assert "Needs a person:" in out
    assert f"Merge PR for GH-{number}: waiting for: review;" in out
    assert "waiting for: review (next look " in out  # the task's row says when
    assert f"Stopped: #{number} waiting for: review. `ralph hero {number}` looks again" in out
    code, out, _ = ralph_cli("runs", "show", "1", "--json")
    [merge] = [t for t in json.loads(out)["report"]["tasks"] if t["key"] == f"merge:{number}"]
    assert (merge["waiting_for"], merge["for_person"], merge["status"]) == (
        "review",
        True,
        "pending",
    )
    assert merge["next_check"] > 0
    code, out, _ = ralph_cli("runs", "show", "1")
    assert "waiting for: review (next look " in out
    code, out, _ = ralph_cli("tasks", "show", str(merge["id"]), "--json")
    shown = json.loads(out)
    assert (shown["waitingFor"], shown["forPerson"]) == ("review", True)
    assert [h["kind"] for h in shown["history"]][-1] == "task_waiting"
    for args in (("tasks", "graph", "1"), ("tasks", "show", str(merge["id"]))):
        code, out, _ = ralph_cli(*args)
        assert "waiting for: review (next look " in out, args
    gate.open()
    code, out, err = ralph_cli("hero", str(number))
    assert code == 0, out + err
    assert "Resumed run 1." in out


def test_hero_with_wait_keeps_going_until_the_review_is_in(ralph_cli, repo, gated):
    _, number = repo
    gated(MERGE, WaitGate("review", for_person=True, looks=2))
    code, out, err = ralph_cli("hero", str(number), "--wait")
    assert code == 0, out + err
    assert "Needs a person" not in out


def test_loop_ends_its_pass_at_a_review_and_with_wait_carries_on_to_done(ralph_cli, repo, gated):
    _, number = repo
    gate = gated(MERGE, WaitGate("review", for_person=True))
    code, out, err = ralph_cli("loop")
    assert code == 1, out + err
    assert f"Merge PR for GH-{number}: waiting for: review;" in out
    before = gate.waited
    gate.looks_left, gate.looks = 2, 0  # the review comes in after two more looks
    code, out, err = ralph_cli("loop", "--wait")
    assert code == 0, out + err
    assert "No work found in any queue." in out
    assert gate.waited == before + 2


def test_run_merge_waits_for_checks_by_itself_and_stops_for_a_review(ralph_cli, repo, gated):
    _, number = repo
    for phase in ("research", "plan", "review", "implement", "pr"):
        code, out, err = ralph_cli("run", phase, str(number))
        assert code == 0, out + err
    checks = gated(MERGE, WaitGate("checks (1 pending)", looks=2))
    code, out, err = ralph_cli("run", "merge", str(number), "--attempts", "1")
    assert code == 0, out + err
    assert out.count(f"merge #{number}: waiting for: checks (1 pending); looking again in") == 2
    assert checks.waited == 2
    assert "result: done" in out


def test_run_merge_stops_for_a_review_unless_told_to_wait(ralph_cli, repo, gated):
    _, number = repo
    for phase in ("research", "plan", "review", "implement", "pr"):
        assert ralph_cli("run", phase, str(number))[0] == 0
    review = gated(MERGE, WaitGate("review", for_person=True, looks=1))
    code, out, err = ralph_cli("run", "merge", str(number))
    assert code == 1, out + err
    assert "result: waiting" in out
    assert f"Waiting for a person: review. `ralph run merge {number}` looks again" in out
    code, out, err = ralph_cli("run", "merge", str(number), "--wait")
    assert code == 0, out + err
    assert review.waited == 1  # the first look waited; --wait's look found it ready
    assert "result: done" in out


# -- kill -9 during a wait -------------------------------------------------------------------


def waiting_merge(folder: Path) -> bool:
    """The merge task waits (deferred at least twice: the process is in its wait)."""
    with open_project(load_config(folder)) as project:
        runs = project.store.list_runs()
        if not runs:
            return False
        merges = project.store.list_tasks(runs[0].id, kind="merge")
        return (
            bool(merges) and merges[0].waiting_for is not None and merges[0].metadata["waits"] >= 2
        )


def test_a_hero_killed_while_its_merge_waits_resumes_and_does_nothing_twice(tmp_path: Path):
    folder, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(folder)) as project:
        title, body = BODIES["farewell"]
        number = project.tracker.create_issue(
            title, body=body, state=WorkflowState.RESEARCH_NEEDED
        ).number
    gate_file = tmp_path / "no-review-yet"
    gate_file.touch()
    fast = {"RALPH_MERGE_WAIT_SECONDS": "0.2", "RALPH_MERGE_MAX_WAIT_SECONDS": "0.5"}
    hero = subprocess.Popen(
        [sys.executable, str(WAITING_RALPH), str(gate_file), "hero", str(number), "--wait"],
        cwd=folder,
        env=ralph_environment({**fast, "RALPH_AGENT": "scripted"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: waiting_merge(folder), timeout=90)
    finally:
        hero.send_signal(signal.SIGKILL)
        hero.communicate(timeout=30)
    assert hero.returncode == -signal.SIGKILL
    os.remove(gate_file)  # the review came in while nothing ran
    again = ralph_process("hero", str(number), cwd=folder, env={**fast, "RALPH_AGENT": "scripted"})
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Resumed run 1." in again.stdout
    with open_project(load_config(folder)) as project:
        tracker, store, git = project.tracker, project.store, project.git
        issue = tracker.get_issue(number)
        assert issue.workflow_state is DONE
        bodies = Counter(c.body for c in issue.comments)
        assert [b for b, n in bodies.items() if n > 1] == []
        assert [p.state.value for p in project.code_host.list_pull_requests()] == ["merged"]
        assert len(git.run("log", "--merges", "--format=%H", "main").stdout.split()) == 1
        [run] = store.list_runs()
        assert run.status is RunStatus.FINISHED
        done = Counter(e.task_id for e in store.events(run.id) if e.kind is EventKind.TASK_DONE)
        assert set(done.values()) == {1}  # every task completed once
        assert all(t.status is TaskStatus.DONE for t in store.list_tasks(run.id))
        assert store.get_issue_lock(project.config.repo, number) is None
