"""Each provider's "not now", as the agent CLIs print it, read into a limit and its reset."""

from __future__ import annotations

import datetime
import json
from zoneinfo import ZoneInfo

import pytest

from ralph.runtimes._provider_limits import (
    from_body,
    from_headers,
    from_rate_limit_event,
    from_text,
    said,
)

UTC = datetime.UTC
#: 2026-12-07 05:00:00 UTC, a Monday.
NOW = datetime.datetime(2026, 12, 7, 5, 0, tzinfo=UTC).timestamp()


def at(hour: int, minute: int = 0, *, day: int = 7, month: int = 12, zone=UTC) -> float:
    return datetime.datetime(2026, month, day, hour, minute, tzinfo=zone).timestamp()


def test_claude_subscriptions_older_words_carry_the_reset_as_epoch_seconds():
    found = from_text("Claude AI usage limit reached|1796626800", NOW)
    assert found is not None
    assert found.resets_at == 1796626800


@pytest.mark.parametrize(
    ("text", "resets_at"),
    [
        ("You've hit your session limit · resets 3pm (Europe/London)", at(15)),
        ("5-hour limit reached ∙ resets 11:30am (Asia/Calcutta)", at(6)),
        ("Limit reached · resets 4am (UTC) · /upgrade to Max", at(4, day=8)),
        ("You've hit your weekly limit · resets Dec 9, 5pm (UTC)", at(17, day=9)),
        ("Claude usage limit reached. Your limit will reset at 3pm (America/Bogota).", at(20)),
    ],
)
def test_claude_subscriptions_newer_words_name_a_time_of_day_in_a_zone(text, resets_at):
    found = from_text(text, NOW)
    assert found is not None
    assert found.resets_at == resets_at


def test_a_time_of_day_without_a_zone_is_the_machines():
    paris = ZoneInfo("Europe/Paris")
    found = from_text("You've hit your session limit · resets 7pm", NOW, zone=paris)
    assert found is not None
    assert found.resets_at == at(19, zone=paris)


def test_anthropic_rate_limit_and_overload_answers_are_limits_without_a_reset():
    rate = from_text(
        "API Error: Request rejected (429) · This request would exceed the rate limit for "
        "your organization of 50 requests per minute.",
        NOW,
        status=429,
    )
    assert rate is not None
    assert rate.resets_at == 0
    assert rate.said.startswith("API Error: Request rejected (429)")
    overloaded = from_text("API Error: Repeated 529 Overloaded errors", NOW, status=529)
    assert overloaded is not None
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert from_body(body, NOW) is not None


def test_anthropic_headers_say_when_the_limit_lifts():
    assert from_headers({"retry-after": "42"}, NOW) == NOW + 42
    assert from_headers({"anthropic-ratelimit-unified-reset": "1796626800"}, NOW) == 1796626800
    stamps = {
        "anthropic-ratelimit-requests-reset": "2026-12-07T05:00:30Z",
        "anthropic-ratelimit-input-tokens-reset": "2026-12-07T05:01:00Z",
    }
    assert from_headers(stamps, NOW) == NOW + 60
    assert from_headers({"retry-after": "Mon, 07 Dec 2026 05:02:00 GMT"}, NOW) == NOW + 120
    assert from_headers({"content-type": "application/json"}, NOW) == 0


def test_claude_codes_rate_limit_event_is_a_limit_only_when_rejected():
    info = {"status": "rejected", "resetsAt": 1796626800, "rateLimitType": "five_hour"}
    found = from_rate_limit_event(info)
    assert found is not None
    assert found.resets_at == 1796626800
    assert "five hour" in found.said
    assert from_rate_limit_event({**info, "status": "allowed_warning"}) is None


@pytest.mark.parametrize(
    ("wait", "seconds"), [("20s", 20), ("1.5s", 1.5), ("1m30s", 90), ("250ms", 0.25)]
)
def test_openai_rate_limits_say_how_long_to_wait(wait, seconds):
    text = (
        "Rate limit reached for gpt-5 in organization org-x on tokens per min (TPM): Limit "
        f"30000, Used 29000, Requested 2400. Please try again in {wait}. Visit https://"
        "platform.openai.com/account/rate-limits to learn more."
    )
    found = from_text(text, NOW)
    assert found is not None
    assert found.resets_at == pytest.approx(NOW + seconds)
    assert from_headers({"x-ratelimit-reset-tokens": wait}, NOW) == pytest.approx(NOW + seconds)


