"""How a Claude Code run ended, from its result frame: each ending, one test."""

from __future__ import annotations

import pytest

from ralph.runtimes import AgentStatus
from ralph.runtimes._claude_outcome import sandbox_problem
from ralph.runtimes.claude import classify, setup_problem, structured_result

SUCCESS = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "result": "done",
    "terminal_reason": "completed",
}


def test_a_completed_run_is_ok():
    assert classify(SUCCESS).status is AgentStatus.OK


@pytest.mark.parametrize(
    ("frame", "status", "error"),
    [
        (
            {"subtype": "error_max_turns", "errors": ["Reached maximum number of turns (1)"]},
            AgentStatus.TURNS_EXCEEDED,
            "Reached maximum number of turns (1)",
        ),
        (
            {"subtype": "error_max_budget_usd", "errors": ["Reached maximum budget ($0.01)"]},
            AgentStatus.BUDGET_EXCEEDED,
            "Reached maximum budget ($0.01)",
        ),
        (
            {"subtype": "error_during_execution", "errors": ["[ede_diagnostic] boom"]},
            AgentStatus.FAILED,
            "error_during_execution: [ede_diagnostic] boom",
        ),
        (
            {"subtype": "error_max_structured_output_retries", "errors": []},
            AgentStatus.FAILED,
            "error_max_structured_output_retries",
        ),
        (
            {
                **SUCCESS,
                "is_error": True,
                "api_error_status": 400,
                "result": "API Error: 400 fake error",
                "terminal_reason": "api_error",
            },
            AgentStatus.FAILED,
            "API Error: 400 fake error",
        ),
        (
            {**SUCCESS, "is_error": True, "api_error_status": 529, "result": ""},
            AgentStatus.RATE_LIMITED,
            "API error 529",
        ),
        (
            {**SUCCESS, "result": "UserPromptSubmit operation blocked by hook:\nno\n\nOriginal"},
            AgentStatus.FAILED,
            "a hook blocked the prompt: UserPromptSubmit operation blocked",
        ),
        (
            {**SUCCESS, "result": "", "terminal_reason": "hook_stopped"},
            AgentStatus.FAILED,
            "a hook stopped the run",
        ),
    ],
)
def test_each_ending_maps_to_its_status(frame, status, error):
    outcome = classify(frame)
    assert outcome.status is status
    assert outcome.error.startswith(error)


def test_a_timeout_wins_over_whatever_came_before():
    outcome = classify(SUCCESS, timed_out="stalled: no message for 3s")
    assert outcome.status is AgentStatus.TIMEOUT
    assert outcome.error == "stalled: no message for 3s"


def test_no_result_frame_is_a_crash_saying_what_broke():
    assert classify(None).status is AgentStatus.CRASHED
    assert classify(None, crashed="ProcessError: exit 137").error == "ProcessError: exit 137"


def test_the_structured_result_comes_from_structured_output_or_json_text():
    assert structured_result({"structured_output": {"a": 1}, "result": "x"}) == {"a": 1}
    assert structured_result({"result": '{"a": 2}'}) == {"a": 2}
    assert structured_result({"result": '```json\n{"a": 3}\n```'}) == {"a": 3}
    assert structured_result({"result": "I did it"}) is None
    assert structured_result({"result": "[1, 2]"}) is None


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        (
            {**SUCCESS, "is_error": True, "api_error_status": 401, "result": "Invalid API key"},
            "Claude Code's credentials were refused (401: Invalid API key); set ANTHROPIC_API_KEY",
        ),
        (
            {
                **SUCCESS,
                "is_error": True,
                "api_error_status": 403,
                "result": "Failed to authenticate. API Error: 403 no access",
            },
            "credentials were refused",
        ),
        (
            {
                **SUCCESS,
                "is_error": True,
                "api_error_status": 404,
                "result": "There's an issue with the selected model (claude-nope).",
            },
            "the model 'claude-nope' is not available to this account",
        ),
        (
            {
                **SUCCESS,
                "is_error": True,
                "api_error_status": 400,
                "result": "Credit balance is too low",
            },
            "the Anthropic account cannot pay for this run",
        ),
    ],
)
def test_an_api_answer_that_no_retry_changes_is_misconfigured(frame, said):
    outcome = classify(frame, model="claude-nope", login="/opt/claude auth login")
    assert outcome.status is AgentStatus.MISCONFIGURED
    assert said in outcome.error


