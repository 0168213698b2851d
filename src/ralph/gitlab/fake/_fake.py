"""FakeGitLab: GitLab's REST API (v4) in memory for tests and demos. Every request is
checked against GitLab's published OpenAPI document before anything answers it (an
unknown path, parameter or body field is refused with a 400, as GitLab's Grape API
does), then routed to the handler registered for it. It authenticates the
``PRIVATE-TOKEN`` header, counts each user's requests in GitLab.com's one-minute windows
(``RateLimit-*`` headers on every answer, 429 with ``Retry-After`` past the limit),
answers errors in GitLab's shape, and can be scripted to fail. It is a RestTransport
(in memory) and ``serve`` puts it on 127.0.0.1 for other processes."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path
from typing import Any

from ralph._openapi import OpenApiDocument
from ralph._published import PathLike, PublishedDefinition
from ralph._rest_http import Reply, RestRequest, TransportFailure, serve_rest
from ralph.gitlab.fake._missing import MISSING_PATHS
from ralph.gitlab.fake._missing_merge_requests import MISSING_MERGE_REQUEST_PATHS
from ralph.gitlab.fake._routes import Call, Fault, Routes, reply_of
from ralph.gitlab.fake._state import Project, State, User

__all__ = ["GITLAB_OPENAPI", "FakeGitLab", "Request", "ScriptedFault", "gitlab_document"]

#: GitLab's OpenAPI document is GitLab's, not shipped with Ralph: the fake is pointed at a copy.
GITLAB_OPENAPI = PublishedDefinition(
    needed_by="the fake GitLab",
    what="GitLab's REST API OpenAPI document",
    variable="RALPH_GITLAB_OPENAPI",
    origin=(
        "gitlab-openapi.yaml (GitLab's doc/api/openapi/openapi_v2.yaml converted to "
        "OpenAPI 3, as in github.com/gkze/curator specs/gitlab-openapi3.yaml)"
    ),
)

#: GitLab.com's limit on authenticated API requests, per user and minute.
REQUESTS_PER_MINUTE = 2000
WINDOW = 60.0


def gitlab_document(path: PathLike | None = None) -> OpenApiDocument:
    """GitLab's published document (from ``path`` or ``$RALPH_GITLAB_OPENAPI``) with the
    endpoints it lacks added (``_missing``); loaded once per process (~2 s)."""
    return _document(GITLAB_OPENAPI.path(path))


@functools.cache
def _document(path: Path) -> OpenApiDocument:
    try:
        loaded = OpenApiDocument.load(path)
        paths = loaded.spec["paths"]
    except Exception as exc:  # YAML errors, a file that is not a mapping...
        raise GITLAB_OPENAPI.unusable(path, str(exc)) from exc
    missing = {**MISSING_PATHS, **MISSING_MERGE_REQUEST_PATHS}
    added = {k: v for k, v in missing.items() if k not in paths}
    return OpenApiDocument({**loaded.spec, "paths": {**paths, **added}})


@dataclass(frozen=True)
class ScriptedFault:
    """One scripted misbehaviour, used by the first request it matches.

    ``match``: ``any``, a method (``POST``), or ``METHOD /path`` with the path as sent
    (``POST /api/v4/projects/1/issues``). ``after``: run the request first, then answer
    with this fault (the write happened, the client cannot know). ``transport``: drop
    the connection instead of answering."""

    match: str = "any"
    status: int = 500
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    after: bool = False
    transport: bool = False

    def matches(self, request: RestRequest) -> bool:
        return self.match in ("any", request.method, f"{request.method} {request.path}")

    @classmethod
    def server_error(cls, match: str = "any", status: int = 500) -> ScriptedFault:
        return cls(match, status=status, body={"message": "500 Internal Server Error"})

    @classmethod
    def dropped(cls, match: str = "any") -> ScriptedFault:
        """The connection drops before anything ran."""
        return cls(match, transport=True)

    @classmethod
    def dropped_after_write(cls, match: str = "POST") -> ScriptedFault:
        """The request runs, then the connection drops."""
        return cls(match, after=True, transport=True)

    @classmethod
    def rate_limited(cls, match: str = "any", *, retry_after: int = 1) -> ScriptedFault:
        """A 429 as GitLab's Rack::Attack gives it."""
        return cls(match, status=429, headers={"retry-after": str(retry_after)}, body="Retry later")


