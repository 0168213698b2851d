"""The Jira tracker over HTTP: Basic credentials (email and API token) checked by the
fake served on 127.0.0.1, refused ones said without the token, and the fake's command
(``make fake-jira``) that prints what to export and stops on a signal."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from ralph.jira import HttpsTransport, JiraAuthError, JiraClient
from ralph.jira.fake import FakeJira
from ralph.tracker.jira import JiraTracker
from ralph.workflow import WorkflowState

from .conftest import EMAIL, TOKEN

FAKE = (sys.executable, "-m", "ralph.jira.fake")


@pytest.fixture
def site(fake: FakeJira) -> Iterator[str]:
    with fake.serve() as url:
        yield url


def test_the_tracker_works_over_http_with_basic_credentials(site: str):
    client = JiraClient(HttpsTransport(site, EMAIL, TOKEN, timeout=10))
    try:
        tracker = JiraTracker(client, "PROJ")
        tracker.create_issue("Over HTTP", body="line one\n\nline two", state=WorkflowState.BACKLOG)
        tracker.add_comment(1, "a comment")
        issue = tracker.get_issue(1)
        assert (issue.title, issue.body) == ("Over HTTP", "line one\n\nline two")
        assert issue.workflow_state is WorkflowState.BACKLOG
        assert [c.body for c in issue.comments] == ["a comment"]
    finally:
        client.close()


def test_a_refused_token_is_an_auth_error_that_never_shows_the_token(site: str):
    secret = "not-the-token-" + "x" * 12
    client = JiraClient(HttpsTransport(site, EMAIL, secret, timeout=10))
    try:
        with pytest.raises(JiraAuthError) as refused:
            client.myself()
    finally:
        client.close()
    assert secret not in str(refused.value)
    assert "refused the credentials" in str(refused.value)


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[str], str]]:
    fake = subprocess.Popen(
        [*FAKE, "--port", "0", "--project", "ops"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None
        lines = "".join(fake.stdout.readline() for _ in range(4))
        yield fake, lines
    finally:
        if fake.poll() is None:
            fake.kill()
        fake.communicate(timeout=30)


def test_the_command_serves_a_project_and_says_what_to_export(served):
    _, printed = served
    url = re.search(r"at (http://127\.0\.0\.1:\d+)", printed)
    token = re.search(r"export RALPH_JIRA_TOKEN=(\S+)", printed)
    email = re.search(r"--jira-email (\S+)", printed)
    assert url, printed
    assert token, printed
    assert email, printed
    client = JiraClient(HttpsTransport(url.group(1), email.group(1), token.group(1), timeout=10))
    try:
        assert all(c.ok for c in JiraTracker(client, "OPS").check())
    finally:
        client.close()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_the_command_cleanly(served, stop):
    fake, _ = served
    fake.send_signal(stop)
    _, err = fake.communicate(timeout=30)
    assert fake.returncode == 0
    assert err == ""


def test_without_the_published_document_the_command_says_which_file_in_one_line():
    env = {k: v for k, v in os.environ.items() if k != "RALPH_JIRA_OPENAPI"}
    done = subprocess.run(
        [*FAKE, "--port", "0"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "RALPH_JIRA_OPENAPI" in done.stderr
