"""The tracker contract, run against every backend: local on an in-memory SQLite, on
SQLite and on PostgreSQL, and GitHub (over the fake GitHub, which executes the tracker's GraphQL
against GitHub's published schema)."""

from __future__ import annotations

import re
import threading

import pytest

from ralph.errors import (
    InvalidInput,
    InvalidTransition,
    IssueNotFound,
    StateConflict,
    StateResolutionError,
)
from ralph.tracker import (
    UNKNOWN_STATE,
    CloseReason,
    IssueOrder,
    IssueQuery,
    IssueStatus,
    NewIssue,
)
from ralph.workflow import Estimate, Priority, WorkflowState, parse_transition_comments

S = WorkflowState


def make(tracker, title="Issue", **fields):
    return tracker.create_issue(title, **fields)


def author(tracker, asked: str) -> str:
    """Who a comment posted "as ``asked``" shows: GitHub always names the token's user
    (``ralph`` in these tests); the other backends keep the name given."""
    return "ralph" if tracker.kind in ("github", "linear", "jira", "gitlab") else asked


# -- issues -----------------------------------------------------------------------------------


def test_new_issues_are_numbered_from_one_and_keep_their_fields(tracker, clock):
    first = make(tracker, "First", body="why", estimate=Estimate.S, priority=Priority.P1)
    second = make(tracker, "Second", state=S.BACKLOG, labels=["bug", "ui", "bug"])
    assert (first.number, second.number) == (1, 2)
    got = tracker.get_issue(1)
    assert (got.title, got.body, got.estimate, got.priority) == (
        "First",
        "why",
        "XS" and Estimate.S,
        Priority.P1,
    )
    assert got.workflow_state is None
    assert got.is_open
    assert got.created_at == clock.now
    assert tracker.get_issue(2).labels == ("bug", "ui")
    assert tracker.get_issue(2).workflow_state is S.BACKLOG


def test_issues_made_together_are_made_in_order_with_their_fields(tracker):
    epic = make(tracker, "Epic")
    made = tracker.create_issues(
        [
            NewIssue(
                "Part 1", body="one", parent=epic.number, state=S.BACKLOG, estimate=Estimate.S
            ),
            NewIssue("Part 2", parent=epic.number, estimate=Estimate.M, labels=("ui",)),
        ]
    )
    assert [issue.number for issue in made] == [2, 3]
    first, second = (tracker.get_issue(n) for n in (2, 3))
    assert (first.title, first.body, first.workflow_state, first.estimate) == (
        "Part 1",
        "one",
        S.BACKLOG,
        Estimate.S,
    )
    assert (second.estimate, second.labels, second.parent) == (Estimate.M, ("ui",), epic.number)
    assert tracker.get_issue(epic.number).sub_issues == (2, 3)


def test_an_unknown_issue_is_reported_by_number(tracker):
    with pytest.raises(IssueNotFound, match="#7"):
        tracker.get_issue(7)


def test_a_sub_issue_under_a_missing_parent_is_refused_and_nothing_is_created(tracker):
    with pytest.raises(IssueNotFound):
        make(tracker, parent=9)
    assert tracker.list_issues(IssueQuery(status=None)) == []
    assert make(tracker).number == 1


def test_updates_change_only_the_given_fields_and_replace_labels(tracker, clock):
    make(tracker, "Old", body="b", labels=["a"], estimate=Estimate.M)
    clock.advance(60)
    updated = tracker.update_issue(1, title="New", labels=["x", "y"], priority=Priority.P0)
    assert (updated.title, updated.body, updated.labels) == ("New", "b", ("x", "y"))
    assert (updated.estimate, updated.priority) == (Estimate.M, Priority.P0)
    assert updated.updated_at == clock.now
    with pytest.raises(IssueNotFound):
        tracker.update_issue(5, title="x")


