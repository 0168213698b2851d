"""Agent CLI output read into one shape; odd lines never break a parser."""

from __future__ import annotations

import json

from ralph.runtimes import AgentStatus
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
