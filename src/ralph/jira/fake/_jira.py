"""FakeJira: a Jira Cloud site in memory that checks every request against Jira's
published OpenAPI document before answering (a 400 in Jira's error shape for what the
document forbids), answers the operations Ralph uses as Jira does, enforces Jira's
documented limits (a search page of at most 100 issues with fields, 5,000 with ids
only; 255-character summaries; 32,767-character text; labels without spaces; a burst
limit answered 429 with ``Retry-After``), can be scripted to fail, and is reachable in
memory (it is a RestTransport) or over HTTP on 127.0.0.1 for other processes."""

from __future__ import annotations

import base64
import functools
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph._graphql_http import Reply, TransportFailure
from ralph._openapi import OpenApiDocument
from ralph._published import PathLike, PublishedDefinition
from ralph._rest_http import RestRequest, serve_rest
from ralph.jira.fake._edits import Refused
from ralph.jira.fake._model import (
    DEFAULT_STATUSES,
    ISSUE_TYPES,
    Account,
    Project,
    Site,
    Status,
)
from ralph.jira.fake._routes import Routes

__all__ = ["JIRA_OPENAPI", "FakeJira", "JiraRequest", "ScriptedFault", "jira_openapi"]

#: Jira's document is Atlassian's (Apache 2.0), not shipped with Ralph: the fake is
#: pointed at a copy.
JIRA_OPENAPI = PublishedDefinition(
    needed_by="the fake Jira",
    what="Jira Cloud's published OpenAPI document (REST API v3)",
    variable="RALPH_JIRA_OPENAPI",
    origin="https://developer.atlassian.com/cloud/jira/platform/swagger-v3.v3.json",
)


def jira_openapi(path: PathLike | None = None) -> OpenApiDocument:
    """Jira's published OpenAPI document, from ``path`` or ``$RALPH_JIRA_OPENAPI``."""
    return _jira_openapi(JIRA_OPENAPI.path(path))


@functools.cache
def _jira_openapi(path: Path) -> OpenApiDocument:
    try:
        document = OpenApiDocument.load(path)
    except ValueError as exc:
        raise JIRA_OPENAPI.unusable(path, str(exc)) from exc
    if "/rest/api/3/search/jql" not in document.spec.get("paths", {}):
        raise JIRA_OPENAPI.unusable(path, "it has no /rest/api/3/search/jql")
    return document


@dataclass(frozen=True)
class ScriptedFault:
    """One scripted misbehaviour, used by the first request it matches.

    ``match``: ``METHOD /path-prefix`` (``POST /rest/api/3/issue``), ``read``, ``write``
    or ``any``. ``after``: run the request first, then answer with this fault (the write
    happened, the client cannot know). ``transport``: drop the connection instead."""

    match: str = "any"
    status: int = 500
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    after: bool = False
    transport: bool = False

    def matches(self, request: RestRequest) -> bool:
        reads = request.method == "GET" or request.path.endswith("/search/jql")
        if self.match in ("any", "read" if reads else "write"):
            return True
        method, _, prefix = self.match.partition(" ")
        return request.method == method and request.path.startswith(prefix)

    @classmethod
    def server_error(cls, match: str = "any", status: int = 500) -> ScriptedFault:
        return cls(match, status=status, body={"errorMessages": ["Internal server error"]})

    @classmethod
    def dropped(cls, match: str = "any") -> ScriptedFault:
        return cls(match, transport=True)

    @classmethod
    def dropped_after_write(cls, match: str = "write") -> ScriptedFault:
        return cls(match, after=True, transport=True)

    @classmethod
    def rate_limited(cls, match: str = "any", *, retry_after: int = 5) -> ScriptedFault:
        """Jira's 429 with ``Retry-After`` seconds (and its reason header)."""
        return cls(
            match,
            status=429,
            headers={"Retry-After": str(retry_after), "RateLimit-Reason": "jira-burst-based"},
            body={"errorMessages": ["Rate limit exceeded."]},
        )


@dataclass(frozen=True)
class JiraRequest:
    method: str
    path: str
    at: float
    status: int


