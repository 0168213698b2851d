"""Projects for the web tests: the demo project, run by a hero of simulated agents until
its plan waits for a person (the board has cards in several columns, a run with a task
graph, documents on main, costs in the ledger), and an ASGI client on its board.

``board_kind`` makes that project on each board ``ralph web`` reads: the local tracker
with a SQLite store (the default), the local tracker with a PostgreSQL store, a (fake)
GitHub over HTTP with a SQLite store, and a (fake) Linear team over HTTP with a SQLite
store and local pull requests. Test modules that show the same pages and
API documents on every board override ``waiting_template`` with ``every_board``."""

from __future__ import annotations

import dataclasses
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.github.fake import FakeGitHub
from ralph.graph import ReviewMode
from ralph.linear.fake import FakeLinear
from ralph.orchestrate import SessionOptions, hero_crew, run_session
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
    #: The settings ``ralph`` needs to reach its board (GitHub's URL and token).
    env: Mapping[str, str] = field(default_factory=dict)
    #: The board's GitHub, when it is on one (a test scripts checks and reviews there).
    github: FakeGitHub | None = None
    #: The board's Linear, when it is on one.
    linear: FakeLinear | None = None


#: The boards ``ralph web`` reads: (tracker, store).
BOARD_KINDS = [
    "local-sqlite",
    pytest.param("local-postgres", marks=pytest.mark.postgres),
    "github-sqlite",
    "linear-sqlite",
]


def make_waiting_project(
    folder: Path, repo: Path | None = None, epic: int = 0, env: Mapping[str, str] | None = None
) -> WebProject:
    """The demo epic split, researched and planned by a hero with interactive review
    (costs of $0.25 an agent run, each with its transcript kept by the run),
    stopped at the gate: its plan in review. ``repo`` and ``epic``: a project already
    made (another board, reached with ``env``); else the demo project in ``folder``."""
    if repo is None:
        repo, epic = create_demo_project(folder)
    env = dict(env or {})
    with pytest.MonkeyPatch.context() as settings:
        for name, value in env.items():
            settings.setenv(name, value)
        return _hero_waits(repo, epic, env)


def _hero_waits(repo: Path, epic: int, env: dict[str, str]) -> WebProject:
    with open_project(load_config(repo)) as project:
        options = SessionOptions.from_config(
            project.config, mode="hero", review_mode=ReviewMode.INTERACTIVE
        )
        session = run_session(
            project, epic, ScriptedRuntime(cost_usd=0.25), options, crew=hero_crew(2)
        )
        assert session.run is not None
        in_review = tuple(
            i.number
            for i in project.tracker.list_issues()
            if i.workflow_state is WorkflowState.PLAN_IN_REVIEW
        )
        assert in_review, "the hero should stop with a plan in review"
        return WebProject(repo, epic, session.run.id, in_review, env)


def escalate_one(project: Project, number: int) -> None:
    """Issue ``number`` escalated by a research that fails every attempt."""
    from ralph.phases import PhaseRunner

    runtime = ScriptedRuntime({"research": [AgentFault.FAIL] * 4})
    PhaseRunner(project, runtime, max_attempts=2).run("research", number)


