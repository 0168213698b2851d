"""``ralph web``: the board in a browser, thin over ``ralph.web``."""

from __future__ import annotations

from typing import Annotated

import typer

from ralph._secrets import register_secret
from ralph.cli._echo import echo
from ralph.cli._project import open_project_of
from ralph.errors import InvalidInput

__all__ = ["DEFAULT_PORT", "web_command"]

DEFAULT_PORT = 8765


def _host(text: str) -> str:
    if not text or not text.isascii() or not text.isprintable() or any(c.isspace() for c in text):
        raise InvalidInput(f"--host {text!r} is not a host name or address; e.g. 127.0.0.1")
    return text


def _allowed_host(text: str) -> str:
    from ralph.web import host_name

    printable = text.isascii() and text.isprintable() and not any(c.isspace() for c in text)
    if not printable or host_name(text) != text.lower().strip("[]"):
        raise InvalidInput(
            f"--allowed-host {text!r} is not a host name; give the name alone, without a "
            "scheme or port: e.g. --allowed-host board.example"
        )
    return text.lower().strip("[]")


def web_command(
    ctx: typer.Context,
    host: Annotated[
        str,
        typer.Option("--host", help="Address to listen on; anything but loopback needs --token."),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")
    ] = DEFAULT_PORT,
    allowed_hosts: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="Another name the board answers to (repeatable); it always answers to "
            "127.0.0.1, localhost and --host.",
            show_default=False,
        ),
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="RALPH_WEB_TOKEN",
            help="Every request must present it (Bearer, or ?token= once in a browser).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """The board in a browser: columns by state, issues, runs with their task graphs,
    spending, live as it changes, and the actions a person takes (approve, reject,
    retry, cancel). Every page is also JSON under /api/."""
    from ralph.web import check_token, create_app, is_loopback, serve

    _host(host)
    names = [_allowed_host(name) for name in allowed_hosts or ()]
    if token is not None:
        check_token(token)
        register_secret(token)
    elif not is_loopback(host):
        raise InvalidInput(
            f"--host {host} lets other machines in: give --token (or RALPH_WEB_TOKEN) too"
        )
    with open_project_of(ctx) as project:
        app = create_app(project, token=token, hosts=[host, *names])

        def ready(url: str) -> None:
            # Flushed: whoever started it (a script, a test) waits for this line.
            lines = [f"ralph web: the board of {project.config.repo} at {url}"]
            if token is not None:
                lines.append(f"Open {url}?token=YOUR_TOKEN once; the browser keeps it.")
            lines.append("Ctrl-C stops it.")
            echo("\n".join(lines))

        serve(app, host, port, ready)
