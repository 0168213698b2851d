"""Best of N end to end on the local tracker with the scripted agents: N attempts of one
plan on their own branches at once, the winner by the score (or a validator's reasoned
choice), its branch merged and the others kept until Done; a process killed during the
attempts resumes without running a finished attempt again and merges once."""

from __future__ import annotations

import dataclasses
import io
import signal
import sys
from collections import Counter
from pathlib import Path

import pytest

from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.cli._report import print_report
from ralph.config import BestOf, load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import FAREWELL
from ralph.orchestrate import Ending
from ralph.phases import PhaseRunner, PhaseStatus
from ralph.project import open_project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tasks import EventKind, TaskStatus
from ralph.workflow import Estimate, WorkflowState

from ..conftest import ralph_process
from .conftest import Demo, assert_sound

CRASHING = Path(__file__).with_name("crashing_ralph.py")
DONE = WorkflowState.DONE


def farewell(demo_or_project: Demo, tries: str, state: WorkflowState) -> int:
    """The farewell issue whose ``Try K:`` lines say what each attempt does."""
    body = f"Add `farewell` to the core module.\n\n{FAREWELL}\n\n{tries}\n"
    return demo_or_project.project.tracker.create_issue(
        "Add a farewell function", body=body, state=state, estimate=Estimate.XS
    ).number


THREE = "Try 1: break-tests\nTry 2: large\nTry 3: small"


def branches(demo: Demo) -> list[str]:
    listed = demo.project.git.git("branch", "--format=%(refname:short)", what="list branches")
    return sorted(listed.split())


def test_best_of_three_merges_the_small_passing_attempt_and_the_report_says_why(demo: Demo):
    number = farewell(demo, THREE, WorkflowState.RESEARCH_NEEDED)
    result = demo.hero(number, best_of=BestOf(count=3))
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is DONE
    statuses = demo.statuses(result)
    assert {f"implement:{number}/try-{k}" for k in (1, 2, 3)} <= set(statuses)
    assert all(status == "done" for status in statuses.values()), statuses
    # The small diff is what landed: no padding file, no module broken at import.
    assert "def farewell" in demo.on_main("greet/core.py")
    assert "RuntimeError" not in demo.on_main("greet/core.py")
    tree = demo.project.git.git("ls-tree", "-r", "--name-only", "main", what="list main")
    assert not [path for path in tree.split() if path.startswith("scripted_try_")]
    report = demo.report(result)
    assert_sound(report)
    (best,) = report.best_of
    assert best.winner == 3
    by_try = {a.attempt: a for a in best.attempts}
    assert by_try[1].tests == "failed"
    assert by_try[2].tests == by_try[3].tests == "passed"
    assert by_try[2].diff_lines > by_try[3].diff_lines
    assert [a.rank for a in best.attempts] == [3, 2, 1]
    assert "try 3 won" in best.reason
    assert "try 2's diff is larger" in best.reason
    assert "try 1's tests fail" in best.reason
    # The attempts ran side by side: the run took less than their sum.
    seconds = [a.seconds for a in best.attempts]
    assert report.makespan < report.work
    assert max(seconds) < sum(seconds)
    # Done: the losing branches are gone (the issue's stays, as without best of N).
    assert branches(demo) == [f"feature/GH-{number}", "main"]
    console = Console(width=160, record=True)
    print_report(report, console)
    printed = console.export_text()
    assert "Why: try 3 won" in printed
    assert "won" in printed
    assert "lost" in printed


def test_until_done_the_losing_attempts_stay_as_branches_and_the_winner_is_the_issue_branch(
    demo: Demo,
):
    number = farewell(demo, THREE, WorkflowState.RESEARCH_NEEDED)
    before_pr = {"research", "plan", "review", "implement"}
    result = demo.hero(number, best_of=BestOf(count=3), phases=before_pr)
    assert result.ending is Ending.PHASES_DONE
    git = demo.project.git
    issue_branch, winner = f"feature/GH-{number}", f"feature/GH-{number}-try-3"
    assert git.resolve(f"refs/heads/{issue_branch}") == git.resolve(f"refs/heads/{winner}")
    assert set(branches(demo)) == {
        "main",
        issue_branch,
        *(f"feature/GH-{number}-try-{k}" for k in (1, 2, 3)),
    }
    worktrees = sorted(p.name for p in git.worktrees() if p != git.path.resolve())
    assert worktrees == [f"GH-{number}"]  # the attempts' worktrees went with the choice
    # The resumed run keeps its best of 3 (no option given this time).
    again = demo.hero(number)
    assert again.ending is Ending.FINISHED
    assert again.resumed
    assert demo.state(number) is DONE
    assert branches(demo) == [issue_branch, "main"]


