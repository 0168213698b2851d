"""``2``, ``#2`` and ``GH-2`` name the same issue wherever a command takes an issue
number, as an argument or an option; anything else is refused in one line; and a
number that is a pull request's (they share the sequence) is said to be one."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer

from ralph.cli._issue_ref import parse_issue_number
from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project

from .conftest import RalphCli


@pytest.mark.parametrize("written", ["2", "#2", "GH-2", "gh-2", " #2 "])
def test_every_way_of_writing_an_issue_reads_as_its_number(written: str):
    assert parse_issue_number(written) == 2


@pytest.mark.parametrize(
    "written", ["abc", "", "#", "GH-", "2.0", "-2", "0", "#0", "١", "0x10", "2 3", "PR-2", "9" * 20]
)
def test_anything_else_is_not_an_issue_number(written: str):
    with pytest.raises(typer.BadParameter) as refused:
        parse_issue_number(written)
    assert str(refused.value) == f"{written!r} is not an issue number; write 2, #2 or GH-2"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo project (issue #1, an epic) with #2 an issue and #3 a pull request."""
    repo, _ = create_demo_project(tmp_path / "demo")
    with open_project(load_config(repo)) as project:
        assert project.tracker.create_issue("Second").number == 2
        project.git.git("branch", "feature/x", "main", what="make a branch")
        pull = project.code_host.create_pull_request(head="feature/x", base="main", title="X")
        assert pull.number == 3
    monkeypatch.chdir(repo)
    return repo


def test_an_issue_is_found_by_each_reference(repo: Path, ralph_cli: RalphCli):
    for written in ("2", "#2", "GH-2"):
        code, out, err = ralph_cli("issue", "show", written)
        assert (code, err) == (0, ""), err
        assert "Second" in out


def test_options_take_references_too(repo: Path, ralph_cli: RalphCli):
    code, out, _ = ralph_cli("issue", "block", "GH-1", "--by", "#2")
    assert (code, out.strip()) == (0, "#1 is blocked by #2")
    code, out, _ = ralph_cli("issue", "new", "Child", "--parent", "GH-1")
    assert code == 0
    assert "under #1" in out


def test_a_bad_reference_is_refused_in_one_line_with_the_ways_to_write_one(
    repo: Path, ralph_cli: RalphCli
):
    code, out, err = ralph_cli("issue", "block", "1", "--by", "abc")
    assert (code, out) == (2, "")
    assert "'abc' is not an issue number; write 2, #2 or GH-2" in err


def test_a_pull_requests_number_is_said_to_be_one(repo: Path, ralph_cli: RalphCli):
    for args in (("issue", "show", "#3"), ("issue", "block", "2", "--by", "3")):
        code, out, err = ralph_cli(*args)
        assert (code, out) == (2, "")
        assert err == "ralph: error: #3 is a pull request, not an issue; ralph pr show 3 shows it\n"


def test_a_number_nothing_has_is_still_not_found(repo: Path, ralph_cli: RalphCli):
    code, _, err = ralph_cli("issue", "show", "#9")
    assert code == 2
    assert err == "ralph: error: Issue #9 not found\n"
