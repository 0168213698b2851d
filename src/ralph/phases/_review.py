"""Review (validator; Plan in Review): the agent critiques the plan; APPROVED moves the
plan's issues to In Progress, NEEDS_ITERATION sends them back to Ready for Plan with the
``needs-iteration`` label. ``approve`` and ``reject`` are the same gate decided by a
person."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date

from ralph._text import check_text
from ralph.artifacts import ArtifactKind, Verdict, critique_path, parse_verdict, review_comment
from ralph.graph import ReviewMode
from ralph.phases._context import PhaseContext
from ralph.phases._documents import document_problems
from ralph.phases._group import plan_members
from ralph.phases._phase import AlreadyDone, Attempt, Impasse, Phase, PhaseRefused, Workspace
from ralph.phases._schemas import TEXT, result_schema
from ralph.project import Project
from ralph.runtimes import AgentResult
from ralph.tracker import Issue
from ralph.workflow import WorkflowState

__all__ = ["NEEDS_ITERATION_LABEL", "ReviewPhase", "approve", "reject"]

NEEDS_ITERATION_LABEL = "needs-iteration"


def _last_verdict(issue: Issue) -> Verdict | None:
    for comment in reversed(issue.comments):
        verdict = parse_verdict(comment.body)
        if verdict is not None:
            return verdict
    return None


class ReviewPhase(Phase):
    name = "review"
    result_schema = result_schema(
        ["verdict", "issues", "critique"],
        {
            "verdict": {"enum": [v.value for v in Verdict]},
            "issues": {"type": "array", "items": TEXT},
            "critique": TEXT,
            "summary": {"type": "string"},
        },
    )

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return plan_members(ctx, issue)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        seed = members[0]
        state = seed.workflow_state
        approved = _last_verdict(seed) is Verdict.APPROVED
        if state is not None and state is not WorkflowState.PLAN_IN_REVIEW and approved:
            raise AlreadyDone(
                f"the plan for #{seed.number} is approved already (#{seed.number} is {state})"
            )
        super().check(ctx, members)
        _check_review_mode(ctx, seed.number)

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        with super().workspace(ctx, members) as space:
            space.outputs["critique"] = critique_path(members[0].number, ctx.day)
            yield space

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        problems = document_problems(ArtifactKind.REVIEW, space.workdir, space.outputs["critique"])
        payload = result.result or {}
        if payload.get("verdict") == Verdict.NEEDS_ITERATION and not payload.get("issues"):
            problems.append("a NEEDS_ITERATION verdict must list the issues to fix")
        return problems

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        (path, text), *_ = attempt.files.items()
        primary = members[0]
        ctx.commit_documents({path: text}, f"docs(review): GH-{primary.number} plan critique")
        verdict = Verdict(attempt.result["verdict"])
        link = ctx.links.link(path)
        tracker = ctx.tracker
        for issue in members:
            labels = list(tracker.get_issue(issue.number).labels)
            if verdict is Verdict.APPROVED:
                summary = (
                    "Approved by automated critique - no major issues found.\n\n"
                    f"Ready for implementation. Run `ralph run implement {issue.number}` to begin."
                )
                if NEEDS_ITERATION_LABEL in labels:
                    labels.remove(NEEDS_ITERATION_LABEL)
                    tracker.update_issue(issue.number, labels=labels)
                ctx.comment_once(issue.number, review_comment(verdict, link, summary))
            else:
                found = "\n".join(f"- {problem}" for problem in attempt.result["issues"])
                summary = _needs_iteration(issue.number, found)
                ctx.comment_once(issue.number, review_comment(verdict, link, summary))
                if NEEDS_ITERATION_LABEL not in labels:
                    tracker.update_issue(issue.number, labels=[*labels, NEEDS_ITERATION_LABEL])
        target = "__COMPLETE__" if verdict is Verdict.APPROVED else WorkflowState.READY_FOR_PLAN
        ctx.move_all([i.number for i in members], target, command=self.command)
        after = "In Progress" if verdict is Verdict.APPROVED else "Ready for Plan"
        ctx.say(f"Review of the plan for #{primary.number}: {verdict.value}. Status: {after}.")


def _check_review_mode(ctx: PhaseContext, number: int) -> None:
    """The agent reviews plans only where review_mode says so, as in hero and team runs
    (where an interactive mode waits for a person and skip has no review at all)."""
    mode = ctx.review_mode or ctx.project.config.review_mode
    if mode is ReviewMode.INTERACTIVE:
        raise Impasse(
            f"review_mode is interactive: a person reviews this plan; approve it with "
            f"ralph approve {number}, or reject it with ralph review {number} --reject REASON "
            '(review_mode = "auto" in ralph.toml has the agent review)'
        )
    if mode is ReviewMode.SKIP:
        raise Impasse(
            f"review_mode is skip: plans go to implementation without a review; next: "
            f"ralph run implement {number}"
        )


def _needs_iteration(number: int, found: str) -> str:
    """The NEEDS_ITERATION comment's text after its verdict (the original's words)."""
    return (
        f"Issues identified:\n{found}\n\nLabel `{NEEDS_ITERATION_LABEL}` added.\n\n"
        f"Run `ralph run plan {number}` to address these issues."
    )


def _listed(issues: Sequence[Issue]) -> str:
    return ", ".join(
        f"#{i.number} ({i.workflow_state.value if i.workflow_state else 'no state'})"
        for i in issues
    )


def reject(project: Project, number: int, reason: str, *, actor: str = "human") -> list[Issue]:
    """A person rejects the plan for ``number``: every issue the plan covers, all in Plan
    in Review, gets the ``needs-iteration`` label and a ``VERDICT: NEEDS_ITERATION``
    comment listing ``reason`` (a line per point), and goes back to Ready for Plan."""
    check_text(reason, "the reason for the rejection")
    points = [line.strip().removeprefix("- ") for line in reason.splitlines() if line.strip()]
    ctx = PhaseContext(project, date.today())
    members = plan_members(ctx, project.tracker.get_issue(number))
    waiting = [i for i in members if i.workflow_state is not WorkflowState.PLAN_IN_REVIEW]
    if waiting:
        raise PhaseRefused(f"only a plan in review can be rejected; {_listed(waiting)}")
    found = "\n".join(f"- {point}" for point in points)
    for issue in members:
        summary = f"{_needs_iteration(issue.number, found)}\n\nRejected by human review ({actor})."
        project.tracker.add_comment(
            issue.number, review_comment(Verdict.NEEDS_ITERATION, None, summary), author=actor
        )
        labels = list(issue.labels)
        if NEEDS_ITERATION_LABEL not in labels:
            project.tracker.update_issue(issue.number, labels=[*labels, NEEDS_ITERATION_LABEL])
        project.tracker.set_state(
            issue.number, WorkflowState.READY_FOR_PLAN, command="ralph_review", actor=actor
        )
    return [project.tracker.get_issue(i.number) for i in members]


def approve(project: Project, number: int, *, actor: str = "human") -> list[Issue]:
    """A person approves the plan for ``number``: every issue the plan covers moves from
    Plan in Review to In Progress with an approving ``## Plan Review`` comment."""
    ctx = PhaseContext(project, date.today())
    members = plan_members(ctx, project.tracker.get_issue(number))
    waiting = [i for i in members if i.workflow_state is not WorkflowState.PLAN_IN_REVIEW]
    not_ready = [i for i in waiting if i.workflow_state is not WorkflowState.IN_PROGRESS]
    if not_ready:
        raise PhaseRefused(f"only a plan in review can be approved; {_listed(not_ready)}")
    for issue in members:
        if issue.workflow_state is WorkflowState.PLAN_IN_REVIEW:
            body = review_comment(Verdict.APPROVED, None, f"Approved by human review ({actor}).")
            project.tracker.add_comment(issue.number, body, author=actor)
            project.tracker.set_state(
                issue.number, "__COMPLETE__", command="ralph_review", actor=actor
            )
    return [project.tracker.get_issue(i.number) for i in members]
