"""The merge-request endpoints the fake allows beyond GitLab's published document (the
rest are in ``_missing``; these win where both name a path). Written from GitLab's REST
documentation (docs.gitlab.com/api/discussions: merge request threads), with the
parameters Ralph sends: a thread on a diff line carries its ``position``, and a reply
is a note posted to the thread."""

from __future__ import annotations

from typing import Any

from ralph.gitlab.fake._missing import _body, _path, _query

__all__ = ["MISSING_MERGE_REQUEST_PATHS"]

_STRING = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_POSITION = {
    "type": "object",
    "properties": {
        "base_sha": _STRING,
        "start_sha": _STRING,
        "head_sha": _STRING,
        "position_type": {"type": "string", "enum": ["text", "image", "file"]},
        "new_path": _STRING,
        "new_line": _INT,
        "old_path": _STRING,
        "old_line": _INT,
    },
    "required": ["base_sha", "start_sha", "head_sha", "position_type"],
}
_DISCUSSIONS = "/api/v4/projects/{id}/merge_requests/{merge_request_iid}/discussions"
_IDS = ("id", "merge_request_iid")


def _thread() -> list[dict[str, Any]]:
    return [*_path(*_IDS), {**_path("discussion_id")[0], "schema": _STRING}]


MISSING_MERGE_REQUEST_PATHS: dict[str, dict[str, Any]] = {
    # docs.gitlab.com/api/users: a reviewer's id by their username
    "/api/v4/users": {
        "get": {
            "operationId": "getUsers",
            "parameters": _query(username=_STRING, search=_STRING, page=_INT, per_page=_INT),
        },
    },
    _DISCUSSIONS: {
        "get": {
            "operationId": "getMergeRequestDiscussions",
            "parameters": _path(*_IDS) + _query(page=_INT, per_page=_INT),
        },
        "post": {
            "operationId": "postMergeRequestDiscussion",
            "parameters": _path(*_IDS),
            "requestBody": _body(
                ["body"], body=_STRING, position=_POSITION, commit_id=_STRING, created_at=_STRING
            ),
        },
    },
    _DISCUSSIONS + "/{discussion_id}": {
        "get": {"operationId": "getMergeRequestDiscussion", "parameters": _thread()},
        "put": {
            "operationId": "putMergeRequestDiscussion",
            "parameters": _thread(),
            "requestBody": _body(["resolved"], resolved=_BOOL),
        },
    },
    _DISCUSSIONS + "/{discussion_id}/notes": {
        "post": {
            "operationId": "postMergeRequestDiscussionNote",
            "parameters": _thread(),
            "requestBody": _body(["body"], body=_STRING, created_at=_STRING),
        },
    },
}
