"""The fake GitLab's merge requests, answered as GitLab's REST API answers them
(docs.gitlab.com/api/merge_requests): open, read, list, edit and close them, their diffs,
and the merge (``PUT .../merge``) into the project's real git repository by the
project's merge method (a merge commit, a squash, a fast-forward after a rebase),
refused with 409 when ``sha`` is not the head any more and with 405 while GitLab's rules
hold it back; a merge into the default branch closes the project's own issues its
description names (``Closes #12``). Reviews, threads and approvals are in
``_mr_reviews``, pipelines in ``_pipelines``; the project's merge settings here
(``PUT /projects/{id}``)."""

from __future__ import annotations

from typing import Any

from ralph.git import MergeRefused
from ralph.gitlab.fake import _mr_reviews, _pipelines
from ralph.gitlab.fake._mr_model import (
    MergeRequest,
    MergeRequests,
    closing_iids,
    of,
    user_json,
    when,
)
from ralph.gitlab.fake._routes import Call, Fault, Routes, paginate
from ralph.gitlab.fake._state import Note, Project

__all__ = ["merge_request", "mr_json", "register"]

P = "/api/v4/projects/{id}"
MR = P + "/merge_requests/{merge_request_iid}"
#: The project settings ``PUT /projects/{id}`` changes here, and the values each takes.
_SETTINGS: dict[str, tuple[str, ...] | type] = {
    "merge_method": ("merge", "rebase_merge", "ff"),
    "squash_option": ("never", "always", "default_on", "default_off"),
    "only_allow_merge_if_pipeline_succeeds": bool,
    "allow_merge_on_skipped_pipeline": bool,
    "only_allow_merge_if_all_discussions_are_resolved": bool,
    "approvals_before_merge": int,
    "autoclose_referenced_issues": bool,
    "remove_source_branch_after_merge": bool,
}
_LIST_STATES = ("opened", "closed", "locked", "merged", "all")


def register(routes: Routes) -> None:
    routes.add("PUT", P, _edit_project)
    routes.add("GET", P + "/merge_requests", _list)
    routes.add("POST", P + "/merge_requests", _create)
    routes.add("GET", MR, lambda call: mr_json(call, *merge_request(call), full=True))
    routes.add("PUT", MR, _update)
    routes.add("GET", MR + "/changes", _changes)
    routes.add("GET", MR + "/diffs", _diffs)
    routes.add("PUT", MR + "/merge", _merge)
    routes.add("PUT", MR + "/rebase", _rebase)
    routes.add("GET", P + "/issues/{issue_iid}/closed_by", _closed_by)
    routes.add("GET", "/api/v4/users", _users)
    _mr_reviews.register(routes)
    _pipelines.register(routes)


def merge_request(call: Call) -> tuple[MergeRequests, MergeRequest]:
    store = of(call.project())
    mr = store.items.get(call.integer("merge_request_iid"))
    if mr is None:
        raise Fault.not_found()
    return store, mr


def mr_json(call: Call, store: MergeRequests, mr: MergeRequest, *, full: bool = False) -> Any:
    """GitLab's MergeRequest entity (``full``: the single read's, with its head pipeline
    and diff refs)."""
    project = mr.project
    sha = store.sha(mr)
    found: dict[str, Any] = {
        "id": mr.id,
        "iid": mr.iid,
        "project_id": project.id,
        "title": mr.title,
        "description": mr.description,
        "state": mr.state,
        "created_at": when(mr.created_at),
        "updated_at": when(mr.updated_at),
        "merged_by": user_json(mr.merged_by),
        "merge_user": user_json(mr.merged_by),
        "merged_at": when(mr.merged_at),
        "closed_by": user_json(mr.closed_by),
        "closed_at": when(mr.closed_at),
        "target_branch": mr.target_branch,
        "source_branch": mr.source_branch,
        "source_project_id": project.id,
        "target_project_id": project.id,
        "author": mr.author.json(),
        "assignees": [],
        "reviewers": [r.json() for r in mr.reviewers],
        "labels": [],
        "draft": mr.title.lower().startswith("draft:"),
        "merge_status": "can_be_merged" if not store.has_conflicts(mr) else "cannot_be_merged",
        "detailed_merge_status": store.detailed_merge_status(mr),
        "sha": sha,
        "merge_commit_sha": mr.merge_commit_sha,
        "squash_commit_sha": mr.squash_commit_sha,
        "squash": mr.squash,
        "squash_on_merge": mr.squash or store.settings["squash_option"] == "always",
        "has_conflicts": store.has_conflicts(mr),
        "merge_error": mr.merge_error,
        "rebase_in_progress": False,
        "blocking_discussions_resolved": all(d.resolved for d in mr.discussions),
        "user_notes_count": len(mr.notes) + sum(len(d.notes) for d in mr.discussions),
        "reference": f"!{mr.iid}",
        "references": {
            "short": f"!{mr.iid}",
            "relative": f"!{mr.iid}",
            "full": f"{project.path_with_namespace}!{mr.iid}",
        },
        "web_url": f"{call.fake.base_url}/{project.path_with_namespace}/-/merge_requests/{mr.iid}",
    }
    if full:
        pipeline = store.head_pipeline(mr)
        found["head_pipeline"] = _pipelines.pipeline_json(call, pipeline) if pipeline else None
        found["pipeline"] = found["head_pipeline"]
        found["diff_refs"] = {
            "base_sha": store.git.merge_base(mr.source_branch, mr.target_branch)
            if mr.state == "opened"
            else None,
            "head_sha": sha,
            "start_sha": store.git.head(mr.target_branch),
        }
        found["user"] = {"can_merge": True}
        found["approvals_before_merge"] = store.approvals_required(mr) or None
    return found


