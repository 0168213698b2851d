"""What each running task's agent is doing, wherever a run is watched: under the task in
the live table (hero, team; every root's running tasks for loop and serve), as a line
when piped whenever it says something new, and in ``ralph runs show``/``tasks show``."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from ralph.cli import main
from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.demo import create_demo_project
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.runtimes import ActivityFeed
from ralph.tasks import Claim, Run

from ..conftest import RALPH, ralph_environment, ralph_process
from .conftest import Demo

pytestmark = pytest.mark.timeout(120)

_SCRIPTED = {"RALPH_AGENT": "scripted", "RALPH_SCRIPTED_DELAY": "1"}


def _running(demo: Demo, root: int, subject: str) -> tuple[Run, Claim]:
    """A run of ``root`` whose one task ``hero-2`` holds, its agent at work: one turn,
    12,345 tokens, an edit, a refused Bash."""
    store = demo.project.store
    run = store.create_run(f"hero GH-{root}", root_issue=root, mode="hero")
    spec = TaskSpec(f"implement:{root}", TaskKind.IMPLEMENT, Role.BUILDER, (root,), subject, "")
    [task] = store.add_tasks(run.id, [spec])
    claim = store.claim_task(task.id, "host:1/hero-2")
    feed = ActivityFeed("claude")
    feed.turn()
    feed.usage(tokens=12_345, cost_usd=0.02)
    feed.tool("Edit", "calc/__init__.py")
    feed.refused("Bash")
    activity = feed.snapshot()
    store.record_activity(claim, activity.to_dict(), activity.summary())
    return run, claim


def _terminal(width: int = 120, color: bool = False) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    system = "standard" if color else None
    return Console(file=out, force_terminal=True, width=width, color_system=system), out


def test_on_a_terminal_a_running_task_shows_what_its_agent_does_and_elapsed_ticks(demo: Demo):
    run, _ = _running(demo, demo.epic, f"Implement GH-{demo.epic}")
    console, out = _terminal()
    view = LiveView(demo.project.store, demo.project.tracker, console)
    with view.showing():
        view(run, demo.project.store.events(run.id))
        time.sleep(1.3)  # no event meanwhile: the table is drawn again all the same
    shown = out.getvalue()
    assert "turn 1 · 12.3k tokens · $0.02 · Edit calc/__init__.py · refused Bash" in shown
    row = re.compile(rf"Implement GH-{demo.epic}\s+│ ● running │ hero-2\s+│ (\S+)")
    assert len(set(row.findall(shown))) >= 2, shown  # its elapsed time ticked

    console, out = _terminal(color=True)
    console.print(view.table(run))
    assert "\x1b[31mrefused Bash" in out.getvalue()  # refused tools in red


def test_agent_text_reaches_the_terminal_as_text_never_as_control_sequences(demo: Demo):
    run, claim = _running(demo, demo.epic, f"Implement GH-{demo.epic}")
    hostile = {
        "turns": 2,
        "tool": "Edit [bold]x[/bold] \x1b[2J",
        "refused": ["Bash\x1b]0;pwned\x07"],
    }
    demo.project.store.record_activity(claim, hostile, "turn 2 · [red]x[/red] \x1b[2J")
    events = demo.project.store.events(run.id)
    piped = io.StringIO()
    LiveView(demo.project.store, demo.project.tracker, Console(file=piped, width=200))(run, events)
    console, out = _terminal()
    console.print(LiveView(demo.project.store, demo.project.tracker, console).table(run))
    for shown in (piped.getvalue(), out.getvalue()):
        assert "\x1b[2J" not in shown
        assert "\x1b]0;" not in shown
        assert "\x07" not in shown
    assert "turn 2 · [red]x[/red] \ufffd[2J" in piped.getvalue()
    assert "Edit [bold]x[/bold] \ufffd[2J" in out.getvalue()


def test_loop_and_serve_show_every_roots_running_tasks_and_forget_a_run_once_ended(demo: Demo):
    first, _ = _running(demo, 101, "Implement GH-101")
    second, _ = _running(demo, 102, "Research GH-102")
    console, out = _terminal()
    view = LiveView(demo.project.store, demo.project.tracker, console, many=True)
    with view.showing():
        view(first, demo.project.store.events(first.id))
        view(second, demo.project.store.events(second.id))
    both = out.getvalue()
    assert "Running: 2 tasks of 2 roots" in both
    for root, subject in ((101, "Implement GH-101"), (102, "Research GH-102")):
        assert re.search(rf"#{root}\s+│ {subject}\s+│ hero-2", both), both
    assert both.count("turn 1 · 12.3k tokens · $0.02 · Edit calc/__init__.py") >= 2

    console, out = _terminal()
    view.console = console
    view.forget(first.id)
    with view.showing():
        view(second, demo.project.store.events(second.id))
    assert "Running: 1 task of 1 root" in out.getvalue()
    assert "GH-101" not in out.getvalue()


def test_piped_hero_says_each_new_activity_line_between_a_tasks_start_and_end(tmp_path: Path):
    repo, epic = create_demo_project(tmp_path / "greet")
    done = ralph_process("hero", str(epic), cwd=repo, env=_SCRIPTED)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    triage = [line for line in lines if f"Triage GH-{epic} [hero-" in line]
    said = [line.split("] ", 1)[1] for line in triage]
    assert (said[0], said[-1]) == ("started", "done"), done.stdout
    assert said[1:-1], done.stdout  # what its agent did, in between
    assert all(words.startswith("turn 1 · ") for words in said[1:-1]), done.stdout
    activity = [line for line in lines if re.match(r"\d\d:\d\d:\d\d ● .* turn \d", line)]
    assert len(activity) >= 5, done.stdout  # every agent said something while it worked
    # A line only when the activity says something new for its task.
    told = [line.split(" ", 1)[1] for line in activity]
    assert len(told) == len(set(told)), done.stdout


def test_piped_loop_says_what_each_task_does_before_its_root_ends(tmp_path: Path):
    repo, epic = create_demo_project(tmp_path / "greet")
    done = ralph_process("loop", cwd=repo, env=_SCRIPTED)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    lines = done.stdout.splitlines()
    report = next(i for i, line in enumerate(lines) if line.startswith("Run 1: "))
    started = next(i for i, line in enumerate(lines) if f"Triage GH-{epic} [" in line)
    working = next(
        i for i, line in enumerate(lines) if re.search(rf"Triage GH-{epic} \[\S+\] turn 1", line)
    )
    finished = next(
        i for i, line in enumerate(lines) if "Merge PR for GH-" in line and "done" in line
    )
    assert "started" in lines[started]
    assert started < working < finished < report, done.stdout


@pytest.fixture
def ralph(demo: Demo, monkeypatch, capsys):
    monkeypatch.chdir(demo.folder)
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> str:
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        assert (info.value.code or 0) == 0, out + err
        return str(out)

    return run


def test_runs_show_gives_each_tasks_activity_and_last_events(demo: Demo, ralph):
    number = demo.issue("farewell")
    result = demo.hero(number)
    assert result.run is not None
    out = ralph("runs", "show", str(result.run.id))
    assert "Agent activity:" in out
    assert f"  Research GH-{number} (done): turn 1 · “" in out
    assert re.search(r"\n    \d\d:\d\d:\d\d said +Working on the research of", out), out
    details = ralph("runs", "show", str(result.run.id), "--details")
    assert details.count("\n    ") > out.count("\n    ")  # every event each task keeps

    run, claim = _running(demo, 101, "Implement GH-101")
    out = ralph("runs", "show", str(run.id))
    assert "Implement GH-101 (running): turn 1 · 12.3k tokens · $0.02 · Edit" in out
    assert re.search(r"\d\d:\d\d:\d\d refused Bash", out), out
    document = json.loads(ralph("runs", "show", str(run.id), "--json"))
    [task] = document["report"]["tasks"]
    assert task["activity"]["tokens"] == 12_345
    assert [e["kind"] for e in task["activity"]["recent"]] == ["tool", "refused"]
    shown = ralph("tasks", "show", str(claim.task_id))
    assert "agent: turn 1 · 12.3k tokens · $0.02 · Edit calc/__init__.py · refused Bash" in shown


def _on_a_terminal(args: list[str], cwd: Path, timeout: float = 100) -> tuple[int, str]:
    """``ralph ARGS`` on a real pseudo-terminal 100 columns wide: its exit code and all
    it wrote there."""
    main_end, their_end = pty.openpty()
    fcntl.ioctl(their_end, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 100, 0, 0))
    env = ralph_environment({**_SCRIPTED, "RALPH_SCRIPTED_DELAY": "3", "COLUMNS": "100"})
    process = subprocess.Popen(
        [RALPH, *args], cwd=cwd, env=env, stdin=their_end, stdout=their_end, stderr=their_end
    )
    os.close(their_end)
    written = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main_end], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(main_end, 65536)
                except OSError:  # the terminal closed: the process is gone
                    break
                if not chunk:
                    break
                written += chunk
            elif process.poll() is not None:
                break
        code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        os.close(main_end)
    # Its text without the colours and cursor moves, frame after frame.
    return code, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", written.decode("utf-8", "replace"))


def test_loop_on_a_terminal_draws_each_roots_running_tasks_with_their_activity(tmp_path: Path):
    repo, epic = create_demo_project(tmp_path / "greet")
    code, shown = _on_a_terminal(["loop"], repo)
    assert code == 0, shown
    assert "Running: 1 task of 1 root" in shown, shown
    assert re.search(rf"#{epic} +│ Triage GH-{epic} +│ hero-\d ", shown), shown
    assert re.search(r"│ +turn 1 · (Read #|“)", shown), shown  # under a running task
    assert "Run 1: " in shown  # the root's report once it ended, below the table
