"""The fake GitLab's projects, labels, issues, notes and issue links, answered as GitLab's
REST API answers them (docs.gitlab.com/api/issues, /labels, /notes, /issue_links).

Labels: assigning a label the project lacks creates it, as GitLab does; a label name has
no comma. On Premium, scoped labels (``ralph::Done``) are exclusive: an issue keeps one
label per scope, the last one added. Weights and blocking links are Premium features
too: on Free, ``weight`` is ignored and a link is ``relates_to`` whatever was asked.
Changing labels or the state adds the system notes GitLab adds."""

from __future__ import annotations

from typing import Any

from ralph.gitlab.fake._routes import Call, Fault, Routes, paginate
from ralph.gitlab.fake._state import Issue, IssueLink, Label, Note, Project, iso

__all__ = ["issue_json", "register"]

P = "/api/v4/projects/{id}"
ISSUE = P + "/issues/{issue_iid}"
_OPPOSITE = {"blocks": "is_blocked_by", "is_blocked_by": "blocks", "relates_to": "relates_to"}


def register(routes: Routes) -> None:
    routes.add("GET", "/api/v4/user", lambda call: call.user.json())
    routes.add("GET", P, _project)
    routes.add("GET", P + "/labels", _labels)
    routes.add("POST", P + "/labels", _create_label)
    routes.add("PUT", P + "/labels/{label_id}", _update_label)
    routes.add("GET", P + "/issues", _list_issues)
    routes.add("POST", P + "/issues", _create_issue)
    routes.add("GET", ISSUE, lambda call: issue_json(_issue(call), call))
    routes.add("PUT", ISSUE, _update_issue)
    routes.add("GET", ISSUE + "/notes", _notes)
    routes.add("POST", ISSUE + "/notes", _create_note)
    routes.add("GET", ISSUE + "/notes/{note_id}", lambda call: note_json(_note(call), _issue(call)))
    routes.add("PUT", ISSUE + "/notes/{note_id}", _update_note)
    routes.add("GET", ISSUE + "/links", _links)
    routes.add("POST", ISSUE + "/links", _create_link)
    routes.add("DELETE", ISSUE + "/links/{issue_link_id}", _delete_link)
    # No merge requests here: the merge-request side registers the real answer.
    routes.add("GET", ISSUE + "/closed_by", _closed_by)


# -- JSON as GitLab writes it -----------------------------------------------------------


def project_json(project: Project, call: Call) -> dict[str, Any]:
    return {
        "id": project.id,
        "name": project.name,
        "path": project.path_with_namespace.rsplit("/", 1)[-1],
        "path_with_namespace": project.path_with_namespace,
        "name_with_namespace": project.path_with_namespace.replace("/", " / "),
        "default_branch": project.default_branch,
        "web_url": f"{call.fake.base_url}/{project.path_with_namespace}",
        "issues_enabled": True,
        "merge_requests_enabled": True,
        "namespace": {"full_path": project.namespace},
        **project.extra.get("settings", {}),
    }


def label_json(label: Label) -> dict[str, Any]:
    return {
        "id": label.id,
        "name": label.name,
        "color": label.color,
        "text_color": "#FFFFFF",
        "description": label.description,
        "priority": label.priority,
        "is_project_label": True,
    }


def issue_json(issue: Issue, call: Call) -> dict[str, Any]:
    project = issue.project
    return {
        "id": issue.id,
        "iid": issue.iid,
        "project_id": project.id,
        "title": issue.title,
        "description": issue.description,
        "state": issue.state,
        "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at),
        "closed_at": iso(issue.closed_at) if issue.closed_at is not None else None,
        "closed_by": issue.closed_by.json() if issue.closed_by else None,
        "labels": list(issue.labels),
        "milestone": None,
        "assignees": [],
        "assignee": None,
        "author": issue.author.json(),
        "type": "ISSUE",
        "issue_type": issue.issue_type,
        "user_notes_count": sum(1 for n in issue.notes if not n.system),
        "weight": issue.weight,
        # Premium's count of the open issues this one blocks (GitLab's list shows it).
        "blocking_issues_count": sum(
            1
            for link in call.state.links
            if (
                link.source is issue
                and link.link_type == "blocks"
                and link.target.state == "opened"
            )
            or (
                link.target is issue
                and link.link_type == "is_blocked_by"
                and link.source.state == "opened"
            )
        ),
        "confidential": issue.confidential,
        "discussion_locked": None,
        "web_url": f"{call.fake.base_url}/{project.path_with_namespace}/-/issues/{issue.iid}",
        "references": {
            "short": f"#{issue.iid}",
            "relative": f"#{issue.iid}",
            "full": f"{project.path_with_namespace}#{issue.iid}",
        },
    }