class FakeJira:
    """A Jira Cloud site for tests and demos. ``send`` is the RestTransport (as the
    first account); ``session`` another account's; ``serve`` puts it on HTTP, where the
    Basic credentials are checked as Jira does."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        openapi: PathLike | None = None,
        burst_per_second: int | None = None,
        search_lag: float = 0.0,
    ) -> None:
        """``burst_per_second``: requests an account may make a second before a 429
        (Jira's burst limit; None: no limit). ``search_lag``: seconds before a new issue
        is found by a search that does not name it in ``reconcileIssues``."""
        self.clock = clock
        self.document = jira_openapi(openapi)
        self.site = Site(clock)
        self.site.search_lag = search_lag
        self.routes = Routes(self.site)
        self.burst_per_second = burst_per_second
        self.faults: list[ScriptedFault] = []
        self.requests: list[JiraRequest] = []
        #: Exceptions raised inside the routes: bugs of the fake, which tests should see.
        self.internal_errors: list[BaseException] = []
        self._burst: dict[str, list[float]] = {}
        self._meter = threading.Lock()

    # -- seeding the site -------------------------------------------------------------------

    def add_account(
        self, email: str, token: str, display_name: str, *, time_zone: str = "UTC"
    ) -> Account:
        """An account; ``time_zone`` (IANA) is the zone its JQL dates are read in."""
        with self.site.lock:
            account = Account(f"acc-{self.site.new_id()}", email, display_name, token, time_zone)
            self.site.accounts.append(account)
            return account

    def add_project(
        self,
        key: str,
        name: str = "",
        statuses: tuple[tuple[str, str], ...] = DEFAULT_STATUSES,
    ) -> Project:
        """A project with ``statuses`` (name, category key: new, indeterminate, done)
        and a workflow that moves any status to any other."""
        with self.site.lock:
            project = Project(self.site.new_id(), key.upper(), name or key.title())
            for status_name, category in statuses:
                project.statuses.append(Status(self.site.new_id(), status_name, category))
            self.site.projects[project.key] = project
            return project

    def add_status(self, key: str, name: str, category: str) -> Status:
        with self.site.lock:
            project = self.site.projects[key.upper()]
            status = Status(self.site.new_id(), name, category)
            project.statuses.append(status)
            return status

    def remove_transition(
        self, key: str, to: str, *, source: str = "*", issue_type: str = "*"
    ) -> None:
        """The workflow of project ``key`` lacks the move to status ``to`` (from
        ``source``, a status name, or from everywhere), for ``issue_type`` (a name) or
        for every type."""
        with self.site.lock:
            project = self.site.projects[key.upper()]
            target = project.status(to)
            origin = "*" if source == "*" else project.status(source)
            kind = next((t.id for t in ISSUE_TYPES if t.name == issue_type), "*")
            if target is None or origin is None:
                raise KeyError(f"no such status in {key}")
            origin_id = "*" if isinstance(origin, str) else origin.id
            project.missing.add((kind, origin_id, target.id))

    def add_screen(self, key: str, to: str, fields: tuple[str, ...] = ("resolution",)) -> None:
        """The transitions to status ``to`` of project ``key`` get a screen with
        ``fields`` (a field not on a transition's screen is refused, as Jira does)."""
        with self.site.lock:
            project = self.site.projects[key.upper()]
            target = project.status(to)
            if target is None:
                raise KeyError(f"no such status in {key}")
            project.screens[target.id] = frozenset(fields)

    # -- the transport ----------------------------------------------------------------------

    def send(self, request: RestRequest) -> Reply:
        if not self.site.accounts:
            raise RuntimeError("FakeJira has no account: add_account first")
        return self._answer(request, self.site.accounts[0])

    def session(self, email: str, token: str) -> _Session:
        """The transport of another account (by its credentials)."""
        return _Session(self, _basic(email, token))

    def close(self) -> None:
        return None

    def answer(self, request: RestRequest, headers: Mapping[str, str]) -> Reply:
        """One HTTP request: the Basic credentials checked, then answered."""
        account = self._account(headers.get("authorization", ""))
        if account is None:
            reply = Reply(
                401,
                {},
                {
                    "errorMessages": ["Client must be authenticated to access this resource."],
                    "errors": {},
                },
            )
            self._log(request, reply.status)
            return reply
        return self._answer(request, account)

    @contextmanager
    def serve(self, port: int = 0) -> Iterator[str]:
        """Serve on 127.0.0.1 (``port``; 0: any free one); yields the site's URL."""
        # ``answer`` looked up per request, so a test may wrap it once serving.
        with serve_rest(lambda r, h: self.answer(r, h), "fake-jira", port=port) as url:
            with self.site.lock:
                self.site.url = url.rstrip("/")
            yield url

    def _account(self, authorization: str) -> Account | None:
        with self.site.lock:
            for account in self.site.accounts:
                if authorization == _basic(account.email, account.token):
                    return account
        return None

    def _answer(self, request: RestRequest, account: Account) -> Reply:
        fault = self._fault(request)
        if fault is not None and not fault.after:
            return self._faulted(request, fault)
        limited = self._burst_limited(account)
        if limited is not None:
            self._log(request, limited.status)
            return limited
        problems = self.document.problems(request.method, request.path, request.query, request.body)
        if problems:
            reply = Reply(400, {}, {"errorMessages": problems, "errors": {}})
        else:
            try:
                with self.site.lock:
                    status, body = self.routes.handle(request, account)
                reply = Reply(status, self._budget_headers(account), body)
            except Refused as exc:
                reply = Reply(exc.status, {}, exc.body())
            except Exception as exc:  # a bug of the fake: answered 500, kept for the tests
                self.internal_errors.append(exc)
                reply = Reply(500, {}, {"errorMessages": [f"fake Jira bug: {exc}"], "errors": {}})
        if fault is not None:
            return self._faulted(request, fault)
        self._log(request, reply.status)
        return reply

    # -- faults and limits ------------------------------------------------------------------

    def _fault(self, request: RestRequest) -> ScriptedFault | None:
        with self._meter:
            for index, fault in enumerate(self.faults):
                if fault.matches(request):
                    return self.faults.pop(index)
        return None

    def _faulted(self, request: RestRequest, fault: ScriptedFault) -> Reply:
        self._log(request, 0 if fault.transport else fault.status)
        if fault.transport:
            raise TransportFailure("the connection was reset (scripted)")
        return Reply(fault.status, {k.lower(): v for k, v in fault.headers.items()}, fault.body)

    def _burst_limited(self, account: Account) -> Reply | None:
        if self.burst_per_second is None:
            return None
        now = self.clock()
        with self._meter:
            recent = [t for t in self._burst.get(account.account_id, []) if now - t < 1.0]
            if len(recent) >= self.burst_per_second:
                self._burst[account.account_id] = recent
                return Reply(
                    429,
                    {"retry-after": "1", "ratelimit-reason": "jira-burst-based"},
                    {"errorMessages": ["Rate limit exceeded."], "errors": {}},
                )
            recent.append(now)
            self._burst[account.account_id] = recent
        return None

    def _budget_headers(self, account: Account) -> dict[str, str]:
        if self.burst_per_second is None:
            return {}
        with self._meter:
            used = len(self._burst.get(account.account_id, []))
        remaining = max(self.burst_per_second - used, 0)
        headers = {
            "x-ratelimit-limit": str(self.burst_per_second),
            "x-ratelimit-remaining": str(remaining),
        }
        if remaining < self.burst_per_second / 5:
            headers["x-ratelimit-nearlimit"] = "true"
        return headers

    def _log(self, request: RestRequest, status: int) -> None:
        with self._meter:
            self.requests.append(JiraRequest(request.method, request.path, self.clock(), status))


class _Session:
    """Another account's transport onto the same fake."""

    def __init__(self, fake: FakeJira, authorization: str) -> None:
        self._fake = fake
        self._authorization = authorization

    def send(self, request: RestRequest) -> Reply:
        return self._fake.answer(request, {"authorization": self._authorization})

    def close(self) -> None:
        return None


def _basic(email: str, token: str) -> str:
    return "Basic " + base64.b64encode(f"{email}:{token}".encode()).decode()
