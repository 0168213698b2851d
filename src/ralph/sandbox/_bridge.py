"""Run inside an agent's network namespace, before the agent: listen on a port of the
namespace's own loopback, then run the agent, while a child process forwards every
connection to that port to the egress proxy's unix socket (``_proxy``). Listening
before the agent starts leaves no moment it could find nothing there.

Standard library only, run as ``python -I -S _bridge.py PORT SOCKET ARGV...``: Ralph's
imports would cost every agent run their start-up time."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading

__all__ = ["main"]

_CHUNK = 64 * 1024


def _copy(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(_CHUNK):
            sink.sendall(chunk)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _forward(client: socket.socket, path: str) -> None:
    with client, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as proxy:
        try:
            proxy.connect(path)
        except OSError:
            return
        back = threading.Thread(target=_copy, args=(proxy, client), daemon=True)
        back.start()
        _copy(client, proxy)
        back.join()


def _serve(server: socket.socket, path: str) -> None:
    while True:
        client, _ = server.accept()
        threading.Thread(target=_forward, args=(client, path), daemon=True).start()


def main(argv: list[str]) -> None:
    port, path, command = int(argv[0]), argv[1], argv[2:]
    server = socket.create_server(("127.0.0.1", port), backlog=64)
    if os.fork() == 0:
        # The forwarder: the agent's output pipes are not its to hold open. It ends with
        # the sandbox (the agent's exit ends the namespace's every process).
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        _serve(server, path)
        os._exit(0)
    server.close()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
