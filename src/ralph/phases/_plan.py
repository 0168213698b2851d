"""Plan (builder; every group member Ready for Plan): one plan for the group (or for one
of its work streams), one phase per issue in dependency order; linked on every member,
which move to Plan in Review. A stream's plan is named for the stream and the runner,
not the agent, writes its ``stream_id``, ``stream_issues`` and ``epic_issue``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ralph.artifacts import (
    ArtifactKind,
    artifact_comment,
    parse_frontmatter,
    plan_path,
    plan_steps,
    set_frontmatter,
)
from ralph.phases._context import PhaseContext
from ralph.phases._documents import document_problems
from ralph.phases._group import group_members, planned_stream
from ralph.phases._phase import (
    AlreadyDone,
    Attempt,
    Impasse,
    Phase,
    PhaseRefused,
    Workspace,
)
from ralph.phases._schemas import TEXT, result_schema
from ralph.runtimes import AgentResult
from ralph.tracker import Issue
from ralph.workflow import WorkflowState, is_earlier_state

__all__ = ["PlanPhase"]

_READY = (WorkflowState.READY_FOR_PLAN, WorkflowState.PLAN_IN_PROGRESS)


class PlanPhase(Phase):
    name = "plan"
    reads_critique = True
    result_schema = result_schema(
        ["document", "summary"],
        {"document": TEXT, "summary": TEXT, "phase_count": {"type": "integer", "minimum": 1}},
    )

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return group_members(ctx, issue)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        for issue in members:  # a member past planning has its plan (the seed may be one)
            if is_earlier_state(WorkflowState.PLAN_IN_PROGRESS, issue.workflow_state):
                found = ctx.find(ArtifactKind.PLAN, issue)
                if found is not None:
                    raise AlreadyDone(f"#{issue.number} is planned already: {found.path}")
        waiting = [i for i in members if i.workflow_state not in _READY]
        if waiting:
            listed = ", ".join(
                f"#{i.number} ({i.workflow_state.value if i.workflow_state else 'no state'})"
                for i in waiting
            )
            raise PhaseRefused(
                f"the plan covers the whole group ({', '.join(f'#{i.number}' for i in members)}) "
                f"and these members are not Ready for Plan: {listed}; research them first "
                f"(ralph run research {waiting[0].number}, or by hand: ralph research "
                f"{waiting[0].number} --interactive)"
            )
        for issue in members:
            self.check_estimate(issue)
            if ctx.find(ArtifactKind.RESEARCH, issue) is None:
                n = issue.number
                raise Impasse(
                    f"#{n} has no research document on {ctx.base} (was it removed?); research "
                    f'it again: ralph issue move {n} "Human Needed", ralph issue move {n} '
                    f'"Research Needed", then ralph run research {n} (or by hand: ralph '
                    f"research {n} --interactive)"
                )

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        numbers = [i.number for i in members]
        stream = planned_stream(ctx, members)
        with super().workspace(ctx, members) as space:
            named = stream.issues if stream is not None else numbers
            space.outputs["document"] = plan_path(
                named, members[0].title, ctx.day, stream=stream is not None
            )
            space.facts["test_command"] = ctx.project.config.test_command
            if stream is not None:
                space.facts |= {
                    "stream_id": stream.id,
                    "stream_issues": ", ".join(str(n) for n in stream.issues),
                    "epic_issue": str(stream.epic),
                }
            yield space

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        path = space.outputs["document"]
        problems = document_problems(ArtifactKind.PLAN, space.workdir, path)
        if problems:
            return problems
        text = (space.workdir / path).read_text()
        fields, _ = parse_frontmatter(text)
        listed = fields.get("github_issues") or [fields.get("github_issue")]
        missing = [i.number for i in members if i.number not in listed]
        if missing:
            problems.append(f"{path} frontmatter github_issues lacks {missing}")
        phases = plan_steps(text)
        covered = {p.issue for p in phases}
        problems += [
            f"{path} has no phase for GH-{i.number}" for i in members if i.number not in covered
        ]
        problems += [
            f"{path} phase {p.number} has no '#### Automated Verification' checkboxes"
            for p in phases
            if not p.automated
        ]
        return problems

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        (path, text), *_ = attempt.files.items()
        numbers = ", ".join(f"GH-{i.number}" for i in members)
        what = "group plan" if len(members) > 1 else "implementation plan"
        stream = planned_stream(ctx, members)
        if stream is not None:
            text = set_frontmatter(text, stream.frontmatter())
            what = f"{stream.id} plan"
        ctx.commit_documents({path: text}, f"docs(plan): {numbers} {what}")
        link = ctx.links.link(path)
        phases = plan_steps(text)
        total = len(phases)
        for issue in members:
            mine = next((p for p in phases if p.issue == issue.number), None)
            where = f"Phase {mine.number} of {total} for this issue. " if mine and total > 1 else ""
            summary = f"{where}{attempt.result['summary']}"
            ctx.comment_once(issue.number, artifact_comment(ArtifactKind.PLAN, link, summary))
            if total > 1 and mine is not None:
                listing = "\n".join(
                    f"- Phase {p.number}: {p.title}" + ("  <-- This issue" if p is mine else "")
                    for p in phases
                )
                ctx.comment_once(
                    issue.number,
                    f"## Plan Created (Phase {mine.number} of {total})\n\n{listing}\n\n"
                    f"Full plan: {link}\n",
                )
        ctx.move_all([i.number for i in members], "__COMPLETE__", command=self.command)
        of = f" ({stream.id} of GH-{stream.epic})" if stream is not None else ""
        ctx.say(
            f"Plan complete for {len(members)} issue(s){of}: {path}. All issues: Plan in Review."
        )
