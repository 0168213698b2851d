"""``ralph serve`` keeps the board as ``ralph route`` and ``ralph hygiene`` do by hand:
a new issue is routed by the project's ``.ralph-routing.yml`` before it is started, and
with ``hygiene_interval`` the hygiene report's findings go to the service's log. A
routing file with a mistake refuses to start the service, naming the line."""

from __future__ import annotations

import pytest

from ralph.config import load_config
from ralph.errors import InvalidInput
from ralph.orchestrate import Interrupt, SessionOptions, serve
from ralph.pipeline import QueuedRoot
from ralph.project import open_project
from ralph.routing import ROUTING_FILE
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import Estimate

from .test_loop import _new_module
from .test_serve_reconcile import _project

_ROUTES = """\
version: 1
rules:
  - name: everything new
    match:
      repo: "**"
    action:
      labels: [routed]
"""


def _serve_once(project, notes: list[str]) -> list[int]:
    """Serve until the first root starts; what it noted, and the roots started."""
    interrupt = Interrupt()
    started: list[int] = []

    def on_start(queued: QueuedRoot) -> None:
        started.append(queued.root)
        interrupt.signal()  # the tasks in hand finish; nothing more starts

    options = SessionOptions.from_config(
        project.config, mode="hero", max_roots=1, max_agents=1, interrupt=interrupt
    )
    serve(
        project,
        ScriptedRuntime(env={}),
        options,
        poll_seconds=60,
        on_start=on_start,
        on_note=notes.append,
    )
    return started


def test_serve_routes_a_new_issue_and_logs_the_hygiene_report(tmp_path, monkeypatch):
    monkeypatch.setenv("RALPH_HYGIENE_INTERVAL", "24")
    repo = _project(tmp_path)
    (repo / ROUTING_FILE).write_text(_ROUTES)
    notes: list[str] = []
    with open_project(load_config(repo)) as project:
        filed = project.tracker.create_issue(
            "Add alpha", body=_new_module("alpha"), estimate=Estimate.XS
        ).number
        assert _serve_once(project, notes) == [filed]
        assert "routed" in project.tracker.get_issue(filed).labels
    assert f"#{filed}: routed by {ROUTING_FILE} (labels routed: added)" in notes
    (hygiene,) = [n for n in notes if n.startswith("hygiene: ")]
    assert "`ralph hygiene` lists them" in hygiene or "the board is tidy" in hygiene


def test_serve_without_hygiene_interval_logs_no_hygiene_report(tmp_path):
    repo = _project(tmp_path)
    notes: list[str] = []
    with open_project(load_config(repo)) as project:
        project.tracker.create_issue("Add alpha", body=_new_module("alpha"), estimate=Estimate.XS)
        _serve_once(project, notes)
    assert not [n for n in notes if n.startswith("hygiene")]


def test_a_routing_file_with_a_mistake_refuses_to_start_serve(tmp_path):
    repo = _project(tmp_path)
    (repo / ROUTING_FILE).write_text(_ROUTES.replace("repo:", "repository:"))
    with open_project(load_config(repo)) as project, pytest.raises(InvalidInput) as refused:
        _serve_once(project, [])
    assert ROUTING_FILE in str(refused.value)
