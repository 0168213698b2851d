"""What the merge train never does: land a change not tested on the base it lands on,
merge over a person who pulled an issue back, strand a repository's merges on a car that
no longer merges, or crash on a host's refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.config import MergeWaitSettings, load_config
from ralph.git import commit_files
from ralph.github.fake._rules import CheckPlan
from ralph.phases import _train_conductor
from ralph.phases._branches import project_tests
from ralph.phases._train_resume import MAX_RESUMES
from ralph.project import open_project
from ralph.tasks import BatchStatus, RetryPolicy
from ralph.tracker import LocalCodeHost
from ralph.workflow import Train, WorkflowState

from ..github.conftest import ralph_on_the_board
from .scenario import Scenario, merge_scenario, slow_tests

pytestmark = pytest.mark.timeout(300)


def test_a_resumed_batch_tests_again_what_a_push_moved_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok", "raises_a", "ok")) as scenario:
        scenario.project.store.retry_policy = RetryPolicy(base_seconds=0.1)
        real = LocalCodeHost.merge_pull_request
        merges: list[int] = []

        def dies_after_the_first(self, number, *args, **kwargs):
            merged = real(self, number, *args, **kwargs)
            merges.append(number)
            if len(merges) == 1:
                # a person's push lands right after, then the conductor dies
                commit_files(scenario.project.git, "main", {"greet/limit_b.py": "B = 2\n"}, "X")
                raise RuntimeError("the conductor died")
            return merged

        monkeypatch.setattr(LocalCodeHost, "merge_pull_request", dies_after_the_first)
        scenario.run_merges()
        red = [c[:7] for c in scenario.first_parents() if not scenario.passes_at(c)]
        assert not red, f"main red at {red}"


def test_a_document_conflict_on_the_moved_base_leaves_the_car_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ()) as scenario:
        scenario.project.store.retry_policy = RetryPolicy(base_seconds=0.1)
        scenario.add_change("ok", {"thoughts/notes.md": "from the branch\n"})
        scenario.add_change("ok")
        real = project_tests
        done: list[int] = []

        def tests_then_document(ctx, path, **options):
            result = real(ctx, path, **options)
            if not done:
                done.append(1)
                commit_files(scenario.project.git, "main", {"thoughts/notes.md": "base\n"}, "doc")
            return result

        monkeypatch.setattr("ralph.phases._train_conductor.project_tests", tests_then_document)
        scenario.run_merges(seconds=120)
        assert all(b.status.value == "done" for b in scenario.batches())


def test_a_rider_a_person_moved_to_human_needed_is_not_merged(tmp_path: Path) -> None:
    with merge_scenario(tmp_path / "greet", ("ok", "ok")) as scenario:
        stopped = scenario.changes[1]
        scenario.project.tracker.set_state(
            stopped.issue, WorkflowState.HUMAN_NEEDED.value, command="human", actor="human"
        )
        scenario.run_merges(seconds=120)
        pr = scenario.project.code_host.get_pull_request(stopped.pr)
        assert pr.state.value != "merged", "a person's Human Needed was merged over"


@pytest.mark.slow
def test_a_host_refusing_a_car_leaves_it_out_and_every_change_still_lands(
    shop, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A base requiring branches up to date: after the first car lands the next is behind.
    work, _origin, served = shop
    for name, value in ralph_on_the_board(work, served).items():
        monkeypatch.setenv(name, value)
    served.fake.run_ci("acme/greet", CheckPlan("ci"))
    served.fake.protect("acme/greet", "main", strict=True, checks=["ci"])
    with open_project(load_config(work)) as project:
        scenario = Scenario(project, work)
        scenario.configure(
            test_command=slow_tests(0.2),
            merge=MergeWaitSettings(wait_seconds=0.1, max_wait_seconds=0.5),
        )
        scenario.start = project.git.resolve("refs/heads/main")
        for _ in range(3):
            scenario.add_change("ok")
        run = scenario.run_merges(seconds=150)
        assert set(scenario.statuses(run).values()) == {"done"}
        assert all(b.status.value == "done" for b in scenario.batches())
        failed = [r for r in caplog.records if r.getMessage() == "phase failed"]
        assert not failed, "a merge task failed on the host's refusal"


def test_a_batch_whose_takeovers_keep_failing_is_abandoned_and_merges_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok", "ok", "ok")) as scenario:
        scenario.project.store.retry_policy = RetryPolicy(base_seconds=0.1)
        real = LocalCodeHost.merge_pull_request
        calls: list[int] = []

        def crashes_at_first(self, number, *args, **kwargs):
            calls.append(number)
            if len(calls) <= MAX_RESUMES + 1:  # the first conductor and every takeover
                raise RuntimeError("the conductor crashed")
            return real(self, number, *args, **kwargs)

        monkeypatch.setattr(LocalCodeHost, "merge_pull_request", crashes_at_first)
        scenario.run_merges(seconds=120)
        batches = scenario.batches()
        assert batches[0].status is BatchStatus.ABANDONED
        assert batches[-1].status is BatchStatus.DONE
        assert scenario.merged(), "no merge went on after the batch was abandoned"


def test_a_merge_landed_just_before_its_conductor_died_is_still_recorded_as_ralphs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok", "ok", "ok")) as scenario:
        scenario.project.store.retry_policy = RetryPolicy(base_seconds=0.1)
        real = _train_conductor.Conductor.landed
        died: list[int] = []

        def dies_once(self, merged, before, *, by_person):
            if not died:
                died.append(merged.number)
                raise RuntimeError("the conductor died")
            return real(self, merged, before, by_person=by_person)

        monkeypatch.setattr(_train_conductor.Conductor, "landed", dies_once)
        run = scenario.run_merges(seconds=120)
        assert set(scenario.statuses(run).values()) == {"done"}
        key = f"ralph-merges:{scenario.project.config.repo}"
        merges = scenario.project.store.load_checkpoint(key)
        assert merges is not None
        recorded = {m["commit"] for m in merges["merges"]}
        host = scenario.project.code_host
        commits = {host.get_pull_request(c.pr).merge_commit for c in scenario.changes}
        assert commits <= recorded


def test_a_taken_over_batch_leaves_out_a_car_whose_control_file_change_is_held(
    tmp_path: Path,
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",)) as scenario:
        held = scenario.add_change("ok", {".ralph-routing.yml": "rules: []\n"})
        run = scenario.merge_run()
        project = scenario.project
        scenario.dead_batch(run, held)  # a dead conductor's, with the held change in it
        scenario.run_merges(run, seconds=120)
        assert project.code_host.get_pull_request(held.pr).state.value != "merged"
        assert scenario.batches()[0].status is BatchStatus.DONE


def test_a_conductor_whose_own_change_the_taken_over_batch_sent_back_tests_it_no_more(
    tmp_path: Path,
) -> None:
    with merge_scenario(tmp_path / "greet", ("breaks",)) as scenario:
        (change,) = scenario.changes
        run = scenario.merge_run()
        scenario.dead_batch(run, change)  # a dead conductor's, with this task's own change
        scenario.run_merges(run, seconds=120)
        (batch,) = scenario.batches()  # no second train for a change just sent back
        assert [r.pr for r in Train.from_record(batch.train).rejected] == [change.pr]
