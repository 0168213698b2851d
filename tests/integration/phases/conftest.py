"""A sample project: a small Python package with tests in a real git repository, a local
tracker over SQLite, and a phase runner with the scripted agents."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from ralph.config import Config
from ralph.db import open_database
from ralph.demo import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.demo._sample import FAREWELL
from ralph.phases import PhaseOutcome, PhaseRunner
from ralph.project import Project, migrate_database, open_project
from ralph.runtimes import Limits
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.tracker import CodeHost, LocalTracker
from ralph.workflow import Estimate, WorkflowState

from ..conftest import GitProject

DAY = date(2026, 11, 22)


@dataclass
class Sample:
    repo: GitProject
    project: Project
    runtime: ScriptedRuntime

    @property
    def tracker(self) -> LocalTracker:
        assert isinstance(self.project.tracker, LocalTracker)
        return self.project.tracker

    @property
    def code_host(self) -> CodeHost:
        return self.project.code_host

    def runner(self, *faults: tuple[str, AgentFault], attempts: int = 2) -> PhaseRunner:
        if faults:
            queued: dict[str, list[AgentFault]] = {}
            for phase, fault in faults:
                queued.setdefault(phase, []).append(fault)
            self.runtime = ScriptedRuntime(queued, env={})
        return PhaseRunner(
            self.project,
            self.runtime,
            owner="test",
            max_attempts=attempts,
            limits=Limits(timeout_seconds=10),
            today=lambda: DAY,
        )

    def run(self, phase: str, number: int, *faults: tuple[str, AgentFault]) -> PhaseOutcome:
        return self.runner(*faults).run(phase, number)

    def state(self, number: int) -> WorkflowState | None:
        return self.tracker.get_issue(number).workflow_state

    def comments(self, number: int) -> list[str]:
        return [c.body for c in self.tracker.get_issue(number).comments]

    def epic(self) -> int:
        return self.tracker.create_issue(
            EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG, estimate=Estimate.M
        ).number

    def issue(
        self,
        title: str = "Add a farewell function",
        body: str = f"Add `farewell` to the core module.\n\n{FAREWELL}\n",
        state: WorkflowState = WorkflowState.RESEARCH_NEEDED,
        estimate: Estimate = Estimate.XS,
    ) -> int:
        return self.tracker.create_issue(title, body=body, state=state, estimate=estimate).number

    def through(self, number: int, *phases: str) -> None:
        """Run ``phases`` on ``number`` with a well-behaved agent; each must succeed."""
        for phase in phases:
            outcome = self.run(phase, number)
            assert outcome.status.value == "done", (phase, outcome)


@pytest.fixture
def sample(tmp_path: Path) -> Iterator[Sample]:
    """The demo's sample package without its epic, wired as ``ralph`` wires a project
    (``open_project``), with its store beside the repository."""
    create_sample_repository(tmp_path / "sample")
    repo = GitProject(tmp_path / "sample")
    config = Config(root=repo.path, repo="sample", test_command=f"{sys.executable} -m unittest -q")
    url = f"sqlite:///{tmp_path / 'ralph.db'}"
    with open_database(url) as db:
        migrate_database(db)
    with open_project(config, store_url=url) as project:
        yield Sample(repo, project, ScriptedRuntime(env={}))
