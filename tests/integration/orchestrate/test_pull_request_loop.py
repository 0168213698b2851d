"""The last mile on the local tracker, orchestrated (``ralph hero`` in-process, scripted
agents, real git and SQLite): the merge waits for what the merge policy needs, a review
or a failed required check becomes an address round for the builder, and the issue ends
Done, or waits for a person without holding a worker."""

from __future__ import annotations

import dataclasses
import time

import pytest

from ralph.config import MergeWaitSettings
from ralph.demo._sample import FAREWELL
from ralph.errors import MergeConflict
from ralph.git import commit_files
from ralph.orchestrate import Ending
from ralph.tasks import TaskStatus
from ralph.tracker import LocalCodeHost, MergeStrategy
from ralph.workflow import Estimate, MergePolicy, WorkflowState

from .conftest import Demo, assert_sound

RENAME = """```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -5,2 +5,2 @@
 def farewell(name):
-    return f"Goodbye, {name}!"
+    return f"Farewell, {name}!"
```"""

STRICT_TEST = """import unittest

import greet.core


class FarewellTest(unittest.TestCase):
    def test_farewell_says_farewell(self):
        self.assertEqual(greet.core.farewell("Ada"), "Farewell, Ada!")
"""


def configured(demo: Demo, **settings: object) -> Demo:
    """The demo with ``settings`` in its ralph.toml and short waits."""
    config = dataclasses.replace(
        demo.project.config,
        merge=MergeWaitSettings(wait_seconds=0.1, max_wait_seconds=0.5),
        **settings,  # type: ignore[arg-type]
    )
    demo.project = dataclasses.replace(demo.project, config=config)
    return demo


def kinds(demo: Demo, run_id: int) -> list[tuple[str, str]]:
    return [(t.key, t.status.value) for t in demo.project.store.list_tasks(run_id)]


def test_approval_a_review_round_trip_ends_done(demo: Demo, ralph_cli, monkeypatch):
    demo = configured(demo, merge_policy=MergePolicy.APPROVAL)
    number = demo.issue("farewell")
    monkeypatch.chdir(demo.folder)

    first = demo.hero(number)
    assert first.ending is Ending.WAITING_FOR_HUMAN
    assert first.waiting == ((number, "review"),)
    assert demo.state(number) is WorkflowState.IN_REVIEW
    (pr,) = demo.project.code_host.list_pull_requests(issue=number)

    code, _, err = ralph_cli(
        "pr",
        "review",
        str(pr.number),
        "--request-changes",
        f"Say farewell:\n\n{RENAME}",
        "--file",
        "greet/core.py",
        "--line",
        "6",
    )
    assert code == 0, err
    second = demo.hero(number)
    assert second.resumed
    assert second.ending is Ending.WAITING_FOR_HUMAN  # the fix is pushed: alice looks again
    assert second.waiting == ((number, "review"),)
    assert second.run is not None
    statuses = dict(kinds(demo, second.run.id))
    assert statuses[f"merge:{number}"] == "canceled"  # superseded by the address round
    assert statuses[f"address:{number}"] == "done"
    assert statuses[f"merge:{number}~2"] == "pending"
    (thread,) = demo.project.code_host.get_pull_request(pr.number).threads
    assert thread.resolved
    assert thread.comments[-1].body.startswith("Fixed in ")
    assert 'f"Farewell, {name}!"' in (demo.project.git.read_on(pr.head, "greet/core.py") or "")

    code, _, err = ralph_cli("pr", "review", str(pr.number), "--approve")
    assert code == 0, err
    third = demo.hero(number)
    assert third.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE
    assert 'f"Farewell, {name}!"' in demo.on_main("greet/core.py")
    report = demo.report(third)
    assert report.counters.escalations == 0
    assert_sound(report)
    assert not demo.duplicate_comments(number)


def test_a_required_check_failing_once_passes_after_an_address_round(demo: Demo):
    demo = configured(demo)  # checks: the local default
    number = demo.issue("farewell")
    tracker = demo.project.tracker
    # Before the merge: main gains a test the branch does not pass, and a person's hint.
    real = LocalCodeHost.create_pull_request

    def opened_then_main_moves(self, **kwargs):
        pr = real(self, **kwargs)
        commit_files(demo.project.git, "main", {"tests/test_strict.py": STRICT_TEST}, "test")
        tracker.add_comment(number, f"main now wants this:\n\n{RENAME}")
        return pr

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LocalCodeHost, "create_pull_request", opened_then_main_moves)
        result = demo.hero(number)
    assert result.ending is Ending.FINISHED, result
    assert demo.state(number) is WorkflowState.DONE
    assert result.run is not None
    statuses = dict(kinds(demo, result.run.id))
    assert statuses[f"address:{number}"] == "done"
    assert statuses[f"merge:{number}~2"] == "done"
    report = demo.report(result)
    assert report.counters.escalations == 0
    assert_sound(report)