def note_json(note: Note, issue: Issue) -> dict[str, Any]:
    return {
        "id": note.id,
        "type": None,
        "body": note.body,
        "author": note.author.json(),
        "created_at": iso(note.created_at),
        "updated_at": iso(note.updated_at),
        "system": note.system,
        "noteable_id": issue.id,
        "noteable_type": "Issue",
        "noteable_iid": issue.iid,
        "resolvable": False,
        "confidential": note.internal,
        "internal": note.internal,
    }


# -- projects and labels ----------------------------------------------------------------


def _project(call: Call) -> Any:
    return project_json(call.project(), call)


def _labels(call: Call) -> Any:
    project = call.project()
    labels = sorted(project.labels.values(), key=lambda label: label.name.lower())
    search = (call.query("search") or "").lower()
    return [
        label_json(label)
        for label in paginate(call, [la for la in labels if search in la.name.lower()])
    ]


def _check_label_name(name: str) -> str:
    name = name.strip()
    if not name or "," in name:
        raise Fault(400, {"title": ["is invalid"]})
    return name


def _create_label(call: Call) -> Any:
    project = call.project()
    name = _check_label_name(str(call.body["name"]))
    if any(existing.lower() == name.lower() for existing in project.labels):
        raise Fault(409, "Label already exists")
    color = str(call.body["color"])
    if not (color.startswith("#") and len(color) in (4, 7)):
        raise Fault(400, {"color": ["must be a valid color code"]})
    label = Label(
        call.state.new_id(), name, color, call.body.get("description"), call.body.get("priority")
    )
    project.labels[name] = label
    return label_json(label)


def _label(project: Project, key: str) -> Label:
    for label in project.labels.values():
        if str(label.id) == key or label.name == key:
            return label
    raise Fault.not_found("Label Not Found")


def _update_label(call: Call) -> Any:
    project = call.project()
    label = _label(project, call.params["label_id"])
    body = call.body
    if "new_name" in body:
        new = _check_label_name(str(body["new_name"]))
        del project.labels[label.name]
        for issue in project.issues.values():
            issue.labels = [new if n == label.name else n for n in issue.labels]
        label.name = new
        project.labels[new] = label
    for key in ("color", "description", "priority"):
        if key in body:
            setattr(label, key, body[key])
    return label_json(label)


def _ensure_label(call: Call, project: Project, name: str) -> str:
    name = _check_label_name(name)
    for existing in project.labels:
        if existing.lower() == name.lower():
            return existing
    project.labels[name] = Label(call.state.new_id(), name)
    return name


def _names(value: Any) -> list[str]:
    """A label list as GitLab takes it: an array, or a comma-separated string."""
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def _set_labels(call: Call, issue: Issue, body: dict[str, Any]) -> bool:
    """Apply ``labels`` (replace), then ``remove_labels`` and ``add_labels``; with scoped
    labels exclusive on Premium. True when the issue's labels changed."""
    project = issue.project
    before = list(issue.labels)
    labels = list(issue.labels)
    if "labels" in body:
        labels = []
        for name in _names(body["labels"]):
            labels = _with(call, labels, _ensure_label(call, project, name))
    if "remove_labels" in body:
        gone = {n.lower() for n in _names(body["remove_labels"])}
        labels = [n for n in labels if n.lower() not in gone]
    for name in _names(body.get("add_labels", [])):
        labels = _with(call, labels, _ensure_label(call, project, name))
    issue.labels = labels
    added = [n for n in labels if n not in before]
    removed = [n for n in before if n not in labels]
    if added or removed:
        words = []
        if added:
            words.append("added " + " ".join(f"~{n!r}" for n in added))
        if removed:
            words.append("removed " + " ".join(f"~{n!r}" for n in removed))
        _system_note(
            call, issue, " and ".join(words) + (" labels" if len(added + removed) > 1 else " label")
        )
    return bool(added or removed)


