"""The board as a queue of roots: which pipelines a pass over the board runs, in order.

A root is what ``ralph hero N`` takes: an epic with its children, or an issue with the
issues its dependencies bind to it (one group, one root). The order is the original's
loop's: a group holding a P0/P1 issue first, then work already in flight (an issue
taken by a phase, a plan in review, a pull request open, or a run of the store still
active), then unstarted work; most urgent, then oldest, within each.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ralph.errors import DependencyCycle, IssueNotFound
from ralph.pipeline._groups import IssueRelations, detect_group
from ralph.pipeline._issues import IssueState
from ralph.pipeline._need import RootNeed, root_need
from ralph.pipeline._position import detect_position
from ralph.pipeline._stage import REMAINING_PHASES, Stage
from ralph.workflow import WorkflowState

__all__ = ["BoardIssue", "BoardQueue", "QueueTier", "QueuedRoot", "order_roots"]

_S = WorkflowState
#: Issues a phase has taken, or whose pipeline is past its plan.
_IN_FLIGHT = frozenset(
    {_S.RESEARCH_IN_PROGRESS, _S.PLAN_IN_PROGRESS, _S.PLAN_IN_REVIEW, _S.IN_PROGRESS, _S.IN_REVIEW}
)
_URGENT = ("P0", "P1")
_PRIORITIES = ("P0", "P1", "P2", "P3")


class QueueTier(enum.IntEnum):
    """The original loop's queues, in the order it drains them."""

    URGENT = 0
    IN_FLIGHT = 1
    UNSTARTED = 2


@dataclass(frozen=True)
class BoardIssue:
    """What the queue reads of one issue (open or closed)."""

    state: IssueState
    relations: IssueRelations
    priority: str | None = None
    created_at: float = 0.0
    is_open: bool = True

    @property
    def number(self) -> int:
        return self.state.number


@dataclass(frozen=True)
class QueuedRoot:
    root: int
    #: The group the root's pipeline covers, in implementation order.
    members: tuple[int, ...]
    stage: Stage
    #: The phase the root's pipeline runs next.
    next_phase: str
    tier: QueueTier


@dataclass(frozen=True)
class BoardQueue:
    #: Roots with work a phase can do, in the order to run them.
    roots: tuple[QueuedRoot, ...]
    #: Roots whose next phase is not among the phases asked for.
    skipped: tuple[QueuedRoot, ...] = ()
    #: Open issues that wait for a person: Human Needed, a plan to approve, a cycle;
    #: never a root listed above (one issue is in one list).
    waiting: tuple[int, ...] = ()


def _rank(priority: str | None) -> int:
    return _PRIORITIES.index(priority) if priority in _PRIORITIES else len(_PRIORITIES)


def _candidate_roots(board: Mapping[int, BoardIssue]) -> list[int]:
    """Each open issue's root: its parent while that is open (the epic), else itself."""
    roots: set[int] = set()
    for issue in board.values():
        if not issue.is_open:
            continue
        parent = issue.relations.parent
        if parent is not None and parent in board and board[parent].is_open:
            roots.add(parent)
        else:
            roots.add(issue.number)
    return sorted(roots)


def order_roots(
    issues: Sequence[BoardIssue],
    *,
    active_runs: Mapping[int, Collection[int]] | None = None,
    gate_phase: str | None = "review",
    phases: Collection[str] | None = None,
) -> BoardQueue:
    """The board's roots in the order a pass runs them.

    ``active_runs`` maps the root of each run still active in the task store to its
    group: a group such a run covers is that run's root (a run is resumed, never
    doubled). ``gate_phase`` is the phase that takes a plan in review on (``review``, or
    ``implement`` when nobody reviews); None when a person approves plans, so a group
    waiting at the gate waits for a person. ``phases``, when given, are the only phases
    to run: other roots are skipped."""
    board = {issue.number: issue for issue in issues}
    runs = dict(active_runs or {})

    def fetch(number: int) -> IssueRelations | None:
        found = board.get(number)
        return found.relations if found is not None else None

    covered: set[int] = set()
    roots: list[tuple[tuple[int, int, float, int], QueuedRoot]] = []
    skipped: list[QueuedRoot] = []
    waiting: set[int] = {
        n for n, i in board.items() if i.is_open and i.state.workflow_state == _S.HUMAN_NEEDED
    }
    # Roots of active runs first, so the groups they cover keep their run.
    for root in [*runs, *_candidate_roots(board)]:
        if root in covered or root not in board:
            continue
        try:
            group = detect_group(root, fetch)
        except DependencyCycle as cycle:
            waiting.update(cycle.issues)  # only a person can break a cycle
            covered.update({root, *cycle.issues})
            continue
        except IssueNotFound:
            continue
        members = group.issues
        if covered & {root, *members}:
            continue
        covered.update({root, *members})
        states = [board[n].state if n in board else IssueState(n) for n in members]
        position = detect_position(states, is_group=group.is_group, group_primary=group.primary)
        stage = position.phase
        need = root_need(stage, states, gate_phase=gate_phase)
        if need is RootNeed.PERSON and stage is Stage.HUMAN_GATE:
            waiting.update(members)  # the plans to approve (escalated issues are in already)
        if need is not RootNeed.WORK:
            continue
        if stage is Stage.HUMAN_GATE and gate_phase is not None:
            next_phase = gate_phase
        else:
            next_phase = REMAINING_PHASES[stage][0]
        group_issues = [board[n] for n in {root, *members} if n in board]
        best = min(_rank(i.priority) for i in group_issues)
        if best < len(_URGENT):
            tier = QueueTier.URGENT
        elif root in runs or any(i.state.workflow_state in _IN_FLIGHT for i in group_issues):
            tier = QueueTier.IN_FLIGHT
        else:
            tier = QueueTier.UNSTARTED
        queued = QueuedRoot(root, members, stage, next_phase, tier)
        if phases is not None and next_phase not in phases:
            skipped.append(queued)
            continue
        roots.append(((tier, best, board[root].created_at, root), queued))
    roots.sort(key=lambda pair: pair[0])
    # A root with work whose own issue waits (an escalated epic whose children go on)
    # is listed as work: its children's tasks run, and it is waited for once they end.
    listed = {queued.root for queued in [*(q for _, q in roots), *skipped]}
    return BoardQueue(
        tuple(queued for _, queued in roots),
        tuple(skipped),
        tuple(sorted(n for n in waiting - listed if n in board and board[n].is_open)),
    )
