"""``ralph hero`` killed at every phase (SIGKILL, what ``kill -9`` sends; or Ctrl-C twice),
then run again: the pipeline ends Done and nothing was done twice (no comment, document,
sub-issue, commit or pull request)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.phases import PhaseRunner
from ralph.project import open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import RunStatus, TaskStatus
from ralph.tracker import IssueQuery
from ralph.workflow import WorkflowState

from ..conftest import ralph_process, spawn_ralph
from .test_team import wait_until

CRASHING = Path(__file__).with_name("crashing_ralph.py")
_LOCAL = "ralph.tracker.local._tracker.LocalTracker"
_HOST = "ralph.tracker.local._pulls.LocalCodeHost"

#: Where the first run dies: while each phase's agent works, or right after a write
#: whose follow-ups (comments, moves, placing) have not happened yet.
CRASHES = {
    "triage": "agent:triage",
    "split": "agent:split",
    "split, after its first sub-issue": f"after:{_LOCAL}.create_issue",
    "research": "agent:research",
    "research, after its document is committed": "after:ralph.phases._context.commit_files",
    "plan": "agent:plan",
    "plan, after its document is committed": "after:ralph.phases._context.commit_files:4",
    "review": "agent:review",
    "implement": "agent:implement",
    "pr, after the pull request is opened": f"after:{_HOST}.create_pull_request",
    "merge, after the pull request is merged": f"after:{_HOST}.merge_pull_request",
}


def crash(repo: Path, where: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``ralph ARGS`` through ``crashing_ralph.py``, which kills it at ``where``."""
    return ralph_process(
        *args, cwd=repo, timeout=120, command=(sys.executable, str(CRASHING), where)
    )


def planning(repo: Path) -> bool:
    """The plan task runs and has taken its issues (they are Plan in Progress)."""
    with open_project(load_config(repo)) as project:
        runs = project.store.list_runs()
        running = runs and project.store.list_tasks(
            runs[0].id, kind="plan", status=TaskStatus.RUNNING
        )
        locked = project.tracker.get_issue(2).workflow_state is WorkflowState.PLAN_IN_PROGRESS
        return bool(running) and locked


def assert_recovered(repo: Path, epic: int) -> None:
    """Everything Done, once: the invariants of the reliability report's checker."""
    with open_project(load_config(repo)) as project:
        tracker, store, git = project.tracker, project.store, project.git
        root = tracker.get_issue(epic)
        assert len(root.sub_issues) == 3
        family = [root, *map(tracker.get_issue, root.sub_issues)]
        assert {i.workflow_state for i in family} == {WorkflowState.DONE}
        assert len(tracker.list_issues(IssueQuery(status=None))) == 4
        for issue in family:
            bodies = Counter(c.body for c in issue.comments)
            assert [b for b, n in bodies.items() if n > 1] == [], issue.number
            dones = [c for c in issue.comments if "→ Done" in c.body]
            assert len(dones) == 1, issue.number
            repo_name = project.config.repo or git.path.name
            assert store.get_issue_lock(repo_name, issue.number) is None
        pulls = project.code_host.list_pull_requests()
        assert [p.state.value for p in pulls] == ["merged"]
        documents = git.run("ls-tree", "-r", "--name-only", "main", "thoughts").stdout.split()
        kinds = Counter(path.split("/")[2] for path in documents)
        assert kinds == {"research": 3, "plans": 1, "reviews": 1}, documents
        subjects = git.run("log", "--format=%s", "main").stdout.splitlines()
        commits = Counter(s for s in subjects if s.startswith("docs("))
        assert sorted(commits.values()) == [1] * 5, commits  # each document committed once
        merges = git.run("log", "--merges", "--format=%H", "main").stdout.split()
        assert len(merges) == 1
        assert "def farewell" in git.run("show", "main:greet/core.py").stdout
        assert all(run.status is RunStatus.FINISHED for run in store.list_runs())
        left = [p for p in git.worktrees() if p != git.path.resolve()]
        assert left == [], left


@pytest.fixture
def demo_repo(tmp_path: Path) -> tuple[Path, int]:
    return create_demo_project(tmp_path / "greet")


@pytest.mark.parametrize("where", list(CRASHES.values()), ids=list(CRASHES))
def test_a_hero_killed_at_any_phase_resumes_to_done_without_doing_anything_twice(demo_repo, where):
    repo, epic = demo_repo
    # One task at a time: the crash comes at that point and nowhere else (a kill inside a
    # concurrent `git worktree add` is another matter, with its own tests).
    killed = crash(repo, where, "hero", str(epic), "--concurrency", "1")
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    again = ralph_process("hero", str(epic), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Resumed run 1." in again.stdout
    assert_recovered(repo, epic)


def ready_for_plan(repo: Path, epic: int) -> None:
    """The epic split and its sub-issues researched, phase by phase: the plan is next."""
    with open_project(load_config(repo)) as project:
        runner = PhaseRunner(project, ScriptedRuntime(env={}))
        assert runner.run("triage", epic).ok
        assert runner.run("split", epic).ok
        for number in project.tracker.get_issue(epic).sub_issues:
            assert runner.run("research", number).ok


def test_a_hero_killed_by_a_signal_while_the_plan_agent_works_resumes_to_done(demo_repo):
    repo, epic = demo_repo
    ready_for_plan(repo, epic)
    hero = spawn_ralph("hero", str(epic), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "30"})
    try:
        wait_until(lambda: planning(repo))
    finally:
        hero.send_signal(signal.SIGKILL)
        hero.communicate(timeout=30)
    again = ralph_process("hero", str(epic), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert_recovered(repo, epic)


def test_ctrl_c_twice_while_the_plan_agent_works_hands_it_back_and_a_rerun_ends_done(
    demo_repo, tmp_path
):
    repo, epic = demo_repo
    ready_for_plan(repo, epic)
    said = tmp_path / "hero.err"
    with said.open("w") as stderr:
        hero = spawn_ralph(
            "hero", str(epic), cwd=repo, env={"RALPH_SCRIPTED_DELAY": "30"}, stderr=stderr
        )
        try:
            wait_until(lambda: planning(repo))
            hero.send_signal(signal.SIGINT)
            # Two signals before Python handles the first are one: wait until it did.
            wait_until(lambda: "Stopping: no new tasks" in said.read_text())
            hero.send_signal(signal.SIGINT)
            out, _ = hero.communicate(timeout=30)
        finally:
            if hero.poll() is None:
                hero.kill()
                hero.communicate(timeout=30)
    err = said.read_text()
    assert "Stopping now: handing running tasks back" in err
    assert hero.returncode == 130, out + err
    again = ralph_process("hero", str(epic), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert_recovered(repo, epic)
