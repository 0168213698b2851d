"""The Linear client: paced requests, bounded retries of reads, no blind resend of writes.

A read that got no answer (a dropped connection, a 5xx, Linear's internal error) is
asked again after ``n²`` seconds, at most three times. A mutation is sent once: after
such a failure it raises :class:`LinearAmbiguous` (it may have been applied) and the
caller reconciles, with ``send`` to see each answer classified if it wants to. A
RATELIMITED answer means Linear refused the request before running it, so reads and
writes alike wait for the spent budget's reset (bounded) and go again, at most five
times. The API key is registered with ``ralph._secrets``: no message or log keeps it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ralph._debuglog import debug_enabled, record_event
from ralph._graphql_http import Reply, Transport, TransportFailure
from ralph._secrets import redact, register_secret
from ralph.linear._classify import FALLBACK_WAIT, Classified, ResponseKind, classify_response
from ralph.linear._errors import (
    LinearAmbiguous,
    LinearAuthError,
    LinearError,
    LinearInvalid,
    LinearNotFound,
    LinearRateLimited,
    LinearUnavailable,
)
from ralph.linear._pacer import LinearPacer
from ralph.linear.queries import VIEWER, LinearDocument

__all__ = ["LinearClient"]

logger = logging.getLogger(__name__)


class LinearClient:
    MAX_RETRIES = 3
    MAX_RATE_LIMITED = 5

    def __init__(
        self,
        transport: Transport,
        token: str,
        *,
        pacer: LinearPacer | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        register_secret(token)
        self.transport = transport
        self._token = token
        self._clock = clock
        self._sleep = sleep
        self.pacer = pacer or LinearPacer(clock=clock, sleep=sleep)
        #: Writes this client has sent (or tried to): what it read before may be stale.
        self.writes = 0

    def close(self) -> None:
        self.transport.close()

    # -- the public calls -----------------------------------------------------------------

    def query(
        self, document: LinearDocument, variables: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The data of a read, retried while Linear does not answer or rate limits."""
        if document.mutation:
            raise ValueError(f"{document.name} is a mutation; use mutate()")
        return self._run(document, variables or {})

    def mutate(self, document: LinearDocument, variables: Mapping[str, Any]) -> dict[str, Any]:
        """The data of a write, sent once (again only after a RATELIMITED refusal).
        LinearAmbiguous when it may or may not have happened."""
        if not document.mutation:
            raise ValueError(f"{document.name} is a query; use query()")
        return self._run(document, variables)

    def send(self, document: LinearDocument, variables: Mapping[str, Any]) -> Classified:
        """One paced request and its classified answer, nothing retried: for a caller
        that decides itself what a failure means (reconciling a write)."""
        return self._send(document, {"query": document.text, "variables": dict(variables)})

    def pages(
        self,
        document: LinearDocument,
        variables: Mapping[str, Any],
        path: Sequence[str],
        *,
        after: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The nodes of the connection at ``path``, page after page (``$first`` is the
        document's page, ``$after`` the last page's ``endCursor``)."""
        if not document.page_size:
            raise ValueError(f"{document.name} is not paged")
        while True:
            data = self.query(document, {**variables, "first": document.page_size, "after": after})
            connection: Any = data
            for key in path:
                connection = connection.get(key) if isinstance(connection, dict) else None
            if connection is None:
                raise LinearNotFound(f"{document.name}: nothing at {'.'.join(path)}")
            yield from connection["nodes"]
            info = connection["pageInfo"]
            if not info["hasNextPage"]:
                return
            if not info["endCursor"] or info["endCursor"] == after:
                raise LinearError(f"{document.name}: the page cursor did not advance")
            after = info["endCursor"]

    def viewer(self) -> dict[str, Any]:
        """Who the API key acts as (id, name, displayName, email)."""
        viewer: dict[str, Any] = self.query(VIEWER)["viewer"]
        return viewer

    # -- one request, with its waits and retries ---------------------------------------------

    def _send(self, document: LinearDocument, payload: Mapping[str, Any]) -> Classified:
        if document.mutation:
            self.writes += 1
        with self.pacer.slot(document.name):
            started = time.monotonic()
            try:
                reply = self.transport.post(payload, self._token)
            except TransportFailure as exc:
                outcome = Classified(ResponseKind.INDETERMINATE, message=redact(str(exc)))
                if debug_enabled():
                    _record(document, payload, started, outcome, None)
                return outcome
        self.pacer.observe(reply.headers, document.name)
        outcome = classify_response(reply, self._clock())
        if debug_enabled():
            _record(document, payload, started, outcome, reply)
        return outcome

    def _run(self, document: LinearDocument, variables: Mapping[str, Any]) -> dict[str, Any]:
        payload = {"query": document.text, "variables": dict(variables)}
        failures = 0
        limited = 0
        while True:
            outcome = self._send(document, payload)
            kind = outcome.kind
            if kind is ResponseKind.OK:
                return outcome.data or {}
            if kind is ResponseKind.RATE_LIMITED:
                limited += 1
                if limited > self.MAX_RATE_LIMITED:
                    raise _error(document, outcome, LinearRateLimited, "kept rate limiting")
                wait = outcome.wait
                if wait is None:  # a minute, doubling while the limit lasts
                    wait = FALLBACK_WAIT * 2 ** (limited - 1)
                self.pacer.pause(wait, outcome.message or "rate limited")
                continue
            if kind is ResponseKind.INDETERMINATE:
                logger.warning(
                    "linear request failed",
                    extra={"document": document.name, "failure": outcome.message},
                )
                if document.mutation:
                    raise LinearAmbiguous(
                        f"{document.name} got no clear answer ({outcome.message}) and may "
                        "have happened; not sending it again",
                        document.name,
                        dict(variables),
                    )
                failures += 1
                if failures > self.MAX_RETRIES:
                    raise _error(document, outcome, LinearUnavailable, "did not answer")
                self._sleep(float(failures**2))
                continue
            if kind in (ResponseKind.AUTH, ResponseKind.FORBIDDEN):
                raise _error(document, outcome, LinearAuthError, "refused the API key for")
            kind_of = LinearNotFound if outcome.not_found else LinearInvalid
            raise _error(document, outcome, kind_of, "refused")


def _error(
    document: LinearDocument, outcome: Classified, kind: type[LinearError], verb: str
) -> LinearError:
    error = kind(redact(f"Linear {verb} {document.name}: {outcome.message or outcome.kind.value}"))
    error.reason = redact(outcome.message)
    error.code = outcome.code
    return error


#: Linear's budget headers -> the debug event's fields.
_RATE_HEADERS = {
    "x-ratelimit-requests-remaining": "requestsRemaining",
    "x-ratelimit-requests-reset": "requestsReset",
    "x-ratelimit-complexity-remaining": "complexityRemaining",
    "x-ratelimit-complexity-reset": "complexityReset",
    "x-complexity": "complexity",
}


def _record(
    document: LinearDocument,
    payload: Mapping[str, Any],
    started: float,
    outcome: Classified,
    reply: Reply | None,
) -> None:
    """One GraphQL request in the debug log (which redacts every string it writes)."""
    fields: dict[str, Any] = {
        "service": "linear",
        "operation": document.name,
        "mutation": document.mutation,
        "variables": payload.get("variables") or {},
        "durationMs": round((time.monotonic() - started) * 1000),
        "status": reply.status if reply is not None else 0,
        "ok": outcome.kind is ResponseKind.OK,
        "outcome": outcome.kind.value,
    }
    for header, name in _RATE_HEADERS.items():
        value = reply.headers.get(header) if reply is not None else None
        if value is not None:
            fields[name] = int(value) if value.isdigit() else value
    if outcome.kind is not ResponseKind.OK:
        fields["error"] = outcome.message or outcome.kind.value
    record_event("graphql", **fields)
