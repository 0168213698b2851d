"""The commands behind the board's actions and ``ralph web``'s refusals: ``ralph runs
cancel`` and ``ralph issue retry`` do what the buttons do, and ``ralph web`` will not
open the board to other machines without a token."""

from __future__ import annotations

import pytest

from ralph.config import load_config
from ralph.project import open_project
from ralph.tasks import RunStatus
from ralph.workflow import Estimate, WorkflowState

from ..conftest import RalphCli
from .conftest import WebProject, escalate_one

pytestmark = pytest.mark.slow


@pytest.fixture
def in_project(waiting: WebProject, monkeypatch: pytest.MonkeyPatch) -> WebProject:
    monkeypatch.chdir(waiting.repo)
    return waiting


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::"])
def test_web_refuses_a_host_other_machines_reach_without_a_token(
    ralph_cli: RalphCli, in_project: WebProject, host: str
) -> None:
    code, out, err = ralph_cli("web", "--host", host)
    assert code == 2
    assert out == ""
    said = f"--host {host} lets other machines in: give --token (or RALPH_WEB_TOKEN) too"
    assert err == f"ralph: error: {said}\n"


@pytest.mark.parametrize(
    "name", ["http://board.example", "board.example:8765", "a b", "", "a\x00b", "b\x1b]0;x"]
)
def test_web_refuses_an_allowed_host_that_is_not_a_host_name(
    ralph_cli: RalphCli, in_project: WebProject, name: str
) -> None:
    code, out, err = ralph_cli("web", "--allowed-host", name)
    assert code == 2
    assert out == ""
    assert err.startswith(f"ralph: error: --allowed-host {name!r} is not a host name;")
    assert err.count("\n") == 1


def test_web_refuses_a_token_anyone_could_guess(
    ralph_cli: RalphCli, in_project: WebProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALPH_WEB_TOKEN", "secret")
    code, _, err = ralph_cli("web", "--host", "0.0.0.0")
    assert code == 2
    assert err.startswith("ralph: error: the web token must be at least 16 characters")
    assert err.count("\n") == 1


def test_runs_cancel_cancels_an_active_run_once(
    ralph_cli: RalphCli, in_project: WebProject
) -> None:
    code, out, _ = ralph_cli("runs", "cancel", str(in_project.run))
    assert code == 0
    assert out.startswith(f"Run {in_project.run} canceled (")
    with open_project(load_config(in_project.repo)) as project:
        assert project.store.get_run(in_project.run).status is RunStatus.CANCELED
    code, out, err = ralph_cli("runs", "cancel", str(in_project.run))
    assert code == 2
    assert (
        err == f"ralph: error: run {in_project.run} is canceled; only an active run is canceled\n"
    )


def test_issue_retry_sends_an_escalated_issue_back_and_refuses_any_other(
    ralph_cli: RalphCli, in_project: WebProject
) -> None:
    with open_project(load_config(in_project.repo)) as project:
        issue = project.tracker.create_issue(
            "Escalates", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
        )
        escalate_one(project, issue.number)
    code, out, _ = ralph_cli("issue", "retry", str(issue.number))
    assert code == 0
    assert out.startswith(f"#{issue.number}: Human Needed → Research Needed.")
    code, _, err = ralph_cli("issue", "retry", str(issue.number))
    assert code == 2
    assert err == (
        f"ralph: error: only an escalated issue (Human Needed) is retried; "
        f"#{issue.number} is Research Needed\n"
    )
