"""What an agent CLI's own files say about a run: the model its config names, and the
model answers and model of a Codex session from its rollout record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.runtimes.command._cli_files import CodexSession, codex_session, configured_model

pytestmark = pytest.mark.timeout(30)

THREAD = "01a233a0-8f85-7b00-a8d3-0d7db71e1fc4"


def rollout(home: Path, *records: dict[str, object]) -> None:
    folder = home / ".codex" / "sessions" / "2026" / "12" / "01"
    folder.mkdir(parents=True)
    lines = [json.dumps(r) for r in records] + ["not json", "[]"]
    (folder / f"rollout-2026-12-01T22-01-30-{THREAD}.jsonl").write_text("\n".join(lines))


def usage(response: str) -> dict[str, object]:
    return {"type": "token_usage_record", "payload": {"response_id": response, "usage": {}}}


def test_a_codex_session_counts_each_model_response_once_and_names_its_model(tmp_path):
    rollout(
        tmp_path,
        {"type": "turn_context", "payload": {"model": "gpt-5.5"}},
        {"type": "response_item", "payload": {"type": "function_call"}},
        {"type": "response_item", "payload": {"type": "function_call"}},
        usage("resp_0001"),
        usage("resp_0002"),
        usage("resp_0002"),
    )
    assert codex_session(THREAD, {"HOME": str(tmp_path)}) == CodexSession(2, "gpt-5.5")
    codex_home = {"CODEX_HOME": str(tmp_path / ".codex")}
    assert codex_session(THREAD, codex_home) == CodexSession(2, "gpt-5.5")


def test_no_record_of_the_session_is_none(tmp_path):
    assert codex_session(THREAD, {"HOME": str(tmp_path)}) is None
    assert codex_session("", {"HOME": str(tmp_path)}) is None
    assert codex_session("../../etc", {"HOME": str(tmp_path)}) is None
    assert codex_session(THREAD, {}) is None


def test_the_model_a_clis_config_names(tmp_path):
    env = {"HOME": str(tmp_path)}
    assert configured_model("codex", env) == ""
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text('model = "gpt-5-codex"\n')
    assert configured_model("codex", env) == "gpt-5-codex"
    opencode = tmp_path / ".config" / "opencode"
    opencode.mkdir(parents=True)
    (opencode / "opencode.json").write_text(json.dumps({"model": "openai/gpt-5.5"}))
    assert configured_model("opencode", env) == "openai/gpt-5.5"
    (opencode / "opencode.json").write_text("{not json")
    assert configured_model("opencode", env) == ""
    assert configured_model("gemini", env) == ""  # it names its models in its output