def test_codex_says_a_429_whose_wait_it_dropped():
    found = from_text("exceeded retry limit, last status: 429 Too Many Requests", NOW)
    assert found is not None
    assert found.resets_at == 0


@pytest.mark.parametrize(
    ("text", "resets_at"),
    [
        (
            "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), "
            "visit https://chatgpt.com/settings/usage to purchase more credits or try again "
            "at 5:30 AM.",
            at(5, 30),
        ),
        (
            "You've hit your usage limit. Upgrade to Plus to continue using Codex, or try "
            "again at Jul 5th, 2027 8:19 PM.",
            datetime.datetime(2027, 7, 5, 20, 19, tzinfo=UTC).timestamp(),
        ),
        (
            "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) "
            "or try again in 2 days 17 hours 14 minutes.",
            NOW + 2 * 86400 + 17 * 3600 + 14 * 60,
        ),
    ],
)
def test_codex_usage_limit_words_name_the_reset(text, resets_at):
    found = from_text(text, NOW, zone=UTC)
    assert found is not None
    assert found.resets_at == resets_at


def test_codex_usage_limit_body_carries_the_reset():
    error = {
        "type": "usage_limit_reached",
        "message": "The usage limit has been reached",
        "plan_type": "plus",
        "resets_at": 1796626800,
        "resets_in_seconds": 6000,
    }
    found = from_body({"error": error}, NOW)
    assert found is not None
    assert found.resets_at == 1796626800
    without = {k: v for k, v in error.items() if k != "resets_at"}
    assert from_body({"error": without}, NOW).resets_at == NOW + 6000  # type: ignore[union-attr]


GEMINI_429 = {
    "error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan and billing "
        "details.\n* Quota exceeded for metric: generate_content_free_tier_requests, limit: "
        "5, model: gemini-2.5-pro\nPlease retry in 12.3s.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "12s"},
        ],
    }
}


def test_gemini_quota_answers_say_the_wait_to_the_tenth_of_a_second():
    found = from_body(GEMINI_429, NOW)
    assert found is not None
    assert found.resets_at == pytest.approx(NOW + 12.3)
    found = from_text(f"[API Error: {json.dumps(GEMINI_429)}]", NOW)
    assert found is not None
    assert found.resets_at == pytest.approx(NOW + 12.3)


def test_gemini_clis_retry_line_and_daily_quota():
    line = (
        "Attempt 1 failed: You exceeded your current quota ... Please retry in 110.73s. "
        "Suggested retry after 110s.. Retrying after 125195ms..."
    )
    found = from_text(line, NOW)
    assert found is not None
    assert found.resets_at == pytest.approx(NOW + 110.73)
    daily = from_text("You have exhausted your daily quota on this model.", NOW)
    assert daily is not None
    assert daily.resets_at == 0


def test_opencodes_words_for_a_provider_that_refused():
    assert from_text("Provider is overloaded", NOW) is not None
    assert from_text("Too Many Requests", NOW) is not None
    body = {"error": {"message": "Slow down", "type": "tokens", "code": "rate_limit_exceeded"}}
    found = from_text(f"AI_APICallError: {json.dumps(body)}", NOW)
    assert found is not None


@pytest.mark.parametrize(
    "text",
    [
        "Your credit balance is too low to access the Anthropic API.",
        "You exceeded your current quota: insufficient_quota",
        "You've hit your monthly spend limit.",
        "the fake refuses this request",
        "issue 429 is done",
        "quota exceeded",
        "You exceeded your current quota, please check your plan and billing details.",
        "API Error: context limit reached, compact the conversation",
        "",
    ],
)
def test_other_failures_and_limits_that_waiting_does_not_lift_are_not_provider_limits(text):
    assert from_text(text, NOW) is None


def test_what_the_provider_said_is_kept_short_on_one_line_and_without_control_characters():
    words = said("Rate limit\x1b[31m reached\n" + "x" * 1000)
    assert "\x1b" not in words
    assert "\n" not in words
    assert len(words) <= 240


def test_a_quota_the_account_does_not_have_is_not_waited_out():
    said = (
        "Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_"
        "tier_requests, limit: 0, model: gemini-2.5-pro. Please retry in 41.2s."
    )
    assert from_text(said, 1_000.0) is None
