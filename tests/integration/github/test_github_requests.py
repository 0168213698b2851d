"""What the GitHub tracker costs in requests, and that the batching behind it is safe:
aliased mutations answered alias by alias, a state move as one request that lands or is
sent again as a unit, a phase's notes riding with the move, a snapshot that reads a group
once and stays true under the tracker's own writes (on the fake, on a fake clock)."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub, ScriptedFault
from ralph.tracker import GitHubTracker, set_up_board
from ralph.workflow import Estimate, WorkflowState

from .test_fault_script import Clock, client_for, tracker_on


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def github(clock) -> FakeGitHub:
    fake = FakeGitHub(clock=clock)
    fake.add_token("token", "ralph")
    fake.add_repository("acme/shop")
    return fake


def made(github: FakeGitHub, since: int) -> list[str]:
    return [r.name for r in github.requests[since:]]


def audits(tracker: GitHubTracker, number: int) -> list[str]:
    return [c.body for c in tracker.get_issue(number).comments if "ralph-transition" in c.body]


def test_create_issue_takes_three_requests_and_set_state_one(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Warm up")  # the repository and the board, read once a process
    since = len(github.requests)
    issue = tracker.create_issue("Add login", state=WorkflowState.BACKLOG, estimate=Estimate.S)
    assert made(github, since) == ["CreateIssue", "AddProjectItem", "SetFields"]
    assert issue.workflow_state is WorkflowState.BACKLOG
    assert issue.estimate is Estimate.S
    # What create_issue answers without a read is what GitHub holds.
    read = tracker.get_issue(issue.number)
    assert (read.title, read.workflow_state, read.estimate, read.url) == (
        issue.title,
        issue.workflow_state,
        issue.estimate,
        issue.url,
    )
    since = len(github.requests)
    tracker.set_state(issue.number, "Research Needed", command="ralph_triage")
    assert made(github, since) == ["Issue", "MoveState"]
    assert tracker.get_issue(issue.number).workflow_state is WorkflowState.RESEARCH_NEEDED
    assert len(audits(tracker, issue.number)) == 1


def test_a_batch_answers_alias_by_alias_and_what_github_took_stands(github, clock):
    """GitHub runs a batch's mutations in order and refuses one without the others: the
    refusal is that alias's, not an error for the whole request."""
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    board = tracker.board()
    field_id, options = board.fields["Workflow State"]
    document = q.batch("MoveState", (q.set_field_part("state"), q.comment_part("audit")))
    answer = tracker.client.mutate_batch(
        document,
        {
            "state": {
                "projectId": board.project_id,
                "itemId": tracker.item_id(1),
                "fieldId": field_id,
                "value": {"singleSelectOptionId": "no-such-option"},
            },
            "audit": {"subjectId": github_id(tracker, 1), "body": "x"},
        },
    )
    assert set(answer.refused) == {"state"}
    assert answer.ok("audit")
    assert [c.body for c in tracker.get_issue(1).comments] == ["x"]
    assert tracker.get_issue(1).workflow_state is WorkflowState.BACKLOG
    assert options  # the real options were there to choose from


def github_id(tracker: GitHubTracker, number: int) -> str:
    data = tracker.client.query(q.ISSUE, {**tracker.where, "number": number})
    return str(data["repository"]["issue"]["id"])


