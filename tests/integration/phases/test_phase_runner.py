"""The phase runner's promises: refused preconditions say what to run first, failures
are retried then escalated, a crash is resumed without duplicates, and agents cannot
write where they were not asked to."""

from __future__ import annotations

import dataclasses
import socket
from collections import Counter

import pytest

from ralph.graph import ReviewMode
from ralph.phases import PhaseRefused, PhaseStatus, approve
from ralph.runtimes import AgentStatus, Limits
from ralph.runtimes.scripted import AgentFault
from ralph.tracker import Issue
from ralph.workflow import Estimate
from ralph.workflow import WorkflowState as S

from .conftest import Sample


class Crash(BaseException):
    """Stands in for the process dying: nothing in the runner catches it."""


# -- preconditions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "state", "estimate", "message"),
    [
        (
            "research",
            S.BACKLOG,
            Estimate.XS,
            "research takes issues in Research Needed; #1 is Backlog",
        ),
        (
            "research",
            S.RESEARCH_NEEDED,
            Estimate.M,
            "estimated M: split it first \\(ralph run split 1\\)",
        ),
        ("split", S.BACKLOG, Estimate.S, "#1 is S: only M, L and XL issues are split"),
        ("triage", S.READY_FOR_PLAN, Estimate.XS, "triage takes issues in Backlog"),
        (
            "plan",
            S.READY_FOR_PLAN,
            Estimate.XS,
            "#1 has no research document on main \\(was it removed\\?\\); research it again: "
            'ralph issue move 1 "Human Needed", ralph issue move 1 "Research Needed", '
            "then ralph run research 1",
        ),
        (
            "plan",
            S.RESEARCH_NEEDED,
            Estimate.XS,
            "not Ready for Plan: #1 \\(Research Needed\\); research them first",
        ),
        (
            "review",
            S.PLAN_IN_REVIEW,
            Estimate.XS,
            "#1 has no implementation plan; run ralph run plan 1 first",
        ),
        ("merge", S.IN_REVIEW, Estimate.XS, "no pull request closes #1; run ralph run pr 1 first"),
        ("research", S.HUMAN_NEEDED, Estimate.XS, "#1 is Human Needed: a person has to resolve"),
    ],
)
def test_a_refused_precondition_names_what_to_do(sample: Sample, phase, state, estimate, message):
    number = sample.issue(state=state, estimate=estimate)
    with pytest.raises(PhaseRefused, match=message):
        sample.run(phase, number)
    assert sample.state(number) is state
    assert sample.runtime.briefs == []


def test_implementation_waits_for_an_approved_plan(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan")
    with pytest.raises(
        PhaseRefused,
        match=r"Implementation blocked. #1: Plan in Review .expected: In Progress.; approve",
    ):
        sample.run("implement", number)
    with pytest.raises(PhaseRefused, match="pr takes issues in In Progress; #1 is Plan in Review"):
        sample.run("pr", number)
    approve(sample.project, number)
    assert sample.state(number) is S.IN_PROGRESS
    assert "Approved by human review (human)." in sample.comments(number)[-2]
    with pytest.raises(PhaseRefused, match=r"is not implemented yet .there is no worktree GH-1"):
        sample.run("pr", number)


def test_with_review_skipped_in_ralph_toml_implementation_takes_the_plan_in_review(
    sample: Sample,
):
    number = sample.issue()
    sample.through(number, "research", "plan")
    config = dataclasses.replace(sample.project.config, review_mode=ReviewMode.SKIP)
    sample.project = dataclasses.replace(sample.project, config=config)
    outcome = sample.run("implement", number)
    assert outcome.ok, outcome
    assert "Review skipped (review_mode = skip): #1 In Progress without one." in outcome.lines
    assert sample.state(number) is S.IN_PROGRESS
    assert not any(body.startswith("## Plan Review") for body in sample.comments(number))


def test_an_issue_another_run_holds_is_refused(sample: Sample):
    number = sample.issue()
    sample.project.store.acquire_issue_lock("sample", number, "elsewhere:1", "t")
    with pytest.raises(PhaseRefused, match="sample#1 is locked by elsewhere:1; wait"):
        sample.run("research", number)


# -- failures ---------------------------------------------------------------------------------


def test_an_invalid_result_is_retried_and_the_second_attempt_counts(sample: Sample):
    number = sample.issue()
    outcome = sample.run("research", number, ("research", AgentFault.INVALID_RESULT))
    assert outcome.status is PhaseStatus.DONE
    assert len(outcome.agent_runs) == 2
    assert any("Attempt 1 of 2 failed: result lacks 'document'" in line for line in outcome.lines)
    assert sample.state(number) is S.READY_FOR_PLAN


def test_retries_run_out_then_the_issue_is_escalated(sample: Sample):
    number = sample.issue()
    invalid = ("research", AgentFault.INVALID_RESULT)
    outcome = sample.run("research", number, invalid, invalid)
    assert outcome.status is PhaseStatus.ESCALATED
    assert sample.state(number) is S.HUMAN_NEEDED
    escalation = sample.comments(number)[-1]
    assert escalation.startswith("Escalation: research failed 2 time(s); last: result lacks")
    assert sample.project.store.load_checkpoint(f"sample#{number}:research") is None
    assert sample.project.store.get_issue_lock("sample", number) is None


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (AgentFault.FAIL, AgentStatus.FAILED),
        (AgentFault.CRASH, AgentStatus.CRASHED),
        (AgentFault.EXCEED_BUDGET, AgentStatus.BUDGET_EXCEEDED),
        (AgentFault.EXCEED_TURNS, AgentStatus.TURNS_EXCEEDED),
    ],
)
def test_each_agent_failure_is_reported_and_retried(sample: Sample, fault, status):
    number = sample.issue()
    outcome = sample.run("research", number, ("research", fault))
    assert outcome.status is PhaseStatus.DONE
    assert [run.status for run in outcome.agent_runs] == [status, AgentStatus.OK]
    assert all(run.agent == "simulated agent (scripted)" for run in outcome.agent_runs)


