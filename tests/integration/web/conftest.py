"""Projects for the web tests: the demo project, run by a hero of simulated agents until
its plan waits for a person (the board has cards in several columns, a run with a task
graph, documents on main, costs in the ledger), and an ASGI client on its board."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.orchestrate import hero_crew, run_session
from ralph.project import Project, open_project
from ralph.runtimes.scripted import AgentFault, ScriptedRuntime
from ralph.web import create_app
from ralph.workflow import WorkflowState

#: A token long enough for ``ralph web``.
TOKEN = "test-token-0123456789abcdef"


@dataclass(frozen=True)
class WebProject:
    repo: Path
    epic: int
    #: The run the hero left waiting at the plan's gate.
    run: int
    #: Issues whose plan waits for review.
    in_review: tuple[int, ...]


def make_waiting_project(folder: Path) -> WebProject:
    """The demo epic split, researched and planned by a hero with interactive review
    (costs of $0.25 an agent run, each with a transcript the run keeps a copy of),
    stopped at the gate: its plan in review."""
    repo, epic = create_demo_project(folder)
    with open_project(load_config(repo)) as project:
        session = run_session(
            project,
            epic,
            ScriptedRuntime(cost_usd=0.25, transcripts=folder.parent / "agent-sessions"),
            mode="hero",
            crew=hero_crew(2),
            review_mode="interactive",
        )
        assert session.run is not None
        in_review = tuple(
            i.number
            for i in project.tracker.list_issues()
            if i.workflow_state is WorkflowState.PLAN_IN_REVIEW
        )
        assert in_review, "the hero should stop with a plan in review"
        return WebProject(repo, epic, session.run.id, in_review)


def escalate_one(project: Project, number: int) -> None:
    """Issue ``number`` escalated by a research that fails every attempt."""
    from ralph.phases import PhaseRunner

    runtime = ScriptedRuntime({"research": [AgentFault.FAIL] * 4})
    PhaseRunner(project, runtime, max_attempts=2).run("research", number)


@pytest.fixture(scope="module")
def waiting_template(tmp_path_factory: pytest.TempPathFactory) -> WebProject:
    return make_waiting_project(tmp_path_factory.mktemp("web") / "demo")


@pytest.fixture
def waiting(waiting_template: WebProject, tmp_path: Path) -> WebProject:
    """A copy of the waiting project of its own, for tests that change it."""
    copy = tmp_path / "demo"
    shutil.copytree(waiting_template.repo, copy, symlinks=True)
    return WebProject(copy, waiting_template.epic, waiting_template.run, waiting_template.in_review)


@pytest.fixture
def open_board(waiting: WebProject) -> Iterator[Project]:
    with open_project(load_config(waiting.repo)) as project:
        yield project


def client_of(project: Project, token: str | None = None) -> TestClient:
    return TestClient(create_app(project, token=token), follow_redirects=False)


@pytest.fixture
def client(open_board: Project) -> Iterator[TestClient]:
    with client_of(open_board) as found:
        yield found
