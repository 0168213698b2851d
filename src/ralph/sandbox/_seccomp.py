"""The seccomp filter every confined process runs under: ``socket(AF_UNIX, ...)`` is
refused. A network namespace does not isolate path-based Unix sockets, and read-only
mounts do not stop a ``connect``: a database's, Docker's or an agent's socket anywhere
on the machine would be one connect away. Hiding the folders they live in (``/run``,
the home) covers the known places; this covers every other one. ``socketpair`` stays
allowed (it reaches nothing outside) and so does every other family.

Also refused: ``io_uring_setup`` (its ``IORING_OP_SOCKET`` would make a socket without
the ``socket`` call), the i386 ``socketcall`` multiplexer (its arguments are in memory,
out of a filter's reach) and the x32 ABI. The program is classic BPF, built here."""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

__all__ = ["unix_socket_filter"]

# <linux/filter.h>, <linux/seccomp.h>, <linux/audit.h>
_LD_ABS_W = 0x20
_JEQ = 0x15
_JGE = 0x35
_RET = 0x06
_ALLOW = 0x7FFF0000
_DENY = 0x00050000 | errno.EPERM
_AF_UNIX = 1
_X32_BIT = 0x40000000
_IO_URING_SETUP = 425  # the same number on every architecture
# struct seccomp_data: nr, arch, instruction_pointer, args[6] (the low half of args[0]
# first: little-endian only, as are the architectures below).
_NR, _ARCH, _ARG0 = 0, 4, 16


@dataclass(frozen=True)
class _Abi:
    audit_arch: int
    socket: int
    #: Refused outright.
    refused: tuple[int, ...] = ()
    #: Numbers from 0x40000000 up are another ABI's (x86-64's x32).
    x32: bool = False


_X86_64 = _Abi(0xC000003E, 41, (_IO_URING_SETUP,), x32=True)
_I386 = _Abi(0x40000003, 359, (102, _IO_URING_SETUP))  # 102: socketcall
_AARCH64 = _Abi(0xC00000B7, 198, (_IO_URING_SETUP,))
_ARM = _Abi(0x40000028, 281, (_IO_URING_SETUP,))
#: The ABIs a machine's processes can call the kernel through.
_MACHINES = {"x86_64": (_X86_64, _I386), "aarch64": (_AARCH64, _ARM)}

_Jump = int | str
_Line = tuple[int, _Jump, _Jump, int]


def _program(abis: tuple[_Abi, ...]) -> list[_Line]:
    """Lines with jumps to labels (``"deny"``, ``"arg"``, ``"next<i>"``) or offsets."""
    lines: list[tuple[str | None, _Line]] = [(None, (_LD_ABS_W, 0, 0, _ARCH))]
    for index, abi in enumerate(abis):
        following = f"next{index}"
        lines.append((None, (_JEQ, 0, following, abi.audit_arch)))
        lines.append((None, (_LD_ABS_W, 0, 0, _NR)))
        if abi.x32:
            lines.append((None, (_JGE, "deny", 0, _X32_BIT)))
        lines.append((None, (_JEQ, "arg", 0, abi.socket)))
        lines += [(None, (_JEQ, "deny", 0, number)) for number in abi.refused]
        lines.append((None, (_RET, 0, 0, _ALLOW)))
        lines.append((following, (_LD_ABS_W, 0, 0, _ARCH)))
    # An ABI not listed (none a machine here runs): refused, whatever it asks.
    lines.append((None, (_RET, 0, 0, _DENY)))
    lines.append(("arg", (_LD_ABS_W, 0, 0, _ARG0)))
    lines.append((None, (_JEQ, "deny", 0, _AF_UNIX)))
    lines.append((None, (_RET, 0, 0, _ALLOW)))
    lines.append(("deny", (_RET, 0, 0, _DENY)))
    return _resolved(lines)


def _resolved(lines: list[tuple[str | None, _Line]]) -> list[_Line]:
    where = {label: at for at, (label, _) in enumerate(lines) if label is not None}

    def offset(jump: _Jump, at: int) -> int:
        return jump if isinstance(jump, int) else where[jump] - at - 1

    return [
        (code, offset(yes, at), offset(no, at), k)
        for at, (_, (code, yes, no, k)) in enumerate(lines)
    ]


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter as ``struct sock_filter`` records, ready for ``bwrap --seccomp`` or
    ``prctl(PR_SET_SECCOMP)``; None on a machine whose system calls it does not know
    (there, hiding the folders is the only guard)."""
    abis = _MACHINES.get(machine or platform.machine())
    if abis is None:
        return None
    return b"".join(struct.pack("<HBBI", *line) for line in _program(abis))
