"""GitLab's merge-request answers read as tracker values: jobs as checks, approvals and
review notes as reviews, discussions as threads, detailed_merge_status as the merge
state, the project's merge method as merge settings."""

from __future__ import annotations

from typing import Any

import pytest

from ralph.errors import InvalidInput
from ralph.tracker import (
    CheckConclusion,
    CheckRun,
    CheckStatus,
    MergeSettings,
    MergeState,
    PullRequestState,
    ReviewDecision,
    ReviewEvent,
    ReviewState,
)
from ralph.tracker.gitlab._mr_read import (
    checks_from,
    merge_settings_from,
    merge_state_from,
    pull_request_from,
    review_from_note,
    review_note,
    reviews_from,
    thread_from,
)
from ralph.tracker.gitlab._mr_review import Diffs, split_thread_id

HEAD = "a" * 40


def mr(**fields: Any) -> dict[str, Any]:
    base = {
        "iid": 3,
        "title": "Work",
        "description": "Closes #1",
        "source_branch": "feature",
        "target_branch": "main",
        "state": "opened",
        "sha": HEAD,
        "author": {"username": "ralph"},
        "created_at": "2026-01-05T10:00:00.000Z",
        "detailed_merge_status": "mergeable",
        "has_conflicts": False,
    }
    return {**base, **fields}


def job(name: str, status: str, id: int = 1, **fields: Any) -> dict[str, Any]:
    return {"id": id, "name": name, "status": status, **fields}


PIPELINE = {"id": 9, "sha": HEAD, "status": "running"}


def test_a_summary_has_no_judgement_and_its_body_closes_what_it_names():
    pr = pull_request_from(mr())
    assert (pr.number, pr.head, pr.base, pr.head_oid, pr.author) == (
        3,
        "feature",
        "main",
        HEAD,
        "ralph",
    )
    assert (pr.mergeable, pr.merge_state, pr.review_decision) == (None, None, None)
    assert pr.closes == (1,)


def test_the_jobs_of_the_head_pipeline_are_the_checks_and_a_rerun_replaces_its_first():
    jobs = [
        job("test", "failed", 1),
        job("test", "success", 5),
        job("lint", "pending", 2, allow_failure=True),
        job("deploy", "manual", 3),
        job("docs", "canceled", 4),
        job("new", "some_new_status", 6),
    ]
    checks = {c.name: c for c in checks_from(mr(head_pipeline=PIPELINE), jobs, must_succeed=True)}
    assert (checks["test"].conclusion, checks["test"].required) == (CheckConclusion.SUCCESS, True)
    assert (checks["lint"].status, checks["lint"].required) == (CheckStatus.QUEUED, False)
    assert checks["deploy"].pending
    assert checks["docs"].failed
    assert checks["new"].pending  # a status newer than this code: not a pass


def test_a_pipeline_of_another_head_gives_no_checks_and_no_rule_makes_none_required():
    old = {**PIPELINE, "sha": "b" * 40}
    assert checks_from(mr(head_pipeline=old), [job("test", "success")], must_succeed=True) == ()
    assert checks_from(mr(), [job("test", "success")], must_succeed=True) == ()
    [check] = checks_from(mr(head_pipeline=PIPELINE), [job("t", "success")], must_succeed=False)
    assert not check.required


PASSED = CheckRun(name="t", conclusion=CheckConclusion.SUCCESS)
FAILED = CheckRun(name="l", conclusion=CheckConclusion.FAILURE)


@pytest.mark.parametrize(
    ("detailed", "checks", "expected"),
    [
        ("mergeable", (PASSED,), MergeState.CLEAN),
        ("mergeable", (PASSED, FAILED), MergeState.UNSTABLE),
        ("conflict", (), MergeState.DIRTY),
        ("need_rebase", (), MergeState.BEHIND),
        ("draft_status", (), MergeState.DRAFT),
        ("ci_must_pass", (), MergeState.BLOCKED),
        ("not_approved", (), MergeState.BLOCKED),
        ("discussions_not_resolved", (), MergeState.BLOCKED),
        ("checking", (), MergeState.UNKNOWN),
        ("a_status_from_the_future", (), MergeState.UNKNOWN),
    ],
)
def test_detailed_merge_status_is_judged_in_githubs_words(detailed, checks, expected):
    assert merge_state_from(mr(detailed_merge_status=detailed), checks) is expected


def test_merged_or_closed_is_not_judged_and_merged_names_what_the_base_holds():
    merged = pull_request_from(
        mr(state="merged", merge_commit_sha="c" * 40, detailed_merge_status="not_open"),
        approvals_required=0,
    )
    assert (merged.state, merged.merge_state, merged.mergeable) == (
        PullRequestState.MERGED,
        None,
        None,
    )
    assert merged.merge_commit == "c" * 40
    fast_forward = pull_request_from(mr(state="merged"), approvals_required=0)
    assert fast_forward.merge_commit == HEAD
    closed = pull_request_from(mr(state="closed"), approvals_required=0)
    assert (closed.state, closed.merge_commit) == (PullRequestState.CLOSED, None)
    assert pull_request_from(mr(state="locked"), approvals_required=0).state is (
        PullRequestState.OPEN
    )


def test_a_conflict_is_unmergeable_and_checking_is_unknown():
    assert pull_request_from(mr(has_conflicts=True), approvals_required=0).mergeable is False
    still = pull_request_from(mr(detailed_merge_status="checking"), approvals_required=0)
    assert (still.mergeable, still.merge_state) == (None, MergeState.UNKNOWN)