def test_squash_when_ralph_toml_says_so(demo: Demo):
    demo = configured(demo, merge_method="squash")
    number = demo.issue("farewell")
    before = demo.project.git.resolve("refs/heads/main")
    result = demo.hero(number)
    assert result.ending is Ending.FINISHED
    parents = demo.project.git.git("rev-list", "--parents", "-n", "1", "main", what="parents")
    assert len(parents.split()) == 2  # one parent: a squash, no merge commit
    assert demo.project.git.is_ancestor(before, "main")


def test_a_merge_that_lands_but_answers_not_mergeable_is_done(demo: Demo):
    demo = configured(demo)
    number = demo.issue("farewell")
    real = LocalCodeHost.merge_pull_request

    def lands_then_refuses(self, n, strategy=MergeStrategy.MERGE, *, expected_head=None):
        merged = real(self, n, strategy, expected_head=expected_head)
        raise MergeConflict(n, merged.head, merged.base, ())

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LocalCodeHost, "merge_pull_request", lands_then_refuses)
        result = demo.hero(number)
    assert result.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE
    assert demo.report(result).counters.escalations == 0


def test_manual_the_person_merges_and_the_rerun_finishes(demo: Demo, ralph_cli, monkeypatch):
    demo = configured(demo, merge_policy=MergePolicy.MANUAL)
    number = demo.issue("farewell")
    monkeypatch.chdir(demo.folder)
    first = demo.hero(number)
    assert first.ending is Ending.WAITING_FOR_HUMAN
    assert first.waiting == ((number, "a person to merge"),)
    (pr,) = demo.project.code_host.list_pull_requests(issue=number)
    code, _, err = ralph_cli("pr", "merge", str(pr.number))  # the person
    assert code == 0, err
    assert demo.state(number) is WorkflowState.DONE
    second = demo.hero(number)
    assert second.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE
    assert second.run is not None
    merge = demo.project.store.list_tasks(second.run.id, kind="merge")[0]
    assert merge.status is TaskStatus.DONE


def test_the_agents_code_review_asks_for_a_change_the_builder_makes(demo: Demo):
    demo = configured(demo, merge_policy=MergePolicy.APPROVAL, review_code=True)
    body = f"Add `farewell`.\n\nCode review: request-changes\n\n{FAREWELL}\n\n{RENAME}\n"
    number = demo.project.tracker.create_issue(
        "Add a farewell function",
        body=body,
        state=WorkflowState.RESEARCH_NEEDED,
        estimate=Estimate.XS,
    ).number
    result = demo.hero(number)
    assert result.ending is Ending.FINISHED, result
    assert demo.state(number) is WorkflowState.DONE
    assert result.run is not None
    statuses = dict(kinds(demo, result.run.id))
    assert statuses[f"code_review:{number}"] == "done"
    assert statuses[f"address:{number}"] == "done"
    assert statuses[f"code_review:{number}~2"] == "done"
    (pr,) = demo.project.code_host.list_pull_requests(issue=number)
    states = [r.state for r in demo.project.code_host.get_pull_request(pr.number).reviews]
    assert states == ["CHANGES_REQUESTED", "APPROVED"]
    assert 'f"Farewell, {name}!"' in demo.on_main("greet/core.py")


def test_a_persons_review_wakes_the_merge_that_waits_for_it(demo: Demo, ralph_cli, monkeypatch):
    demo = configured(demo, merge_policy=MergePolicy.APPROVAL)
    long_waits = MergeWaitSettings(wait_seconds=300, max_wait_seconds=600)
    demo.project = dataclasses.replace(
        demo.project, config=dataclasses.replace(demo.project.config, merge=long_waits)
    )
    number = demo.issue("farewell")
    monkeypatch.chdir(demo.folder)
    first = demo.hero(number)
    assert first.waiting == ((number, "review"),)
    assert first.run is not None
    store = demo.project.store
    (merge,) = [t for t in store.list_tasks(first.run.id) if t.key == f"merge:{number}"]
    assert merge.not_before > time.time() + 60  # asleep for its backoff
    (pr,) = demo.project.code_host.list_pull_requests(issue=number)

    code, _, err = ralph_cli("pr", "review", str(pr.number), "--approve")

    assert code == 0, err
    woken = store.get_task(merge.id)
    assert woken.status is TaskStatus.PENDING
    assert woken.not_before <= time.time()  # a running Ralph looks again at once
