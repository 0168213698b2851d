"""The GraphQL client: paced requests, bounded retries, and reconcile-before-retry.

Queries and idempotent mutations are retried after an indeterminate failure with a
``(n+1)²`` s backoff, at most three times. A mutation that *creates* something is never
sent twice blindly: after an indeterminate failure the caller's ``reconcile`` looks for
what may already exist (a marker in the body, a branch name) and only if nothing is
found is the mutation sent again. A non-creating mutation given a ``reconcile`` is
judged by its end state too: after an indeterminate try, what is already so is success,
and a refusal of the resend is checked against the end state before it is believed
(a merge that landed, an edge already there). Rate limits pause every request of the
client for the time GitHub names (retry-after, the reset), or a minute doubling on
repeats, and give up after five. GitHub's content-creation throttle pauses them too,
for a minute doubling up to an hour, with a reconcile before each resend. A batch's
reconcile that finds only some of it raises ``PartlyLanded``: the batch is not sent
again whole; a batch's resend refused after an unanswered try raises
``GitHubUnavailable`` (it may have landed), not a refusal. A
paged query GitHub stops for its size or time is asked again with half the page.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ralph._debuglog import debug_enabled, record_event
from ralph._graphql_http import Reply, Transport, TransportFailure
from ralph.errors import (
    GitHubAuthError,
    GitHubError,
    GitHubInvalid,
    GitHubNotFound,
    GitHubPartialData,
    GitHubRateLimited,
    GitHubUnavailable,
)
from ralph.github._classify import FALLBACK_WAIT, Classified, ResponseKind, classify_response
from ralph.github._pacer import Pacer
from ralph.github._tokens import TokenFor, Tokens
from ralph.github.queries import VIEWER, GraphQLDocument

__all__ = ["BatchAnswer", "GitHubClient", "PartlyLanded", "marker", "strip_markers"]

logger = logging.getLogger(__name__)

_MARKER_PREFIX = "<!-- ralph:op="


def marker() -> str:
    """A fresh operation marker to embed in a created body (invisible on GitHub)."""
    return f"{_MARKER_PREFIX}{uuid.uuid4().hex} -->"


def strip_markers(text: str) -> str:
    """``text`` without Ralph's operation markers (what a person wrote and sees)."""
    while (start := text.find(_MARKER_PREFIX)) != -1:
        end = text.find("-->", start)
        if end == -1:
            break
        cut = text[start : end + 3]
        text = text.replace("\n\n" + cut, "").replace(cut, "")
    return text


@dataclass(frozen=True)
class BatchAnswer:
    """What a batch of aliased mutations did: each alias's data (None where it failed)
    and, for the aliases GitHub refused, its words."""

    data: dict[str, Any]
    refused: dict[str, str] = field(default_factory=dict)

    def ok(self, alias: str) -> bool:
        return alias not in self.refused and self.data.get(alias) is not None


class PartlyLanded(GitHubUnavailable):
    """A batch of which only some parts landed (found by their markers after a lost or
    throttled answer): sent again whole it would make those twice. A batch's reconcile
    raises it; ``found`` holds the landed parts' data by alias. As any lost write, the
    caller looks at each part before it sends it again."""

    def __init__(self, document: str, found: dict[str, Any]) -> None:
        super().__init__(f"{document}: only some of the batch landed; the rest is sent apart")
        self.found = found


class _TooLarge(GitHubPartialData):
    """GitHub stopped a query for its size or time; ``pages`` asks for a smaller page."""


