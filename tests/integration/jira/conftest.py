"""A FakeJira site (project PROJ with a status for each of Ralph's states) and a Jira
tracker on it in memory."""

from __future__ import annotations

import pytest

from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ralph_statuses
from ralph.tracker.jira import JiraTracker

from ...conftest import FakeClock

EMAIL = "ralph@example.com"
TOKEN = "jira-tracker-token"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def fake(clock: FakeClock) -> FakeJira:
    fake = FakeJira(clock=clock)
    fake.add_account(EMAIL, TOKEN, "ralph")
    fake.add_project("PROJ", "Project", ralph_statuses())
    return fake


@pytest.fixture
def client(fake: FakeJira, clock: FakeClock) -> JiraClient:
    return JiraClient(fake, clock=clock, sleep=clock.advance)


@pytest.fixture
def tracker(client: JiraClient, clock: FakeClock) -> JiraTracker:
    return JiraTracker(client, "PROJ", clock=clock)
