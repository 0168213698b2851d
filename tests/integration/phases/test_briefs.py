"""What agents are told: a brief a literal-minded agent can follow to a passing gate,
that never shows an empty test command, says why the last attempt was rejected,
carries the reviewer's critique as Ralph's own, and leaves out what is meant for
people."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

from ralph.phases import PhaseRunner, PhaseStatus
from ralph.runtimes import Limits
from ralph.runtimes._prompt import render_brief
from ralph.runtimes.command import CommandRuntime
from ralph.workflow import WorkflowState as S

from .conftest import DAY, Sample

LITERAL_BUILDER = Path(__file__).parent / "agents" / "literal_builder.py"


def literal_runner(sample: Sample) -> PhaseRunner:
    runtime = CommandRuntime(f"{sys.executable} {LITERAL_BUILDER} {{prompt_file}} {{result_file}}")
    return PhaseRunner(
        sample.project, runtime, owner="test", limits=Limits(timeout_seconds=60),
        today=lambda: DAY,
    )  # fmt: skip


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
