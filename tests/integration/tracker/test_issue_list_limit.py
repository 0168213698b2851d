"""``ralph issue list`` on a board longer than a screen: the first 30 issues and a line
saying how many more and how to see them (as ``gh issue list`` does), one issue a line
when piped; ``--json`` stays complete unless ``--limit`` is given, as
machines want every issue."""

from __future__ import annotations

import json
import re

import pytest

from ralph.config import load_config
from ralph.project import open_project

from ..conftest import GitProject

pytestmark = pytest.mark.timeout(120)

ISSUES = 120


@pytest.fixture
def long_board(project: GitProject, monkeypatch, ralph_cli):
    monkeypatch.chdir(project.path)
    code, _, err = ralph_cli("init")
    assert code == 0, err
    with open_project(load_config(project.path)) as opened:
        for n in range(ISSUES):
            opened.tracker.create_issue(f"Issue {n + 1} of a long board")
    return ralph_cli


def test_a_terminal_is_shown_the_first_thirty_and_how_to_see_the_rest(long_board, monkeypatch):
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    code, out, err = long_board("issue", "list")
    assert code == 0, err
    shown = [line for line in out.splitlines() if "of a long board" in line]
    assert len(shown) == 30
    assert re.sub(r"\x1b\[[0-9;]*m", "", out.splitlines()[-1]) == (
        f"Showing 30 of {ISSUES} issues: --limit N shows N, --limit 0 shows all."
    )


def test_a_pipe_gets_one_issue_a_line_and_the_rest_said_on_stderr(long_board):
    code, out, err = long_board("issue", "list")
    assert code == 0, err
    assert len(out.splitlines()) == 30
    assert all(line.count("\t") == 6 for line in out.splitlines())
    assert err.splitlines() == [
        f"Showing 30 of {ISSUES} issues: --limit N shows N, --limit 0 shows all."
    ]


def test_limit_zero_shows_every_issue_and_no_line_about_more(long_board):
    code, out, err = long_board("issue", "list", "--limit", "0")
    assert code == 0, err
    assert len(out.splitlines()) == ISSUES
    assert err == ""


def test_a_limit_shows_that_many_and_says_how_many_more(long_board):
    code, out, err = long_board("issue", "list", "--limit", "5")
    assert code == 0, err
    assert len(out.splitlines()) == 5
    assert "Showing 5 of 120 issues" in err


def test_a_limit_as_large_as_the_list_says_nothing_more(long_board):
    code, out, err = long_board("issue", "list", "--limit", str(ISSUES))
    assert (code, len(out.splitlines()), err) == (0, ISSUES, "")


def test_json_lists_every_issue_unless_a_limit_is_given(long_board):
    code, out, err = long_board("issue", "list", "--json")
    assert (code, err) == (0, "")
    assert len(json.loads(out)) == ISSUES
    code, out, err = long_board("issue", "list", "--json", "--limit", "7")
    assert (code, err) == (0, "")
    assert len(json.loads(out)) == 7


def test_a_negative_limit_is_refused_in_one_line(long_board):
    code, out, err = long_board("issue", "list", "--limit", "-1")
    assert code == 2
    assert out == ""
    assert "--limit" in err