def test_the_fix_for_refused_credentials_names_the_login_command_and_the_key():
    problem = setup_problem(401, "authentication_failed", login="/venv/_bundled/claude auth login")
    assert problem == (
        "Claude Code's credentials were refused (401: authentication_failed); set "
        "ANTHROPIC_API_KEY to a valid key, or log in with `/venv/_bundled/claude auth login`, "
        "then run again"
    )
    assert setup_problem(529, "server_error", "overloaded") == ""
    assert setup_problem(None, "rate_limit") == ""


#: What Claude Code 2.1.330 reports (result errors) when failIfUnavailable stops it.
NO_BWRAP = (
    "Sandbox required but unavailable: sandbox is enabled but dependencies are missing: "
    "bubblewrap (bwrap) not installed, socat not installed · install missing tools (e.g. apt "
    "install bubblewrap socat) or see https://code.claude.com/docs/en/sandboxing. Set "
    "sandbox.failIfUnavailable=false to allow unsandboxed execution."
)


def test_a_sandbox_that_cannot_start_says_what_is_missing_and_the_two_ways_out():
    said = sandbox_problem(NO_BWRAP)
    assert said.startswith(
        "Claude Code's sandbox cannot start here (dependencies are missing: bubblewrap "
        "(bwrap) not installed, socat not installed); install bubblewrap and socat"
    )
    assert "allow_unsandboxed = true in ralph.toml (or RALPH_ALLOW_UNSANDBOXED=true)" in said
    assert "failIfUnavailable" not in said


def test_the_same_line_on_stderr_is_recognised_and_other_text_is_not():
    stderr = "Error: sandbox required but unavailable: no user namespaces\n  Refusing to start"
    assert "(no user namespaces)" in sandbox_problem(stderr)
    assert sandbox_problem("API Error: 500 overloaded") == ""
    assert "(no reason given)" in sandbox_problem("Sandbox required but unavailable")


def test_a_provider_limit_ends_rate_limited_with_its_reset_never_failed():
    rate = {
        **SUCCESS,
        "is_error": True,
        "api_error_status": 429,
        "api_error_type": "rate_limit_error",
        "result": "API Error: Request rejected (429) · This request would exceed the rate limit",
    }
    outcome = classify(rate, now=1000.0)
    assert (outcome.status, outcome.resets_at) == (AgentStatus.RATE_LIMITED, 0.0)
    assert outcome.error.startswith("API Error: Request rejected (429)")
    usage = {**SUCCESS, "is_error": True, "result": "Claude AI usage limit reached|1796626800"}
    outcome = classify(usage, now=1000.0)
    assert (outcome.status, outcome.resets_at) == (AgentStatus.RATE_LIMITED, 1796626800)


def test_a_rate_limit_event_lends_its_reset_to_an_error_result_that_says_none():
    from ralph.runtimes._provider_limits import ProviderLimit

    rate = {**SUCCESS, "is_error": True, "api_error_status": 429, "result": "API Error: 429"}
    event = ProviderLimit("Claude usage limit reached (five hour)", 1796626800)
    outcome = classify(rate, limited=event, now=1000.0)
    assert outcome.resets_at == 1796626800
    # A run stopped while Claude Code retried a limit: rate limited, not crashed.
    stopped = classify(None, limited=event)
    assert (stopped.status, stopped.error) == (AgentStatus.RATE_LIMITED, event.said)
    # A run that went on and succeeded (overage) is OK.
    assert classify(SUCCESS, limited=event).status is AgentStatus.OK
