"""The GitHub tracker's state moves.

GitHub has no compare-and-set on a field: ``_write_state`` re-reads just before it
writes, under a per-issue lock of this process; across processes, exclusive ownership
of an issue comes from the task store's issue locks. A state change is one unit: when
its audit comment cannot be posted the whole change is sent again (the field write is
skipped when it already holds, the comment is looked up by its marker first), and if
it still fails the state is moved back, so a state never stays moved without its
comment. A batch of moves whose answer was lost, or that landed only in part, is sent
again issue by issue, each looked at first: a state someone else set meanwhile is left
(StateConflict), a note or audit already there is not posted again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ralph.errors import (
    GitHubError,
    GitHubInvalid,
    GitHubRateLimited,
    GitHubUnavailable,
    InvalidInput,
    StateConflict,
)
from ralph.github import BatchAnswer, marker
from ralph.github import queries as q
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, STATUS, WORKFLOW_STATE
from ralph.tracker._model import StateChange
from ralph.tracker.github._writes import GitHubWrites, _Note
from ralph.workflow import WorkflowState, plan_transition

__all__ = ["GitHubMoves"]

logger = logging.getLogger(__name__)

#: How many times a state change whose audit comment failed is sent as a whole.
_STATE_CHANGE_TRIES = 3
#: A new issue's fields sent with its first move, by their aliases in ``MoveState``.
_EXTRA_FIELDS = {ESTIMATE: "estimate", PRIORITY: "priority"}


class GitHubMoves(GitHubWrites):
    """State moves: each issue's Workflow State, Status and audit comment as one unit,
    several issues' moves in one request."""

    def set_state(
        self,
        number: int,
        state_or_intent: str,
        *,
        command: str = "human",
        actor: str = "ralph",
        only_from: WorkflowState | None = None,
    ) -> StateChange:
        """One read (the compare-and-set reads what the check read) and one write."""
        with self._snapshots.scope(related=False):
            return super().set_state(
                number, state_or_intent, command=command, actor=actor, only_from=only_from
            )

    def set_states(
        self,
        numbers: Sequence[int],
        state_or_intent: str,
        *,
        command: str,
        actor: str = "ralph",
        only_from: Mapping[int, WorkflowState] | None = None,
    ) -> list[StateChange]:
        """The moves together: each issue's notes, Workflow State, Status and audit
        comment, several issues a request (``MoveStates``, within GitHub's safe batch).
        Checked one by one first, as ``set_state`` checks."""
        held = only_from or {}
        with self._snapshots.scope(related=False):
            changes: list[StateChange] = []
            planned: list[tuple[StateChange, str]] = []
            for number in numbers:
                issue = self.get_issue(number)
                expected = held.get(number)
                if expected is not None and issue.workflow_state is not expected:
                    current = issue.workflow_state
                    raise StateConflict(number, expected.value, current.value if current else None)
                transition = plan_transition(issue.workflow_state, state_or_intent, command)
                intent = state_or_intent if transition.was_intent else None
                change = StateChange(
                    number, issue.workflow_state, transition.to_state, transition.command, intent
                )
                changes.append(change)
                if transition.changed:
                    planned.append((change, self._audit(change, actor, intent)))
            # What waits for an issue (notes, a creation's fields) goes in its move's unit.
            for moves in self._packed(planned):
                self._send_moves(moves)
            return changes

    def _packed(
        self, planned: Sequence[tuple[StateChange, str]]
    ) -> list[list[tuple[StateChange, str]]]:
        """The moves in requests of whole units (an issue's notes, Workflow State, Status,
        audit), each request within GitHub's safe batch."""
        requests: list[list[tuple[StateChange, str]]] = []
        size = 0
        for move in planned:
            change = move[0]
            status = self._status_to_write(change.number, change.new) is not None
            extras = [
                f for f in self._pending_fields().get(change.number, {}) if f in _EXTRA_FIELDS
            ]
            waiting = self._pending_notes().get(change.number, [])
            notes = [n for n in waiting if not n.maybe_posted]  # as _fresh_notes takes them
            unit = 2 + status + len(extras) + len(notes)
            if requests and size + unit <= q.BATCH_LIMIT:
                requests[-1].append(move)
                size += unit
            else:
                requests.append([move])
                size = unit
        return requests

    def _send_moves(self, moves: Sequence[tuple[StateChange, str]]) -> None:
        """Several issues' moves in one request, each as a unit (its notes, state, Status,
        audit). What GitHub refuses of one issue is handled as a lone move would be; a
        request refused whole leaves everything it carried waiting as before; a request
        whose answer was lost is sent again issue by issue, each looked at first."""
        if len(moves) == 1 or self.client.tokens.split:  # checked already: as lone moves
            self._each_move(moves, resend=False)
            return
        tags = [marker() for _ in moves]
        variables: dict[str, Any] = {}
        statuses: dict[int, str] = {}
        notes: dict[int, list[_Note]] = {}
        created: dict[int, dict[str, Any]] = {}
        extras: dict[int, dict[str, Any]] = {}
        try:
            for i, (change, body) in enumerate(moves):
                number = change.number
                notes[i] = self._fresh_notes(number, q.BATCH_LIMIT)
                # A new issue's other fields go with its first move (its state is this one).
                created[i] = self._pending_fields().pop(number, {})
                for j, note in enumerate(notes[i]):
                    variables[f"note{i}_{j}"] = q.input_of(
                        subjectId=self._node_id(number),
                        body=f"{self.stored_text(note.body)}\n\n{note.tag}",
                    )["input"]
                variables[f"state{i}"] = self._field_input(
                    number, WORKFLOW_STATE, change.new.value
                )["input"]
                status = self._status_to_write(number, change.new)
                if status is not None:
                    variables[f"status{i}"] = self._field_input(number, STATUS, status)["input"]
                    statuses[i] = status
                extras[i], inputs = self._carried_fields(number, created[i], suffix=str(i))
                variables.update(inputs)
                variables[f"audit{i}"] = q.input_of(
                    subjectId=self._node_id(number),
                    body=f"{self.stored_text(body)}\n\n{tags[i]}",
                )["input"]
        except BaseException:  # nothing sent: all of it waits as it did
            self._all_back(moves, notes, created, lost=False)
            raise
        parts = tuple(
            q.comment_part(alias)
            if alias.startswith(("audit", "note"))
            else q.set_field_part(alias)
            for alias in variables
        )

        sought = {
            **{
                f"note{i}_{j}": (change.number, note.tag)
                for i, (change, _) in enumerate(moves)
                for j, note in enumerate(notes[i])
            },
            **{f"audit{i}": (change.number, tags[i]) for i, (change, _) in enumerate(moves)},
        }

        def already() -> dict[str, Any] | None:
            return self._comments_landed("MoveStates", sought)

        try:
            with self._keeping_snapshots():
                answer = self.client.mutate_batch(
                    q.batch("MoveStates", parts), variables, reconcile=already
                )
        except (GitHubUnavailable, GitHubRateLimited):
            # It may have landed, or some of it (PartlyLanded): every issue is looked at
            # before its move is sent again, its notes before they are posted again.
            self._all_back(moves, notes, created, lost=True)
            unset = {c.number for i, (c, _) in enumerate(moves) if WORKFLOW_STATE in created[i]}
            self._each_move(moves, resend=True, tags=tags, unset=unset)
            return
        except BaseException:  # refused whole: nothing of it ran
            self._all_back(moves, notes, created, lost=False)
            raise
        failure: BaseException | None = None
        for i, (change, _) in enumerate(moves):
            try:
                self._took_move(
                    change, answer, f"{i}", notes[i], extras[i], statuses.get(i), sep="_"
                )
            except (GitHubError, InvalidInput) as exc:  # the other issues' are handled still
                failure = failure or exc
        if failure is not None:
            raise failure

    def _each_move(
        self,
        moves: Sequence[tuple[StateChange, str]],
        *,
        resend: bool,
        tags: Sequence[str] | None = None,
        unset: Collection[int] = (),
    ) -> None:
        """The moves one by one (``resend``: each looked at first, its marker ``tags``;
        ``unset``: new issues whose first state went with the lost request); one that
        fails does not stop the others, the first failure is raised after."""
        failure: BaseException | None = None
        for i, (change, body) in enumerate(moves):
            try:
                self._move_with_audit(
                    change.number,
                    change.previous,
                    change.new,
                    body,
                    tag=tags[i] if tags else None,
                    resend=resend,
                    unset=change.number in unset,
                )
            except (GitHubError, InvalidInput, StateConflict) as exc:
                failure = failure or exc
        if failure is not None:
            raise failure

    def _all_back(
        self,
        moves: Sequence[tuple[StateChange, str]],
        notes: Mapping[int, Sequence[_Note]],
        created: Mapping[int, Mapping[str, Any]],
        *,
        lost: bool,
    ) -> None:
        """What a batch of moves carried waits again: its notes (``lost``: looked for
        first) and its new issues' fields. After a lost answer a creation's state does
        not wait: the move may have landed, and writing it would undo the move."""
        for i, (change, _) in enumerate(moves):
            fields = created.get(i, {})
            if lost:
                fields = {f: v for f, v in fields.items() if f != WORKFLOW_STATE}
            self._fields_back(change.number, fields)
            self._notes_back(change.number, notes.get(i, ()), maybe_posted=lost)

    def _carried_fields(
        self, number: int, created: Mapping[str, Any], *, suffix: str = ""
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Of a new issue's waiting fields, the Estimate and Priority a move carries, and
        their inputs by alias. One the board cannot take is not carried: it waits, to
        fail on its own, not the move."""
        carried: dict[str, Any] = {}
        inputs: dict[str, Any] = {}
        for field, value in created.items():
            if field not in _EXTRA_FIELDS:
                continue
            try:
                inputs[f"{_EXTRA_FIELDS[field]}{suffix}"] = self._field_input(
                    number, field, value.value
                )["input"]
            except InvalidInput:
                self._fields_back(number, {field: value})
                continue
            carried[field] = value
        return carried, inputs

    def _took_move(
        self,
        change: StateChange,
        answer: BatchAnswer,
        suffix: str,
        notes: Sequence[_Note],
        extras: Mapping[str, Any],
        status: str | None,
        *,
        sep: str = "",
        move_back: bool = True,
    ) -> None:
        """One issue's unit as GitHub answered it (aliases ``state{suffix}``...): the
        notes it took are kept, those it refused wait again; a refused Estimate waits to
        be sent alone; a refused state write is sent again once the board is read
        again, and if it still fails the audit comment is taken back and the issue moved
        back; a refused audit moves it back. Raises what failed the move."""
        number = change.number
        made = []
        for j, note in enumerate(notes):
            alias = f"note{suffix}{sep}{j}"
            if answer.ok(alias):
                made.append(answer.data[alias]["commentEdge"]["node"])
            elif alias in answer.refused:
                self._notes_back(number, [note], maybe_posted=False)
        refused = {
            f: v for f, v in extras.items() if f"{_EXTRA_FIELDS[f]}{suffix}" in answer.refused
        }
        self._carried_back(number, refused)
        if status is not None and answer.ok(f"status{suffix}"):
            self._statuses[number] = status
        elif status is not None and f"status{suffix}" in answer.refused:
            logger.warning(
                "status sync failed",
                extra={"issue": number, "error": answer.refused[f"status{suffix}"]},
            )
        audit = answer.data[f"audit{suffix}"] if answer.ok(f"audit{suffix}") else None
        node = audit["commentEdge"]["node"] if audit is not None else None
        try:
            if f"state{suffix}" in answer.refused:
                self._set_field(number, WORKFLOW_STATE, change.new.value)
            if node is None:
                raise GitHubInvalid(
                    f"GitHub refused the audit comment of #{number}: "
                    f"{answer.refused.get(f'audit{suffix}', 'no answer')}"
                )
        except (GitHubError, InvalidInput):
            for comment in made:
                self._kept_comment(number, comment)
            if node is not None:  # the move did not happen: no audit says it did
                self._delete_comment(number, node)
            if move_back:
                self._move_back(number, change.previous)
            raise
        self._kept_move(number, change.new, node, made)

    def release(self, number: int, *, command: str, actor: str = "ralph") -> StateChange | None:
        with self._snapshots.scope(related=False):
            return super().release(number, command=command, actor=actor)

    def _write_state(
        self,
        number: int,
        expected: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        author: str,
    ) -> None:
        with self._lock:
            guard = self._state_guards.setdefault(number, threading.Lock())
        with guard:  # compare-and-set within this process; across processes: issue locks
            current = self.get_issue(number).workflow_state
            if current != expected:
                raise StateConflict(
                    number,
                    expected.value if expected else None,
                    current.value if current else None,
                )
            self._move_with_audit(number, expected, new, comment)

    def _move_with_audit(
        self,
        number: int,
        before: WorkflowState | None,
        new: WorkflowState,
        comment: str,
        *,
        tag: str | None = None,
        resend: bool = False,
        unset: bool = False,
    ) -> None:
        """Move the issue to ``new`` and post its audit ``comment``, as one unit and one
        request (``MoveState``: Workflow State, Status when it changes, the comment, in
        that order). A change GitHub could not take (unavailable, throttled) is sent
        again (the field only if it is not ``new`` already, the comment only if its
        marker is not there; StateConflict if someone moved the issue meanwhile), and a
        change that still fails is moved back to ``before``. ``unset``: a new issue
        whose first state goes with this move (no state on GitHub is ``before`` too)."""
        tag = tag or marker()
        # The states a resend may find and still write over: the move's own start.
        start = {before}
        if unset or WORKFLOW_STATE in self._pending_fields().get(number, {}):
            start.add(None)
        attempt = 1
        while True:
            try:
                self._send_move(
                    number, new, comment, tag, resend=resend or attempt > 1, start=start
                )
                return
            except (GitHubUnavailable, GitHubRateLimited) as exc:
                if attempt == _STATE_CHANGE_TRIES:
                    self._move_back(number, before)
                    raise
                logger.warning(
                    "state change failed; sending it again",
                    extra={"issue": number, "attempt": attempt, "error": str(exc)},
                )
            except (GitHubError, InvalidInput):
                self._move_back(number, before)
                raise
            attempt += 1

    def _send_move(
        self,
        number: int,
        new: WorkflowState,
        comment: str,
        tag: str,
        *,
        resend: bool,
        start: Collection[WorkflowState | None],
    ) -> None:
        """The move as one request; ``resend``: what a lost try did is read afresh first,
        and a state neither ``new`` nor one of ``start`` is someone else's move, left."""
        posted: dict[str, Any] | None = None
        if resend:
            self._snapshots.forget([number])
            self._statuses.pop(number, None)
            current = self.get_issue(number).workflow_state
            if current == new:
                self._sync_status(number, new)
                posted = self._comment_with(number, tag)
                if posted is not None:
                    self._kept_move(number, new, posted)
                    return
            elif current not in start:
                expected = next((s.value for s in start if s is not None), None)
                raise StateConflict(number, expected, current.value if current else None)
        variables: dict[str, Any] = {}
        if not resend or self.get_issue(number).workflow_state != new:
            variables["state"] = self._field_input(number, WORKFLOW_STATE, new.value)["input"]
        status = self._status_to_write(number, new)
        if status is not None:
            variables["status"] = self._field_input(number, STATUS, status)["input"]
        # A new issue's other fields go with its first move (its state is this one).
        created = self._pending_fields().pop(number, {})
        extra, inputs = self._carried_fields(number, created)
        variables.update(inputs)
        try:
            self._send_fields_and_audit(number, new, comment, tag, variables, status, extra)
        except (GitHubUnavailable, GitHubRateLimited):
            # It may have landed: a creation's state written again would undo the move.
            self._fields_back(number, {f: v for f, v in created.items() if f != WORKFLOW_STATE})
            raise
        except BaseException:  # the move did not happen: the creation's fields wait
            self._fields_back(number, created)
            raise

    def _send_fields_and_audit(
        self,
        number: int,
        new: WorkflowState,
        comment: str,
        tag: str,
        variables: dict[str, Any],
        status: str | None,
        extra: Mapping[str, Any],
    ) -> None:
        audit = q.input_of(
            subjectId=self._node_id(number), body=f"{self.stored_text(comment)}\n\n{tag}"
        )["input"]
        if self.client.tokens.split:  # the board's writes and the comment take two tokens
            if variables:
                parts = tuple(q.set_field_part(alias) for alias in variables)
                fields = self.client.mutate_batch(
                    q.batch("SetFields", parts), variables, token="board"
                )
                self._carried_back(
                    number, {f: v for f, v in extra.items() if _EXTRA_FIELDS[f] in fields.refused}
                )
                self._check_move(number, new, status, fields)
            with self._keeping_snapshots():
                self._kept_move(number, new, None)
                self._post_comment(number, comment, tag)  # kept by _post_comment
            return

        # The phase's notes on the issue go first, then the fields, then the audit.
        notes = self._fresh_notes(number, q.BATCH_LIMIT - len(variables) - 1)
        sought = {
            **{f"note{i}": (number, note.tag) for i, note in enumerate(notes)},
            "audit": (number, tag),
        }

        def already() -> dict[str, Any] | None:
            return self._comments_landed("MoveState", sought)

        variables = {
            **{
                f"note{i}": q.input_of(
                    subjectId=self._node_id(number),
                    body=f"{self.stored_text(note.body)}\n\n{note.tag}",
                )["input"]
                for i, note in enumerate(notes)
            },
            **variables,
            "audit": audit,
        }
        parts = tuple(
            q.comment_part(alias)
            if alias.startswith(("note", "audit"))
            else q.set_field_part(alias)
            for alias in variables
        )
        with self._keeping_snapshots():
            try:
                answer = self.client.mutate_batch(
                    q.batch("MoveState", parts), variables, reconcile=already
                )
            except (GitHubUnavailable, GitHubRateLimited):  # looked for first, later
                self._notes_back(number, notes, maybe_posted=True)
                raise
            except BaseException:  # refused whole: nothing of it ran
                self._notes_back(number, notes, maybe_posted=False)
                raise
            change = StateChange(number, None, new, "", None)
            self._took_move(change, answer, "", notes, extra, status, move_back=False)

    def _check_move(
        self, number: int, new: WorkflowState, status: str | None, answer: BatchAnswer
    ) -> None:
        """A refused state write is sent again once the board is read again (its ids may
        be stale); a refused Status is logged (best effort)."""
        if "state" in answer.refused:
            self._set_field(number, WORKFLOW_STATE, new.value)
        if status is not None and "status" in answer.data:
            if answer.ok("status"):
                self._statuses[number] = status
            else:
                logger.warning(
                    "status sync failed",
                    extra={"issue": number, "error": answer.refused.get("status", "")},
                )

    def _move_back(self, number: int, before: WorkflowState | None) -> None:
        """Undo a state change whose audit comment never landed (best effort: an issue
        that had no state keeps the new one, as a single-select cannot be emptied here)."""
        if before is None:
            logger.warning("state moved without its audit comment", extra={"issue": number})
            return
        try:
            self._set_fields(number, state=before)
        except (GitHubError, InvalidInput) as exc:
            logger.warning(
                "could not move the state back",
                extra={"issue": number, "to": before.value, "error": str(exc)},
            )
