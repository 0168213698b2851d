"""The board as a queue of roots: P0/P1 first, then work in flight, then unstarted work,
oldest first; an epic is one root with its children; a run still active keeps its root."""

from __future__ import annotations

import pytest

from ralph.pipeline import (
    BoardIssue,
    IssueRelations,
    IssueState,
    QueueTier,
    Stage,
    order_roots,
)


def issue(
    number,
    state="Backlog",
    *,
    estimate="XS",
    priority=None,
    parent=None,
    subs=(),
    blocked_by=(),
    created=None,
    is_open=True,
):
    return BoardIssue(
        IssueState(number, f"Issue {number}", state, estimate, len(subs)),
        IssueRelations(number, parent=parent, sub_issues=subs, blocked_by=blocked_by),
        priority=priority,
        created_at=float(number if created is None else created),
        is_open=is_open,
    )


def roots(*issues, **options):
    return [q.root for q in order_roots(list(issues), **options).roots]


@pytest.mark.parametrize(
    ("board", "order"),
    [
        pytest.param([issue(1), issue(2), issue(3)], [1, 2, 3], id="unstarted, oldest first"),
        pytest.param(
            [issue(1, created=30), issue(2, created=10), issue(3, created=20)],
            [2, 3, 1],
            id="oldest by creation, not by number",
        ),
        pytest.param(
            [issue(1), issue(2, "In Progress"), issue(3, "Research in Progress")],
            [2, 3, 1],
            id="in flight before unstarted",
        ),
        pytest.param(
            [issue(1, "In Progress"), issue(2, priority="P1"), issue(3, priority="P0")],
            [3, 2, 1],
            id="P0 then P1 before work in flight",
        ),
        pytest.param(
            [issue(1, priority="P2"), issue(2, priority="P3"), issue(3)],
            [1, 2, 3],
            id="then by priority within a tier",
        ),
        pytest.param(
            [issue(1, "Plan in Review"), issue(2, "In Review"), issue(3, "Ready for Plan")],
            [1, 2, 3],
            id="a plan in review and a pull request are in flight",
        ),
    ],
)
def test_roots_come_in_the_original_loops_order(board, order):
    assert roots(*board) == order


def test_an_epic_is_one_root_with_its_children():
    board = [
        issue(1, "In Progress", estimate="M", subs=(2, 3)),
        issue(2, "Research Needed", parent=1),
        issue(3, "Research Needed", parent=1),
        issue(4),
    ]
    queue = order_roots(board)
    assert [(q.root, q.members, q.stage) for q in queue.roots] == [
        (1, (2, 3), Stage.RESEARCH),
        (4, (4,), Stage.TRIAGE),
    ]


def test_an_unsplit_epic_is_its_own_root_and_is_split_next():
    (queued,) = order_roots([issue(1, estimate="M")]).roots
    assert (queued.root, queued.stage, queued.next_phase) == (1, Stage.SPLIT, "split")


def test_issues_bound_by_dependencies_are_one_root():
    board = [issue(1, "Research Needed"), issue(2, "Research Needed", blocked_by=(1,))]
    assert roots(*board) == [1]


def test_a_group_with_an_urgent_member_is_urgent():
    board = [issue(1), issue(2, subs=(3,)), issue(3, parent=2, priority="P0")]
    queue = order_roots(board)
    assert [(q.root, q.tier) for q in queue.roots] == [
        (2, QueueTier.URGENT),
        (1, QueueTier.UNSTARTED),
    ]


def test_a_group_an_active_run_covers_keeps_that_runs_root():
    board = [issue(1, "Research Needed"), issue(2, "Research Needed", blocked_by=(1,))]
    queue = order_roots(board, active_runs={2: (1, 2)})
    assert [(q.root, q.tier) for q in queue.roots] == [(2, QueueTier.IN_FLIGHT)]


@pytest.mark.parametrize(
    "board",
    [
        pytest.param([issue(1, "Done", is_open=False)], id="done"),
        pytest.param([issue(1, "Canceled", is_open=False)], id="canceled"),
        pytest.param([issue(1, "Human Needed")], id="waiting for a person"),
        pytest.param(
            [issue(1, subs=(2, 3)), issue(2, "Done", parent=1), issue(3, "Done", parent=1)],
            id="an epic whose children are all done",
        ),
    ],
)
def test_nothing_left_to_do_is_no_root(board):
    assert roots(*board) == []


def test_issues_in_human_needed_wait_for_a_person():
    queue = order_roots([issue(1, "Human Needed"), issue(2, "Done", is_open=False), issue(3)])
    assert queue.waiting == (1,)
    assert [q.root for q in queue.roots] == [3]


def test_a_plan_waits_for_a_person_only_when_a_person_approves_plans():
    board = [issue(1, "Plan in Review")]
    (queued,) = order_roots(board).roots
    assert queued.next_phase == "review"
    (queued,) = order_roots(board, gate_phase="implement").roots
    assert queued.next_phase == "implement"
    queue = order_roots(board, gate_phase=None)
    assert (queue.roots, queue.waiting) == ((), (1,))


def test_a_dependency_cycle_waits_for_a_person():
    board = [issue(1, blocked_by=(2,)), issue(2, blocked_by=(1,)), issue(3)]
    queue = order_roots(board)
    assert [q.root for q in queue.roots] == [3]
    assert queue.waiting == (1, 2)


def test_only_roots_whose_next_phase_is_asked_for_are_queued():
    board = [issue(1), issue(2, "Research Needed"), issue(3, "Ready for Plan")]
    queue = order_roots(board, phases={"triage", "research"})
    assert [q.root for q in queue.roots] == [1, 2]
    assert [(q.root, q.next_phase) for q in queue.skipped] == [(3, "plan")]


def test_an_oversized_issue_whose_split_escalated_waits_and_is_no_root():
    queue = order_roots([issue(1, "Human Needed", estimate="M"), issue(2)])
    assert [q.root for q in queue.roots] == [2]
    assert queue.waiting == (1,)


def test_a_group_whose_open_issues_all_wait_for_a_person_is_no_root():
    board = [
        issue(1, "Human Needed", subs=(2, 3)),
        issue(2, "Human Needed", parent=1),
        issue(3, "Done", parent=1, is_open=False),
    ]
    queue = order_roots(board)
    assert (queue.roots, queue.waiting) == ((), (1, 2))


def test_an_issue_is_never_both_work_and_waiting_for_a_person():
    board = [
        issue(1, "Human Needed", estimate="M", subs=(2,)),
        issue(2, "Research Needed", parent=1),
        issue(3, "Human Needed", estimate="L"),
        issue(4, "Human Needed"),
    ]
    queue = order_roots(board)
    work = [q.root for q in queue.roots]
    assert work == [1]  # the escalated epic's child goes on
    assert queue.waiting == (3, 4)
    assert not set(work) & set(queue.waiting)
