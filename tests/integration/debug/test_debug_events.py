"""The debug log from the code that writes it: MCP tool calls, GraphQL requests, agent
runs, phase refusals and hook decisions each leave their event (with RALPH_DEBUG=1 or
``[debug] enabled``), nothing is written while it is off, and no planted secret reaches
a file."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from ralph import _secrets
from ralph._debuglog import disable_debug_log, enable_debug_log, record_event
from ralph.config import Config
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.github import GitHubClient, Tokens
from ralph.github.fake import FakeGitHub, ScriptedFault
from ralph.mcp import build_server
from ralph.plugin import HookContext, run_hook, set_context
from ralph.project import Project
from ralph.tasks import open_store
from ralph.tracker import LocalCodeHost, LocalTracker

from ..cli_project import farewell_project
from ..conftest import GitProject
from ..tracker.conftest import github_tracker

TOKEN = "ghp_PLANTEDtoken1111111111111111111111"
API_KEY = "sk-ant-PLANTED-api-key-2222222222"
STORE_PASSWORD = "PLANTED-store-pw-3333"
PLANTED = (TOKEN, API_KEY, STORE_PASSWORD)


@pytest.fixture
def planted(monkeypatch):
    """Secrets the process knows: a GitHub token and an API key in the environment, a
    store password in a URL it opened."""
    monkeypatch.setenv("RALPH_GH_TOKEN", TOKEN)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setattr(_secrets, "_default", None)
    _secrets.register_url(f"postgresql://ralph:{STORE_PASSWORD}@db.example/ralph")


@pytest.fixture
def logs(tmp_path: Path, planted):
    folder = tmp_path / "logs"
    enable_debug_log(folder)
    yield folder
    disable_debug_log()
    assert_no_secret(folder)


def events(folder: Path, category: str | None = None) -> list[dict[str, Any]]:
    lines = [line for p in sorted(folder.glob("*.jsonl")) for line in p.read_text().splitlines()]
    found = [json.loads(line) for line in lines]
    return [e for e in found if category is None or e["cat"] == category]


def assert_no_secret(folder: Path) -> None:
    text = "".join(p.read_text() for p in folder.glob("*.jsonl"))
    for secret in PLANTED:
        assert secret not in text


def test_mcp_tool_calls_with_their_arguments_and_errors(logs, tmp_path):
    project = Project(
        Config(root=tmp_path, repo="demo"),
        tracker := LocalTracker(open_database("memory://"), repo="demo"),
        LocalCodeHost(tracker.db, repo=tracker.repo, tracker=tracker),
        open_store("memory://"),
        GitRepo(tmp_path),
    )

    async def main() -> None:
        async with Client(build_server(project)) as client:
            await client.call_tool(
                "ralph_hero__create_issue", {"title": "A", "body": f"leaked {TOKEN} {API_KEY}"}
            )
            await client.call_tool("ralph_hero__get_issue", {"number": 99})
            await client.call_tool("ralph_hero__get_issue", {"number": 1, "token": TOKEN})

    anyio.run(main)
    created, missing, refused = events(logs, "tool")
    assert created["tool"] == "ralph_hero__create_issue"
    assert created["ok"] is True
    assert created["params"]["body"] == "leaked *** ***"
    assert isinstance(created["durationMs"], int)
    # A tool error is a failed call (the original logged it as ok).
    assert missing["ok"] is False
    assert missing["params"] == {"number": 99}
    assert "#99" in missing["error"] or "99" in missing["error"]
    assert refused["ok"] is False
    assert "unknown argument" in refused["error"]
    assert refused["params"]["token"] == "[REDACTED]"


def test_graphql_requests_with_timings_status_and_rate_limits(logs, tmp_path, clock):
    tracker = github_tracker(GitProject(tmp_path / "repo").path, clock)
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    fake.script(ScriptedFault("CreateIssue", status=502))
    tracker.create_issue("Leaky", body=f"printed {TOKEN} and {API_KEY}")
    graphql = events(logs, "graphql")
    failed = [e for e in graphql if e["operation"] == "CreateIssue" and not e["ok"]]
    assert failed
    assert failed[0]["status"] == 502
    assert failed[0]["mutation"] is True
    done = [e for e in graphql if e["operation"] == "CreateIssue" and e["ok"]]
    assert done
    assert done[0]["status"] == 200
    assert isinstance(done[0]["rateLimitRemaining"], int)
    assert done[0]["rateLimitResource"] == "graphql"
    assert "printed *** and ***" in json.dumps(done[0]["variables"])


def test_a_transport_failure_is_status_0(logs):
    fake = FakeGitHub()
    fake.add_token("t0ken-for-tests", "acme")
    fake.script(ScriptedFault("any", transport=True))
    client = GitHubClient(fake, Tokens("t0ken-for-tests"), sleep=lambda _: None)
    client.viewer()
    first, second = events(logs, "graphql")[:2]
    assert (first["status"], first["ok"], first["outcome"]) == (0, False, "indeterminate")
    assert (second["status"], second["ok"]) == (200, True)


def test_agent_runs_and_phase_refusals_from_the_command_line(
    tmp_path, ralph_cli, monkeypatch, planted
):
    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("RALPH_DEBUG", "1")
    assert ralph_cli("run", "research", str(number))[0] == 0
    code, _, err = ralph_cli("run", "review", str(number))
    assert code == 2, err
    logs = repo / ".ralph" / "logs"
    [agent] = events(logs, "agent")
    assert (agent["phase"], agent["status"], agent["ok"]) == ("research", "ok", True)
    assert agent["issues"] == [number]
    assert agent["runtime"].startswith("simulated agent")
    assert set(agent["usage"]) == {"input", "output", "cacheRead", "cacheWrite"}
    done, refusal = events(logs, "phase")
    assert (done["phase"], done["status"], done["ok"]) == ("research", "done", True)
    assert (refusal["phase"], refusal["blocked"], refusal["ok"]) == ("review", True, False)
    assert refusal["error"] in err
    assert_no_secret(logs)


def test_a_failed_agent_run_says_how_it_ended(tmp_path, ralph_cli, monkeypatch):
    from ralph.config import load_config
    from ralph.phases import PhaseRunner
    from ralph.project import open_project
    from ralph.runtimes import Limits
    from ralph.runtimes.scripted import AgentFault, ScriptedRuntime

    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.setenv("RALPH_DEBUG", "true")
    with open_project(load_config(repo)) as project:
        runtime = ScriptedRuntime({"research": [AgentFault.FAIL]}, env={})
        runner = PhaseRunner(project, runtime, owner="t", max_attempts=2, limits=Limits())
        assert runner.run("research", number).ok
    failed, ok = events(repo / ".ralph" / "logs", "agent")
    assert (failed["ok"], ok["ok"]) == (False, True)
    assert failed["status"] != "ok"
    assert failed["error"]


def test_nothing_is_written_while_the_debug_log_is_off(tmp_path, ralph_cli, monkeypatch):
    disable_debug_log()
    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    assert ralph_cli("run", "research", str(number))[0] == 0
    assert ralph_cli("run", "review", str(number))[0] == 2
    assert not (repo / ".ralph" / "logs").exists()


def outside_write(root: Path, name: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(root),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / "src" / name), "content": ""},
        }
    )


def test_hook_decisions_when_the_project_keeps_a_debug_log(tmp_path, planted):
    root = tmp_path / "project"
    root.mkdir()
    (root / "ralph.toml").write_text("[debug]\nenabled = true\n")
    set_context(root, HookContext(phase="implement", issue=7, expires_at=4e9))
    out = io.StringIO()
    assert run_hook("pre-tool-use", io.StringIO(outside_write(root, f"{API_KEY}.py")), out) == 0
    assert "deny" in out.getvalue()
    inside = json.loads(outside_write(root, "x.py"))
    inside["tool_input"]["file_path"] = str(root / "worktrees" / "GH-7" / "x.py")
    run_hook("pre-tool-use", io.StringIO(json.dumps(inside)), io.StringIO())
    disable_debug_log()
    denied, allowed = events(root / ".ralph" / "logs", "hook")
    assert denied["hook"] == "PreToolUse"
    assert (denied["tool"], denied["phase"], denied["issue"]) == ("Write", "implement", 7)
    assert (denied["blocked"], denied["ok"]) == (True, False)
    assert "worktrees/GH-7/" in denied["error"]
    assert (allowed["blocked"], allowed["ok"]) == (False, True)
    assert_no_secret(root / ".ralph" / "logs")


def test_a_hook_writes_nothing_for_a_project_without_the_debug_log(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "ralph.toml").write_text("")
    set_context(root, HookContext(phase="implement", issue=7, expires_at=4e9))
    run_hook("pre-tool-use", io.StringIO(outside_write(root, "a.py")), io.StringIO())
    assert not (root / ".ralph" / "logs").exists()


@pytest.mark.parametrize(
    ("category", "fields"),
    [
        ("tool", {"tool": "create_comment", "params": {"body": TOKEN}, "error": API_KEY}),
        ("graphql", {"operation": "AddComment", "variables": {"body": STORE_PASSWORD}}),
        ("agent", {"phase": "plan", "error": f"key {API_KEY} refused", "transcript": TOKEN}),
        ("phase", {"phase": "plan", "blocked": True, "error": f"store {STORE_PASSWORD}"}),
        ("hook", {"hook": "PreToolUse", "blocked": True, "error": f"{TOKEN}/{API_KEY}"}),
    ],
)
def test_no_category_writes_a_planted_secret(logs, category, fields):
    record_event(category, **fields)
    [event] = events(logs)
    assert "***" in json.dumps(event)
