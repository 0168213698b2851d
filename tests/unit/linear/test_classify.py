"""What each kind of Linear answer means."""

from __future__ import annotations

import pytest

from ralph.linear import Reply, ResponseKind, classify_response, reset_wait

#: A real epoch: Linear's resets are epoch milliseconds, told from seconds by size.
NOW = 1_800_000_000.0


def reply(status=200, body=None, **headers):
    return Reply(status, {k.replace("_", "-"): str(v) for k, v in headers.items()}, body)


def error(code, message="refused", type_=None):
    extensions = {"code": code, "type": type_ or code.lower().replace("_", " ")}
    return {"data": None, "errors": [{"message": message, "extensions": extensions}]}


def test_data_without_errors_is_ok():
    outcome = classify_response(reply(body={"data": {"viewer": {"id": "u1"}}}), NOW)
    assert (outcome.kind, outcome.data) == (ResponseKind.OK, {"viewer": {"id": "u1"}})


def test_ratelimited_in_a_400_is_rate_limited_not_invalid():
    """Linear answers a spent budget with HTTP 400 and extensions.code RATELIMITED."""
    answer = reply(
        400,
        error("RATELIMITED", "Rate limit exceeded"),
        x_ratelimit_requests_limit=1500,
        x_ratelimit_requests_remaining=0,
        x_ratelimit_requests_reset=int((NOW + 600) * 1000),
    )
    outcome = classify_response(answer, NOW)
    assert outcome.kind is ResponseKind.RATE_LIMITED
    assert outcome.code == "RATELIMITED"
    # One request's worth refills in an hour / 1500 = 2.4 s, well before the full reset.
    assert outcome.wait == pytest.approx(2.4)


def test_the_words_of_the_type_alone_are_enough():
    outcome = classify_response(reply(400, error("", type_="ratelimited")), NOW)
    assert outcome.kind is ResponseKind.RATE_LIMITED


def test_a_spent_complexity_budget_waits_for_the_requests_points():
    headers = {
        "x_ratelimit_complexity_limit": 250_000,
        "x_ratelimit_complexity_remaining": 1000,
        "x_ratelimit_complexity_reset": int((NOW + 3000) * 1000),
        "x_complexity": 3500,
    }
    outcome = classify_response(reply(400, error("RATELIMITED"), **headers), NOW)
    assert outcome.wait == pytest.approx(2500 * 3600 / 250_000)


def test_the_wait_never_passes_the_reset():
    headers = {
        "x_ratelimit_requests_limit": 10,
        "x_ratelimit_requests_remaining": 0,
        "x_ratelimit_requests_reset": int((NOW + 5) * 1000),
    }
    assert reset_wait(reply(**headers).headers, NOW) == pytest.approx(5.0)


def test_retry_after_wins_over_the_budgets():
    answer = reply(429, None, retry_after=7, x_ratelimit_requests_remaining=0)
    outcome = classify_response(answer, NOW)
    assert (outcome.kind, outcome.wait) == (ResponseKind.RATE_LIMITED, 7.0)


def test_a_rate_limit_without_headers_names_no_wait():
    outcome = classify_response(reply(400, error("RATELIMITED")), NOW)
    assert (outcome.kind, outcome.wait) == (ResponseKind.RATE_LIMITED, None)


def test_resets_in_seconds_are_read_as_seconds():
    headers = {"x_ratelimit_requests_remaining": 0, "x_ratelimit_requests_reset": int(NOW + 9)}
    assert reset_wait(reply(**headers).headers, NOW) == pytest.approx(9.0)


@pytest.mark.parametrize(
    ("status", "code", "kind"),
    [
        (400, "AUTHENTICATION_ERROR", ResponseKind.AUTH),
        (401, "", ResponseKind.AUTH),
        (400, "FORBIDDEN", ResponseKind.FORBIDDEN),
        (403, "", ResponseKind.FORBIDDEN),
        (400, "INVALID_INPUT", ResponseKind.INVALID),
        (400, "GRAPHQL_VALIDATION_FAILED", ResponseKind.INVALID),
        (200, "INTERNAL_ERROR", ResponseKind.INDETERMINATE),
        (200, "LOCK_TIMEOUT", ResponseKind.INDETERMINATE),
    ],
)
def test_the_code_decides_the_kind(status, code, kind):
    body = error(code) if code else None
    assert classify_response(reply(status, body), NOW).kind is kind


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_a_5xx_is_indeterminate_whatever_its_body(status):
    outcome = classify_response(reply(status, "<html>bad gateway</html>"), NOW)
    assert outcome.kind is ResponseKind.INDETERMINATE


def test_an_unknown_id_is_invalid_input_that_says_not_found():
    body = error("INVALID_INPUT", "Entity not found: Issue")
    outcome = classify_response(reply(400, body), NOW)
    assert (outcome.kind, outcome.not_found) == (ResponseKind.INVALID, True)


def test_a_200_without_data_is_indeterminate():
    assert classify_response(reply(200, None), NOW).kind is ResponseKind.INDETERMINATE


def test_the_message_carries_what_linear_shows_people():
    body = error("INVALID_INPUT", "Entity not found: Issue")
    body["errors"][0]["extensions"]["userPresentableMessage"] = "Could not find referenced Issue."
    outcome = classify_response(reply(400, body), NOW)
    assert "Could not find referenced Issue." in outcome.message
