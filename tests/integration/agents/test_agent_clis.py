"""Each real agent CLI, run by its preset of the command runtime against a fake of its
model API: the document written with the CLI's own tool, the result read back from its
output, the tokens (and cost, where the CLI reports one), its environment without
Ralph's credentials, and a stalled run killed with every process it started."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from ralph.runtimes import AgentBrief, AgentStatus, IssueContext, Limits
from ralph.runtimes.command import CommandRuntime

from ...fakes._scripted import ApiError, Hang, Text
from ._clis import CLIS, Dialect

#: Real CLIs start slowly on a busy machine (opencode: tens of seconds); still bounded.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SCHEMA = {
    "type": "object",
    "required": ["document", "summary"],
    "properties": {"document": {"type": "string"}, "summary": {"type": "string"}},
}
RESULT = {"document": "doc.md", "summary": "found it"}
#: The model calls each CLI counts in a run of three turns: Gemini CLI counts its
#: router's call too (it asks a small model how hard the task is).
CALLS = {"codex": 3, "gemini": 4, "opencode": 3}
#: What each CLI reports per model call (the fakes answer each with 100 input tokens,
#: 20 of them cached, and 20 output tokens): Codex and Gemini CLI tokens only, opencode
#: a cost too, at the prices its config gives the fake model ($3 and $15 per million
#: input and output tokens). Ralph prices Codex's at its config's model (gpt-5.5: $5,
#: $0.50 cached, $30); the Gemini CLI's models have no price in Ralph's table.
TOKENS = {"input_tokens": 80, "cache_read_tokens": 20, "output_tokens": 20}
COST = {
    "codex": (80 * 5 + 20 * 0.5 + 20 * 30) / 1e6,
    "gemini": 0.0,
    "opencode": (80 * 3 + 20 * 15) / 1e6,
}
UNPRICED = {"codex": "", "gemini": "gemini-3.5-flash-lite", "opencode": ""}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    (path / "notes.md").write_text("existing notes\n")
    return path


def brief(
    workdir: Path, *, tools: tuple[str, ...] = ("Read", "Write"), stall_seconds: float = 60.0
) -> AgentBrief:
    return AgentBrief(
        phase="research",
        role="analyst",
        issues=(IssueContext(number=7, title="Add a farewell", body="Say goodbye."),),
        instructions="Research the issue and write the document.",
        workdir=workdir,
        tools=tools,
        limits=Limits(timeout_seconds=100.0, stall_seconds=stall_seconds),
        result_schema=SCHEMA,
        outputs={"document": "doc.md"},
    )


def test_the_cli_writes_the_document_runs_its_shell_and_reports_result_and_usage(
    cli: Dialect, start_api, agent_env, workdir
):
    script = [
        cli.write(str(workdir / "doc.md"), "# Findings\n"),
        cli.shell("echo gh=${GH_TOKEN:-none} db=${RALPH_STORE_URL:-none}"),
        Text(json.dumps(RESULT)),
    ]
    api = start_api(cli, script)
    environ = {
        **agent_env(cli, api),
        "GH_TOKEN": "ghp_not_for_agents",
        "RALPH_STORE_URL": "postgresql://ralph:hunter2@db/ralph",
    }
    runtime = CommandRuntime.preset(cli.name, environ=environ)
    result = runtime.run(brief(workdir, tools=("Read", "Write", "Bash")))
    assert result.status is AgentStatus.OK, result.error
    assert result.result == RESULT
    assert (workdir / "doc.md").read_text() == "# Findings\n"
    assert result.agent == runtime.describe("research") != "command"
    calls = CALLS[cli.name]
    assert {k: getattr(result, k) for k in TOKENS} == {k: n * calls for k, n in TOKENS.items()}
    assert result.cost_usd == pytest.approx(COST[cli.name] * calls)
    assert result.unpriced_model == UNPRICED[cli.name]
    assert result.turns == 3
    assert str(result.transcript).startswith("session ")
    prompt = "\n".join(api.turns[0].texts())
    assert "Research the issue and write the document." in prompt
    assert '"required":[' in prompt  # the result's schema travels with the prompt
    # The shell ran, in an environment with the model's key and no other credential.
    said = "\n".join(api.turns[-1].texts())
    assert "gh=none db=none" in said
    assert "ghp_not_for_agents" not in said
    assert "hunter2" not in said


def test_an_api_error_fails_the_run_and_a_phase_without_bash_gets_no_shell(
    cli: Dialect, start_api, agent_env, workdir
):
    api = start_api(cli, lambda request, turn: ApiError(400, "the fake refuses this request"))
    result = CommandRuntime.preset(cli.name, environ=agent_env(cli, api)).run(brief(workdir))
    assert result.status is AgentStatus.FAILED
    assert "the fake refuses this request" in result.error
    offered = set(api.turns[0].tool_names)
    shells = {"exec_command", "shell", "run_shell_command", "bash"}
    if cli.name == "codex":
        # Codex always offers its shell; its sandbox (or Ralph's) keeps it in the
        # working directory.
        assert offered & shells
    else:
        assert not offered & shells, offered


#: Longer than each CLI may print nothing while it starts, on a busy machine: opencode
#: prints its first event only once the model answered.
STARTUP_SECONDS = {"codex": 10, "gemini": 10, "opencode": 45}


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_cli_waiting_on_a_silent_api_is_killed_with_every_process_it_started(
    cli: Dialect, start_api, agent_env, workdir
):
    # The model answers once (the CLI prints that tool's event), then never again.
    api = start_api(cli, [cli.shell("echo started"), Hang()])
    name, value = "RALPH_TEST_MARK", uuid.uuid4().hex
    environ = {**agent_env(cli, api), name: value}
    stall = STARTUP_SECONDS[cli.name]
    # The mark passed on by name, as sandbox_env does: the CLI's every process carries it.
    runtime = CommandRuntime.preset(cli.name, environ=environ, sandbox_env=(name,))
    result = runtime.run(brief(workdir, tools=("Read", "Write", "Bash"), stall_seconds=stall))
    assert result.status is AgentStatus.TIMEOUT
    assert result.error == f"stalled: no output for {stall}s"
    assert len(api.turns) == 2  # it was waiting for the model's second answer
    assert _processes_with(f"{name}={value}") == []


def test_without_ralphs_sandbox_codex_confines_its_shell_to_the_working_directory(
    start_api, agent_env, agent_home, workdir
):
    codex = CLIS["codex"]
    outside = agent_home / "outside.txt"
    script = [
        codex.shell(f"echo in > inside.txt; echo out > {outside}; echo done"),
        Text(json.dumps(RESULT)),
    ]
    api = start_api(codex, script)
    runtime = CommandRuntime.preset("codex", environ=agent_env(codex, api), sandbox=False)
    result = runtime.run(brief(workdir, tools=("Read", "Write", "Bash")))
    assert result.status is AgentStatus.OK, result.error
    assert (workdir / "inside.txt").read_text() == "in\n"
    assert not outside.exists()
    assert "Read-only file system" in "\n".join(api.turns[-1].texts())


def _when(feed, ready, seconds: float = 10.0):
    """The feed's activity once ``ready`` says so (or after ``seconds``): the CLI asks
    its model again right after printing what it did, the pump reads it meanwhile."""
    deadline = time.monotonic() + seconds
    while not ready(activity := feed.snapshot()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return activity


def test_the_feed_shows_the_clis_work_as_it_happens(cli: Dialect, start_api, agent_env, workdir):
    the_brief = brief(workdir, tools=("Read", "Write", "Bash"))
    steps = [
        cli.write(str(workdir / "doc.md"), "# Findings\n"),
        cli.shell("echo checked"),
        Text(json.dumps(RESULT)),
    ]
    during = []

    def script(request, turn):
        if turn == 2:  # the write and the shell are done: what the feed showed meanwhile
            during.append(_when(the_brief.activity, lambda a: a.tool.endswith("echo checked")))
        return steps[min(turn, len(steps) - 1)]

    api = start_api(cli, script)
    environ = agent_env(cli, api)
    runtime = CommandRuntime.preset(cli.name, environ=environ)
    result = runtime.run(the_brief)
    assert result.status is AgentStatus.OK, result.error
    (meanwhile,) = during
    assert meanwhile.turns == 2
    assert meanwhile.tool.endswith(" echo checked")
    assert next(e.text for e in meanwhile.recent if e.kind == "tool").endswith(" doc.md")
    end = the_brief.activity.snapshot()
    assert end.turns == result.turns == 3
    assert end.tokens == result.tokens == 120 * CALLS[cli.name]
    assert end.cost_usd == pytest.approx(result.cost_usd)
    assert end.said == json.dumps(RESULT)
    assert end.tool == meanwhile.tool
