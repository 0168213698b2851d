"""Agent CLI output read into one shape; odd lines never break a parser."""

from __future__ import annotations

import json

from ralph.runtimes import AgentStatus, Tokens
from ralph.runtimes.command import PARSERS


def lines(*events: object) -> str:
    return "noise that is not json\n" + "\n".join(json.dumps(e) for e in events) + "\n"


def test_codex_error_events_fail_the_run():
    parsed = PARSERS["codex"](lines({"type": "error", "message": "stream closed"}))
    assert parsed.status is AgentStatus.FAILED
    assert parsed.error == "stream closed"


def test_codex_keeps_the_last_agent_message():
    parsed = PARSERS["codex"](
        lines(
            {"type": "item.completed", "item": {"type": "agent_message", "text": "first"}},
            {"type": "item.completed", "item": {"type": "reasoning", "text": "hmm"}},
            {"type": "item.completed", "item": {"type": "agent_message", "text": '{"a": 1}'}},
        )
    )
    assert parsed.text == '{"a": 1}'
    assert parsed.result == {"a": 1}
    assert parsed.status is None  # the exit code decides


def test_gemini_json_error_and_model_token_stats():
    output = json.dumps(
        {
            "session_id": "g",
            "response": "",
            "error": {"message": "quota"},
            "stats": {"models": {"m": {"tokens": {"prompt": 7, "candidates": 3}}}},
        }
    )
    parsed = PARSERS["gemini"](output)
    assert parsed.status is AgentStatus.FAILED
    assert parsed.error == "quota"
    assert (parsed.input_tokens, parsed.output_tokens) == (7, 3)


def test_gemini_stream_error_result():
    parsed = PARSERS["gemini"](lines({"type": "result", "status": "error", "error": "denied"}))
    assert parsed.status is AgentStatus.FAILED
    assert parsed.error == "denied"


def test_opencode_error_event():
    event = {"type": "error", "error": {"name": "APIError", "data": {"message": "bad key"}}}
    parsed = PARSERS["opencode"](lines(event))
    assert parsed.status is AgentStatus.FAILED
    assert parsed.error == "bad key"


def test_claude_without_a_result_frame_is_a_crash():
    parsed = PARSERS["claude"](lines({"type": "system", "subtype": "init"}))
    assert parsed.status is AgentStatus.CRASHED


def test_plain_output_is_the_text():
    assert PARSERS["plain"]("  hello\n").text == "hello"


def test_claude_counts_cached_input_apart():
    usage = {
        "input_tokens": 3053,
        "output_tokens": 900,
        "cache_read_input_tokens": 210_000,
        "cache_creation_input_tokens": 3330,
    }
    frame = {"type": "result", "subtype": "success", "result": "{}", "usage": usage}
    parsed = PARSERS["claude"](lines(frame))
    assert (parsed.input_tokens, parsed.output_tokens) == (3053, 900)
    assert (parsed.cache_read_tokens, parsed.cache_write_tokens) == (210_000, 3330)