@pytest.mark.parametrize(
    ("project", "expected"),
    [
        ({}, MergeSettings(merge_commit=True, squash=True, rebase=False)),
        ({"merge_method": "rebase_merge"}, MergeSettings(merge_commit=True, rebase=False)),
        ({"merge_method": "ff"}, MergeSettings(merge_commit=False, rebase=True)),
        ({"squash_option": "never"}, MergeSettings(squash=False, rebase=False)),
        ({"squash_option": "always"}, MergeSettings(rebase=False)),
    ],
)
def test_the_projects_merge_method_is_read_as_ralphs_three(project, expected):
    assert merge_settings_from(project) == expected


def note(id: int, body: str, who: str, at: str, **fields: Any) -> dict[str, Any]:
    return {"id": id, "body": body, "author": {"username": who}, "created_at": at, **fields}


def test_a_review_note_round_trips_its_verdict_text_and_head():
    text = review_note(ReviewEvent.REQUEST_CHANGES, "Rename it.\n\nPlease.", HEAD)
    assert "**Changes requested.**" in text  # what a person on GitLab's page reads
    review = review_from_note(note(7, text, "alice", "2026-01-05T10:00:00Z"))
    assert review is not None
    assert (review.id, review.author, review.state, review.body, review.commit) == (
        "7",
        "alice",
        ReviewState.CHANGES_REQUESTED,
        "Rename it.\n\nPlease.",
        HEAD,
    )
    assert review_from_note(note(8, "just a comment", "bob", "2026-01-05T10:00:00Z")) is None
    system = note(9, text, "alice", "2026-01-05T10:00:00Z", system=True)
    assert review_from_note(system) is None


def test_approvals_decide_with_notes_and_people_on_gitlabs_page():
    notes = [
        note(1, review_note(ReviewEvent.APPROVE, "", HEAD), "alice", "2026-01-05T10:00:00Z"),
        note(2, review_note(ReviewEvent.APPROVE, "ok", HEAD), "carol", "2026-01-05T10:01:00Z"),
    ]
    approvals = {
        "approved_by": [
            {"user": {"username": "alice"}},
            {"user": {"username": "dave"}, "approved_at": "2026-01-05T10:02:00Z"},
        ]
    }
    reviewers = [
        {"user": {"username": "erin"}, "state": "requested_changes"},
        {"user": {"username": "alice"}, "state": "approved"},
    ]
    reviews = reviews_from(notes, approvals, reviewers)
    states = {(r.author, r.state) for r in reviews}
    assert states == {
        ("alice", ReviewState.APPROVED),
        ("carol", ReviewState.DISMISSED),  # her approval was taken back
        ("dave", ReviewState.APPROVED),  # approved on GitLab's page
        ("erin", ReviewState.CHANGES_REQUESTED),
    }
    pr = pull_request_from(mr(), reviews=reviews, approvals_required=1)
    assert pr.review_decision is ReviewDecision.CHANGES_REQUESTED


def test_the_approval_rule_counts_approvers_and_no_rule_gives_no_decision():
    notes = [note(1, review_note(ReviewEvent.APPROVE, "", HEAD), "alice", "2026-01-05T10:00:00Z")]
    reviews = reviews_from(notes, {"approved_by": [{"user": {"username": "alice"}}]})
    assert pull_request_from(mr(), reviews=reviews, approvals_required=2).review_decision is (
        ReviewDecision.REVIEW_REQUIRED
    )
    assert pull_request_from(mr(), reviews=reviews, approvals_required=1).review_decision is (
        ReviewDecision.APPROVED
    )
    assert pull_request_from(mr(), reviews=reviews, approvals_required=0).review_decision is None


def test_a_diff_discussion_is_a_thread_with_its_hunk_and_others_are_not():
    position = {"new_path": "story.txt", "new_line": 25, "old_path": "story.txt"}
    discussion = {
        "id": "d1",
        "notes": [
            note(1, "Why?", "alice", "2026-01-05T10:00:00Z", position=position, resolvable=True),
            note(2, "Fixed.", "ralph", "2026-01-05T10:05:00Z", resolvable=True, resolved=True),
        ],
    }
    thread = thread_from(discussion, lambda path, line: f"@@ {path}:{line}")
    assert thread is not None
    assert (thread.id, thread.path, thread.line, thread.resolved, thread.diff_hunk) == (
        "d1",
        "story.txt",
        25,
        False,  # one note of it is not resolved
        "@@ story.txt:25",
    )
    assert [(c.author, c.body) for c in thread.comments] == [("alice", "Why?"), ("ralph", "Fixed.")]
    general = {"id": "d2", "notes": [note(3, "Nice", "bob", "2026-01-05T10:00:00Z")]}
    assert thread_from(general) is None


@pytest.mark.parametrize("thread_id", ["999", "abc", "-1", "x-abc", "3-"])
def test_a_thread_id_names_its_merge_request_and_discussion_or_is_refused(thread_id):
    with pytest.raises(InvalidInput, match="no review thread"):
        split_thread_id(thread_id)
    assert split_thread_id("3-" + "f" * 40) == (3, "f" * 40)


def test_a_threads_hunk_is_read_from_the_diff_once_and_its_id_names_the_merge_request():
    reads = []

    def read():
        reads.append(1)
        return [{"new_path": "story.txt", "diff": "@@ -1,2 +1,2 @@\n one\n-two\n+2\n"}]

    diffs = Diffs(read)
    position = {"new_path": "story.txt", "new_line": 2}
    discussion = {
        "id": "d",
        "notes": [note(1, "Why?", "alice", "2026-01-05T10:00:00Z", position=position)],
    }
    thread = diffs.thread(4, discussion)
    assert thread is not None
    assert (thread.id, thread.diff_hunk) == ("4-d", "@@ -1,2 +1,2 @@\n one\n-two\n+2")
    assert diffs.hunk("story.txt", 9) == ""
    assert reads == [1]