def test_a_hanging_agent_times_out(sample: Sample):
    number = sample.issue()
    runner = sample.runner(("research", AgentFault.HANG))
    # Long enough for the retry's simulated research on a loaded machine; the hang waits
    # it out either way.
    runner.limits = Limits(timeout_seconds=2.0)
    outcome = runner.run("research", number)
    assert outcome.agent_runs[0].status is AgentStatus.TIMEOUT
    assert outcome.status is PhaseStatus.DONE


def test_an_agent_that_asks_for_a_person_escalates_at_once(sample: Sample):
    number = sample.issue()
    outcome = sample.run("research", number, ("research", AgentFault.ESCALATE))
    assert outcome.status is PhaseStatus.ESCALATED
    assert len(outcome.agent_runs) == 1
    assert sample.state(number) is S.HUMAN_NEEDED
    assert "Escalation: the agent says" in sample.comments(number)[-1]


def test_an_escalation_mentions_who_ralph_toml_names(sample: Sample):
    config = dataclasses.replace(sample.project.config, escalate_to="@alice @acme/leads")
    runner = sample.runner(("research", AgentFault.ESCALATE))
    runner.project = dataclasses.replace(sample.project, config=config)
    number = sample.issue()
    runner.run("research", number)
    assert sample.comments(number)[-1].startswith("@alice @acme/leads Escalation: the agent says")


# -- crashes and reruns -----------------------------------------------------------------------


def test_a_crash_after_the_document_is_committed_resumes_without_duplicates(
    sample: Sample, monkeypatch
):
    number = sample.issue()
    tracker = sample.tracker
    real = tracker.set_state

    def crash_on_complete(n, state, **kwargs):
        if state == "__COMPLETE__":
            raise Crash
        return real(n, state, **kwargs)

    monkeypatch.setattr(tracker, "set_state", crash_on_complete)
    with pytest.raises(Crash):
        sample.run("research", number)
    monkeypatch.undo()
    assert sample.state(number) is S.RESEARCH_IN_PROGRESS  # left locked, as a dead process would
    # The dead process's lock row is still there; this machine can tell it is dead.
    sample.project.store.acquire_issue_lock("sample", number, f"{socket.gethostname()}:999999", "t")

    again = sample.run("research", number)
    assert again.status is PhaseStatus.DONE
    assert again.agent_runs == ()  # the saved result was applied; the agent was not asked again
    assert "Resuming with the agent result saved by an interrupted run." in again.lines
    assert sample.state(number) is S.READY_FOR_PLAN
    links = [c for c in sample.comments(number) if c.startswith("## Research Document")]
    assert len(links) == 1
    log = sample.repo._git("log", "--oneline", "main")
    assert log.count("docs(research)") == 1


