"""``ralph pr ...`` on the local tracker in a real repository: a person lists, shows,
reviews, checks and merges pull requests; Ralph finishes the issue's pipeline after a
person's merge; mistakes get one line, exit 2, and change nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ralph.config import load_config
from ralph.git import GitRepo, Worktrees
from ralph.project import open_project
from ralph.workflow import WorkflowState

from ..conftest import GitProject, git
from ..snapshots import files, refs, tables

#: Passes only on a merge result: feature.txt comes from the branch, base.txt from main.
TEST_COMMAND = "test -f feature.txt && test -f base.txt"
STORY = "".join(f"{n}\n" for n in range(1, 31))


def open_pr(project: GitProject, branch: str, files: dict[str, str], *, closes: int) -> int:
    project.commit(branch, files, f"work on {branch}")
    with open_project(load_config(project.path)) as opened:
        pr = opened.code_host.create_pull_request(
            head=branch, base="main", title=f"Work on {branch}", body=f"Closes #{closes}"
        )
    return pr.number


@pytest.fixture
def ralph(project: GitProject, monkeypatch, ralph_cli):
    """A project with issue #1 In Review and pull request #2 from feature/GH-1 closing it
    (changing line 2 of story.txt, adding feature.txt), main having moved on since."""
    monkeypatch.chdir(project.path)
    assert ralph_cli("init", "--test-command", TEST_COMMAND)[0] == 0
    project.commit("main", {"story.txt": STORY}, "a story")
    git(project.path, "reset", "-q", "--hard")
    assert ralph_cli("issue", "new", "Change the story", "--state", "In Review")[0] == 0
    story = STORY.replace("2\n", "two\n", 1)
    assert open_pr(project, "feature/GH-1", {"story.txt": story, "feature.txt": "f\n"}, closes=1)
    project.commit("main", {"base.txt": "b\n"}, "meanwhile on main")
    git(project.path, "reset", "-q", "--hard")
    return ralph_cli


def snapshot(project: GitProject) -> tuple[object, ...]:
    """The store, the files and the refs; not git's loose objects: reading a pull request
    computes its merge (``merge-tree --write-tree``), which leaves unreferenced trees."""
    kept = {
        name: digest
        for name, digest in files(project.path).items()
        if not name.startswith(".git/objects/")
    }
    return (tables(project.path / ".ralph" / "ralph.db"), kept, refs(project.path))


def shown(ralph, number: int = 2) -> dict[str, Any]:
    code, out, err = ralph("pr", "show", str(number), "--json")
    assert code == 0, err
    document: dict[str, Any] = json.loads(out)
    return document


def test_a_person_reviews_on_a_line_and_the_decision_follows_their_latest_review(ralph):
    code, out, _ = ralph(
        "pr",
        "review",
        "2",
        "--request-changes",
        "Spell it out.",
        "--file",
        "story.txt",
        "--line",
        "2",
    )
    assert code == 0
    assert "Requested changes on pull request #2 (story.txt:2, a new thread) as Test Person" in out
    data = shown(ralph)
    assert data["reviewDecision"] == "CHANGES_REQUESTED"
    [review] = data["reviews"]
    assert (review["author"], review["state"], review["body"]) == (
        "Test Person",
        "CHANGES_REQUESTED",
        "Spell it out.",
    )
    assert review["commit"] == data["headOid"]
    [thread] = data["threads"]
    assert (thread["path"], thread["line"], thread["isResolved"]) == ("story.txt", 2, False)
    assert "+two" in thread["diffHunk"]
    assert [c["body"] for c in thread["comments"]] == ["Spell it out."]

    assert ralph("pr", "review", "2", "--approve")[0] == 0
    assert shown(ralph)["reviewDecision"] == "APPROVED"


def test_show_and_list_give_people_the_branch_checks_review_and_what_it_closes(ralph):
    code, out, _ = ralph("pr", "show", "2")
    assert code == 0
    for text in ("feature/GH-1 → main", "Closes", "#1 Change the story", "review required"):
        assert text in out
    assert "blocked by a required check" in out  # the test command has not run on it yet
    code, out, _ = ralph("pr", "list")
    assert code == 0
    assert "Work on feature/GH-1" in out
    [listed] = json.loads(ralph("pr", "list", "--json")[1])
    assert (listed["number"], listed["mergeState"], listed["closes"]) == (2, "BLOCKED", [1])
    assert json.loads(ralph("pr", "list", "--state", "merged", "--json")[1]) == []


def test_checks_run_the_test_command_on_the_merge_result_once_per_head(ralph, project):
    code, out, _ = ralph("pr", "checks", "2")
    assert code == 0, out
    assert "Running `test -f feature.txt && test -f base.txt`" in out
    assert "✓ test success (required)" in out
    assert shown(ralph)["mergeState"] == "CLEAN"

    code, out, _ = ralph("pr", "checks", "2")  # recorded on this head: shown, not run
    assert (code, "Running" in out, "✓ test success" in out) == (0, False, True)

    project.commit("feature/GH-1", {"later.txt": "later\n"}, "a push")
    assert shown(ralph)["checks"] == []
    code, out, _ = ralph("pr", "checks", "2")
    assert (code, "Running" in out) == (0, True)


def test_a_failing_required_check_exits_1_with_the_end_of_its_output(ralph, project):
    assert ralph("issue", "new", "Another", "--state", "In Review")[0] == 0
    number = open_pr(project, "feature/GH-3", {"other.txt": "o\n"}, closes=3)
    code, out, _ = ralph("pr", "checks", str(number))
    assert code == 1
    assert "✗ test failure (required)" in out
    data = shown(ralph, number)
    assert data["mergeState"] == "BLOCKED"
    assert data["checks"][0]["conclusion"] == "failure"


def test_a_person_s_merge_finishes_the_issue_as_the_merge_phase_would(ralph, project):
    worktree = Worktrees(GitRepo(project.path)).ensure("GH-1", "feature/GH-1", "main")
    code, out, err = ralph("pr", "merge", "2", "--method", "rebase")
    assert code == 0, err
    assert "Merged pull request #2 into main" in out
    assert "Removed worktree worktrees/GH-1." in out
    assert not worktree.path.exists()
    assert git(project.path, "log", "-1", "--format=%s", "main") == "work on feature/GH-1"
    with open_project(load_config(project.path)) as opened:
        issue = opened.tracker.get_issue(1)
    assert issue.workflow_state is WorkflowState.DONE
    assert issue.comments[-1].body.startswith("Merged pull request #2 (feature/GH-1 -> main, ")

    code, _, err = ralph("pr", "merge", "2")
    assert (code, err.strip()) == (2, "ralph: error: Pull request #2 is merged, not open")


def test_a_merge_whose_follow_ups_a_crash_cut_short_is_finished_by_ralph_pr_merge(ralph, project):
    with open_project(load_config(project.path)) as opened:
        opened.code_host.merge_pull_request(2)  # then the process died
    code, out, err = ralph("pr", "merge", "2")
    assert code == 0, err
    assert "Merged pull request #2 into main" in out
    with open_project(load_config(project.path)) as opened:
        comments = opened.tracker.get_issue(1).comments
    assert sum(c.body.startswith("Merged pull request #2") for c in comments) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "99"], "Pull request #99 not found"),
        (["review", "99", "--approve"], "Pull request #99 not found"),
        (["merge", "99"], "Pull request #99 not found"),
        (["review", "2"], "give exactly one of --approve, --request-changes TEXT, --comment"),
        (["review", "2", "--approve", "--comment", "x"], "(not --approve and --comment)"),
        (["review", "2", "--comment", ""], "the review's text is empty"),
        (["review", "2", "--request-changes", " "], "the review's text is empty"),
        (["review", "2", "--comment", "x", "--file", "story.txt"], "--file and --line together"),
        (["review", "2", "--comment", "x", "--line", "2"], "--file and --line together"),
        (["review", "2", "--comment", "x", "--file", "story.txt", "--line", "0"], "start at 1"),
        (["review", "2", "--comment", "x", "--file", "README.md", "--line", "1"], "README.md"),
        (["review", "2", "--approve", "--file", "story.txt", "--line", "2"], "an approval"),
    ],
)
def test_mistakes_are_one_line_with_exit_2_and_change_nothing(ralph, project, args, message):
    before = snapshot(project)
    code, out, err = ralph("pr", *args)
    assert code == 2, out + err
    assert err.startswith("ralph: error: "), err
    assert err.count("\n") == 1, err
    assert message in err
    assert out == ""
    assert snapshot(project) == before


def test_an_unknown_merge_method_is_a_usage_error(ralph):
    code, _, err = ralph("pr", "merge", "2", "--method", "octopus")
    assert code == 2
    assert "octopus" in err
    assert shown(ralph)["state"] == "open"


@pytest.mark.parametrize("end", ["merge", "close"])
def test_a_pull_request_that_is_no_longer_open_cannot_be_reviewed(ralph, project, end):
    with open_project(load_config(project.path)) as opened:
        if end == "merge":
            opened.code_host.merge_pull_request(2)
        else:
            opened.code_host.close_pull_request(2)
    code, _, err = ralph("pr", "review", "2", "--approve")
    state = "merged" if end == "merge" else "closed"
    assert (code, err.strip()) == (
        2,
        f"ralph: error: pull request #2 is {state}; there is nothing to review",
    )


def test_text_people_wrote_is_shown_as_written_never_as_markup(ralph, project):
    project.commit("feature/GH-9", {"feature.txt": "f\n"}, "work")
    with open_project(load_config(project.path)) as opened:
        pr = opened.code_host.create_pull_request(
            head="feature/GH-9", base="main", title="[/] and [bold]loud[/bold]"
        )
    assert ralph("pr", "review", str(pr.number), "--comment", "[red]not red[/red] \\[x]")[0] == 0
    for command in (("show", str(pr.number)), ("list",)):
        code, out, err = ralph("pr", *command)
        assert code == 0, err
        assert "[/] and [bold]loud[/bold]" in out
    assert "[red]not red[/red] \\[x]" in ralph("pr", "show", str(pr.number))[1]