def test_codex_cached_input_is_taken_out_of_its_input_count():
    usage = {"input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 50}
    parsed = PARSERS["codex"](lines({"type": "turn.completed", "usage": usage}))
    assert (parsed.input_tokens, parsed.cache_read_tokens, parsed.output_tokens) == (200, 800, 50)


def test_opencode_counts_cache_reads_and_writes():
    tokens = {"input": 10, "output": 5, "cache": {"read": 700, "write": 40}}
    parsed = PARSERS["opencode"](lines({"type": "step_finish", "part": {"tokens": tokens}}))
    assert (parsed.input_tokens, parsed.cache_read_tokens, parsed.cache_write_tokens) == (
        10,
        700,
        40,
    )


def test_gemini_cached_input_is_taken_out_of_its_prompt_count():
    stats = {"models": {"m": {"tokens": {"prompt": 900, "cached": 600, "candidates": 3}}}}
    parsed = PARSERS["gemini"](json.dumps({"response": "{}", "stats": stats}))
    assert (parsed.input_tokens, parsed.cache_read_tokens, parsed.output_tokens) == (300, 600, 3)


def test_codex_cache_writes_are_taken_out_of_its_input_count_too():
    usage = {
        "input_tokens": 1000,
        "cached_input_tokens": 600,
        "cache_write_input_tokens": 300,
        "output_tokens": 50,
    }
    parsed = PARSERS["codex"](lines({"type": "turn.completed", "usage": usage}))
    assert (parsed.input_tokens, parsed.cache_read_tokens, parsed.cache_write_tokens) == (
        100,
        600,
        300,
    )


def test_codex_counts_a_model_answer_per_tool_call_and_one_for_the_result():
    tool = {"type": "item.completed", "item": {"type": "command_execution", "exit_code": 0}}
    said = {"type": "item.completed", "item": {"type": "agent_message", "text": "{}"}}
    assert PARSERS["codex"](lines(tool, tool, said)).turns == 3
    assert PARSERS["codex"](lines(tool)).turns == 1


def test_gemini_takes_what_the_model_said_after_its_last_tool_call():
    parsed = PARSERS["gemini"](
        lines(
            {"type": "message", "role": "assistant", "content": "Let me look.", "delta": True},
            {"type": "tool_use", "tool_name": "read_file", "tool_id": "t1", "parameters": {}},
            {"type": "tool_result", "tool_id": "t1", "status": "success"},
            {"type": "message", "role": "assistant", "content": '{"a": ', "delta": True},
            {"type": "message", "role": "assistant", "content": "1}", "delta": True},
            {"type": "result", "status": "success", "stats": {}},
        )
    )
    assert parsed.result == {"a": 1}
    assert parsed.turns == 2


def started(key: str, kind: str = "command_execution") -> dict[str, object]:
    return {"type": "item.started", "item": {"id": key, "type": kind, "command": "ls"}}


def completed(key: str, kind: str = "command_execution", text: str = "") -> dict[str, object]:
    return {"type": "item.completed", "item": {"id": key, "type": kind, "text": text}}


def test_codex_turns_are_the_models_answers_not_its_commands():
    parsed = PARSERS["codex"](
        lines(
            # Answer 1: it reasons, says what it will do, runs two commands side by side.
            completed("r1", "reasoning"),
            completed("m1", "agent_message", "Looking around."),
            started("c1"),
            started("c2"),
            completed("c2"),
            completed("c1"),
            # Answer 2: one edit.
            started("f1", "file_change"),
            completed("f1", "file_change"),
            # Answer 3: the result.
            completed("m2", "agent_message", '{"a": 1}'),
            {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}},
        )
    )
    assert parsed.turns == 3
    assert parsed.result == {"a": 1}


def test_codex_reports_no_cost_so_ralph_prices_its_tokens_by_the_model_in_use():
    usage = {"input_tokens": 300, "cached_input_tokens": 60, "output_tokens": 60}
    parsed = PARSERS["codex"](lines({"type": "turn.completed", "usage": usage}))
    assert parsed.cost_usd is None
    assert parsed.tokens_by_model() == {"": Tokens(input=240, cache_read=60, output=60)}


