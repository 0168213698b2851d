"""A FakeLinear workspace with one t-shirt team (ENG, Linear's default states) and an
API key, and a client on it in memory (the fake is a Transport)."""

from __future__ import annotations

import pytest

from ralph.linear import LinearClient
from ralph.linear.fake import FakeLinear

from ...conftest import FakeClock

KEY = "lin_api_team_setup_key"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def fake(clock: FakeClock) -> FakeLinear:
    fake = FakeLinear(clock=clock)
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    return fake


@pytest.fixture
def client(fake: FakeLinear, clock: FakeClock) -> LinearClient:
    return LinearClient(fake, KEY, clock=clock, sleep=clock.advance)
