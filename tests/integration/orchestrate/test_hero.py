"""Hero mode end to end on the local tracker with the scripted agents: one process takes
an issue, a group or an epic from where it is to merged code."""

from __future__ import annotations

import socket
import time

import pytest

from ralph.orchestrate import Budget, Ending, Lead, SessionOptions, Worker
from ralph.phases import approve
from ralph.project import Project
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.workflow import WorkflowState

from .conftest import Demo, assert_sound

DONE = WorkflowState.DONE


def test_a_single_issue_goes_from_research_to_merged(demo: Demo):
    number = demo.issue("farewell")
    result = demo.hero(number)
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is DONE
    assert "def farewell" in demo.on_main("greet/core.py")
    assert set(demo.statuses(result)) == {
        f"{kind}:{number}" for kind in ("research", "plan", "review", "implement", "pr", "merge")
    }
    assert_sound(demo.report(result))


def test_a_group_researches_in_parallel_and_implements_in_dependency_order(demo: Demo):
    first, second, third = demo.group()
    result = demo.hero(third)
    assert result.run is not None
    assert result.ending is Ending.FINISHED
    assert [demo.state(n) for n in (first, second, third)] == [DONE] * 3
    tasks = demo.project.store.list_tasks(result.run.id, kind="implement")
    assert [t.issues[0] for t in sorted(tasks, key=lambda t: t.updated_at)] == [
        first,
        second,
        third,
    ]
    report = demo.report(result)
    assert_sound(report)
    # The three research tasks overlapped: the run took less than their sum.
    assert report.makespan < report.work


def test_an_epic_is_triaged_split_and_carried_to_done(demo: Demo):
    result = demo.hero(demo.epic)
    assert result.ending is Ending.FINISHED
    epic = demo.project.tracker.get_issue(demo.epic)
    assert len(epic.sub_issues) == 3
    assert epic.workflow_state is DONE
    assert not epic.is_open
    assert all(demo.state(n) is DONE for n in epic.sub_issues)
    statuses = demo.statuses(result)
    assert statuses["triage:1"] == statuses["split:1"] == "done"
    assert statuses["research:1"] == "canceled"  # replaced once triage sized the epic M
    assert "from greet.core import farewell" in demo.on_main("greet/__init__.py")


def test_a_rerun_of_a_finished_issue_has_nothing_to_do(demo: Demo):
    number = demo.issue("farewell")
    demo.hero(number)
    again = demo.hero(number)
    assert again.ending is Ending.NOTHING_TO_DO
    assert again.run is None
    assert len(demo.project.store.list_runs(root_issue=number)) == 1


def test_the_human_gate_stops_the_run_and_approval_resumes_the_same_graph(demo: Demo):
    number = demo.issue("farewell")
    first = demo.hero(number, review_mode="interactive")
    assert first.ending is Ending.WAITING_FOR_HUMAN
    assert first.gates == (number,)
    assert demo.state(number) is WorkflowState.PLAN_IN_REVIEW
    assert "ralph approve" in demo.report(first).needs_person[0]
    # Running again without an approval stops at the same place.
    assert demo.hero(number, review_mode="interactive").ending is Ending.WAITING_FOR_HUMAN

    approve(demo.project, number)
    second = demo.hero(number, review_mode="interactive")
    assert second.resumed
    assert first.run is not None
    assert second.run is not None
    assert second.run.id == first.run.id
    assert second.ending is Ending.FINISHED
    assert demo.state(number) is DONE
    assert demo.statuses(second)[f"human_gate:{number}"] == "done"
    assert not demo.duplicate_comments(number)


@pytest.mark.timeout(60)
def test_a_worker_thread_that_starts_after_the_session_ended_still_stops(
    demo: Demo, monkeypatch: pytest.MonkeyPatch
):
    # The lead sees the gate at once and ends the session; the workers' threads only
    # start running afterwards. They must still see that shutdown, not wait forever.
    number = demo.issue("farewell")
    assert demo.hero(number, review_mode="interactive").ending is Ending.WAITING_FOR_HUMAN
    started = Worker.run

    def late(self: Worker):
        time.sleep(1.5)
        return started(self)

    monkeypatch.setattr(Worker, "run", late)
    began = time.monotonic()
    again = demo.hero(number, review_mode="interactive")
    assert again.ending is Ending.WAITING_FOR_HUMAN
    assert time.monotonic() - began < 20


def test_needs_iteration_plans_and_reviews_again_then_goes_on(demo: Demo):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime({"review": [AgentFault.NEEDS_ITERATION]}, env={})
    result = demo.hero(number, runtime)
    assert result.ending is Ending.FINISHED
    statuses = demo.statuses(result)
    assert statuses[f"review:{number}"] == "done"
    assert statuses[f"plan:{number}~2"] == statuses[f"review:{number}~2"] == "done"
    assert statuses[f"implement:{number}"] == "canceled"
    assert statuses[f"merge:{number}~2"] == "done"
    assert demo.state(number) is DONE


