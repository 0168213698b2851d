"""Run inside an agent's network namespace, before the agent: listen on a port of the
namespace's own loopback, then run the agent, while a child process forwards every
connection to that port to the egress proxy's unix socket (``_proxy``). Listening
before the agent starts leaves no moment it could find nothing there.

The agent then runs under the seccomp filter ``FILTER`` (hex; ``-``: none), which
refuses it every Unix socket (``_seccomp``): the forwarder, started before, is the one
process that opens them, and it cannot be traced or read by the agent (not dumpable).

Standard library only, run as ``python -I -S _bridge.py PORT SOCKET FILTER ARGV...``:
Ralph's imports would cost every agent run their start-up time."""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import sys
import threading

__all__ = ["main"]

_CHUNK = 64 * 1024
# <linux/prctl.h>, <linux/seccomp.h>
_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2


class _Program(ctypes.Structure):
    """struct sock_fprog."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _prctl(*arguments: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(*(ctypes.c_ulong(word) for word in (*arguments, 0, 0))) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({arguments[0]}) refused")


def _seal(program: bytes) -> None:
    """Every process from here on runs under ``program`` (sock_filter records)."""
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.addressof(code))
    _prctl(_PR_SET_NO_NEW_PRIVS, 1, 0)
    _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog))


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
    port, path, sealed, command = int(argv[0]), argv[1], argv[2], argv[3:]
    server = socket.create_server(("127.0.0.1", port), backlog=64)
    if os.fork() == 0:
        _prctl(_PR_SET_DUMPABLE, 0, 0)
        # The forwarder: the agent's output pipes are not its to hold open. It ends with
        # the sandbox (the agent's exit ends the namespace's every process).
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        _serve(server, path)
        os._exit(0)
    server.close()
    if sealed != "-":
        _seal(bytes.fromhex(sealed))
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
