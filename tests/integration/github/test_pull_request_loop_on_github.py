"""The last mile on a (fake) GitHub over HTTP, ``ralph hero`` as a process with the
scripted agents: branch protection, CI's checks on GitHub's clock, a person's review on
GitHub, merge methods and GitHub's odd answers, under each merge policy."""

from __future__ import annotations

import itertools
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo._sample import FAREWELL
from ralph.github.fake import CheckPlan, ScriptedFault
from ralph.tasks import EventKind, TaskStatus, open_store
from ralph.tracker import GitHubCodeHost
from ralph.workflow import Estimate, WorkflowState

from .conftest import Served, git, ralph_on_the_board, tracker_of

#: Each test runs ``ralph hero`` as a process through six phases on GitHub, some twice.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

REPO = "acme/greet"
RENAME = """```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -5,2 +5,2 @@
 def farewell(name):
-    return f"Goodbye, {name}!"
+    return f"Farewell, {name}!"
```"""


def on_github(shop, policy: str) -> tuple[Path, Path, Served, dict[str, str], int]:
    """Ralph on the board with ``merge_policy = policy`` and short waits, and one XS
    issue whose diff adds ``farewell``."""
    work, origin, served = shop
    env = {
        **ralph_on_the_board(work, served),
        "RALPH_MERGE_POLICY": policy,
        "RALPH_MERGE_WAIT_SECONDS": "0.5",
        "RALPH_MERGE_MAX_WAIT_SECONDS": "1",
    }
    served.fake.add_token("ghp_alice", "alice")
    issue = tracker_of(served.fake).create_issue(
        "Add a farewell function",
        body=f"Add `farewell`.\n\n{FAREWELL}\n",
        state=WorkflowState.RESEARCH_NEEDED,
        estimate=Estimate.XS,
    )
    return work, origin, served, env, issue.number


def hero(
    served: Served, work: Path, env: dict[str, str], number: int
) -> subprocess.CompletedProcess[str]:
    done: subprocess.CompletedProcess[str] = served.ralph(
        "hero", str(number), cwd=work, env=env, timeout=400
    )
    return done


def state(served: Served, number: int) -> WorkflowState | None:
    return tracker_of(served.fake).get_issue(number).workflow_state


def merged_requests(served: Served) -> list[str]:
    return [p.state for p in served.fake.repository(REPO).pull_list]


@pytest.mark.timeout(600)  # three runs of hero
def test_approval_a_review_on_github_is_addressed_and_the_approval_merges(shop):
    work, origin, served, env, number = on_github(shop, "approval")
    served.fake.protect(REPO, approvals=1)

    first = hero(served, work, env, number)
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-3000:]
    assert "waiting for: review" in first.stdout
    (pr,) = served.fake.repository(REPO).pull_list
    served.fake.review(
        REPO,
        pr.number,
        "alice",
        "REQUEST_CHANGES",
        "Say farewell, not goodbye.",
        threads=[{"path": "greet/core.py", "line": 6, "body": f"This way:\n\n{RENAME}"}],
    )

    second = hero(served, work, env, number)
    assert second.returncode == 1, second.stdout[-3000:] + second.stderr[-3000:]
    assert "waiting for: review" in second.stdout
    assert 'f"Farewell, {name}!"' in git(origin, "show", f"{pr.headRefName}:greet/core.py")
    (thread,) = GitHubCodeHost.of(tracker_of(served.fake)).get_pull_request(pr.number).threads
    assert thread.resolved
    assert thread.comments[-1].body.startswith("Fixed in ")
    assert state(served, number) is WorkflowState.IN_REVIEW

    served.fake.review(REPO, pr.number, "alice", "APPROVE", "Good.")
    third = hero(served, work, env, number)
    assert third.returncode == 0, third.stdout[-3000:] + third.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert state(served, number) is WorkflowState.DONE
    assert 'f"Farewell, {name}!"' in git(origin, "show", "main:greet/core.py")
    assert served.fake.internal_errors == []


def test_a_required_check_failing_once_passes_after_an_address_round(shop):
    work, origin, served, env, number = on_github(shop, "checks")
    served.fake.protect(REPO, checks=["ci"])
    served.fake.run_ci(
        REPO,
        CheckPlan(
            "ci", conclusions=("FAILURE", "SUCCESS"), summary="AssertionError: 'Goodbye, Ada!'"
        ),
    )
    tracker_of(served.fake).add_comment(number, f"CI will want this:\n\n{RENAME}")
    run = hero(served, work, env, number)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert state(served, number) is WorkflowState.DONE
    assert 'f"Farewell, {name}!"' in git(origin, "show", "main:greet/core.py")
    with open_store(load_config(work, env={}).resolved_store_url) as store:
        (run_record,) = store.list_runs(root_issue=number)
        tasks = {t.key: t for t in store.list_tasks(run_record.id)}
    assert tasks[f"address:{number}"].status is TaskStatus.DONE
    assert tasks[f"merge:{number}~2"].status is TaskStatus.DONE
    assert "Escalation" not in run.stdout


