"""What merging ready changes must leave however it was interrupted: every good change
merged once (its pull request merged, its files added once in the base branch's
first-parent history), nothing Done that the base branch does not hold, the changes that
break the tests sent back to their builders with the failure."""

from __future__ import annotations

from collections import Counter

from ralph.git import GitRepo
from ralph.graph import TaskKind
from ralph.project import TEST_CHECK
from ralph.tracker import CheckConclusion, IssueQuery, PullRequestState
from ralph.workflow import WorkflowState

from .scenario import Change, Scenario

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


def added_by(scenario: Scenario, change: Change) -> list[str]:
    """The files ``change``'s branch adds to the base it was cut from."""
    return scenario.project.git.git(
        "diff",
        "--name-only",
        "--diff-filter=A",
        f"{scenario.start}...refs/heads/{change.branch}",
        what="diff the change",
    ).split()


def assert_landed_once(scenario: Scenario) -> None:
    project = scenario.project
    tracker, host, git, store = project.tracker, project.code_host, project.git, project.store
    base = project.config.base_branch
    added = added_on_first_parents(git, base)
    good = [c for c in scenario.changes if c.kind != "breaks"]
    bad = [c for c in scenario.changes if c.kind == "breaks"]
    for change in good:
        pr = host.get_pull_request(change.pr)
        assert pr.state is PullRequestState.MERGED, (change, pr.state)
        files = added_by(scenario, change)
        assert files, change
        assert all(added[f] == 1 for f in files), (change, files, added)
        assert scenario.state(change) is WorkflowState.DONE, (change, scenario.state(change))
    for listed in tracker.list_issues(IssueQuery(status=None)):
        issue = tracker.get_issue(listed.number)
        if issue.workflow_state is not WorkflowState.DONE or not issue.pull_requests:
            continue
        pr = host.get_pull_request(issue.pull_requests[-1])
        assert pr.merge_commit is not None, (issue.number, pr)
        assert git.is_ancestor(pr.merge_commit, f"refs/heads/{base}"), (
            f"#{issue.number} is Done, not on {base}"
        )
    sent_back = {
        number
        for run in store.list_runs()
        for task in store.list_tasks(run.id, kind=TaskKind.ADDRESS)
        for number in task.issues
    }
    for change in bad:
        pr = host.get_pull_request(change.pr)
        assert pr.state is PullRequestState.OPEN, (change, pr.state)
        assert all(added[f] == 0 for f in added_by(scenario, change)), (change, added)
        (check,) = [c for c in pr.checks if c.name == TEST_CHECK]
        assert check.conclusion is CheckConclusion.FAILURE, (change, check)
        assert scenario.state(change) is not WorkflowState.DONE
        assert change.issue in sent_back, (change, sent_back)
