"""Who may look and who may act.

The token: with one set (``--token`` or RALPH_WEB_TOKEN, required off loopback), every
request presents it, as ``Authorization: Bearer T`` (tools), a cookie (browsers), or
``?token=T`` once, which sets the cookie and redirects to the address without it.
Anything else is 401.

CSRF: every POST carries the double-submit token: the ``ralph_csrf`` cookie (set with
the first page, SameSite=Strict) repeated in the form's ``csrf`` field or the
``X-CSRF-Token`` header. Another site can make a browser send the cookie but cannot
read it to repeat it; a POST without both, or with two that differ, is 403 and changes
nothing.
"""

from __future__ import annotations

import hmac
import html
import ipaddress
import json
import re
import secrets
from collections.abc import Sequence
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ralph.errors import InvalidInput

__all__ = [
    "CSRF_COOKIE",
    "CSRF_FIELD",
    "CSRF_HEADER",
    "MIN_TOKEN_LENGTH",
    "TOKEN_COOKIE",
    "TokenGate",
    "check_token",
    "csrf_matches",
    "is_loopback",
    "new_csrf_token",
    "refuse",
]

TOKEN_COOKIE = "ralph_token"
CSRF_COOKIE = "ralph_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
#: A token anyone on the network could guess protects nothing.
MIN_TOKEN_LENGTH = 16
_TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]+")


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or localhost: reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token(token: str) -> str:
    """``token`` when it can guard the board: long enough, and only characters a cookie
    and a URL carry as they are."""
    if len(token) < MIN_TOKEN_LENGTH or not _TOKEN.fullmatch(token):
        raise InvalidInput(
            f"the web token must be at least {MIN_TOKEN_LENGTH} characters of A-Z a-z 0-9 . _ ~ "
            '+ / = -; make one with: python3 -c "import secrets; print(secrets.token_urlsafe(24))"'
        )
    return token


def new_csrf_token() -> str:
    return secrets.token_urlsafe(24)


def csrf_matches(cookie: str | None, given: str | None) -> bool:
    return bool(cookie) and bool(given) and hmac.compare_digest(str(cookie), str(given))


def _cookies(scope: Scope) -> dict[str, str]:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:
                return {}
            return {key: morsel.value for key, morsel in jar.items()}
    return {}


class TokenGate:
    """ASGI middleware: lets through only requests that present the token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    def _matches(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        bearer = request.headers.get("authorization", "")
        if bearer.lower().startswith("bearer ") and self._matches(bearer[7:].strip()):
            await self.app(scope, receive, send)
            return
        if self._matches(_cookies(scope).get(TOKEN_COOKIE)):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"))
        given = next((v for k, v in query if k == "token"), None)
        if scope["method"] == "GET" and self._matches(given):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            location = scope["path"] + (f"?{rest}" if rest else "")
            await _respond(
                send,
                303,
                b"",
                [
                    (b"location", location.encode()),
                    (
                        b"set-cookie",
                        f"{TOKEN_COOKIE}={given}; Path=/; HttpOnly; SameSite=Strict".encode(),
                    ),
                ],
            )
            return
        await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        message = (
            "This board needs its token: open the address `ralph web` printed "
            "(it ends in ?token=...), or send Authorization: Bearer TOKEN."
        )
        await refuse(scope, send, 401, message, [(b"www-authenticate", b"Bearer")])


async def refuse(
    scope: Scope,
    send: Send,
    status: int,
    message: str,
    headers: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    """Answer with ``message``: JSON under /api/, else a page (``message`` escaped)."""
    if scope["path"].startswith("/api/"):
        body = json.dumps({"error": message}).encode()
        kind = b"application/json"
    else:
        body = (
            f"<!doctype html><title>{status} · Ralph</title><h1>{status}</h1>"
            f"<p>{html.escape(message)}</p>"
        ).encode()
        kind = b"text/html; charset=utf-8"
    await _respond(send, status, body, [(b"content-type", kind), *headers])


async def _respond(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
