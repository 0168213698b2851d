"""A client that goes away in the middle of its request (a POST whose body stops short of
its Content-Length, then a closed connection) is nobody's error: ``ralph web`` drops
the request quietly, logs no exception and keeps serving."""

from __future__ import annotations

import socket
import urllib.request
from urllib.parse import urlsplit

from ..conftest import ralph_process, spawn_ralph
from .conftest import url_of


def test_a_post_cut_short_by_its_client_leaves_no_exception_on_stderr(project):
    assert ralph_process("init", cwd=project.path).returncode == 0
    server = spawn_ralph("web", "--port", "0", cwd=project.path)
    try:
        url = url_of(server)
        where = urlsplit(url)
        host = f"{where.hostname}:{where.port}"
        for _ in range(3):
            with socket.create_connection((where.hostname, where.port), timeout=10) as client:
                client.sendall(
                    (
                        "POST /runs/1/cancel HTTP/1.1\r\n"
                        f"Host: {host}\r\nOrigin: http://{host}\r\n"
                        "Content-Type: application/x-www-form-urlencoded\r\n"
                        "Content-Length: 100\r\n\r\ncsrf=abc"
                    ).encode()
                )
        with urllib.request.urlopen(url, timeout=30) as still:  # it keeps serving
            assert still.status == 200
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert "Exception in ASGI application" not in err
    assert "ClientDisconnect" not in err
    assert "Traceback" not in err