def test_a_plan_that_keeps_needing_work_goes_to_a_person(demo: Demo):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime({"review": [AgentFault.NEEDS_ITERATION] * 3}, env={})
    result = demo.hero(number, runtime)
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.HUMAN_NEEDED
    statuses = demo.statuses(result)
    assert statuses[f"review:{number}~3"] == "failed"
    assert statuses[f"implement:{number}~3"] == "canceled"
    report = demo.report(result)
    assert report.counters.escalations == 1
    assert any("re-plans" in line for line in report.needs_person)


def test_an_escalation_mid_group_stops_only_what_waits_for_it(demo: Demo):
    first, second, third = demo.group()
    runtime = ScriptedRuntime({"research": [AgentFault.ESCALATE]}, env={})
    result = demo.hero(first, runtime, concurrency=1)  # research runs in order: #first escalates
    assert result.ending is Ending.FINISHED
    assert demo.state(first) is WorkflowState.HUMAN_NEEDED
    assert demo.state(second) is demo.state(third) is WorkflowState.READY_FOR_PLAN
    statuses = demo.statuses(result)
    assert statuses[f"research:{first}"] == "failed"
    assert statuses[f"research:{second}"] == statuses[f"research:{third}"] == "done"
    assert statuses[f"plan:{first}"] == "canceled"
    report = demo.report(result)
    assert report.counters.messages == report.counters.escalations == 1
    assert any(f"#{first}" in line for line in report.needs_person)


def test_an_implementation_failure_stops_the_chain_and_keeps_the_worktree(demo: Demo):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime({"implement": [AgentFault.FAIL] * 2}, env={})
    result = demo.hero(number, runtime, attempts=2)
    statuses = demo.statuses(result)
    assert statuses[f"implement:{number}"] == "failed"
    assert statuses[f"pr:{number}"] == statuses[f"merge:{number}"] == "canceled"
    assert demo.state(number) is WorkflowState.HUMAN_NEEDED
    worktrees = demo.project.git.worktrees()
    assert any(path.name.endswith(str(number)) for path in worktrees if path != demo.folder)


def test_no_task_starts_once_the_run_budget_is_spent(demo: Demo):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime(env={}, cost_usd=0.5)
    result = demo.hero(number, runtime, budget=Budget(run_usd=1.0), concurrency=1)
    assert result.run is not None
    assert result.ending is Ending.OUT_OF_BUDGET
    assert "budget" in result.detail
    statuses = demo.statuses(result)
    # research and plan cost $1.00 between them; review never started.
    assert statuses[f"plan:{number}"] == "done"
    assert statuses[f"review:{number}"] == "pending"
    assert demo.project.store.spent(run_id=result.run.id) == 1.0
    # With more budget the same run goes on.
    again = demo.hero(number, runtime, budget=Budget(run_usd=10.0))
    assert again.resumed
    assert again.ending is Ending.FINISHED


def test_a_run_of_a_crashed_process_is_resumed_with_its_claims_handed_back(demo: Demo):
    number = demo.issue("farewell")
    project: Project = demo.project
    lead = Lead(project, number, SessionOptions.from_config(project.config, mode="hero"))
    run, resumed = lead.open_run()
    assert run is not None
    assert not resumed
    task = project.store.list_tasks(run.id)[0]
    dead = f"{socket.gethostname()}:999999999/hero-1"  # a process of this host that is gone
    project.store.claim_task(task.id, dead)
    result = demo.hero(number)
    assert result.resumed
    assert result.run is not None
    assert result.run.id == run.id
    assert result.ending is Ending.FINISHED
    assert project.store.get_task(task.id).attempts == 2


def test_a_run_whose_remaining_work_a_rewrite_canceled_plans_again_instead_of_finishing(
    demo: Demo,
):
    number = demo.issue("farewell")
    project: Project = demo.project
    hero = SessionOptions.from_config(project.config, mode="hero")
    run, _ = Lead(project, number, hero).open_run()
    assert run is not None
    plan = next(t for t in project.store.list_tasks(run.id) if t.key == f"plan:{number}")
    project.store.cancel(plan.id, with_dependents=True)  # as a rewrite without replacements
    result = demo.hero(number)
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is DONE
    statuses = demo.statuses(result)
    assert statuses[f"plan:{number}"] == "canceled"
    assert statuses[f"plan:{number}~2"] == statuses[f"merge:{number}~2"] == "done"
    assert_sound(demo.report(result))


def test_an_agent_that_cannot_work_stops_the_session_and_leaves_the_issues_as_they_were(
    demo: Demo,
):
    number = demo.issue("farewell")
    runtime = ScriptedRuntime({"research": [AgentFault.MISCONFIGURED]}, env={})
    result = demo.hero(number, runtime)
    assert result.ending is Ending.AGENT_UNUSABLE
    assert result.detail == (
        "the agent (simulated agent (scripted)) cannot work: scripted fault: the key was "
        "refused; set ANTHROPIC_API_KEY"
    )
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED
    comments = demo.project.tracker.get_issue(number).comments
    assert not [c for c in comments if c.body.startswith("Escalation")]
    assert demo.statuses(result)[f"research:{number}"] == "pending"
    assert demo.project.store.get_issue_lock(demo.project.config.repo, number) is None
    again = demo.hero(number, ScriptedRuntime(env={}))
    assert again.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE
