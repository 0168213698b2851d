"""A person's move wins: an issue moved to Human Needed while its phase runs stays there,
the pipeline stops for it (and only for it), and the run says what happened. A session
that sees the move stops the phase's agent; a phase that finished before anyone saw it
keeps its result for a later run to apply."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.phases import PhaseRunner, PhaseStatus
from ralph.project import open_project
from ralph.runtimes import AgentResult, AgentStatus
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import WorkflowState

from ..conftest import spawn_ralph
from .test_team import wait_until

S = WorkflowState
MOVED = "#2 was moved to Human Needed by a person while research ran; its result is kept"
STOPPED = "#2 was moved to Human Needed by a person while research ran; its agent was stopped"


def state_of(repo: Path, number: int) -> WorkflowState | None:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number).workflow_state


@pytest.fixture
def split_epic(tmp_path: Path) -> tuple[Path, int]:
    """The demo epic, triaged and split: #2, #3, #4 wait in Research Needed."""
    repo, epic = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        runner = PhaseRunner(project, ScriptedRuntime(env={}))
        assert runner.run("triage", epic).ok
        assert runner.run("split", epic).ok
    return repo, epic


def test_human_needed_set_while_research_runs_stops_its_agent_and_the_pipeline_for_it(
    split_epic,
):
    repo, epic = split_epic
    env = {"RALPH_SCRIPTED_FAULTS": "research=hang"}  # the first research works until stopped
    hero = spawn_ralph("hero", str(epic), "--concurrency", "1", cwd=repo, env=env)
    wait_until(lambda: state_of(repo, 2) is S.RESEARCH_IN_PROGRESS)
    with open_project(load_config(repo)) as project:  # as `ralph issue move` does
        project.tracker.set_state(2, "Human Needed")
    out, err = hero.communicate(timeout=120)  # the hero sees it within its heartbeat cadence

    assert hero.returncode == 1, out + err
    assert STOPPED in " ".join(out.split())  # the report's "Needs a person", however wrapped
    with open_project(load_config(repo)) as project:
        tracker, store = project.tracker, project.store
        issue = tracker.get_issue(2)
        assert issue.workflow_state is S.HUMAN_NEEDED
        moves = [c.body for c in issue.comments if "**State transition**" in c.body]
        assert "Research in Progress → Human Needed" in moves[-1]  # nothing moved it after
        assert {tracker.get_issue(n).workflow_state for n in (3, 4)} == {S.READY_FOR_PLAN}
        assert project.code_host.list_pull_requests() == []
        (run,) = store.list_runs()
        statuses = {t.key: t.status.value for t in store.list_tasks(run.id)}
        assert statuses["research:2"] == "failed"
        assert statuses["research:3"] == statuses["research:4"] == "done"
        assert statuses["plan:2"] == statuses["merge:2"] == "canceled"

        # The person puts it back: the next research asks an agent again.
        tracker.set_state(2, "Research Needed")
        runtime = ScriptedRuntime(env={})
        outcome = PhaseRunner(project, runtime).run("research", 2)
        assert outcome.status is PhaseStatus.DONE
        assert [brief.phase for brief in runtime.briefs] == ["research"]
        assert tracker.get_issue(2).workflow_state is S.READY_FOR_PLAN


def test_a_phase_whose_issue_was_moved_meanwhile_applies_nothing_and_keeps_its_result(
    split_epic,
):
    repo, _ = split_epic
    with open_project(load_config(repo)) as project:
        tracker = project.tracker

        class PersonMovesIt(ScriptedRuntime):
            def run(self, brief):
                result = super().run(brief)
                tracker.set_state(2, "Human Needed")  # while the agent worked
                return result

        outcome = PhaseRunner(project, PersonMovesIt(env={})).run("research", 2)
        assert outcome.status is PhaseStatus.MOVED
        assert outcome.error == MOVED
        issue = tracker.get_issue(2)
        assert issue.workflow_state is S.HUMAN_NEEDED
        assert not any(c.body.startswith("## Research Document") for c in issue.comments)
        research = project.git.run("ls-tree", "-r", "--name-only", "main", "thoughts")
        assert "GH-0002" not in research.stdout


