"""A root waiting for a person does not hold ``ralph serve`` up: with an M issue whose
split escalated on the board, the service does not start it again and again (it said
"nothing to do" a thousand times in 25 s and burned a core), stays idle, and an XS issue
filed meanwhile starts at once; ``ralph loop`` lists each issue once."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.project import open_project
from ralph.workflow import Estimate, WorkflowState

from ..conftest import ralph_process, spawn_ralph
from .test_loop import _new_module
from .test_serve_reconcile import _NEVER, _project
from .test_team import wait_until

_S = WorkflowState
#: The window over which the idle service's CPU is measured.
_WINDOW_SECONDS = 10.0
#: Of one core: an idle service wakes for its leases and the status file only; the
#: spin took 15% to 75% (as much as a loaded machine gave it).
_IDLE = 0.05


def _cpu_seconds(pid: int) -> float:
    """The process's user and system CPU so far, all its threads (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _state(repo: Path, number: int) -> WorkflowState | None:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number).workflow_state


def _running(status: Path) -> list[int]:
    return [root["root"] for root in json.loads(status.read_text())["running"]]


def _escalated_split(repo: Path) -> int:
    """An M issue without a ``## Split`` section: ``ralph loop`` escalates its split."""
    with open_project(load_config(repo)) as project:
        big = project.tracker.create_issue("Big", estimate=Estimate.M, state=_S.BACKLOG)
    loop = ralph_process("loop", cwd=repo, env={"RALPH_AGENT": "scripted"})
    output = loop.stdout + loop.stderr
    assert _state(repo, big.number) is _S.HUMAN_NEEDED, output
    said = " ".join(output.split())  # however the report wraps
    assert f"#{big.number} needs a person:" in said  # one issue, one person's word
    assert "· 1 agent turn " in f"{said} "
    assert "Outcome: needs a person" in said
    return big.number


def test_loop_lists_an_escalated_issue_once_as_waiting_for_a_person(tmp_path):
    repo = _project(tmp_path)
    big = _escalated_split(repo)
    again = ralph_process("loop", cwd=repo, env={"RALPH_AGENT": "scripted"})
    output = again.stdout + again.stderr
    assert again.returncode == 1, output  # what is left waits for a person
    assert f"→ #{big}" not in output  # not started again
    assert "Work left" not in output
    assert f"No work an agent can do; waiting for a person: #{big}." in output
    assert output.count(f"#{big}") == 1, output


def test_serve_skips_an_escalated_issue_stays_idle_and_starts_a_new_one_at_once(tmp_path):
    repo = _project(tmp_path)
    with open_project(load_config(repo)) as project:  # as the loop above leaves it
        escalated = project.tracker.create_issue("Big", estimate=Estimate.M, state=_S.HUMAN_NEEDED)
    big = escalated.number
    status, log = tmp_path / "status.json", tmp_path / "serve.log"
    with log.open("w") as out:  # a file, not a pipe: a full pipe would slow a spin down
        server = spawn_ralph(
            "serve",
            *("--poll-seconds", _NEVER, "--status-file", str(status)),
            cwd=repo,
            env={"RALPH_AGENT": "scripted"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until(status.is_file, timeout=60)  # the board was read once
            before = _cpu_seconds(server.pid)
            with pytest.raises(subprocess.TimeoutExpired):  # the window: it neither exits
                server.wait(timeout=_WINDOW_SECONDS)  # nor works
            busy = (_cpu_seconds(server.pid) - before) / _WINDOW_SECONDS
            print(f"serve's CPU over {_WINDOW_SECONDS:g}s beside an escalated issue: {busy:.1%}")
            assert busy < _IDLE, f"serve used {busy:.0%} of a core while nothing could run"
            with open_project(load_config(repo)) as project:
                small = project.tracker.create_issue(
                    "Add sub", body=_new_module("sub"), estimate=Estimate.XS, state=_S.BACKLOG
                ).number
            # Far sooner than the next poll: only the board's change can start it.
            wait_until(lambda: small in _running(status), timeout=10)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
    said = log.read_text()
    assert server.returncode == 0, said
    assert "nothing to do" not in said
    assert f"→ #{big}" not in said
    assert re.findall(r"→ #(\d+)", said) == [str(small)]
    stopping = "Stopping: no new tasks; the running ones finish first (Ctrl-C again hands them"
    assert stopping in said
    assert _state(repo, big) is _S.HUMAN_NEEDED
