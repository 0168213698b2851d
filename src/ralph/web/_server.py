"""Serving the app with uvicorn: the address bound first, so one in use is one line
with the way out rather than uvicorn's log and exit; the address it really bound
(``--port 0`` takes a free one) said once it listens; and on SIGINT or SIGTERM every
open event stream ended first, so the server's graceful shutdown does not wait on pages
that never hang up; the process then exits 0."""

from __future__ import annotations

import contextlib
import errno
import socket
from collections.abc import Callable, Iterator
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from ralph.errors import InvalidInput

__all__ = ["SHUTDOWN_SECONDS", "serve"]

#: How long requests in flight may take to finish after a stop was asked for.
SHUTDOWN_SECONDS = 5


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, ready: Callable[[str], None]) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        await super().startup(sockets)
        if self.started:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            shown = f"[{host}]" if ":" in str(host) else host
            self._ready(f"http://{shown}:{port}/")

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn raises a stop signal again once it has shut down, so the process dies
        # of it; a board stopped as asked ends with exit 0 instead, like ``ralph serve``.
        with super().capture_signals():
            yield
            self._captured_signals.clear()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        app = self.config.app
        if isinstance(app, Starlette):
            app.state.web.feed.stop(timeout=0)
        super().handle_exit(sig, frame)


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` as uvicorn binds one; InvalidInput naming the
    way out when it cannot be."""
    bound = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        bound.bind((host, port))
    except OSError as exc:
        bound.close()
        if exc.errno == errno.EADDRINUSE:
            raise InvalidInput(
                f"port {port} on {host} is in use (another ralph web?); choose another with "
                "--port N, or --port 0 for any free one"
            ) from None
        raise InvalidInput(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}; choose another "
            "--host, or --port 0 for any free port"
        ) from None
    return bound


def serve(app: Starlette, host: str, port: int, ready: Callable[[str], None]) -> None:
    """Serve ``app`` until SIGINT or SIGTERM; ``ready`` gets the base URL once bound."""
    bound = _bind(host, port)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        server_header=False,
    )
    with bound:
        _Server(config, ready).run(sockets=[bound])
