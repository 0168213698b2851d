"""What agents are told: a brief a literal-minded agent can follow to a passing gate,
that never shows an empty test command, says why the last attempt was rejected,
carries the reviewer's critique as Ralph's own, and leaves out what is meant for
people."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

from ralph.git import GitRepo
from ralph.phases import PhaseRunner, PhaseStatus
from ralph.runtimes import AgentBrief, AgentResult, Limits
from ralph.runtimes._prompt import render_brief
from ralph.runtimes.command import CommandRuntime
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.workflow import WorkflowState as S

from .conftest import DAY, Sample

LITERAL_BUILDER = Path(__file__).parent / "agents" / "literal_builder.py"


def literal_runner(sample: Sample) -> PhaseRunner:
    runtime = CommandRuntime(f"{sys.executable} {LITERAL_BUILDER} {{prompt_file}} {{result_file}}")
    return PhaseRunner(
        sample.project,
        runtime,
        owner="test",
        limits=Limits(timeout_seconds=60),
        today=lambda: DAY,
    )


def briefs_of(sample: Sample, phase: str) -> list[str]:
    return [render_brief(b) for b in sample.runtime.briefs if b.phase == phase]


def test_a_builder_that_follows_the_implement_prompt_to_the_letter_passes(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan", "review")
    outcome = literal_runner(sample).run("implement", number)
    assert outcome.status is PhaseStatus.DONE, outcome.lines
    assert len(outcome.agent_runs) == 1
    assert sample.state(number) is S.IN_PROGRESS
    log = sample.repo._git("log", "--name-only", "--format=%s", "feature/GH-1", "-1")
    assert "greet/core.py" in log
    assert "thoughts/shared/plans/" in log


def test_the_implement_prompt_names_the_plan_file_it_must_commit(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan", "review", "implement")
    (brief,) = briefs_of(sample, "implement")
    plan = next(c for c in sample.comments(number) if c.startswith("## Implementation Plan"))
    path = plan.splitlines()[2]
    instructions = brief.split("## Where you work")[0]
    assert f"stage the files you changed for it and the plan file `{path}`" in instructions
    assert "Stage only files the phase names" not in instructions
    assert f"- plan: {path}" in brief


def test_with_no_test_command_the_prompts_say_so_instead_of_an_empty_command(sample: Sample):
    sample.project = dataclasses.replace(
        sample.project, config=dataclasses.replace(sample.project.config, test_command="")
    )
    number = sample.issue()
    sample.through(number, "research", "plan", "review", "implement")
    for phase in ("plan", "implement"):
        (brief,) = briefs_of(sample, phase)
        assert not re.search(r"(?<!`)``(?!`)", brief), phase  # an empty `command`
        assert "test_command:" not in brief, phase
        assert "the project has no test command" in brief, phase
    (implement,) = briefs_of(sample, "implement")
    assert "nothing runs its tests for you and Ralph will not either" in implement


# -- retries ----------------------------------------------------------------------------------


def test_a_retry_is_told_what_was_rejected_and_why(sample: Sample):
    number = sample.issue()
    outcome = sample.run("research", number, ("research", AgentFault.INVALID_RESULT))
    assert outcome.status is PhaseStatus.DONE
    first, second = briefs_of(sample, "research")
    assert "rejected" not in first
    assert first != second
    rejected = second.split("## Your last attempt was rejected")[1].split("## Where you work")[0]
    assert "Attempt 1: result lacks 'document'" in rejected


class BreaksTheTestsOnce(ScriptedRuntime):
    """A builder whose first attempt commits a failing test and had a Bash call refused;
    its second attempt removes the test."""

    def run(self, brief: AgentBrief) -> AgentResult:
        result = super().run(brief)
        if brief.phase != "implement":
            return result
        repo = GitRepo(brief.workdir)
        identity = {
            "GIT_AUTHOR_NAME": "a",
            "GIT_AUTHOR_EMAIL": "a@a",
            "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@a",
        }
        broken = brief.workdir / "tests" / "test_broken.py"
        if len([b for b in self.briefs if b.phase == "implement"]) == 1:
            broken.write_text(BROKEN_TEST)
            repo.git("add", "tests/test_broken.py", what="add", env=identity)
            repo.git("commit", "-qm", "a broken test", what="commit", env=identity)
            return dataclasses.replace(result, denied_tools=("Bash",))
        repo.git("rm", "-q", "tests/test_broken.py", what="rm", env=identity)
        repo.git("commit", "-qm", "no broken test", what="commit", env=identity)
        return result


BROKEN_TEST = """import unittest


