"""A real webhook server on 127.0.0.1 for notification tests: it keeps every body POSTed
to it, and answers with a status a test chooses (or not at all, for a while)."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest


class Webhook:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        #: Answers for the next requests, in order; 200 once they are used up.
        self.statuses: list[int] = []
        #: Seconds each request waits before it is answered.
        self.delay = 0.0
        self._arrived = threading.Condition()
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/hooks/T000/B000"

    def record(self, body: bytes) -> int:
        with self._arrived:
            self.raw.append(body)
            self.received.append(json.loads(body))
            self._arrived.notify_all()
            return self.statuses.pop(0) if self.statuses else 200

    def wait_for(self, count: int, timeout: float = 10) -> list[dict[str, Any]]:
        """The bodies once ``count`` have arrived (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"only {len(self.received)} of {count} notifications arrived"
                self._arrived.wait(left)
            return list(self.received)


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status = hook.record(body)
            time.sleep(hook.delay)
            self.send_response(status)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    hook.server = server
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


#: A notify command's program that POSTs what it got (standard input, "$1" and its
#: environment) to the URL it is given: how a confined command is watched from outside.
RELAY = """import json, os, sys, urllib.request
body = {"stdin": sys.stdin.read(), "summary": sys.argv[2], "env": dict(os.environ)}
urllib.request.urlopen(sys.argv[1], data=json.dumps(body).encode(), timeout=10)
"""


def relay(folder: Path, webhook: Webhook) -> str:
    """A notify command, run in ``folder``, that relays what it got to ``webhook``."""
    (folder / "relay.py").write_text(RELAY)
    return f'{sys.executable} relay.py {webhook.url} "$1"'