def test_an_edit_changes_the_given_fields_and_adds_and_removes_labels_keeping_the_rest(
    tracker, clock
):
    make(tracker, "Old", body="b", labels=["keep", "drop"], estimate=Estimate.M)
    clock.advance(60)
    edited = tracker.edit_issue(
        1,
        title="New",
        body="new body",
        estimate=Estimate.S,
        priority=Priority.P1,
        add_labels=["fresh", "keep"],
        remove_labels=["drop", "never-there"],
    )
    assert (edited.title, edited.body) == ("New", "new body")
    assert (edited.estimate, edited.priority) == (Estimate.S, Priority.P1)
    assert sorted(edited.labels) == ["fresh", "keep"]
    assert tracker.get_issue(1) == edited
    assert edited.updated_at == clock.now


def test_an_edit_of_only_labels_leaves_every_other_field(tracker):
    make(tracker, "Title", body="body", labels=["a"], priority=Priority.P2)
    edited = tracker.edit_issue(1, remove_labels=["a"])
    assert (edited.title, edited.body, edited.labels, edited.priority) == (
        "Title",
        "body",
        (),
        Priority.P2,
    )


def test_an_edit_with_one_bad_value_writes_nothing(tracker):
    make(tracker, "Title", body="body", labels=["a"])
    before = tracker.get_issue(1)
    for bad in (
        {"title": "x" * 257},
        {"title": "two\nlines"},
        {"add_labels": ["ok", "bad\nlabel"]},
        {"remove_labels": [" "]},
    ):
        with pytest.raises(InvalidInput):
            tracker.edit_issue(1, **{"body": "changed", "add_labels": ["b"], **bad})
    assert tracker.get_issue(1) == before
    with pytest.raises(IssueNotFound, match="#9"):
        tracker.edit_issue(9, title="x", add_labels=["b"])


def test_comments_keep_their_order_author_and_time(tracker, clock):
    make(tracker)
    tracker.add_comment(1, "one", author="alice")
    clock.advance(5)
    tracker.add_comment(1, "two")
    comments = tracker.get_issue(1).comments
    assert [(c.author, c.body) for c in comments] == [
        (author(tracker, "alice"), "one"),
        ("ralph", "two"),
    ]
    assert comments[1].created_at == comments[0].created_at + 5
    with pytest.raises(IssueNotFound):
        tracker.add_comment(3, "nobody")


def test_closing_records_the_reason_and_reopening_clears_it(tracker, clock):
    make(tracker)
    closed = tracker.close_issue(1, CloseReason.NOT_PLANNED)
    assert closed.status is IssueStatus.CLOSED
    assert closed.close_reason is CloseReason.NOT_PLANNED
    assert closed.closed_at == clock.now
    reopened = tracker.reopen_issue(1)
    assert reopened.is_open
    assert reopened.close_reason is None
    assert reopened.closed_at is None


# -- listing ----------------------------------------------------------------------------------


def test_listing_filters_by_state_estimate_label_text_and_parent(tracker):
    epic = make(tracker, "Epic about login", estimate=Estimate.L, state=S.BACKLOG)
    make(tracker, "Child one", parent=epic.number, estimate=Estimate.S, state=S.RESEARCH_NEEDED)
    make(tracker, "Child two", parent=epic.number, labels=["ui"], state=S.RESEARCH_NEEDED)
    make(tracker, "Loner", body="mentions LOGIN", estimate=Estimate.XS)

    def numbers(**filters):
        return sorted(i.number for i in tracker.list_issues(IssueQuery(**filters)))

    assert numbers(states={S.RESEARCH_NEEDED}) == [2, 3]
    assert numbers(estimates={Estimate.S, Estimate.XS}) == [2, 4]
    assert numbers(labels={"ui"}) == [3]
    assert numbers(text="login") == [1, 4]
    assert numbers(has_parent=True) == [2, 3]
    assert numbers(has_parent=False) == [1, 4]
    assert numbers(parent=1) == [2, 3]


def test_listing_hides_closed_issues_unless_asked(tracker):
    make(tracker)
    make(tracker)
    tracker.close_issue(1)
    assert [i.number for i in tracker.list_issues()] == [2]
    assert [i.number for i in tracker.list_issues(IssueQuery(status=IssueStatus.CLOSED))] == [1]
    assert len(tracker.list_issues(IssueQuery(status=None))) == 2


