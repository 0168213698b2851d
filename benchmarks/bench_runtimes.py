"""What Ralph adds around an agent: the Claude runtime against the bare CLI, the command
runtime against a bare subprocess, and MCP tool calls in-process and over stdio. The
model is the local fake of the Anthropic API (tests/fakes), so only Ralph's and the
CLI's own costs are measured. Prints medians and ratios from one run; not a test.

Goal (issue: real agents): the runtime's wrapping (options, hooks, in-process tools,
watchdog, outcome mapping) costs a small fraction of a Claude Code start, and a tracker
tool call costs milliseconds, so agents' own minutes dominate.

    make bench-runtimes    # or: .venv/bin/python benchmarks/bench_runtimes.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.anthropic_api import FakeAnthropicAPI, ToolUse

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.config import Config
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.mcp import build_server
from ralph.project import Project
from ralph.runtimes import AgentBrief, IssueContext, Limits
from ralph.runtimes.claude import ClaudeRuntime
from ralph.runtimes.command import CommandRuntime
from ralph.tasks import open_store
from ralph.tracker import LocalCodeHost, LocalTracker
from ralph.workflow import Estimate, WorkflowState

REPEATS = pick(5, 1)
TOOL_CALLS = pick(200, 5)
MODEL = "claude-sonnet-4-5"
SCHEMA = {"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string"}}}


def median(runs: int, once: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        once()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def brief(workdir: Path) -> AgentBrief:
    return AgentBrief(
        phase="research",
        role="analyst",
        issues=(IssueContext(number=1, title="Add a farewell", body="Say goodbye."),),
        instructions="Research it.",
        workdir=workdir,
        tools=("Read", "Glob", "Grep", "Write"),
        limits=Limits(timeout_seconds=120, stall_seconds=60),
        result_schema=SCHEMA,
    )


def claude(folder: Path) -> None:
    answer = ToolUse("StructuredOutput", {"summary": "ok"})
    home = folder / "home"
    home.mkdir()
    with FakeAnthropicAPI(lambda request, turn: answer) as api:
        env = api.environment(str(home))
        runtime = ClaudeRuntime(model=MODEL, env=env)
        import claude_agent_sdk

        cli = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
        argv = [
            str(cli),
            "-p",
            "Research it.",
            "--output-format",
            "json",
            "--model",
            MODEL,
            "--json-schema",
            json.dumps(SCHEMA),
            "--max-turns",
            "5",
        ]
        bare_env = {**os.environ, **env}

        def bare() -> None:
            subprocess.run(
                argv,
                cwd=folder,
                env=bare_env,
                capture_output=True,
                stdin=subprocess.DEVNULL,
                check=True,
            )

        bare()  # warm the page cache for the 200 MB binary
        cli_alone = median(REPEATS, bare)
        through_ralph = median(REPEATS, lambda: runtime.run(brief(folder)))
    print(f"Claude Code, one 2-turn run (median of {REPEATS}):")
    print(f"  claude -p alone          {cli_alone * 1000:8.0f} ms")
    print(f"  ClaudeRuntime.run        {through_ralph * 1000:8.0f} ms")
    print(f"  ratio                    {through_ralph / cli_alone:8.2f}x")


def command(folder: Path) -> None:
    script = folder / "agent"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nprint('{{}}')\n")
    script.chmod(0o755)
    runtime = CommandRuntime(str(script), output="plain")
    bare = median(
        REPEATS * 4,
        lambda: subprocess.run([str(script)], input="", check=True, capture_output=True, text=True),
    )
    wrapped = median(REPEATS * 4, lambda: runtime.run(brief(folder)))
    print(f"Command runtime, a trivial agent (median of {REPEATS * 4}):")
    print(f"  bare subprocess          {bare * 1000:8.1f} ms")
    print(f"  CommandRuntime.run       {wrapped * 1000:8.1f} ms")
    print(f"  ratio                    {wrapped / bare:8.2f}x")


def mcp_tools(folder: Path) -> None:
    tracker = LocalTracker(open_database("memory://"), repo="demo")
    tracker.create_issue("Epic", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.M)
    for n in range(49):
        tracker.create_issue(
            f"Child {n}", parent=1, state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
        )
    project = Project(
        Config(root=folder, repo="bench"),
        tracker,
        LocalCodeHost(tracker.db, repo=tracker.repo, tracker=tracker),
        open_store("memory://"),
        GitRepo(folder),
    )

    async def in_process() -> dict[str, float]:
        timings: dict[str, float] = {}
        async with Client(build_server(project)) as client:
            for tool in ("get_issue", "detect_pipeline_position", "list_issues"):
                arguments = {} if tool == "list_issues" else {"number": 2}
                samples = []
                for _ in range(TOOL_CALLS):
                    started = time.perf_counter()
                    await client.call_tool(f"ralph_hero__{tool}", arguments)
                    samples.append(time.perf_counter() - started)
                timings[tool] = statistics.median(samples)
        return timings

    print(f"MCP tools in-process, 50 issues in one group (median of {TOOL_CALLS}):")
    for tool, seconds in anyio.run(in_process).items():
        print(f"  {tool:<26}{seconds * 1000:8.2f} ms")

    repo = folder / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(
        [sys.executable, "-m", "ralph", "init"], cwd=repo, check=True, capture_output=True
    )
    subprocess.run(
        [sys.executable, "-m", "ralph", "issue", "new", "One", "-e", "XS"],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    # This process's environment (the MCP client's default is a bare one): its bytecode
    # prefix keeps the server's compiled modules out of the checkout.
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "ralph", "mcp"], cwd=str(repo), env=dict(os.environ)
    )

    async def over_stdio() -> tuple[float, float]:
        started = time.perf_counter()
        async with Client(server) as client:
            await client.list_tools()
            ready = time.perf_counter() - started
            samples = []
            for _ in range(TOOL_CALLS):
                begun = time.perf_counter()
                await client.call_tool("ralph_hero__detect_pipeline_position", {"number": 1})
                samples.append(time.perf_counter() - begun)
        return ready, statistics.median(samples)

    ready, call = anyio.run(over_stdio)
    print("ralph mcp over stdio (SQLite store):")
    print(f"  start and list tools     {ready * 1000:8.0f} ms")
    print(f"  detect_pipeline_position {call * 1000:8.2f} ms (median of {TOOL_CALLS})")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for part in (claude, command, mcp_tools):
            folder = Path(tmp) / part.__name__
            folder.mkdir()
            part(folder)


if __name__ == "__main__":
    main()
