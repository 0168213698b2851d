"""A demo project (the sample package in git, ralph.toml, local tracker over SQLite) for
orchestration tests, and helpers that read what a run left behind."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.demo import demo_project
from ralph.demo._sample import EXPORT, FAREWELL, TEST_FAREWELL
from ralph.orchestrate import (
    RunReport,
    SessionOptions,
    SessionResult,
    hero_crew,
    load_report,
    run_session,
    team_crew,
)
from ralph.project import Project
from ralph.runtimes import AgentRuntime
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import Estimate, WorkflowState

BODIES = {
    "farewell": ("Add a farewell function", f"Add `farewell` to the core module.\n\n{FAREWELL}\n"),
    "export": ("Export farewell", f"Make `greet.farewell` importable.\n\n{EXPORT}\n"),
    "test": ("Test the farewell", f"Cover `farewell` in the tests.\n\n{TEST_FAREWELL}\n"),
}


@dataclass
class Demo:
    project: Project
    epic: int
    folder: Path

    def issue(self, which: str, *, state: WorkflowState = WorkflowState.RESEARCH_NEEDED) -> int:
        title, body = BODIES[which]
        return self.project.tracker.create_issue(
            title, body=body, state=state, estimate=Estimate.XS
        ).number

    def group(self) -> list[int]:
        """Three issues, each blocked by the one before: one group."""
        numbers = [self.issue(which) for which in ("farewell", "export", "test")]
        for blocker, blocked in itertools.pairwise(numbers):
            self.project.tracker.add_dependency(blocked, blocker)
        return numbers

    def hero(self, root: int, runtime: AgentRuntime | None = None, **options) -> SessionResult:
        concurrency = options.pop("concurrency", 3)
        reconciler = options.pop("reconciler", None)
        return run_session(
            self.project,
            root,
            runtime or ScriptedRuntime(env={}),
            SessionOptions.from_config(self.project.config, mode="hero", **options),
            crew=hero_crew(concurrency),
            reconciler=reconciler,
        )

    def team(
        self, root: int, runtime: ScriptedRuntime | None = None, per_role: int = 2, **options
    ) -> SessionResult:
        roles = ("analyst", "builder", "validator", "integrator")
        reconciler = options.pop("reconciler", None)
        return run_session(
            self.project,
            root,
            runtime or ScriptedRuntime(env={}),
            SessionOptions.from_config(self.project.config, mode="team", **options),
            crew=team_crew(dict.fromkeys(roles, per_role)),
            reconciler=reconciler,
        )

    def state(self, number: int) -> WorkflowState | None:
        return self.project.tracker.get_issue(number).workflow_state

    def report(self, result: SessionResult) -> RunReport:
        assert result.run is not None
        return load_report(self.project.store, result.run.id)

    def statuses(self, result: SessionResult) -> dict[str, str]:
        assert result.run is not None
        return {t.key: t.status.value for t in self.project.store.list_tasks(result.run.id)}

    def on_main(self, path: str) -> str:
        return self.project.git.run("show", f"refs/heads/main:{path}").stdout

    def duplicate_comments(self, number: int) -> list[str]:
        bodies = Counter(c.body for c in self.project.tracker.get_issue(number).comments)
        return [body for body, count in bodies.items() if count > 1]


def assert_sound(report: RunReport) -> None:
    """The original's coordination failures, counted from the store's history: none."""
    counters = report.counters
    assert counters.claimed_while_blocked == 0
    assert counters.claimed_while_running == 0
    assert counters.completed_twice == 0
    assert counters.coordination_turns == 0
    assert counters.messages == counters.escalations


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    with demo_project(tmp_path / "greet") as (project, epic):
        yield Demo(project, epic, tmp_path / "greet")
