"""A fake GitLab (Premium, GitLab.com's limits) with one project and a client on it whose
waits move the fake clock instead of sleeping."""

from __future__ import annotations

import pytest

from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab

TOKEN = "glpat-test-token-0123456789"
PROJECT = "acme/app"
PID = "acme%2Fapp"


@pytest.fixture
def fake(clock) -> FakeGitLab:
    made = FakeGitLab(clock=clock)
    made.add_token(TOKEN, "ralph")
    made.add_project(PROJECT)
    return made


@pytest.fixture
def client(fake: FakeGitLab, clock) -> GitLabClient:
    return GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance)
