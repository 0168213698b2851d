"""``python -m ralph.gitlab.fake`` (``make fake-gitlab``): a fake GitLab a person can
point Ralph at without an account, which says how and stops on Ctrl-C."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from ralph.gitlab import GitLabClient, https_transport

FAKE = (sys.executable, "-m", "ralph.gitlab.fake")


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[str], str, dict[str, str]]]:
    """The command on any free port, its first line and the exports it printed."""
    fake = subprocess.Popen(
        [*FAKE, "--port", "0", "--project", "ops/site"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None
        lines = [fake.stdout.readline() for _ in range(4)]
        exports = dict(re.findall(r"export (\w+)=(\S+)", "".join(lines)))
        yield fake, lines[0], exports
    finally:
        if fake.poll() is None:
            fake.kill()
        fake.communicate(timeout=30)


def test_it_serves_the_project_to_the_token_it_prints(served):
    _, first, exports = served
    url = re.search(r"at (http://127\.0\.0\.1:\d+)", first)
    assert url is not None
    assert set(exports) == {"RALPH_GITLAB_TOKEN"}
    client = GitLabClient(https_transport(url.group(1), timeout=10), exports["RALPH_GITLAB_TOKEN"])
    try:
        assert client.request("GET", "/projects/ops%2Fsite")["path_with_namespace"] == "ops/site"
    finally:
        client.close()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_it_cleanly(served, stop):
    fake, _, _ = served
    fake.send_signal(stop)
    _, err = fake.communicate(timeout=30)
    assert fake.returncode == 0
    assert err == ""


def test_without_gitlabs_document_it_says_in_one_line_where_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("RALPH_GITLAB_OPENAPI")
    run = subprocess.run([*FAKE, "--port", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert line.startswith(
        "the fake GitLab needs GitLab's REST API OpenAPI document: set RALPH_GITLAB_OPENAPI"
    )


def test_a_repository_that_is_no_work_tree_is_one_line(tmp_path):
    run = subprocess.run(
        [*FAKE, "--port", "0", "--repository", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"{tmp_path} is not a git work tree; name one with --repository"
    ]
