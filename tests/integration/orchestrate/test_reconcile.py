"""Reconciliation in a session: a person who takes an issue away while its agent works
(moves it to Human Needed, Canceled or Done, closes it) stops that agent at once; the
worktree stays, what waits for the task is canceled, the report says what happened, and
the issue moved back is carried on by the next run. Ralph's own moves (a merge moving
its issues to Done) never stop anything, however often the board is read."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ralph.orchestrate import BoardReads, Reconciler, SessionResult
from ralph.orchestrate._lead import Ending
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.tasks import TaskStatus
from ralph.tracker import CloseReason
from ralph.workflow import WorkflowState

from .conftest import Demo, assert_sound
from .test_team import wait_until

S = WorkflowState


def _in_background(
    run: Callable[[], SessionResult],
) -> tuple[threading.Thread, list[SessionResult]]:
    out: list[SessionResult] = []
    thread = threading.Thread(target=lambda: out.append(run()), daemon=True)
    thread.start()
    return thread, out


def _quick(demo: Demo) -> Reconciler:
    """A reconciler that reads the board at every look (a session looks twice a second)."""
    return Reconciler(BoardReads(demo.project.tracker), every=0)


def _running(demo: Demo, kind: str) -> bool:
    return any(
        task.kind == kind
        for run in demo.project.store.list_runs()
        for task in demo.project.store.list_tasks(run.id, status=TaskStatus.RUNNING)
    )


def test_an_agent_whose_issue_a_person_escalates_stops_and_the_issue_moved_back_is_finished(
    demo: Demo,
):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime({"implement": [AgentFault.HANG]}, env={})  # until stopped
    thread, out = _in_background(
        lambda: demo.hero(number, runtime, concurrency=1, reconciler=_quick(demo))
    )
    wait_until(lambda: _running(demo, "implement") and len(runtime.briefs) == 4)
    worktree = demo.folder / "worktrees" / f"GH-{number}"
    assert worktree.is_dir()
    started = time.monotonic()
    demo.project.tracker.set_state(number, "Human Needed")  # a person, on the board
    thread.join(60)
    assert not thread.is_alive()
    assert time.monotonic() - started < 30  # the hang would have lasted 1800 s

    (result,) = out
    assert demo.state(number) is S.HUMAN_NEEDED  # the person's move stands
    assert worktree.is_dir()  # kept for the person to look at
    statuses = demo.statuses(result)
    assert statuses[f"implement:{number}"] == "failed"
    assert statuses[f"pr:{number}"] == statuses[f"merge:{number}"] == "canceled"
    report = demo.report(result)
    said = " ".join(report.needs_person)
    assert (
        f"#{number} was moved to Human Needed by a person while implement ran; "
        "its agent was stopped"
    ) in said
    assert demo.project.code_host.list_pull_requests() == []

    demo.project.tracker.set_state(number, "In Progress")  # the person puts it back
    again = demo.hero(number, runtime, concurrency=1, reconciler=_quick(demo))
    assert again.ending is Ending.FINISHED
    assert demo.state(number) is S.DONE
    assert [brief.phase for brief in runtime.briefs][4:] == ["implement"]


def test_closing_an_issue_while_its_research_runs_stops_that_agent_and_only_its_pipeline(
    demo: Demo,
):
    numbers = demo.group()
    runtime = ScriptedRuntime({"research": [AgentFault.HANG]}, env={})
    thread, out = _in_background(
        lambda: demo.hero(numbers[-1], runtime, concurrency=1, reconciler=_quick(demo))
    )
    # The agent has its brief once the phase took the issue (a claimed task has not yet).
    wait_until(lambda: _running(demo, "research") and len(runtime.briefs) == 1)
    (taken,) = [n for n in numbers if demo.state(n) is S.RESEARCH_IN_PROGRESS]
    demo.project.tracker.close_issue(taken, CloseReason.NOT_PLANNED)
    thread.join(60)
    assert not thread.is_alive()

    (result,) = out
    statuses = demo.statuses(result)
    assert statuses[f"research:{taken}"] == "failed"
    others = [n for n in numbers if n != taken]
    assert all(statuses[f"research:{n}"] == "done" for n in others)
    assert all(demo.state(n) is S.READY_FOR_PLAN for n in others)
    assert {s for key, s in statuses.items() if key.startswith(("plan:", "merge:"))} == {"canceled"}
    said = " ".join(demo.report(result).needs_person)
    assert f"#{taken} was closed by a person while research ran; its agent was stopped" in said
    repo = demo.project.config.repo or demo.project.git.path.name
    assert demo.project.store.load_checkpoint(f"{repo}#{taken}:research") is None


def test_the_pipelines_own_moves_never_stop_an_agent_however_often_the_board_is_read(
    demo: Demo,
):
    result = demo.hero(demo.epic, reconciler=_quick(demo))
    assert result.ending is Ending.FINISHED
    epic = demo.project.tracker.get_issue(demo.epic)
    assert all(demo.state(n) is S.DONE for n in (demo.epic, *epic.sub_issues))
    report = demo.report(result)
    assert report.needs_person == ()
    assert_sound(report)
