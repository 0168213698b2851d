"""Ready pull requests of one repository merge as a train (issue 47), on a real local
project: real git branches, the local tracker and code host over SQLite, the task store,
the sandboxed test command. Test runs are counted from the batch records."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph import _secrets
from ralph.git import commit_files
from ralph.phases._branches import project_tests
from ralph.phases._feedback import ROUND_HEADER, round_note
from ralph.tasks import RetryPolicy
from ralph.tracker import CheckConclusion, LocalCodeHost
from ralph.workflow import Priority, WorkflowState

from ..git._counting import gits_started
from .scenario import Scenario, merge_scenario

pytestmark = pytest.mark.timeout(300)


def assert_main_never_red(scenario: Scenario) -> None:
    """Every commit the base's first-parent line gained passes the test command."""
    commits = scenario.first_parents()
    assert commits
    failing = [commit[:7] for commit in commits if not scenario.passes_at(commit)]
    assert not failing, f"the base was red at {failing}"


def test_eight_ready_changes_land_in_at_most_two_test_runs(tmp_path: Path) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 8) as scenario:
        assert scenario.project.config.merge_batch == 5  # the default
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        assert [scenario.state(c) for c in scenario.changes] == [WorkflowState.DONE] * 8
        assert all(scenario.on_base(c) for c in scenario.changes)
        assert scenario.test_runs() <= 2
        assert [b.status.value for b in scenario.batches()] == ["done", "done"]
        # Landed in the order they rode: the oldest first.
        assert [c.pr for c in scenario.merged()] == [c.pr for c in scenario.changes]
        assert_main_never_red(scenario)


def test_each_car_lands_as_the_very_commit_the_train_built_and_tested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 3, test_seconds=0) as scenario:
        host = scenario.project.code_host
        started = gits_started(monkeypatch)
        scenario.run_merges()
        assert scenario.test_runs() == 1
        verbs = [args[0] for args in started]
        # Three merge commits made, each once: none made again to land.
        assert verbs.count("commit-tree") == 3
        # The attempts' branches read from git's files, the scratch checkout's by-products
        # left to its removal, a head this repository's host read never looked for again,
        # each rider's merge known on the base the train moved on past it.
        assert not {"for-each-ref", "status", "merge-base"} & set(verbs)
        # Only whether what was kept is still there (git prunes what no ref holds): a
        # tree for each car built, a commit for each landed.
        looks = [args[1:] for args in started if args[0] == "cat-file"]
        assert sorted(look[1].rpartition("^")[2] for look in looks) == (
            ["{commit}"] * 3 + ["{tree}"] * 3
        )
        assert all(look[0] == "-e" for look in looks)
        landed = scenario.first_parents()
        assert landed == [host.get_pull_request(c.pr).merge_commit for c in scenario.changes]
        git = scenario.project.git
        for commit, change in zip(landed, scenario.changes, strict=True):
            pr = host.get_pull_request(change.pr)
            message = git.git("log", "-1", "--format=%B", commit, what="read the message")
            assert message == f"Merge pull request #{pr.number} from {pr.head}\n\n{pr.title}"
        assert_main_never_red(scenario)


def test_a_change_that_breaks_the_tests_goes_back_and_the_seven_others_land(
    tmp_path: Path,
) -> None:
    kinds = ("ok", "ok", "breaks", "ok", "ok", "ok", "ok", "ok")
    with merge_scenario(tmp_path / "greet", kinds) as scenario:
        bad = scenario.changes[2]
        run = scenario.run_merges()
        good = [c for c in scenario.changes if c is not bad]
        assert [scenario.state(c) for c in good] == [WorkflowState.DONE] * 7
        assert all(scenario.on_base(c) for c in good)
        assert not scenario.on_base(bad)
        assert scenario.state(bad) is WorkflowState.IN_REVIEW
        # Two runs for eight good changes; at most four more to find the bad one.
        assert scenario.test_runs() <= 6
        (rejected,) = [r for b in scenario.batches() for r in b.train["rejected"]]
        assert rejected["pr"] == bad.pr
        assert "change 3 breaks the tests" in rejected["reason"]
        # It goes back to its builder with the failure: an address round, and the
        # failed check on its head.
        statuses = scenario.statuses(run)
        assert statuses[f"address:{bad.issue}"] == "pending"
        pr = scenario.project.code_host.get_pull_request(bad.pr)
        (check,) = [c for c in pr.checks if c.name == "test"]
        assert check.conclusion is CheckConclusion.FAILURE
        assert "change 3 breaks the tests" in check.summary
        assert_main_never_red(scenario)