def test_listing_orders_by_priority_then_age_or_by_time(tracker, clock):
    for priority in (None, Priority.P2, Priority.P0, Priority.P2):
        make(tracker, priority=priority)
        clock.advance(10)
    tracker.update_issue(1, title="touched")

    def order(o, limit=None):
        return [i.number for i in tracker.list_issues(IssueQuery(order=o, limit=limit))]

    assert order(IssueOrder.PRIORITY) == [3, 2, 4, 1]
    assert order(IssueOrder.CREATED) == [4, 3, 2, 1]
    assert order(IssueOrder.CREATED_ASC) == [1, 2, 3, 4]
    assert order(IssueOrder.UPDATED)[0] == 1
    assert order(IssueOrder.PRIORITY, limit=2) == [3, 2]


# -- relations --------------------------------------------------------------------------------


def test_sub_issues_link_both_ways_and_a_second_parent_needs_replace(tracker):
    if tracker.kind == "jira":
        pytest.skip("Jira puts a Task under an epic only (tests/integration/jira)")
    for _ in range(3):
        make(tracker)
    tracker.add_sub_issue(1, 3)
    assert tracker.get_issue(1).sub_issues == (3,)
    assert tracker.get_issue(3).parent == 1
    with pytest.raises(InvalidInput, match="already a sub-issue of #1"):
        tracker.add_sub_issue(2, 3)
    tracker.add_sub_issue(2, 3, replace_parent=True)
    assert tracker.get_issue(1).sub_issues == ()
    assert tracker.get_issue(3).parent == 2
    tracker.remove_sub_issue(2, 3)
    assert tracker.get_issue(3).parent is None


def test_a_sub_issue_cannot_contain_its_own_ancestor(tracker):
    make(tracker)
    make(tracker, parent=1)
    with pytest.raises(InvalidInput, match="ancestor"):
        tracker.add_sub_issue(2, 1)
    with pytest.raises(InvalidInput, match="own sub-issue"):
        tracker.add_sub_issue(1, 1)


def test_issues_read_together_are_each_as_read_alone(tracker):
    """``get_issues`` and ``relations_of``: what group detection and a parent's advance
    read at once, one request or statement where the backend can."""
    make(tracker, "Epic")
    for i in range(3):
        make(tracker, f"Child {i}", parent=1)
    tracker.add_dependency(3, 2)
    tracker.add_comment(3, "a note")
    numbers = [4, 1, 3, 2]
    assert tracker.get_issues(numbers) == [tracker.get_issue(n) for n in numbers]
    assert tracker.relations_of([*numbers, 99]) == {n: tracker.relations(n) for n in numbers}
    assert tracker.get_issues([]) == []
    with pytest.raises(IssueNotFound, match="#99"):
        tracker.get_issues([2, 99])


def test_dependencies_are_symmetric_and_removable(tracker):
    for _ in range(3):
        make(tracker)
    tracker.add_dependency(3, 1)
    tracker.add_dependency(3, 2)
    tracker.add_dependency(3, 2)  # twice is once
    assert tracker.get_issue(3).blocked_by == (1, 2)
    assert tracker.get_issue(1).blocking == (3,)
    tracker.remove_dependency(3, 1)
    assert tracker.get_issue(3).blocked_by == (2,)
    assert tracker.get_issue(1).blocking == ()
    with pytest.raises(InvalidInput, match="not blocked by"):
        tracker.remove_dependency(3, 1)
    with pytest.raises(IssueNotFound):
        tracker.add_dependency(3, 99)


def test_a_dependency_that_would_close_a_cycle_is_refused_naming_it(tracker):
    for _ in range(3):
        make(tracker)
    tracker.add_dependency(2, 1)  # 2 waits for 1
    tracker.add_dependency(3, 2)  # 3 waits for 2
    with pytest.raises(InvalidInput, match=re.escape("(#3 → #2 → #1, each waiting")):
        tracker.add_dependency(1, 3)
    with pytest.raises(InvalidInput, match="itself"):
        tracker.add_dependency(1, 1)
    assert tracker.get_issue(1).blocked_by == ()


