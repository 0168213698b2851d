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
