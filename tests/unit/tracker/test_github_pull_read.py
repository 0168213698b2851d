"""GitHub's pull-request answers read as tracker values: what each of GitHub's states
means to the merge policy, including the ones a fake rarely shows."""

from __future__ import annotations

from typing import Any

from ralph.tracker import CheckConclusion, CheckStatus, MergeState, ReviewDecision
from ralph.tracker.github._pull_read import merge_settings_from, pull_request_from


def node(**fields: Any) -> dict[str, Any]:
    base = {
        "number": 4,
        "title": "Work",
        "body": "Closes #1\n\n<!-- ralph:op=abc -->",
        "headRefName": "feature/GH-1",
        "baseRefName": "main",
        "state": "OPEN",
        "createdAt": "2026-01-05T10:00:00Z",
    }
    return {**base, **fields}


def contexts(*nodes: dict[str, Any]) -> dict[str, Any]:
    rollup = {"contexts": {"nodes": list(nodes)}}
    return {"nodes": [{"commit": {"oid": "f" * 40, "statusCheckRollup": rollup}}]}


def test_a_summary_has_no_checks_reviews_or_threads_and_no_judgement():
    pr = pull_request_from(node(headRefOid="a" * 40, author={"login": "ralph"}))
    assert (pr.checks, pr.reviews, pr.threads) == ((), (), ())
    assert (pr.mergeable, pr.review_decision, pr.merge_state) == (None, None, None)
    assert (pr.head_oid, pr.author, pr.body) == ("a" * 40, "ralph", "Closes #1")


def done(name: str, conclusion: str) -> dict[str, Any]:
    return {"__typename": "CheckRun", "name": name, "status": "COMPLETED", "conclusion": conclusion}


def test_githubs_check_states_are_read_as_pending_passed_or_failed():
    pr = pull_request_from(
        node(
            commits=contexts(
                {"__typename": "CheckRun", "name": "a", "status": "WAITING", "isRequired": True},
                {"__typename": "CheckRun", "name": "b", "status": "QUEUED"},
                {
                    "__typename": "CheckRun",
                    "name": "c",
                    "status": "COMPLETED",
                    "conclusion": "SKIPPED",
                },
                {
                    "__typename": "CheckRun",
                    "name": "d",
                    "status": "COMPLETED",
                    "conclusion": "WHATEVER",
                },
                {"__typename": "StatusContext", "context": "e", "state": "EXPECTED"},
                {"__typename": "StatusContext", "context": "f", "state": "ERROR"},
                {"__typename": "StatusContext", "context": "g", "state": "PENDING"},
            )
        )
    )
    checks = {c.name: c for c in pr.checks}
    assert checks["a"].status is CheckStatus.IN_PROGRESS
    assert checks["a"].required
    assert checks["b"].status is CheckStatus.QUEUED
    assert checks["c"].passed
    assert checks["d"].conclusion is CheckConclusion.FAILURE  # newer than this code: no pass
    assert checks["e"].pending  # a status branch protection waits for
    assert checks["f"].failed
    assert checks["g"].pending
    assert not checks["g"].required


def test_a_draft_review_is_left_out_and_an_outdated_thread_keeps_its_original_line():
    pr = pull_request_from(
        node(
            reviews={
                "nodes": [
                    {"id": "R1", "state": "PENDING", "author": {"login": "ralph"}},
                    {"id": "R2", "state": "DISMISSED", "body": "old", "author": None},
                ]
            },
            reviewThreads={
                "nodes": [
                    {
                        "id": "T1",
                        "path": "a.py",
                        "line": None,
                        "originalLine": 7,
                        "isResolved": False,
                        "comments": {"nodes": []},
                    }
                ]
            },
            reviewDecision="REVIEW_REQUIRED",
            mergeStateStatus="DRAFT",
            mergeable="UNKNOWN",
        )
    )
    assert [(r.id, r.author) for r in pr.reviews] == [("R2", "ghost")]
    assert (pr.threads[0].line, pr.threads[0].diff_hunk) == (7, "")
    assert pr.review_decision is ReviewDecision.REVIEW_REQUIRED
    assert pr.merge_state is MergeState.DRAFT
    assert pr.mergeable is None


def test_a_merge_queue_on_the_default_branch_is_part_of_the_merge_settings():
    settings = merge_settings_from(
        {"mergeCommitAllowed": False, "squashMergeAllowed": True, "rebaseMergeAllowed": True}
    )
    assert (settings.merge_commit, settings.merge_queue) == (False, False)
    assert merge_settings_from({"mergeQueue": {"id": "MQ_1"}}).merge_queue