def test_with_review_skipped_the_attempts_take_the_plan_from_plan_in_review(demo: Demo):
    number = farewell(demo, THREE, WorkflowState.RESEARCH_NEEDED)
    result = demo.hero(number, best_of=BestOf(count=2), review_mode="skip")
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is DONE
    (best,) = demo.report(result).best_of
    assert best.winner == 2  # try 1 breaks the tests


def test_a_validator_chooses_among_the_passing_attempts_and_says_why(demo: Demo):
    number = farewell(demo, f"{THREE}\nSelect: try 2", WorkflowState.RESEARCH_NEEDED)
    result = demo.hero(number, best_of=BestOf(count=3, select="review"))
    assert result.ending is Ending.FINISHED
    (best,) = demo.report(result).best_of
    assert best.winner == 2
    assert best.reason.startswith("the validator chose try 2: the issue asks for try 2")
    assert "by the score: try 3 won" in best.reason
    assert "scripted_try_2_notes.txt" in demo.project.git.git(
        "ls-tree", "-r", "--name-only", "main", what="list main"
    )


def test_when_no_attempt_passes_the_issue_goes_to_a_person_with_every_attempt_kept(demo: Demo):
    tries = "Try 1: break-tests\nTry 2: break-tests"
    number = farewell(demo, tries, WorkflowState.RESEARCH_NEEDED)
    result = demo.hero(number, best_of=BestOf(count=2))
    assert demo.state(number) is WorkflowState.HUMAN_NEEDED
    report = demo.report(result)
    assert any("none of the 2 attempts passed" in line for line in report.needs_person)
    comments = [c.body for c in demo.project.tracker.get_issue(number).comments]
    assert any("Escalation: best of 2" in body for body in comments)
    assert {f"feature/GH-{number}-try-1", f"feature/GH-{number}-try-2"} <= set(branches(demo))
    assert f"feature/GH-{number}" not in branches(demo)


def test_attempts_stop_starting_once_the_task_budget_is_spent(demo: Demo):
    number = farewell(demo, "", WorkflowState.RESEARCH_NEEDED)
    config = dataclasses.replace(demo.project.config, budget_task_usd=0.25)
    demo = dataclasses.replace(demo, project=dataclasses.replace(demo.project, config=config))
    runtime = ScriptedRuntime(env={}, cost_usd=0.2)
    # One worker: the attempts run one after the other, each seeing what the ones before
    # it spent.
    result = demo.hero(number, runtime, best_of=BestOf(count=3), concurrency=1)
    assert result.ending is Ending.FINISHED
    (best,) = demo.report(result).best_of
    ran = [a for a in best.attempts if a.cost_usd > 0]
    skipped = [a for a in best.attempts if "budget" in a.problem]
    assert len(ran) == 2, best.attempts
    assert len(skipped) == 1, best.attempts
    assert skipped[0].attempt == 3


def test_run_implement_with_best_of_runs_the_attempts_and_keeps_the_best(demo: Demo):
    number = farewell(demo, THREE, WorkflowState.RESEARCH_NEEDED)
    runner = PhaseRunner(demo.project, ScriptedRuntime(env={}))
    for phase in ("research", "plan", "review"):
        assert runner.run(phase, number).ok
    outcome = runner.run_best_of(number, BestOf(count=3))
    assert outcome.status is PhaseStatus.DONE, outcome  # not a rerun's already_done
    assert any(line.startswith("Best of 3: try 3 won") for line in outcome.lines)
    assert runner.run_best_of(number, BestOf(count=3)).status is PhaseStatus.ALREADY_DONE
    git = demo.project.git
    assert git.resolve(f"refs/heads/feature/GH-{number}") == git.resolve(
        f"refs/heads/feature/GH-{number}-try-3"
    )
    assert demo.state(number) is WorkflowState.IN_PROGRESS
    assert runner.run("pr", number).ok
    assert runner.run("merge", number).ok
    assert demo.state(number) is DONE
    assert branches(demo) == [f"feature/GH-{number}", "main"]


