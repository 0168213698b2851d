"""The workflow rules, once, on top of the primitive reads and writes they use.

``set_state`` is the only way to change a workflow state; then the parent and child
gates, dependency cycle refusal and picking the next actionable issue. The primitives
these rules call are declared here; ``Tracker`` adds the rest of the interface.

A backend's ``_write_state`` is a compare-and-set where it can be (the local tracker's
transaction); where it cannot (GitHub), exclusive ownership of an issue comes from the
task store's issue locks, and ``_write_state`` re-reads just before writing.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from ralph.errors import InvalidInput, IssueNotFound, RalphError, StateConflict
from ralph.pipeline import IssueRelations
from ralph.tracker._fields import check_name
from ralph.tracker._model import CloseReason, Issue, IssueQuery, StateChange, iso
from ralph.tracker._picking import Picked, pick
from ralph.workflow import (
    SYNC_COMMAND,
    Estimate,
    TransitionRecord,
    WorkflowState,
    audit_comment,
    child_skip_reason,
    get_command,
    parent_decision,
    parse_state,
    plan_release,
    plan_transition,
    synced_state,
)

__all__ = ["UNKNOWN_STATE", "AdvanceResult", "ParentAdvance", "TrackerRules"]

#: How an audit marker names the "from" of an issue that had no workflow state.
UNKNOWN_STATE = "(unknown)"


@dataclass(frozen=True)
class AdvanceResult:
    """What ``advance_children`` did, issue by issue (the original's three lists)."""

    advanced: tuple[StateChange, ...]
    skipped: tuple[tuple[int, str], ...]
    errors: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class ParentAdvance:
    advanced: bool
    reason: str
    change: StateChange | None = None
    child_states: tuple[tuple[int, str | None], ...] = ()


class TrackerRules(abc.ABC):
    """The workflow rules over an issue tracker's primitives."""

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or time.time

    def now(self) -> float:
        return self._clock()

    # -- primitives the rules use, every backend implements them ---------------------------

    @abc.abstractmethod
    def get_issue(self, number: int) -> Issue:
        """The issue with every field and relation; IssueNotFound if there is none."""

    @abc.abstractmethod
    def list_issues(self, query: IssueQuery | None = None) -> list[Issue]:
        """Issues matching ``query`` (default: open issues by priority, then age). Listed
        issues carry no comments; ``get_issue`` has them."""

    @abc.abstractmethod
    def _close_issue(self, number: int, reason: CloseReason, duplicate_of: int | None) -> Issue: ...

    @abc.abstractmethod
    def _set_parent(self, child: int, parent: int | None) -> None:
        """Make ``parent`` the child's only parent (None: detach)."""

    @abc.abstractmethod
    def _add_blocked_by(self, blocked: int, blocking: int) -> None:
        """Record "``blocked`` is blocked by ``blocking``"."""

    @abc.abstractmethod
    def _remove_blocked_by(self, blocked: int, blocking: int) -> None:
        """Drop "``blocked`` is blocked by ``blocking``"."""

    @abc.abstractmethod
    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        """Set the state if it is still ``expected`` and post ``comment``, as one write;
        StateConflict (nothing written) if it is not."""

    # -- relations ------------------------------------------------------------------------

    def add_sub_issue(self, parent: int, child: int, *, replace_parent: bool = False) -> None:
        """Place ``child`` under ``parent``. A child already under another parent is an
        error unless ``replace_parent``; a child cannot be its own ancestor."""
        if parent == child:
            raise InvalidInput(f"#{child} cannot be its own sub-issue")
        current = self.get_issue(child).parent
        self.get_issue(parent)
        if current == parent:
            return
        if current is not None and not replace_parent:
            raise InvalidInput(
                f"#{child} is already a sub-issue of #{current}; "
                "remove it there first or pass replace_parent"
            )
        ancestor: int | None = parent
        while ancestor is not None:
            if ancestor == child:
                raise InvalidInput(f"#{child} is an ancestor of #{parent}; that would be a loop")
            ancestor = self.get_issue(ancestor).parent
        self._set_parent(child, parent)

    def remove_sub_issue(self, parent: int, child: int) -> None:
        if self.get_issue(child).parent != parent:
            raise InvalidInput(f"#{child} is not a sub-issue of #{parent}")
        self._set_parent(child, None)

    def add_dependency(self, blocked: int, blocking: int) -> None:
        """``blocked`` waits for ``blocking``. Refuses edges that would close a cycle,
        naming it, so group detection never meets one made here."""
        self._check_dependency(blocked, blocking)
        self._add_blocked_by(blocked, blocking)

    def add_dependencies(self, edges: Sequence[tuple[int, int]]) -> None:
        """``add_dependency`` on each (blocked, blocking) pair in order, each checked with
        the ones before it; a backend whose writes cost requests sends them together."""
        for blocked, blocking in edges:
            self.add_dependency(blocked, blocking)

    def _check_dependency(self, blocked: int, blocking: int) -> None:
        """InvalidInput when ``blocked`` may not wait for ``blocking`` (itself, a cycle)."""
        if blocked == blocking:
            raise InvalidInput(f"#{blocked} cannot block itself")
        self.get_issue(blocked)
        path = self._blocking_path(blocking, blocked)
        if path is not None:
            chain = " → ".join(f"#{n}" for n in path)
            raise InvalidInput(
                f"#{blocked} cannot wait for #{blocking}: #{blocking} already waits for "
                f"#{blocked} ({chain}, each waiting for the next); that would be a cycle"
            )

    def _blocking_path(self, start: int, target: int) -> list[int] | None:
        """A chain start -> ... -> target along blocked-by edges, if there is one."""
        came_from: dict[int, int | None] = {start: None}
        frontier = [start]
        while frontier:
            number = frontier.pop()
            if number == target:
                path = [number]
                while (previous := came_from[path[-1]]) is not None:
                    path.append(previous)
                return path[::-1]
            for nxt in self.get_issue(number).blocked_by:
                if nxt not in came_from:
                    came_from[nxt] = number
                    frontier.append(nxt)
        return None

    def remove_dependency(self, blocked: int, blocking: int) -> None:
        if blocking not in self.get_issue(blocked).blocked_by:
            raise InvalidInput(f"#{blocked} is not blocked by #{blocking}")
        self._remove_blocked_by(blocked, blocking)

    # -- workflow state -------------------------------------------------------------------

    def set_state(
        self,
        number: int,
        state_or_intent: str,
        *,
        command: str = "human",
        actor: str = "ralph",
        only_from: WorkflowState | None = None,
    ) -> StateChange:
        """Move an issue to a state or ``__INTENT__`` on behalf of ``command``.

        Checks the command's contract and the transition matrix (the errors name the
        allowed alternatives), then writes the state with an audit comment carrying the
        machine-readable transition marker. Asking for the current state changes nothing.
        Raises StateConflict if the state changed underneath, or if it is not
        ``only_from`` (a phase moves only the issues it holds, from the state it left
        them in); it never retries, because a retry would let a second phase believe it
        took a lock the first one holds.
        """
        check_name(actor, "the actor")
        issue = self.get_issue(number)
        if only_from is not None and issue.workflow_state is not only_from:
            current = issue.workflow_state
            raise StateConflict(number, only_from.value, current.value if current else None)
        transition = plan_transition(issue.workflow_state, state_or_intent, command)
        intent = state_or_intent if transition.was_intent else None
        change = StateChange(
            number, issue.workflow_state, transition.to_state, transition.command, intent
        )
        if transition.changed:
            self._record_move(change, actor, intent)
        return change

    def set_states(
        self,
        numbers: Sequence[int],
        state_or_intent: str,
        *,
        command: str,
        actor: str = "ralph",
        only_from: Mapping[int, WorkflowState] | None = None,
    ) -> list[StateChange]:
        """``set_state`` on each issue, in order (``only_from``: each issue's expected
        state). A backend whose writes cost requests (GitHub) sends the moves together;
        a refused move raises after the others landed."""
        held = only_from or {}
        return [
            self.set_state(n, state_or_intent, command=command, actor=actor, only_from=held.get(n))
            for n in numbers
        ]

    def sync_state(self, number: int, *, actor: str = "ralph") -> StateChange | None:
        """Move the issue to the Workflow State its open or closed state calls for, when
        a person closed or reopened it outside Ralph (``workflow.synced_state``): the
        tracker's word wins, so the move is audited but not checked against the matrix.
        None when there is nothing to move (run again, it changes nothing)."""
        check_name(actor, "the actor")
        issue = self.get_issue(number)
        target = synced_state(
            issue.workflow_state,
            is_open=issue.is_open,
            completed=issue.close_reason is CloseReason.COMPLETED,
            reopened=issue.reopened,
        )
        if target is None:
            return None
        change = StateChange(number, issue.workflow_state, target, SYNC_COMMAND)
        self._record_move(change, actor)
        return change

    def release(self, number: int, *, command: str, actor: str = "ralph") -> StateChange | None:
        """Undo ``command``'s lock on the issue, back to the state the lock was taken from
        (a failed phase's move; see ``workflow.plan_release``). None when the issue is
        not in the command's lock state. Audited like every move."""
        issue = self.get_issue(number)
        release = plan_release(issue.workflow_state, command)
        if release is None:
            return None
        change = StateChange(number, issue.workflow_state, release.to_state, release.command)
        self._record_move(change, actor)
        return change

    def _record_move(self, change: StateChange, actor: str, intent: str | None = None) -> None:
        body = self._audit(change, actor, intent)
        self._write_state(change.number, change.previous, change.new, body, actor)

    def _audit(self, change: StateChange, actor: str, intent: str | None = None) -> str:
        """The audit comment of ``change``, with its machine-readable transition marker."""
        record = TransitionRecord(
            str(change.previous or UNKNOWN_STATE),
            str(change.new),
            change.command,
            iso(self.now()) or "",
        )
        return audit_comment(record, intent=intent, actor=actor)

    def advance_children(
        self,
        target: WorkflowState | str,
        *,
        parent: int | None = None,
        issues: Sequence[int] = (),
        actor: str = "ralph",
    ) -> AdvanceResult:
        """Move each child (of ``parent``, or the listed ``issues``) that is earlier in the
        pipeline than ``target`` to ``target``; the others are skipped with the reason.
        Moves still follow the transition matrix; a refused move is an error entry."""
        goal = parse_state(str(target))
        if not issues:
            if parent is None:
                raise InvalidInput("advance_children needs a parent number or a list of issues")
            issues = self.get_issue(parent).sub_issues
        advanced, skipped, errors = [], [], []
        for number in issues:
            try:
                current = self.get_issue(number).workflow_state
                reason = child_skip_reason(current, goal)
                if reason is not None:
                    skipped.append((number, reason))
                    continue
                advanced.append(self.set_state(number, goal, actor=actor))
            except RalphError as exc:
                errors.append((number, f"Failed to update: {exc}"))
        return AdvanceResult(tuple(advanced), tuple(skipped), tuple(errors))

    def advance_parent(self, child: int, *, actor: str = "ralph") -> ParentAdvance:
        """Move the child's parent to the lowest state among its children once that is a
        gate state (Ready for Plan, In Review, Done). A parent's state follows its
        children, so this move is not checked against the matrix; it is audited."""
        parent_number = self.get_issue(child).parent
        if parent_number is None:
            return ParentAdvance(False, "Issue has no parent")
        parent = self.get_issue(parent_number)
        children = tuple((i.number, i.workflow_state) for i in self.get_issues(parent.sub_issues))
        decision = parent_decision(parent.workflow_state, children)
        if decision.target is None:
            self._close_if_done(parent)  # a rerun finishes a close a crash cut short
            return ParentAdvance(False, decision.reason, child_states=children)
        change = StateChange(
            parent.number, parent.workflow_state, decision.target, "ralph_advance_parent"
        )
        self._record_move(change, actor)
        self._close_if_done(self.get_issue(parent.number))
        return ParentAdvance(True, decision.reason, change, children)

    def _close_if_done(self, parent: Issue) -> None:
        """An epic whose last child is done is closed with it, as its children were."""
        if parent.workflow_state is WorkflowState.DONE and parent.is_open:
            self._close_issue(parent.number, CloseReason.COMPLETED, None)

    def relations(self, number: int) -> IssueRelations | None:
        """The issue's tree and dependencies, as group detection reads them; None when
        there is no such issue."""
        try:
            issue = self.get_issue(number)
        except IssueNotFound:
            return None
        return IssueRelations(
            number=issue.number,
            title=issue.title,
            parent=issue.parent,
            sub_issues=issue.sub_issues,
            blocked_by=issue.blocked_by,
            blocking=issue.blocking,
        )

    def get_issues(self, numbers: Sequence[int]) -> list[Issue]:
        """``get_issue`` of each of ``numbers``, in their order, read together where a
        backend can (a group's members); IssueNotFound names the first missing."""
        return [self.get_issue(n) for n in numbers]

    def relations_of(self, numbers: Sequence[int]) -> dict[int, IssueRelations]:
        """``relations`` of each of ``numbers`` that exists, read together where a
        backend can (group detection reads an epic's children so)."""
        return {n: found for n in numbers if (found := self.relations(n)) is not None}

    # -- picking work -----------------------------------------------------------------------

    def actionable(
        self,
        *,
        command: str | None = None,
        states: Collection[WorkflowState] = (),
        estimates: Collection[Estimate] | None = None,
        locked: Collection[int] = (),
    ) -> list[Issue]:
        """Open issues a phase could take now, best first (priority, then oldest).

        ``command`` supplies the states and estimates its contract accepts. Skipped:
        issues in a lock or human state, issues in ``locked`` (held in the task store),
        issues with an open blocker that is not Done or Canceled (or an open one in another
        repository). Issues with no estimate
        pass an estimate filter (the original's rule)."""
        found = self.look_for_work(
            command=command, states=states, estimates=estimates, locked=locked
        )
        return list(found.issues)

    def look_for_work(
        self,
        *,
        command: str | None = None,
        states: Collection[WorkflowState] = (),
        estimates: Collection[Estimate] | None = None,
        locked: Collection[int] = (),
    ) -> Picked:
        """What ``actionable`` finds, with why each other issue in those states is passed
        over (what ``Nothing actionable`` says)."""
        if command is not None:
            contract = get_command(command)
            states = states or contract.input_states
            if estimates is None and contract.input_estimates is not None:
                estimates = contract.input_estimates
        if not states:
            raise InvalidInput("pick_actionable needs a command or at least one state")
        # One read of the board answers both the candidates and their blockers' states
        # (an archived blocker still blocks until it is done; an archived issue is not
        # a candidate).
        board = self.list_issues(IssueQuery(status=None, archived=None, board=True))
        by_number = {issue.number: issue for issue in board}
        candidates = IssueQuery(states=frozenset(states)).apply(board)
        return pick(candidates, by_number, states, estimates=estimates, locked=locked)

    def pick_actionable(
        self,
        *,
        command: str | None = None,
        states: Collection[WorkflowState] = (),
        estimates: Collection[Estimate] | None = None,
        locked: Collection[int] = (),
    ) -> Issue | None:
        found = self.actionable(command=command, states=states, estimates=estimates, locked=locked)
        return found[0] if found else None
