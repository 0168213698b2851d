"""Ctrl-C while a session runs: the first stops new work, the second hands running
tasks back, however close together they come."""

from __future__ import annotations

import os
import signal

import pytest

from ralph.cli._console import Console
from ralph.cli._starting import signals
from ralph.orchestrate import Interrupt

pytestmark = pytest.mark.timeout(10)


def test_the_first_ctrl_c_stops_new_work_and_says_a_second_hands_tasks_back(capsys):
    interrupt = Interrupt()
    with signals(interrupt):
        os.kill(os.getpid(), signal.SIGINT)
    assert interrupt.stopping.is_set()
    assert not interrupt.aborting.is_set()
    assert "Ctrl-C again hands them back now" in capsys.readouterr().err


def test_a_second_ctrl_c_that_arrives_while_the_first_is_said_still_hands_tasks_back(
    monkeypatch, capsys
):
    interrupt = Interrupt()
    printed = Console.print

    def print_and_be_signalled_again(self: Console, *args: object, **kwargs: object) -> None:
        printed(self, *args, **kwargs)  # type: ignore[arg-type]
        if not interrupt.aborting.is_set():
            # Python runs the second handler inside the first, right after this call.
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(Console, "print", print_and_be_signalled_again)
    with signals(interrupt):
        os.kill(os.getpid(), signal.SIGINT)
    assert interrupt.aborting.is_set()
    assert "Stopping now: handing running tasks back" in capsys.readouterr().err


def test_the_handlers_before_a_session_are_back_after_it():
    before = signal.getsignal(signal.SIGTERM)
    with signals(Interrupt()):
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
