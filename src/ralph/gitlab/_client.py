"""The GitLab client: paced REST requests, bounded retries, no blind resend of a POST.

Paths are the API's below ``/api/v4`` (``/projects/{id}/issues``); ``project_id`` writes
a project's path (``group/project``) as the ``{id}`` GitLab takes. A request that got no
answer (a dropped connection, a 5xx) is sent again after ``n²`` seconds, at most three
times, when sending it twice does no harm (GET, PUT, DELETE: GitLab's updates set
values). A POST creates something, so it is sent once: after such a failure it raises
:class:`GitLabAmbiguous` and the caller looks before it writes again. A 429 means GitLab
refused the request before running it, so any request waits its ``Retry-After``
(bounded) and goes again, at most five times. The token is registered with
``ralph._secrets``: no message or log keeps it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from ralph._debuglog import debug_enabled, record_event
from ralph._rest_http import HttpsRequester, Reply, RestRequest, RestTransport, TransportFailure
from ralph._secrets import redact, register_secret
from ralph.errors import ConfigError
from ralph.gitlab._classify import FALLBACK_WAIT, Classified, ResponseKind, classify
from ralph.gitlab._errors import (
    GitLabAmbiguous,
    GitLabAuthError,
    GitLabError,
    GitLabInvalid,
    GitLabNotFound,
    GitLabRateLimited,
    GitLabUnavailable,
)
from ralph.gitlab._pacer import GitLabPacer

__all__ = [
    "API_ROOT",
    "DEFAULT_URL",
    "MAX_PER_PAGE",
    "TOKEN_VARIABLES",
    "GitLabClient",
    "https_transport",
    "project_id",
    "token_from_env",
]

logger = logging.getLogger(__name__)

DEFAULT_URL = "https://gitlab.com"
API_ROOT = "/api/v4"
#: GitLab's documented page limit: a larger ``per_page`` is cut to 100 without a word.
MAX_PER_PAGE = 100
#: The most pages one listing reads: a cursor that never ends is a fault, not a size.
MAX_PAGES = 10_000
#: Where the token is read, first found wins (never from ralph.toml).
TOKEN_VARIABLES = ("RALPH_GITLAB_TOKEN", "GITLAB_TOKEN")
#: Methods whose second sending changes nothing GitLab keeps.
_REPEATABLE = {"GET", "HEAD", "PUT", "DELETE"}

Query = Sequence[tuple[str, str]]


def project_id(path_or_id: str | int) -> str:
    """A project's ``{id}`` in a URL: its number, or its path URL-encoded whole
    (``group/sub/project`` -> ``group%2Fsub%2Fproject``)."""
    return quote(str(path_or_id).strip("/"), safe="")


def token_from_env(environ: Mapping[str, str] | None = None) -> str:
    """The access token from the environment, or a ConfigError saying where to put one."""
    env = os.environ if environ is None else environ
    for name in TOKEN_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            register_secret(value)
            return value
    raise ConfigError(
        "no GitLab token: set RALPH_GITLAB_TOKEN (or GITLAB_TOKEN) to a personal or project "
        "access token with the api scope"
    )


def https_transport(url: str = DEFAULT_URL, *, timeout: float = 30.0) -> HttpsRequester:
    """GitLab at ``url`` (gitlab.com or a self-managed instance) over HTTPS."""
    return HttpsRequester(url.rstrip("/"), {"User-Agent": "ralph"}, timeout=timeout)


class GitLabClient:
    MAX_RETRIES = 3
    MAX_RATE_LIMITED = 5

    def __init__(
        self,
        transport: RestTransport,
        token: str,
        *,
        pacer: GitLabPacer | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        register_secret(token)
        self.transport = transport
        self._token = token
        self._clock = clock
        self._sleep = sleep
        self.pacer = pacer or GitLabPacer(clock=clock, sleep=sleep)
        #: Writes this client has sent (or tried to): what it read before may be stale.
        self.writes = 0
        #: Requests sent, retries included (the benchmarks read it).
        self.requests = 0

    def close(self) -> None:
        self.transport.close()

    # -- the public calls -----------------------------------------------------------------

    def request(self, method: str, path: str, *, query: Query = (), body: Any = None) -> Any:
        """The decoded body of ``method path`` (below ``/api/v4``), waited out while
        rate limited, retried while it may be repeated; a GitLabError otherwise."""
        return self._run(method.upper(), path, query, body).body

    def send(self, method: str, path: str, *, query: Query = (), body: Any = None) -> Classified:
        """One paced request and its classified answer, nothing retried: for a caller
        that decides itself what a failure means (reconciling a write)."""
        return self._send(RestRequest(method.upper(), _api(path), tuple(query), body))

    def pages(self, path: str, query: Query = (), *, per_page: int = MAX_PER_PAGE) -> Iterator[Any]:
        """Every item of a list, page after page: offset pages by ``x-next-page``, keyset
        pages by the ``Link`` header's ``rel="next"`` (whichever GitLab gives)."""
        if not 1 <= per_page <= MAX_PER_PAGE:
            raise ValueError(f"per_page must be 1..{MAX_PER_PAGE}, not {per_page}")
        current: list[tuple[str, str]] = [(k, v) for k, v in query if k not in ("per_page", "page")]
        current.append(("per_page", str(per_page)))
        api_path = path
        seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
        while True:
            key = (api_path, tuple(current))
            if key in seen:
                raise GitLabError(f"GitLab {path}: the next page repeats one already read")
            seen.add(key)
            outcome = self._run("GET", api_path, current, None)
            if not isinstance(outcome.body, list):
                raise GitLabError(
                    f"GitLab {path}: expected a list, got {type(outcome.body).__name__}"
                )
            yield from outcome.body
            if not outcome.body:
                return
            if len(seen) >= MAX_PAGES:
                raise GitLabError(f"GitLab {path}: more than {MAX_PAGES} pages; stopped reading")
            headers = outcome.headers or {}
            following = _next_link(headers.get("link", ""))
            if following is not None:
                api_path, current = following
                continue
            next_page = headers.get("x-next-page", "").strip()
            if not next_page:
                return
            current = [(k, v) for k, v in current if k != "page"] + [("page", next_page)]

    def user(self) -> dict[str, Any]:
        """Who the token acts as (id, username, name)."""
        found: dict[str, Any] = self.request("GET", "/user")
        return found

    # -- one request, with its waits and retries ---------------------------------------------

    def _send(self, request: RestRequest) -> Classified:
        if request.method != "GET":
            self.writes += 1
        self.requests += 1
        sent = RestRequest(
            request.method,
            request.path,
            request.query,
            request.body,
            {**request.headers, "PRIVATE-TOKEN": self._token},
        )
        with self.pacer.slot():
            started = time.monotonic()
            try:
                reply = self.transport.send(sent)
            except TransportFailure as exc:
                outcome = Classified(ResponseKind.INDETERMINATE, message=redact(str(exc)))
                if debug_enabled():
                    _record(request, started, outcome, None)
                return outcome
        self.pacer.observe(reply.headers)
        outcome = classify(reply, self._clock())
        if debug_enabled():
            _record(request, started, outcome, reply)
        return outcome

    def _run(self, method: str, path: str, query: Query, body: Any) -> Classified:
        request = RestRequest(method, _api(path), tuple(query), body)
        failures = 0
        limited = 0
        while True:
            outcome = self._send(request)
            kind = outcome.kind
            if kind is ResponseKind.OK:
                return outcome
            if kind is ResponseKind.RATE_LIMITED:
                limited += 1
                if limited > self.MAX_RATE_LIMITED:
                    raise _error(request, outcome, GitLabRateLimited, "kept rate limiting")
                wait = outcome.wait
                if wait is None:
                    wait = FALLBACK_WAIT * 2 ** (limited - 1)
                self.pacer.pause(wait, outcome.message or "rate limited")
                continue
            if kind is ResponseKind.INDETERMINATE:
                logger.warning(
                    "gitlab request failed",
                    extra={"method": method, "path": path, "failure": outcome.message},
                )
                if method not in _REPEATABLE:
                    raise GitLabAmbiguous(
                        redact(
                            f"GitLab {method} {path} got no clear answer ({outcome.message}) "
                            "and may have happened; not sending it again"
                        ),
                        method,
                        path,
                        body,
                    )
                failures += 1
                if failures > self.MAX_RETRIES:
                    raise _error(request, outcome, GitLabUnavailable, "did not answer")
                self._sleep(float(failures**2))
                continue
            if kind in (ResponseKind.AUTH, ResponseKind.FORBIDDEN):
                raise _error(request, outcome, GitLabAuthError, "refused the token for")
            if kind is ResponseKind.NOT_FOUND:
                raise _error(request, outcome, GitLabNotFound, "does not know")
            raise _error(request, outcome, GitLabInvalid, "refused")