class Broken(unittest.TestCase):
    def test_farewell_is_polite(self):
        self.assertEqual("Bye", "Goodbye, Ada!")
"""


def test_a_retry_sees_the_failing_tests_output_and_its_refused_tools(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan", "review")
    sample.runtime = BreaksTheTestsOnce(env={})
    outcome = sample.runner().run("implement", number)
    assert outcome.status is PhaseStatus.DONE, outcome.lines
    first, second = briefs_of(sample, "implement")
    assert "rejected" not in first
    rejected = second.split("## Your last attempt was rejected")[1].split("## Where you work")[0]
    assert "Attempt 1: the tests fail in the worktree" in rejected
    assert "test_farewell_is_polite" in rejected
    assert "AssertionError: 'Bye' != 'Goodbye, Ada!'" in rejected
    assert "Attempt 1: these tool calls were refused: Bash" in rejected


# -- the reviewer's critique ------------------------------------------------------------------


def test_a_re_plan_gets_the_critique_as_ralphs_own_context(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan")
    (first,) = briefs_of(sample, "plan")
    sample.run("review", number, ("review", AgentFault.NEEDS_ITERATION))  # a new runtime
    sample.through(number, "plan")
    (second,) = briefs_of(sample, "plan")
    assert "## From Ralph" not in first
    critique_path = next(
        line.removeprefix("Full critique: ")
        for c in sample.comments(number)
        for line in c.splitlines()
        if line.startswith("Full critique: ")
    )
    critique = sample.repo.show("main", critique_path)
    trusted, issues = second.split("## From Ralph")[1].split("## The issues")
    assert f"Ralph's review of the previous plan (address every point) `{critique_path}`" in trusted
    assert critique.strip() in trusted
    assert "untrusted" not in trusted
    assert f"# Plan critique: GH-{number}" not in issues


def test_an_approved_plan_carries_no_critique_to_the_next_phase(sample: Sample):
    number = sample.issue()
    sample.through(number, "research", "plan", "review", "implement")
    (brief,) = briefs_of(sample, "implement")
    assert "## From Ralph" not in brief


# -- noise ------------------------------------------------------------------------------------


def test_briefs_leave_out_state_change_audits_and_hints_for_people(sample: Sample):
    sample.project = dataclasses.replace(
        sample.project, config=dataclasses.replace(sample.project.config, escalate_to="@alice")
    )
    number = sample.issue()
    sample.run("research", number, ("research", AgentFault.ESCALATE))
    assert sample.state(number) is S.HUMAN_NEEDED
    sample.tracker.set_state(number, S.RESEARCH_NEEDED, command="human")
    sample.through(number, "research", "plan")
    sample.run("review", number, ("review", AgentFault.NEEDS_ITERATION))
    sample.through(number, "plan", "review", "implement")
    (implement,) = briefs_of(sample, "implement")
    assert sum("State transition" in c for c in sample.comments(number)) >= 8
    assert any(c.startswith("@alice Escalation:") for c in sample.comments(number))
    for brief in [*briefs_of(sample, "plan"), implement]:
        noises = ("State transition", "ralph-transition", "ralph run", "ralph issue move", "@alice")
        for noise in noises:
            assert noise not in brief, noise
    assert "Escalation: the agent says" in implement
    assert "VERDICT: APPROVED" in implement
    assert "Ready for implementation." in implement
