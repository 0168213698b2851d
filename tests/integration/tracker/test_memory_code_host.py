"""The memory code host: pull requests without git, for tests. Its levers rehearse what
git would do (a conflict, a push, the files a pull request changes), and a merge closes
its issues on the tracker it was given, as every host's does."""

from __future__ import annotations

import pytest

from ralph.db import open_database
from ralph.errors import InvalidInput, MergeConflict
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    LocalTracker,
    MemoryCodeHost,
    PullRequestState,
    ReviewComment,
    ReviewEvent,
)
from ralph.workflow import WorkflowState

pytestmark = pytest.mark.timeout(30)

DIFF = {"a.txt": "@@ -1,2 +1,2 @@\n-one\n+uno\n two\n"}
PASSED = CheckRun(name="test", conclusion=CheckConclusion.SUCCESS, required=True)


@pytest.fixture
def host() -> MemoryCodeHost:
    tracker = LocalTracker(open_database("memory://"), repo="demo")
    return MemoryCodeHost(tracker, required_checks=("test",))


def test_an_unmergeable_pull_request_refuses_like_a_conflict(host: MemoryCodeHost):
    pr = host.create_pull_request(head="f", base="main", title="x")
    host.set_mergeable(pr.number, False)
    with pytest.raises(MergeConflict):
        host.merge_pull_request(pr.number)
    assert host.get_pull_request(pr.number).state is PullRequestState.OPEN


def test_a_push_makes_a_new_head_without_the_old_heads_checks(host: MemoryCodeHost):
    pr = host.create_pull_request(head="f", base="main", title="x")
    host.record_check(pr.number, PASSED)
    assert host.get_pull_request(pr.number).checks == (PASSED,)
    head = host.push(pr.number)
    after = host.get_pull_request(pr.number)
    assert (after.head_oid, after.checks) == (head, ())
    assert head != pr.head_oid


def test_an_inline_comment_goes_on_a_file_the_diff_changes(host: MemoryCodeHost):
    pr = host.create_pull_request(head="f", base="main", title="x")
    elsewhere = ReviewComment(path="b.txt", line=1, body="why?")
    with pytest.raises(InvalidInput, match=r"does not change b\.txt"):
        host.submit_review(pr.number, ReviewEvent.COMMENT, "see", comments=[elsewhere])
    host.set_diff(pr.number, DIFF)
    here = ReviewComment(path="a.txt", line=1, body="why?")
    host.submit_review(pr.number, ReviewEvent.COMMENT, "see", comments=[here])
    (thread,) = host.get_pull_request(pr.number).threads
    assert (thread.path, thread.line) == ("a.txt", 1)
    assert "+uno" in thread.diff_hunk


def test_a_merge_closes_its_issues_on_the_tracker_once(host: MemoryCodeHost):
    issue = host.tracker.create_issue("Change", state=WorkflowState.IN_REVIEW)
    pr = host.create_pull_request(head="f", base="main", title="x", body=f"Closes #{issue.number}")
    host.merge_pull_request(pr.number)
    host.settle_merged(pr.number)  # a rerun moves nothing twice
    closed = host.tracker.get_issue(issue.number)
    assert (closed.workflow_state, closed.is_open) == (WorkflowState.DONE, False)
    assert sum("→ Done" in c.body for c in closed.comments) == 1
