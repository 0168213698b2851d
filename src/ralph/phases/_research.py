"""Research (analyst; Research Needed; XS/S): the agent writes the research document;
the runner commits it to the base branch, links it and moves the issue to Ready for
Plan."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ralph.artifacts import REQUIRED_SECTIONS, ArtifactKind, artifact_comment, research_path
from ralph.phases._context import PhaseContext
from ralph.phases._documents import document_problems
from ralph.phases._phase import AlreadyDone, Attempt, Phase, Workspace
from ralph.phases._schemas import TEXT, result_schema
from ralph.runtimes import AgentResult
from ralph.tracker import Issue
from ralph.workflow import WorkflowState, is_earlier_state

__all__ = ["ResearchPhase"]

HEADINGS = REQUIRED_SECTIONS[ArtifactKind.RESEARCH]


class ResearchPhase(Phase):
    name = "research"
    result_schema = result_schema(["document", "summary"], {"document": TEXT, "summary": TEXT})

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        past = is_earlier_state(WorkflowState.RESEARCH_IN_PROGRESS, issue.workflow_state)
        found = ctx.find(ArtifactKind.RESEARCH, issue)
        if past and found is not None:
            raise AlreadyDone(f"#{issue.number} is researched already: {found.path}")
        super().check(ctx, members)

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        issue = members[0]
        with super().workspace(ctx, members) as space:
            space.outputs["document"] = research_path(issue.number, issue.title, ctx.day)
            yield space

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        return document_problems(
            ArtifactKind.RESEARCH, space.workdir, space.outputs["document"], HEADINGS
        )

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        issue = members[0]
        (path, text), *_ = attempt.files.items()
        ctx.commit_documents({path: text}, f"docs(research): GH-{issue.number} research findings")
        summary = f"Key findings: {attempt.result['summary']}"
        ctx.comment_once(
            issue.number, artifact_comment(ArtifactKind.RESEARCH, ctx.links.link(path), summary)
        )
        ctx.move(issue.number, "__COMPLETE__", command=self.command)
        ctx.say(f"Research complete for #{issue.number}: {path}. Status: Ready for Plan.")
