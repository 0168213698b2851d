"""A wait for a provider is in the store, so every process shows it: ``ralph status``
(another process), the web board and its API, and ``ralph serve``'s status file, whose
session leaves that agent's task waiting without starting it."""

from __future__ import annotations

import json
import queue
import signal
import threading
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.web import create_app

from ..cli_project import farewell_project
from ..conftest import ralph_process, spawn_ralph
from .conftest import Demo
from .test_team import wait_until

pytestmark = pytest.mark.timeout(120)

SAID = "usage limit reached"


def _hours_minutes(until: float) -> str:
    """As the line says it: the date too when not today."""
    today = time.strftime("%Y-%m-%d") == time.strftime("%Y-%m-%d", time.localtime(until))
    return time.strftime("%H:%M" if today else "%Y-%m-%d %H:%M", time.localtime(until))


def _line(until: float) -> str:
    return f"waiting for the provider of claude until {_hours_minutes(until)} ({SAID})"


def test_ralph_status_in_another_process_says_what_the_provider_waits_for(demo: Demo):
    until = time.time() + 3600
    demo.project.store.wait_for_provider("claude", until, SAID)

    shown = ralph_process("status", cwd=demo.folder, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert _line(until) in shown.stdout

    printed = ralph_process("status", "--json", cwd=demo.folder)
    (wait,) = json.loads(printed.stdout)["providerWaits"]
    assert (wait["agent"], wait["until"], wait["said"]) == ("claude", until, SAID)
    assert wait["text"] == _line(until)


def test_a_wait_that_ended_is_not_shown(demo: Demo):
    demo.project.store.wait_for_provider("claude", time.time() - 1, SAID)
    shown = ralph_process("status", "--json", cwd=demo.folder)
    assert json.loads(shown.stdout)["providerWaits"] == []


def test_the_web_board_and_its_api_show_the_wait(demo: Demo):
    until = time.time() + 600
    demo.project.store.wait_for_provider("claude", until, SAID)
    app = create_app(demo.project)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        page = client.get("/")
        (wait,) = client.get("/api/board").json()["providerWaits"]
    assert page.status_code == 200
    assert f">{_line(until)}</li>" in page.text
    assert wait["text"] == _line(until)


def test_serve_leaves_the_waiting_agents_task_unstarted_and_its_status_says_why(
    tmp_path: Path,
):
    repo, _ = create_demo_project(tmp_path / "greet")
    until = time.time() + 600
    with open_project(load_config(repo)) as project:
        project.store.wait_for_provider("scripted", until, SAID)
    status = tmp_path / "status.json"
    server = spawn_ralph(
        "serve",
        "--poll-seconds",
        "1",
        "--status-file",
        str(status),
        cwd=repo,
        env={"RALPH_AGENT": "scripted"},
    )

    def waiting() -> list[dict[str, object]]:
        if not status.is_file():
            return []
        return [
            task
            for root in json.loads(status.read_text())["running"]
            for task in root["waiting"]
            if task["waiting_for"] == "the provider of scripted"
        ]

    try:
        wait_until(lambda: bool(waiting()), timeout=60)
        document = json.loads(status.read_text())
        found = waiting()
    finally:
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=60)
    (task,) = found
    assert task["next_check"] == pytest.approx(until)
    (wait,) = document["provider_waits"]
    assert wait["text"] == (
        f"waiting for the provider of scripted until {_hours_minutes(until)} ({SAID})"
    )
    with open_project(load_config(repo)) as project:
        tasks = [t for run in project.store.list_runs() for t in project.store.list_tasks(run.id)]
    assert all(t.attempts == 0 for t in tasks), out


def test_a_hero_run_waits_for_a_reset_hours_away_says_so_once_and_ctrl_c_ends_it(
    tmp_path: Path,
):
    repo, number = farewell_project(tmp_path / "greet")
    until = time.time() + 3 * 3600
    with open_project(load_config(repo)) as project:
        project.store.wait_for_provider("scripted", until, SAID)
    hero = spawn_ralph("hero", str(number), cwd=repo, env={"RALPH_AGENT": "scripted"})
    lines: queue.Queue[str] = queue.Queue()
    assert hero.stdout is not None
    stdout = hero.stdout

    def read() -> None:
        for line in stdout:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    text = f"waiting for the provider of scripted until {_hours_minutes(until)} ({SAID})"
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while not any(text in line for line in seen):
            assert time.monotonic() < deadline, "".join(seen)
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                continue
        time.sleep(3)  # workers look again and again meanwhile: it is not said again
        hero.send_signal(signal.SIGINT)
        hero.wait(timeout=60)
    finally:
        if hero.poll() is None:
            hero.kill()
            hero.wait(timeout=30)
    reader.join(30)  # the reader has all of stdout: read nowhere else
    assert hero.stderr is not None
    err = hero.stderr.read()
    hero.stdout.close()
    hero.stderr.close()
    while not lines.empty():
        seen.append(lines.get())
    out = "".join(seen)
    assert hero.returncode == 130, out + err
    assert out.count(f"○ {text}") == 1, out
    assert f"W{text[1:]}." in out  # with the ending: what it waited for
    assert (
        f"Stopped: interrupted; tasks in hand finished first. `ralph hero {number}` resumes." in out
    )
    with open_project(load_config(repo)) as project:
        (run,) = project.store.list_runs()
        assert {t.attempts for t in project.store.list_tasks(run.id)} == {0}
