"""GraphQL over HTTP, shared by the GitHub and Linear clients and their fakes: what came
back (``Reply``), the failure after which a request may or may not have run
(``TransportFailure``), the transport interface, one POST over HTTPS with httpx2 (and
the TLS context every HTTPS client shares), and a fake's endpoint served on 127.0.0.1
for process tests."""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Protocol

from ralph._quiet_http import QuietHandler
from ralph._secrets import redact

if TYPE_CHECKING:
    import ssl

__all__ = [
    "HttpsPoster",
    "Reply",
    "Transport",
    "TransportFailure",
    "serve_graphql",
    "shared_tls_context",
    "tls_context_for",
]


@dataclass(frozen=True)
class Reply:
    status: int
    #: Header names in lower case.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The decoded JSON body, or None when the body was not JSON.
    body: Any = None


class TransportFailure(Exception):
    """No answer came back (reset, timeout): the request may or may not have run."""


class Transport(Protocol):
    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        """Send ``payload`` (query, variables) with ``token``; TransportFailure when no
        answer came back."""

    def close(self) -> None:
        """Release connections (nothing, in memory)."""


def shared_tls_context() -> ssl.SSLContext:
    """httpx2's default TLS context (servers verified against the system's certificates,
    or those ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` name), made once for the process:
    loading the certificates costs more than a request to a local service, and the
    context serves any number of clients."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _tls_context(_cafile: str | None, _capath: str | None) -> ssl.SSLContext:
    import httpx2

    return httpx2.create_ssl_context()


def tls_context_for(url: str) -> ssl.SSLContext:
    """The TLS context a client of ``url`` verifies servers with: the shared one for
    HTTPS; for plain HTTP (a fake or a proxy on this machine), where no TLS is spoken,
    one that trusts no certificate at all, so a process that only talks to such a
    service never loads the system's (some 60 ms of each ``ralph`` a test starts)."""
    if url.lower().startswith("https:"):
        return shared_tls_context()
    return _trusting_nothing()


@functools.cache
def _trusting_nothing() -> ssl.SSLContext:
    import ssl

    # Verifying, with no certificate to verify against: a TLS connection fails.
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class HttpsPoster:
    """One POST of a GraphQL payload to ``url`` with httpx2 (Pydantic's maintained
    continuation of HTTPX, which ``mcp`` already brings), answered as a ``Reply``."""

    def __init__(self, url: str, headers: Mapping[str, str], *, timeout: float) -> None:
        import httpx2

        self.url = url
        self._httpx = httpx2
        self._client = httpx2.Client(
            timeout=timeout, headers=dict(headers), verify=tls_context_for(url)
        )

    def post_with(self, payload: Mapping[str, Any], authorization: str) -> Reply:
        try:
            response = self._client.post(
                self.url, json=dict(payload), headers={"Authorization": authorization}
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


@contextmanager
def serve_graphql(
    answer: Callable[[Any, str], Reply], name: str, *, port: int = 0
) -> Iterator[str]:
    """``answer(payload, authorization header)`` served on 127.0.0.1 (``port``; 0: any
    free one) for the ``with`` block; yields the GraphQL URL. A ``TransportFailure``
    drops the connection unanswered, as a reset does."""

    class Handler(QuietHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            try:
                payload = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                payload = {}
            try:
                reply = answer(payload, self.headers.get("Authorization", ""))
            except TransportFailure:
                self.close_connection = True
                return
            data = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            for header, value in reply.headers.items():
                self.send_header(header, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/graphql"
    finally:
        server.shutdown()
        server.server_close()
