"""``ralph notify test`` sends a sample to what [notify] names and says what each answered
(exit 1 when one failed, 2 when nothing is set); ``ralph doctor`` checks the command and
the webhook without sending anything."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ralph.demo import create_sample_repository

from .conftest import Webhook, relay


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ralph_cli) -> Path:
    repo = create_sample_repository(tmp_path / "sample")
    monkeypatch.chdir(repo)
    assert ralph_cli("init")[0] == 0
    return repo


def test_notify_test_sends_a_sample_to_the_command_and_the_webhook(
    ralph_cli, sample: Path, webhook: Webhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_NOTIFY_WEBHOOK", webhook.url)
    monkeypatch.setenv("RALPH_NOTIFY_COMMAND", relay(sample, webhook))
    code, out, err = ralph_cli("notify", "test")
    assert code == 0, (out, err)
    lines = out.splitlines()
    assert lines[0].startswith("✓ command: delivered")
    assert lines[0].endswith("(exit 0)")
    assert lines[1].startswith("✓ webhook: delivered")
    assert "(127.0.0.1: HTTP 200)" in lines[1]
    relayed, posted = webhook.received
    assert posted["event"] == "test"
    assert json.loads(relayed["stdin"])["event"] == "test"


def test_notify_test_exits_1_saying_which_target_failed(
    ralph_cli, sample: Path, webhook: Webhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    webhook.statuses = [403]
    monkeypatch.setenv("RALPH_NOTIFY_WEBHOOK", webhook.url)
    monkeypatch.setenv("RALPH_NOTIFY_COMMAND", "exit 4")
    code, out, _ = ralph_cli("notify", "test")
    assert code == 1
    # How long each took is said when it is worth saying (bubblewrap takes a moment).
    assert [re.sub(r" in \d+\.\ds", "", line) for line in out.splitlines()] == [
        "✗ command: not delivered (exit 4)",
        "✗ webhook: not delivered (127.0.0.1: HTTP 403 Forbidden)",
    ]


def test_notify_test_with_nothing_set_says_how_to_set_it(ralph_cli, sample: Path) -> None:
    code, out, err = ralph_cli("notify", "test")
    assert code == 2
    assert out == ""
    assert err.startswith("ralph: error: nothing to notify: [notify] in ")
    assert "RALPH_NOTIFY_WEBHOOK" in err
    assert len(err.strip().splitlines()) == 1


def test_doctor_checks_the_targets_without_sending_anything(
    ralph_cli, sample: Path, webhook: Webhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_NOTIFY_WEBHOOK", webhook.url)
    monkeypatch.setenv("RALPH_NOTIFY_COMMAND", "cat > notified.json")
    _, out, _ = ralph_cli("doctor")
    port = webhook.url.split(":")[2].split("/")[0]
    assert f"✓ notify webhook: 127.0.0.1:{port} takes connections (nothing sent)" in out
    assert "✓ notify command: `cat > notified.json` (" in out
    assert webhook.received == []
    assert not (sample / "notified.json").exists()


def test_doctor_fails_for_a_missing_program_or_an_unreachable_webhook(
    ralph_cli, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_NOTIFY_WEBHOOK", "http://127.0.0.1:9/hook")
    monkeypatch.setenv("RALPH_NOTIFY_COMMAND", "./tell-me.sh --loud")
    code, out, _ = ralph_cli("doctor")
    assert code == 1
    assert "✗ notify command: ./tell-me.sh does not exist" in out
    assert "✗ notify webhook: 127.0.0.1:9 cannot be reached (Connection refused)" in out
    assert "✓ tracker: local" in out  # the other checks still ran


def test_doctor_says_when_nothing_is_set(ralph_cli, sample: Path) -> None:
    _, out, _ = ralph_cli("doctor")
    assert (
        "· notify: none set ([notify] command or webhook tells you when a person is needed)"
    ) in out.splitlines()
