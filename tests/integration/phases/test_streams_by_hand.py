"""Two work streams of one epic taken through the phases by hand: each plan is named and
marked for its stream by the runner (the agent here writes no stream fields), and each
stream gets a worktree, a branch and a pull request of its own."""

from __future__ import annotations

import dataclasses

from ralph.artifacts import parse_frontmatter
from ralph.demo._sample import STREAMS_EPIC_BODY, STREAMS_EPIC_TITLE
from ralph.phases import PhaseRunner
from ralph.runtimes import AgentBrief, AgentResult, Limits
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tracker import PullRequestState
from ralph.workflow import Estimate, WorkflowState

from .conftest import DAY, Sample

STREAM_FACTS = ("stream_id", "stream_issues", "epic_issue")


class ForgetsStreams(ScriptedRuntime):
    """A planner that is told it plans a stream and writes a plain plan anyway."""

    def run(self, brief: AgentBrief) -> AgentResult:
        assert brief.phase != "plan" or "stream_id" in brief.facts
        facts = {k: v for k, v in brief.facts.items() if k not in STREAM_FACTS}
        return super().run(dataclasses.replace(brief, facts=facts))


def test_two_streams_are_planned_built_and_merged_apart(sample: Sample):
    epic = sample.tracker.create_issue(
        STREAMS_EPIC_TITLE,
        body=STREAMS_EPIC_BODY,
        state=WorkflowState.BACKLOG,
        estimate=Estimate.L,
    ).number
    sample.through(epic, "split")
    first, second, third = sorted(sample.tracker.get_issue(epic).sub_issues)
    for number in (first, second, third):
        sample.through(number, "research")
    runner = PhaseRunner(
        sample.project,
        ForgetsStreams(env={}),
        owner="test",
        limits=Limits(timeout_seconds=10),
        today=lambda: DAY,
    )
    for phase in ("plan", "review", "implement", "pr"):
        for number in (first, second):
            outcome = runner.run(phase, number, only=[number])
            assert outcome.ok, (phase, number, outcome)
    git = sample.project.git
    plans = git.git("ls-tree", "--name-only", "main", "thoughts/shared/plans/", what="ls")
    for number in (first, second):
        title = sample.tracker.get_issue(number).title
        (plan,) = [p for p in plans.splitlines() if f"stream-GH-{number}-" in p]
        assert plan.startswith(f"thoughts/shared/plans/{DAY.isoformat()}-stream-GH-{number}-")
        fields, _ = parse_frontmatter(git.git("show", f"main:{plan}", what="read the plan"))
        assert fields["stream_id"] == f"stream-{number}"
        assert fields["stream_issues"] == [number]
        assert fields["epic_issue"] == epic
        assert (sample.repo.path / "worktrees" / f"GH-{epic}-stream-{number}").is_dir()
        (pr,) = sample.code_host.list_pull_requests(issue=number)
        assert pr.head == f"feature/GH-{epic}-stream-{number}"
        assert pr.title == f"{title} [stream-{number} of GH-{epic}]"
        assert pr.state is PullRequestState.OPEN
    for number in (first, second):
        assert runner.run("merge", number, only=[number]).ok
        assert sample.state(number) is WorkflowState.DONE
        assert not (sample.repo.path / "worktrees" / f"GH-{epic}-stream-{number}").exists()
    assert sample.state(third) is WorkflowState.READY_FOR_PLAN  # untouched by both streams
