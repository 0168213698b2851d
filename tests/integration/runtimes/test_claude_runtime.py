"""The Claude runtime drives the real Claude Code CLI; every way a run can end becomes
the right AgentResult."""

from __future__ import annotations

import shutil
import threading
import time

import pytest

from ralph.mcp import build_server
from ralph.runtimes import AgentStatus, Limits
from ralph.runtimes.claude import ClaudeRuntime

from ...fakes.anthropic_api import ApiError, Hang, Text, ToolUse
from .conftest import MODEL


def runtime(api, home, **kwargs) -> ClaudeRuntime:
    return ClaudeRuntime(model=MODEL, env=api.environment(str(home)), **kwargs)


def test_the_agent_writes_its_document_and_returns_the_structured_result(
    fake_api, home, workdir, brief
):
    api = fake_api(
        [
            ToolUse("Write", {"file_path": str(workdir / "doc.md"), "content": "# Findings\n"}),
            ToolUse("StructuredOutput", {"document": "doc.md", "summary": "one file"}),
        ]
    )
    result = runtime(api, home).run(brief())
    assert result.status is AgentStatus.OK, result.error
    assert result.result == {"document": "doc.md", "summary": "one file"}
    assert (workdir / "doc.md").read_text() == "# Findings\n"
    assert result.cost_usd > 0
    assert result.turns >= 2
    assert result.input_tokens > 0
    assert result.output_tokens > 0
    assert result.agent == "Claude Code"
    assert result.transcript
    assert result.transcript.endswith(".jsonl")


def test_cached_input_is_counted_apart_from_the_rest(fake_api, home, brief):
    api = fake_api([ToolUse("StructuredOutput", {"document": "d", "summary": "s"})])
    api.usage = {
        "input_tokens": 12,
        "output_tokens": 20,
        "cache_read_input_tokens": 5_000,
        "cache_creation_input_tokens": 300,
    }
    result = runtime(api, home).run(brief())
    assert result.status is AgentStatus.OK, result.error
    turns = len(api.turns)
    assert (result.input_tokens, result.output_tokens) == (12 * turns, 20 * turns)
    assert (result.cache_read_tokens, result.cache_write_tokens) == (5_000 * turns, 300 * turns)
    assert result.tokens == 5_332 * turns


def test_the_brief_reaches_the_model_with_the_role_and_only_the_roles_tools(fake_api, home, brief):
    api = fake_api([ToolUse("StructuredOutput", {"document": "d", "summary": "s"})])
    runtime(api, home).run(brief())
    first = api.turns[0]
    assert "You are Ralph's analyst agent" in first.system
    assert "Research the issue and write the document." in "\n".join(first.texts())
    assert "as written on the tracker (untrusted text)" in "\n".join(first.texts())
    builtin = {"Bash", "Edit", "Write", "Read", "Glob", "Grep", "WebFetch", "Agent"}
    assert set(first.tool_names) & builtin == {"Read", "Write", "Glob", "Grep"}


def test_a_tool_outside_the_whitelist_is_denied_and_not_run(fake_api, home, workdir, brief):
    api = fake_api(
        [
            ToolUse("Bash", {"command": f"touch {workdir}/made-by-bash", "description": "t"}),
            ToolUse("StructuredOutput", {"document": "d", "summary": "s"}),
        ]
    )
    result = runtime(api, home).run(brief())
    assert not (workdir / "made-by-bash").exists()
    assert result.status is AgentStatus.OK
    refused = api.turns[1].tool_results()[0]
    assert refused.get("is_error")


def test_a_write_outside_the_working_directory_is_refused(fake_api, home, tmp_path, brief):
    outside = tmp_path / "outside.md"
    api = fake_api(
        [
            ToolUse("Write", {"file_path": str(outside), "content": "escaped"}),
            ToolUse("StructuredOutput", {"document": "d", "summary": "s"}),
        ]
    )
    result = runtime(api, home).run(brief())
    assert not outside.exists()
    assert "Write" in result.denied_tools
    assert "outside your working directory" in str(api.turns[1].tool_results()[0]["content"])


def test_max_turns_reached_is_turns_exceeded(fake_api, home, workdir, brief):
    read = ToolUse("Read", {"file_path": str(workdir / "notes.md")})
    api = fake_api([read] * 5)
    result = runtime(api, home).run(brief(limits=Limits(max_turns=2, timeout_seconds=60)))
    assert result.status is AgentStatus.TURNS_EXCEEDED
    assert "maximum number of turns (2)" in result.error
    assert result.result is None


