"""Address (builder; In Review): the original's ``ralph_impl`` address mode. The agent
gets the pull request's feedback (change requests, every unresolved review thread with
its file, line, diff hunk and comments, the failing required checks' logs), changes the
code in the pull request's worktree, runs the tests and commits. The runner then pushes
the branch (with a remote), replies on each thread the agent answered (naming the
commit when it fixed it), resolves the threads it fixed, asks the reviewers to look
again, and notes the round on the issues; the merge waits for them after that.

Every step is repeatable after a crash: a thread already holding this round's reply
gets none again, resolving a resolved thread changes nothing, pushing a pushed commit
sends nothing, and the round's note is posted once, last (it is what counts the round).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ralph._secrets import redact
from ralph.git import noted_files, working_changes
from ralph.phases._branches import project_tests
from ralph.phases._context import PhaseContext
from ralph.phases._control_hold import hold_control_changes
from ralph.phases._feedback import (
    ROUND_HEADER,
    address_rounds,
    feedback_on,
    pull_request_for,
    review_members,
    round_note,
)
from ralph.phases._phase import AlreadyDone, Attempt, Phase, PhaseRefused, Workspace
from ralph.phases._schemas import TEXT, result_schema
from ralph.phases._train import sent_back
from ralph.phases._worktree_hooks import after_create, run_hook
from ralph.runtimes import AgentResult, Feedback
from ralph.tracker import Issue, PullRequest, PullRequestState

__all__ = ["AddressPhase", "round_mark"]


def round_mark(round_: int) -> str:
    """What ends every reply of round ``round_``: how a rerun knows it replied already."""
    return f"(Ralph, address round {round_})"


def _open_request(ctx: PhaseContext, issue: Issue) -> PullRequest:
    found = pull_request_for(ctx, issue)
    if found is None:
        n = issue.number
        raise PhaseRefused(f"no pull request closes #{n}; run ralph run pr {n} first")
    return ctx.code_host.get_pull_request(found.number)


def _feedback(
    ctx: PhaseContext, pr: PullRequest, addressed_at: float | None
) -> tuple[Feedback, ...]:
    """What the builder is to address: the pull request's own feedback and, where the
    host's CI posts the checks (so the train could not record its failed run as one),
    why a merge train sent this head back."""
    found = feedback_on(pr, addressed_at)
    if ctx.code_host.runs_own_checks:
        return found  # the train's failed run is the head's failed `test` check
    rejection = sent_back(ctx, pr)
    if rejection is None:
        return found
    return (Feedback(kind="check", where="the merge train", text=rejection.reason), *found)


class AddressPhase(Phase):
    name = "address"
    result_schema = result_schema(
        ["threads", "summary"],
        {
            "threads": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "reply", "fixed"],
                    "properties": {
                        "id": TEXT,
                        "reply": TEXT,
                        "fixed": {"type": "boolean"},
                    },
                },
            },
            "summary": TEXT,
            "tests": {"enum": ["PASSING", "FAILING"]},
        },
    )

    def members(self, ctx: PhaseContext, issue: Issue) -> list[Issue]:
        return review_members(ctx, issue)

    def check(self, ctx: PhaseContext, members: Sequence[Issue]) -> None:
        issue = members[0]
        pr = _open_request(ctx, issue)
        if pr.state is PullRequestState.MERGED:
            raise AlreadyDone(f"pull request #{pr.number} for #{issue.number} is merged already")
        super().check(ctx, members)
        rounds = address_rounds(issue, pr.number)
        if not _feedback(ctx, pr, rounds.last_at):
            since = f" since round {rounds.used}" if rounds.used else ""
            raise AlreadyDone(
                f"pull request #{pr.number} has no feedback to address{since}; "
                f"next: ralph run merge {issue.number}"
            )

    def feedback(self, ctx: PhaseContext, members: Sequence[Issue]) -> tuple[Feedback, ...]:
        pr = _open_request(ctx, members[0])
        return _feedback(ctx, pr, address_rounds(members[0], pr.number).last_at)

    @contextmanager
    def workspace(self, ctx: PhaseContext, members: Sequence[Issue]) -> Iterator[Workspace]:
        pr = _open_request(ctx, members[0])
        if ctx.project.git.has_remote():  # a reviewer may have pushed a suggestion there
            ctx.project.git.fast_forward_from(pr.head)
        worktree = pr.head.removeprefix("feature/")
        made = ctx.worktrees.ensure(worktree, pr.head, ctx.base)
        if made.created:
            ctx.say(f"Created worktree worktrees/{worktree} on {pr.head}.")
        after_create(ctx, made.path)
        run_hook(ctx, "before_run", made.path)
        try:
            yield Workspace(
                made.path,
                facts={
                    "date": ctx.day.isoformat(),
                    "test_command": ctx.project.config.test_command,
                    "branch": pr.head,
                    "base_branch": pr.base,
                    "worktree": f"worktrees/{worktree}",
                    "pull_request": f"#{pr.number}",
                    # Where the branch stood before the agent: its fixes are commits after.
                    "head": ctx.project.git.resolve(f"refs/heads/{pr.head}"),
                },
                may_change=None,
            )
        finally:  # after the run and its checks, whatever their outcome; never fatal
            run_hook(ctx, "after_run", made.path)

    def validate(
        self, ctx: PhaseContext, members: Sequence[Issue], space: Workspace, result: AgentResult
    ) -> list[str]:
        git = ctx.project.git
        payload: dict[str, Any] = dict(result.result or {})
        given = self.feedback(ctx, members)
        threads = {item.id for item in given if item.kind == "thread"}
        problems = []
        unknown = [a["id"] for a in payload["threads"] if a["id"] not in threads]
        if unknown:
            problems.append(
                f"the result names threads that are not open on the pull request: "
                f"{', '.join(unknown)} (answer only these: {', '.join(sorted(threads)) or 'none'})"
            )
        left = sorted(working_changes(git, space.workdir).keys() - noted_files(git, space.workdir))
        if left:
            problems.append(f"uncommitted changes left in the worktree: {', '.join(left)}")
        branch = space.facts["branch"]
        moved = git.resolve(f"refs/heads/{branch}") != space.facts["head"]
        must_change = any(item.kind in ("check", "review") for item in given) or any(
            a["fixed"] for a in payload["threads"]
        )
        if must_change and not moved:
            problems.append(f"no new commit on {branch}: the feedback asks for changes")
        if problems:
            return problems
        pr = int(str(space.facts["pull_request"]).lstrip("#"))
        hold_control_changes(ctx, branch, members[0].number, pr=pr)
        tests = project_tests(ctx, space.workdir)
        if not tests.passed:
            return [f"the tests fail in the worktree (`{tests.command}`):\n{tests.output}"]
        return []

    def apply(self, ctx: PhaseContext, members: Sequence[Issue], attempt: Attempt) -> None:
        primary = members[0]
        pr = _open_request(ctx, primary)
        round_ = address_rounds(primary, pr.number).used + 1
        git = ctx.project.git
        if git.has_remote():  # the same commit pushed again sends nothing
            git.push(pr.head)
        commit = git.resolve(f"refs/heads/{pr.head}")[:7]
        mark = round_mark(round_)
        threads = {thread.id: thread for thread in pr.threads}
        answers = list(attempt.result.get("threads", []))
        replied = resolved = 0
        for answer in answers:
            thread = threads.get(answer["id"])
            if thread is None:
                continue
            if not any(mark in comment.body for comment in thread.comments):
                text = (
                    f"Fixed in {commit}: {answer['reply']}" if answer["fixed"] else answer["reply"]
                )
                ctx.code_host.reply_to_thread(thread.id, redact(f"{text}\n\n{mark}"))
                replied += 1
            if answer["fixed"] and not thread.resolved:
                ctx.code_host.resolve_thread(thread.id)
                resolved += 1
        if pr.reviews:  # the reviewers have the next word
            ctx.code_host.request_review(pr.number)
        fixed = sum(1 for a in answers if a["fixed"])
        note = (
            f"{ROUND_HEADER}\n\n{round_note(pr.number, round_)} {commit} on {pr.head}.\n\n"
            f"{attempt.result.get('summary', '').strip()}\n\n"
            f"Threads answered: {len(answers)} ({fixed} fixed and resolved). "
            "Ready for another review.\n"
        )
        # Last: the note is what counts the round, so a crash before it repeats the rest.
        for issue in members:
            ctx.comment_once(issue.number, note)
        ctx.say(
            f"Addressed the feedback on pull request #{pr.number} (round {round_}): {commit} on "
            f"{pr.head}; {replied} repl{'y' if replied == 1 else 'ies'}, {resolved} thread(s) "
            f"resolved; next: ralph run merge {primary.number}"
        )
