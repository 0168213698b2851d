"""Nothing Done that is not merged, on the local tracker and on the fake GitHub: a look
at the board finishes a merge left half-way (a person's merge, a merge the tracker did
not follow), and sends back a Done whose change is not on the base branch (its pull
request open: In Review; merged as a commit the base lost: In Review; closed unmerged:
Human Needed), each with a comment saying why. A second look changes nothing."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ralph.config import Config, GitHubSettings, LinearSettings
from ralph.db import SqliteDatabase
from ralph.git import GitRepo
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub
from ralph.linear.fake import FakeLinear
from ralph.phases import MergeLooks
from ralph.phases._merge_look import LOOK_BACK_SECONDS, merge_on_base
from ralph.project import Project, migrate_database
from ralph.tasks import BatchStatus, open_store
from ralph.tracker import (
    GitHubCodeHost,
    GitHubTracker,
    LocalCodeHost,
    LocalTracker,
    PullRequestState,
)
from ralph.workflow import WorkflowState
from tests.integration.tasks.test_store_contract import spec

from ..conftest import GitProject
from ..git._counting import gits_started
from ..tracker.conftest import github_tracker, linear_tracker

S = WorkflowState


@pytest.fixture(params=["local", "github", "linear"])
def looked(request, project: GitProject, clock, tmp_path: Path) -> Iterator[Project]:
    git = GitRepo(project.path)
    store = open_store("memory://")
    if request.param == "linear":  # its pull requests on the local code host
        linear = linear_tracker(clock)
        db = SqliteDatabase(tmp_path / "ralph.db")
        migrate_database(db)
        host = LocalCodeHost(db, repo="ENG", tracker=linear, git=git, clock=clock)
        config = Config(
            root=project.path, repo="ENG", tracker="linear", linear=LinearSettings(team="ENG")
        )
        yield Project(config, linear, host, store, git)
        db.close()
        assert isinstance(linear.client.transport, FakeLinear)
        assert linear.client.transport.internal_errors == []
        return
    if request.param == "local":
        db = SqliteDatabase(tmp_path / "ralph.db")
        tracker: Any = LocalTracker(db, repo="project", clock=clock)
        host = LocalCodeHost(db, repo="project", tracker=tracker, git=git, clock=clock)
        yield Project(Config(root=project.path, repo="project"), tracker, host, store, git)
        db.close()
        return
    tracker = github_tracker(project.path, clock)
    settings = GitHubSettings(owner="acme", repo="project", project=tracker.project_number)
    config = Config(root=project.path, repo="project", tracker="github", github=settings)
    yield Project(config, tracker, GitHubCodeHost.of(tracker), store, git)
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    assert fake.internal_errors == []


def _board(project: Project) -> list[Any]:
    from ralph.tracker import IssueQuery

    return project.tracker.list_issues(IssueQuery(status=None, board=True))


def _pull_request(looked: Project, project: GitProject, number: int) -> int:
    project.commit(f"feature/GH-{number}", {f"feature-{number}.txt": "work\n"}, "Work")
    pr = looked.code_host.create_pull_request(
        head=f"feature/GH-{number}",
        base="main",
        title=f"Change {number}",
        body=looked.tracker.closing_words(number),
    )
    return pr.number


def _merged_on_the_host(looked: Project, number: int) -> None:
    """Merged on the host's side alone (GitHub's UI; the local host's own merge): no
    merge phase followed it up."""
    tracker = looked.tracker
    if isinstance(tracker, GitHubTracker):
        pr_id = tracker.client.query(q.PULL_REQUEST, {**tracker.where, "number": number})[
            "repository"
        ]["pullRequest"]["id"]
        tracker.client.mutate(
            q.MERGE_PULL_REQUEST, q.input_of(pullRequestId=pr_id, mergeMethod="MERGE")
        )
    else:
        looked.code_host.merge_pull_request(number)


def _comments(looked: Project, number: int) -> list[str]:
    return [c.body for c in looked.tracker.get_issue(number).comments]


def test_a_done_issue_whose_pull_request_is_open_goes_back_to_in_review(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.DONE)
    tracker.close_issue(1)
    pr = _pull_request(looked, project, 1)
    looks = MergeLooks(looked)
    (found,) = looks.look(_board(looked))
    assert [(c.previous, c.new) for c in found.changes] == [(S.DONE, S.IN_REVIEW)]
    issue = tracker.get_issue(1)
    assert (issue.workflow_state, issue.is_open) == (S.IN_REVIEW, True)
    said = [c for c in _comments(looked, 1) if f"pull request #{pr} is open, not merged" in c]
    assert len(said) == 1
    assert any("ralph_merge_check" in c for c in _comments(looked, 1))
    assert looks.look(_board(looked)) == []
    assert MergeLooks(looked).look(_board(looked)) == []


def test_a_done_issue_whose_pull_request_was_closed_unmerged_goes_to_a_person(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.DONE)
    pr = _pull_request(looked, project, 1)
    looked.code_host.close_pull_request(pr)
    (found,) = MergeLooks(looked).look(_board(looked))
    assert [c.new for c in found.changes] == [S.HUMAN_NEEDED]
    assert tracker.get_issue(1).workflow_state is S.HUMAN_NEEDED
    assert any("closed without being merged" in c for c in _comments(looked, 1))
    assert MergeLooks(looked).look(_board(looked)) == []


def test_a_merge_the_base_lost_sends_its_issue_back_to_in_review(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.IN_REVIEW)
    before = subprocess.run(
        ["git", "rev-parse", "main"], cwd=project.path, capture_output=True, text=True
    ).stdout.strip()
    pr = _pull_request(looked, project, 1)
    _merged_on_the_host(looked, pr)
    looks = MergeLooks(looked)
    looks.look(_board(looked))  # a person's merge: finished
    assert tracker.get_issue(1).workflow_state is S.DONE
    assert looks.look(_board(looked)) == []
    # The base rewritten under it (a force-push of main to before the merge).
    subprocess.run(["git", "update-ref", "refs/heads/main", before], cwd=project.path, check=True)
    (found,) = looks.look(_board(looked))
    assert [(c.previous, c.new) for c in found.changes] == [(S.DONE, S.IN_REVIEW)]
    assert any("is not on main any more" in c for c in _comments(looked, 1))
    assert tracker.get_issue(1).is_open


def test_a_merge_made_on_the_host_alone_is_finished_on_the_next_look(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Epic", state=S.IN_PROGRESS)
    tracker.create_issue("Child", parent=1, state=S.IN_REVIEW)
    pr = _pull_request(looked, project, 2)
    _merged_on_the_host(looked, pr)
    (found,) = [s for s in MergeLooks(looked).look(_board(looked)) if s.changed]
    assert found.finished
    child, epic = tracker.get_issue(2), tracker.get_issue(1)
    assert (child.workflow_state, child.is_open) == (S.DONE, False)
    assert epic.workflow_state is S.DONE  # its only child is Done: the parent advanced
    notes = [c for c in _comments(looked, 2) if c.startswith(f"Merged pull request #{pr} (")]
    assert len(notes) == 1
    assert MergeLooks(looked).look(_board(looked)) == []


def test_what_is_merged_and_finished_or_has_no_pull_request_is_left(looked, project):
    tracker = looked.tracker
    done = tracker.create_issue("Done by a person, no pull request", state=S.DONE).number
    working = tracker.create_issue("Working, no pull request", state=S.IN_PROGRESS).number
    canceled = tracker.create_issue("Canceled, its pull request open", state=S.CANCELED).number
    _pull_request(looked, project, canceled)
    merged = tracker.create_issue("Merged and finished", state=S.IN_REVIEW).number
    pr = _pull_request(looked, project, merged)
    _merged_on_the_host(looked, pr)
    looks = MergeLooks(looked)
    assert [s.subject for s in looks.look(_board(looked)) if s.changed] == [f"pull request #{pr}"]
    assert looks.look(_board(looked)) == []
    states = [tracker.get_issue(n).workflow_state for n in (done, working, canceled, merged)]
    assert states == [S.DONE, S.IN_PROGRESS, S.CANCELED, S.DONE]


def test_a_merge_found_on_the_base_is_not_read_from_the_host_again(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.IN_REVIEW)
    pr = _pull_request(looked, project, 1)
    _merged_on_the_host(looked, pr)
    looks = MergeLooks(looked)
    looks.look(_board(looked))
    looks.look(_board(looked))  # seen on the base here
    if isinstance(tracker, GitHubTracker):
        fake = tracker.client.transport
        assert isinstance(fake, FakeGitHub)
        before = len(fake.requests)
        assert looks.look(_board(looked)) == []
        assert "PullRequest" not in [r.name for r in fake.requests[before:]]


def test_merges_seen_on_a_base_that_only_moved_forward_cost_one_git_command_a_look(
    looked, project, monkeypatch
):
    # A service reads the board after every root ends; each Done issue's merge was
    # checked again on each read with three git commands, as the Done issues piled up.
    if not isinstance(looked.code_host, LocalCodeHost):
        pytest.skip("a remote's base is fetched on each look")
    tracker = looked.tracker
    numbers = [tracker.create_issue(f"Change {i}", state=S.IN_REVIEW).number for i in range(4)]
    for number in numbers:
        _merged_on_the_host(looked, _pull_request(looked, project, number))
    looks = MergeLooks(looked)
    looks.look(_board(looked))  # finished, and seen on the base
    looks.look(_board(looked))
    project.commit("main", {"later.txt": "more\n"}, "Later")  # the base moves on
    started = gits_started(monkeypatch)
    assert looks.look(_board(looked)) == []
    assert [args[0] for args in started] == ["merge-base"]
    started.clear()
    assert looks.look(_board(looked)) == []
    assert started == []


def test_an_old_done_issue_is_looked_at_only_when_a_session_starts_on_it(looked, project, clock):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.DONE)
    _pull_request(looked, project, 1)
    clock.advance(LOOK_BACK_SECONDS + 60)
    assert MergeLooks(looked).look(_board(looked)) == []
    assert tracker.get_issue(1).workflow_state is S.DONE
    (found,) = MergeLooks(looked).look([tracker.get_issue(1)], every=True)
    assert [c.new for c in found.changes] == [S.IN_REVIEW]


def test_an_issue_a_phase_holds_is_that_phases_to_finish(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.DONE)
    _pull_request(looked, project, 1)
    repo = looked.config.repo
    looked.store.acquire_issue_lock(repo, 1, "merge-worker", "token")
    assert MergeLooks(looked).look(_board(looked)) == []
    looked.store.release_issue_lock(repo, 1, "merge-worker", "token")
    assert len(MergeLooks(looked).look(_board(looked))) == 1


def test_a_merge_the_base_lost_is_merged_again_by_the_merge_phase(sample):
    """A force-push of main over a merge: the next look sends the issue back, and the
    merge phase opens the branch's pull request again and merges it onto main as it is."""
    number = sample.issue()
    sample.through(number, "research", "plan", "review", "implement", "pr")
    before = sample.project.git.resolve("refs/heads/main")
    assert sample.run("merge", number).status.value == "done"
    (first,) = sample.code_host.list_pull_requests(issue=number)
    sample.project.git.git("update-ref", "refs/heads/main", before, what="force-push main")

    (found,) = MergeLooks(sample.project).look(_board(sample.project))
    assert [c.new for c in found.changes] == [S.IN_REVIEW]
    merged = sample.run("merge", number)
    assert merged.status.value == "done", merged
    assert sample.state(number) is S.DONE
    prs = sample.code_host.list_pull_requests(issue=number)
    assert [pr.number for pr in prs] == [first.number, prs[-1].number]
    again = sample.code_host.get_pull_request(prs[-1].number)
    assert again.head == first.head
    assert again.merge_commit
    git = sample.project.git
    assert git.is_ancestor(again.merge_commit, "refs/heads/main")
    assert git.is_ancestor(before, "refs/heads/main")
    assert MergeLooks(sample.project).look(_board(sample.project)) == []


