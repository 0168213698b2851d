"""Each real agent CLI against its fake answering its provider's real limit responses: the
run ends rate limited within seconds (a CLI sitting out a long wait is stopped), with the
reset the CLI passed on (0 where it passes none on), never as failed or misconfigured;
once the limit lifts, the same runtime's next run is OK."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from ralph.runtimes import AgentBrief, AgentResult, AgentStatus, IssueContext, Limits
from ralph.runtimes.claude import ClaudeRuntime
from ralph.runtimes.command import CommandRuntime

from ...fakes._scripted import Text
from ._clis import CLAUDE, CLIS, Dialect

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SCHEMA = {
    "type": "object",
    "required": ["document", "summary"],
    "properties": {"document": {"type": "string"}, "summary": {"type": "string"}},
}
RESULT = {"document": "doc.md", "summary": "found it"}
#: How long a limited run may take: the CLI's start (opencode's is slow on a busy
#: machine) and its few short retries, never the provider's wait.
BOUND_SECONDS = {"claude": 30, "codex": 30, "gemini": 40, "opencode": 80}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def brief(workdir: Path) -> AgentBrief:
    return AgentBrief(
        phase="research",
        role="analyst",
        issues=(IssueContext(number=7, title="Add a farewell", body="Say goodbye."),),
        instructions="Research the issue and write the document.",
        workdir=workdir,
        tools=("Read", "Write"),
        limits=Limits(timeout_seconds=200.0, stall_seconds=150.0),
        result_schema=SCHEMA,
    )


def timed(run, the_brief: AgentBrief) -> tuple[AgentResult, float]:
    started = time.monotonic()
    result = run(the_brief)
    return result, time.monotonic() - started


def next_minute_plus_one() -> float:
    """Seconds to a reset on a whole minute, one to two minutes ahead: Codex says the
    reset to the minute ("try again at 5:30 AM")."""
    now = time.time()
    return (math.floor(now / 60) + 2) * 60 - now


#: (CLI, the fake's limit, seconds to its reset, whether the CLI passes the reset on).
CASES = [
    # Codex turns a ChatGPT plan's usage_limit_reached into "try again at 5:30 AM".
    ("codex", "usage", None, True),
    # An API's 429: "exceeded retry limit, last status: 429 Too Many Requests".
    ("codex", "rate", 120.0, False),
    # A per-minute quota: retried by Gemini CLI after "Please retry in", stopped by Ralph.
    ("gemini", "rate", 120.0, True),
    # A day's quota spent: Gemini CLI ends at once, saying no time.
    ("gemini", "daily", 3600.0, False),
    # opencode retries its 429 with backoff, saying so only in its logs: stopped.
    ("opencode", "rate", 120.0, True),
]


@pytest.mark.parametrize(("name", "kind", "seconds", "said"), CASES)
def test_a_cli_meeting_its_providers_limit_ends_rate_limited_with_the_reset(
    name: str,
    kind: str,
    seconds: float | None,
    said: bool,
    agent_bin,
    start_api,
    agent_env,
    workdir,
):
    cli: Dialect = CLIS[name]
    api = start_api(cli, [Text(json.dumps(RESULT))])
    resets_at = api.limit(kind, seconds=seconds if seconds else next_minute_plus_one())
    runtime = CommandRuntime.preset(name, environ=agent_env(cli, api))
    result, took = timed(runtime.run, brief(workdir))
    assert result.status is AgentStatus.RATE_LIMITED, result.error
    assert took < BOUND_SECONDS[name]
    if said:
        # A wait said as "try again in 1m48s" counts from when Ralph reads it: on a
        # loaded machine a little after the provider said it, never before.
        late = result.resets_at - resets_at
        assert -1.0 <= late <= 5.0, (name, late, result.error)
    else:
        assert result.resets_at == 0
    assert result.error
    assert api.limits.refused >= 1
    # The limit lifted: the same runtime's next run does the work.
    api.limits.lift()
    again = runtime.run(brief(workdir))
    assert again.status is AgentStatus.OK, again.error
    assert again.result == RESULT
    assert again.resets_at == 0


def test_a_cli_that_retries_a_short_limit_itself_ends_ok(agent_bin, start_api, agent_env, workdir):
    gemini = CLIS["gemini"]
    api = start_api(gemini, [Text(json.dumps(RESULT))])
    # Two seconds from the refusal, not from now: the CLI's start-up would spend them,
    # and a quota said to retry in 0s Gemini CLI waits out for a minute.
    api.limit("rate", seconds=2.0, first=1, lifts=True)
    runtime = CommandRuntime.preset("gemini", environ=agent_env(gemini, api))
    result = runtime.run(brief(workdir))
    assert result.status is AgentStatus.OK, result.error
    assert api.limits.refused == 1


def claude(api, home: Path) -> ClaudeRuntime:
    return ClaudeRuntime(model="claude-sonnet-4-5", env=CLAUDE.configure(home, api))


@pytest.mark.parametrize("kind", ["rate", "overloaded"])
def test_claude_code_meeting_a_limit_ends_rate_limited_and_runs_once_it_lifts(
    kind: str, agent_home: Path, workdir
):
    pytest.importorskip("claude_agent_sdk")
    from ...fakes import anthropic_api

    with anthropic_api.FakeAnthropicAPI([anthropic_api.ToolUse("StructuredOutput", RESULT)]) as api:
        api.limit(kind, seconds=120.0)
        runtime = claude(api, agent_home)
        result, took = timed(runtime.run, brief(workdir))
        assert result.status is AgentStatus.RATE_LIMITED, result.error
        assert took < BOUND_SECONDS["claude"]
        # An API key's retry-after Claude Code does not pass on; an overload says none.
        assert result.resets_at == 0
        assert ("429" if kind == "rate" else "overloaded") in result.error
        api.limits.lift()
        again = runtime.run(brief(workdir))
        assert again.status is AgentStatus.OK, again.error
        assert again.result == RESULT


def test_claude_code_on_a_spent_subscription_window_ends_rate_limited_until_its_reset(
    agent_home: Path, workdir
):
    pytest.importorskip("claude_agent_sdk")
    from ...fakes import anthropic_api

    with anthropic_api.FakeAnthropicAPI([anthropic_api.ToolUse("StructuredOutput", RESULT)]) as api:
        resets_at = api.limit("usage", seconds=600.0)
        # Signed in to a subscription (an OAuth token, no API key): Claude Code reads the
        # usage window's headers and says when it resets.
        env = {**CLAUDE.configure(agent_home, api), "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-fake"}
        del env["ANTHROPIC_API_KEY"]
        runtime = ClaudeRuntime(model="claude-sonnet-4-5", env=env)
        result, took = timed(runtime.run, brief(workdir))
        assert result.status is AgentStatus.RATE_LIMITED, result.error
        assert took < BOUND_SECONDS["claude"]
        assert result.resets_at == pytest.approx(resets_at, abs=1.0)
        assert "limit" in result.error
        assert "resets" in result.error
        api.limits.lift()
        again = runtime.run(brief(workdir))
        assert again.status is AgentStatus.OK, again.error