def _api(path: str) -> str:
    return path if path.startswith(API_ROOT + "/") else API_ROOT + "/" + path.lstrip("/")


def _next_link(link: str) -> tuple[str, list[tuple[str, str]]] | None:
    """The path (below /api/v4) and query of a Link header's ``rel="next"``."""
    for part in link.split(","):
        if 'rel="next"' not in part or "<" not in part:
            continue
        url = urlsplit(part[part.index("<") + 1 : part.index(">")])
        path = url.path
        if API_ROOT in path:
            path = path[path.index(API_ROOT) + len(API_ROOT) :]
        return path, parse_qsl(url.query, keep_blank_values=True)
    return None


def _error(
    request: RestRequest, outcome: Classified, kind: type[GitLabError], verb: str
) -> GitLabError:
    where = request.path.removeprefix(API_ROOT)
    error = kind(redact(f"GitLab {verb} {request.method} {where}: {outcome.message}"))
    error.status = outcome.status
    error.reason = redact(outcome.message)
    return error


def _record(request: RestRequest, started: float, outcome: Classified, reply: Reply | None) -> None:
    """One REST request in the debug log (which redacts every string it writes)."""
    fields: dict[str, Any] = {
        "service": "gitlab",
        "method": request.method,
        "path": request.path,
        "durationMs": round((time.monotonic() - started) * 1000),
        "status": reply.status if reply is not None else 0,
        "ok": outcome.kind is ResponseKind.OK,
        "outcome": outcome.kind.value,
    }
    for header in ("ratelimit-remaining", "ratelimit-limit", "ratelimit-reset"):
        value = reply.headers.get(header) if reply is not None else None
        if value is not None:
            fields[header] = value
    if outcome.kind is not ResponseKind.OK:
        fields["error"] = outcome.message or outcome.kind.value
    record_event("rest", **fields)