def test_a_move_made_while_the_result_is_applied_wins_over_the_phases_own_move(
    split_epic, monkeypatch
):
    repo, _ = split_epic
    import ralph.phases._context as context
    from ralph.git import commit_files as commit  # the one the phase context calls

    with open_project(load_config(repo)) as project:
        tracker = project.tracker

        def commit_then_person_moves(*args, **kwargs):
            done = commit(*args, **kwargs)
            tracker.set_state(2, "Human Needed")  # after the checks, before the phase's move
            return done

        monkeypatch.setattr(context, "commit_files", commit_then_person_moves)
        outcome = PhaseRunner(project, ScriptedRuntime(env={})).run("research", 2)
        assert outcome.status is PhaseStatus.MOVED
        assert tracker.get_issue(2).workflow_state is S.HUMAN_NEEDED
        repo_name = project.config.repo or project.git.path.name
        assert project.store.load_checkpoint(f"{repo_name}#2:research") is not None


def test_human_needed_set_between_phases_stops_the_group_and_the_report_names_it(demo):
    first, second, third = demo.group()
    tracker = demo.project.tracker

    class PersonMovesTheFirst(ScriptedRuntime):
        def run(self, brief):
            if brief.phase == "research" and tracker.get_issue(first).workflow_state is (
                S.READY_FOR_PLAN
            ):
                tracker.set_state(first, "Human Needed")  # researched, not planned yet
            return super().run(brief)

    result = demo.hero(third, PersonMovesTheFirst(env={}), concurrency=1)
    assert demo.state(first) is S.HUMAN_NEEDED
    assert demo.state(second) is demo.state(third) is S.READY_FOR_PLAN
    report = demo.report(result)
    assert [line for line in report.needs_person if f"#{first} is Human Needed" in line]
    assert report.counters.messages == report.counters.escalations == 1


class StoppedAgent(ScriptedRuntime):
    """An agent that is stopped as it starts; the person's move (if any) comes first."""

    def __init__(self, before=None):
        super().__init__(env={})
        self.before = before

    def run(self, brief):
        self.briefs.append(brief)
        if self.before is not None:
            self.before()
        return AgentResult(status=AgentStatus.STOPPED, error="stopped by the test")


def test_a_stopped_agent_whose_issue_a_person_moved_ends_the_phase_as_moved(split_epic):
    repo, _ = split_epic
    with open_project(load_config(repo)) as project:
        tracker = project.tracker
        runtime = StoppedAgent(lambda: tracker.set_state(2, "Human Needed"))
        outcome = PhaseRunner(project, runtime, max_attempts=3).run("research", 2)
        assert outcome.status is PhaseStatus.MOVED
        assert outcome.error == STOPPED
        assert len(runtime.briefs) == 1  # no retry
        assert tracker.get_issue(2).workflow_state is S.HUMAN_NEEDED
        repo_name = project.config.repo or project.git.path.name
        assert project.store.load_checkpoint(f"{repo_name}#2:research") is None


def test_a_stopped_agent_whose_issues_stayed_put_fails_without_a_retry_or_an_escalation(
    split_epic,
):
    repo, _ = split_epic
    with open_project(load_config(repo)) as project:
        runtime = StoppedAgent()
        outcome = PhaseRunner(project, runtime, max_attempts=3).run("research", 2)
        assert outcome.status is PhaseStatus.FAILED
        assert "the agent was stopped (stopped by the test)" in outcome.error
        assert len(runtime.briefs) == 1
        issue = project.tracker.get_issue(2)
        assert issue.workflow_state is S.RESEARCH_NEEDED  # released, not escalated
        assert not any("Escalation:" in c.body for c in issue.comments)