def test_two_changes_that_pass_alone_and_fail_together_never_both_land(
    tmp_path: Path,
) -> None:
    kinds = ("ok", "raises_a", "ok", "raises_b", "ok")
    with merge_scenario(tmp_path / "greet", kinds) as scenario:
        earlier, later = scenario.changes[1], scenario.changes[3]
        run = scenario.run_merges()
        assert scenario.on_base(earlier)
        assert not scenario.on_base(later)  # the later one goes back
        assert scenario.state(later) is WorkflowState.IN_REVIEW
        assert scenario.statuses(run)[f"address:{later.issue}"] == "pending"
        (rejected,) = [r for b in scenario.batches() for r in b.train["rejected"]]
        assert rejected["pr"] == later.pr
        assert earlier.pr in rejected["after"]
        others = [c for c in scenario.changes if c is not later]
        assert all(scenario.on_base(c) for c in others)
        assert_main_never_red(scenario)


def test_a_batch_of_one_tests_each_change_once_as_before(tmp_path: Path) -> None:
    with merge_scenario(tmp_path / "greet", ("ok", "breaks", "ok"), merge_batch=1) as scenario:
        run = scenario.run_merges()
        first, bad, last = scenario.changes
        assert scenario.on_base(first)
        assert scenario.on_base(last)
        assert not scenario.on_base(bad)
        batches = scenario.batches()
        assert [len(b.train["cars"]) for b in batches] == [1, 1, 1]
        assert [b.test_runs for b in batches] == [1, 1, 1]  # no retry for a train of one
        # The train's run is each one's required check, recorded on its head.
        checks = scenario.project.code_host.get_pull_request(first.pr).checks
        assert [(c.name, c.conclusion) for c in checks] == [("test", CheckConclusion.SUCCESS)]
        assert scenario.statuses(run)[f"address:{bad.issue}"] == "pending"
        assert_main_never_red(scenario)


def test_a_conductor_that_dies_while_landing_leaves_its_batch_to_the_next_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 4) as scenario:
        scenario.project.store.retry_policy = RetryPolicy(base_seconds=0.1)
        real = LocalCodeHost.merge_pull_request
        merges: list[int] = []

        def dies_after_the_second(self, number, *args, **kwargs):
            merged = real(self, number, *args, **kwargs)
            merges.append(number)
            if len(merges) == 2:  # merged, but the conductor never hears of it
                raise RuntimeError("the conductor died")
            return merged

        monkeypatch.setattr(LocalCodeHost, "merge_pull_request", dies_after_the_second)
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        assert sorted(merges) == sorted(c.pr for c in scenario.changes)  # each merged once
        (batch,) = scenario.batches()  # taken over, not begun again
        assert batch.status.value == "done"
        assert batch.test_runs == 1
        assert sorted(batch.train["landed"]) == sorted(c.pr for c in scenario.changes)
        assert [scenario.state(c) for c in scenario.changes] == [WorkflowState.DONE] * 4
        for change in scenario.changes:  # each finished once, the one merged unsaid too
            comments = scenario.project.tracker.get_issue(change.issue).comments
            notes = [
                c for c in comments if c.body.startswith(f"Merged pull request #{change.pr} (")
            ]
            assert len(notes) == 1
        assert all(scenario.on_base(c) for c in scenario.changes)
        assert len(scenario.first_parents()) == 4
        assert_main_never_red(scenario)


def test_a_car_whose_branch_moves_before_it_lands_is_left_out_and_lands_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 3) as scenario:
        moving = scenario.changes[1]
        real = LocalCodeHost.merge_pull_request
        pushed: list[int] = []

        def pushed_meanwhile(self, number, *args, **kwargs):
            if number == moving.pr and not pushed:  # after the train tested it
                pushed.append(number)
                files = {"greet/late.py": "LATE = 1\n"}
                commit_files(scenario.project.git, moving.branch, files, "A late push")
            return real(self, number, *args, **kwargs)

        monkeypatch.setattr(LocalCodeHost, "merge_pull_request", pushed_meanwhile)
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        assert all(scenario.on_base(c) for c in scenario.changes)
        assert scenario.project.git.read_on("main", "greet/late.py") == "LATE = 1\n"
        first, second = scenario.batches()
        (left_out,) = first.train["rejected"]
        assert left_out["pr"] == moving.pr
        assert left_out["conflict"]  # left out, not sent back
        assert [c["pr"] for c in second.train["cars"]] == [moving.pr]
        assert_main_never_red(scenario)


