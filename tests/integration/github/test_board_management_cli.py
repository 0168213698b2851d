"""``ralph hygiene``, ``ralph report``, ``ralph status --projects`` and ``ralph route`` on
a board of the fake GitHub, run as a person would (in-process, over HTTP): archiving
is GitHub's ``archiveProjectV2Item``, the report a Projects status update, several
boards compared, and a GitHub without status updates refused in one line."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from datetime import UTC, datetime

import pytest

from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github.fake import FakeGitHub
from ralph.tracker import GitHubTracker, set_up_board
from ralph.workflow import WorkflowState

from .conftest import TOKEN

S = WorkflowState
DAY = 86_400.0


@pytest.fixture
def gh(project, monkeypatch, ralph_cli):
    """``ralph init --github acme/shop`` done; yields (ralph, fake, tracker on board #1)."""

    def make(**fake_options):
        fake = FakeGitHub(**fake_options)
        fake.add_token(TOKEN, "acme")
        fake.add_repository("acme/shop", git_path=project.path)
        serving = fake.serve()
        url = serving.__enter__()
        opened.append(serving)
        for name, value in {
            "RALPH_GH_API_URL": url,
            "RALPH_GH_TOKEN": TOKEN,
            "RALPH_GH_MUTATION_INTERVAL": "0",
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(project.path)
        code, _, err = ralph_cli("init", "--github", "acme/shop")
        assert code == 0, err
        return ralph_cli, fake, tracker_on(fake, 1)

    opened: list[AbstractContextManager[str]] = []
    yield make
    for serving in opened:
        serving.__exit__(None, None, None)


def tracker_on(fake: FakeGitHub, project: int) -> GitHubTracker:
    pacer = Pacer(PacingPolicy(mutation_interval=0, content_per_minute=10_000))
    client = GitHubClient(fake, Tokens(TOKEN), pacer=pacer)
    return GitHubTracker(client, owner="acme", repo="shop", project=project)


def finished(tracker, fake, title, *, days_ago):
    """A Done, closed issue whose close GitHub dates ``days_ago`` days back."""
    number = tracker.create_issue(title, state=S.IN_REVIEW).number
    tracker.set_state(number, S.DONE, command="ralph_merge")
    tracker.close_issue(number)
    when = datetime.fromtimestamp(fake.clock() - days_ago * DAY, UTC)
    issue = next(i for i in fake.repository("acme/shop").issue_list if i.number == number)
    issue.closedAt = issue.updatedAt = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return number


def item_of(fake, number, project=1):
    board = fake.world.accounts["acme"].projects[project - 1]
    return next(i for i in board.item_list if i.content.number == number)


def test_hygiene_archives_exactly_the_eligible_items_and_a_dry_run_changes_nothing(gh):
    ralph, fake, tracker = gh()
    old = finished(tracker, fake, "Old work", days_ago=20)
    recent = finished(tracker, fake, "Recent work", days_ago=2)
    open_ = tracker.create_issue("Open work", state=S.BACKLOG).number

    code, out, err = ralph("hygiene")
    assert code == 0, err
    assert "# Project Hygiene Report" in out
    assert "## Archive Candidates\n| Issue | Title | State | Age |\n" in out
    assert f"| #{old} | Old work | Done |" in out

    fake.requests.clear()
    code, out, _ = ralph("hygiene", "--archive", "--dry-run")
    assert code == 0
    assert "Would archive 1 issue(s)" in out
    assert f"#{old} Old work" in out
    assert not [r for r in fake.requests if r.mutation]
    assert not item_of(fake, old).isArchived

    code, out, err = ralph("hygiene", "--archive", "--format", "json")
    assert code == 0, err
    answer = json.loads(out)
    assert (answer["dryRun"], answer["archivedCount"], answer["errors"]) == (False, 1, [])
    assert [r.name for r in fake.requests if r.mutation] == ["ArchiveProjectItem"]
    assert [n for n in (old, recent, open_) if item_of(fake, n).isArchived] == [old]

    code, out, _ = ralph("issue", "list", "--all", "--json")
    assert [i["number"] for i in json.loads(out)] == [recent, open_]
    code, out, _ = ralph("issue", "list", "--all", "--archived", "--json")
    assert {i["number"]: i["archived"] for i in json.loads(out)}[old] is True
    code, out, _ = ralph("hygiene", "--archive")
    assert "Nothing to archive" in out


def test_report_posts_a_projects_status_update_and_lists_it(gh):
    ralph, fake, tracker = gh()
    finished(tracker, fake, "Shipped", days_ago=1)
    code, out, err = ralph("report", "--dry-run")
    assert code == 0, err
    assert "Dry run: no status update posted" in out
    board = fake.world.accounts["acme"].projects[0]
    assert board.status_update_list == []

    code, out, err = ralph("report", "--window", "3", "--status", "AT_RISK")
    assert code == 0, err
    (update,) = board.status_update_list
    assert update.status == "AT_RISK"
    assert update.body.startswith("# Project Status Report\n")
    assert "1 issue completed in the last 3 days." in update.body
    assert "Manually set to AT_RISK." in update.body
    assert f"Posted status update {update.id} (AT_RISK)" in out

    code, out, _ = ralph("report", "list", "--json")
    (listed,) = json.loads(out)
    assert (listed["id"], listed["status"]) == (update.id, "AT_RISK")
    assert "<!--" not in listed["body"]  # Ralph's marker is not shown back


def test_a_github_without_status_updates_is_refused_in_one_line(gh):
    ralph, _, _ = gh(status_updates=False)
    code, out, err = ralph("report")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "no status updates" in err
    assert "ralph report --dry-run" in err
    assert ralph("report", "--dry-run")[0] == 0


def test_status_of_several_boards_breaks_them_down_and_warns_when_unbalanced(gh):
    ralph, fake, tracker = gh()
    fake.add_project("acme", "Ops board")
    other = tracker_on(fake, 2)
    set_up_board(other.client, "acme/shop", project=2)
    for n in range(4):
        tracker.create_issue(f"Web {n}", state=S.RESEARCH_NEEDED)
    other.create_issue("Ops 1", state=S.BACKLOG)  # not active work
    blocked = other.create_issue("Ops 2", state=S.READY_FOR_PLAN).number
    other.add_dependency(blocked, 1)

    code, out, err = ralph("status", "--projects", "1,2", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    breakdowns = data["projectBreakdowns"]
    assert [breakdowns[k]["projectTitle"] for k in ("1", "2")] == ["Ralph Workflow", "Ops board"]
    messages = [w["message"] for w in data["health"]["warnings"]]
    assert "Unbalanced workload: project 1 has 4 active items vs project 2 with 1" in messages
    assert f"#{blocked} blocked by #1" in messages
    code, out, _ = ralph("status", "--projects", "1,2", "--format", "markdown")
    assert "## Per-Project Breakdown\n\n### Ralph Workflow\n" in out
    code, out, _ = ralph("status", "--projects", "1,2")
    assert "Per project" in out
    assert "#2 Ops board" in out

    code, out, err = ralph("status", "--projects", "1,9")
    assert code == 2
    assert out == ""
    assert "project #9 of acme not found" in err
    assert err.count("\n") == 1


def test_route_puts_an_issue_on_another_board_with_its_state(gh, project):
    ralph, fake, tracker = gh()
    fake.add_project("acme", "Bugs")
    set_up_board(tracker_on(fake, 2).client, "acme/shop", project=2)
    number = tracker.create_issue("Crash", state=S.BACKLOG, labels=["bug"]).number
    (project.path / ".ralph-routing.yml").write_text(
        "version: 1\nrules:\n  - name: bugs\n    match:\n      labels: {any: [bug]}\n"
        "      repo: acme/*\n    action:\n      projectNumbers: [1, 2]\n"
        "      workflowState: Research Needed\n"
    )
    code, out, err = ralph("route", str(number))
    assert code == 0, err
    assert 'Matches rule 1 "bugs"' in out
    assert "would set project #2" in out
    assert len(fake.world.accounts["acme"].projects[1].item_list) == 0

    code, out, err = ralph("route", str(number), "--apply")
    assert code == 0, err
    assert "project #1: already there" in out
    assert "project #2: added" in out
    assert "state Research Needed: moved from Backlog" in out
    assert tracker.get_issue(number).workflow_state is S.RESEARCH_NEEDED
    on_bugs = item_of(fake, number, 2).fieldValueByName(None, "Workflow State")
    assert on_bugs["name"] == "Research Needed"
