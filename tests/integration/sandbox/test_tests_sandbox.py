"""The project's test command runs agent-written tests confined: they write in their
worktree and the private /tmp only, and reach no network unless ralph.toml says "on"."""

from __future__ import annotations

import os
import shlex
import socket
import sys
from collections.abc import Iterator

import pytest

from ralph.phases._branches import run_tests
from ralph.sandbox import probe

pytestmark = pytest.mark.skipif(not probe().available, reason=probe().reason)


def python(code: str) -> str:
    return shlex.join([sys.executable, "-c", code])


@pytest.fixture
def listening() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def test_a_planted_test_writing_outside_its_worktree_fails_and_changes_nothing(
    machine, monkeypatch
):
    monkeypatch.setenv("HOME", str(machine.home))
    before = machine.protected()
    targets = [str(path) for path in before]
    planted = python(
        "import sys\n"
        "open('inside.txt', 'w').write('ok')\n"
        "open('/tmp/scratch.txt', 'w').write('ok')\n"
        f"for path in {targets!r}:\n"
        "    try:\n"
        "        open(path, 'a').write('pwned')\n"
        "    except OSError as exc:\n"
        "        print(path, exc.strerror)\n"
    )
    run = run_tests(planted, machine.worktree)
    assert run.passed, run.output
    assert machine.protected() == before
    assert (machine.worktree / "inside.txt").read_text() == "ok"
    # Every one but the file in /tmp, which went to the sandbox's private /tmp.
    assert run.output.count("Read-only file system") == len(before) - 1, run.output


def test_without_network_a_connection_to_localhost_fails(machine, listening):
    connect = python(f"import socket; socket.create_connection(('127.0.0.1', {listening}), 5)")
    run = run_tests(connect, machine.worktree)
    assert not run.passed
    assert "Network is unreachable" in run.output or "Connection refused" in run.output


def test_with_network_on_the_same_connection_works(machine, listening):
    connect = python(f"import socket; socket.create_connection(('127.0.0.1', {listening}), 5)")
    run = run_tests(connect, machine.worktree, network=True)
    assert run.passed, run.output


def test_a_confined_root_cannot_remount_its_way_out(machine):
    escape = machine.outside / "escaped"
    run_tests(f"mount -o remount,rw / ; touch {escape}", machine.worktree)
    assert not escape.exists()


def test_caches_go_to_the_private_tmp_not_the_persons_home(machine, monkeypatch):
    monkeypatch.setenv("HOME", str(machine.home))
    run = run_tests(
        'mkdir -p "$XDG_CACHE_HOME/go-build" && echo "$XDG_CACHE_HOME"', machine.worktree
    )
    assert run.passed, run.output
    assert run.output == "/tmp/.cache"
    assert list((machine.home / ".cache").iterdir()) == []


def test_a_program_on_the_path_under_tmp_stays_runnable_read_only(machine, tmp_path, monkeypatch):
    # A clone in /tmp names its own .venv/bin/python: the private /tmp must not hide it.
    tools = tmp_path / "clone" / ".venv" / "bin"
    tools.mkdir(parents=True)
    tool = tools / "project-tests"
    tool.write_text('#!/bin/sh\necho ran from $0\ntouch "$0.pwned" 2>&1 || true\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    run = run_tests(str(tool), machine.worktree)
    assert run.passed, run.output
    assert f"ran from {tool}" in run.output
    assert not (tools / "project-tests.pwned").exists()  # shown, never writable