# -- kill -9 during the attempts ----------------------------------------------------------


@pytest.fixture
def demo_repo(tmp_path: Path) -> tuple[Path, int]:
    repo, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        body = f"Add `farewell` to the core module.\n\n{FAREWELL}\n\n{THREE}\n"
        number = project.tracker.create_issue(
            "Add a farewell function",
            body=body,
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.XS,
        ).number
    return repo, number


CRASHES = {
    "after the first attempt ended": "after:ralph.orchestrate._execute.TaskExecutor._attempt_done",
    "while the winner is installed": "after:ralph.phases._runner.PhaseRunner.install_attempt",
}


@pytest.mark.parametrize("where", list(CRASHES.values()), ids=list(CRASHES))
def test_a_hero_killed_during_best_of_resumes_without_rerunning_an_attempt_and_merges_once(
    demo_repo: tuple[Path, int], where: str
):
    repo, number = demo_repo
    command = (sys.executable, str(CRASHING), where)
    killed = ralph_process("hero", str(number), "--best-of", "3", cwd=repo, command=command)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    with open_project(load_config(repo)) as project:
        (run,) = project.store.list_runs()
        finished_before = {
            t.key
            for t in project.store.list_tasks(run.id, kind="implement", status=TaskStatus.DONE)
        }
    assert finished_before, "the crash came before any attempt ended"
    again = ralph_process("hero", str(number), cwd=repo)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Resumed run 1." in again.stdout
    assert "Why: try 3 won" in again.stdout
    with open_project(load_config(repo)) as project:
        store, git = project.store, project.git
        assert project.tracker.get_issue(number).workflow_state is DONE
        tasks = {t.id: t for t in store.list_tasks(run.id)}
        completed = Counter(
            tasks[e.task_id].key
            for e in store.events(run.id)
            if e.kind is EventKind.TASK_DONE and e.task_id is not None
        )
        assert all(n == 1 for n in completed.values()), completed
        claimed = Counter(
            tasks[e.task_id].key
            for e in store.events(run.id)
            if e.kind is EventKind.TASK_CLAIMED and e.task_id is not None
        )
        for key in finished_before:  # a finished attempt never ran again
            assert claimed[key] == 1, (key, claimed)
        merges = git.run("log", "--merges", "--format=%H", "main").stdout.split()
        assert len(merges) == 1
        assert [p.state.value for p in project.code_host.list_pull_requests()] == ["merged"]
        core = git.run("show", "main:greet/core.py").stdout
        assert "def farewell" in core
        assert "RuntimeError" not in core
        left = git.git("branch", "--format=%(refname:short)", what="list branches").split()
        assert sorted(left) == [f"feature/GH-{number}", "main"]


def test_the_live_view_shows_each_attempt_and_the_choice(demo: Demo):
    number = farewell(demo, THREE, WorkflowState.RESEARCH_NEEDED)
    out = io.StringIO()
    view = LiveView(demo.project.store, demo.project.tracker, Console(file=out, width=300))
    demo.hero(number, observer=view, best_of=BestOf(count=3))
    lines = out.getvalue().splitlines()
    assert any(f"Implement GH-{number} (try 2 of 3) [hero-" in line for line in lines)
    assert any("Try 1 finished" in line and "tests failed" in line for line in lines)
    assert any("Best of 3: try 3 won" in line for line in lines)
    terminal = io.StringIO()
    live = LiveView(
        demo.project.store,
        demo.project.tracker,
        Console(file=terminal, force_terminal=True, width=160, color_system=None),
    )
    again = farewell(demo, THREE, WorkflowState.RESEARCH_NEEDED)
    with live.showing():
        demo.hero(again, observer=live, best_of=BestOf(count=3))
    shown = terminal.getvalue()
    assert f"Implement GH-{again} (best of 3)" in shown
    assert "Score" in shown