def test_checks_pending_for_a_while_wait_without_a_worker_and_merge_when_green(shop):
    work, _, served, env, number = on_github(shop, "checks")
    served.fake.protect(REPO, checks=["ci"])
    served.fake.run_ci(REPO, CheckPlan("ci", queued=1, running=3))
    run = hero(served, work, env, number)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert state(served, number) is WorkflowState.DONE
    with open_store(load_config(work, env={}).resolved_store_url) as store:
        (run_record,) = store.list_runs(root_issue=number)
        (merge,) = store.list_tasks(run_record.id, kind="merge")
        events = [e for e in store.events(run_record.id) if e.task_id == merge.id]
    kinds = [e.kind for e in events]
    assert kinds.count(EventKind.TASK_WAITING) >= 1
    assert EventKind.TASK_FAILED not in kinds
    assert (merge.status, merge.attempts) == (TaskStatus.DONE, 1)  # waits spend no attempt
    # Between a wait and the next look the task is pending: no worker holds it.
    for before, after in itertools.pairwise(kinds):
        if before is EventKind.TASK_WAITING:
            assert after in (EventKind.TASK_CLAIMED, EventKind.TASK_WOKEN)


def test_a_repository_that_forbids_merge_commits_gets_a_squash(shop):
    work, origin, served, env, number = on_github(shop, "checks")
    served.fake.allow_merges(REPO, merge=False)
    run = hero(served, work, env, number)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    parents = git(origin, "rev-list", "--parents", "-n", "1", "main").split()
    assert len(parents) == 2  # the commit and one parent: no merge commit


def test_a_merge_github_answers_not_mergeable_but_landed_is_done(shop):
    work, _, served, env, number = on_github(shop, "checks")
    served.fake.script(ScriptedFault.merged_but_not_mergeable())
    run = hero(served, work, env, number)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert state(served, number) is WorkflowState.DONE
    assert "Escalation" not in run.stdout


@pytest.mark.timeout(450)  # two runs of hero
def test_manual_a_person_merges_and_the_rerun_finishes(shop):
    work, _, served, env, number = on_github(shop, "manual")
    first = hero(served, work, env, number)
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-3000:]
    assert "waiting for: a person to merge" in first.stdout
    (pr,) = served.fake.repository(REPO).pull_list
    merged = served.ralph("pr", "merge", str(pr.number), cwd=work, env=env)  # the person
    assert merged.returncode == 0, merged.stdout + merged.stderr
    second = hero(served, work, env, number)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert state(served, number) is WorkflowState.DONE


def test_a_merge_queue_takes_the_pull_request_and_the_merge_waits_for_it(shop):
    work, _, served, env, number = on_github(shop, "checks")
    served.fake.protect(REPO, merge_queue=True, queue_seconds=2)
    run = hero(served, work, env, number)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert state(served, number) is WorkflowState.DONE


def test_a_branch_behind_its_base_is_rebased_and_merged_when_its_checks_pass_again(shop):
    work, origin, served, env, number = on_github(shop, "checks")
    served.fake.protect(REPO, checks=["ci"], strict=True)
    served.fake.run_ci(REPO, CheckPlan("ci", running=1))
    moved: list[str] = []

    def main_moves_once_the_pull_request_is_open() -> None:
        deadline = time.monotonic() + 300
        while not served.fake.repository(REPO).pull_list and time.monotonic() < deadline:
            time.sleep(0.2)
        clone = work.parent / "someone"
        git(work.parent, "clone", "-q", str(origin), str(clone))
        (clone / "NOTES.md").write_text("notes\n")
        git(clone, "add", "NOTES.md")
        git(clone, "-c", "user.name=s", "-c", "user.email=s@s", "commit", "-qm", "notes")
        git(clone, "push", "-q", "origin", "main")
        moved.append(git(clone, "rev-parse", "HEAD"))

    someone = threading.Thread(target=main_moves_once_the_pull_request_is_open, daemon=True)
    someone.start()
    run = hero(served, work, env, number)
    someone.join(timeout=10)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert merged_requests(served) == ["MERGED"]
    assert moved
    (pr,) = served.fake.repository(REPO).pull_list
    rebased = git(origin, "rev-list", pr.headRefName).split()
    assert moved[0] in rebased  # the branch was brought onto the moved base, then merged
    assert "NOTES.md" in git(origin, "ls-tree", "--name-only", "main").split()
