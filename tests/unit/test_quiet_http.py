"""The fakes' request handler says nothing when a client hangs up before its answer is
written, and still lets the server report any other failure."""

from __future__ import annotations

import socket
from http.server import ThreadingHTTPServer

import pytest

from ralph._quiet_http import QuietHandler

pytestmark = pytest.mark.timeout(30)


class Answers(QuietHandler):
    def do_GET(self) -> None:
        body = b"x" * 100_000  # past any socket buffer: the write meets the hang-up
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Fails(QuietHandler):
    def do_GET(self) -> None:
        raise ValueError("a bug in the fake")


def served_to_a_client_gone(handler: type[QuietHandler]) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler, bind_and_activate=False)
    client, served = socket.socketpair()
    client.sendall(b"GET / HTTP/1.1\r\nhost: fake\r\n\r\n")
    client.close()
    try:
        server.process_request_thread(served, ("127.0.0.1", 0))
    finally:
        server.server_close()


def test_a_client_hanging_up_before_the_answer_is_not_reported(
    capfd: pytest.CaptureFixture[str],
) -> None:
    served_to_a_client_gone(Answers)
    assert capfd.readouterr().err == ""


def test_any_other_failure_is_still_reported(capfd: pytest.CaptureFixture[str]) -> None:
    served_to_a_client_gone(Fails)
    err = capfd.readouterr().err
    assert "ValueError: a bug in the fake" in err