def test_a_base_that_moves_while_the_batch_is_tested_is_tested_again_before_anything_lands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 3) as scenario:
        moved: list[str] = []

        def main_moves_meanwhile(ctx, path, **options):
            ran = project_tests(ctx, path, **options)
            if not moved:  # someone else's commit lands on main while the tests run
                files = {"docs/notes.md": "notes\n"}
                moved.append(commit_files(scenario.project.git, "main", files, "Notes") or "")
            return ran

        monkeypatch.setattr("ralph.phases._train_conductor.project_tests", main_moves_meanwhile)
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        (batch,) = scenario.batches()
        bases = [r["base"] for r in batch.train["runs"] if not r["carried"]]
        assert bases == [scenario.start, moved[0]]  # the run on the old base did not count
        assert all(scenario.on_base(c) for c in scenario.changes)
        assert scenario.project.git.is_ancestor(moved[0], "refs/heads/main")
        assert_main_never_red(scenario)


def test_documents_committed_while_the_batch_is_tested_do_not_restart_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with merge_scenario(tmp_path / "greet", ("ok",) * 3) as scenario:
        moved: list[str] = []

        def a_plan_lands_meanwhile(ctx, path, **options):
            ran = project_tests(ctx, path, **options)
            if not moved:  # another issue's plan is committed to main as the tests run
                files = {"thoughts/shared/plans/2026-12-07-GH-9-other.md": "# Plan\n"}
                moved.append(commit_files(scenario.project.git, "main", files, "Plan") or "")
            return ran

        monkeypatch.setattr("ralph.phases._train_conductor.project_tests", a_plan_lands_meanwhile)
        run = scenario.run_merges()
        assert set(scenario.statuses(run).values()) == {"done"}
        (batch,) = scenario.batches()
        assert batch.test_runs == 1  # what lands differs from what was tested only in thoughts/
        assert all(scenario.on_base(c) for c in scenario.changes)
        assert scenario.project.git.is_ancestor(moved[0], "refs/heads/main")
        assert_main_never_red(scenario)


def test_a_change_sent_back_with_its_fix_rounds_used_up_goes_to_a_person(tmp_path: Path) -> None:
    with merge_scenario(tmp_path / "greet", ("breaks",), max_fix_rounds=1) as scenario:
        (bad,) = scenario.changes
        note = f"{ROUND_HEADER}\n\n{round_note(bad.pr, 1)} abc123 on {bad.branch}.\n"
        scenario.project.tracker.add_comment(bad.issue, note)  # its one round, used
        run = scenario.run_merges()
        assert scenario.statuses(run) == {f"merge:{bad.issue}": "failed"}  # for good
        assert scenario.state(bad) is WorkflowState.HUMAN_NEEDED
        assert not scenario.on_base(bad)
        escalation = scenario.project.tracker.get_issue(bad.issue).comments[-1].body
        assert "not ready after 1 fix round(s)" in escalation
        assert "change 1 breaks the tests" in escalation


def test_a_secret_the_failing_tests_print_is_kept_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "ghp_SECRETTOKEN123"
    monkeypatch.setenv("RALPH_GH_TOKEN", token)
    monkeypatch.setattr(_secrets, "_default", None)  # the process reads its secrets again
    leak = (
        "import unittest\n\n\nclass LeakTest(unittest.TestCase):\n"
        f"    def test_leak(self):\n        self.fail('found {token}')\n"
    )
    with merge_scenario(tmp_path / "greet", ()) as scenario:
        bad = scenario.add_change("ok", files={"tests/test_leak.py": leak})
        scenario.run_merges()
        (rejected,) = scenario.batches()[0].train["rejected"]
        assert rejected["pr"] == bad.pr
        assert "found " in rejected["reason"]
        texts = [
            rejected["reason"],
            *(run["summary"] for run in scenario.batches()[0].train["runs"]),
            *(c.summary for c in scenario.project.code_host.get_pull_request(bad.pr).checks),
            *(c.body for c in scenario.project.tracker.get_issue(bad.issue).comments),
        ]
        assert not [text for text in texts if token in text]
        stored = b"".join(p.read_bytes() for p in (scenario.folder / ".ralph").glob("ralph.db*"))
        assert token.encode() not in stored


def test_the_conductor_takes_its_own_then_the_most_urgent_then_the_oldest(
    tmp_path: Path,
) -> None:
    kinds = ("ok",) * 4
    with merge_scenario(tmp_path / "greet", kinds, merge_batch=3) as scenario:
        own, older, newer, urgent = scenario.changes
        scenario.project.tracker.update_issue(urgent.issue, priority=Priority.P0)
        scenario.run_merges()
        first, second = scenario.batches()
        assert [c["pr"] for c in first.train["cars"]] == [own.pr, urgent.pr, older.pr]
        assert [c["pr"] for c in second.train["cars"]] == [newer.pr]
        assert all(scenario.on_base(c) for c in scenario.changes)