def test_a_local_merge_not_pushed_yet_is_on_the_base_the_local_host_merges_on(
    looked, project, tmp_path
):
    """The local host merges on the repository's own main, which a remote may not have
    yet: the merge is there, not lost."""
    if looked.code_host.merges_here is False:
        pytest.skip("the host merges on a remote's branch")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(origin)], cwd=project.path, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=project.path, check=True)
    number = looked.tracker.create_issue("Login", state=S.IN_REVIEW).number
    pr = _pull_request(looked, project, number)
    _merged_on_the_host(looked, pr)
    looks = MergeLooks(looked)
    looks.look(_board(looked))  # finished: its note
    assert looks.look(_board(looked)) == []
    assert looked.tracker.get_issue(number).workflow_state is S.DONE


def test_a_person_who_moves_it_to_done_again_has_the_last_word(looked, project):
    tracker = looked.tracker
    tracker.create_issue("Login", state=S.DONE)
    pr = _pull_request(looked, project, 1)
    looked.code_host.close_pull_request(pr)  # the change is not wanted after all
    looks = MergeLooks(looked)
    (found,) = looks.look(_board(looked))
    assert [c.new for c in found.changes] == [S.HUMAN_NEEDED]
    tracker.set_state(1, S.BACKLOG.value)  # the person: Human Needed -> Done is two moves
    tracker.close_issue(1)
    tracker.sync_state(1)
    assert tracker.get_issue(1).workflow_state is S.DONE
    assert looks.look(_board(looked)) == []
    assert MergeLooks(looked).look(_board(looked)) == []
    assert tracker.get_issue(1).workflow_state is S.DONE