class GitHubClient:
    MAX_RETRIES = 3
    MAX_RATE_LIMITED = 5
    #: The content-creation throttle: waits of 60 s doubling to an hour (the longest
    #: GitHub's staff advise), then one more hour before giving up.
    MAX_CONTENT_WAIT = 3600.0
    MAX_CONTENT_THROTTLED = 8

    def __init__(
        self,
        transport: Transport,
        tokens: Tokens,
        *,
        pacer: Pacer | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.transport = transport
        self.tokens = tokens
        self._clock = clock
        self._sleep = sleep
        self.pacer = pacer or Pacer(clock=clock, sleep=sleep)
        self._page_sizes: dict[str, int] = {}
        self._write_listeners: list[Callable[[GraphQLDocument], None]] = []

    def on_write(self, listener: Callable[[GraphQLDocument], None]) -> None:
        """Call ``listener`` after every mutation sent (landed or not): what a reader
        kept may no longer hold."""
        self._write_listeners.append(listener)

    def _written(self, document: GraphQLDocument) -> None:
        for listener in self._write_listeners:
            listener(document)

    def close(self) -> None:
        self.transport.close()

    def wait(self, seconds: float) -> None:
        """Wait as the client waits between retries (on a test's clock in tests)."""
        self._sleep(seconds)

    # -- the public calls -----------------------------------------------------------------

    def query(
        self,
        document: GraphQLDocument,
        variables: Mapping[str, Any] | None = None,
        *,
        token: TokenFor = "repo",
    ) -> dict[str, Any]:
        if document.mutation:
            raise ValueError(f"{document.name} is a mutation; use mutate()")
        data, _ = self._execute(document, variables or {}, token=token, reconcile=None)
        return data

    def mutate(
        self,
        document: GraphQLDocument,
        variables: Mapping[str, Any],
        *,
        token: TokenFor = "repo",
        reconcile: Callable[[], dict[str, Any] | None] | None = None,
    ) -> dict[str, Any]:
        """Send a mutation. A creating one needs ``reconcile``: it returns the mutation's
        data if what it creates exists already, else None. A non-creating one may have
        one (it returns data when the mutation's end state already holds) so a lost
        answer or a refused resend is judged by what GitHub now holds."""
        if not document.mutation:
            raise ValueError(f"{document.name} is a query; use query()")
        try:
            data, _ = self._execute(document, variables, token=token, reconcile=reconcile)
        finally:
            self._written(document)
        return data

    def mutate_batch(
        self,
        document: GraphQLDocument,
        variables: Mapping[str, Any],
        *,
        token: TokenFor = "repo",
        reconcile: Callable[[], dict[str, Any] | None] | None = None,
    ) -> BatchAnswer:
        """Send a batch of aliased mutations (``queries.batch``) as one request. GitHub
        runs them in order and answers each: an alias it refused is in ``refused`` (the
        others' data stands), not an error for the whole request. Rate limits, throttles
        and lost answers are handled as for ``mutate`` (``reconcile`` returns the data
        of what already holds, by alias, or raises ``PartlyLanded`` when only some of it
        does), but a resend refused after an unanswered try raises GitHubUnavailable:
        what the batch carried without a marker may have landed."""
        if not document.mutation:
            raise ValueError(f"{document.name} is a query; use query()")
        try:
            data, _, refused = self._execute_each(document, variables, token, reconcile)
        finally:
            self._written(document)
        return BatchAnswer(data, refused)

    def pages(
        self,
        document: GraphQLDocument,
        variables: Mapping[str, Any],
        path: Sequence[str],
        *,
        token: TokenFor = "repo",
        after: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """The nodes of the connection at ``path``, page after page (``$after``, and
        ``$first``: the document's page, halved while GitHub finds a page too large);
        ``after``: from past that cursor (what an earlier read already has)."""
        if document.mutation:
            raise ValueError(f"{document.name} is a mutation; use mutate()")
        size = self._page_sizes.get(document.name, document.page_size)
        while True:
            sized = {**variables, "after": after, **({"first": size} if size else {})}
            try:
                data, _ = self._execute(
                    document, sized, token=token, reconcile=None, shrinkable=size > 1
                )
            except _TooLarge as exc:
                size //= 2
                self._page_sizes[document.name] = size  # later reads start smaller
                logger.warning(
                    "github query too large; halving the page",
                    extra={"document": document.name, "page": size, "why": str(exc)},
                )
                continue
            connection: Any = data
            for key in path:
                connection = connection.get(key) if isinstance(connection, dict) else None
            if connection is None:
                raise GitHubNotFound(f"{document.name}: nothing at {'.'.join(path)}")
            yield from connection["nodes"]
            info = connection["pageInfo"]
            if not info["hasNextPage"]:
                return
            if not info["endCursor"] or info["endCursor"] == after:
                raise GitHubError(f"{document.name}: the page cursor did not advance")
            after = info["endCursor"]

    def viewer(self, *, token: TokenFor = "repo") -> tuple[str, frozenset[str] | None]:
        """The token's login and its OAuth scopes (None for tokens that do not list
        them: fine-grained tokens and app tokens). An empty list means "not listed" too,
        as gh CLI reads it: a classic token has at least one scope to be of any use."""
        data, headers = self._execute(VIEWER, {}, token=token, reconcile=None)
        scopes = {s.strip() for s in headers.get("x-oauth-scopes", "").split(",")} - {""}
        return str(data["viewer"]["login"]), frozenset(scopes) if scopes else None

    # -- one request, with its waits and retries ---------------------------------------------

    def _send(
        self, document: GraphQLDocument, payload: Mapping[str, Any], token: str
    ) -> tuple[Classified, Mapping[str, str]]:
        with self.pacer.slot(mutation=document.mutation, creates=document.content):
            started = time.monotonic()
            try:
                reply = self.transport.post(payload, token)
            except TransportFailure as exc:
                outcome = Classified(ResponseKind.INDETERMINATE, message=str(exc))
                if debug_enabled():
                    _record(document, payload, started, outcome, None)
                return outcome, {}
        self.pacer.observe(reply.headers)
        outcome = classify_response(reply, self._clock())
        if debug_enabled():
            _record(document, payload, started, outcome, reply)
        return outcome, reply.headers

    def _execute(
        self,
        document: GraphQLDocument,
        variables: Mapping[str, Any],
        *,
        token: TokenFor,
        reconcile: Callable[[], dict[str, Any] | None] | None,
        shrinkable: bool = False,
    ) -> tuple[dict[str, Any], Mapping[str, str]]:
        data, headers, _ = self._execute_each(
            document, variables, token, reconcile, shrinkable=shrinkable, per_alias=False
        )
        return data, headers

    def _execute_each(
        self,
        document: GraphQLDocument,
        variables: Mapping[str, Any],
        token: TokenFor,
        reconcile: Callable[[], dict[str, Any] | None] | None,
        *,
        shrinkable: bool = False,
        per_alias: bool = True,
    ) -> tuple[dict[str, Any], Mapping[str, str], dict[str, str]]:
        payload = {"query": document.text, "variables": dict(variables)}
        secret = self.tokens.get(token)
        failures = 0
        limited = 0
        throttled = 0
        while True:
            outcome, headers = self._send(document, payload, secret)
            kind = outcome.kind
            if kind is ResponseKind.OK:
                return outcome.data or {}, headers, {}
            if per_alias and (refused := _refused_aliases(outcome)) is not None:
                return outcome.data or {}, headers, refused
            if kind is ResponseKind.TOO_LARGE:
                if shrinkable:
                    raise _TooLarge(f"{document.name}: {outcome.message}", outcome.data)
                if outcome.data is not None and not document.mutation:
                    raise _error(document, outcome)
                kind = ResponseKind.INDETERMINATE  # a timeout: it may have happened
            if kind is ResponseKind.RATE_LIMITED and outcome.content_throttle:
                throttled += 1
                found = self._wait_out_content_throttle(document, outcome, throttled, reconcile)
                if found is not None:
                    return found, {}, {}
                continue
            if kind is ResponseKind.RATE_LIMITED:
                limited += 1
                if limited > self.MAX_RATE_LIMITED:
                    raise GitHubRateLimited(
                        f"GitHub kept rate limiting {document.name} after {limited - 1} waits: "
                        f"{outcome.message}; try again later"
                    )
                wait = outcome.wait
                if wait is None:  # a minute, doubling while the limit persists
                    wait = FALLBACK_WAIT * 2 ** (limited - 1)
                self.pacer.pause_until(self._clock() + wait, outcome.message or "rate limited")
                continue
            if kind is ResponseKind.INDETERMINATE:
                failures += 1
                logger.warning(
                    "github request failed",
                    extra={"document": document.name, "failure": outcome.message},
                )
                if document.creates and reconcile is None:
                    raise GitHubUnavailable(
                        f"{document.name} failed ({outcome.message}) and may have "
                        "happened; not sending it again without a way to check"
                    )
                if reconcile is not None:
                    found = reconcile()
                    if found is not None:
                        logger.info("github write reconciled", extra={"document": document.name})
                        return found, {}, {}
                if failures > self.MAX_RETRIES:
                    raise GitHubUnavailable(
                        f"GitHub did not answer {document.name} after {failures} tries: "
                        f"{outcome.message}"
                    )
                self._sleep(float(failures**2))
                continue
            if failures and reconcile is not None and document.mutation:
                # The first try may have landed: a refusal now can mean "already done".
                found = reconcile()
                if found is not None:
                    logger.info("github write reconciled", extra={"document": document.name})
                    return found, {}, {}
                if per_alias:
                    # Of a batch, nothing found is not "nothing ran": a part without a
                    # marker (a field write) may have landed; the caller must not undo
                    # or re-queue it.
                    raise _maybe_landed(document, outcome)
            raise _error(document, outcome)

    def _wait_out_content_throttle(
        self,
        document: GraphQLDocument,
        outcome: Classified,
        throttled: int,
        reconcile: Callable[[], dict[str, Any] | None] | None,
    ) -> dict[str, Any] | None:
        """Wait as GitHub's content-creation throttle asks (a minute, doubling, at most
        an hour); then, before the resend, the mutation's data if it exists after all."""
        if throttled > self.MAX_CONTENT_THROTTLED:
            raise GitHubRateLimited(
                f"GitHub kept throttling {document.name} after {throttled - 1} waits: "
                f"{outcome.message}; try again later"
            )
        wait = min(FALLBACK_WAIT * 2 ** (throttled - 1), self.MAX_CONTENT_WAIT)
        # Paced requests (the reconcile's reads, the resend) wait out the pause.
        self.pacer.pause_until(self._clock() + wait, outcome.message or "content throttled")
        if reconcile is None:
            return None
        found = reconcile()
        if found is not None:
            logger.info("github throttled create reconciled", extra={"document": document.name})
        return found


#: GitHub's rate-limit headers -> the debug event's fields (the original's names first).
_RATE_HEADERS = {
    "x-ratelimit-remaining": "rateLimitRemaining",
    "x-ratelimit-used": "rateLimitUsed",
    "x-ratelimit-limit": "rateLimitLimit",
    "x-ratelimit-reset": "rateLimitReset",
    "x-ratelimit-resource": "rateLimitResource",
    "retry-after": "retryAfter",
}


def _record(
    document: GraphQLDocument,
    payload: Mapping[str, Any],
    started: float,
    outcome: Classified,
    reply: Reply | None,
) -> None:
    """One GraphQL request in the debug log: its timing, status and rate limits."""
    fields: dict[str, Any] = {
        "operation": document.name,
        "mutation": document.mutation,
        "variables": payload.get("variables") or {},
        "durationMs": round((time.monotonic() - started) * 1000),
        # No reply at all (a reset, a timeout) is 0: nothing answered.
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


def _refused_aliases(outcome: Classified) -> dict[str, str] | None:
    """A batch's refusals by alias, when GitHub answered the request and every error names
    the alias it belongs to (its ``path``); None when the request as a whole failed."""
    if outcome.kind not in (ResponseKind.PARTIAL, ResponseKind.INVALID, ResponseKind.NOT_FOUND):
        return None
    if not outcome.errors or not isinstance(outcome.data, dict):
        return None
    refused: dict[str, str] = {}
    for error in outcome.errors:
        path = error.get("path")
        if not isinstance(path, list) or not path or path[0] not in outcome.data:
            return None
        alias = str(path[0])
        refused[alias] = "; ".join(filter(None, (refused.get(alias), str(error.get("message")))))
    return refused


def _maybe_landed(document: GraphQLDocument, outcome: Classified) -> GitHubUnavailable:
    """A refusal of a resend whose first try's answer was lost: that try may have landed."""
    error = GitHubUnavailable(
        f"GitHub refused {document.name} after an unanswered try that may have landed: "
        f"{outcome.message}"
    )
    error.reason = outcome.message
    return error


def _error(document: GraphQLDocument, outcome: Classified) -> GitHubError:
    error = _error_of(document, outcome)
    error.reason = outcome.message
    return error


def _error_of(document: GraphQLDocument, outcome: Classified) -> GitHubError:
    what = f"GitHub refused {document.name}: {outcome.message}"
    if outcome.kind is ResponseKind.AUTH:
        return GitHubAuthError(
            f"{what}; check the token (RALPH_GH_TOKEN) and its scopes (repo, project)"
        )
    if outcome.kind is ResponseKind.NOT_FOUND:
        return GitHubNotFound(f"{document.name}: {outcome.message}")
    if outcome.kind in (ResponseKind.PARTIAL, ResponseKind.TOO_LARGE):
        return GitHubPartialData(
            f"{document.name} came back partial: {outcome.message}", outcome.data
        )
    return GitHubInvalid(what)
