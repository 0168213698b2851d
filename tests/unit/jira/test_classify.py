"""What a Jira answer means: by its status, with the wait a 429 or 503 names."""

from __future__ import annotations

import pytest

from ralph._graphql_http import Reply
from ralph.jira import ResponseKind, classify_reply, wait_of
from ralph.jira._classify import error_text

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (200, ResponseKind.OK),
        (204, ResponseKind.OK),
        (400, ResponseKind.INVALID),
        (401, ResponseKind.AUTH),
        (403, ResponseKind.FORBIDDEN),
        (404, ResponseKind.NOT_FOUND),
        (409, ResponseKind.INVALID),
        (429, ResponseKind.RATE_LIMITED),
        (500, ResponseKind.INDETERMINATE),
        (503, ResponseKind.INDETERMINATE),
    ],
)
def test_the_status_decides_the_kind(status, kind):
    assert classify_reply(Reply(status, {}, None), NOW).kind is kind


def test_retry_after_is_the_wait_of_a_429():
    outcome = classify_reply(Reply(429, {"retry-after": "7"}, None), NOW)
    assert outcome.wait == 7.0


def test_without_retry_after_the_reset_time_says_the_wait():
    # 2027-01-15T08:00Z is NOW (2027-01-15T08:00:00Z) plus nothing; a minute later is 60 s.
    headers = {"x-ratelimit-reset": "2027-01-15T08:01Z"}
    assert wait_of(headers, NOW) == pytest.approx(60.0)


def test_a_429_naming_no_wait_leaves_the_wait_to_the_client():
    assert classify_reply(Reply(429, {}, None), NOW).wait is None


def test_jira_error_words_come_in_one_line():
    body = {"errorMessages": ["Bad request"], "errors": {"summary": "too long"}}
    assert error_text(body) == "Bad request; summary: too long"
    assert classify_reply(Reply(400, {}, body), NOW).message == "Bad request; summary: too long"
