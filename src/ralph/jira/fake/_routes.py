"""The operations of Jira's REST API v3 the fake answers, over its site (called under
the site's lock, after the request passed the OpenAPI check)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ralph._rest_http import RestRequest
from ralph.jira.fake._edits import Refused, adf_problem, apply_fields
from ralph.jira.fake._jql import JqlError, parse_jql
from ralph.jira.fake._model import (
    ESTIMATE_FIELDS,
    ISSUE_TYPES,
    PRIORITIES,
    RESOLUTIONS,
    Account,
    Comment,
    Issue,
    Link,
    Site,
)
from ralph.jira.fake._render import ALL_FIELDS, API, BLOCKS, field_meta, issue_json, wanted

__all__ = ["Routes"]

#: A search page: at most 100 issues with fields, 5,000 with ids or keys only.
MAX_PAGE = 100
MAX_ID_PAGE = 5000
#: Issue ids a search may name to read fresh (``reconcileIssues``).
MAX_RECONCILE = 50
_NOT_FOUND = "Issue does not exist or you do not have permission to see it."


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
        return 200, {**account.json(), "timeZone": account.time_zone, "locale": "en_US"}

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
        apply_fields(self.site, issue, fields, creating=True)  # refused before a key is spent
        project.counter += 1
        issue.key = f"{project.key}-{project.counter}"
        for prop in body.get("properties") or []:
            issue.properties[str(prop.get("key"))] = prop.get("value")
        self.site.issues[issue.id] = issue
        link = f"{self.site.url}{API}/issue/{issue.id}"
        return 201, {"id": issue.id, "key": issue.key, "self": link}

    def get_issue(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        chosen = wanted(request.query, default="*all")
        props = [p for k, v in request.query if k == "properties" for p in v.split(",")]
        return 200, issue_json(self.site, issue, chosen, props)

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
        apply_fields(self.site, issue, fields)
        return 204, None

    # -- the workflow -----------------------------------------------------------------------

    def transitions(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        expand = {e.strip() for e in (request.param("expand", "") or "").split(",")}
        found = []
        for status in issue.project.transitions_from(issue.status.id, issue.issue_type.id):
            screen = issue.project.screens.get(status.id, frozenset())
            transition: dict[str, Any] = {
                "id": status.id,
                "name": status.name,
                "to": status.json(),
                "hasScreen": bool(screen),
                "isGlobal": True,
                "isInitial": False,
                "isAvailable": True,
                "isConditional": False,
                "isLooped": False,
            }
            if "transitions.fields" in expand:
                transition["fields"] = {name: field_meta(name) for name in sorted(screen)}
            found.append(transition)
        return 200, {"transitions": found}

    def do_transition(self, request: RestRequest, account: Account, key: str) -> tuple[int, Any]:
        issue = self._issue(key)
        body = request.body or {}
        wanted = str((body.get("transition") or {}).get("id") or "")
        offered = issue.project.transitions_from(issue.status.id, issue.issue_type.id)
        target = next((s for s in offered if s.id == wanted), None)
        if target is None:
            raise Refused(
                400,
                [f"Transition id '{wanted}' is not valid for this issue."],
            )
        fields = dict(body.get("fields") or {})
        screen = issue.project.screens.get(target.id, frozenset())
        # A comment goes with any transition; another field only on its screen.
        named = [*fields, *(body.get("update") or {})]
        off_screen = sorted(n for n in named if n != "comment" and n not in screen)
        if off_screen:
            raise Refused(
                400,
                [],
                {
                    n: f"Field '{n}' cannot be set. It is not on the appropriate screen, "
                    "or unknown."
                    for n in off_screen
                },
            )
        resolution = (fields.pop("resolution", None) or {}).get("name")
        if resolution is not None and resolution not in RESOLUTIONS:
            raise Refused(400, [], {"resolution": f"Resolution '{resolution}' does not exist."})
        comments = []
        for name, operations in (body.get("update") or {}).items():
            if name != "comment":
                raise Refused(400, [], {name: "the fake Jira takes only comments on a transition"})
            for operation in operations:
                text = (operation.get("add") or {}).get("body")
                problem = adf_problem(text)
                if problem:
                    raise Refused(400, [], {"comment": problem})
                comments.append(text)
        if fields:
            apply_fields(self.site, issue, fields)
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
        problem = adf_problem(text)
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
            body.get("reconcileIssues") or [],
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
        reconcile: Sequence[int] = (),
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
        if len(reconcile) > MAX_RECONCILE:
            raise Refused(400, [f"reconcileIssues accepts at most {MAX_RECONCILE} ids."])
        try:
            found = parse_jql(jql).run(self.site, account.account_id)
        except JqlError as exc:
            raise Refused(400, [str(exc)]) from None
        # Jira's search index is eventually consistent: a new issue is found only after
        # the lag, unless named in reconcileIssues (read fresh).
        now, fresh = self.site.clock(), {str(i) for i in reconcile}
        found = [i for i in found if i.id in fresh or now - i.created >= self.site.search_lag]
        chosen = wanted([("fields", f) for f in fields], default="id")
        ids_only = chosen <= {"id", "key"}
        size = max(1, min(size, MAX_ID_PAGE if ids_only else MAX_PAGE))
        start = 0
        if token:
            try:
                start = int(token.removeprefix("page-"))
            except ValueError:
                raise Refused(400, ["The nextPageToken is not valid."]) from None
        page = found[start : start + size]
        answer: dict[str, Any] = {
            "issues": [issue_json(self.site, i, chosen, properties) for i in page],
            "isLast": start + size >= len(found),
        }
        if not answer["isLast"]:
            answer["nextPageToken"] = f"page-{start + size}"
        return 200, answer

    # -- an issue as JSON -------------------------------------------------------------------
