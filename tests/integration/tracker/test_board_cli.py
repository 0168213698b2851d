"""``ralph init``, ``ralph issue ...`` and ``ralph status`` in a real git repository with
the local tracker: JSON for machines, one clear line and exit code 2 for mistakes, and
nothing written by a refused command."""

from __future__ import annotations

import json
import subprocess

import pytest

from ralph.cli import main

from ..conftest import GitProject, ralph_process


@pytest.fixture
def board(project: GitProject, monkeypatch, ralph_cli):
    monkeypatch.chdir(project.path)
    code, _, err = ralph_cli("init")
    assert code == 0, err
    return ralph_cli


def test_commands_outside_a_project_point_at_ralph_init(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["issue", "list"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "run `ralph init`" in err
    assert len(err.splitlines()) == 1


def test_init_outside_git_says_to_run_git_init(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["init"])
    assert info.value.code == 2
    assert "git init" in capsys.readouterr().err
    assert not (tmp_path / "ralph.toml").exists()


def test_init_is_harmless_to_repeat_and_ignores_the_database(board, project):
    config = (project.path / "ralph.toml").read_text()
    code, out, _ = board("init")
    assert code == 0
    assert "Found" in out
    assert (project.path / "ralph.toml").read_text() == config
    ignored = (project.path / ".gitignore").read_text().splitlines()
    assert (ignored.count(".ralph/*"), ignored.count("!.ralph/prompts/")) == (1, 1)
    assert 'repo = "project"' in config
    assert 'base_branch = "main"' in config


def test_an_epic_with_sub_issues_and_a_dependency_shows_its_relations(board):
    board("issue", "new", "Auth epic", "-e", "L", "-p", "P1")
    board("issue", "new", "Login form", "--parent", "1", "-e", "S", "--state", "Research Needed")
    board("issue", "new", "Sessions", "--parent", "1", "-e", "XS", "--state", "Research Needed")
    assert board("issue", "block", "2", "--by", "3")[0] == 0
    code, out, _ = board("issue", "show", "1", "--json")
    epic = json.loads(out)
    assert code == 0
    assert epic["subIssues"] == [2, 3]
    assert epic["state"] == "Backlog"
    assert set(epic) >= {
        "number",
        "title",
        "body",
        "state",
        "estimate",
        "priority",
        "labels",
        "parent",
        "subIssues",
        "blockedBy",
        "blocking",
        "comments",
        "pullRequests",
    }
    login = json.loads(board("issue", "show", "2", "--json")[1])
    assert (login["parent"], login["blockedBy"], login["estimate"]) == (1, [3], "S")
    code, out, _ = board("issue", "show", "3")
    assert code == 0
    assert "Blocking" in out
    assert "Login form" in out


def test_moves_go_through_the_state_machine_and_leave_history(board):
    board("issue", "new", "Sessions", "--state", "Research Needed", "-e", "XS")
    code, out, _ = board("issue", "move", "1", "__LOCK__", "--command", "research")
    assert code == 0
    assert "Research Needed → Research in Progress" in out
    board("issue", "move", "1", "Ready for Plan", "-c", "research")
    history = json.loads(board("issue", "show", "1", "--json")[1])["history"]
    assert [(h["from"], h["to"], h["command"]) for h in history] == [
        ("Research Needed", "Research in Progress", "ralph_research"),
        ("Research in Progress", "Ready for Plan", "ralph_research"),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["issue", "move", "1", "In Review"], "Allowed from 'Backlog': Research Needed"),
        (["issue", "move", "1", "Doing"], 'State "Doing" is not a valid output'),
        (["issue", "move", "1", "Done", "-c", "research"], "Recovery"),
        (["issue", "estimate", "1", "XXL"], "Valid estimates: XS, S, M, L, XL"),
        (["issue", "priority", "1", "urgent"], "Valid priorities: P0"),
        (["issue", "show", "9"], "Issue #9 not found"),
        (["issue", "block", "1", "--by", "1"], "cannot block itself"),
        (["issue", "new", "x", "--parent", "9"], "Issue #9 not found"),
        (["issue", "new", "x", "--state", "Nope"], "Unknown workflow state"),
    ],
)
def test_mistakes_get_one_line_exit_two_and_change_nothing(board, args, message):
    board("issue", "new", "Only issue")
    before = board("issue", "show", "1", "--json")[1]
    code, out, err = board(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("ralph: error: ")
    assert message in err
    assert len(err.splitlines()) == 1
    assert board("issue", "show", "1", "--json")[1] == before
    assert len(json.loads(board("issue", "list", "--all", "--json")[1])) == 1


def test_list_filters_and_next_picks_what_a_phase_should_take(board):
    board("issue", "new", "Low", "--state", "Research Needed", "-e", "S", "-p", "P3")
    board("issue", "new", "High", "--state", "Research Needed", "-e", "S", "-p", "P0")
    board("issue", "new", "Big", "--state", "Research Needed", "-e", "XL", "-p", "P0")
    board("issue", "label", "1", "--add", "ui")
    listed = json.loads(board("issue", "list", "--label", "ui", "--json")[1])
    assert [i["number"] for i in listed] == [1]
    code, out, _ = board("issue", "next", "--command", "research", "--json")
    assert code == 0
    assert json.loads(out)["issue"]["number"] == 2
    code, out, _ = board("issue", "next", "--state", "Done")
    assert code == 1
    assert out.strip() == "Nothing actionable: no open issue is in Done."
    board("issue", "move", "2", "Research in Progress")
    board("issue", "block", "1", "--by", "2")
    code, out, _ = board("issue", "next", "--command", "research", "--max-estimate", "S")
    assert code == 1
    assert out.strip() == (
        "Nothing actionable: #3 is XL; this takes XS, S; #1 blocked by #2 (Research in Progress)."
    )


def test_comment_close_and_reopen(board):
    board("issue", "new", "Thing")
    board("issue", "comment", "1", "first note")
    board("issue", "close", "1", "--reason", "not_planned")
    shown = json.loads(board("issue", "show", "1", "--json")[1])
    assert shown["status"] == "closed"
    assert shown["closeReason"] == "not_planned"
    assert [c["body"] for c in shown["comments"]] == ["first note"]
    assert json.loads(board("issue", "list", "--json")[1]) == []
    board("issue", "close", "1", "--reopen")
    assert len(json.loads(board("issue", "list", "--json")[1])) == 1


def test_asking_for_a_state_lists_its_closed_issues_too(board):
    board("issue", "new", "Shipped", "--state", "Done")
    board("issue", "close", "1", "--reason", "completed")
    board("issue", "new", "Open", "--state", "Done")

    def numbers(*args: str) -> list[int]:
        return sorted(i["number"] for i in json.loads(board("issue", "list", *args, "--json")[1]))

    assert numbers("--state", "Done") == [1, 2]
    assert numbers("--state", "Done", "--closed") == [1]
    assert numbers() == [2]


def test_status_shows_every_state_in_pipeline_order_in_three_formats(board):
    board("issue", "new", "A", "--state", "Research Needed", "-e", "S")
    board("issue", "new", "B", "--state", "Research Needed", "-e", "L")
    board("issue", "block", "1", "--by", "2")
    data = json.loads(board("status", "--json")[1])
    states = [p["state"] for p in data["phases"]]
    assert states[:3] == ["Backlog", "Research Needed", "Research in Progress"]
    assert data["phases"][1]["count"] == 2
    assert data["totalIssues"] == 2
    types = {w["type"] for w in data["health"]["warnings"]}
    assert {"blocked", "oversized_in_pipeline"} <= types
    assert data["health"]["ok"] is False
    code, out, _ = board("status", "--format", "markdown")
    assert code == 0
    assert out.startswith("# Pipeline Status")
    assert "| Research Needed | 2 |" in out
    code, out, _ = board("status")
    assert code == 0
    assert "Research Needed" in out
    assert "needs attention" in out


def test_a_store_named_on_the_command_line_wins_over_ralph_toml(board, tmp_path):
    other = f"sqlite:///{tmp_path}/other.db"
    board("--store", other, "db", "migrate")  # only init and db migrate make a store
    board("--store", other, "issue", "new", "Elsewhere")
    assert json.loads(board("issue", "list", "--json")[1]) == []
    assert len(json.loads(board("--store", other, "issue", "list", "--json")[1])) == 1


def test_a_newcomer_goes_from_init_to_status_with_the_real_command(project):
    """The installed ``ralph`` entry point, in a fresh process per command."""

    def ralph(*args: str) -> subprocess.CompletedProcess[str]:
        return ralph_process(*args, cwd=project.path, timeout=60)

    assert ralph("init").returncode == 0
    assert ralph("issue", "new", "Epic", "-e", "M").returncode == 0
    assert ralph("issue", "new", "Part", "--parent", "1", "-e", "XS").returncode == 0
    assert ralph("issue", "move", "2", "Research Needed", "-c", "triage").returncode == 0
    refused = ralph("issue", "move", "2", "Done")
    assert refused.returncode == 2
    assert "Allowed from 'Research Needed'" in refused.stderr
    assert "Traceback" not in refused.stderr
    status = ralph("status", "--json")
    assert status.returncode == 0, status.stderr
    phases = {p["state"]: p["count"] for p in json.loads(status.stdout)["phases"]}
    assert phases["Backlog"] == 1
    assert phases["Research Needed"] == 1


def test_relations_and_labels_can_be_undone_from_the_command_line(board):
    for title in ("Epic", "Part", "Other"):
        board("issue", "new", title)
    assert board("issue", "child", "1", "2")[0] == 0
    assert board("issue", "child", "3", "2")[0] == 2  # already under #1
    board("issue", "child", "3", "2", "--replace")
    assert json.loads(board("issue", "show", "2", "--json")[1])["parent"] == 3
    board("issue", "child", "3", "2", "--remove")
    board("issue", "block", "2", "--by", "1")
    board("issue", "unblock", "2", "--by", "1")
    board("issue", "label", "2", "--add", "ui", "--add", "api")
    board("issue", "label", "2", "--remove", "ui")
    board("issue", "priority", "2", "P1")
    part = json.loads(board("issue", "show", "2", "--json")[1])
    assert (part["parent"], part["blockedBy"], part["labels"]) == (None, [], ["api"])
    assert part["priority"] == "P1"
    assert board("issue", "label", "2")[0] == 2  # neither --add nor --remove
