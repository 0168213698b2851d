"""``ralph hero`` on a (fake) Linear team, killed right after Linear carried out a write
and before Ralph heard back, then run again: the run ends Done with every sub-issue
made once, nothing written twice, and no rerun says "finished" with work left.
RALPH_SWEEP_ALL=1 kills it after every write of the run, not a sample."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.linear import LinearClient
from ralph.linear.fake import FakeLinear
from ralph.tracker.linear import LinearTracker, set_up_team
from ralph.workflow import WorkflowState

from ..conftest import copy_checkout, ralph_process, spawn_ralph
from ..kills import kill_after

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

TOKEN = "lin_api_crash_sweep_key"


def env_of(url: str) -> dict[str, str]:
    return {"COLUMNS": "160", "RALPH_LINEAR_API_URL": url, "RALPH_LINEAR_TOKEN": TOKEN}


def new_fake() -> FakeLinear:
    fake = FakeLinear()  # Linear's own budgets
    fake.add_token(TOKEN, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    return fake


def states_and_labels(fake: FakeLinear) -> list[tuple[str, ...]]:
    """What ``ralph init`` writes to Linear: the team's workflow states (and labels)."""
    eng = fake.workspace.team("ENG")
    states: list[tuple[str, ...]] = [(s.name, s.type, str(s.position)) for s in eng.state_list]
    labels: list[tuple[str, ...]] = [
        ("label", label.name) for label in [*eng.label_list, *fake.workspace.labels]
    ]
    return sorted(states + labels)


@pytest.fixture(scope="module")
def set_up_once(tmp_path_factory) -> tuple[Path, list[tuple[str, ...]]]:
    """The sample repository set up by a real ``ralph init`` for Linear team ENG
    (scripted agents, the local code host), committed, made once for the module (each
    test works in a copy); and what that init wrote to Linear."""
    fake = new_fake()
    work = create_sample_repository(tmp_path_factory.mktemp("linear-sweep") / "work")
    tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
    with fake.serve() as url:
        made = ralph_process(
            "init", "--linear", "ENG", "--test-command", tests, cwd=work, env=env_of(url)
        )
        assert made.returncode == 0, made.stderr
    toml = work / "ralph.toml"
    toml.write_text(toml.read_text().replace('runtime = "claude"', 'runtime = "scripted"'))
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    commit = ["commit", "-qm", "Set up Ralph"]
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *commit], cwd=work, check=True
    )
    return work, states_and_labels(fake)


@pytest.fixture
def team(tmp_path, set_up_once) -> Iterator[tuple[Path, FakeLinear, dict[str, str]]]:
    """A copy of the set-up sample repository; a fresh fake with what ``ralph init``
    wrote to Linear, written by the same code in this process (a process less per
    test); and the environment to run ``ralph`` in."""
    template, written = set_up_once
    fake = new_fake()
    set_up_team(LinearClient(fake, TOKEN), "ENG")
    assert states_and_labels(fake) == written
    work = copy_checkout(template, tmp_path / "work")
    with fake.serve() as url:
        yield work, fake, env_of(url)


def tracker_of(fake: FakeLinear) -> LinearTracker:
    return LinearTracker(LinearClient(fake, TOKEN), "ENG")


def assert_done_once(fake: FakeLinear) -> None:
    eng = fake.workspace.team("ENG")
    assert len(eng.issue_list) == 4, [i.title for i in eng.issue_list]  # no sub-issue twice
    (epic,) = [i for i in eng.issue_list if i.parent is None]
    assert len(epic.child_list) == 3
    assert {i.state.name for i in eng.issue_list} == {"Done"}
    for issue in eng.issue_list:
        bodies = Counter(c.body for c in issue.comment_list)
        assert [b for b, n in bodies.items() if n > 1] == [], issue.number
        relations = Counter((r.type, r.relatedIssue.id) for r in issue.relation_list)
        assert [r for r, n in relations.items() if n > 1] == [], issue.number
    labels = Counter(label.name.casefold() for label in eng.label_list)
    assert [name for name, n in labels.items() if n > 1] == []


#: Where the demo epic's run stands after its Nth write from the first CreateIssue (38
#: in all when written; a move carries its audit comment, and a phase's note rides on
#: the move after it): a sub-issue made and placed (1-6), related (7-8), the split
#: reported (9-10); research under way and reported (11-16); the group's plan, review
#: and pull request part applied, some members moved on and some not (17-31); the
#: merge part done (32-35); the merged notes (36-38).
SWEEP = (1, 2, 4, 6, 7, 9, 10, 11, 13, 14, 16, 18, 20, 21, 24, 26, 28, 30, 32, 34, 36, 38)
RERUN_ALL = os.environ.get("RALPH_SWEEP_ALL") == "1"


@pytest.mark.parametrize("nth", range(1, 39) if RERUN_ALL else SWEEP)
def test_a_hero_killed_just_after_a_linear_write_resumes_to_done_in_one_rerun(team, nth):
    work, fake, env = team
    tracker = tracker_of(fake)
    epic = tracker.create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG).number
    arm = kill_after(fake, nth)
    hero = spawn_ralph("hero", str(epic), cwd=work, env=env)
    arm(hero.pid)
    out, err = hero.communicate(timeout=300)
    assert hero.returncode == -signal.SIGKILL, out[-3000:] + err[-3000:]

    again = ralph_process("hero", str(epic), cwd=work, env=env, timeout=600)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert_done_once(fake)


def test_a_run_on_linear_names_its_issues_as_linear_does(team):
    work, fake, env = team
    epic = (
        tracker_of(fake)
        .create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
        .number
    )
    run = ralph_process("hero", str(epic), cwd=work, env=env, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    for line in ("Run 1: hero ENG-1", "Split ENG-1", "Plan group ENG-2", "Merge PR for ENG-2"):
        assert line in run.stdout, run.stdout[-4000:]
    assert "Implement GH-" not in run.stdout
