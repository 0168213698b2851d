"""The GitLab client's and tracker's pure parts: what an answer means, how long to wait,
project ids, the token's source, and Ralph's fields read back from labels."""

from __future__ import annotations

import pytest

from ralph._rest_http import Reply
from ralph.errors import ConfigError
from ralph.gitlab import (
    GitLabPacer,
    GitLabPacingPolicy,
    ResponseKind,
    Window,
    classify,
    error_message,
    project_id,
    spacing,
    token_from_env,
)
from ralph.tracker import CloseReason
from ralph.tracker.gitlab import issue_from
from ralph.workflow import Estimate, Priority, WorkflowState


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (200, ResponseKind.OK),
        (201, ResponseKind.OK),
        (400, ResponseKind.INVALID),
        (401, ResponseKind.AUTH),
        (403, ResponseKind.FORBIDDEN),
        (404, ResponseKind.NOT_FOUND),
        (409, ResponseKind.INVALID),
        (422, ResponseKind.INVALID),
        (429, ResponseKind.RATE_LIMITED),
        (500, ResponseKind.INDETERMINATE),
        (502, ResponseKind.INDETERMINATE),
    ],
)
def test_each_status_means_one_thing(status, kind):
    assert classify(Reply(status, {}, None), 0.0).kind is kind


def test_a_429_waits_its_retry_after_else_until_the_reset():
    assert classify(Reply(429, {"retry-after": "12"}, "Retry later"), 0.0).wait == 12
    assert classify(Reply(429, {"ratelimit-reset": "160"}, None), 100.0).wait == 60
    assert classify(Reply(429, {}, None), 0.0).wait is None


def test_gitlabs_error_bodies_read_as_one_line():
    assert error_message({"message": "404 Project Not Found"}) == "404 Project Not Found"
    assert error_message({"message": {"title": ["can't be blank"]}}) == "title can't be blank"
    assert error_message({"error": "title is missing"}) == "title is missing"
    assert error_message("Retry later\n") == "Retry later"


def test_no_spacing_above_half_the_budget_or_after_the_window():
    assert spacing(Window(2000, 1500, 160), 100) == 0
    assert spacing(Window(2000, 10, 90), 100) == 0


def test_below_half_the_rest_of_the_window_is_shared():
    assert spacing(Window(2000, 20, 160), 100) == pytest.approx(3.0)
    assert spacing(Window(2000, 0, 160), 100) == 60


def test_the_pacer_bounds_every_wait():
    now = [100.0]
    slept: list[float] = []
    pacer = GitLabPacer(
        GitLabPacingPolicy(max_wait=2, max_pause=5), clock=lambda: now[0], sleep=slept.append
    )
    pacer.observe({"ratelimit-limit": "10", "ratelimit-remaining": "1", "ratelimit-reset": "160"})
    assert pacer.interval() == 2
    assert pacer.pause(999, "429") == 5


def test_a_project_path_is_encoded_whole():
    assert project_id("group/sub/app") == "group%2Fsub%2Fapp"
    assert project_id(42) == "42"


def test_the_token_comes_from_the_environment_or_one_line_says_where():
    assert token_from_env({"GITLAB_TOKEN": "b", "RALPH_GITLAB_TOKEN": "a"}) == "a"
    assert token_from_env({"GITLAB_TOKEN": "b"}) == "b"
    with pytest.raises(ConfigError, match="RALPH_GITLAB_TOKEN") as caught:
        token_from_env({})
    assert "\n" not in str(caught.value)


def node(**fields):
    return {"iid": 7, "title": "T", "state": "opened", "labels": [], **fields}


def test_ralph_fields_are_read_from_labels_and_hidden_from_the_rest():
    issue = issue_from(
        node(
            labels=[
                "ui",
                "ralph::In Review",
                "ralph-estimate::L",
                "ralph-priority::P0",
                "ralph-parent::3",
            ]
        )
    )
    assert issue.workflow_state is WorkflowState.IN_REVIEW
    assert (issue.estimate, issue.priority, issue.parent) == (Estimate.L, Priority.P0, 3)
    assert issue.labels == ("ui",)


def test_labels_a_person_mistyped_read_as_no_value():
    issue = issue_from(node(labels=["ralph::Doing", "ralph-estimate::XXL", "ralph-parent::x"]))
    assert (issue.workflow_state, issue.estimate, issue.parent) == (None, None, None)


def test_a_closed_issue_without_a_reason_label_was_completed():
    closed = issue_from(node(state="closed", closed_at="2026-01-01T00:00:00.000Z"))
    assert closed.close_reason is CloseReason.COMPLETED
    assert closed.closed_at == 1767225600.0
    planned = issue_from(node(state="closed", labels=["ralph-closed::not_planned"]))
    assert planned.close_reason is CloseReason.NOT_PLANNED


def test_ralphs_operation_marker_is_taken_off_the_text():
    issue = issue_from(node(description="as typed\n\n<!-- ralph:op=abc -->"))
    assert issue.body == "as typed"