def test_gemini_tokens_are_priced_per_model_its_stats_name():
    stats = {
        "input_tokens": 400,
        "output_tokens": 80,
        "cached": 80,
        "models": {
            "gemini-2.5-flash-lite": {"input_tokens": 100, "output_tokens": 20, "cached": 20},
            "gemini-2.5-pro": {"input_tokens": 300, "output_tokens": 60, "cached": 60},
        },
    }
    parsed = PARSERS["gemini"](
        lines({"type": "init", "model": "auto"}, {"type": "result", "stats": stats})
    )
    assert parsed.cost_usd is None
    assert parsed.tokens_by_model() == {
        "gemini-2.5-flash-lite": Tokens(input=80, cache_read=20, output=20),
        "gemini-2.5-pro": Tokens(input=240, cache_read=60, output=60),
    }
    assert (parsed.input_tokens, parsed.cache_read_tokens, parsed.output_tokens) == (320, 80, 80)
    # Totals that name no model are the model its init event named.
    totals = {"input_tokens": 10, "output_tokens": 2, "cached": 0}
    named = PARSERS["gemini"](
        lines({"type": "init", "model": "gemini-2.5-pro"}, {"type": "result", "stats": totals})
    )
    assert named.tokens_by_model() == {"gemini-2.5-pro": Tokens(input=10, output=2)}


def test_opencode_keeps_its_own_cost_and_leaves_a_zero_one_to_ralphs_prices():
    def step(cost: float) -> dict[str, object]:
        tokens = {"input": 80, "output": 20, "cache": {"read": 20, "write": 0}}
        return {"type": "step_finish", "part": {"cost": cost, "tokens": tokens}}

    assert PARSERS["opencode"](lines(step(0.25), step(0.5))).cost_usd == 0.75
    assert PARSERS["opencode"](lines(step(0), step(0))).cost_usd is None


def _codex_failure(message: str) -> str:
    events = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "error", "message": message},
        {"type": "turn.failed", "error": {"message": message}},
    ]
    return "\n".join(json.dumps(e) for e in events)


def test_codex_limits_are_rate_limited_not_failed():
    parsed = PARSERS["codex"](
        _codex_failure("exceeded retry limit, last status: 429 Too Many Requests")
    )
    assert (parsed.status, parsed.resets_at) == (AgentStatus.RATE_LIMITED, 0.0)
    usage = "You’ve hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes."
    parsed = PARSERS["codex"](_codex_failure(usage))
    assert parsed.status is AgentStatus.RATE_LIMITED
    assert parsed.resets_at > 0
    assert PARSERS["codex"](_codex_failure("stream disconnected")).status is AgentStatus.FAILED


def test_gemini_quota_result_is_rate_limited():
    events = [
        {"type": "init", "session_id": "s", "model": "auto"},
        {
            "type": "result",
            "status": "error",
            "error": {
                "type": "Error",
                "message": "You have exhausted your daily quota on this model.",
            },
            "stats": {},
        },
    ]
    parsed = PARSERS["gemini"]("\n".join(json.dumps(e) for e in events))
    assert (parsed.status, parsed.resets_at) == (AgentStatus.RATE_LIMITED, 0.0)


def test_opencode_provider_error_with_its_wait_is_rate_limited():
    error = {
        "name": "APIError",
        "data": {
            "message": "Rate limit reached for fake-model. Please try again in 20s.",
            "statusCode": 429,
            "isRetryable": True,
        },
    }
    event = {"type": "error", "sessionID": "ses_1", "error": error}
    parsed = PARSERS["opencode"](json.dumps(event))
    assert parsed.status is AgentStatus.RATE_LIMITED
    assert parsed.resets_at > 0
    assert parsed.error.startswith("Rate limit reached")


def test_claude_subscriptions_spent_window_takes_the_exact_reset_of_its_event():
    event = {
        "type": "rate_limit_event",
        "rate_limit_info": {
            "status": "rejected",
            "resetsAt": 1796623630,
            "rateLimitType": "five_hour",
        },
    }
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "api_error_status": 429,
        "api_error_type": "rate_limit_error",
        "result": "You've hit your 5-hour limit · resets 6:07am (UTC)",
        "session_id": "s",
    }
    parsed = PARSERS["claude"]("\n".join(json.dumps(f) for f in (event, result)))
    assert parsed.status is AgentStatus.RATE_LIMITED
    assert parsed.resets_at == 1796623630
    assert parsed.error == "You've hit your 5-hour limit · resets 6:07am (UTC)"
