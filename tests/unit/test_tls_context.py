"""Every HTTPS client of a process verifies servers with one TLS context: loading the
trusted certificates costs more than a request to a local service (about 20 ms a
client), and a process may open dozens of clients."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from ralph import _graphql_http
from ralph._graphql_http import HttpsPoster, shared_tls_context
from ralph._rest_http import HttpsRequester


def _context_of(client: HttpsPoster | HttpsRequester) -> ssl.SSLContext:
    pool = client._client._transport._pool  # type: ignore[attr-defined]
    context = pool._ssl_context
    assert isinstance(context, ssl.SSLContext)
    return context


def test_graphql_and_rest_clients_share_one_context() -> None:
    clients: list[HttpsPoster | HttpsRequester] = [
        HttpsPoster("https://api.github.com/graphql", {}, timeout=5),
        HttpsPoster("https://api.linear.app/graphql", {}, timeout=5),
        HttpsRequester("https://example.atlassian.net", {}, timeout=5),
    ]
    try:
        assert {id(_context_of(c)) for c in clients} == {id(shared_tls_context())}
    finally:
        for client in clients:
            client.close()


def test_the_context_verifies_servers() -> None:
    context = shared_tls_context()
    assert context.verify_mode is ssl.CERT_REQUIRED
    assert context.check_hostname


def test_certificates_named_by_ssl_cert_file_get_a_context_of_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    default = shared_tls_context()
    bundle = ssl.get_default_verify_paths().openssl_cafile
    if not Path(bundle).is_file():
        pytest.skip(f"no certificate bundle at {bundle}")
    monkeypatch.setenv("SSL_CERT_FILE", bundle)
    named = shared_tls_context()
    assert named is not default
    assert shared_tls_context() is named


def test_clients_of_plain_http_load_no_certificates(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake or a proxy on this machine speaks no TLS: its clients never pay for the
    system's certificates (a tenth of a second of every process a test starts)."""

    def loading(_cafile: str | None, _capath: str | None) -> ssl.SSLContext:
        raise AssertionError("the system's certificates were loaded")

    monkeypatch.setattr(_graphql_http, "_tls_context", loading)
    clients: list[HttpsPoster | HttpsRequester] = [
        HttpsPoster("http://127.0.0.1:8000/graphql", {}, timeout=5),
        HttpsRequester("HTTP://127.0.0.1:8001", {}, timeout=5),
    ]
    try:
        for client in clients:
            context = _context_of(client)
            # Should TLS ever be spoken there, it fails: nothing is trusted.
            assert context.verify_mode is ssl.CERT_REQUIRED
            assert context.check_hostname
            assert context.get_ca_certs() == []
    finally:
        for client in clients:
            client.close()
