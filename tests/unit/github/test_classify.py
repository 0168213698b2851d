"""What each kind of GitHub answer means."""

from __future__ import annotations

import pytest

from ralph.github import Reply, ResponseKind, classify_response

NOW = 1_000_000.0


def reply(status=200, body=None, **headers):
    return Reply(status, {k.replace("_", "-"): v for k, v in headers.items()}, body)


def test_data_without_errors_is_ok():
    outcome = classify_response(reply(body={"data": {"viewer": {"login": "a"}}}), NOW)
    assert (outcome.kind, outcome.data) == (ResponseKind.OK, {"viewer": {"login": "a"}})


def test_a_403_with_retry_after_is_rate_limited_for_that_long():
    outcome = classify_response(reply(403, {"message": "slow down"}, retry_after="7"), NOW)
    assert (outcome.kind, outcome.wait) == (ResponseKind.RATE_LIMITED, 7.0)


def test_primary_limit_in_a_200_waits_until_the_reset_plus_a_second():
    body = {
        "data": None,
        "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}],
    }
    answer = reply(200, body, x_ratelimit_remaining="0", x_ratelimit_reset=str(int(NOW) + 30))
    outcome = classify_response(answer, NOW)
    assert (outcome.kind, outcome.wait) == (ResponseKind.RATE_LIMITED, 31.0)


def test_a_secondary_limit_without_headers_names_no_wait():
    body = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
    outcome = classify_response(reply(403, body), NOW)
    assert (outcome.kind, outcome.wait) == (ResponseKind.RATE_LIMITED, None)


def test_a_secondary_limit_can_arrive_as_a_200_with_errors():
    body = {"errors": [{"message": "You have exceeded a secondary rate limit"}]}
    assert classify_response(reply(200, body), NOW).kind is ResponseKind.RATE_LIMITED


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, {"message": "Bad credentials"}, ResponseKind.AUTH),
        (403, {"message": "Resource not accessible by integration"}, ResponseKind.AUTH),
        (422, {"message": "Validation failed"}, ResponseKind.INVALID),
        (502, None, ResponseKind.INDETERMINATE),
        (504, {"message": "Gateway Timeout"}, ResponseKind.INDETERMINATE),
        (404, {"message": "Not Found"}, ResponseKind.NOT_FOUND),
    ],
)
def test_http_statuses_are_sorted(status, body, kind):
    assert classify_response(reply(status, body), NOW).kind is kind


def test_graphql_errors_are_sorted_by_type():
    def kind_of(errors, data=None):
        return classify_response(reply(200, {"data": data, "errors": errors}), NOW).kind

    assert (
        kind_of([{"type": "NOT_FOUND", "message": "x"}], {"repository": None})
        is ResponseKind.NOT_FOUND
    )
    assert kind_of([{"type": "INSUFFICIENT_SCOPES", "message": "x"}]) is ResponseKind.AUTH
    assert kind_of([{"message": "Something went wrong while executing your query."}]) is (
        ResponseKind.INDETERMINATE
    )
    assert kind_of([{"message": "Field 'x' doesn't exist"}]) is ResponseKind.INVALID


def test_data_beside_errors_is_partial_and_keeps_the_data():
    body = {"data": {"repository": {"id": "R_1"}}, "errors": [{"type": "X", "message": "limit"}]}
    outcome = classify_response(reply(200, body), NOW)
    assert (outcome.kind, outcome.data) == (ResponseKind.PARTIAL, {"repository": {"id": "R_1"}})


def test_a_200_without_json_is_indeterminate():
    assert classify_response(reply(200, None), NOW).kind is ResponseKind.INDETERMINATE


def test_the_content_creation_throttle_graphql_sends_as_a_200_is_a_rate_limit():
    body = {
        "data": {"createIssue": None},
        "errors": [
            {
                "type": "UNPROCESSABLE",
                "path": ["createIssue"],
                "message": "was submitted too quickly",
            }
        ],
    }
    outcome = classify_response(reply(200, body), NOW)
    assert (outcome.kind, outcome.wait, outcome.content_throttle) == (
        ResponseKind.RATE_LIMITED,
        None,
        True,
    )


def test_other_unprocessable_answers_stay_invalid():
    body = {"errors": [{"type": "UNPROCESSABLE", "message": "Title can't be blank"}]}
    outcome = classify_response(reply(200, body), NOW)
    assert (outcome.kind, outcome.content_throttle) == (ResponseKind.INVALID, False)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (200, {"errors": [{"type": "RESOURCE_LIMITS_EXCEEDED", "message": "too much"}]}),
        (200, {"errors": [{"message": "Timeout on validation of query"}]}),
        (502, {"message": "We couldn't respond to your request in time. Sorry about that."}),
        (504, {"message": "We couldn't respond to your request in time"}),
    ],
)
def test_a_query_stopped_for_its_size_or_time_is_too_large(status, body):
    assert classify_response(reply(status, body), NOW).kind is ResponseKind.TOO_LARGE
