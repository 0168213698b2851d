"""The seccomp filter's program: whole sock_filter records whose every jump lands inside
it and which ends by answering, for the machines whose system calls it knows; none for
another (hiding the folders is then the only guard). What it refuses is shown by real
processes in tests/integration/sandbox/test_host_reach.py."""

from __future__ import annotations

import struct

import pytest

from ralph.sandbox._seccomp import unix_socket_filter

_RET, _JUMP_CLASS = 0x06, 0x05


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_every_jump_lands_inside_the_program_and_it_ends_by_answering(machine):
    program = unix_socket_filter(machine)
    assert program is not None
    assert len(program) % 8 == 0
    lines = [struct.unpack("<HBBI", program[at : at + 8]) for at in range(0, len(program), 8)]
    assert len(lines) <= 4096  # the kernel's limit
    for at, (code, yes, no, _) in enumerate(lines):
        if code & 0x07 == _JUMP_CLASS:
            assert at + 1 + max(yes, no) < len(lines)
    assert lines[-1][0] == _RET


def test_a_machine_it_does_not_know_gets_no_filter():
    assert unix_socket_filter("riscv64") is None