@pytest.fixture(scope="module")
def waiting_template(tmp_path_factory: pytest.TempPathFactory) -> WebProject:
    return make_waiting_project(tmp_path_factory.mktemp("web") / "demo")


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A PostgreSQL URL whose search_path is a fresh schema, dropped afterwards (for a
    module's project: ``pg_schema_url`` is a test's)."""
    import psycopg

    from ...conftest import PG_URL, require_postgres

    require_postgres()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def waiting_on(kind: str, folder: Path) -> Iterator[WebProject]:
    """The waiting project on board ``kind`` (one of BOARD_KINDS), for as long as the
    context lasts (its PostgreSQL schema, its GitHub and the settings that reach it)."""
    if kind == "local-sqlite":
        yield make_waiting_project(folder / "demo")
    elif kind == "local-postgres":
        with postgres_schema() as url:
            repo, epic = create_demo_project(folder / "demo", store_url=url)
            yield make_waiting_project(folder, repo, epic)
    elif kind == "linear-sqlite":
        with linear_demo(folder) as (repo, epic, env, linear):
            made = make_waiting_project(folder, repo, epic, env)
            yield dataclasses.replace(made, linear=linear)
    else:
        with github_demo(folder) as (repo, epic, env, fake):
            made = make_waiting_project(folder, repo, epic, env)
            yield dataclasses.replace(made, github=fake)


@contextmanager
def github_demo(folder: Path) -> Iterator[tuple[Path, int, dict[str, str], FakeGitHub]]:
    """The demo project on a fake GitHub over HTTP (``acme/greet``, its remote a bare
    repository), served while the context lasts, and the settings that reach it."""
    from ..github.conftest import TOKEN as GITHUB_TOKEN
    from ..github.conftest import Served, ralph_on_the_board, tracker_of

    work = create_sample_repository(folder / "demo")
    origin = folder / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(origin)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(origin)], cwd=work, check=True)
    fake = FakeGitHub()
    fake.add_token(GITHUB_TOKEN, "acme")
    fake.add_repository("acme/greet", git_path=origin)
    with fake.serve() as url:
        env = ralph_on_the_board(work, Served(fake, url))
        epic = tracker_of(fake).create_issue(
            EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG
        )
        yield work, epic.number, env, fake
    assert fake.internal_errors == []


#: The API key of the Linear board's person.
LINEAR_TOKEN = "lin_api_web_board_key"


@contextmanager
def linear_demo(folder: Path) -> Iterator[tuple[Path, int, dict[str, str], FakeLinear]]:
    """The demo project on a fake Linear team over HTTP (``ENG``, pull requests on the
    local code host), served while the context lasts, and the settings that reach it."""
    from ..conftest import ralph_process

    work = create_sample_repository(folder / "demo")
    # Budgets a person's hour never sees: the module's boards serve dozens of tests, each
    # reading them again; pacing against Linear's hour has its own tests.
    fake = FakeLinear(requests_per_hour=10**7, complexity_per_hour=10**10)
    fake.add_token(LINEAR_TOKEN, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    with fake.serve() as url:
        env = {"RALPH_LINEAR_API_URL": url, "RALPH_LINEAR_TOKEN": LINEAR_TOKEN}
        tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
        made = ralph_process("init", "--linear", "ENG", "--test-command", tests, cwd=work, env=env)
        assert made.returncode == 0, made.stderr
        toml = work / "ralph.toml"
        toml.write_text(toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"'))
        subprocess.run(["git", "add", "-A"], cwd=work, check=True)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up Ralph"],
            cwd=work,
            check=True,
        )
        with pytest.MonkeyPatch.context() as settings:
            for name, value in env.items():
                settings.setenv(name, value)
            with open_project(load_config(work)) as project:
                epic = project.tracker.create_issue(
                    EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG
                )
        yield work, epic.number, env, fake
    assert fake.internal_errors == []


@pytest.fixture(scope="module", params=BOARD_KINDS)
def every_board(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WebProject]:
    """The waiting project on each board in turn."""
    kind = str(request.param)
    with waiting_on(kind, tmp_path_factory.mktemp(kind)) as made:
        yield made


@pytest.fixture
def waiting(
    waiting_template: WebProject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> WebProject:
    """A copy of the waiting project of its own, for tests that change it (its board's
    settings in the environment; on PostgreSQL and GitHub, copies share the board)."""
    copy = tmp_path / "demo"
    shutil.copytree(waiting_template.repo, copy, symlinks=True)
    for name, value in waiting_template.env.items():
        monkeypatch.setenv(name, value)
    return dataclasses.replace(waiting_template, repo=copy)


@pytest.fixture
def open_board(waiting: WebProject) -> Iterator[Project]:
    with open_project(load_config(waiting.repo)) as project:
        yield project


#: Where the in-process tests reach the board: a name it answers to (loopback).
BOARD_URL = "http://127.0.0.1:8765"


def client_of(project: Project, token: str | None = None, hosts: Sequence[str] = ()) -> TestClient:
    app = create_app(project, token=token, hosts=hosts)
    return TestClient(app, base_url=BOARD_URL, follow_redirects=False)


@pytest.fixture
def client(open_board: Project) -> Iterator[TestClient]:
    with client_of(open_board) as found:
        yield found


def url_of(process: subprocess.Popen[str], timeout: float = 30.0) -> str:
    """The address ``ralph web`` says it serves, read from its first line."""
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    stdout = process.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        first = lines.get(timeout=timeout)
    except queue.Empty:
        process.kill()
        raise AssertionError("ralph web said nothing within 30s") from None
    assert first.startswith("ralph web: the board of "), first
    return first.rsplit(" at ", 1)[1].strip()