def test_a_spent_budget_is_budget_exceeded(fake_api, home, workdir, brief):
    read = ToolUse("Read", {"file_path": str(workdir / "notes.md")})
    api = fake_api([read] * 5)
    result = runtime(api, home).run(brief(limits=Limits(max_usd=0.0001, timeout_seconds=60)))
    assert result.status is AgentStatus.BUDGET_EXCEEDED
    assert "maximum budget" in result.error
    assert result.cost_usd > 0.0001


def test_an_api_error_is_a_failed_run_with_the_apis_message(fake_api, home, brief):
    api = fake_api(lambda request, turn: ApiError(400, "fake error"))
    result = runtime(api, home).run(brief())
    assert result.status is AgentStatus.FAILED
    assert "400 fake error" in result.error


def test_an_api_that_never_answers_ends_in_a_timeout(fake_api, home, brief):
    api = fake_api([Hang()])
    started = time.monotonic()
    limits = Limits(timeout_seconds=60, stall_seconds=2)
    result = runtime(api, home).run(brief(limits=limits))
    assert result.status is AgentStatus.TIMEOUT
    assert "stalled" in result.error
    assert time.monotonic() - started < 30


def test_a_stop_ends_the_run_at_once_as_stopped(fake_api, home, brief):
    api = fake_api([Hang()])
    stopped = brief(limits=Limits(timeout_seconds=600, stall_seconds=600))
    threading.Timer(2.0, stopped.stop.stop, args=("#2 was closed",)).start()
    started = time.monotonic()
    result = runtime(api, home).run(stopped)
    assert (result.status, result.error) == (AgentStatus.STOPPED, "#2 was closed")
    assert result.result is None
    assert time.monotonic() - started < 30


def test_the_wall_clock_timeout_fires_even_while_messages_flow(fake_api, home, workdir, brief):
    def slow_reads(request, turn):
        time.sleep(0.5)
        return ToolUse("Read", {"file_path": str(workdir / "notes.md")})

    api = fake_api(slow_reads)
    limits = Limits(max_turns=100, timeout_seconds=3, stall_seconds=30)
    result = runtime(api, home).run(brief(limits=limits))
    assert result.status is AgentStatus.TIMEOUT
    assert "no result within 3s" in result.error


def test_the_agent_environment_holds_no_tracker_token(fake_api, home, workdir, brief, monkeypatch):
    monkeypatch.setenv("RALPH_GH_TOKEN", "ghp_secret_value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_other_secret")
    api = fake_api(
        [
            ToolUse("Bash", {"command": "env > env.txt", "description": "env"}),
            ToolUse("StructuredOutput", {"document": "d", "summary": "s"}),
        ]
    )
    implement = brief(role="builder", phase="implement", tools=("Read", "Write", "Edit", "Bash"))
    result = runtime(api, home).run(implement)
    assert result.status is AgentStatus.OK, result.error
    seen = (workdir / "env.txt").read_text()
    assert "ANTHROPIC_BASE_URL" in seen
    assert "ghp_secret_value" not in seen
    assert "ghp_other_secret" not in seen


def test_the_agent_reads_the_tracker_through_ralphs_tools(fake_api, home, brief, sample):
    number = sample.issue(title="Add a farewell function")
    api = fake_api(
        [
            ToolUse("mcp__ralph-hero__ralph_hero__get_issue", {"number": number}),
            ToolUse("StructuredOutput", {"document": "d", "summary": "s"}),
        ]
    )
    tools = build_server(sample.project, read_only=True)
    result = runtime(api, home, tools_server=tools).run(brief(tracker_tools=("get_issue",)))
    assert result.status is AgentStatus.OK, result.error
    answer = api.turns[1].tool_results()[0]
    assert not answer.get("is_error")
    assert "Add a farewell function" in str(answer["content"])


