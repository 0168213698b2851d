"""The GitLab endpoints Ralph uses that GitLab's generated OpenAPI document lacks: with
``_missing_merge_requests`` (the merge-request side's), the one place the fake allows a
request its published definition does not describe.

grape-swagger leaves out the endpoints GitLab mounts through shared helpers, notes and
labels among them (SOURCES.md: "known to be incomplete"). Each entry is written from
GitLab's REST documentation (docs.gitlab.com/api/notes, /api/labels, /api/discussions),
with the parameters Ralph sends, and is added only where the document has no such path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MISSING_PATHS"]


def _path(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "in": "path",
            "name": name,
            "required": True,
            "schema": {"type": "string" if name == "id" else "integer"},
        }
        for name in names
    ]


def _query(**kinds: Any) -> list[dict[str, Any]]:
    return [
        {"in": "query", "name": name, "required": False, "schema": schema}
        for name, schema in kinds.items()
    ]


def _body(required: list[str], **properties: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return {"required": True, "content": {"application/json": {"schema": schema}}}


_STRING = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_PAGES = {"page": _INT, "per_page": _INT}
_NOTES_QUERY = _query(
    order_by={"type": "string", "enum": ["created_at", "updated_at"]},
    sort={"type": "string", "enum": ["asc", "desc"]},
    activity_filter={"type": "string", "enum": ["all_notes", "only_comments", "only_activity"]},
    **_PAGES,
)
_NOTE_BODY = _body(
    ["body"], body=_STRING, internal=_BOOL, created_at=_STRING, merge_request_diff_head_sha=_STRING
)


def _notes(noteable: str, iid: str) -> dict[str, dict[str, Any]]:
    base = f"/api/v4/projects/{{id}}/{noteable}/{{{iid}}}/notes"
    return {
        base: {
            "get": {
                "operationId": f"getNotes:{noteable}",
                "parameters": _path("id", iid) + _NOTES_QUERY,
            },
            "post": {
                "operationId": f"postNote:{noteable}",
                "parameters": _path("id", iid),
                "requestBody": _NOTE_BODY,
            },
        },
        base + "/{note_id}": {
            "get": {
                "operationId": f"getNote:{noteable}",
                "parameters": _path("id", iid, "note_id"),
            },
            "put": {
                "operationId": f"putNote:{noteable}",
                "parameters": _path("id", iid, "note_id"),
                "requestBody": _body([], body=_STRING),
            },
            "delete": {
                "operationId": f"deleteNote:{noteable}",
                "parameters": _path("id", iid, "note_id"),
            },
        },
    }


#: A diff note's place (docs.gitlab.com/api/discussions, "Create a new thread in the
#: merge request diff").
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
_LABEL_FIELDS = {
    "name": _STRING,
    "color": _STRING,
    "description": _STRING,
    "priority": {"type": "integer", "nullable": True},
}

MISSING_PATHS: dict[str, dict[str, Any]] = {
    # docs.gitlab.com/api/labels
    "/api/v4/projects/{id}/labels": {
        "get": {
            "operationId": "getProjectLabels",
            "parameters": _path("id")
            + _query(with_counts=_BOOL, include_ancestor_groups=_BOOL, search=_STRING, **_PAGES),
        },
        "post": {
            "operationId": "postProjectLabel",
            "parameters": _path("id"),
            "requestBody": _body(["name", "color"], **_LABEL_FIELDS),
        },
    },
    "/api/v4/projects/{id}/labels/{label_id}": {
        "get": {
            "operationId": "getProjectLabel",
            "parameters": [*_path("id"), {**_path("label_id")[0], "schema": _STRING}],
        },
        "put": {
            "operationId": "putProjectLabel",
            "parameters": [*_path("id"), {**_path("label_id")[0], "schema": _STRING}],
            "requestBody": _body([], new_name=_STRING, **_LABEL_FIELDS),
        },
        "delete": {
            "operationId": "deleteProjectLabel",
            "parameters": [*_path("id"), {**_path("label_id")[0], "schema": _STRING}],
        },
    },
    # docs.gitlab.com/api/notes
    **_notes("issues", "issue_iid"),
    **_notes("merge_requests", "merge_request_iid"),
    # docs.gitlab.com/api/discussions (merge requests' threads, read by the code host)
    "/api/v4/projects/{id}/merge_requests/{merge_request_iid}/discussions": {
        "get": {
            "operationId": "getMergeRequestDiscussions",
            "parameters": _path("id", "merge_request_iid") + _query(**_PAGES),
        },
        "post": {
            "operationId": "postMergeRequestDiscussion",
            "parameters": _path("id", "merge_request_iid"),
            "requestBody": _body(
                ["body"], body=_STRING, commit_id=_STRING, created_at=_STRING, position=_POSITION
            ),
        },
    },
    "/api/v4/projects/{id}/merge_requests/{merge_request_iid}/discussions/{discussion_id}/notes": {
        "post": {
            "operationId": "postMergeRequestDiscussionNote",
            "parameters": [
                *_path("id", "merge_request_iid"),
                {**_path("discussion_id")[0], "schema": _STRING},
            ],
            "requestBody": _body(["body"], body=_STRING, created_at=_STRING),
        },
    },
    "/api/v4/projects/{id}/merge_requests/{merge_request_iid}/discussions/{discussion_id}": {
        "get": {
            "operationId": "getMergeRequestDiscussion",
            "parameters": [
                *_path("id", "merge_request_iid"),
                {**_path("discussion_id")[0], "schema": _STRING},
            ],
        },
        "put": {
            "operationId": "putMergeRequestDiscussion",
            "parameters": [
                *_path("id", "merge_request_iid"),
                {**_path("discussion_id")[0], "schema": _STRING},
            ],
            "requestBody": _body(["resolved"], resolved=_BOOL),
        },
    },
}
