"""A holder's name says which process of which machine holds a claim, and when that
process started: a pid the system gave to a later process is not the holder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from ralph._process import Holder, holder_is_gone, process_owner


def test_this_process_is_not_gone():
    assert not holder_is_gone(process_owner("merge"))


def test_a_process_of_this_machine_that_exited_is_gone():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait(timeout=30)
    assert holder_is_gone(f"{socket.gethostname()}:{process.pid}/merge")


def test_a_pid_now_held_by_a_process_started_later_is_gone():
    started = Holder.parse(process_owner()).started
    assert started  # Linux keeps it in /proc
    reused = f"{socket.gethostname()}:{os.getpid()}@{int(started) - 1}/merge"
    assert holder_is_gone(reused)


def test_holders_of_other_machines_and_old_names_are_never_presumed_gone():
    assert not holder_is_gone(f"not-{socket.gethostname()}:999999999@1/merge")
    assert not holder_is_gone(f"{socket.gethostname()}:{os.getpid()}/merge")  # no start time
    assert not holder_is_gone("lead")


def test_a_name_is_taken_apart():
    assert Holder.parse("box:42@9001/builder-1") == Holder("box", 42, "9001", "builder-1")
    assert Holder.parse("box:42") == Holder("box", 42, "", "")
