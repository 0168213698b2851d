"""What the GitHub tracker costs in requests, and that the batching behind it is safe:
aliased mutations answered alias by alias, a state move as one request that lands or is
sent again as a unit, a phase's notes riding with the move, a snapshot that reads a group
once and stays true under the tracker's own writes (on the fake, on a fake clock)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE
from ralph.errors import InvalidInput
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub, ScriptedFault
from ralph.tracker import GitHubCodeHost, GitHubTracker, NewIssue, set_up_board
from ralph.workflow import Estimate, WorkflowState

from .conftest import ralph_on_the_board, tracker_of
from .test_fault_script import client_for, tracker_on


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


def test_a_new_board_is_made_linked_and_its_fields_read_from_githubs_answers(github, clock):
    """``ralph init --github`` on a repository without a board: the board is linked as it
    is made, and what GitHub answers to the creations is the board, not read again."""
    client = client_for(github, clock, PacingPolicy(mutation_interval=0))
    setup = set_up_board(client, "acme/shop")
    assert made(github, 0) == [
        "Repository",
        "ProjectByTitle",
        "Owner",
        "CreateProject",
        "CreateFields",
    ]
    assert setup.linked
    project = github.repository("acme/shop").owner.projects[0]
    assert github.repository("acme/shop") in project.linked
    fresh = set_up_board(client, "acme/shop").board  # found, as a second init finds it
    assert fresh.fields == setup.board.fields
    assert fresh.field_names == setup.board.field_names


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
        # The epic and its children together: the tracker made them, so knows the group.
        assert made(github, since) == ["IssueGroup"]
        since = len(github.requests)
        extra = tracker.create_issue("Part 3", parent=epic.number)  # kept on the epic too
        assert tracker.get_issue(epic.number).sub_issues[-1] == extra.number
        assert "IssueGroup" not in made(github, since)
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


def test_an_edit_and_a_close_inside_a_snapshot_are_kept_true_without_a_read(github, clock):
    """What the tracker wrote comes back in GitHub's answer: the kept issue is changed,
    not read again, and it is what GitHub holds."""
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", body="Plain.", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        tracker.get_issue(1)
        since = len(github.requests)
        edited = tracker.update_issue(
            1, title="Add a login", body="Sign in.", labels=["triaged"], estimate=Estimate.M
        )
        again = tracker.get_issue(1)
        closed = tracker.close_issue(1)
        reads = [n for n in made(github, since) if n in ("Issue", "IssueGroup")]
        assert reads == [], made(github, since)
    assert again == edited
    fresh = tracker.get_issue(1)
    assert (edited.title, edited.body, edited.labels, edited.estimate) == (
        fresh.title,
        fresh.body,
        fresh.labels,
        fresh.estimate,
    )
    assert (closed.is_open, closed.close_reason, closed.closed_at) == (
        fresh.is_open,
        fresh.close_reason,
        fresh.closed_at,
    )


def test_dependencies_added_inside_a_snapshot_are_kept_true_without_a_read(github, clock):
    """A split's chain of dependencies: each edge checked for a cycle on the kept issues,
    which the tracker's own edges keep true."""
    tracker = tracker_on(github, clock)
    for i in range(3):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        for n in (1, 2, 3):
            tracker.get_issue(n)
        since = len(github.requests)
        tracker.add_dependency(2, 1)
        tracker.add_dependency(3, 2)
        kept = [tracker.get_issue(n) for n in (1, 2, 3)]
        assert made(github, since) == ["AddBlockedBy", "AddBlockedBy"]
    fresh = [tracker.get_issue(n) for n in (1, 2, 3)]
    assert [(i.blocked_by, i.blocking) for i in kept] == [(i.blocked_by, i.blocking) for i in fresh]
    assert fresh[1].blocked_by == (1,)
    assert fresh[1].blocking == (3,)


def test_a_chain_of_dependencies_goes_in_one_request_and_a_cycle_in_it_is_refused(github, clock):
    tracker = tracker_on(github, clock)
    for i in range(3):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        for n in (1, 2, 3):
            tracker.get_issue(n)
        since = len(github.requests)
        tracker.add_dependencies([(2, 1), (3, 2)])
        assert made(github, since) == ["AddBlockedBys"]
        with pytest.raises(InvalidInput, match="cycle"):
            tracker.add_dependencies([(1, 3), (2, 3)])  # 3 waits for 2, which waits for 1
    assert [tracker.get_issue(n).blocked_by for n in (1, 2, 3)] == [(), (1,), (2,)]


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


def test_several_issues_move_together_with_their_notes(github, clock):
    """Each issue's notes, state, Status (when it changes) and audit stay one unit;
    units share a request within the safe batch of ten: three issues with a note each
    (Status unchanged) in one request, a fourth unit that would not fit in another."""
    tracker = tracker_on(github, clock)
    for i in range(4):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    since = len(github.requests)
    with tracker.snapshot():
        for n in (1, 2, 3, 4):
            tracker.add_note(n, f"Note on #{n}.")
        tracker.set_states([1, 2, 3, 4], "Research Needed", command="ralph_triage")
    writes = [r.name for r in github.requests[since:] if r.mutation]
    assert writes == ["MoveStates", "MoveState"]  # three issues, then the fourth
    for n in (1, 2, 3, 4):
        issue = tracker.get_issue(n)
        assert issue.workflow_state is WorkflowState.RESEARCH_NEEDED
        bodies = [c.body for c in issue.comments]
        assert bodies[0] == f"Note on #{n}."  # before the audit
        assert "ralph-transition" in bodies[1]


