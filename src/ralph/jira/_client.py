"""The Jira client: paced requests, bounded retries of reads, no blind resend of writes.

A read (a GET, or a JQL search sent as a POST) that got no answer (a dropped
connection, a 5xx) is asked again after ``n²`` seconds, or after the ``Retry-After`` a
503 names, at most three times. A write is sent once: after such a failure it raises
:class:`JiraAmbiguous` (it may have been applied) and the caller reconciles. A 429
means Jira refused the request before running it, so reads and writes alike wait out
``Retry-After`` (bounded) and go again, at most five times.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ralph._debuglog import debug_enabled, record_event
from ralph._rest_http import RestRequest, RestTransport, TransportFailure
from ralph._secrets import redact
from ralph.jira._classify import FALLBACK_WAIT, Classified, ResponseKind, classify_reply
from ralph.jira._errors import (
    JiraAmbiguous,
    JiraAuthError,
    JiraError,
    JiraInvalid,
    JiraNotFound,
    JiraRateLimited,
    JiraUnavailable,
)
from ralph.jira._pacer import JiraPacer

__all__ = ["MAX_RECONCILE", "SEARCH_PAGE", "JiraClient"]

logger = logging.getLogger(__name__)

API = "/rest/api/3"
#: Jira returns at most 100 issues a page when fields other than id and key are asked.
SEARCH_PAGE = 100
#: The most pages one search reads (a million issues at a hundred a page): a page token
#: that never ends is Jira's fault, not a project's size.
MAX_SEARCH_PAGES = 10_000
#: The most issue ids a search reconciles (``reconcileIssues``).
MAX_RECONCILE = 50
_CHECK_CREDENTIALS = (
    "; check the API token in RALPH_JIRA_TOKEN and the email in ralph.toml's [jira]"
)
#: Paths a POST only reads from.
_READ_POSTS = frozenset({f"{API}/search/jql"})

Query = Sequence[tuple[str, str]]


class JiraClient:
    MAX_RETRIES = 3
    MAX_RATE_LIMITED = 5

    def __init__(
        self,
        transport: RestTransport,
        *,
        pacer: JiraPacer | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.transport = transport
        self._clock = clock
        #: How this client waits (a fake clock's in tests); callers that wait use it too.
        self.sleep = sleep
        self.pacer = pacer or JiraPacer(clock=clock, sleep=sleep)
        #: Requests sent, and writes among them (what it read before may be stale).
        self.requests = 0
        self.writes = 0
        #: Inside ``impatient``: the seconds of 429 pauses still allowed, None outside.
        self._patience: float | None = None

    def close(self) -> None:
        self.transport.close()

    @contextmanager
    def impatient(self, seconds: float) -> Iterator[None]:
        """Requests a person waits for at the terminal (``ralph init``, ``ralph doctor``):
        429 pauses of at most ``seconds`` in all, then JiraRateLimited saying why (a run
        waits out Jira's hourly quotas instead)."""
        before, self._patience = self._patience, seconds
        try:
            yield
        finally:
            self._patience = before

    # -- the calls --------------------------------------------------------------------------

    def get(self, path: str, query: Query = ()) -> Any:
        return self.run(RestRequest("GET", API + path, tuple(query)))

    def post(self, path: str, body: Any, query: Query = ()) -> Any:
        return self.run(RestRequest("POST", API + path, tuple(query), body))

    def put(self, path: str, body: Any, query: Query = ()) -> Any:
        return self.run(RestRequest("PUT", API + path, tuple(query), body))

    def delete(self, path: str, query: Query = ()) -> Any:
        return self.run(RestRequest("DELETE", API + path, tuple(query)))

    def myself(self) -> dict[str, Any]:
        """Who the credentials act as (accountId, displayName, emailAddress)."""
        found: dict[str, Any] = self.get("/myself")
        return found

    def search(
        self,
        jql: str,
        fields: Sequence[str],
        *,
        page: int = SEARCH_PAGE,
        properties: Sequence[str] = (),
        reconcile: Sequence[int] = (),
    ) -> Iterator[dict[str, Any]]:
        """The issues ``jql`` finds, page after page (``nextPageToken``), with
        ``fields`` and the issue ``properties`` named. Jira's search index lags behind
        its writes: ``reconcile`` names issue ids just written, read fresh (the last
        ``MAX_RECONCILE``, Jira's most)."""
        token: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_SEARCH_PAGES):
            body: dict[str, Any] = {"jql": jql, "fields": list(fields), "maxResults": page}
            if properties:
                body["properties"] = list(properties)
            if reconcile:
                body["reconcileIssues"] = [int(i) for i in reconcile][-MAX_RECONCILE:]
            if token:
                body["nextPageToken"] = token
            answer = self.post("/search/jql", body) or {}
            yield from answer.get("issues") or []
            following = answer.get("nextPageToken")
            if answer.get("isLast", not following) or not following:
                return
            if following in seen:
                raise JiraError("Jira's search page token came round again; run the command again")
            seen.add(following)
            token = following
        raise JiraError(
            f"Jira's search went on for more than {MAX_SEARCH_PAGES} pages; narrow the query"
        )

    # -- one request, with its waits and retries --------------------------------------------

    def send(self, request: RestRequest) -> Classified:
        """One paced request and its classified answer, nothing retried."""
        self.requests += 1
        if not _reads(request):
            self.writes += 1
        with self.pacer.slot():
            started = time.monotonic()
            try:
                reply = self.transport.send(request)
            except TransportFailure as exc:
                outcome = Classified(ResponseKind.INDETERMINATE, message=redact(str(exc)))
                _record(request, started, outcome)
                return outcome
        self.pacer.observe(reply.headers)
        outcome = classify_reply(reply, self._clock())
        _record(request, started, outcome)
        return outcome

    def run(self, request: RestRequest) -> Any:
        """The answer's body, after the waits and retries the request allows."""
        failures = limited = 0
        while True:
            outcome = self.send(request)
            kind = outcome.kind
            if kind is ResponseKind.OK:
                return outcome.body
            if kind is ResponseKind.RATE_LIMITED:
                limited += 1
                if limited > self.MAX_RATE_LIMITED:
                    raise _error(request, outcome, JiraRateLimited, "kept rate limiting")
                wait = outcome.wait
                if wait is None:
                    wait = FALLBACK_WAIT * 2 ** (limited - 1)
                if self._patience is not None:
                    if wait > self._patience:
                        refused = JiraRateLimited(
                            f"Jira is rate limiting this account and asks for a {wait:.0f} s "
                            "wait, longer than a command at the terminal waits; run it again "
                            "in a few minutes"
                        )
                        refused.status = outcome.status
                        raise refused
                    self._patience -= wait
                self.pacer.pause(wait, outcome.message)
                continue
            if kind is ResponseKind.INDETERMINATE:
                logger.warning(
                    "jira request failed",
                    extra={
                        "request": f"{request.method} {request.path}",
                        "failure": outcome.message,
                    },
                )
                if not _reads(request):
                    raise JiraAmbiguous(
                        redact(
                            f"Jira got no clear answer to {request.method} {request.path} "
                            f"({outcome.message}) and it may have happened; not sending it again"
                        ),
                        request.method,
                        request.path,
                    )
                failures += 1
                if failures > self.MAX_RETRIES:
                    raise _error(request, outcome, JiraUnavailable, "did not answer")
                if outcome.wait is not None:
                    self.pacer.pause(outcome.wait, outcome.message)
                else:
                    self.sleep(float(failures**2))
                continue
            if kind is ResponseKind.AUTH:
                error = _error(request, outcome, JiraAuthError, "refused the credentials for")
                # What a person fixes: the token (never shown) or the account it is for.
                error.args = (f"{str(error).rstrip('.')}{_CHECK_CREDENTIALS}",)
                raise error
            if kind is ResponseKind.FORBIDDEN:
                raise _error(request, outcome, JiraAuthError, "refused the credentials for")
            if kind is ResponseKind.NOT_FOUND:
                raise _error(request, outcome, JiraNotFound, "found nothing at")
            raise _error(request, outcome, JiraInvalid, "refused")


def _reads(request: RestRequest) -> bool:
    return request.method == "GET" or (request.method == "POST" and request.path in _READ_POSTS)


def _error(
    request: RestRequest, outcome: Classified, kind: type[JiraError], verb: str
) -> JiraError:
    error = kind(
        redact(
            f"Jira {verb} {request.method} {request.path}: {outcome.message or outcome.kind.value}"
        )
    )
    error.reason = redact(outcome.message)
    error.status = outcome.status
    return error


def _record(request: RestRequest, started: float, outcome: Classified) -> None:
    """One REST request in the debug log (which redacts every string it writes)."""
    if not debug_enabled():
        return
    fields: dict[str, Any] = {
        "service": "jira",
        "operation": f"{request.method} {request.path}",
        "durationMs": round((time.monotonic() - started) * 1000),
        "status": outcome.status,
        "ok": outcome.kind is ResponseKind.OK,
        "outcome": outcome.kind.value,
    }
    if outcome.kind is not ResponseKind.OK:
        fields["error"] = outcome.message or outcome.kind.value
    record_event("rest", **fields)
