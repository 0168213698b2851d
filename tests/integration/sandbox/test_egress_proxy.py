"""The egress proxy, over its unix socket: a tunnel (CONNECT) and a plain request reach
an allowed host, exactly that host and port; any other is refused with 403 and one log
line; a request it cannot read, or one over its bounds, gets an answer, never a hang."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.sandbox import EgressProxy, host_port
from ralph.sandbox._proxy import public_address


@pytest.fixture
def upstream() -> Iterator[socket.socket]:
    """An allowed host on the loopback: echoes what it gets, then closes."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(10)
        yield server


def ask(proxy: EgressProxy, request: bytes) -> socket.socket:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(10)
    client.connect(str(proxy.socket_path))
    client.sendall(request)
    return client


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


@pytest.fixture
def proxy(tmp_path: Path, upstream: socket.socket) -> Iterator[EgressProxy]:
    port = upstream.getsockname()[1]
    with EgressProxy(tmp_path / "proxy.sock", [("127.0.0.1", port)]) as running:
        yield running


def test_a_tunnel_to_an_allowed_host_carries_bytes_both_ways(proxy, upstream):
    port = upstream.getsockname()[1]
    client = ask(proxy, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\nhello".encode())
    served, _ = upstream.accept()
    served.settimeout(10)
    assert client.recv(4096).startswith(b"HTTP/1.1 200")
    assert served.recv(5) == b"hello"  # sent with the request head, passed on
    served.sendall(b"world")
    served.close()
    assert read_all(client) == b"world"
    client.close()


def test_a_plain_request_goes_to_its_host_in_origin_form_without_proxy_headers(proxy, upstream):
    port = upstream.getsockname()[1]
    client = ask(
        proxy,
        f"GET http://127.0.0.1:{port}/v1/models?x=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Proxy-Authorization: Basic c2VjcmV0\r\nConnection: keep-alive\r\n\r\n".encode(),
    )
    served, _ = upstream.accept()
    served.settimeout(10)
    head = b""
    while b"\r\n\r\n" not in head:
        head += served.recv(4096)
    lines = head.decode().split("\r\n")
    assert lines[0] == "GET /v1/models?x=1 HTTP/1.1"
    assert "Connection: close" in lines
    assert not [line for line in lines if line.lower().startswith("proxy-")]
    served.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    served.close()
    assert read_all(client).endswith(b"ok")
    client.close()


@pytest.mark.parametrize(
    "target",
    ["127.0.0.1:5432", "localhost:{port}", "127.0.0.2:{port}", "api.example.com:443"],
)
def test_any_other_host_or_port_is_refused_in_one_log_line(proxy, upstream, caplog, target):
    target = target.format(port=upstream.getsockname()[1])
    with caplog.at_level(logging.WARNING, logger="ralph.sandbox._proxy"):
        client = ask(proxy, f"CONNECT {target} HTTP/1.1\r\n\r\n".encode())
        answer = read_all(client)
    client.close()
    assert answer.startswith(b"HTTP/1.1 403")
    assert f"{target} is not an allowed host".encode() in answer
    assert f'add it to agent_hosts in ralph.toml: agent_hosts = ["{target}"]'.encode() in answer
    assert [r.host for r in caplog.records] == [target]
    assert proxy.refused == [target]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /relative HTTP/1.1\r\n\r\n",  # not a proxy request
        b"CONNECT host:port HTTP/1.1\r\n\r\n",
        b"GET http://x/ HTTP/1.1\r\n" + b"X-Long: " + b"a" * 20000 + b"\r\n\r\n",
    ],
)
def test_a_request_it_cannot_take_is_answered_400(proxy, request_bytes):
    client = ask(proxy, request_bytes)
    assert read_all(client).startswith(b"HTTP/1.1 400")
    client.close()


def test_ending_it_closes_open_tunnels(tmp_path, upstream):
    port = upstream.getsockname()[1]
    with EgressProxy(tmp_path / "proxy.sock", [("127.0.0.1", port)]) as running:
        client = ask(running, f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n".encode())
        served, _ = upstream.accept()
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
    assert read_all(client) == b""  # closed, not left hanging
    assert not (tmp_path / "proxy.sock").exists()
    client.close()
    served.close()


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("api.anthropic.com:443", ("api.anthropic.com", 443)),
        ("API.Example.com", ("api.example.com", 443)),
        ("http://127.0.0.1:8080/v1", ("127.0.0.1", 8080)),
        ("http://localhost/v1", ("localhost", 80)),
        ("https://[::1]:9/x", ("::1", 9)),
        ("host:99999", None),
        ("", None),
    ],
)
def test_hosts_are_read_as_host_and_port(address, expected):
    assert host_port(address) == expected


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1"]
)
def test_a_web_researchers_proxy_still_refuses_this_machine_and_private_addresses(
    tmp_path, upstream, host
):
    port = upstream.getsockname()[1]
    target = f"[{host}]" if ":" in host else host
    with EgressProxy(tmp_path / "web.sock", [], public=True) as web:
        client = ask(web, f"CONNECT {target}:{port} HTTP/1.1\r\n\r\n".encode())
        assert read_all(client).startswith(b"HTTP/1.1 403")
        client.close()
    assert web.refused == [f"{host}:{port}"]


def test_public_addresses_are_the_only_ones_a_web_researcher_may_reach():
    assert public_address("93.184.215.14", 443) == ("93.184.215.14", 443)
    assert public_address("2606:4700::1111", 443) == ("2606:4700::1111", 443)
    for private in ("127.0.0.1", "10.0.0.1", "172.16.0.1", "100.64.0.1", "0.0.0.0"):
        assert public_address(private, 443) is None, private
    assert public_address("::ffff:127.0.0.1", 443) is None
    assert public_address("fd00::1", 443) is None
    assert public_address("224.0.0.1", 443) is None