def test_an_edit_inside_a_snapshot_carries_the_issues_waiting_fields_and_notes(github, clock):
    """Triage's writes to an issue it does not move: its estimate and its note wait for
    the label's edit, and go with it in one request."""
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    since = len(github.requests)
    with tracker.snapshot():
        tracker.get_issue(1)
        tracker.update_issue(1, estimate=Estimate.L)
        tracker.add_note(1, "## Triage")
        labelled = tracker.update_issue(1, labels=["ralph-triaged"])
        assert (labelled.estimate, labelled.labels) == (Estimate.L, ("ralph-triaged",))
    writes = [r.name for r in github.requests[since:] if r.mutation]
    assert writes == ["CreateLabel", "EditIssue"]
    fresh = tracker.get_issue(1)
    assert (fresh.estimate, fresh.labels) == (Estimate.L, ("ralph-triaged",))
    assert [c.body for c in fresh.comments] == ["## Triage"]


def test_an_estimate_no_edit_or_move_takes_is_set_when_the_snapshot_ends(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        tracker.get_issue(1)
        assert tracker.update_issue(1, estimate=Estimate.S).estimate is Estimate.S
    assert tracker.get_issue(1).estimate is Estimate.S


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


def test_a_splits_children_are_made_and_put_on_the_board_in_two_requests(github, clock):
    tracker = tracker_on(github, clock)
    epic = tracker.create_issue("Epic", state=WorkflowState.BACKLOG)
    with tracker.snapshot():
        tracker.get_issue(epic.number)
        since = len(github.requests)
        children = tracker.create_issues(
            [
                NewIssue(f"Part {i}", body="Why.", parent=epic.number, estimate=Estimate.M)
                for i in range(3)
            ]
        )
        assert made(github, since) == ["CreateIssues", "AddProjectItems"]
        assert tracker.get_issue(epic.number).sub_issues == tuple(c.number for c in children)
    for issue in children:
        fresh = tracker.get_issue(issue.number)
        assert (fresh.title, fresh.body, fresh.parent, fresh.estimate) == (
            issue.title,
            "Why.",
            epic.number,
            Estimate.M,
        )
        assert tracker.existing_item_id(issue.number) is not None


def test_a_steps_prefetch_reads_the_issues_relatives_with_them(github, clock):
    """After an agent's turn a step reads its issues again, then their epic (a stream's
    worktree is named after it): one request for both."""
    tracker = tracker_on(github, clock)
    epic = tracker.create_issue("Epic", state=WorkflowState.BACKLOG)
    child = tracker.create_issue("Part", parent=epic.number, state=WorkflowState.BACKLOG)
    since = len(github.requests)
    with tracker.snapshot():
        tracker.prefetch([child.number])
        assert tracker.get_issue(epic.number).sub_issues == (child.number,)
    assert made(github, since) == ["IssueGroup"]


def test_opening_a_pull_request_keeps_the_issues_it_closes_true_without_a_read(github, clock):
    """A pull request step posts on its issues after opening their pull request: what
    the opening changed of them (the link to it) is kept true from what was opened."""
    tracker = tracker_on(github, clock)
    for i in range(2):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    host = GitHubCodeHost.of(tracker)
    with tracker.snapshot():
        tracker.prefetch([1, 2])
        since = len(github.requests)
        pr = host.create_pull_request(
            head="feature", base="main", title="Parts", body="Closes #1\nCloses #2"
        )
        kept = [tracker.get_issue(n) for n in (1, 2)]
        assert made(github, since) == ["CreatePullRequest"]
    fresh = [tracker.get_issue(n) for n in (1, 2)]
    assert [i.pull_requests for i in kept] == [i.pull_requests for i in fresh]
    assert fresh[0].pull_requests == (pr.number,)


def test_a_pull_request_into_another_branch_links_no_issue_and_none_is_kept_linked(github, clock):
    """GitHub links a pull request by its closing words only into the default branch."""
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    host = GitHubCodeHost.of(tracker)
    with tracker.snapshot():
        tracker.get_issue(1)
        host.create_pull_request(head="feature", base="release", title="Login", body="Closes #1")
        kept = tracker.get_issue(1)
    assert kept.pull_requests == tracker.get_issue(1).pull_requests == ()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_demo_epic_reads_its_root_and_its_pull_request_once_a_step(shop):
    """``ralph hero`` on the sample epic (scripted agents): its start reads the root once
    for the look at merges and the plan together, a pull request step posts on its
    issues without reading them again, and the merge step reads its pull request for
    its checks and again once it holds the issue's lock (a person's review may come
    between), and not again after the merge train landed it."""
    work, _, served = shop
    env = ralph_on_the_board(work, served)
    epic = tracker_of(served.fake).create_issue(
        EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG
    )
    since = len(served.fake.requests)
    run = served.ralph("hero", str(epic.number), cwd=work, env=env, timeout=500)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    names = made(served.fake, since)
    shown = served.ralph("runs", "show", "1", "--json", cwd=work, env=env)
    tasks = json.loads(shown.stdout)["report"]["tasks"]
    again = [t["subject"] for t in tasks if t["attempts"] > 1]
    if again:  # a loaded machine: a step that lost a race for main is tried (and reads) again
        pytest.skip(f"steps tried again, each reading again: {again}")
    # hero's check that the root exists, and the report's read of what merged.
    assert names.count("Issue") == 2, names
    # The merge step's (its checks, its apply), GitHub's merge's own look, the report's.
    assert names.count("PullRequest") == 4, names
    opened = names.index("CreatePullRequest")
    assert names[opened + 1] == "MoveStates", names  # its notes ride with its move
