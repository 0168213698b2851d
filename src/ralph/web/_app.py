"""The web application: the routes of every page, the static files (the stylesheet and
``live.js``, shipped in the package), the security headers, the Host and origin checks,
the token gate, errors as pages, and the live feed started and stopped with the app."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from ralph._secrets import redact
from ralph.errors import (
    RalphError,
    ServiceRateLimited,
    ServiceUnavailable,
    StateConflict,
    StoreUnreachable,
)
from ralph.project import Project
from ralph.web import _board, _issues, _live, _runs, _spend
from ralph.web._board import board_fingerprint
from ralph.web._context import WebContext, context_of
from ralph.web._feed import Feed
from ralph.web._headers import SecurityHeaders
from ralph.web._hosts import HostGate
from ralph.web._security import TokenGate

__all__ = ["create_app"]

_STATIC = Path(__file__).parent / "static"
#: Errors a person cannot fix by asking differently: 503, try again.
_UNAVAILABLE = (
    StoreUnreachable,
    ServiceUnavailable,
    ServiceRateLimited,
)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return context_of(request).error(request, exc.status_code, str(exc.detail))


async def _ralph_error(request: Request, exc: Exception) -> Response:
    """A refusal as one line: 404 for what does not exist, 409 for a state that moved
    underneath, 503 for what did not answer, 400 for the rest (a phase refused, a move
    the workflow forbids)."""
    if isinstance(exc, LookupError):
        status = 404
    elif isinstance(exc, StateConflict):
        status = 409
    elif isinstance(exc, _UNAVAILABLE):
        status = 503
    else:
        status = 400
    return context_of(request).error(request, status, redact(str(exc)))


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client closed the connection in the middle of its request (a body cut short):
    no one is left to answer, and nothing went wrong here, so nothing is logged."""
    return Response(status_code=400)


def create_app(
    project: Project,
    *,
    token: str | None = None,
    hosts: Iterable[str] = (),
    poll_seconds: float | None = None,
) -> Starlette:
    """The board of ``project`` (already open; the caller closes it). ``token``: every
    request must present it. ``hosts``: the names it answers to besides loopback's.
    ``poll_seconds``: how often the live feed reads the board when its tracker's changes
    do not show in the store's database (GitHub: ralph.toml's ``poll_seconds`` by
    default)."""
    remote = project.tracker.remote
    if poll_seconds is None and remote:
        poll_seconds = project.config.poll_seconds
    feed = Feed(
        project.store,
        project.store.db,
        lambda: board_fingerprint(project),
        poll_seconds=poll_seconds,
    )
    web = WebContext(
        project, feed, guarded=token is not None, _tracker_lock=threading.Lock() if remote else None
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        feed.start()
        try:
            yield
        finally:
            feed.stop()

    # The Host check first: a request for a name the board does not serve learns nothing
    # (its refusal still carries the security headers, added around everything).
    middleware = [Middleware(SecurityHeaders), Middleware(HostGate, hosts=hosts)]
    if token:
        middleware.append(Middleware(TokenGate, token=token))
    app = Starlette(
        routes=[
            *_board.routes,
            *_issues.routes,
            *_runs.routes,
            *_spend.routes,
            *_live.routes,
            Mount("/static", StaticFiles(directory=_STATIC), name="static"),
        ],
        middleware=middleware,
        exception_handlers={
            HTTPException: _http_error,
            RalphError: _ralph_error,
            ClientDisconnect: _client_gone,
        },
        lifespan=lifespan,
    )
    app.state.web = web
    return app