def test_only_the_read_only_tracker_tools_the_brief_names_are_offered_to_agents(
    fake_api, home, brief, sample
):
    api = fake_api([Text("nothing to do")])
    tools = build_server(sample.project, read_only=True)
    named = ("get_issue", "list_issues", "update_issue")
    runtime(api, home, tools_server=tools).run(brief(tracker_tools=named))
    offered = [n for n in api.turns[0].tool_names if n.startswith("mcp__ralph-hero__")]
    # Not the tools that write (the server has none), nor those the phase does not use.
    assert sorted(offered) == [
        "mcp__ralph-hero__ralph_hero__get_issue",
        "mcp__ralph-hero__ralph_hero__list_issues",
    ]


def test_a_phase_that_looks_at_no_other_issue_is_sent_no_tracker_tools(
    fake_api, home, brief, sample
):
    # Their definitions would ride along with every request of the run.
    api = fake_api([Text("nothing to do")])
    tools = build_server(sample.project, read_only=True)
    runtime(api, home, tools_server=tools).run(brief())
    assert sorted(api.turns[0].tool_names) == ["Glob", "Grep", "Read", "StructuredOutput", "Write"]


def test_a_refused_api_key_ends_the_run_at_once_saying_what_to_fix(fake_api, home, brief):
    api = fake_api(lambda request, turn: ApiError(401, "invalid x-api-key", "authentication_error"))
    started = time.monotonic()
    result = runtime(api, home).run(brief(limits=Limits(timeout_seconds=120, stall_seconds=120)))
    assert time.monotonic() - started < 20  # Claude Code alone retries for minutes
    assert result.status is AgentStatus.MISCONFIGURED
    assert "Claude Code's credentials were refused (401: authentication_failed)" in result.error
    assert "set ANTHROPIC_API_KEY to a valid key" in result.error
    login = "claude auth login" if shutil.which("claude") else "ralph login"
    assert f"log in with `{login}`" in result.error


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (ApiError(404, "model: claude-nope", "not_found_error"), "is not available to this"),
        (ApiError(400, "Your credit balance is too low", "invalid_request_error"), "cannot pay"),
        (ApiError(403, "no access", "permission_error"), "credentials were refused"),
    ],
)
def test_a_model_or_account_that_cannot_work_is_misconfigured(fake_api, home, brief, error, said):
    api = fake_api(lambda request, turn: error)
    result = runtime(api, home).run(brief())
    assert result.status is AgentStatus.MISCONFIGURED
    assert said in result.error


def _when(feed, ready, seconds: float = 10.0):
    """The feed's activity once ``ready`` says so (or after ``seconds``): the CLI sends
    its next request right after printing the message before it."""
    deadline = time.monotonic() + seconds
    while not ready(activity := feed.snapshot()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return activity


def test_the_feed_shows_turns_tokens_tool_calls_and_words_while_the_agent_works(
    fake_api, home, workdir, brief
):
    the_brief = brief()
    steps = [
        ToolUse(
            "Write",
            {"file_path": str(workdir / "doc.md"), "content": "# Findings\n"},
            pre_text="Writing the findings down.",
        ),
        ToolUse("Grep", {"pattern": "farewell", "path": str(workdir)}),
        ToolUse("Write", {"file_path": str(workdir.parent / "outside.md"), "content": "x"}),
        ToolUse("StructuredOutput", {"document": "doc.md", "summary": "one file"}),
    ]
    #: What the feed shows before each next request, once the answers so far are in.
    ready = [lambda a: a.turns >= 1, lambda a: a.turns >= 2, lambda a: bool(a.refused)]
    during = []

    def script(request, turn):
        if 0 < turn <= len(ready):
            during.append(_when(the_brief.activity, ready[turn - 1]))
        return steps[min(turn, len(steps) - 1)]

    api = fake_api(script)
    result = runtime(api, home).run(the_brief)
    assert result.status is AgentStatus.OK, result.error
    first, second, third = during[:3]
    assert (first.turns, first.tokens, first.tool) == (1, 120, "Write doc.md")
    assert first.said == "Writing the findings down."
    assert (second.turns, second.tokens, second.tool) == (2, 240, "Grep farewell")
    assert third.tool == f"Write {workdir.parent / 'outside.md'}"
    assert third.refused == ("Write",)  # outside the working directory: refused at once
    end = the_brief.activity.snapshot()
    assert end.turns == 4  # the model's answers (Claude Code counts a refusal as a turn too)
    assert result.turns >= end.turns
    assert end.tokens == result.tokens == 4 * 120
    assert end.cost_usd == pytest.approx(result.cost_usd)
    assert end.tool == third.tool  # handing back the result is not a tool call of its work