def _with(call: Call, labels: list[str], name: str) -> list[str]:
    if name in labels:
        return labels
    if call.fake.premium and "::" in name:
        scope = name.rsplit("::", 1)[0]
        labels = [n for n in labels if not ("::" in n and n.rsplit("::", 1)[0] == scope)]
    return [*labels, name]


def _system_note(call: Call, issue: Issue, body: str) -> None:
    now = call.state.clock()
    issue.notes.append(Note(call.state.new_id(), body, call.user, now, now, system=True))


# -- issues -------------------------------------------------------------------------------


def _issue(call: Call) -> Issue:
    project = call.project()
    issue = project.issues.get(call.integer("issue_iid"))
    if issue is None:
        raise Fault.not_found()
    return issue


def _list_issues(call: Call) -> Any:
    project = call.project()
    issues = list(project.issues.values())
    state = call.query("state", "all")
    if state != "all":
        issues = [i for i in issues if i.state == state]
    wanted = call.query_list("labels")
    if wanted == ["None"]:
        issues = [i for i in issues if not i.labels]
    elif wanted == ["Any"]:
        issues = [i for i in issues if i.labels]
    elif wanted:
        lowered = {w.lower() for w in wanted}
        issues = [i for i in issues if lowered <= {n.lower() for n in i.labels}]
    unwanted = {n.lower() for n in call.query_list("not[labels]")}
    if unwanted:
        issues = [i for i in issues if not unwanted & {n.lower() for n in i.labels}]
    iids = call.query_list("iids")
    if iids:
        issues = [i for i in issues if str(i.iid) in iids]
    search = (call.query("search") or "").lower()
    if search:
        fields = (call.query("in") or "title,description").split(",")

        def text(issue: Issue) -> str:
            return " ".join(getattr(issue, f, "") for f in fields if f in ("title", "description"))

        issues = [i for i in issues if search in text(i).lower()]
    after = call.query("updated_after")
    if after:
        issues = [i for i in issues if iso(i.updated_at) > after]
    order = call.query("order_by", "created_at")
    key = {"updated_at": lambda i: (i.updated_at, i.id), "title": lambda i: (i.title, i.id)}.get(
        order or "", lambda i: (i.created_at, i.id)
    )
    issues.sort(key=key, reverse=call.query("sort", "desc") == "desc")
    return [issue_json(i, call) for i in paginate(call, issues)]


def _create_issue(call: Call) -> Any:
    project = call.project()
    body = call.body
    title = str(body["title"]).strip()
    if not title:
        raise Fault(400, {"title": ["can't be blank"]})
    if len(title) > 255:
        raise Fault(400, {"title": ["is too long (maximum is 255 characters)"]})
    description = str(body.get("description", ""))
    if len(description) > 1_048_576:
        raise Fault(400, {"description": ["is too long (maximum is 1048576 characters)"]})
    now = call.state.clock()
    iid = project.next_iid
    issue = Issue(call.state.new_id(), iid, project, title, description, call.user, now, now)
    if call.fake.premium and "weight" in body:
        issue.weight = _weight(body["weight"])
    issue.issue_type = str(body.get("issue_type", "issue"))
    issue.confidential = bool(body.get("confidential", False))
    labels: list[str] = []
    for name in _names(body.get("labels", [])) + _names(body.get("add_labels", [])):
        labels = _with(call, labels, _ensure_label(call, project, name))
    issue.labels = labels
    project.next_iid += 1
    project.issues[iid] = issue
    return issue_json(issue, call)