# -- the project's merge settings ------------------------------------------------------------


def _edit_project(call: Call) -> Any:
    project = call.project()
    store = of(project)
    for key, value in call.body.items():
        allowed = _SETTINGS.get(key)
        if allowed is None:
            continue  # valid by the document; the fake keeps only what merges read
        if isinstance(allowed, tuple) and value not in allowed:
            raise Fault.bad(f"{key} does not have a valid value")
        store.settings[key] = value
    from ralph.gitlab.fake._issues import project_json

    return project_json(project, call)


# -- merge requests ----------------------------------------------------------------------------


def _list(call: Call) -> Any:
    store = of(call.project())
    state = call.query("state", "all")
    if state not in _LIST_STATES:
        raise Fault.bad("state does not have a valid value")
    found = [
        mr
        for mr in store.items.values()
        if state in ("all", mr.state)
        and call.query("source_branch") in (None, mr.source_branch)
        and call.query("target_branch") in (None, mr.target_branch)
        and (call.query("iids[]") is None or str(mr.iid) in call.query_list("iids"))
    ]
    order = call.query("order_by", "created_at")
    found.sort(key=lambda m: (m.updated_at if order == "updated_at" else m.created_at, m.iid))
    if call.query("sort", "desc") == "desc":
        found.reverse()
    return [mr_json(call, store, mr) for mr in paginate(call, found)]


def _create(call: Call) -> Any:
    project = call.project()
    store = of(project)
    body = call.body
    source, target = str(body["source_branch"]), str(body["target_branch"])
    title = str(body.get("title") or "").strip()
    if not title:
        raise Fault(400, {"title": ["can't be blank"]})
    if len(str(body.get("description") or "")) > 1_048_576:
        raise Fault(400, {"description": ["is too long (maximum is 1048576 characters)"]})
    if source == target:
        raise Fault(422, ["You can't use same project/branch for source and target"])
    for branch, side in ((source, "Source"), (target, "Target")):
        if store.git.head(branch) is None:
            raise Fault(400, [f'{side} branch "{branch}" does not exist'])
    if any(
        m.state == "opened" and m.source_branch == source and m.target_branch == target
        for m in store.items.values()
    ):
        raise Fault(
            409,
            [
                "Another open merge request already exists for this source branch: "
                + next(
                    f"!{m.iid}"
                    for m in store.items.values()
                    if m.state == "opened" and m.source_branch == source
                )
            ],
        )
    now = call.state.clock()
    mr = MergeRequest(
        id=call.state.new_id(),
        iid=store.next_iid,
        project=project,
        title=title,
        description=str(body.get("description") or ""),
        source_branch=source,
        target_branch=target,
        author=call.user,
        created_at=now,
        updated_at=now,
        squash=bool(
            body.get("squash", store.settings["squash_option"] in ("always", "default_on"))
        ),
        reviewers=[u for u in call.state.users if u.id in (body.get("reviewer_ids") or [])],
        approvals_before_merge=body.get("approvals_before_merge"),
    )
    store.next_iid += 1
    store.items[mr.iid] = mr
    return mr_json(call, store, mr, full=True)


def _update(call: Call) -> Any:
    store, mr = merge_request(call)
    body = call.body
    now = call.state.clock()
    if "title" in body:
        mr.title = str(body["title"])
    if "description" in body:
        mr.description = str(body["description"])
    if "reviewer_ids" in body:
        wanted = [i for i in body["reviewer_ids"] or [] if i]
        mr.reviewers = [u for u in call.state.users if u.id in wanted]
    event = body.get("state_event")
    if event == "close" and mr.state == "opened":
        mr.final_sha = store.sha(mr)
        mr.state, mr.closed_at, mr.closed_by = "closed", now, call.user
    elif event == "reopen" and mr.state == "closed":
        mr.state, mr.closed_at, mr.closed_by, mr.final_sha = "opened", None, None, None
    mr.updated_at = now
    return mr_json(call, store, mr, full=True)


