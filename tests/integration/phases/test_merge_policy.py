"""The merge phase under each merge policy, and the address phase, by hand on the local
tracker (real git, SQLite, the scripted agents): what waits, what is addressed, what
merges, and that a rerun after a crash repeats nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.config import Config
from ralph.db import open_database
from ralph.demo import create_sample_repository
from ralph.demo._sample import FAREWELL
from ralph.errors import MergeConflict
from ralph.git import commit_files
from ralph.phases import PhaseStatus
from ralph.project import migrate_database, open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tracker import (
    LocalCodeHost,
    MergeStrategy,
    PullRequest,
    PullRequestState,
    ReviewComment,
    ReviewEvent,
)
from ralph.workflow import MergePolicy, WorkflowState

from ..conftest import GitProject
from .conftest import Sample

#: What a reviewer asks for: farewell says "Farewell" (applies on the implemented branch).
RENAME = """```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -5,2 +5,2 @@
 def farewell(name):
-    return f"Goodbye, {name}!"
+    return f"Farewell, {name}!"
```"""

#: A test on main the branch does not pass: the merge result's required check fails.
STRICT_TEST = """import unittest

import greet.core


class FarewellTest(unittest.TestCase):
    def test_farewell_says_farewell(self):
        self.assertEqual(greet.core.farewell("Ada"), "Farewell, Ada!")
