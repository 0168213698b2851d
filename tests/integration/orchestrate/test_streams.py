"""Work streams end to end: an L epic split into three independent XS issues, each
changing a file of its own, becomes three streams, each planned, built on its own
worktree and branch, opened as its own pull request and merged on its own."""

from __future__ import annotations

import itertools
from pathlib import Path

from ralph.artifacts import parse_frontmatter, slugify
from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import STREAMS_EPIC_BODY, STREAMS_EPIC_TITLE
from ralph.orchestrate import load_report, suggested_team
from ralph.project import Project, open_project
from ralph.tasks import EventKind, TaskStatus
from ralph.tracker import PullRequestState
from ralph.workflow import Estimate, WorkflowState

from ..conftest import ralph_process
from .conftest import Demo, assert_sound

#: What each sub-issue of the epic adds, and where.
CHANGES = {
    "Add a farewell function": ("greet/core.py", "def farewell"),
    "Add a shout helper": ("greet/shout.py", "def shout"),
    "Add a whisper helper": ("greet/whisper.py", "def whisper"),
}


def streams_project(tmp_path: Path) -> tuple[Path, int]:
    return create_demo_project(tmp_path / "greet", epic=(STREAMS_EPIC_TITLE, STREAMS_EPIC_BODY))


def assert_three_streams_merged(project: Project, epic: int) -> list[int]:
    """Every issue Done, and per sub-issue: a stream plan named and marked for its
    stream, a pull request of its own from its own branch, merged, its change on main."""
    tracker = project.tracker
    children = sorted(tracker.get_issue(epic).sub_issues)
    assert len(children) == 3
    assert [tracker.get_issue(n).workflow_state for n in [epic, *children]] == [
        WorkflowState.DONE
    ] * 4
    git = project.git
    plans = git.git("ls-tree", "--name-only", "main", "thoughts/shared/plans/", what="plans")
    merged = {
        pr.head: pr for pr in project.code_host.list_pull_requests(state=PullRequestState.MERGED)
    }
    assert len(merged) == 3
    for number in children:
        issue = tracker.get_issue(number)
        path, added = CHANGES[issue.title]
        assert added in git.git("show", f"main:{path}", what="read main")
        (plan,) = [p for p in plans.splitlines() if f"-stream-GH-{number}-" in p]
        assert plan.endswith(f"-stream-GH-{number}-{slugify(issue.title)}.md")
        fields, _ = parse_frontmatter(git.git("show", f"main:{plan}", what="read the plan"))
        assert fields["stream_id"] == f"stream-{number}"
        assert fields["stream_issues"] == [number]
        assert fields["epic_issue"] == epic
        assert fields["github_issues"] == [number]
        pr = merged[f"feature/GH-{epic}-stream-{number}"]
        assert pr.title == f"{issue.title} [stream-{number} of GH-{epic}]"
        assert pr.closes == (number,)
        assert f"Stream: stream-{number}" in pr.body
    log = git.git("log", "--merges", "--format=%s", "main", what="read the merges")
    assert sorted(log.splitlines()) == sorted(
        f"Merge pull request #{pr.number} from {pr.head}" for pr in merged.values()
    )
    return children


def assert_own_worktrees(project: Project, run_id: int, epic: int, children: list[int]) -> None:
    """Each stream's implementation made (and a merge removed) a worktree of its own: its
    own merge, or the merge train that landed it with its own."""

    def said(kind: str, number: int | None = None) -> list[str]:
        done = project.store.list_tasks(run_id, kind=kind, issue=number, status=TaskStatus.DONE)
        assert number is None or len(done) == 1
        return [line for task in done for line in (task.result or {}).get("lines", [])]

    for number in children:
        worktree = f"worktrees/GH-{epic}-stream-{number}"
        created = f"Created worktree {worktree} on feature/GH-{epic}-stream-{number}."
        assert created in said("implement", number)
        assert f"Removed worktree {worktree}." in said("merge")
    assert list(project.git.worktrees()) == [project.git.path.resolve()]


def test_hero_plans_builds_and_merges_each_stream_of_an_epic_on_its_own(tmp_path: Path):
    repo, epic = streams_project(tmp_path)
    result = ralph_process("hero", str(epic), cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    with open_project(load_config(repo)) as project:
        children = assert_three_streams_merged(project, epic)
        (run,) = project.store.list_runs(root_issue=epic)
        assert_own_worktrees(project, run.id, epic, children)
        assert_sound(load_report(project.store, run.id))
    shown = ralph_process("runs", "show", str(run.id), cwd=repo)
    for out in (result.stdout, shown.stdout):
        assert "Work streams (3):" in out
        for number in children:
            assert (
                f"stream-{number} (#{number}): worktrees/GH-{epic}-stream-{number} on "
                f"feature/GH-{epic}-stream-{number}; 5/5 tasks done, merged"
            ) in out


def test_a_team_builds_independent_streams_side_by_side(tmp_path: Path):
    repo, epic = streams_project(tmp_path)
    # Half a second per agent makes builders working at once overlap visibly; three
    # validators pass the three plans together.
    result = ralph_process(
        "team",
        str(epic),
        "--workers",
        "validator=3",
        cwd=repo,
        env={"RALPH_SCRIPTED_DELAY": "0.5"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The suggested roster brings a builder per stream there may be.
    assert "builder-3" in result.stdout
    with open_project(load_config(repo)) as project:
        children = assert_three_streams_merged(project, epic)
        (run,) = project.store.list_runs(root_issue=epic)
        assert_own_worktrees(project, run.id, epic, children)
        assert_sound(load_report(project.store, run.id))
        implements = project.store.list_tasks(run.id, kind="implement", status=TaskStatus.DONE)
        assert len({t.owner for t in implements}) >= 2
        spans: dict[int, list[float]] = {}
        for event in project.store.events(run.id):
            if event.task_id in {t.id for t in implements}:
                if event.kind is EventKind.TASK_CLAIMED:
                    spans[event.task_id] = [event.at, event.at]
                elif event.kind is EventKind.TASK_DONE:
                    spans[event.task_id][1] = event.at
    overlapping = [
        (a, b) for a, b in itertools.combinations(spans.values(), 2) if a[0] < b[1] and b[0] < a[1]
    ]
    assert overlapping, spans


def test_a_team_brings_builders_for_the_streams_research_may_still_reveal(demo: Demo):
    tracker = demo.project.tracker

    def builders(root: int) -> int:
        return suggested_team(demo.project, root, "auto")["builder"]

    assert builders(demo.epic) == 3  # not sized yet: a split may make any number
    chain = demo.group()  # three issues, each blocked by the one before: one stream
    assert builders(chain[0]) == 1
    parent = tracker.create_issue("Say more", estimate=Estimate.S).number
    apart = [
        tracker.create_issue(
            title, parent=parent, state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
        ).number
        for title in CHANGES
    ]
    assert builders(apart[0]) == 3  # nothing links them yet
    assert builders(demo.issue("farewell")) == 1
