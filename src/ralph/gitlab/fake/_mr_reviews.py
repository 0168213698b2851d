"""The fake GitLab's review side of merge requests: notes, discussions on diff lines
(with GitLab's position, refused off the diff), replies and resolving, approvals
(approve with the head's ``sha``, unapprove; an author may not approve their own, as
GitLab's default says) and reviewers with their review state
(docs.gitlab.com/api/notes, /discussions, /merge_request_approvals)."""

from __future__ import annotations

from typing import Any

from ralph.git import hunk_containing
from ralph.gitlab.fake._mr_model import (
    DiffNote,
    Discussion,
    MergeRequest,
    MergeRequests,
    discussion_id,
    user_json,
    when,
)
from ralph.gitlab.fake._routes import Call, Fault, Routes, paginate
from ralph.gitlab.fake._state import Note

__all__ = ["register"]

MR = "/api/v4/projects/{id}/merge_requests/{merge_request_iid}"
_OFF_THE_DIFF = (
    '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}'
)


def register(routes: Routes) -> None:
    routes.add("GET", MR + "/notes", _notes)
    routes.add("POST", MR + "/notes", _create_note)
    routes.add("GET", MR + "/discussions", _discussions)
    routes.add("POST", MR + "/discussions", _create_discussion)
    routes.add("GET", MR + "/discussions/{discussion_id}", _discussion)
    routes.add("PUT", MR + "/discussions/{discussion_id}", _resolve)
    routes.add("POST", MR + "/discussions/{discussion_id}/notes", _reply)
    routes.add("GET", MR + "/approvals", lambda call: approvals_json(call, *_mr(call)))
    routes.add("POST", MR + "/approve", _approve)
    routes.add("POST", MR + "/unapprove", _unapprove)
    routes.add("GET", MR + "/reviewers", _reviewers)


def _mr(call: Call) -> tuple[MergeRequests, MergeRequest]:
    from ralph.gitlab.fake._merge_requests import merge_request

    return merge_request(call)


def note_json(mr: MergeRequest, note: Note, diff: DiffNote | None = None) -> dict[str, Any]:
    position = diff.position if diff else None
    return {
        "id": note.id,
        "type": ("DiffNote" if position else "DiscussionNote") if diff else None,
        "body": note.body,
        "author": note.author.json(),
        "created_at": when(note.created_at),
        "updated_at": when(note.updated_at),
        "system": note.system,
        "noteable_id": mr.id,
        "noteable_type": "MergeRequest",
        "noteable_iid": mr.iid,
        "resolvable": bool(diff and diff.resolvable),
        "resolved": bool(diff and diff.resolved),
        "resolved_by": user_json(diff.resolved_by) if diff else None,
        "position": position,
        "confidential": False,
        "internal": False,
    }


def discussion_json(mr: MergeRequest, discussion: Discussion) -> dict[str, Any]:
    return {
        "id": discussion.id,
        "individual_note": False,
        "notes": [note_json(mr, d.note, d) for d in discussion.notes],
    }


def _note_body(call: Call) -> str:
    body = str(call.body.get("body") or "")
    if not body.strip():
        raise Fault(400, {"note": ["can't be blank"]})
    if len(body) > 1_000_000:
        raise Fault(400, {"note": ["is too long (maximum is 1000000 characters)"]})
    return body


def _new_note(call: Call, body: str) -> Note:
    now = call.state.clock()
    return Note(call.state.new_id(), body, call.user, now, now)


def _notes(call: Call) -> Any:
    _store, mr = _mr(call)
    found: list[tuple[Note, DiffNote | None]] = [(n, None) for n in mr.notes]
    found += [(d.note, d) for discussion in mr.discussions for d in discussion.notes]
    found.sort(key=lambda pair: (pair[0].created_at, pair[0].id))
    if call.query("sort", "desc") == "desc":
        found.reverse()
    return [note_json(mr, note, diff) for note, diff in paginate(call, found)]


def _create_note(call: Call) -> Any:
    _store, mr = _mr(call)
    note = _new_note(call, _note_body(call))
    mr.notes.append(note)
    mr.updated_at = note.created_at
    return note_json(mr, note)


def _discussions(call: Call) -> Any:
    _store, mr = _mr(call)
    individual = [
        {"id": f"{note.id:040x}", "individual_note": True, "notes": [note_json(mr, note)]}
        for note in mr.notes
    ]
    threads = [discussion_json(mr, d) for d in mr.discussions]
    found = sorted(individual + threads, key=lambda d: d["notes"][0]["created_at"])
    return paginate(call, found)