"""


@pytest.fixture
def make_sample(tmp_path: Path) -> Iterator[object]:
    opened: list[Any] = []

    def make(**settings: object) -> Sample:
        folder = tmp_path / f"sample{len(opened)}"
        create_sample_repository(folder)
        repo = GitProject(folder)
        config = Config(
            root=repo.path,
            repo="sample",
            test_command=f"{sys.executable} -m unittest -q",
            **settings,  # type: ignore[arg-type]
        )
        url = f"sqlite:///{tmp_path / f'ralph{len(opened)}.db'}"
        with open_database(url) as db:
            migrate_database(db)
        context = open_project(config, store_url=url)
        project = context.__enter__()
        opened.append(context)
        return Sample(repo, project, ScriptedRuntime(env={}))

    yield make
    for context in opened:
        context.__exit__(None, None, None)


def in_review(sample: Sample) -> tuple[int, PullRequest]:
    number = sample.issue()
    sample.through(number, "research", "plan", "review", "implement", "pr")
    (pr,) = sample.code_host.list_pull_requests(issue=number)
    return number, pr


def test_approval_waits_for_a_review_then_addresses_the_change_request_and_merges(make_sample):
    sample = make_sample(merge_policy=MergePolicy.APPROVAL)
    number, pr = in_review(sample)

    waiting = sample.run("merge", number)
    assert waiting.status is PhaseStatus.WAITING
    assert (waiting.waiting_for, waiting.for_person) == ("review", True)
    assert sample.state(number) is WorkflowState.IN_REVIEW
    assert [c.name for c in sample.code_host.get_pull_request(pr.number).checks] == ["test"]

    sample.code_host.submit_review(
        pr.number,
        ReviewEvent.REQUEST_CHANGES,
        "Say farewell, not goodbye.",
        comments=[ReviewComment(path="greet/core.py", line=6, body=f"Like this:\n\n{RENAME}")],
        author="alice",
    )
    asked = sample.run("merge", number)
    assert asked.status is PhaseStatus.ADDRESS
    assert "- alice requests changes: Say farewell, not goodbye." in asked.lines
    assert "- unresolved review thread on greet/core.py:6 (alice)" in asked.lines

    before = sample.project.git.resolve(f"refs/heads/{pr.head}")
    addressed = sample.run("address", number)
    assert addressed.status is PhaseStatus.DONE, addressed
    after = sample.project.git.resolve(f"refs/heads/{pr.head}")
    assert after != before
    assert 'return f"Farewell, {name}!"' in sample.project.git.read_on(pr.head, "greet/core.py")
    (thread,) = sample.code_host.get_pull_request(pr.number).threads
    assert thread.resolved
    reply = thread.comments[-1]
    assert reply.body.startswith(f"Fixed in {after[:7]}: ")
    assert "(Ralph, address round 1)" in reply.body
    note = sample.comments(number)[-1]
    assert note.startswith("## Review Feedback Addressed\n\nPull request #")
    assert f"round 1: {after[:7]} on {pr.head}." in note
    brief = sample.runtime.briefs[-1]
    assert [item.kind for item in brief.feedback] == ["review", "thread"]
    assert "Say farewell, not goodbye." in brief.feedback[0].text
    assert "On greet/core.py line 6:" in brief.feedback[1].text

    again = sample.run("merge", number)
    assert again.status is PhaseStatus.WAITING
    assert (again.waiting_for, again.for_person) == ("review", True)
    assert sample.run("address", number).status is PhaseStatus.ALREADY_DONE

    sample.code_host.submit_review(pr.number, ReviewEvent.APPROVE, "Thanks.", author="alice")
    merged = sample.run("merge", number)
    assert merged.status is PhaseStatus.DONE, merged
    assert sample.state(number) is WorkflowState.DONE
    assert 'f"Farewell, {name}!"' in sample.project.git.read_on("main", "greet/core.py")


def test_a_failing_required_check_is_addressed_then_the_merge_goes_through(make_sample):
    sample = make_sample()  # checks: the local default
    number, pr = in_review(sample)
    git = sample.project.git
    commit_files(git, "main", {"tests/test_strict.py": STRICT_TEST}, "test: farewell says farewell")
    failing = sample.run("merge", number)
    assert failing.status is PhaseStatus.ADDRESS, failing
    assert any(line.startswith("- required check test failed") for line in failing.lines)
    (check,) = sample.code_host.get_pull_request(pr.number).checks
    assert check.failed
    assert "Farewell, Ada!" in check.summary

    sample.tracker.add_comment(number, f"The new test on main wants this:\n\n{RENAME}")
    fixed = sample.run("address", number)
    assert fixed.status is PhaseStatus.DONE, fixed
    assert sample.runtime.briefs[-1].feedback[0].kind == "check"

    merged = sample.run("merge", number)
    assert merged.status is PhaseStatus.DONE, merged
    assert "Ran the required check on pull request" in "\n".join(merged.lines)
    assert sample.state(number) is WorkflowState.DONE


def test_the_fix_rounds_run_out_and_a_person_is_asked(make_sample):
    sample = make_sample(max_fix_rounds=1)
    number, _ = in_review(sample)
    commit_files(sample.project.git, "main", {"tests/test_strict.py": STRICT_TEST}, "test: strict")
    shout = RENAME.replace("Farewell, {name}", "Bye, {name}")  # a fix that fixes nothing
    sample.tracker.add_comment(number, f"Try:\n\n{shout}")
    assert sample.run("merge", number).status is PhaseStatus.ADDRESS
    assert sample.run("address", number).status is PhaseStatus.DONE
    escalated = sample.run("merge", number)
    assert escalated.status is PhaseStatus.ESCALATED
    assert "not ready after 1 fix round(s) (max_fix_rounds = 1)" in escalated.error
    assert sample.state(number) is WorkflowState.HUMAN_NEEDED


def test_merge_method_squash_makes_one_commit_on_main(make_sample):
    sample = make_sample(merge_method="squash")
    number, _ = in_review(sample)
    before = sample.project.git.resolve("refs/heads/main")
    merged = sample.run("merge", number)
    assert merged.status is PhaseStatus.DONE, merged
    assert "Merged by squash." in merged.lines
    parents = sample.project.git.git("rev-list", "--parents", "-n", "1", "main", what="parents")
    assert parents.split()[1:] == [before]


def test_a_merge_that_lands_but_answers_an_error_is_a_success(make_sample, monkeypatch):
    sample = make_sample()
    number, pr = in_review(sample)
    real = LocalCodeHost.merge_pull_request

    def lands_then_refuses(self, n, strategy=MergeStrategy.MERGE, *, expected_head=None):
        real(self, n, strategy, expected_head=expected_head)
        raise MergeConflict(n, pr.head, pr.base, ())  # "Pull Request is not mergeable"

    monkeypatch.setattr(LocalCodeHost, "merge_pull_request", lands_then_refuses)
    merged = sample.run("merge", number)
    assert merged.status is PhaseStatus.DONE, merged
    assert sample.state(number) is WorkflowState.DONE
    assert any(c.startswith(f"Merged pull request #{pr.number} (") for c in sample.comments(number))


def test_manual_policy_waits_for_a_person_to_merge_then_finishes(make_sample):
    sample = make_sample(merge_policy=MergePolicy.MANUAL)
    number, pr = in_review(sample)
    waiting = sample.run("merge", number)
    assert (waiting.status, waiting.waiting_for, waiting.for_person) == (
        PhaseStatus.WAITING,
        "a person to merge",
        True,
    )
    assert sample.code_host.get_pull_request(pr.number).checks == ()  # no check is required
    sample.code_host.merge_pull_request(pr.number)  # the person, as `ralph pr merge` does
    finished = sample.run("merge", number)
    assert finished.status is PhaseStatus.DONE, finished
    assert any(c.startswith(f"Merged pull request #{pr.number} (") for c in sample.comments(number))
    assert not (sample.repo.path / "worktrees" / f"GH-{number}").exists()


def test_an_address_round_interrupted_after_its_replies_replies_no_more(make_sample, monkeypatch):
    sample = make_sample(merge_policy=MergePolicy.APPROVAL)
    number, pr = in_review(sample)
    sample.code_host.submit_review(
        pr.number,
        ReviewEvent.REQUEST_CHANGES,
        "Please.",
        comments=[ReviewComment(path="greet/core.py", line=6, body=RENAME)],
        author="alice",
    )
    real = LocalCodeHost.request_review

    def crash(self, n, reviewers=()):
        raise RuntimeError("the process died here")

    monkeypatch.setattr(LocalCodeHost, "request_review", crash)
    crashed = sample.run("address", number)
    assert crashed.status is PhaseStatus.FAILED
    monkeypatch.setattr(LocalCodeHost, "request_review", real)
    resumed = sample.run("address", number)
    assert resumed.status is PhaseStatus.DONE, resumed
    assert "Resuming with the agent result saved by an interrupted run." in resumed.lines
    (thread,) = sample.code_host.get_pull_request(pr.number).threads
    replies = [c for c in thread.comments if "(Ralph, address round 1)" in c.body]
    assert len(replies) == 1
    notes = [c for c in sample.comments(number) if c.startswith("## Review Feedback Addressed")]
    assert len(notes) == 1


def test_nothing_to_address_is_said_in_one_line(make_sample):
    sample = make_sample()
    number, pr = in_review(sample)
    outcome = sample.run("address", number)
    assert outcome.status is PhaseStatus.ALREADY_DONE
    assert outcome.lines == (
        f"pull request #{pr.number} has no feedback to address; next: ralph run merge {number}",
    )


def test_the_agents_code_review_is_posted_as_a_review_with_inline_comments(make_sample):
    sample = make_sample(merge_policy=MergePolicy.APPROVAL, review_code=True)
    number = sample.issue(
        body=f"Add `farewell`.\n\nCode review: request-changes\n\n{FAREWELL}\n\n{RENAME}\n"
    )
    sample.through(number, "research", "plan", "review", "implement", "pr")
    (pr,) = sample.code_host.list_pull_requests(issue=number)
    reviewed = sample.run("code_review", number)
    assert reviewed.status is PhaseStatus.DONE, reviewed
    (review,) = sample.code_host.get_pull_request(pr.number).reviews
    assert review.state == "CHANGES_REQUESTED"
    head = sample.project.git.resolve(f"refs/heads/{pr.head}")
    assert f"(Ralph's code review of {head[:7]})" in review.body
    (thread,) = sample.code_host.get_pull_request(pr.number).threads
    assert thread.path == "greet/core.py"
    assert sample.run("code_review", number).status is PhaseStatus.ALREADY_DONE
    assert sample.run("merge", number).status is PhaseStatus.ADDRESS
    assert sample.run("address", number).status is PhaseStatus.DONE
    again = sample.run("code_review", number)
    assert again.status is PhaseStatus.DONE, again
    latest = sample.code_host.get_pull_request(pr.number)
    assert latest.review_decision == "APPROVED"
    assert sample.run("merge", number).status is PhaseStatus.DONE


def test_a_change_request_made_while_the_merge_takes_its_lock_stops_the_merge(make_sample):
    """The merge judges the pull request as it is once the issue is locked: a review
    made after the phase first looked (a person, another worker) is not missed."""
    sample = make_sample(merge_policy=MergePolicy.APPROVAL)
    number, pr = in_review(sample)
    assert sample.run("merge", number).status is PhaseStatus.WAITING
    sample.code_host.submit_review(pr.number, ReviewEvent.APPROVE, "ok", author="alice")
    store = sample.project.store
    lock = store.acquire_issue_lock

    def bob_asks_for_changes_meanwhile(*args: Any, **kwargs: Any) -> Any:
        sample.code_host.submit_review(
            pr.number, ReviewEvent.REQUEST_CHANGES, "No, wait.", author="bob"
        )
        store.acquire_issue_lock = lock  # once
        return lock(*args, **kwargs)

    store.acquire_issue_lock = bob_asks_for_changes_meanwhile
    outcome = sample.run("merge", number)
    assert sample.code_host.get_pull_request(pr.number).state is not PullRequestState.MERGED
    assert outcome.status is PhaseStatus.ADDRESS, outcome