def _changes(call: Call) -> Any:
    store, mr = merge_request(call)
    found = mr_json(call, store, mr, full=True)
    found["changes"] = [d.json() for d in _file_diffs(store, mr)]
    return found


def _diffs(call: Call) -> Any:
    store, mr = merge_request(call)
    return [d.json() for d in paginate(call, _file_diffs(store, mr))]


def _file_diffs(store: MergeRequests, mr: MergeRequest) -> list[Any]:
    if mr.state != "opened":
        return []  # the fake keeps no merge request diff versions
    return store.git.diffs(mr.source_branch, mr.target_branch)


# -- merging -----------------------------------------------------------------------------------


def _merge(call: Call) -> Any:
    store, mr = merge_request(call)
    body = call.body
    if mr.state != "opened":
        raise Fault(405, "405 Method Not Allowed")
    sha = store.sha(mr)
    if body.get("sha") and body["sha"] != sha:
        raise Fault(409, f"SHA does not match HEAD of source branch: {sha}")
    if body.get("auto_merge") or body.get("merge_when_pipeline_succeeds"):
        raise Fault(405, "405 Method Not Allowed")  # the fake runs no pipelines to wait on
    if store.detailed_merge_status(mr) != "mergeable":
        raise Fault(405, "405 Method Not Allowed")
    option = store.settings["squash_option"]
    squash = option == "always" or (option != "never" and bool(body.get("squash", mr.squash)))
    message = str(
        body.get("merge_commit_message")
        or f"Merge branch '{mr.source_branch}' into '{mr.target_branch}'\n\n"
        f"{mr.title}\n\nSee merge request {mr.project.path_with_namespace}!{mr.iid}"
    )
    try:
        if store.settings["merge_method"] == "ff" and not squash:
            mr.merge_commit_sha = None
            store.git.fast_forward(mr.source_branch, mr.target_branch)
        elif squash:
            squash_message = str(body.get("squash_commit_message") or mr.title)
            mr.squash_commit_sha = store.git.merge(
                mr.source_branch, mr.target_branch, squash_message, squash=True
            )
        else:
            mr.merge_commit_sha = store.git.merge(
                mr.source_branch, mr.target_branch, message, squash=False
            )
    except MergeRefused:
        raise Fault(422, "Branch cannot be merged") from None
    now = call.state.clock()
    mr.final_sha = sha
    mr.state, mr.merged_at, mr.merged_by, mr.updated_at = "merged", now, call.user, now
    _close_issues(call, mr.project, store, mr)
    return mr_json(call, store, mr, full=True)


def _close_issues(call: Call, project: Project, store: MergeRequests, mr: MergeRequest) -> None:
    """What GitLab does on a merge into the default branch: close the project's own
    issues the description names, each with its system note."""
    if mr.target_branch != project.default_branch:
        return
    if not store.settings["autoclose_referenced_issues"]:
        return
    now = call.state.clock()
    for iid in closing_iids(mr.description):
        issue = project.issues.get(iid)
        if issue is None or issue.state != "opened":
            continue
        issue.state, issue.closed_at, issue.closed_by, issue.updated_at = (
            "closed",
            now,
            call.user,
            now,
        )
        issue.notes.append(
            Note(
                call.state.new_id(),
                f"closed via merge request !{mr.iid}",
                call.user,
                now,
                now,
                system=True,
            )
        )


def _rebase(call: Call) -> Any:
    """GitLab rebases in the background and answers 202; the fake rebases at once."""
    from ralph._rest_http import Reply

    store, mr = merge_request(call)
    if mr.state != "opened":
        raise Fault(403, "403 Forbidden")
    try:
        store.git.rebase(mr.source_branch, mr.target_branch)
        error = None
    except MergeRefused:
        error = "Rebase failed: Rebase locally, resolve all conflicts, then push the branch."
    mr.updated_at = call.state.clock()
    mr.merge_error = error
    return Reply(202, dict(call.headers), {"rebase_in_progress": False})


def _closed_by(call: Call) -> Any:
    """The merge requests that close the issue when they merge (open or merged)."""
    project = call.project()
    store = of(project)
    iid = call.integer("issue_iid")
    if iid not in project.issues:
        raise Fault.not_found()
    found = [
        mr
        for mr in store.items.values()
        if mr.state in ("opened", "merged") and iid in closing_iids(mr.description)
    ]
    return [mr_json(call, store, mr) for mr in paginate(call, found)]


def _users(call: Call) -> Any:
    """Users by ``username`` (exactly, as GitLab matches it), or all."""
    wanted = call.query("username")
    found = [u for u in call.state.users if wanted is None or u.username.lower() == wanted.lower()]
    return [u.json() for u in paginate(call, found)]
