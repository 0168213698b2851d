"""REST over HTTP, shared by the Jira and GitLab clients and their fakes: one request as
data (``RestRequest``), the transport interface a client sends it through (HTTPS here,
a fake in memory in tests), one request over HTTPS with httpx2, and a fake's endpoint
served on 127.0.0.1 for process tests. What came back is the GraphQL kit's ``Reply``,
and a request that got no answer raises its ``TransportFailure``: the two kinds of
service fail the same way."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlsplit

from ralph import _graphql_http
from ralph._quiet_http import QuietHandler
from ralph._secrets import redact

__all__ = [
    "HttpsRequester",
    "Reply",
    "RestRequest",
    "RestTransport",
    "TransportFailure",
    "serve_rest",
]

#: What came back, and the failure after which a request may or may not have run: the
#: GraphQL kit's own, so a REST service and a GraphQL one fail alike for their callers.
Reply = _graphql_http.Reply
TransportFailure = _graphql_http.TransportFailure


@dataclass(frozen=True)
class RestRequest:
    """One call: ``method`` on ``path`` (from the API's root, ``/rest/api/3/issue``),
    with ``query`` pairs in order (a name may repeat) and a JSON ``body`` (None: none)."""

    method: str
    path: str
    query: Sequence[tuple[str, str]] = ()
    body: Any = None
    #: Extra headers this request needs (Jira's ``X-Atlassian-Token``...); the
    #: credentials are the transport's.
    headers: Mapping[str, str] = field(default_factory=dict)

    def param(self, name: str, default: str | None = None) -> str | None:
        """The first value of query parameter ``name``."""
        return next((value for key, value in self.query if key == name), default)


class RestTransport(Protocol):
    def send(self, request: RestRequest) -> Reply:
        """Send ``request``; ``TransportFailure`` when no answer came back."""

    def close(self) -> None:
        """Release connections (nothing, in memory)."""


class HttpsRequester:
    """Requests to the API rooted at ``base_url`` with httpx2, each carrying ``headers``
    (the credentials among them), answered as a ``Reply``."""

    def __init__(self, base_url: str, headers: Mapping[str, str], *, timeout: float) -> None:
        import httpx2

        self.base_url = base_url.rstrip("/")
        self._httpx = httpx2
        self._client = httpx2.Client(
            timeout=timeout, headers=dict(headers), verify=_graphql_http.tls_context_for(base_url)
        )

    def send(self, request: RestRequest) -> Reply:
        try:
            response = self._client.request(
                request.method,
                self.base_url + request.path,
                params=list(request.query),
                json=request.body,
                headers=dict(request.headers),
            )
        except self._httpx.TransportError as exc:  # connect, read, timeouts...
            raise TransportFailure(redact(f"{type(exc).__name__}: {exc}")) from None
        try:
            body = json.loads(response.content) if response.content else None
        except ValueError:
            body = None
        headers = {name.lower(): value for name, value in response.headers.items()}
        return Reply(response.status_code, headers, body)

    def close(self) -> None:
        self._client.close()


#: What a fake answers: the request and its headers (names in lower case).
Answer = Callable[[RestRequest, Mapping[str, str]], Reply]


@contextmanager
def serve_rest(answer: Answer, name: str, *, port: int = 0) -> Iterator[str]:
    """``answer(request, headers)`` served on 127.0.0.1 (``port``; 0: any free one) for
    the ``with`` block; yields the base URL. A ``TransportFailure`` drops the connection
    unanswered, as a reset does; a body that is not JSON is answered 400."""

    class Handler(QuietHandler):
        def _handle(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length", "0") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw.strip() else None
            except ValueError:
                self._write(Reply(400, {}, {"message": "the body is not JSON"}))
                return
            request = RestRequest(
                self.command, url.path, tuple(parse_qsl(url.query, keep_blank_values=True)), body
            )
            headers = {key.lower(): value for key, value in self.headers.items()}
            try:
                reply = answer(request, headers)
            except TransportFailure:
                self.close_connection = True
                return
            self._write(reply)

        def _write(self, reply: Reply) -> None:
            data = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            for header, value in reply.headers.items():
                self.send_header(header, value)
            if reply.body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
