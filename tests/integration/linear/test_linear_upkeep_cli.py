"""``ralph report`` and ``ralph hygiene`` on a Linear team, as a person runs them: real
``ralph`` processes against FakeLinear served on 127.0.0.1, on a board a month old (the
fake's clock made the issues 30 days ago).

A Linear team has no status updates (Linear's belong to its projects): ``--dry-run``
prints the report, and posting one is refused in one line that says so and what to do.
Hygiene reads the team as it reads a GitHub board, and archives in Linear."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.linear.fake import FakeLinear, ScriptedFault
from ralph.project import open_project
from ralph.tracker.linear import NO_STATUS_UPDATES
from ralph.workflow import Estimate, WorkflowState

from ...conftest import FakeClock
from ..conftest import GitProject, ralph_process

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TOKEN = "lin_api_upkeep_key"
MONTH = 30 * 86_400.0


@dataclass
class Board:
    fake: FakeLinear
    repo: Path
    env: dict[str, str]
    done: int
    stale: int
    twins: tuple[int, int]

    def ralph(self, *args: str) -> subprocess.CompletedProcess[str]:
        return ralph_process(*args, cwd=self.repo, env={"COLUMNS": "160", **self.env})


@pytest.fixture
def board(project: GitProject, monkeypatch: pytest.MonkeyPatch) -> Iterator[Board]:
    clock = FakeClock(time.time() - MONTH)
    # Budgets these commands never spend: pacing has its own tests.
    fake = FakeLinear(clock=clock, requests_per_hour=10**7, complexity_per_hour=10**10)
    fake.add_token(TOKEN, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    with fake.serve() as url:
        env = {"RALPH_LINEAR_API_URL": url, "RALPH_LINEAR_TOKEN": TOKEN}
        made = ralph_process("init", "--linear", "ENG", cwd=project.path, env=env)
        assert made.returncode == 0, made.stderr
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        with open_project(load_config(project.path)) as opened:
            tracker = opened.tracker
            done = tracker.create_issue(
                "Greet by name", state=WorkflowState.DONE, estimate=Estimate.XS
            ).number
            tracker.close_issue(done)
            stale = tracker.create_issue(
                "Say farewell", state=WorkflowState.IN_PROGRESS, estimate=Estimate.S
            ).number
            twins = (
                tracker.create_issue("Translate the greetings", state=WorkflowState.BACKLOG),
                tracker.create_issue("Translate the greeting", state=WorkflowState.BACKLOG),
            )
        clock.now = time.time()
        yield Board(fake, project.path, env, done, stale, (twins[0].number, twins[1].number))
    assert fake.internal_errors == []


def test_report_dry_run_prints_the_report_and_posts_nothing(board: Board) -> None:
    board.fake.requests.clear()
    shown = board.ralph("report", "--dry-run", "--format", "markdown")
    assert shown.returncode == 0, shown.stderr
    assert "Dry run: no status update posted" in shown.stdout
    assert "| In Progress | 1 |" in shown.stdout
    assert f"#{board.stale} stuck in In Progress for 720h" in shown.stdout
    assert shown.stderr == ""
    assert not [r for r in board.fake.requests if r.mutation]
    as_json = board.ralph("report", "--dry-run", "--json")
    assert as_json.returncode == 0, as_json.stderr
    found = json.loads(as_json.stdout)
    assert found["dryRun"] is True
    assert "statusUpdate" not in found


@pytest.mark.parametrize("args", [("report",), ("report", "list")])
def test_posting_or_listing_status_updates_is_one_line_saying_what_to_do(
    board: Board, args: tuple[str, ...]
) -> None:
    board.fake.requests.clear()
    refused = board.ralph(*args)
    assert refused.returncode != 0
    assert refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [f"ralph: error: {NO_STATUS_UPDATES}"]
    assert not [r for r in board.fake.requests if r.mutation]


def test_hygiene_reports_the_team_as_it_reports_a_board(board: Board) -> None:
    shown = board.ralph("hygiene", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert [i["number"] for i in report["archiveCandidates"]] == [board.done]
    assert board.stale in [i["number"] for i in report["staleItems"]]
    (twins,) = report["duplicateCandidates"]
    assert tuple(i["number"] for i in twins["items"]) == board.twins
    missing = {i["number"] for i in report["fieldGaps"]["missingEstimate"]}
    assert missing == set(board.twins)
    assert {i["number"] for i in report["orphanedItems"]} == set(board.twins)
    text = board.ralph("hygiene", "--format", "markdown")
    assert text.returncode == 0, text.stderr
    assert "Greet by name" in text.stdout


def test_hygiene_archives_in_linear_once_and_a_dry_run_changes_nothing(board: Board) -> None:
    (done,) = [i for i in board.fake.workspace.team("ENG").issue_list if i.number == board.done]
    board.fake.requests.clear()
    dry = board.ralph("hygiene", "--archive", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Would archive 1 issue(s)" in dry.stdout
    assert f"#{board.done} Greet by name" in dry.stdout
    assert not [r for r in board.fake.requests if r.mutation]
    assert done.archivedAt is None
    archived = board.ralph("hygiene", "--archive")
    assert archived.returncode == 0, archived.stderr
    assert "Archived 1 issue(s)" in archived.stdout
    assert done.archivedAt is not None
    again = board.ralph("hygiene", "--archive")
    assert again.returncode == 0, again.stderr
    assert "Nothing to archive" in again.stdout


def test_linear_not_answering_is_one_line_and_a_failure_to_try_again(board: Board) -> None:
    # Every try of the team's issues (the client's first and its three retries) fails.
    board.fake.script(*[ScriptedFault.server_error("BoardRows")] * 4)
    down = board.ralph("hygiene")
    assert down.returncode == 1, down.stdout + down.stderr
    # Each failed try is a warning as it happens; then the one line of the error.
    (said,) = [line for line in down.stderr.splitlines() if line.startswith("ralph: error")]
    assert said == "ralph: error: Linear did not answer BoardRows: Internal server error"
    assert down.stderr.strip().splitlines()[-1] == said
    assert "Traceback" not in down.stderr
    assert board.ralph("hygiene").returncode == 0