@pytest.mark.parametrize(
    ("phase", "before", "held", "after"),
    [
        ("plan", ("research",), S.PLAN_IN_PROGRESS, S.PLAN_IN_REVIEW),
        ("review", ("research", "plan"), S.PLAN_IN_REVIEW, S.IN_PROGRESS),
    ],
)
def test_a_group_phase_killed_after_moving_one_member_finishes_the_others_on_a_rerun(
    sample: Sample, monkeypatch, phase, before, held, after
):
    """Its checks would call the group done (a member moved on) or refuse it (a member
    is past the phase's input): the rerun applies the saved result again instead."""
    epic = sample.epic()
    sample.through(epic, "split")
    group = sample.tracker.get_issue(epic).sub_issues
    for step in before:
        for n in group if step == "research" else group[:1]:
            sample.through(n, step)
    real = sample.tracker.set_state
    moved: list[int] = []

    def killed_on_the_second_move_on(n, state, **kwargs):
        if state == "__COMPLETE__":
            if moved:
                raise Crash
            moved.append(n)
        return real(n, state, **kwargs)

    monkeypatch.setattr(sample.tracker, "set_state", killed_on_the_second_move_on)
    with pytest.raises(Crash):
        sample.run(phase, group[0])
    monkeypatch.undo()
    assert [sample.state(n) for n in group] == [after, held, held]
    for n in group:  # the dead process's lock rows; this machine can tell it is dead
        sample.project.store.acquire_issue_lock("sample", n, f"{socket.gethostname()}:999999", "t")

    again = sample.run(phase, group[0])
    assert again.status is PhaseStatus.DONE
    assert again.agent_runs == ()  # the saved result was applied; the agent was not asked again
    assert [sample.state(n) for n in group] == [after, after, after]
    for n in group:
        counted = Counter(sample.comments(n))
        assert [body for body, times in counted.items() if times > 1] == []
    assert sample.run(phase, group[0]).status is PhaseStatus.ALREADY_DONE


def test_a_split_interrupted_after_two_sub_issues_creates_only_the_third(
    sample: Sample, monkeypatch
):
    epic = sample.epic()
    tracker = sample.tracker
    real = tracker.create_issue
    made: list[Issue] = []

    def crash_on_third(*args, **kwargs):
        if len(made) == 2:
            raise Crash
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tracker, "create_issue", crash_on_third)
    with pytest.raises(Crash):
        sample.run("split", epic)
    monkeypatch.undo()
    assert len(tracker.get_issue(epic).sub_issues) == 2

    again = sample.run("split", epic)
    assert again.status is PhaseStatus.DONE
    assert again.agent_runs == ()
    children = tracker.get_issue(epic).sub_issues
    assert len(children) == 3
    assert [tracker.get_issue(n).title for n in children] == [
        "Add a farewell function",
        "Export farewell from the package",
        "Test the farewell",
    ]
    assert sum(c.startswith("## Issue Split") for c in sample.comments(epic)) == 1


def test_a_failure_while_applying_releases_the_lock_and_keeps_the_result(
    sample: Sample, monkeypatch
):
    number = sample.issue()
    monkeypatch.setattr(
        sample.tracker, "add_comment", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full"))
    )
    outcome = sample.run("research", number)
    monkeypatch.undo()
    assert outcome.status is PhaseStatus.FAILED
    assert outcome.error == "OSError: disk full"
    assert sample.state(number) is S.RESEARCH_NEEDED
    assert sample.project.store.load_checkpoint(f"sample#{number}:research") is not None
    assert sample.run("research", number).status is PhaseStatus.DONE


# -- confinement --------------------------------------------------------------------------------


def test_writes_outside_the_worktree_fail_the_attempt(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan", "review")
    outcome = sample.run("implement", number, ("implement", AgentFault.WRITE_OUTSIDE))
    assert "the agent wrote outside its working directory: stray-from-agent.txt" in outcome.lines[1]
    assert outcome.status is PhaseStatus.DONE  # the second attempt stayed inside


def test_a_document_phase_may_change_only_its_document(sample: Sample, monkeypatch):
    number = sample.issue()
    from ralph.runtimes.scripted import _analyst

    real = _analyst.research

    def meddling(brief):
        (brief.workdir / "greet" / "core.py").write_text("broken\n")
        return real(brief)

    monkeypatch.setattr(_analyst, "research", meddling)
    from ralph.runtimes.scripted import _runtime

    monkeypatch.setitem(_runtime._AGENTS, "research", meddling)
    outcome = sample.run("research", number)
    assert outcome.status is PhaseStatus.ESCALATED
    assert "the agent changed files it was not asked to: greet/core.py" in outcome.error


def test_an_issue_in_human_needed_is_an_impasse_no_retry_lifts(sample: Sample):
    """Only a person resolves an escalation: an orchestrated task refused this way ends at
    once (as a person's branch does, see test_branch_ownership) instead of waiting out
    its backoffs."""
    number = sample.issue(state=S.HUMAN_NEEDED)
    with pytest.raises(PhaseRefused) as refused:
        sample.run("research", number)
    assert refused.value.retryable is False
