"""What a merge train must leave however it was interrupted: every good change merged
once (its pull request merged, its change once in the base branch's first-parent
history), nothing Done that the base branch does not hold, the bad changes sent back to
their builders with their tests' failure."""

from __future__ import annotations

from collections import Counter

from ralph.config import load_config
from ralph.git import GitRepo
from ralph.graph import TaskKind
from ralph.project import TEST_CHECK, open_project
from ralph.tracker import CheckConclusion, IssueQuery, PullRequestState
from ralph.workflow import WorkflowState

from .ready import ReadyChanges

__all__ = ["added_on_first_parents", "assert_landed_once"]


def added_on_first_parents(git: GitRepo, base: str) -> Counter[str]:
    """How many commits of ``base``'s first-parent history add each file (a change that
    landed twice, or landed, was reverted and landed again, counts twice)."""
    commits = git.git("rev-list", "--first-parent", base, what="list the base").split()
    added: Counter[str] = Counter()
    for commit in commits:
        parents = git.git("rev-list", "--parents", "-n", "1", commit, what="parents").split()
        if len(parents) < 2:
            continue  # the root commit
        names = git.git(
            "diff", "--name-only", "--diff-filter=A", parents[1], commit, what="diff"
        ).split()
        added.update(names)
    return added


def assert_landed_once(ready: ReadyChanges) -> None:
    with open_project(load_config(ready.repo)) as project:
        tracker, host, git, store = project.tracker, project.code_host, project.git, project.store
        added = added_on_first_parents(git, ready.base)
        for change in ready.good:
            pr = host.get_pull_request(change.pr)
            assert pr.state is PullRequestState.MERGED, (change, pr.state)
            assert added[change.module] == 1, (change, added)
            issue = tracker.get_issue(change.issue)
            assert issue.workflow_state is WorkflowState.DONE, (change, issue.workflow_state)
        for listed in tracker.list_issues(IssueQuery(status=None)):
            issue = tracker.get_issue(listed.number)
            if issue.workflow_state is not WorkflowState.DONE or not issue.pull_requests:
                continue
            pr = host.get_pull_request(issue.pull_requests[-1])
            assert pr.merge_commit is not None, (issue.number, pr)
            reachable = git.run("merge-base", "--is-ancestor", pr.merge_commit, ready.base)
            assert reachable.returncode == 0, f"#{issue.number} is Done, not on {ready.base}"
        sent_back = {
            number
            for run in store.list_runs()
            for task in store.list_tasks(run.id)
            if task.kind == TaskKind.ADDRESS
            for number in task.issues
        }
        for change in ready.bad:
            pr = host.get_pull_request(change.pr)
            assert pr.state is PullRequestState.OPEN, (change, pr.state)
            assert added[change.module] == 0, (change, added)
            (check,) = [c for c in pr.checks if c.name == TEST_CHECK]
            assert check.conclusion is CheckConclusion.FAILURE, (change, check)
            assert tracker.get_issue(change.issue).workflow_state is not WorkflowState.DONE
            assert change.issue in sent_back, (change, sent_back)