def test_a_move_whose_option_ids_went_stale_reads_the_board_again_and_lands_once(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    board = tracker.board()
    field_id, options = board.fields["Workflow State"]
    stale = {**board.fields, "Workflow State": (field_id, {**options, "Research Needed": "gone"})}
    tracker._board = dataclasses.replace(board, fields=stale)  # as if remade on GitHub
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert tracker.get_issue(1).workflow_state is WorkflowState.RESEARCH_NEEDED
    assert len(audits(tracker, 1)) == 1
    assert "Project" in made(github, 0)[-6:]  # the board read again


def test_a_throttled_move_waits_and_is_sent_again_whole(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    github.script(ScriptedFault.submitted_too_quickly("MoveState"))
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert made(github, 0).count("MoveState") == 2
    assert 60.0 in clock.sleeps
    assert tracker.get_issue(1).workflow_state is WorkflowState.RESEARCH_NEEDED
    assert len(audits(tracker, 1)) == 1


def test_a_move_whose_answer_was_lost_after_it_landed_is_reconciled_not_repeated(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    github.script(ScriptedFault("MoveState", transport=True, after=True))
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert made(github, 0).count("MoveState") == 1
    assert len(audits(tracker, 1)) == 1


def test_a_snapshot_reads_a_group_in_one_request_and_keeps_it_true(github, clock):
    tracker = tracker_on(github, clock)
    epic = tracker.create_issue("Epic", state=WorkflowState.BACKLOG)
    children = [
        tracker.create_issue(f"Part {i}", parent=epic.number, state=WorkflowState.BACKLOG)
        for i in range(3)
    ]
    since = len(github.requests)
    with tracker.snapshot():
        assert tracker.get_issue(epic.number).sub_issues == tuple(c.number for c in children)
        for child in children:
            assert tracker.get_issue(child.number).parent == epic.number
        assert made(github, since) == ["IssueGroup", "IssueGroup"]  # the epic, its children
        tracker.set_state(children[0].number, "Research Needed", command="ralph_triage")
        after_move = len(github.requests)
        kept = tracker.get_issue(children[0].number)
        assert kept.workflow_state is WorkflowState.RESEARCH_NEEDED  # kept true, not read
        assert len(kept.comments) == 1
        assert len(github.requests) == after_move
        tracker.close_issue(children[1].number)  # another write: that issue is read again
        assert not tracker.get_issue(children[1].number).is_open
    # Outside a snapshot every read asks GitHub.
    since = len(github.requests)
    tracker.get_issue(epic.number)
    tracker.get_issue(epic.number)
    assert made(github, since) == ["Issue", "Issue"]


def test_a_snapshot_does_not_see_what_another_process_wrote_until_it_ends(github, clock):
    tracker = tracker_on(github, clock)
    other = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        assert tracker.get_issue(1).workflow_state is WorkflowState.BACKLOG
        other.set_state(1, "Research Needed", command="ralph_triage")
        assert tracker.get_issue(1).workflow_state is WorkflowState.BACKLOG
    assert tracker.get_issue(1).workflow_state is WorkflowState.RESEARCH_NEEDED


def test_a_note_rides_with_the_issues_next_move_in_one_request(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    since = len(github.requests)
    with tracker.snapshot():
        tracker.add_note(1, "Research complete: see the document.")
        tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert [n for n in made(github, since) if n != "Issue" and n != "IssueGroup"] == ["MoveState"]
    bodies = [c.body for c in tracker.get_issue(1).comments]
    assert bodies[0] == "Research complete: see the document."  # before the audit
    assert "ralph-transition" in bodies[1]


def test_a_note_no_move_takes_is_posted_when_the_snapshot_ends(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login")
    with tracker.snapshot():
        tracker.add_note(1, "A note.")
        assert "AddComment" not in made(github, 0)
    assert made(github, 0).count("AddComment") == 1
    assert [c.body for c in tracker.get_issue(1).comments] == ["A note."]


def test_a_note_is_posted_even_when_the_step_fails(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login")

    def step() -> None:
        with tracker.snapshot():
            tracker.add_note(1, "Said before the failure.")
            raise RuntimeError("the step failed")

    with pytest.raises(RuntimeError):
        step()
    assert [c.body for c in tracker.get_issue(1).comments] == ["Said before the failure."]


def test_a_batch_counts_each_of_its_comments_against_the_content_budget(github, clock):
    policy = PacingPolicy(mutation_interval=0, content_per_minute=2)
    client = client_for(github, clock, policy)
    board = set_up_board(client, "acme/shop").board
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=board.number, clock=clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)  # one creation
    clock.sleeps.clear()
    with tracker.snapshot():
        tracker.add_note(1, "note")  # with the audit: two more in one request
        tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert any(s >= 59 for s in clock.sleeps)  # three in a minute of two: it waited


def test_split_tokens_send_the_boards_writes_and_the_comment_apart(clock):
    github = FakeGitHub(clock=clock)
    github.add_token("repo", "ralph", scopes="repo")
    github.add_token("board", "ralph", scopes="project")
    github.add_repository("acme/shop")
    pacer = Pacer(PacingPolicy(mutation_interval=0), clock=clock, sleep=clock.sleep)
    tokens = Tokens("repo", "board")
    client = GitHubClient(github, tokens, pacer=pacer, clock=clock, sleep=clock.sleep)
    board = set_up_board(client, "acme/shop").board
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=board.number, clock=clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    since = len(github.requests)
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert [r.name for r in github.requests[since:] if r.mutation] == ["SetFields", "AddComment"]
    assert tracker.get_issue(1).workflow_state is WorkflowState.RESEARCH_NEEDED
