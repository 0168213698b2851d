"""How long an agent's work waits for its provider, and how a person reads that wait."""

from __future__ import annotations

import time

from ralph.orchestrate._provider_wait import (
    FIRST_BACKOFF_SECONDS,
    LONGEST_WAIT_SECONDS,
    MAX_BACKOFF_SECONDS,
    backoff_seconds,
    provider_wait_text,
    wait_ends,
)
from ralph.tasks import ProviderWait

NOW = 1_800_000_000.0


def test_a_first_limit_without_a_reset_waits_thirty_seconds():
    assert backoff_seconds(None, now=NOW) == FIRST_BACKOFF_SECONDS == 30.0


def test_a_limit_heard_again_soon_after_the_last_doubles_up_to_ten_minutes():
    waits = []
    previous = None
    now = NOW
    for _ in range(8):
        seconds = backoff_seconds(previous, now=now)
        waits.append(seconds)
        previous = ProviderWait(agent="claude", until=now + seconds, said="overloaded", at=now)
        now += seconds + 1  # heard again just after the wait ended
    assert waits == [30, 60, 120, 240, 480, 600, 600, 600]
    assert MAX_BACKOFF_SECONDS == 600


def test_a_limit_heard_long_after_the_last_starts_over():
    previous = ProviderWait(
        agent="claude", until=NOW - 3600, said="overloaded", at=NOW - 3600 - 480
    )
    assert backoff_seconds(previous, now=NOW) == 30


def test_a_reset_the_provider_named_stands_and_one_not_named_or_past_backs_off():
    assert wait_ends(NOW + 7200, None, now=NOW) == NOW + 7200
    assert wait_ends(0, None, now=NOW) == NOW + 30
    assert wait_ends(NOW - 5, None, now=NOW) == NOW + 30


def test_the_wait_reads_with_its_agent_the_local_time_and_what_the_provider_said():
    at = time.mktime((2026, 12, 7, 14, 5, 0, 0, 0, -1))
    wait = ProviderWait(agent="claude", until=at, said="usage limit reached")
    today = time.mktime((2026, 12, 7, 9, 0, 0, 0, 0, -1))
    assert provider_wait_text(wait, now=today) == (
        "waiting for the provider of claude until 14:05 (usage limit reached)"
    )
    tomorrow = time.mktime((2026, 12, 6, 9, 0, 0, 0, 0, -1))
    assert provider_wait_text(wait, now=tomorrow) == (
        "waiting for the provider of claude until 2026-12-07 14:05 (usage limit reached)"
    )


def test_what_the_provider_said_reaches_the_line_as_one_printable_line():
    wait = ProviderWait(agent="codex", until=NOW + 60, said="429\x1b[31m too many\nrequests")
    text = provider_wait_text(wait, now=NOW)
    assert "\x1b" not in text
    assert "\n" not in text
    assert text.startswith("waiting for the provider of codex until ")
    assert provider_wait_text(ProviderWait(agent="codex", until=NOW + 60), now=NOW).endswith(
        time.strftime("%H:%M", time.localtime(NOW + 60))
    )


def test_a_reset_past_the_longest_usage_window_is_taken_as_that_window():
    # A reset in milliseconds where seconds were meant is years ahead: it would never end.
    assert wait_ends(NOW * 1000, None, now=NOW) == NOW + LONGEST_WAIT_SECONDS
    assert LONGEST_WAIT_SECONDS == 8 * 86_400
