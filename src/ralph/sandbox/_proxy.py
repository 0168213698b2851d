"""The one way out of an agent's network namespace: an HTTP proxy Ralph runs on the host
for the agent's run, listening on a unix socket bound into the sandbox, that connects
only to the hosts the agent's CLI needs (its model's API). ``CONNECT host:port`` tunnels
(HTTPS) and absolute-URL requests (plain HTTP) are both served; anything else, and any
other host, is refused with one log line naming it. Nothing on the host's loopback is
reachable unless it is one of those hosts, exactly (a local model server, a test's fake).
For an agent the person lets search the web (``research_web``), any host whose every
address is public is allowed too, and reached at the address checked: never loopback,
private, link-local (cloud metadata) or otherwise reserved addresses.

Bounded: a request head of at most 16 KiB read within 30 s, at most 64 connections at
once, 10 s to connect upstream."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import threading
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

__all__ = ["EgressProxy", "allow_hint", "host_port", "public_address"]

logger = logging.getLogger(__name__)

_HEAD_BYTES = 16 * 1024
_HEAD_SECONDS = 30.0
_CONNECT_SECONDS = 10.0
_CONNECTIONS = 64
_CHUNK = 64 * 1024
_HOP_HEADERS = ("proxy-connection", "proxy-authorization", "connection", "keep-alive")


def allow_hint(hosts: Iterable[str]) -> str:
    """What lets ``hosts`` (``host:port``) through: the one setting a person changes."""
    listed = ", ".join(f'"{host}"' for host in hosts)
    return (
        f"to let an agent reach it, add it to agent_hosts in ralph.toml: agent_hosts = [{listed}]"
    )


def host_port(address: str, default_port: int = 443) -> tuple[str, int] | None:
    """``host:port`` (or a URL, or a bare host) as a lower-case host and a port; None
    when it names none."""
    if "://" in address:
        parts = urlsplit(address)
        try:
            port = parts.port
        except ValueError:
            return None
        if not parts.hostname:
            return None
        default = 80 if parts.scheme == "http" else 443
        return parts.hostname.lower(), port or default
    host, colon, port_text = address.rpartition(":")
    if not colon or "]" in port_text:
        host, port_text = address, str(default_port)
    host = host.strip("[]").lower()
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    return host, int(port_text)


def public_address(host: str, port: int) -> tuple[str, int] | None:
    """Where to reach ``host`` when every address it resolves to is public (global
    unicast); None when any is not, or it resolves to none."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    addresses = [str(info[4][0]) for info in found]
    if not addresses:
        return None
    for address in addresses:
        parsed = ipaddress.ip_address(address.split("%")[0])
        if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
            parsed = parsed.ipv4_mapped
        if not parsed.is_global or parsed.is_multicast:
            return None
    return addresses[0], port


class EgressProxy:
    """Serves on ``socket_path`` from ``__enter__`` to ``__exit__`` (which closes every
    connection), allowing ``hosts`` (``(host, port)`` pairs) only, and with ``public``
    any host whose addresses are all public."""

    def __init__(
        self, socket_path: Path, hosts: Iterable[tuple[str, int]], *, public: bool = False
    ) -> None:
        self.socket_path = socket_path
        self.hosts = frozenset((host.lower(), port) for host, port in hosts)
        self.public = public
        #: Every ``host:port`` refused, in order (for the run's report).
        self.refused: list[str] = []
        self._slots = threading.BoundedSemaphore(_CONNECTIONS)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._thread = threading.Thread(target=self._serve, name="egress-proxy", daemon=True)

    def __enter__(self) -> EgressProxy:
        self._server.bind(str(self.socket_path))
        self._server.listen(_CONNECTIONS)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # shutdown wakes the accept() below; close alone would leave it waiting.
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        with self._lock:
            for sock in list(self._open):
                _close(sock)
        self._thread.join(timeout=5)
        with contextlib.suppress(OSError):
            self.socket_path.unlink()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed: the run is over
            if not self._slots.acquire(blocking=False):
                _answer(client, 503, "too many connections")
                continue
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _track(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.add(sock)

    def _handle(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        self._track(client)
        try:
            head, rest = _read_head(client)
            if head is None:
                _answer(client, 400, "bad request")
                return
            request_line, *headers = head.split("\r\n")
            method, _, target = request_line.partition(" ")
            target, _, version = target.partition(" ")
            tunnel = method.upper() == "CONNECT"
            where = host_port(target) if tunnel else host_port(target, 80)
            if where is None or (not tunnel and "://" not in target):
                _answer(client, 400, "bad request")
                return
            # A public host is reached at the address checked, not resolved again.
            address = where if where in self.hosts else None
            if address is None and self.public:
                address = public_address(*where)
            if address is None:
                name = f"{where[0]}:{where[1]}"
                self.refused.append(name)
                fix = allow_hint([name])
                logger.warning("agent connection refused", extra={"host": name, "fix": fix})
                _answer(client, 403, f"{name} is not an allowed host; {fix}")
                return
            try:
                upstream = socket.create_connection(address, timeout=_CONNECT_SECONDS)
            except OSError as exc:
                _answer(client, 502, f"cannot reach {where[0]}:{where[1]}: {exc.strerror}")
                return
            upstream.settimeout(None)
            self._track(upstream)
            if tunnel:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                upstream.sendall(rest)
            else:
                upstream.sendall(_origin_form(method, target, version, headers) + rest)
            _splice(client, upstream)
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    with self._lock:
                        self._open.discard(sock)
                    _close(sock)
            self._slots.release()


def _read_head(client: socket.socket) -> tuple[str | None, bytes]:
    """The request head (request line and headers) and what came after it."""
    client.settimeout(_HEAD_SECONDS)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(4096)
        if not chunk or len(data) + len(chunk) > _HEAD_BYTES:
            return None, b""
        data += chunk
    client.settimeout(None)
    head, _, rest = data.partition(b"\r\n\r\n")
    try:
        return head.decode("latin-1"), rest
    except UnicodeDecodeError:
        return None, b""


def _origin_form(method: str, target: str, version: str, headers: list[str]) -> bytes:
    """The request as the origin server takes it: its path, no proxy headers, and the
    connection closed after it (a next request may be for another host)."""
    parts = urlsplit(target)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [h for h in headers if h.split(":", 1)[0].strip().lower() not in _HOP_HEADERS]
    lines = [f"{method} {path} {version or 'HTTP/1.1'}", *kept, "Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1")


def _splice(one: socket.socket, other: socket.socket) -> None:
    """Copy both ways until either side ends."""

    def copy(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(_CHUNK):
                sink.sendall(chunk)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    back = threading.Thread(target=copy, args=(other, one), daemon=True)
    back.start()
    copy(one, other)
    back.join()


def _answer(client: socket.socket, status: int, why: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway", 503: "Busy"}[status]
    body = f"{why}\n".encode()
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with contextlib.suppress(OSError):
        client.sendall(head.encode() + body)
    _close(client)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
