"""A pull request that cannot be created after its attempts leaves its issue needing a
person, and the board says so: Human Needed, with the reason on the issue, never In
Progress with nobody asked to act."""

from __future__ import annotations

import dataclasses
import os
import socket

import pytest

from ralph.config import HookSettings
from ralph.workflow import WorkflowState

from .conftest import Demo


@pytest.fixture(autouse=True)
def _refused_retried_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused phase is tried again after 5 s; the wait is not the point.
    monkeypatch.setattr("ralph.orchestrate._execute.REFUSED_RETRY_SECONDS", 0.5)


def test_a_pull_request_refused_on_every_attempt_escalates_its_issue(demo: Demo):
    # A hook that formats the agent's code after it ran edits a tracked file: the
    # worktree has uncommitted work nobody committed, so the pull request is refused.
    hooks = HookSettings(after_run="echo '# formatted' >> greet/core.py")
    demo.project = dataclasses.replace(
        demo.project, config=dataclasses.replace(demo.project.config, hooks=hooks)
    )
    number = demo.issue("farewell")
    result = demo.hero(number)
    assert demo.statuses(result)[f"pr:{number}"] != "done"
    assert demo.state(number) is WorkflowState.HUMAN_NEEDED
    escalation = [
        c.body for c in demo.project.tracker.get_issue(number).comments if "Escalation:" in c.body
    ]
    assert escalation, "the issue says why it needs a person"
    assert "uncommitted changes left in the worktree: greet/core.py" in escalation[-1]


def test_an_issue_another_run_holds_is_waited_for_never_escalated(demo: Demo):
    """Its lock held by a live run the whole time, a task runs out of attempts: the issue
    stays where that run has it, as that run is working on it."""
    number = demo.issue("farewell")
    repo = demo.project.config.repo or demo.project.git.path.name
    holder = f"{socket.gethostname()}:{os.getpid()}/another-run"
    demo.project.store.acquire_issue_lock(repo, number, holder, "t", lease_seconds=600)
    result = demo.hero(number)
    assert demo.statuses(result)[f"research:{number}"] != "done"
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED
    assert not any("Escalation:" in c.body for c in demo.project.tracker.get_issue(number).comments)
