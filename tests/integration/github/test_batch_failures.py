"""What a refused or lost batch leaves behind (issue 49's second read): the notes and a
new issue's Estimate that rode with a write are never lost, a waiting Estimate never
breaks the write it rides with, no audit comment stays for a move that did not happen,
and a lost move is looked at before anything is sent again (on the fake, a fake clock)."""

from __future__ import annotations

import pytest

from ralph.errors import GitHubError, GitHubInvalid, InvalidInput
from ralph.github import TransportFailure
from ralph.github import queries as q
from ralph.github.fake import FakeGitHub, ScriptedFault
from ralph.tracker import GitHubTracker, Issue, NewIssue
from ralph.workflow import Estimate, WorkflowState

from .test_fault_script import tracker_on

pytestmark = pytest.mark.timeout(60)


def refused(operation: str) -> ScriptedFault:
    """GitHub refusing the whole request (nothing of it ran)."""
    return ScriptedFault(operation, status=422, body={"message": "refused by the script"})


def lost(operation: str, *, landed: bool = False) -> ScriptedFault:
    return ScriptedFault(operation, transport=True, after=landed)


def audits(tracker: GitHubTracker, number: int) -> list[str]:
    return [c.body for c in tracker.get_issue(number).comments if "ralph-transition" in c.body]


def bodies(tracker: GitHubTracker, number: int) -> list[str]:
    return [c.body for c in tracker.get_issue(number).comments]


def drop_option(github: FakeGitHub, field: str, option: str) -> None:
    """A person takes ``option`` off the board's ``field`` (the tracker's ids go stale)."""
    project = github.repository("acme/shop").owner.projects[0]
    found = next(f for f in project.field_list if f.name == field)
    found.option_list = [o for o in found.option_list if o["name"] != option]


# -- 1. the notes that rode with a batch ------------------------------------------------------


def test_a_refused_batch_of_moves_keeps_its_notes_and_posts_them(github, clock):
    tracker = tracker_on(github, clock)
    for i in range(2):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    github.script(refused("MoveStates"))

    def step() -> None:
        with tracker.snapshot():
            for n in (1, 2):
                tracker.add_note(n, f"Note on #{n}.")
            tracker.set_states([1, 2], "Research Needed", command="ralph_triage")

    with pytest.raises(GitHubError):
        step()
    for n in (1, 2):
        assert bodies(tracker, n) == [f"Note on #{n}."]
        assert tracker.get_issue(n).workflow_state is WorkflowState.BACKLOG


