"""``ralph init --linear`` when Linear cannot be reached or refuses the key: soon, one
line naming the problem and what to do, no log lines, a failure, nothing written."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from ralph.linear.fake import FakeLinear

from ..conftest import ralph_process

pytestmark = pytest.mark.timeout(120)

KEY = "lin_api_init_failures_key"


@pytest.fixture
def served() -> Iterator[tuple[FakeLinear, str]]:
    fake = FakeLinear()
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    with fake.serve() as url:
        yield fake, url


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (it was free a moment ago)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_linear_is_one_line_with_the_fix_soon_and_nothing_written(project):
    url = f"http://127.0.0.1:{closed_port()}/graphql"
    started = time.monotonic()
    made = ralph_process(
        "init",
        "--linear",
        "ENG",
        cwd=project.path,
        env={"RALPH_LINEAR_API_URL": url, "RALPH_LINEAR_TOKEN": KEY},
    )
    took = time.monotonic() - started
    assert made.returncode != 0
    assert made.stderr.strip().splitlines() == [made.stderr.strip()], made.stderr
    assert f"cannot reach Linear at {url}" in made.stderr
    assert "check the network and RALPH_LINEAR_API_URL" in made.stderr
    assert "WARNING" not in made.stderr + made.stdout
    assert "Traceback" not in made.stderr
    assert took < 10, took  # it used to retry for 15 s
    assert not (project.path / "ralph.toml").exists()


def test_a_wrong_key_at_init_says_where_to_get_one_and_changes_nothing(served, project):
    fake, url = served
    made = ralph_process(
        "init",
        "--linear",
        "ENG",
        cwd=project.path,
        env={"RALPH_LINEAR_API_URL": url, "RALPH_LINEAR_TOKEN": "lin_api_not_a_key"},
    )
    assert made.returncode != 0
    assert len(made.stderr.strip().splitlines()) == 1, made.stderr
    assert "Linear refused the API key in RALPH_LINEAR_TOKEN" in made.stderr
    assert "Settings → Security & access → Personal API keys" in made.stderr
    assert "lin_api_not_a_key" not in made.stderr
    assert "WARNING" not in made.stderr + made.stdout
    assert not (project.path / "ralph.toml").exists()
    assert not [r for r in fake.requests if r.mutation]


def test_the_refused_key_is_named_by_the_variable_it_came_from(served, project):
    _, url = served
    made = ralph_process(
        "init",
        "--linear",
        "ENG",
        cwd=project.path,
        env={"RALPH_LINEAR_API_URL": url, "LINEAR_API_KEY": "lin_api_not_a_key"},
    )
    assert made.returncode != 0
    assert "Linear refused the API key in LINEAR_API_KEY" in made.stderr, made.stderr
    assert not (project.path / "ralph.toml").exists()