# -- workflow state ---------------------------------------------------------------------------


def test_set_state_moves_and_leaves_an_audit_comment_whose_marker_parses_back(tracker):
    make(tracker)
    first = tracker.set_state(1, "Backlog", actor="alice")
    assert (first.previous, first.new, first.changed) == (None, S.BACKLOG, True)
    change = tracker.set_state(1, "Research Needed", command="triage")
    assert (change.previous, change.new, change.command) == (
        S.BACKLOG,
        S.RESEARCH_NEEDED,
        "ralph_triage",
    )
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.RESEARCH_NEEDED
    records = [r for c in issue.comments for r in parse_transition_comments(c.body)]
    assert [(r.from_state, r.to_state, r.command) for r in records] == [
        (UNKNOWN_STATE, "Backlog", "ralph_human"),
        ("Backlog", "Research Needed", "ralph_triage"),
    ]
    assert issue.comments[0].author == author(tracker, "alice")
    assert records[1].at.endswith("Z")


def test_set_state_resolves_intents_for_the_command(tracker):
    make(tracker, state=S.RESEARCH_NEEDED)
    change = tracker.set_state(1, "__LOCK__", command="ralph_research")
    assert change.new is S.RESEARCH_IN_PROGRESS
    assert change.resolved_from == "__LOCK__"
    assert "(intent: __LOCK__)" in tracker.get_issue(1).comments[-1].body


def test_releasing_a_lock_goes_back_to_the_input_state_with_an_audit_comment(tracker):
    make(tracker, state=S.RESEARCH_NEEDED)
    tracker.set_state(1, "__LOCK__", command="ralph_research")
    change = tracker.release(1, command="ralph_research")
    assert change is not None
    assert (change.previous, change.new) == (S.RESEARCH_IN_PROGRESS, S.RESEARCH_NEEDED)
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.RESEARCH_NEEDED
    assert "→ Research Needed" in issue.comments[-1].body
    assert tracker.release(1, command="ralph_research") is None


def test_a_transition_the_matrix_forbids_is_refused_naming_the_allowed_ones(tracker):
    make(tracker, state=S.BACKLOG)
    with pytest.raises(InvalidTransition, match="Allowed from 'Backlog': Research Needed"):
        tracker.set_state(1, "In Review")
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.BACKLOG
    assert issue.comments == ()


def test_a_state_the_command_may_not_produce_is_refused(tracker):
    make(tracker, state=S.RESEARCH_NEEDED)
    with pytest.raises(StateResolutionError, match="Recovery"):
        tracker.set_state(1, "Done", command="research")
    assert tracker.get_issue(1).workflow_state is S.RESEARCH_NEEDED


def test_asking_for_the_current_state_changes_nothing(tracker):
    make(tracker, state=S.RESEARCH_IN_PROGRESS)
    change = tracker.set_state(1, "__LOCK__", command="research")
    assert not change.changed
    assert tracker.get_issue(1).comments == ()


def test_a_state_write_from_a_stale_read_conflicts_and_writes_nothing(tracker):
    make(tracker, state=S.BACKLOG)
    with pytest.raises(StateConflict, match="re-read"):
        tracker._write_state(1, S.RESEARCH_NEEDED, S.READY_FOR_PLAN, "stale", "x")
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.BACKLOG
    assert issue.comments == ()


def test_a_move_only_from_a_state_the_issue_left_is_refused_and_writes_nothing(tracker):
    make(tracker, state=S.HUMAN_NEEDED)  # a person escalated it while research held it
    with pytest.raises(StateConflict, match="Human Needed"):
        tracker.set_state(1, "__COMPLETE__", command="research", only_from=S.RESEARCH_IN_PROGRESS)
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.HUMAN_NEEDED
    assert issue.comments == ()