@dataclass(frozen=True)
class Request:
    """One request the fake got, and the status it answered (0: dropped)."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    body: Any
    at: float
    status: int


@dataclass
class _Window:
    start: float
    used: int = 0


class FakeGitLab:
    """A GitLab instance for tests and demos (see the module's docstring)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        openapi: PathLike | None = None,
        requests_per_minute: int = REQUESTS_PER_MINUTE,
        premium: bool = True,
        base_url: str = "https://gitlab.example.com",
    ) -> None:
        """``premium``: the tier's features (scoped labels one per scope, weights,
        blocking links); the Free tier has plain labels and ``relates_to`` links only."""
        self.clock = clock
        self.document = gitlab_document(openapi)
        self.state = State(clock)
        self.routes = Routes()
        self.requests_per_minute = requests_per_minute
        self.premium = premium
        self.base_url = base_url
        self.faults: list[ScriptedFault] = []
        self.requests: list[Request] = []
        #: Requests the published document refuses, with why: what a client got wrong.
        self.refused: list[tuple[str, list[str]]] = []
        #: Limits the client ran into that GitLab passes silently (a page over 100).
        self.warnings: list[str] = []
        #: Exceptions inside handlers, and valid requests no handler answers: the fake's
        #: gaps, which tests should see.
        self.internal_errors: list[BaseException] = []
        self._windows: dict[int, _Window] = {}
        self._meter = threading.Lock()
        from ralph.gitlab.fake import _issues, _merge_requests

        _issues.register(self.routes)
        _merge_requests.register(self.routes)

    # -- seeding ------------------------------------------------------------------------

    def add_user(self, username: str, name: str | None = None) -> User:
        with self.state.lock:
            user = User(self.state.new_id(), username, name or username.title())
            self.state.users.append(user)
            return user

    def add_token(self, token: str, user: User | str) -> User:
        """A personal (or project) access token acting as ``user`` (or a new user of
        that username)."""
        with self.state.lock:
            holder = self.add_user(user) if isinstance(user, str) else user
            self.state.tokens[token] = holder
            return holder

    def add_project(
        self,
        path: str,
        *,
        repository: Path | None = None,
        default_branch: str = "main",
        members: tuple[User, ...] = (),
    ) -> Project:
        """A project at ``group/name`` (groups as deep as given), with an optional real
        git repository for merge requests."""
        with self.state.lock:
            project = Project(
                self.state.new_id(),
                path.strip("/"),
                path.strip("/").rsplit("/", 1)[-1],
                default_branch,
                repository,
                members=list(members),
            )
            self.state.projects[project.id] = project
            return project

    def script(self, *faults: ScriptedFault) -> None:
        with self._meter:
            self.faults.extend(faults)

    def drain(self, token: str, remaining: int) -> None:
        """Leave ``remaining`` requests in the token's user's current window."""
        user = self.state.tokens[token]
        with self._meter:
            window = self._window(user)
            window.used = self.requests_per_minute - remaining

    # -- the RestTransport -----------------------------------------------------------------

    def send(self, request: RestRequest) -> Reply:
        status = 0
        try:
            reply = self._answer(request, {k.lower(): v for k, v in request.headers.items()})
            status = reply.status
            return reply
        finally:
            with self._meter:
                self.requests.append(
                    Request(
                        request.method,
                        request.path,
                        tuple(request.query),
                        request.body,
                        self.clock(),
                        status,
                    )
                )

    def close(self) -> None:
        """A transport's close: the instance stays for the next client."""

    @contextmanager
    def serve(self, port: int = 0) -> Iterator[str]:
        """This instance on http://127.0.0.1:``port`` for the ``with`` block; yields the
        base URL (the client adds ``/api/v4``)."""

        def answer(request: RestRequest, headers: Mapping[str, str]) -> Reply:
            return self.send(
                RestRequest(request.method, request.path, request.query, request.body, headers)
            )

        with serve_rest(answer, "fake-gitlab", port=port) as url:
            previous, self.base_url = self.base_url, url
            try:
                yield url
            finally:
                self.base_url = previous

    # -- answering ----------------------------------------------------------------------

    def _take_fault(self, request: RestRequest) -> ScriptedFault | None:
        with self._meter:
            for fault in self.faults:
                if fault.matches(request):
                    self.faults.remove(fault)
                    return fault
        return None

    def _answer(self, request: RestRequest, headers: Mapping[str, str]) -> Reply:
        fault = self._take_fault(request)
        if fault is not None and not fault.after:
            if fault.transport:
                raise TransportFailure("connection reset by the fake")
            return Reply(fault.status, dict(fault.headers), fault.body)
        user = self._user(headers)
        if user is None:
            return Reply(401, {}, {"message": "401 Unauthorized"})
        limited = self._spend(user)
        if limited is not None:
            return limited
        with self.state.lock:
            reply = self._route(request, user)
        reply = Reply(reply.status, {**self._rate_headers(user), **reply.headers}, reply.body)
        if fault is not None:
            if fault.transport:
                raise TransportFailure("connection reset by the fake after the request ran")
            return Reply(fault.status, dict(fault.headers), fault.body)
        return reply

    def _user(self, headers: Mapping[str, str]) -> User | None:
        token = headers.get("private-token", "")
        if not token and headers.get("authorization", "").startswith("Bearer "):
            token = headers["authorization"].removeprefix("Bearer ")
        return self.state.tokens.get(token) if token else None

    def _route(self, request: RestRequest, user: User) -> Reply:
        problems = self.document.problems(request.method, request.path, request.query, request.body)
        if problems:
            self.refused.append((f"{request.method} {request.path}", problems))
            if problems[0].startswith("no operation"):
                return Reply(404, {}, {"error": "404 Not Found"})
            return Reply(400, {}, {"error": "; ".join(problems)})
        found = self.routes.find(request.method, request.path)
        if found is None:
            gap = NotImplementedError(f"the fake answers no {request.method} {request.path}")
            self.internal_errors.append(gap)
            return Reply(404, {}, {"error": "404 Not Found"})
        handler, params = found
        call = Call(request, params, user, self)
        try:
            return reply_of(call, handler(call))
        except Fault as fault:
            return Reply(fault.status, {}, fault.body)
        except Exception as exc:  # a bug of the fake: answered as GitLab's 500, kept
            self.internal_errors.append(exc)
            return Reply(500, {}, {"message": "500 Internal Server Error"})

    # -- rate limits ------------------------------------------------------------------------

    def _window(self, user: User) -> _Window:
        now = self.clock()
        window = self._windows.get(user.id)
        if window is None or now >= window.start + WINDOW:
            # GitLab's windows are fixed: aligned on the minute.
            window = _Window(now - now % WINDOW)
            self._windows[user.id] = window
        return window

    def _spend(self, user: User) -> Reply | None:
        with self._meter:
            window = self._window(user)
            if window.used >= self.requests_per_minute:
                reset = window.start + WINDOW
                wait = max(int(reset - self.clock() + 0.999), 1)
                headers = {**self._rate_headers_of(window), "retry-after": str(wait)}
                return Reply(429, headers, "Retry later")
            window.used += 1
        return None

    def _rate_headers(self, user: User) -> dict[str, str]:
        with self._meter:
            return self._rate_headers_of(self._window(user))

    def _rate_headers_of(self, window: _Window) -> dict[str, str]:
        reset = window.start + WINDOW
        return {
            "ratelimit-name": "throttle_authenticated_api",
            "ratelimit-limit": str(self.requests_per_minute),
            "ratelimit-observed": str(window.used),
            "ratelimit-remaining": str(max(self.requests_per_minute - window.used, 0)),
            "ratelimit-reset": str(int(reset)),
            "ratelimit-resettime": formatdate(reset, usegmt=True),
        }
