"""The operations of Jira's REST API v3 the fake answers, over its site (called under
the site's lock, after the request passed the OpenAPI check)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ralph._rest_http import RestRequest
from ralph.jira.fake._jql import JqlError, parse_jql
from ralph.jira.fake._model import (
    ESTIMATE_FIELDS,
    ISSUE_TYPES,
    PRIORITIES,
    RESOLUTIONS,
    T_SHIRT_OPTIONS,
    Account,
    Comment,
    Issue,
    Link,
    Site,
    stamp,
)

__all__ = ["Refused", "Routes"]

API = "/rest/api/3"
#: Jira's limits on text: summaries, and ADF documents (descriptions, comments).
MAX_SUMMARY = 255
MAX_TEXT = 32_767
#: A search page: at most 100 issues with fields, 5,000 with ids or keys only.
MAX_PAGE = 100
MAX_ID_PAGE = 5000
BLOCKS = {"id": "10000", "name": "Blocks", "inward": "is blocked by", "outward": "blocks"}
_NOT_FOUND = "Issue does not exist or you do not have permission to see it."
#: The fields a GET of an issue returns by default (``*all``) and a search by ``*navigable``.
ALL_FIELDS = (
    "summary",
    "description",
    "status",
    "priority",
    "labels",
    "parent",
    "subtasks",
    "issuelinks",
    "created",
    "updated",
    "resolution",
    "resolutiondate",
    "assignee",
    "reporter",
    "issuetype",
    "project",
    "comment",
    *ESTIMATE_FIELDS,
)


class Refused(Exception):
    def __init__(
        self,
        status: int,
        messages: list[str] | None = None,
        errors: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(status, messages, errors)
        self.status = status
        self.messages = messages or []
        self.errors = dict(errors or {})

    def body(self) -> dict[str, Any]:
        return {"errorMessages": self.messages, "errors": self.errors}


def _not_found() -> Refused:
    return Refused(404, [_NOT_FOUND])


class Routes:
    def __init__(self, site: Site) -> None:
        self.site = site
        self._routes: list[tuple[str, re.Pattern[str], Any]] = [
            ("GET", re.compile(r"/myself"), self.myself),
            ("GET", re.compile(r"/field"), self.fields),
            ("GET", re.compile(r"/priority"), self.priorities),
            ("GET", re.compile(r"/resolution"), self.resolutions),
            ("GET", re.compile(r"/issueLinkType"), self.link_types),
            ("GET", re.compile(r"/project/([^/]+)"), self.project),
            ("GET", re.compile(r"/project/([^/]+)/statuses"), self.project_statuses),
            ("POST", re.compile(r"/issue"), self.create_issue),
            ("GET", re.compile(r"/issue/([^/]+)"), self.get_issue),
            ("PUT", re.compile(r"/issue/([^/]+)"), self.edit_issue),
            ("GET", re.compile(r"/issue/([^/]+)/transitions"), self.transitions),
            ("POST", re.compile(r"/issue/([^/]+)/transitions"), self.do_transition),
            ("GET", re.compile(r"/issue/([^/]+)/comment"), self.comments),
            ("POST", re.compile(r"/issue/([^/]+)/comment"), self.add_comment),
            ("POST", re.compile(r"/issueLink"), self.link),
            ("DELETE", re.compile(r"/issueLink/([^/]+)"), self.unlink),
            ("POST", re.compile(r"/search/jql"), self.search_post),
            ("GET", re.compile(r"/search/jql"), self.search_get),
        ]

    def handle(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        path = request.path.removeprefix(API)
        for method, pattern, route in self._routes:
            match = pattern.fullmatch(path)
            if method == request.method and match is not None:
                result: tuple[int, Any] = route(request, account, *match.groups())
                return result
        raise Refused(404, [f"the fake Jira does not answer {request.method} {request.path}"])

    # -- the site ---------------------------------------------------------------------------

    def myself(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        return 200, {**account.json(), "timeZone": "UTC", "locale": "en_US"}

    def fields(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        system = [
            {
                "id": name,
                "key": name,
                "name": name.title(),
                "custom": False,
                "schema": {"type": "any", "system": name},
            }
            for name in ALL_FIELDS
            if name not in ESTIMATE_FIELDS
        ]
        custom = [
            {
                "id": field_id,
                "key": field_id,
                "name": name,
                "custom": True,
                "schema": {
                    "type": kind,
                    "custom": "com.atlassian.jira.plugin.system.customfieldtypes:"
                    + ("float" if kind == "number" else "select"),
                    "customId": int(field_id.rpartition("_")[2]),
                },
            }
            for field_id, (name, kind) in ESTIMATE_FIELDS.items()
        ]
        return 200, system + custom

    def priorities(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        return 200, [{"id": str(n), "name": name} for n, name in enumerate(PRIORITIES, 1)]

    def resolutions(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        return 200, [{"id": str(10000 + n), "name": name} for n, name in enumerate(RESOLUTIONS)]

    def link_types(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        return 200, {"issueLinkTypes": [BLOCKS]}

    def project(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        project = self.site.project(key)
        if project is None:
            raise Refused(404, [f"No project could be found with key '{key}'."])
        return 200, project.json()

    def project_statuses(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        project = self.site.project(key)
        if project is None:
            raise Refused(404, [f"No project could be found with key '{key}'."])
        statuses = [s.json() for s in project.statuses]
        return 200, [{**t.json(), "statuses": statuses} for t in ISSUE_TYPES]

    # -- issues -----------------------------------------------------------------------------

    def _issue(self, key: str) -> Issue:
        issue = self.site.issue(key)
        if issue is None:
            raise _not_found()
        return issue

    def create_issue(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        body = request.body or {}
        fields = dict(body.get("fields") or {})
        project_ref = fields.pop("project", None) or {}
        project = self.site.project(str(project_ref.get("key") or project_ref.get("id") or ""))
        if project is None:
            raise Refused(400, [], {"project": "valid project is required"})
        type_ref = fields.pop("issuetype", None) or {}
        issue_type = next(
            (
                t
                for t in ISSUE_TYPES
                if type_ref.get("id") == t.id or type_ref.get("name") == t.name
            ),
            None,
        )
        if issue_type is None:
            raise Refused(400, [], {"issuetype": "valid issue type is required"})
        if not str(fields.get("summary") or "").strip():
            raise Refused(400, [], {"summary": "You must specify a summary of the issue."})
        now = self.site.clock()
        issue = Issue(
            self.site.new_id(),
            "",
            project,
            issue_type,
            project.statuses[0],
            account,
            now,
            now,
        )
        self._apply(issue, fields, creating=True)  # refused before a key is spent
        project.counter += 1
        issue.key = f"{project.key}-{project.counter}"
        for prop in body.get("properties") or []:
            issue.properties[str(prop.get("key"))] = prop.get("value")
        self.site.issues[issue.id] = issue
        return 201, {"id": issue.id, "key": issue.key, "self": f"{API}/issue/{issue.id}"}

    def _apply(self, issue: Issue, fields: Mapping[str, Any], *, creating: bool = False) -> None:
        """Set ``fields`` on ``issue``: checked first, all or nothing."""
        errors: dict[str, str] = {}
        changes: dict[str, Any] = {}
        for name, value in fields.items():
            if name == "summary":
                text = str(value or "")
                if not text.strip():
                    errors[name] = "You must specify a summary of the issue."
                elif len(text) > MAX_SUMMARY:
                    errors[name] = "Summary must be less than 255 characters."
                elif "\n" in text or "\r" in text:
                    errors[name] = "The summary is invalid because it contains newline characters."
                else:
                    changes[name] = text
            elif name == "description":
                problem = _adf_problem(value)
                if problem:
                    errors[name] = problem
                else:
                    changes[name] = value
            elif name == "labels":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    errors[name] = "The labels must be a list of strings."
                elif any(" " in v or not v for v in value):
                    bad = next(v for v in value if " " in v or not v)
                    errors[name] = f"The label '{bad}' contains spaces which is invalid."
                else:
                    changes[name] = list(dict.fromkeys(value))
            elif name == "priority":
                wanted = (value or {}).get("name") or (value or {}).get("id")
                names = {str(n): p for n, p in enumerate(PRIORITIES, 1)} | {
                    p: p for p in PRIORITIES
                }
                if wanted not in names:
                    errors[name] = f"Specify a valid priority; {wanted!r} is not one."
                else:
                    changes[name] = names[wanted]
            elif name == "parent":
                ref = value or {}
                parent = (
                    self.site.issue(str(ref.get("key") or ref.get("id") or "")) if value else None
                )
                if value and parent is None:
                    errors[name] = "Could not find issue by id or key."
                elif parent is not None and parent.project is not issue.project:
                    errors[name] = "The parent must be in the same project."
                elif parent is not None and (
                    parent.id == issue.id or self._descends(parent, issue)
                ):
                    errors[name] = "An issue cannot be its own ancestor."
                else:
                    changes[name] = None if parent is None else parent.id
            elif name in ESTIMATE_FIELDS:
                kind = ESTIMATE_FIELDS[name][1]
                if value is None:
                    changes[name] = None
                elif (
                    kind == "number"
                    and isinstance(value, int | float)
                    and not isinstance(value, bool)
                ):
                    changes[name] = value
                elif (
                    kind == "option"
                    and isinstance(value, dict)
                    and (
                        value.get("value") in T_SHIRT_OPTIONS
                        or value.get("id") in T_SHIRT_OPTIONS.values()
                    )
                ):
                    option = value.get("value") or next(
                        k for k, v in T_SHIRT_OPTIONS.items() if v == value.get("id")
                    )
                    changes[name] = option
                else:
                    wanted_kind = "number" if kind == "number" else "valid option"
                    errors[name] = f"Operation value must be a {wanted_kind}"
            else:
                errors[name] = (
                    f"Field '{name}' cannot be set. "
                    "It is not on the appropriate screen, or unknown."
                )
        if errors:
            raise Refused(400, [], errors)
        for name, value in changes.items():
            if name in ESTIMATE_FIELDS:
                issue.custom[name] = value
            else:
                setattr(issue, name, value)
        if not creating:
            issue.updated = self.site.clock()

    def _descends(self, issue: Issue, ancestor: Issue) -> bool:
        seen = 0
        current: Issue | None = issue
        while current is not None and current.parent is not None and seen < 100:
            if current.parent == ancestor.id:
                return True
            current = self.site.issues.get(current.parent)
            seen += 1
        return False

    def get_issue(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        wanted = _wanted(request.query, default="*all")
        props = [p for k, v in request.query if k == "properties" for p in v.split(",")]
        return 200, self.issue_json(issue, wanted, props)

    def edit_issue(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        body = request.body or {}
        fields = dict(body.get("fields") or {})
        for name, operations in (body.get("update") or {}).items():
            if name != "labels":
                raise Refused(400, [], {name: "the fake Jira updates labels only by operations"})
            labels = list(fields.get("labels", issue.labels))
            for operation in operations:
                if "add" in operation and operation["add"] not in labels:
                    labels.append(operation["add"])
                if "remove" in operation and operation["remove"] in labels:
                    labels.remove(operation["remove"])
                if "set" in operation:
                    labels = list(operation["set"])
            fields["labels"] = labels
        self._apply(issue, fields)
        return 204, None

    # -- the workflow -----------------------------------------------------------------------

    def transitions(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        return 200, {
            "transitions": [
                {
                    "id": status.id,
                    "name": status.name,
                    "to": status.json(),
                    "hasScreen": False,
                    "isGlobal": True,
                    "isInitial": False,
                    "isAvailable": True,
                    "isConditional": False,
                    "isLooped": False,
                }
                for status in issue.project.transitions_from(issue.status.id)
            ]
        }

    def do_transition(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        body = request.body or {}
        wanted = str((body.get("transition") or {}).get("id") or "")
        target = next(
            (s for s in issue.project.transitions_from(issue.status.id) if s.id == wanted), None
        )
        if target is None:
            raise Refused(
                400,
                [f"Transition id '{wanted}' is not valid for this issue."],
            )
        fields = dict(body.get("fields") or {})
        resolution = (fields.pop("resolution", None) or {}).get("name")
        if resolution is not None and resolution not in RESOLUTIONS:
            raise Refused(400, [], {"resolution": f"Resolution '{resolution}' does not exist."})
        comments = []
        for name, operations in (body.get("update") or {}).items():
            if name != "comment":
                raise Refused(400, [], {name: "the fake Jira takes only comments on a transition"})
            for operation in operations:
                text = (operation.get("add") or {}).get("body")
                problem = _adf_problem(text)
                if problem:
                    raise Refused(400, [], {"comment": problem})
                comments.append(text)
        if fields:
            self._apply(issue, fields)
        now = self.site.clock()
        issue.status = target
        if target.category == "done":
            issue.resolution = resolution or issue.resolution or "Done"
            issue.resolved = issue.resolved if issue.resolved is not None else now
        else:
            issue.resolution = issue.resolved = None
        issue.updated = now
        for text in comments:
            issue.comments.append(Comment(int(self.site.new_id()), account, text, now))
        return 204, None

    # -- comments ---------------------------------------------------------------------------

    def comments(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        start = int(request.param("startAt", "0") or 0)
        size = min(int(request.param("maxResults", "100") or 100), 100)
        page = issue.comments[start : start + size]
        return 200, {
            "startAt": start,
            "maxResults": size,
            "total": len(issue.comments),
            "comments": [c.json() for c in page],
        }

    def add_comment(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        text = (request.body or {}).get("body")
        problem = _adf_problem(text)
        if problem:
            raise Refused(400, [], {"comment": problem})
        made = Comment(int(self.site.new_id()), account, text, self.site.clock())
        issue.comments.append(made)
        issue.updated = made.created
        return 201, made.json()

    # -- links ------------------------------------------------------------------------------

    def link(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        body = request.body or {}
        kind = body.get("type") or {}
        if kind.get("name") != BLOCKS["name"] and kind.get("id") != BLOCKS["id"]:
            raise Refused(404, ["No issue link type with name or id given found."])
        outward = self._ref(body.get("outwardIssue"))
        inward = self._ref(body.get("inwardIssue"))
        if outward.id == inward.id:
            raise Refused(400, ["You cannot link an issue to itself."])
        duplicate = any(
            k.outward == outward.id and k.inward == inward.id for k in self.site.links.values()
        )
        if not duplicate:
            link_id = self.site.new_id()
            self.site.links[link_id] = Link(link_id, outward.id, inward.id)
            now = self.site.clock()
            outward.updated = inward.updated = now
        return 201, None

    def _ref(self, ref: Any) -> Issue:
        ref = ref or {}
        issue = self.site.issue(str(ref.get("key") or ref.get("id") or ""))
        if issue is None:
            raise Refused(404, [_NOT_FOUND])
        return issue

    def unlink(self, request: RestRequest, account: Account, link_id: str) -> tuple[int, Any]:
        link = self.site.links.pop(link_id, None)
        if link is None:
            raise Refused(404, [f"No issue link with id '{link_id}' exists."])
        now = self.site.clock()
        for issue_id in (link.outward, link.inward):
            if issue_id in self.site.issues:
                self.site.issues[issue_id].updated = now
        return 204, None

    # -- search -----------------------------------------------------------------------------

    def search_post(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        body = request.body or {}
        return self._search(
            account,
            str(body.get("jql") or ""),
            body.get("fields") or ["id"],
            body.get("maxResults", 50),
            body.get("nextPageToken"),
            body.get("properties") or [],
        )

    def search_get(self, request: RestRequest, account: Account) -> tuple[int, Any]:
        fields = [f for k, v in request.query if k == "fields" for f in v.split(",")] or ["id"]
        props = [p for k, v in request.query if k == "properties" for p in v.split(",")]
        return self._search(
            account,
            request.param("jql", "") or "",
            fields,
            int(request.param("maxResults", "50") or 50),
            request.param("nextPageToken"),
            props,
        )

    def _search(
        self,
        account: Account,
        jql: str,
        fields: list[str],
        size: int,
        token: str | None,
        properties: list[str],
    ) -> tuple[int, Any]:
        if not jql.strip():
            # The enhanced search refuses an unbounded query.
            raise Refused(
                400,
                [
                    "Unbounded JQL queries are not allowed here. "
                    "Please add a search restriction to your query."
                ],
            )
        try:
            found = parse_jql(jql).run(self.site, account.account_id)
        except JqlError as exc:
            raise Refused(400, [str(exc)]) from None
        wanted = _wanted([("fields", f) for f in fields], default="id")
        ids_only = wanted <= {"id", "key"}
        size = max(1, min(size, MAX_ID_PAGE if ids_only else MAX_PAGE))
        start = 0
        if token:
            try:
                start = int(token.removeprefix("page-"))
            except ValueError:
                raise Refused(400, ["The nextPageToken is not valid."]) from None
        page = found[start : start + size]
        answer: dict[str, Any] = {
            "issues": [self.issue_json(i, wanted, properties) for i in page],
            "isLast": start + size >= len(found),
        }
        if not answer["isLast"]:
            answer["nextPageToken"] = f"page-{start + size}"
        return 200, answer

    # -- an issue as JSON -------------------------------------------------------------------

    def issue_json(
        self, issue: Issue, wanted: set[str], properties: Sequence[str] = ()
    ) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in wanted:
            if name in ("id", "key"):
                continue
            value = self._field(issue, name)
            if value is not _ABSENT:
                values[name] = value
        body: dict[str, Any] = {
            "id": issue.id,
            "key": issue.key,
            "self": f"{API}/issue/{issue.id}",
            "fields": values,
        }
        if properties:
            body["properties"] = {
                p: issue.properties[p] for p in properties if p in issue.properties
            }
        return body

    def _brief(self, issue: Issue) -> dict[str, Any]:
        return {
            "id": issue.id,
            "key": issue.key,
            "fields": {
                "summary": issue.summary,
                "status": issue.status.json(),
                "priority": None if issue.priority is None else {"name": issue.priority},
                "issuetype": issue.issue_type.json(),
            },
        }

    def _field(self, issue: Issue, name: str) -> Any:
        if name == "summary":
            return issue.summary
        if name == "description":
            return issue.description
        if name == "status":
            return issue.status.json()
        if name == "priority":
            if issue.priority is None:
                return None
            return {"id": str(PRIORITIES.index(issue.priority) + 1), "name": issue.priority}
        if name == "labels":
            return list(issue.labels)
        if name == "parent":
            parent = self.site.issues.get(issue.parent or "")
            return _ABSENT if parent is None else self._brief(parent)
        if name == "subtasks":
            return [self._brief(c) for c in self.site.children(issue) if c.issue_type.subtask]
        if name == "issuelinks":
            links = []
            for link in self.site.links.values():
                if link.outward == issue.id and link.inward in self.site.issues:
                    links.append(
                        {
                            "id": link.id,
                            "type": BLOCKS,
                            "outwardIssue": self._brief(self.site.issues[link.inward]),
                        }
                    )
                elif link.inward == issue.id and link.outward in self.site.issues:
                    links.append(
                        {
                            "id": link.id,
                            "type": BLOCKS,
                            "inwardIssue": self._brief(self.site.issues[link.outward]),
                        }
                    )
            return links
        if name == "created":
            return stamp(issue.created)
        if name == "updated":
            return stamp(issue.updated)
        if name == "resolution":
            return None if issue.resolution is None else {"name": issue.resolution}
        if name == "resolutiondate":
            return None if issue.resolved is None else stamp(issue.resolved)
        if name == "assignee":
            return None
        if name == "reporter":
            return issue.reporter.json()
        if name == "issuetype":
            return issue.issue_type.json()
        if name == "project":
            return {"id": issue.project.id, "key": issue.project.key, "name": issue.project.name}
        if name == "comment":
            return {
                "comments": [c.json() for c in issue.comments],
                "maxResults": len(issue.comments),
                "total": len(issue.comments),
                "startAt": 0,
            }
        if name in ESTIMATE_FIELDS:
            value = issue.custom.get(name)
            if ESTIMATE_FIELDS[name][1] == "option" and value is not None:
                return {"value": value, "id": T_SHIRT_OPTIONS[value]}
            return value
        return _ABSENT


_ABSENT = object()


def _wanted(query: Any, default: str) -> set[str]:
    """The fields a ``fields`` parameter names (``*all``, ``*navigable``, ``-name``)."""
    names = [part.strip() for key, value in query if key == "fields" for part in value.split(",")]
    names = [n for n in names if n] or [default]
    chosen: set[str] = set()
    for name in names:
        if name in ("*all", "*navigable"):
            chosen |= set(ALL_FIELDS) - ({"comment"} if name == "*navigable" else set())
        elif not name.startswith("-"):
            chosen.add(name)
    chosen -= {n[1:] for n in names if n.startswith("-")}
    return chosen


def _adf_problem(document: Any) -> str:
    """Why Jira would refuse ``document`` as an ADF text, or ""."""
    if document is None:
        return ""
    if (
        not isinstance(document, dict)
        or document.get("type") != "doc"
        or document.get("version") != 1
    ):
        return "Operation value must be an Atlassian Document (see the Atlassian Document Format)"
    size = 0
    stack = list(document.get("content") or [])
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            return "INVALID_INPUT: a node of the document has no type"
        if node["type"] == "text":
            text = node.get("text")
            if not isinstance(text, str) or not text:
                return "INVALID_INPUT: a text node must have non-empty text"
            size += len(text)
        stack.extend(node.get("content") or [])
    if size > MAX_TEXT:
        return (
            "The entered text is too long. "
            f"It exceeds the allowed limit of {MAX_TEXT:,} characters."
        )
    return ""