def _weight(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or value < 0:
        raise Fault(400, {"weight": ["must be greater than or equal to 0"]})
    return value


def _update_issue(call: Call) -> Any:
    issue = _issue(call)
    body = call.body
    changed = False
    if "title" in body:
        title = str(body["title"]).strip()
        if not title:
            raise Fault(400, {"title": ["can't be blank"]})
        if len(title) > 255:
            raise Fault(400, {"title": ["is too long (maximum is 255 characters)"]})
        changed |= title != issue.title
        issue.title = title
    if "description" in body:
        changed |= body["description"] != issue.description
        issue.description = str(body["description"])
    if "weight" in body and call.fake.premium:
        changed |= body["weight"] != issue.weight
        issue.weight = _weight(body["weight"])
    changed |= _set_labels(call, issue, body)
    event = body.get("state_event")
    now = call.state.clock()
    if event == "close" and issue.state == "opened":
        issue.state, issue.closed_at, issue.closed_by = "closed", now, call.user
        _system_note(call, issue, "closed")
        changed = True
    elif event == "reopen" and issue.state == "closed":
        issue.state, issue.closed_at, issue.closed_by = "opened", None, None
        _system_note(call, issue, "reopened")
        changed = True
    if changed:
        issue.updated_at = now
    return issue_json(issue, call)


# -- notes ----------------------------------------------------------------------------------


def _notes(call: Call) -> Any:
    issue = _issue(call)
    notes = list(issue.notes)
    if call.query("activity_filter") == "only_comments":
        notes = [n for n in notes if not n.system]
    elif call.query("activity_filter") == "only_activity":
        notes = [n for n in notes if n.system]
    by = call.query("order_by", "created_at")
    notes.sort(
        key=lambda n: (n.updated_at if by == "updated_at" else n.created_at, n.id),
        reverse=call.query("sort", "desc") == "desc",  # GitLab's default: newest first
    )
    return [note_json(n, issue) for n in paginate(call, notes)]


def _note(call: Call) -> Note:
    issue = _issue(call)
    wanted = call.integer("note_id")
    for note in issue.notes:
        if note.id == wanted:
            return note
    raise Fault.not_found("Note Not Found")


def _create_note(call: Call) -> Any:
    issue = _issue(call)
    body = str(call.body["body"])
    if not body.strip():
        raise Fault(400, {"note": ["can't be blank"]})
    if len(body) > 1_000_000:
        raise Fault(400, {"note": ["is too long (maximum is 1000000 characters)"]})
    now = call.state.clock()
    note = Note(
        call.state.new_id(), body, call.user, now, now, internal=bool(call.body.get("internal"))
    )
    issue.notes.append(note)
    issue.updated_at = now
    return note_json(note, issue)


def _update_note(call: Call) -> Any:
    note = _note(call)
    if note.system:
        raise Fault(403, "403 Forbidden")
    if "body" in call.body:
        note.body = str(call.body["body"])
        note.updated_at = call.state.clock()
    return note_json(note, _issue(call))


def _closed_by(call: Call) -> Any:
    _issue(call)  # 404 for an issue that is not there
    return []


# -- issue links --------------------------------------------------------------------------


def _links(call: Call) -> Any:
    issue = _issue(call)
    found = []
    for link in call.state.links:
        if link.source is issue:
            other, kind = link.target, link.link_type
        elif link.target is issue:
            other, kind = link.source, _OPPOSITE[link.link_type]
        else:
            continue
        found.append(
            {
                **issue_json(other, call),
                "issue_link_id": link.id,
                "link_type": kind,
                "link_created_at": iso(link.created_at),
                "link_updated_at": iso(link.created_at),
            }
        )
    return found


def _create_link(call: Call) -> Any:
    issue = _issue(call)
    target_project = call.state.project(str(call.body["target_project_id"]))
    if target_project is None:
        raise Fault.not_found("Project Not Found")
    try:
        target = target_project.issues.get(int(str(call.body["target_issue_iid"])))
    except ValueError:
        target = None
    if target is None:
        raise Fault.not_found()
    kind = str(call.body.get("link_type", "relates_to"))
    if not call.fake.premium:
        kind = "relates_to"
    if target is issue:
        raise Fault(400, "Cannot link an issue to itself")
    for link in call.state.links:
        if {link.source.id, link.target.id} == {issue.id, target.id}:
            raise Fault(409, "Issue(s) already assigned")
    link = IssueLink(call.state.new_id(), issue, target, kind, call.state.clock())
    call.state.links.append(link)
    now = call.state.clock()
    issue.updated_at = target.updated_at = now
    return {
        "source_issue": issue_json(issue, call),
        "target_issue": issue_json(target, call),
        "link_type": kind,
    }


def _delete_link(call: Call) -> Any:
    issue = _issue(call)
    wanted = call.integer("issue_link_id")
    for link in call.state.links:
        if link.id == wanted and issue in (link.source, link.target):
            call.state.links.remove(link)
            now = call.state.clock()
            link.source.updated_at = link.target.updated_at = now
            return {
                "source_issue": issue_json(link.source, call),
                "target_issue": issue_json(link.target, call),
                "link_type": link.link_type,
            }
    raise Fault.not_found("Not found")
