"""What only a person can clear, as a person sees it: one line with the fix, no
traceback, no retries, the issue where it was, and the command goes on once they act."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.workflow import WorkflowState

from .cli_project import farewell_project, state_of, through
from .conftest import ralph_process


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def edit_on_main(repo: Path) -> None:
    """An uncommitted edit of the file the farewell issue's pull request changes."""
    core = repo / "greet" / "core.py"
    core.write_text(core.read_text() + "# the person's edit, not committed\n")


def states(repo: Path) -> list[WorkflowState | None]:
    """The states of the open issues."""
    with open_project(load_config(repo)) as project:
        return [issue.workflow_state for issue in project.tracker.list_issues()]


def test_a_merge_into_a_dirty_main_checkout_is_one_line_and_the_issue_stays(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    through(repo, n, "research", "plan", "approve", "implement", "pr")
    edit_on_main(repo)
    done = ralph_process("run", "merge", str(n), cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.strip() == (
        f"ralph: error: main is checked out in {repo} with uncommitted changes Ralph's next "
        "commit would overwrite (in greet/core.py): commit or stash them, or keep your "
        "checkout on another branch (git switch -c my-work)"
    )
    assert state_of(repo, n) is WorkflowState.IN_REVIEW
    git(repo, "stash")
    assert ralph_process("run", "merge", str(n), cwd=repo).returncode == 0
    assert state_of(repo, n) is WorkflowState.DONE


def test_loop_stops_once_on_a_dirty_main_checkout_and_goes_on_after_a_stash(tmp_path):
    # The demo's epic alone: an issue of its farewell beside it would change nothing the
    # epic has not, and go to a person for that.
    repo, _ = create_demo_project(tmp_path / "greet")
    edit_on_main(repo)
    done = ralph_process("loop", cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if "main is checked out" in line]
    assert said == [
        f"Stopped: main is checked out in {repo} with uncommitted changes Ralph's next commit "
        "would overwrite (in greet/core.py): commit or stash them, or keep your checkout on "
        "another branch (git switch -c my-work). `ralph loop` resumes."
    ]
    assert "gave up" not in done.stdout
    assert WorkflowState.IN_REVIEW in states(repo)  # the merge's issue, where it was
    assert WorkflowState.HUMAN_NEEDED not in states(repo)
    git(repo, "stash")
    again = ralph_process("loop", cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert states(repo) == []  # every issue merged, and so closed


def conflict_on_main(repo: Path) -> None:
    """A merge of the person's left with a conflict in their checkout of main."""
    core = repo / "greet" / "core.py"
    git(repo, "switch", "-q", "-c", "theirs")
    core.write_text(core.read_text() + "theirs = 1\n")
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "switch", "-q", "main")
    core.write_text(core.read_text() + "ours = 1\n")
    git(repo, "commit", "-q", "-am", "ours")
    subprocess.run(["git", "merge", "-q", "theirs"], cwd=repo, capture_output=True, check=False)


def test_hero_on_a_conflicted_main_checkout_refuses_before_any_work(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    conflict_on_main(repo)
    done = ralph_process("hero", str(n), cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"ralph: error: main is checked out in {repo} with an unresolved merge conflict: "
        "resolve and commit it (or abort it), or keep your checkout on another branch "
        "(git switch -c my-work)"
    )
    assert "Research" not in done.stdout  # no task started
    assert state_of(repo, n) is WorkflowState.RESEARCH_NEEDED


def test_hero_warns_once_of_uncommitted_changes_on_main_before_it_starts(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    (repo / "README.md").write_text("the person's notes\n")
    git(repo, "add", "README.md")
    done = ralph_process("run", "research", str(n), cwd=repo)  # not a run: no warning
    assert "uncommitted" not in done.stderr
    done = ralph_process("hero", str(n), cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.count("uncommitted changes") == 1
    assert (
        f"main is checked out in {repo} with uncommitted changes (README.md): a merge or "
        "document commit of Ralph's that touches them stops the run"
    ) in " ".join(done.stderr.split())
    assert state_of(repo, n) is WorkflowState.DONE  # nothing of the run touched them


def test_hero_with_an_origin_that_cannot_be_reached_refuses_before_any_work(tmp_path):
    repo, n = farewell_project(tmp_path / "greet")
    git(repo, "remote", "add", "origin", "https://ralph-user:hunter2pw@example.invalid/x.git")
    done = ralph_process("hero", str(n), cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "hunter2pw" not in done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("ralph: error: could not reach origin: ")
    assert line.endswith("; fix the remote or its credentials (git remote -v)")
    assert state_of(repo, n) is WorkflowState.RESEARCH_NEEDED
