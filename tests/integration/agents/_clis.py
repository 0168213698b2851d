"""The real agent CLIs on fakes of their model APIs: how each is pointed at its fake (its
own documented setting, a throwaway key, a home of the test's own), and how its model
calls its tools (each CLI names and shapes them its own way)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...fakes import anthropic_api, gemini_api, openai_chat, openai_responses
from ...fakes._scripted import ScriptedServer, Text, ToolCall

__all__ = ["CLAUDE", "CLIS", "Dialect", "Step"]

Step = Any  # a step of the CLI's fake (its Text / ToolCall, or Anthropic's)


@dataclass(frozen=True)
class Dialect:
    """One CLI: its fake API, how it is configured, and its model's tool calls."""

    name: str
    fake: Callable[..., Any]
    #: ``(home, api) -> environment``: writes the CLI's config under ``home``.
    configure: Callable[[Path, Any], dict[str, str]]
    write: Callable[[str, str], Step]
    edit: Callable[[str, str, str], Step]
    shell: Callable[[str], Step]
    #: The steps that hand back the structured result (and end the run).
    finish: Callable[[Mapping[str, Any]], list[Step]]
    #: A file read, for a CLI that edits only what it has read (Claude Code).
    read: Callable[[str], Step] | None = None

    def start(self, script: Any) -> ScriptedServer:
        return self.fake(script).__enter__()  # type: ignore[no-any-return]


def _codex(home: Path, api: openai_responses.FakeResponsesAPI) -> dict[str, str]:
    # A model provider of Codex's config (its documented way to another endpoint),
    # reading the throwaway key from OPENAI_API_KEY, the only key it is given.
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    (home / ".codex" / "config.toml").write_text(
        f"""model = "gpt-5.5"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "Fake Responses API"
base_url = "{api.base_url}"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
"""
    )
    # Nothing else names the fake's address: the agent's egress proxy reads it here.
    return {"HOME": str(home), "OPENAI_API_KEY": api.KEY}


def _gemini(home: Path, api: gemini_api.FakeGeminiAPI) -> dict[str, str]:
    # GOOGLE_GEMINI_BASE_URL points the Gemini API client at the fake; the settings
    # choose API-key authentication, which headless runs need chosen beforehand.
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    }
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return {
        "HOME": str(home),
        "GOOGLE_GEMINI_BASE_URL": api.url,
        "GEMINI_API_KEY": api.KEY,
        "GEMINI_CLI_NO_RELAUNCH": "true",  # one Node process, not two: faster
    }


def _opencode(home: Path, api: openai_chat.FakeChatAPI) -> dict[str, str]:
    # A custom provider of opencode's config: the AI SDK's OpenAI-compatible client
    # with the fake's base URL; the model's prices make opencode report a cost.
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake Chat Completions API",
                "options": {"baseURL": api.base_url, "apiKey": "{env:OPENAI_API_KEY}"},
                "models": {
                    "fake-model": {"name": "Fake model", "cost": {"input": 3.0, "output": 15.0}}
                },
            }
        },
        "model": "fake/fake-model",
        "snapshot": False,  # no copy of the work tree per step: Ralph has git
    }
    (home / ".config" / "opencode").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(config))
    return {
        "HOME": str(home),
        "OPENAI_API_KEY": api.KEY,
        "OPENCODE_DISABLE_MODELS_FETCH": "1",  # no models.dev: the provider is here
    }


def _patch(path: str, old: str, new: str) -> str:
    """Codex's apply_patch grammar: one file updated by a hunk."""
    lines = ["*** Begin Patch", f"*** Update File: {path}", "@@"]
    lines += [f"-{line}" for line in old.splitlines()]
    lines += [f"+{line}" for line in new.splitlines()]
    return "\n".join([*lines, "*** End Patch"]) + "\n"


def _added(path: str, content: str) -> str:
    body = "\n".join(f"+{line}" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{body}\n*** End Patch\n"


def _final(result: Mapping[str, Any]) -> list[Step]:
    return [Text(json.dumps(result))]


CLIS: dict[str, Dialect] = {
    "codex": Dialect(
        name="codex",
        fake=openai_responses.FakeResponsesAPI,
        configure=_codex,
        write=lambda path, content: ToolCall("apply_patch", {"input": _added(path, content)}),
        edit=lambda path, old, new: ToolCall("apply_patch", {"input": _patch(path, old, new)}),
        shell=lambda command: ToolCall("exec_command", {"cmd": command}),
        finish=_final,
    ),
    "gemini": Dialect(
        name="gemini",
        fake=gemini_api.FakeGeminiAPI,
        configure=_gemini,
        write=lambda path, content: ToolCall("write_file", {"file_path": path, "content": content}),
        edit=lambda path, old, new: ToolCall(
            "replace",
            {"file_path": path, "old_string": old, "new_string": new, "instruction": "edit"},
        ),
        shell=lambda command: ToolCall(
            "run_shell_command", {"command": command, "description": "run"}
        ),
        finish=_final,
    ),
    "opencode": Dialect(
        name="opencode",
        fake=openai_chat.FakeChatAPI,
        configure=_opencode,
        write=lambda path, content: ToolCall("write", {"filePath": path, "content": content}),
        edit=lambda path, old, new: ToolCall(
            "edit", {"filePath": path, "oldString": old, "newString": new}
        ),
        shell=lambda command: ToolCall("bash", {"command": command, "description": "run"}),
        finish=_final,
    ),
}


def _claude(home: Path, api: anthropic_api.FakeAnthropicAPI) -> dict[str, str]:
    return api.environment(str(home))


#: Claude Code on the fake Anthropic API, for runs that mix agents per phase.
CLAUDE = Dialect(
    name="claude",
    fake=anthropic_api.FakeAnthropicAPI,
    configure=_claude,
    write=lambda path, content: anthropic_api.ToolUse(
        "Write", {"file_path": path, "content": content}
    ),
    edit=lambda path, old, new: anthropic_api.ToolUse(
        "Edit", {"file_path": path, "old_string": old, "new_string": new}
    ),
    shell=lambda command: anthropic_api.ToolUse("Bash", {"command": command}),
    read=lambda path: anthropic_api.ToolUse("Read", {"file_path": path}),
    finish=lambda result: [
        anthropic_api.ToolUse("StructuredOutput", dict(result)),
        anthropic_api.Text("done"),
    ],
)
