"""A step's reads shared with the run that follows it (issue 49): a caller's snapshot of
the step so far gives the run its first reads, and is ended before the agent's turn as
the run's own is, so what a person does meanwhile is seen (on the fake GitHub)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from ralph.config import Config, GitHubSettings
from ralph.demo import create_sample_repository
from ralph.git import GitRepo
from ralph.github.fake import FakeGitHub
from ralph.phases import PhaseRunner, PhaseStatus
from ralph.project import Project
from ralph.runtimes import AgentBrief, AgentResult, Limits
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import open_store
from ralph.tracker import GitHubCodeHost, GitHubTracker
from ralph.workflow import Estimate, WorkflowState

from ..conftest import GitProject
from ..tracker.conftest import github_tracker, github_tracker_as

pytestmark = pytest.mark.timeout(120)


class _PersonMovesDuringTheTurn(ScriptedRuntime):
    """The scripted agents; while the first one works, a person moves issue ``number``."""

    def __init__(self, person: GitHubTracker, number: int) -> None:
        super().__init__({}, env={})
        self.person = person
        self.number = number
        self.moved = False
        #: How many requests GitHub had when the agent's turn began.
        self.at_turn = 0

    def run(self, brief: AgentBrief) -> AgentResult:
        if not self.moved:
            self.moved = True
            fake = self.person.client.transport
            assert isinstance(fake, FakeGitHub)
            self.at_turn = len(fake.requests)
            self.person.set_state(self.number, "Human Needed", command="human")
        return super().run(brief)


@pytest.fixture
def on_github(tmp_path: Path, clock) -> Iterator[tuple[Project, GitHubTracker]]:
    create_sample_repository(tmp_path / "sample")
    repo = GitProject(tmp_path / "sample")
    tracker = github_tracker(repo.path, clock)
    settings = GitHubSettings(owner="acme", repo="project", project=tracker.project_number)
    config = Config(
        root=repo.path,
        repo="project",
        tracker="github",
        github=settings,
        test_command=f"{sys.executable} -m unittest -q",
    )
    project = Project(
        config, tracker, GitHubCodeHost.of(tracker), open_store("memory://"), GitRepo(repo.path)
    )
    yield project, tracker
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    assert fake.internal_errors == []


def test_a_run_given_the_steps_snapshot_reads_nothing_again_and_ends_it_for_the_agent(
    on_github,
):
    project, tracker = on_github
    number = tracker.create_issue(
        "Add a farewell",
        body="Say goodbye.",
        state=WorkflowState.RESEARCH_NEEDED,
        estimate=Estimate.XS,
    ).number
    person = github_tracker_as(tracker, "alice")
    runtime = _PersonMovesDuringTheTurn(person, number)
    runner = PhaseRunner(
        project,
        runtime,
        owner="test",
        max_attempts=1,
        limits=Limits(timeout_seconds=30),
        today=lambda: date(2026, 11, 22),
    )
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    with contextlib.ExitStack() as reading:
        reading.enter_context(tracker.snapshot())
        tracker.get_issue(number)  # the step's look before the run
        since = len(fake.requests)
        outcome = runner.run("research", number, reading=reading)
    before = [r.name for r in fake.requests[since : runtime.at_turn] if not r.mutation]
    assert before == []  # the lock move and the brief read what the step read
    assert outcome.status is PhaseStatus.MOVED, outcome  # read afresh after the turn
    assert tracker.get_issue(number).workflow_state is WorkflowState.HUMAN_NEEDED
