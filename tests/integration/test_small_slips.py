"""Small rule slips a person meets at the command line: a shortcut the workflow keeps
for triage alone, gh's spelling of a list option, a serve pause too short to mean
anything."""

from __future__ import annotations

import json

import pytest

from .conftest import GitProject, RalphCli


@pytest.fixture
def repo(project: GitProject, ralph_cli: RalphCli, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(project.path)
    assert ralph_cli("init")[0] == 0
    assert ralph_cli("issue", "new", "Add a farewell", "-e", "XS")[0] == 0
    return project.path


def test_a_person_cannot_move_a_backlog_issue_straight_to_in_progress(repo, ralph_cli):
    code, _, err = ralph_cli("issue", "move", "1", "In Progress")
    assert code == 2
    assert "Cannot move from 'Backlog' to 'In Progress'" in err
    assert "In Progress" not in err.split("Allowed from 'Backlog': ")[1]
    assert err.count("\n") == 1
    assert [i["state"] for i in json.loads(ralph_cli("issue", "list", "--json")[1])] == ["Backlog"]


def numbers(ralph_cli: RalphCli, *args: str) -> list[int]:
    code, out, err = ralph_cli("issue", "list", "--json", *args)
    assert code == 0, err
    return sorted(i["number"] for i in json.loads(out))


def test_state_all_open_and_closed_are_read_as_gh_spells_them(repo, ralph_cli):
    assert ralph_cli("issue", "new", "Drop the banner", "-e", "XS")[0] == 0
    assert ralph_cli("issue", "close", "2")[0] == 0
    assert numbers(ralph_cli, "--state", "all") == numbers(ralph_cli, "--all") == [1, 2]
    assert numbers(ralph_cli, "--state", "ALL") == [1, 2]
    assert numbers(ralph_cli, "--state", "open") == numbers(ralph_cli) == [1]
    assert numbers(ralph_cli, "--state", "closed") == numbers(ralph_cli, "--closed") == [2]
    assert numbers(ralph_cli, "--state", "all", "--state", "Backlog") == [1, 2]


@pytest.mark.parametrize("seconds", ["1e-300", "0.5", "0"])
def test_serve_refuses_a_pause_too_short_to_mean_anything(repo, ralph_cli, seconds):
    code, _, err = ralph_cli("serve", "--poll-seconds", seconds)
    assert code == 2
    assert err == (
        f"ralph: error: --poll-seconds {float(seconds)} is not valid; give at least 1 and at "
        "most 86400 seconds\n"
    )
