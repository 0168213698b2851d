"""Which names the board answers to, and where its actions may come from.

DNS rebinding: a page of ``evil.example`` whose name is made to point at 127.0.0.1 is
same-origin, for the browser, with the board, so it could read pages and the CSRF
cookie and then act. Its requests still carry ``Host: evil.example``, so every request
whose Host is not one the board serves (loopback, ``--host``, ``--allowed-host``) is 403.

Cross-origin actions: a POST (any method that changes something) whose ``Origin`` (or,
without one, ``Referer``) is not the board's own address, or that the browser marks
``Sec-Fetch-Site: cross-site`` or ``same-site`` (another port of the same machine), is
403 as well, whatever CSRF token it carries. Tools that send neither header (curl) rely
on the token alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from ralph.web._security import is_loopback, refuse

__all__ = ["HostGate", "host_name"]

#: Methods that only read: the Host check is enough for them.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: Characters no Host or Origin of ours has, but that ``urlsplit`` would read past.
_FORBIDDEN = frozenset("/\\@?#") | frozenset(" \t\r\n")
_SHOWN = 100


def host_name(value: str) -> str | None:
    """The host name in a Host header's ``value`` (lower case, IPv6 without brackets),
    None when it is not one."""
    endpoint = _endpoint(value)
    return endpoint[0] if endpoint is not None else None


def _endpoint(value: str, scheme: str = "") -> tuple[str, int | None] | None:
    """``value`` (``host[:port]``) as its name and port, the scheme's default port as
    None; None when it is no such thing."""
    if not value or _FORBIDDEN & set(value):
        return None
    try:
        parts = urlsplit(f"//{value}")
        name, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number
        return None
    if not name:
        return None
    if port in (_DEFAULT_PORTS.get(scheme), None) or (not scheme and port in (80, 443)):
        port = None
    return name, port


def _origin_of(url: str) -> tuple[str, int | None] | None:
    """The endpoint of an Origin or Referer URL; None for anything but http(s)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS:
        return None
    return _endpoint(parts.netloc, parts.scheme)


class HostGate:
    """ASGI middleware: the Host and, for actions, the origin checks."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = frozenset(host.lower() for host in hosts)

    def serves(self, name: str) -> bool:
        return name in self.hosts or is_loopback(name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = _endpoint(headers.get("host", ""))
        if host is None or not self.serves(host[0]):
            shown = (host[0] if host else headers.get("host", ""))[:_SHOWN]
            await refuse(
                scope,
                send,
                403,
                f"This board does not answer to the host {shown!r}: open it at the address "
                f"`ralph web` printed, or start it with --allowed-host NAME to serve that "
                "name too.",
            )
            return
        if scope["method"] not in _SAFE_METHODS and not self._same_origin(headers, host):
            await refuse(
                scope,
                send,
                403,
                "This board takes actions only from its own pages; this one came from "
                "another site. Open the board's address and act from there.",
            )
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _same_origin(headers: dict[str, str], host: tuple[str, int | None]) -> bool:
        if headers.get("sec-fetch-site", "") in ("cross-site", "same-site"):
            return False
        origin = headers.get("origin") or headers.get("referer")
        return origin is None or _origin_of(origin) == host