def test_a_rider_of_a_running_merge_train_is_the_trains_to_finish(looked, project):
    """A merge train's conductor lands its riders and moves them to Done while the
    batch runs: a look racing it (the pull request read as open a moment before the
    merge) leaves every car of the running batch alone, so a freshly landed rider is
    never sent back from Done."""
    tracker = looked.tracker
    number = tracker.create_issue("Login", state=S.DONE).number
    pr = _pull_request(looked, project, number)
    store = looked.store
    run = store.create_run("merges")
    (task,) = store.add_tasks(run.id, [spec("merge", role="integrator", serial_key="merge:r")])
    car = {"pr": pr, "head": "a" * 40, "issues": [number]}
    train = {"base": "b0", "cars": [car], "runs": [], "landed": [], "rejected": []}
    batch = store.open_batch(run.id, task.id, looked.config.repo, train)
    assert MergeLooks(looked).look(_board(looked)) == []
    assert tracker.get_issue(number).workflow_state is S.DONE
    # The batch ended (the rider not landed after all): the look judges it again.
    store.save_batch(batch.id, train, BatchStatus.ABANDONED)
    (found,) = MergeLooks(looked).look(_board(looked))
    assert [c.new for c in found.changes] == [S.IN_REVIEW]


def test_a_merge_missing_from_the_base_fetched_earlier_is_looked_for_again(
    looked, project, tmp_path
):
    """The base is fetched once per look; a merge landed on the remote since (a merge
    train's, a moment ago) is not in that copy: the base is fetched again before its
    merge is called lost, and it is on it."""
    if looked.code_host.merges_here:
        pytest.skip("the host merges on the repository's own branch")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(origin)], cwd=project.path, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main"], cwd=project.path, check=True)
    number = looked.tracker.create_issue("Login", state=S.IN_REVIEW).number
    pr = looked.code_host.get_pull_request(_pull_request(looked, project, number))
    main = subprocess.run(
        ["git", "rev-parse", "main"], cwd=project.path, capture_output=True, text=True, check=True
    ).stdout.strip()
    fetched: set[str] = set()
    assert merge_on_base(looked, dataclasses.replace(pr, merge_commit=main), fetched)
    assert fetched == {"main"}
    # Another clone lands a merge on the remote's main after this look fetched it.
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(origin), str(other)], check=True)
    (other / "landed.txt").write_text("landed\n")
    for args in (
        ["add", "landed.txt"],
        ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "Landed"],
        ["push", "-q", "origin", "main"],
    ):
        subprocess.run(["git", *args], cwd=other, check=True)
    landed = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=other, capture_output=True, text=True, check=True
    ).stdout.strip()
    merged = dataclasses.replace(pr, state=PullRequestState.MERGED, merge_commit=landed)
    assert fetched == {"main"}
    assert merge_on_base(looked, merged, fetched)
    # A commit the base does not hold, even fetched again, is lost.
    lost = dataclasses.replace(merged, merge_commit="f" * 40)
    assert not merge_on_base(looked, lost, fetched)
