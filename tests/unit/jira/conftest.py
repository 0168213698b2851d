"""A FakeJira site (one account, project PROJ with Ralph's statuses) and a client on it
in memory (the fake is a RestTransport: no socket)."""

from __future__ import annotations

import pytest

from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ralph_statuses

from ...conftest import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def fake(clock: FakeClock) -> FakeJira:
    fake = FakeJira(clock=clock)
    fake.add_account("ada@example.com", "token", "Ada Lovelace")
    fake.add_project("PROJ", "Project", ralph_statuses())
    return fake


@pytest.fixture
def client(fake: FakeJira, clock: FakeClock) -> JiraClient:
    return JiraClient(fake, clock=clock, sleep=clock.advance)
