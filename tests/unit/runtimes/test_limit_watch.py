"""A CLI sitting out its provider's long wait, or retrying a limit again and again, is
seen in its live output and stopped; a short retry is left to the CLI."""

from __future__ import annotations

import json

from ralph.runtimes._limit_watch import LimitWatch

NOW = 1_000_000.0


def watch(output: str) -> LimitWatch:
    return LimitWatch(output, clock=lambda: NOW)


def retry(status: int, delay_ms: int, attempt: int = 1) -> str:
    frame = {
        "type": "system",
        "subtype": "api_retry",
        "attempt": attempt,
        "max_retries": 10,
        "retry_delay_ms": delay_ms,
        "error_status": status,
        "error": {529: "overloaded", 429: "rate_limit"}.get(status, "server_error"),
    }
    return json.dumps(frame) + "\n"


def test_claude_code_retrying_an_overload_is_stopped_at_the_third_retry():
    seen = watch("claude")
    assert seen.line(retry(529, 600)) is None
    assert seen.line(retry(529, 1200, 2)) is None
    limit = seen.line(retry(529, 2100, 3))
    assert limit is not None
    assert limit.resets_at == 0  # an overload says no time


def test_claude_code_waiting_long_on_a_429_is_stopped_at_once_with_the_wait():
    limit = watch("claude").line(retry(429, 45_000))
    assert limit is not None
    assert limit.resets_at == NOW + 45


def test_claude_codes_other_retries_are_not_limits():
    assert watch("claude").line(retry(500, 45_000)) is None


def test_gemini_cli_waiting_on_a_quota_is_stopped_with_the_providers_wait():
    seen = watch("gemini")
    lines = [
        "Attempt 1 failed: You exceeded your current quota, please check your plan.",
        "* Quota exceeded for metric: generate_content_free_tier_requests, limit: 5",
        "Please retry in 110.73s.",
        "Suggested retry after 110s.. Retrying after 125195ms...",
    ]
    found = [seen.line(line + "\n", stderr=True) for line in lines]
    assert found[:3] == [None, None, None]
    assert found[3] is not None
    assert found[3].resets_at == NOW + 110.73
    assert "Retrying" not in found[3].said


def test_gemini_clis_short_retry_is_left_to_it():
    seen = watch("gemini")
    seen.line("Attempt 1 failed: You exceeded your current quota.\n", stderr=True)
    assert seen.line("Please retry in 2s.. Retrying after 2300ms...\n", stderr=True) is None


def test_opencode_logging_a_limit_with_a_long_wait_is_stopped():
    line = (
        'timestamp=2026-12-07T05:41:09Z level=ERROR message="stream error" providerID=fake '
        'error.error="AI_APICallError: Rate limit reached for fake-model. Please try again '
        'in 1m21s. Visit https://platform.openai.com/account/rate-limits to learn more."\n'
    )
    limit = watch("opencode").line(line, stderr=True)
    assert limit is not None
    assert limit.resets_at == NOW + 81
    assert limit.said.startswith("Rate limit reached")
    # What it prints on standard output is its events, not its logs.
    assert watch("opencode").line(line) is None