def test_of_two_concurrent_lockers_exactly_one_takes_the_lock(tracker):
    make(tracker, state=S.RESEARCH_NEEDED)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def lock(name: str) -> None:
        barrier.wait()
        try:
            change = tracker.set_state(1, "__LOCK__", command="research", actor=name)
            outcomes.append("moved" if change.changed else "no-op")
        except StateConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=lock, args=(f"w{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("moved") == 1
    assert len(tracker.get_issue(1).comments) == 1


# -- gates ------------------------------------------------------------------------------------


def family(tracker, parent_state, *child_states):
    parent = make(tracker, "Parent", state=parent_state)
    for state in child_states:
        make(tracker, "Child", parent=parent.number, state=state)
    return parent.number


def test_a_parent_follows_its_slowest_child_to_a_gate_state(tracker):
    parent = family(tracker, S.RESEARCH_NEEDED, S.READY_FOR_PLAN, S.IN_REVIEW)
    result = tracker.advance_parent(2)
    assert result.advanced
    assert result.change.new is S.READY_FOR_PLAN
    assert tracker.get_issue(parent).workflow_state is S.READY_FOR_PLAN
    records = parse_transition_comments(tracker.get_issue(parent).comments[-1].body)
    assert records[0].command == "ralph_advance_parent"


def test_a_parent_waits_while_a_child_is_short_of_a_gate(tracker):
    family(tracker, S.BACKLOG, S.READY_FOR_PLAN, S.RESEARCH_IN_PROGRESS)
    result = tracker.advance_parent(2)
    assert not result.advanced
    assert result.reason == "Not all children at a gate state"


def test_a_child_outside_the_pipeline_holds_the_parent(tracker):
    family(tracker, S.BACKLOG, S.DONE, S.HUMAN_NEEDED)
    result = tracker.advance_parent(2)
    assert not result.advanced
    assert "#3" in result.reason
    assert "outside the pipeline" in result.reason


def test_a_canceled_child_does_not_hold_the_parent(tracker):
    parent = family(tracker, S.IN_REVIEW, S.DONE, S.CANCELED)
    assert tracker.advance_parent(2).advanced
    assert tracker.get_issue(parent).workflow_state is S.DONE


def test_a_parent_that_reaches_done_is_closed_with_its_last_child(tracker):
    parent = family(tracker, S.IN_REVIEW, S.DONE, S.DONE)
    assert tracker.advance_parent(2).advanced
    assert tracker.get_issue(parent).workflow_state is S.DONE
    assert not tracker.get_issue(parent).is_open


def test_a_done_parent_left_open_by_a_crash_is_closed_by_the_next_advance(tracker):
    if tracker.kind in ("linear", "jira"):
        pytest.skip(f"{tracker.kind}'s Done closes the issue: a Done issue is never left open")
    parent = family(tracker, S.DONE, S.DONE)
    assert tracker.get_issue(parent).is_open
    tracker.advance_parent(2)
    assert not tracker.get_issue(parent).is_open


def test_a_parent_already_there_stays_and_an_orphan_has_no_parent_to_move(tracker):
    family(tracker, S.DONE, S.DONE)
    assert tracker.advance_parent(2).reason == "Parent already at or past target state"
    make(tracker)
    assert tracker.advance_parent(3).reason == "Issue has no parent"


def test_children_earlier_than_the_target_advance_and_the_rest_are_skipped(tracker):
    parent = family(tracker, S.BACKLOG, S.BACKLOG, S.READY_FOR_PLAN, S.DONE, None)
    result = tracker.advance_children(S.READY_FOR_PLAN, parent=parent)
    assert [c.number for c in result.advanced] == [2]
    assert dict(result.skipped) == {
        3: "Already at target state",
        4: "Already at or past target state",
        5: "No workflow state set on issue",
    }
    assert tracker.get_issue(2).workflow_state is S.READY_FOR_PLAN


def test_a_child_the_matrix_cannot_move_is_an_error_entry(tracker):
    family(tracker, S.BACKLOG, S.BACKLOG)
    result = tracker.advance_children(S.IN_REVIEW, issues=[2])
    assert result.advanced == ()
    assert result.errors[0][0] == 2
    assert "Allowed from 'Backlog'" in result.errors[0][1]


# -- picking work -----------------------------------------------------------------------------


def test_pick_actionable_orders_by_priority_then_age(tracker, clock):
    for priority in (Priority.P2, Priority.P1, Priority.P1):
        make(tracker, state=S.RESEARCH_NEEDED, estimate=Estimate.S, priority=priority)
        clock.advance(1)
    assert [i.number for i in tracker.actionable(command="research")] == [2, 3, 1]
    assert tracker.pick_actionable(command="research").number == 2


def test_pick_actionable_skips_blocked_locked_oversized_and_escalated_issues(tracker):
    blocker = make(tracker, state=S.IN_PROGRESS)
    blocked = make(tracker, state=S.RESEARCH_NEEDED, estimate=Estimate.XS)
    tracker.add_dependency(blocked.number, blocker.number)
    make(tracker, state=S.RESEARCH_NEEDED, estimate=Estimate.L)  # oversized for research
    held = make(tracker, state=S.RESEARCH_NEEDED)  # no estimate: passes the estimate filter
    free = make(tracker, state=S.RESEARCH_NEEDED, estimate=Estimate.S)
    make(tracker, state=S.HUMAN_NEEDED)
    assert [i.number for i in tracker.actionable(command="research")] == [held.number, free.number]
    assert tracker.pick_actionable(command="research", locked={held.number}).number == free.number
    assert tracker.pick_actionable(states={S.HUMAN_NEEDED}) is None


def test_looking_for_work_says_why_each_issue_is_passed_over(tracker):
    blocker = make(tracker, state=S.RESEARCH_IN_PROGRESS)
    blocked = make(tracker, state=S.RESEARCH_NEEDED, estimate=Estimate.XS)
    tracker.add_dependency(blocked.number, blocker.number)
    big = make(tracker, state=S.RESEARCH_NEEDED, estimate=Estimate.L)
    held = make(tracker, state=S.RESEARCH_NEEDED)
    found = tracker.look_for_work(command="research", locked={held.number})
    assert found.issues == ()
    assert found.why_none() == (
        f"#{blocked.number} blocked by #{blocker.number} (Research in Progress); "
        f"#{big.number} is L; this takes XS, S; #{held.number} locked (a phase has it)"
    )
    assert tracker.look_for_work(command="plan").why_none() == "no open issue is in Ready for Plan"


def test_a_finished_blocker_no_longer_blocks(tracker):
    blocker = make(tracker, state=S.IN_REVIEW)
    waiting = make(tracker, state=S.READY_FOR_PLAN, estimate=Estimate.S)
    tracker.add_dependency(waiting.number, blocker.number)
    assert tracker.pick_actionable(command="plan") is None
    tracker.set_state(blocker.number, "Done", command="merge")
    assert tracker.pick_actionable(command="plan").number == waiting.number


def test_pick_actionable_needs_a_command_or_states(tracker):
    with pytest.raises(InvalidInput):
        tracker.pick_actionable()


def test_advance_children_needs_a_parent_or_issues(tracker):
    with pytest.raises(InvalidInput, match="parent number or a list"):
        tracker.advance_children(S.READY_FOR_PLAN)


# -- redaction ---------------------------------------------------------------------------------


def test_a_known_secret_never_reaches_an_issue_a_comment_or_a_note_whoever_writes_them(tracker):
    """Redaction is the tracker's write path, so ``ralph issue new/comment`` and the MCP
    write tools hide secrets as Ralph's own phases do."""
    from ralph._secrets import register_secret

    secret = "s3cret-tracker-contract-7a1f9c2e"
    register_secret(secret)
    issue = make(tracker, f"Deploy with {secret}", body=f"token={secret}")
    tracker.update_issue(issue.number, body=f"again {secret}")
    tracker.add_comment(issue.number, f"the key is {secret}")
    with tracker.snapshot():
        tracker.add_note(issue.number, f"note {secret}")
    got = tracker.get_issue(issue.number)
    written = [got.title, got.body, *(c.body for c in got.comments)]
    assert all(secret not in text for text in written)
    assert any("the key is" in text for text in written)
    assert secret not in tracker.stored_text(f"x {secret}")
