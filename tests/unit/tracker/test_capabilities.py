"""What callers ask a tracker instead of branching on its kind: each backend's answer,
and the base's for a tracker that keeps its issues itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from ralph.db import SqliteDatabase
from ralph.github import GitHubClient
from ralph.linear import LinearClient
from ralph.linear.fake import FakeLinear
from ralph.tracker import GitHubTracker, LocalTracker
from ralph.tracker.linear import LinearTracker, set_up_team


class _Client:
    """Enough of a client to build a GitHubTracker that is never asked to read."""

    def on_write(self, listener: Any) -> None:
        return None


def github() -> GitHubTracker:
    client = cast(GitHubClient, _Client())
    return GitHubTracker(client, owner="acme", repo="shop", project=3, project_owner="org")


@pytest.mark.timeout(30)
def test_the_github_tracker_is_remote_links_on_github_and_names_its_board() -> None:
    tracker = github()
    assert tracker.remote
    assert tracker.links_on_host
    assert tracker.escalation_handles() == ("@acme",)
    assert tracker.scope() == {"owner": "acme", "repo": "shop", "projectNumber": 3}
    assert tracker.reference(12) == "GH-12"


@pytest.mark.timeout(30)
def test_the_local_tracker_gives_the_defaults_and_checks_by_reading(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "ralph.db")
    try:
        tracker = LocalTracker(db, repo="shop")
        assert not tracker.remote
        assert not tracker.links_on_host
        assert tracker.escalation_handles() == ()
        assert tracker.scope() == {}
        assert tracker.reference(12) == "GH-12"  # as the original named issues
        assert tracker.settings() == {"tracker": "local", "repo": "shop"}
        (check,) = tracker.check()
        assert check.ok, check.detail
        assert (check.name, check.detail) == ("tracker", "local (repo shop); readable")
    finally:
        db.close()


@pytest.mark.timeout(30)
def test_the_linear_tracker_is_remote_links_documents_by_path_and_names_its_team() -> None:
    fake = FakeLinear()
    fake.add_token("lin_api_capabilities", "ralph")
    fake.add_team("ENG", "Engineering")
    client = LinearClient(fake, "lin_api_capabilities", sleep=lambda _: None)
    set_up_team(client, "ENG")
    tracker = LinearTracker(client, "eng")
    assert (tracker.kind, tracker.remote, tracker.links_on_host) == ("linear", True, False)
    assert tracker.escalation_handles() == ()
    assert tracker.scope() == {"team": "ENG"}
    assert tracker.reference(12) == "ENG-12"  # as Linear's people know it
    assert tracker.settings() == {"tracker": "linear", "team": "ENG"}
    checks = tracker.check()
    assert [c.name for c in checks][:3] == ["Linear API key", "team", "estimates"]
    assert all(c.ok for c in checks), [c.detail for c in checks if not c.ok]