def test_a_refused_edit_keeps_its_notes_and_posts_them_once(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    github.script(refused("EditIssue"))

    def step() -> None:
        with tracker.snapshot():
            tracker.get_issue(1)
            tracker.add_note(1, "## Triage")
            tracker.update_issue(1, labels=["ralph-triaged"])

    with pytest.raises(GitHubError):
        step()
    assert bodies(tracker, 1) == ["## Triage"]


def test_a_lost_batch_of_moves_posts_each_note_once(github, clock):
    tracker = tracker_on(github, clock)
    for i in range(2):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    github.script(*[lost("MoveStates") for _ in range(4)])  # the client gives up on it
    with tracker.snapshot():
        for n in (1, 2):
            tracker.add_note(n, f"Note on #{n}.")
        tracker.set_states([1, 2], "Research Needed", command="ralph_triage")
    for n in (1, 2):
        assert [b for b in bodies(tracker, n) if "ralph-transition" not in b] == [f"Note on #{n}."]
        assert len(audits(tracker, n)) == 1
        assert tracker.get_issue(n).workflow_state is WorkflowState.RESEARCH_NEEDED


# -- 2. a split's Estimates that waited for the move --------------------------------------------


def test_a_refused_batch_of_moves_still_sets_the_new_issues_estimates(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Warm up")
    github.script(refused("MoveStates"))

    def step() -> None:
        with tracker.snapshot():
            for i in range(2):
                made.append(
                    tracker.create_issue(
                        f"Part {i}", state=WorkflowState.BACKLOG, estimate=Estimate.M
                    )
                )
            tracker.set_states([m.number for m in made], "Research Needed", command="ralph_split")

    made: list[Issue] = []
    with pytest.raises(GitHubError):
        step()
    for m in made:
        fresh = tracker.get_issue(m.number)
        assert (fresh.workflow_state, fresh.estimate) == (WorkflowState.BACKLOG, Estimate.M)


def test_a_refused_move_still_sets_the_new_issues_estimate(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Warm up")
    github.script(refused("MoveState"))

    def step() -> None:
        with tracker.snapshot():
            made.append(
                tracker.create_issue("Part", state=WorkflowState.BACKLOG, estimate=Estimate.L)
            )
            tracker.set_state(made[0].number, "Research Needed", command="ralph_split")

    made: list[Issue] = []
    with pytest.raises(GitHubError):
        step()
    fresh = tracker.get_issue(made[0].number)
    assert (fresh.workflow_state, fresh.estimate) == (WorkflowState.BACKLOG, Estimate.L)


# -- 3. a waiting Estimate the board cannot take --------------------------------------------


def test_an_estimate_the_board_cannot_take_is_refused_where_it_is_asked_for(github, clock):
    """Not later, by the label edit it would have ridden with."""
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    drop_option(github, "Estimate", "XL")
    tracker.invalidate_board()
    with tracker.snapshot():
        tracker.get_issue(1)
        with pytest.raises(InvalidInput, match="XL"):
            tracker.update_issue(1, estimate=Estimate.XL)
        labelled = tracker.update_issue(1, labels=["ralph-triaged"])
    assert labelled.labels == ("ralph-triaged",)
    assert tracker.get_issue(1).labels == ("ralph-triaged",)


def test_an_estimate_github_refuses_does_not_fail_the_edit_it_rode_with(github, clock):
    """The edit lands; the Estimate is sent again on its own (the board read again)
    and its failure is raised when the step's snapshot ends, after the edit stood."""
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    tracker.board()  # the ids as they are now
    labelled = []

    def step() -> None:
        with tracker.snapshot():
            tracker.get_issue(1)
            tracker.update_issue(1, estimate=Estimate.XL)
            drop_option(github, "Estimate", "XL")  # gone before the edit carries it
            labelled.append(tracker.update_issue(1, labels=["ralph-triaged"]))

    with pytest.raises(InvalidInput, match="XL"):
        step()
    assert [issue.labels for issue in labelled] == [("ralph-triaged",)]
    assert tracker.get_issue(1).labels == ("ralph-triaged",)


def test_an_estimate_github_refuses_does_not_fail_the_move_it_rode_with(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Warm up")
    tracker.board()
    changes = []

    def step() -> None:
        with tracker.snapshot():
            made = tracker.create_issue("Part", state=WorkflowState.BACKLOG, estimate=Estimate.XL)
            drop_option(github, "Estimate", "XL")
            changes.append(tracker.set_state(made.number, "Research Needed", command="ralph_split"))

    with pytest.raises(InvalidInput, match="XL"):
        step()
    assert [change.new for change in changes] == [WorkflowState.RESEARCH_NEEDED]
    number = changes[0].number
    assert tracker.get_issue(number).workflow_state is WorkflowState.RESEARCH_NEEDED
    assert len(audits(tracker, number)) == 1


# -- 4. no audit comment for a move that did not happen ------------------------------------


def test_a_move_github_refuses_leaves_no_audit_comment(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Add login", state=WorkflowState.BACKLOG)
    tracker.board()
    drop_option(github, "Workflow State", "Research Needed")
    with pytest.raises((GitHubInvalid, InvalidInput)):
        tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert tracker.get_issue(1).workflow_state is WorkflowState.BACKLOG
    assert audits(tracker, 1) == []


def test_a_batch_whose_move_github_refuses_leaves_no_audit_for_it(github, clock):
    tracker = tracker_on(github, clock)
    for i in range(2):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    tracker.board()
    drop_option(github, "Workflow State", "Research Needed")

    def step() -> None:
        with tracker.snapshot():
            tracker.set_states([1, 2], "Research Needed", command="ralph_triage")

    with pytest.raises((GitHubInvalid, InvalidInput)):
        step()
    for n in (1, 2):
        assert tracker.get_issue(n).workflow_state is WorkflowState.BACKLOG
        assert audits(tracker, n) == []


# -- 5. a lost move is looked at before it is sent again -----------------------------------


def backlog_written(github: FakeGitHub, tracker: GitHubTracker, since: int) -> bool:
    """Whether a write since request ``since`` set an issue's Workflow State to Backlog."""
    backlog = tracker.board().fields["Workflow State"][1]["Backlog"]
    return any(
        r.mutation and f"'singleSelectOptionId': '{backlog}'" in str(r.variables)
        for r in github.requests[since:]
    )


def _marker_reads_fail(github: FakeGitHub) -> None:
    """The look for the audit after a lost answer fails too: the client gives up."""
    github.script(*[lost("CommentByMarker") for _ in range(4)])


def test_a_lost_batch_that_landed_is_not_undone_by_its_resend(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Warm up")
    with tracker.snapshot():
        made = [
            tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG, estimate=Estimate.M)
            for i in range(2)
        ]
        github.script(lost("MoveStates", landed=True))
        _marker_reads_fail(github)
        since = len(github.requests)
        tracker.set_states([m.number for m in made], "Research Needed", command="ralph_split")
    for m in made:
        fresh = tracker.get_issue(m.number)
        assert (fresh.workflow_state, fresh.estimate) == (WorkflowState.RESEARCH_NEEDED, Estimate.M)
        assert len(audits(tracker, m.number)) == 1
    assert not backlog_written(github, tracker, since)  # as created, never written over the move


def test_a_lost_move_that_landed_is_not_undone_by_its_resend(github, clock):
    tracker = tracker_on(github, clock)
    tracker.create_issue("Warm up")
    with tracker.snapshot():
        made = tracker.create_issue("Part", state=WorkflowState.BACKLOG, estimate=Estimate.M)
        github.script(lost("MoveState", landed=True))
        _marker_reads_fail(github)
        since = len(github.requests)
        tracker.set_state(made.number, "Research Needed", command="ralph_split")
    fresh = tracker.get_issue(made.number)
    assert (fresh.workflow_state, fresh.estimate) == (WorkflowState.RESEARCH_NEEDED, Estimate.M)
    assert len(audits(tracker, made.number)) == 1
    assert not backlog_written(github, tracker, since)


# -- issues made together, whose answer was lost --------------------------------------------


def _three(tracker: GitHubTracker, parent: int) -> list[NewIssue]:
    return [NewIssue(f"Part {i}", parent=parent, estimate=Estimate.S) for i in range(3)]


def test_issues_made_together_whose_answer_was_lost_are_found_not_made_again(github, clock):
    tracker = tracker_on(github, clock)
    epic = tracker.create_issue("Epic")
    github.script(lost("CreateIssues", landed=True))
    made = tracker.create_issues(_three(tracker, epic.number))
    titles = [i.title for i in github.repository("acme/shop").issue_list]
    assert titles == ["Epic", "Part 0", "Part 1", "Part 2"]
    assert [m.number for m in made] == [2, 3, 4]


class _LandsThenOthersMakeMany:
    """A transport that lets the first ``CreateIssues`` land, then, before its answer
    is lost, has others make ``others`` issues (a busy repository while it retries)."""

    def __init__(self, github: FakeGitHub, others: int) -> None:
        self.github = github
        self.others = others
        self.cut = False

    def post(self, payload, token):
        if not self.cut and "mutation CreateIssues" in payload["query"]:
            self.cut = True
            self.github.post(payload, token)
            for n in range(self.others):
                self.github.add_issue("acme/shop", f"Someone else's {n}")
            raise TransportFailure("connection reset after the batch landed")
        return self.github.post(payload, token)

    def close(self) -> None:
        self.github.close()


def test_issues_made_together_are_found_behind_many_made_since_and_not_made_again(github, clock):
    tracker = tracker_on(github, clock)
    epic = tracker.create_issue("Epic")
    tracker.client.transport = _LandsThenOthersMakeMany(github, others=60)
    made = tracker.create_issues(_three(tracker, epic.number))
    titles = [i.title for i in github.repository("acme/shop").issue_list]
    assert [t for t in titles if t.startswith("Part")] == ["Part 0", "Part 1", "Part 2"]
    assert [m.number for m in made] == [2, 3, 4]


class _FirstOnlyLands:
    """A transport that, for the first ``CreateIssues``, lets GitHub run only its first
    creation and then loses the answer (a batch cut short part way)."""

    def __init__(self, github: FakeGitHub) -> None:
        self.github = github
        self.cut = False

    def post(self, payload, token):
        if not self.cut and "mutation CreateIssues" in payload["query"]:
            self.cut = True
            first = q.batch("CreateIssues", (q.create_issue_part("issue0"),))
            self.github.post(
                {"query": first.text, "variables": {"issue0": payload["variables"]["issue0"]}},
                token,
            )
            raise TransportFailure("connection reset part way through the batch")
        return self.github.post(payload, token)

    def close(self) -> None:
        self.github.close()


def test_issues_made_together_of_which_some_landed_are_each_made_once(github, clock):
    tracker = tracker_on(github, clock)
    epic = tracker.create_issue("Epic")
    tracker.client.transport = _FirstOnlyLands(github)
    made = tracker.create_issues(_three(tracker, epic.number))
    titles = [i.title for i in github.repository("acme/shop").issue_list]
    assert sorted(titles) == ["Epic", "Part 0", "Part 1", "Part 2"]
    sent = [r.name for r in github.requests if r.name.startswith("CreateIssue")]
    assert sent == ["CreateIssue", "CreateIssues", "CreateIssue", "CreateIssue"]  # 2 alone
    assert [m.title for m in made] == ["Part 0", "Part 1", "Part 2"]
    assert tracker.get_issue(epic.number).sub_issues == tuple(m.number for m in made)
    assert all(tracker.get_issue(m.number).estimate is Estimate.S for m in made)