def _discussion_of(call: Call, mr: MergeRequest) -> Discussion:
    wanted = call.params["discussion_id"]
    found = next((d for d in mr.discussions if d.id == wanted), None)
    if found is None:
        raise Fault.not_found()
    return found


def _discussion(call: Call) -> Any:
    _store, mr = _mr(call)
    return discussion_json(mr, _discussion_of(call, mr))


def _create_discussion(call: Call) -> Any:
    store, mr = _mr(call)
    body = _note_body(call)
    position = call.body.get("position")
    if position is not None:
        _check_position(store, mr, position)
    note = _new_note(call, body)
    discussion = Discussion(discussion_id(), [DiffNote(note, position)])
    mr.discussions.append(discussion)
    mr.updated_at = note.created_at
    return discussion_json(mr, discussion)


def _check_position(store: MergeRequests, mr: MergeRequest, position: dict[str, Any]) -> None:
    """GitLab takes a diff note only on a line its diff shows (a changed line or the
    context around it) of the head it names."""
    if position.get("position_type") != "text":
        raise Fault(400, "400 Bad request - position_type is not supported by the fake")
    if position.get("head_sha") != store.sha(mr):
        raise Fault(400, _OFF_THE_DIFF)
    path, line = position.get("new_path"), position.get("new_line")
    shown = {d.new_path: d.diff for d in store.git.diffs(mr.source_branch, mr.target_branch)}
    if path not in shown or not isinstance(line, int) or not hunk_containing(shown[path], line):
        raise Fault(400, _OFF_THE_DIFF)


def _reply(call: Call) -> Any:
    _store, mr = _mr(call)
    discussion = _discussion_of(call, mr)
    note = _new_note(call, _note_body(call))
    reply = DiffNote(note, discussion.notes[0].position, resolved=discussion.resolved)
    discussion.notes.append(reply)
    mr.updated_at = note.created_at
    return note_json(mr, note, reply)


def _resolve(call: Call) -> Any:
    _store, mr = _mr(call)
    discussion = _discussion_of(call, mr)
    resolved = bool(call.body["resolved"])
    for note in discussion.notes:
        if note.resolvable:
            note.resolved = resolved
            note.resolved_by = call.user if resolved else None
    return discussion_json(mr, discussion)


# -- approvals and reviewers -------------------------------------------------------------------


def approvals_json(call: Call, store: MergeRequests, mr: MergeRequest) -> dict[str, Any]:
    required = store.approvals_required(mr)
    approvals = store.approvals(mr)
    return {
        "id": mr.id,
        "iid": mr.iid,
        "project_id": mr.project.id,
        "title": mr.title,
        "state": mr.state,
        "merge_status": "can_be_merged",
        "approved": len(approvals) >= max(required, 1),
        "approvals_required": required,
        "approvals_left": max(required - len(approvals), 0),
        "approved_by": [
            {"user": user.json(), "approved_at": when(at)} for user, at, _sha in approvals.values()
        ],
        "user_has_approved": call.user.username in approvals,
        "user_can_approve": _can_approve(call, store, mr),
    }


def _can_approve(call: Call, store: MergeRequests, mr: MergeRequest) -> bool:
    return (
        mr.state == "opened"
        and call.user.username != mr.author.username
        and call.user.username not in store.approvals(mr)
    )


def _approve(call: Call) -> Any:
    store, mr = _mr(call)
    sha = call.body.get("sha")
    if sha and sha != store.sha(mr):
        raise Fault(409, "SHA does not match HEAD of source branch")
    if not _can_approve(call, store, mr):
        raise Fault(401, "401 Unauthorized")
    mr.approvals[call.user.username] = (call.user, call.state.clock(), store.sha(mr))
    mr.reviewer_states[call.user.username] = "approved"
    return approvals_json(call, store, mr)


def _unapprove(call: Call) -> Any:
    store, mr = _mr(call)
    if store.approvals(mr).pop(call.user.username, None) is None:
        raise Fault.not_found()
    mr.reviewer_states[call.user.username] = "unapproved"
    return approvals_json(call, store, mr)


def _reviewers(call: Call) -> Any:
    _store, mr = _mr(call)
    return [
        {
            "user": user.json(),
            "state": mr.reviewer_states.get(user.username, "unreviewed"),
            "created_at": when(mr.created_at),
        }
        for user in mr.reviewers
    ]
