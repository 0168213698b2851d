"""The GitHub tracker's field writes and comments.

Workflow State, Estimate and Priority are single-select fields of the board; ids the
cached board holds may be stale, so a refused write reads the board again, once.
Inside a snapshot a new issue's fields and a phase's notes wait for the issue's next
move, to go in its request, or are sent when the snapshot ends.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from ralph.errors import GitHubError, GitHubInvalid, GitHubNotFound, InvalidInput
from ralph.github import BatchAnswer, PartlyLanded, marker
from ralph.github import queries as q
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, STATUS, WORKFLOW_STATE
from ralph.tracker._model import Comment, Issue
from ralph.tracker.github._lookups import GitHubLookups
from ralph.tracker.github._read import comment_from
from ralph.workflow import WORKFLOW_STATE_TO_STATUS, Estimate, Priority, WorkflowState

__all__ = ["GitHubWrites"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Note:
    """A phase's message waiting for its issue's next move; ``maybe_posted``: a request
    that carried it got no answer."""

    body: str
    tag: str
    maybe_posted: bool = False


class GitHubWrites(GitHubLookups):
    """Field writes, comments, and what waits inside a snapshot for an issue's next
    move (a new issue's fields, a phase's notes)."""

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        outer = not self._snapshots.active
        with self._snapshots.scope():
            try:
                yield
            except BaseException:
                if outer:
                    self._post_pending(failing=True)
                raise
            if outer:
                self._post_pending()

    def _post_pending(self, *, failing: bool = False) -> None:
        """What waited for a write that did not come: new issues' fields, then notes
        (posted even when a field cannot be set: that failure is raised after them)."""
        try:
            with self._keeping_snapshots():
                self._send_pending_fields()
        except (GitHubError, InvalidInput) as exc:
            self._post_notes(failing=True)
            if not failing:
                raise
            logger.warning("fields not set", extra={"error": str(exc)})
            return
        self._post_notes(failing=failing)

    def _add_note(self, number: int, body: str) -> None:
        """Inside a snapshot: sent with the issue's next move (``MoveState``), or alone
        when the snapshot ends."""
        if not self._snapshots.active:
            self.add_comment(number, body)
            return
        waiting = self._pending_notes().setdefault(number, [])
        if all(note.body != body for note in waiting):  # said once, as comment_once means
            waiting.append(_Note(body, marker()))

    def _comments_landed(
        self, document: str, sought: Mapping[str, tuple[int, str]]
    ) -> dict[str, Any] | None:
        """A batch's reconcile by its comments' markers (alias -> issue number, marker):
        their answers by alias when all landed, None when none did (the batch may be sent
        again); PartlyLanded when only some did, as sent again whole those would be
        posted twice."""
        found = {
            alias: {"commentEdge": {"node": node}}
            for alias, node in self._comments_with(sought).items()
        }
        if len(found) == len(sought):
            return found
        if found:
            raise PartlyLanded(document, found)
        return None

    def _pending_fields(self) -> dict[int, dict[str, Any]]:
        """New issues' fields (field name -> enum value) not sent yet, by number."""
        pending: dict[int, dict[str, Any]] | None = getattr(self._notes, "fields", None)
        if pending is None:
            pending = self._notes.fields = {}
        return pending

    def _send_pending_fields(self, number: int | None = None, *, quiet: bool = False) -> None:
        """The fields waiting for issue ``number`` (None: every issue's), sent now, each
        issue's apart: one that fails waits again and the first failure is raised after
        the others are sent (``quiet``: logged, for a read that must not fail for them)."""
        pending = self._pending_fields()
        failure: GitHubError | InvalidInput | None = None
        for waiting in [number] if number is not None else list(pending):
            fields = pending.pop(waiting, None) if waiting is not None else None
            if not fields:
                continue
            try:
                self._set_fields(
                    waiting,
                    state=fields.get(WORKFLOW_STATE),
                    estimate=fields.get(ESTIMATE),
                    priority=fields.get(PRIORITY),
                )
            except (GitHubError, InvalidInput) as exc:
                self._fields_back(waiting, fields)
                failure = failure or exc
        if failure is not None and quiet:
            logger.warning("fields not set", extra={"issue": number, "error": str(failure)})
        elif failure is not None:
            raise failure

    def _fields_back(self, number: int, fields: Mapping[str, Any]) -> None:
        """``fields`` wait again for the issue (a value set since they left wins)."""
        if fields:
            waiting = self._pending_fields().setdefault(number, {})
            waiting.update({f: v for f, v in fields.items() if f not in waiting})

    def _pending_notes(self) -> dict[int, list[_Note]]:
        pending: dict[int, list[_Note]] | None = getattr(self._notes, "pending", None)
        if pending is None:
            pending = self._notes.pending = {}
        return pending

    def _post_notes(self, *, failing: bool = False) -> None:
        """The notes no write took, together (``AddComments``, ten a request; one a lost
        request may have posted is looked for first, alone). What cannot be posted keeps
        waiting (the next snapshot's end tries again); while a failure ends the snapshot
        it is logged, not raised over the failure."""
        pending = self._pending_notes()
        waiting = [(number, note) for number, notes in pending.items() for note in notes]
        pending.clear()
        sent = 0
        try:
            for number, note in [w for w in waiting if w[1].maybe_posted]:
                self._post_comment(number, note.body, note.tag, look_first=True)
                sent += 1
            fresh = [w for w in waiting if not w[1].maybe_posted]
            waiting = waiting[:sent] + fresh  # the order they are sent in
            for start in range(0, len(fresh), q.BATCH_LIMIT):
                self._post_together(fresh[start : start + q.BATCH_LIMIT])
                sent += len(fresh[start : start + q.BATCH_LIMIT])
        except (GitHubError, InvalidInput) as exc:
            left: dict[int, list[_Note]] = {}
            for number, note in waiting[sent:]:
                left.setdefault(number, []).append(note)
            for number, notes in left.items():  # looked for first, next time
                self._notes_back(number, notes, maybe_posted=True)
            if not failing:
                raise
            logger.warning("notes not posted", extra={"error": str(exc)})

    def _post_together(self, notes: Sequence[tuple[int, _Note]]) -> None:
        if len(notes) == 1:
            (number, note), *_ = notes
            self._post_comment(number, note.body, note.tag)
            return
        variables = {
            f"note{i}": q.input_of(
                subjectId=self._node_id(number),
                body=f"{self.stored_text(note.body)}\n\n{note.tag}",
            )["input"]
            for i, (number, note) in enumerate(notes)
        }

        sought = {f"note{i}": (number, note.tag) for i, (number, note) in enumerate(notes)}

        def already() -> dict[str, Any] | None:
            return self._comments_landed("AddComments", sought)

        parts = tuple(q.comment_part(alias) for alias in variables)
        try:
            with self._keeping_snapshots():
                answer = self.client.mutate_batch(
                    q.batch("AddComments", parts), variables, reconcile=already
                )
        except PartlyLanded as partly:  # the others are posted apart, each looked for first
            answer = BatchAnswer(partly.found)
        for i, (number, note) in enumerate(notes):
            if answer.ok(f"note{i}"):
                self._kept_comment(number, answer.data[f"note{i}"]["commentEdge"]["node"])
            elif f"note{i}" not in answer.refused:
                self._post_comment(number, note.body, note.tag, look_first=True)
        if answer.refused:
            alias, why = next(iter(answer.refused.items()))
            raise GitHubInvalid(f"GitHub refused a comment on #{notes[int(alias[4:])][0]}: {why}")

    # -- field writes -----------------------------------------------------------------------

    def _set_field(self, number: int, field: str, option: str) -> None:
        """Set a single-select field. Ids the cached board holds may be stale (a field or
        option made again on GitHub): on a refusal the board is read again, once."""
        try:
            self._write_field(number, field, option)
        except (InvalidInput, GitHubInvalid, GitHubNotFound):
            self.invalidate_board()
            self._write_field(number, field, option)

    def _write_field(self, number: int, field: str, option: str) -> None:
        self.client.mutate(
            q.SET_FIELD_OPTION, self._field_input(number, field, option), token="board"
        )

    def _field_input(self, number: int, field: str, option: str) -> dict[str, dict[str, object]]:
        """The input of a single-select write (InvalidInput when the board lacks the field
        or the option)."""
        field_id, option_id = self._option(field, option)
        return q.input_of(
            projectId=self.board().project_id,
            itemId=self._item_id(number),
            fieldId=field_id,
            value={"singleSelectOptionId": option_id},
        )

    def _option(self, field: str, option: str) -> tuple[str, str]:
        """The ids of ``field`` and its ``option`` on the board as this process knows it
        (InvalidInput when it lacks either): no request."""
        board = self.board()
        found = board.fields.get(field)
        if found is None:
            raise InvalidInput(
                f'project #{board.number} has no "{field}" field; run `ralph init --github` '
                "to create the fields Ralph needs"
            )
        field_id, options = found
        if option not in options:
            raise InvalidInput(
                f'"{option}" is not an option of the "{field}" field of project '
                f"#{board.number}; valid options: {', '.join(options)}"
            )
        return field_id, options[option]

    def _wait_fields(self, number: int, fields: Mapping[str, Any]) -> None:
        """``fields`` (field name -> enum value) wait for the issue's next write that can
        carry them, or for the snapshot's end. Checked against the board now: a value it
        cannot take is refused here, not by the unrelated write it would ride with."""
        for field, value in fields.items():
            self._option(field, value.value)
        self._pending_fields().setdefault(number, {}).update(fields)

    def _carried_back(self, number: int, fields: Mapping[str, Any]) -> None:
        """Fields a write carried and GitHub refused (ids gone stale, most likely): they
        wait again, to be sent alone once the board is read again, so their failure is
        theirs, not the carrying write's."""
        if fields:
            self.invalidate_board()
            waiting = self._pending_fields().setdefault(number, {})
            waiting.update({f: v for f, v in fields.items() if f not in waiting})

    def _notes_back(self, number: int, notes: Sequence[_Note], *, maybe_posted: bool) -> None:
        """Notes a write carried that may not have landed wait again, before the ones
        still waiting; ``maybe_posted``: the write's answer was lost (each is looked for
        before it is posted again)."""
        if notes:
            back = [replace(n, maybe_posted=n.maybe_posted or maybe_posted) for n in notes]
            self._pending_notes()[number] = back + self._pending_notes().get(number, [])

    def _fresh_notes(self, number: int, room: int) -> list[_Note]:
        """Up to ``room`` of the notes waiting for the issue that no lost write may have
        posted, taken to ride with a write; the others keep waiting (the snapshot's end
        looks for those first)."""
        waiting = self._pending_notes().pop(number, [])
        taken = [n for n in waiting if not n.maybe_posted][: max(room, 0)]
        rest = [n for n in waiting if n not in taken]
        if rest:
            self._pending_notes()[number] = rest
        return taken

    def _delete_comment(self, number: int, node: Mapping[str, Any]) -> None:
        """Take back a comment GitHub took in a batch whose write it went with failed (an
        audit comment for a move that did not happen); best effort, logged."""
        try:
            with self._keeping_snapshots():
                self.client.mutate(q.DELETE_COMMENT, q.input_of(id=node["id"]))
        except GitHubError as exc:
            logger.warning(
                "audit comment of a failed move left", extra={"issue": number, "error": str(exc)}
            )

    def _status_to_write(self, number: int, state: WorkflowState) -> str | None:
        """The Status ``state`` calls for, when the board has it and the issue's Status
        (as last read or written) is not that already: None, nothing to write."""
        status = WORKFLOW_STATE_TO_STATUS.get(state)
        found = self.board().fields.get(STATUS)
        if status is None or found is None or status not in found[1]:
            return None
        if number in self._statuses and self._statuses[number] == status:
            return None
        return status

    def _sync_status(self, number: int, state: WorkflowState) -> None:
        """GitHub's own Status follows Workflow State, best effort (a board without the
        field or the option is left alone, and so is a Status that is right already:
        a state write re-reads the issue just before it)."""
        status = self._status_to_write(number, state)
        if status is None:
            return
        try:
            self._set_field(number, STATUS, status)
            self._statuses[number] = status
        except (GitHubError, InvalidInput) as exc:
            logger.warning("status sync failed", extra={"issue": number, "error": str(exc)})

    def _set_fields(
        self,
        number: int,
        *,
        state: WorkflowState | None = None,
        estimate: Estimate | None = None,
        priority: Priority | None = None,
    ) -> None:
        """The fields that are set, in one request (``SetFields``); a write GitHub refuses
        (ids gone stale) is sent again alone after the board is read again, and Status is
        best effort."""
        waiting = self._pending_fields().pop(number, {})  # what a creation left to send
        try:
            self._send_fields(number, state, estimate, priority, waiting)
        except BaseException:
            self._fields_back(number, waiting)
            raise

    def _send_fields(
        self,
        number: int,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
        waiting: Mapping[str, Any],
    ) -> None:
        state = state or waiting.get(WORKFLOW_STATE)
        estimate = estimate or waiting.get(ESTIMATE)
        priority = priority or waiting.get(PRIORITY)
        wanted = {
            WORKFLOW_STATE: state.value if state is not None else None,
            ESTIMATE: estimate.value if estimate is not None else None,
            PRIORITY: priority.value if priority is not None else None,
        }
        writes = {field: option for field, option in wanted.items() if option is not None}
        status = self._status_to_write(number, state) if state is not None else None
        aliases = {WORKFLOW_STATE: "state", ESTIMATE: "estimate", PRIORITY: "priority"}
        variables = {
            aliases[f]: self._field_input(number, f, o)["input"] for f, o in writes.items()
        }
        if status is not None:
            try:
                variables["status"] = self._field_input(number, STATUS, status)["input"]
            except InvalidInput:
                status = None
        if not variables:
            return
        parts = tuple(q.set_field_part(alias) for alias in variables)
        answer = self.client.mutate_batch(q.batch("SetFields", parts), variables, token="board")
        for field, option in writes.items():
            if not answer.ok(aliases[field]):
                self._set_field(number, field, option)  # the board read again, once
        if status is not None:
            if answer.ok("status"):
                self._statuses[number] = status
            else:
                logger.warning(
                    "status sync failed",
                    extra={"issue": number, "error": answer.refused.get("status", "")},
                )

    def _post_comment(
        self, number: int, body: str, tag: str, *, look_first: bool = False
    ) -> Comment:
        """Post ``body`` with the marker ``tag``; ``look_first``: unless a comment with
        that marker is there already (a resend of a change that may have posted it)."""
        subject = self._node_id(number)

        def already() -> dict[str, Any] | None:
            data = self.client.query(q.COMMENT_BY_MARKER, {**self._where, "number": number})
            for node in data["repository"]["issue"]["comments"]["nodes"]:
                if tag in node["body"]:
                    return {"addComment": {"commentEdge": {"node": node}}}
            return None

        data = already() if look_first else None
        if data is not None:
            return comment_from(data["addComment"]["commentEdge"]["node"])
        with self._keeping_snapshots():
            data = self.client.mutate(
                q.ADD_COMMENT,
                q.input_of(subjectId=subject, body=f"{self.stored_text(body)}\n\n{tag}"),
                reconcile=already,
            )
            made = comment_from(data["addComment"]["commentEdge"]["node"])
            self._snapshots.update(
                number, lambda issue: replace(issue, comments=(*issue.comments, made))
            )
        return made

    def _kept_comment(self, number: int, node: dict[str, Any]) -> None:
        """The snapshots keep a comment this tracker posted on issue ``number``."""
        made = (comment_from(node),)

        def commented(issue: Issue) -> Issue:
            return replace(issue, comments=issue.comments + made)

        self._snapshots.update(number, commented)

    def _kept_move(
        self,
        number: int,
        new: WorkflowState,
        node: dict[str, Any] | None,
        notes: Sequence[dict[str, Any]] = (),
    ) -> None:
        """The snapshots keep the moved issue true: its new state, the notes that went
        with the move and its audit comment."""
        made = tuple(comment_from(n) for n in (*notes, *((node,) if node else ())))
        self._snapshots.update(
            number,
            lambda issue: replace(issue, workflow_state=new, comments=issue.comments + made),
        )
