"""A service's address as ralph.toml or an option names it, checked before any token is
sent to it: https, no user or password in it (secrets come from the environment), plain
http only to this machine (a fake or a tunnel), and nothing a request path cannot follow."""

from __future__ import annotations

from urllib.parse import urlsplit

from ralph.errors import ConfigError

__all__ = ["LOOPBACK", "service_url"]

#: The hosts plain http may reach: this machine.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def service_url(raw: str, where: str, *, example: str, credentials: str) -> str:
    """``raw`` without a trailing slash, or one line naming what is wrong: ``example`` is
    the address to use instead, ``credentials`` says where the secret goes."""
    try:
        parts = urlsplit(raw.strip())
        host = parts.hostname or ""
    except ValueError:
        parts, host = None, ""
    if parts is None or parts.scheme not in ("https", "http") or not host:
        raise ConfigError(f"{where}: {raw!r} is not a URL; use {example}")
    if "@" in parts.netloc:
        # Named without the URL: what precedes the @ is a secret.
        raise ConfigError(
            f"{where}: the URL holds a user name or password; remove them (use {example}) "
            f"and {credentials}"
        )
    if parts.query or parts.fragment or any(c in raw for c in '"\\ \t\n'):
        raise ConfigError(f"{where}: {raw!r} is not a site address; use {example}")
    if parts.scheme == "http" and host not in LOOPBACK:
        raise ConfigError(
            f"{where}: {raw!r} would send the token unencrypted; use https:// "
            "(plain http is for 127.0.0.1, localhost or ::1 only)"
        )
    return raw.strip().rstrip("/")
