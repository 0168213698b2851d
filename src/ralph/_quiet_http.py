"""The request handler of the local HTTP servers the fakes run (the services', the model
APIs'): it says nothing of the requests it serves, nor of a client that hangs up before
its answer is written."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any

__all__ = ["QuietHandler"]


class QuietHandler(BaseHTTPRequestHandler):
    def handle(self) -> None:
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            # A client gone (an agent or a process a test stopped) is normal for a fake;
            # the server would print the traceback into the test's output.
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass
