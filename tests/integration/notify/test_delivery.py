"""Sending one event, against a real HTTP server and a real command: the webhook is tried
again after a failure that may pass and not after a refusal, a command that hangs is
killed at its timeout, and the background notifier never makes its caller wait longer
than its bound."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ralph.config import NotifySettings
from ralph.notify import (
    BackgroundNotifier,
    EventKind,
    Notifier,
    NotifyEvent,
    notifier_for,
    post_webhook,
    run_command,
)

from .conftest import Webhook, relay

EVENT = NotifyEvent(
    event=EventKind.ESCALATED,
    summary="Ralph (shop): #7 Add login needs a person (plan): the plan\nhas two lines",
    repo="shop",
    issue=7,
    reason="the plan names no files",
)


def test_the_webhook_gets_the_events_fields_and_a_one_line_text(webhook: Webhook) -> None:
    sent = post_webhook(webhook.url, EVENT, timeout=5, retries=0)
    assert sent.ok
    assert sent.detail == "127.0.0.1: HTTP 200"
    (body,) = webhook.received
    assert (
        body["text"] == "Ralph (shop): #7 Add login needs a person (plan): the plan has two lines"
    )
    assert body["event"] == "escalated"
    assert body["issue"] == 7
    assert body["reason"] == "the plan names no files"
    assert set(body) >= {"event", "issue", "run", "summary", "reason", "url", "text"}


def test_a_server_error_is_tried_again_after_a_pause_and_then_delivered(webhook: Webhook) -> None:
    webhook.statuses = [503, 502]
    sent = post_webhook(webhook.url, EVENT, timeout=5, retries=3)
    assert sent.ok
    assert sent.attempts == 3
    # Pauses of 0.5 s and 1 s between the three tries.
    assert sent.seconds >= 1.5
    assert len(webhook.received) == 3


def test_a_refusal_is_not_tried_again_and_the_retries_end(webhook: Webhook) -> None:
    webhook.statuses = [404]
    refused = post_webhook(webhook.url, EVENT, timeout=5, retries=3)
    assert not refused.ok
    assert refused.attempts == 1
    assert refused.detail == "127.0.0.1: HTTP 404 Not Found"
    webhook.statuses = [500, 500, 500]
    failing = post_webhook(webhook.url, EVENT, timeout=5, retries=2)
    assert not failing.ok
    assert failing.attempts == 3
    assert "not delivered after 3 attempts" in failing.line()


def test_the_url_s_secret_path_is_never_said_only_its_host() -> None:
    dead = "http://127.0.0.1:9/services/T0/B0/sEcReTtOkEn42"
    sent = post_webhook(dead, EVENT, timeout=1, retries=0)
    assert not sent.ok
    assert "sEcReTtOkEn42" not in sent.line()
    assert sent.line().startswith("webhook: not delivered")


def test_a_command_reads_the_event_and_gets_the_summary_as_dollar_1(
    tmp_path: Path, webhook: Webhook
) -> None:
    sent = run_command(relay(tmp_path, webhook), EVENT, timeout=5, cwd=tmp_path)
    assert sent.ok, sent.detail
    (got,) = webhook.wait_for(1)
    assert json.loads(got["stdin"])["issue"] == 7
    assert got["summary"] == EVENT.one_line()


def test_a_failing_command_says_its_exit_and_stderr_and_a_hanging_one_is_killed() -> None:
    failed = run_command("echo 'no such channel' >&2; exit 3", EVENT, timeout=5)
    assert not failed.ok
    assert failed.detail == "exit 3: no such channel"
    started = time.monotonic()
    hung = run_command("sleep 30.25 & wait", EVENT, timeout=0.5)
    assert time.monotonic() - started < 3
    assert not hung.ok
    assert hung.detail == "killed after 0.5s"
    # What the command started went with it: its whole process group was killed.
    assert not running("sleep\x0030.25")


def running(cmdline: str) -> bool:
    """Whether a process with ``cmdline`` still runs within a second (a zombie waiting to
    be reaped has ended)."""
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline:
        alive = []
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if proc.joinpath("cmdline").read_bytes().rstrip(b"\0").decode() != cmdline:
                    continue
                if proc.joinpath("stat").read_text().rpartition(")")[2].split()[0] != "Z":
                    alive.append(proc)
            except OSError:
                continue
        if not alive:
            return False
        time.sleep(0.05)
    return True


def test_no_targets_mean_a_notifier_that_sends_nothing() -> None:
    assert type(notifier_for(NotifySettings())) is Notifier
    assert isinstance(notifier_for(NotifySettings(command="true")), BackgroundNotifier)


def test_notify_returns_at_once_and_close_waits_no_longer_than_its_bound(
    webhook: Webhook,
) -> None:
    webhook.delay = 30
    notifier = BackgroundNotifier(NotifySettings(webhook=webhook.url, timeout_seconds=0.5))
    started = time.monotonic()
    for _ in range(5):
        notifier.notify(EVENT)
    assert time.monotonic() - started < 0.2
    notifier.close()
    assert time.monotonic() - started < notifier.drain_seconds + 0.5
    assert webhook.received
    notifier.notify(EVENT)  # after close: dropped, never raises


def test_a_flood_of_events_is_cut_at_the_queue_s_size_not_waited_for(webhook: Webhook) -> None:
    webhook.delay = 30
    notifier = BackgroundNotifier(NotifySettings(webhook=webhook.url, timeout_seconds=0.2))
    started = time.monotonic()
    for _ in range(500):
        notifier.notify(EVENT)
    assert time.monotonic() - started < 1
    notifier.close()
