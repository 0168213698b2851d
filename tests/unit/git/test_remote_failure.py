"""A fetch or push that failed: what only a person can fix (no such host, no access, no
such repository) is told apart from what may pass by itself, and a URL's credentials
are never part of the message."""

from __future__ import annotations

import pytest

from ralph.errors import GitError, NeedsPerson
from ralph.git import RemoteRefused
from ralph.git._repo import remote_failure

FETCH = "fetch main from origin"


@pytest.mark.parametrize(
    "stderr",
    [
        "fatal: unable to access 'https://example.invalid/x.git/': Could not resolve host: "
        "example.invalid",
        "remote: Invalid username or password.\nfatal: Authentication failed for "
        "'https://github.com/o/r.git/'",
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote "
        "repository.",
        "remote: Repository not found.\nfatal: repository 'https://github.com/o/r.git/' not found",
        "fatal: '/nowhere/x.git' does not appear to be a git repository",
    ],
)
def test_a_remote_only_a_person_can_fix_is_a_refusal_not_retried(stderr: str):
    error = remote_failure(FETCH, stderr)
    assert isinstance(error, RemoteRefused)
    assert isinstance(error, NeedsPerson)
    assert str(error).startswith(f"could not {FETCH}: ")
    assert str(error).endswith("; fix the remote or its credentials (git remote -v)")
    assert "\n" not in str(error)


@pytest.mark.parametrize(
    "stderr",
    [
        "fatal: unable to access 'https://github.com/o/r.git/': Failed to connect to "
        "github.com port 443 after 130000 ms: Connection timed out",
        "error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502",
        "fatal: the remote end hung up unexpectedly",
        "",
    ],
)
def test_a_failure_that_may_pass_by_itself_stays_a_git_error_to_retry(stderr: str):
    error = remote_failure(FETCH, stderr)
    assert type(error) is GitError
    assert str(error).startswith(f"could not {FETCH}: ")


def test_a_urls_user_and_password_are_never_said():
    stderr = (
        "fatal: unable to access 'https://ralph-user:hunter2pw@example.invalid/x.git/': "
        "Could not resolve host: example.invalid"
    )
    said = str(remote_failure(FETCH, stderr))
    assert "hunter2pw" not in said
    assert "ralph-user" not in said
    assert "'https://example.invalid/x.git/'" in said
