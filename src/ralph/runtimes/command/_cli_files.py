"""What an agent CLI's own files say about a run, where its output does not: the model
its config names (Codex and opencode print none; their cost is priced by it), and
Codex's record of a session (its rollout file: one line per model response, and the
model it ran), which counts the model's answers exactly where its ``--json`` events
cannot (an answer asking for two commands shows as two commands)."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CodexSession", "codex_home", "codex_session", "configured_model"]

#: The most of a rollout file read: a session's record is far smaller.
_MAX_ROLLOUT_BYTES = 64 * 1024 * 1024


def _home(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME")
    return Path(home) if home else None


def codex_home(env: Mapping[str, str]) -> Path | None:
    """Codex's folder (its config, its sessions): ``CODEX_HOME``, else ``~/.codex``."""
    if env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"])
    home = _home(env)
    return home / ".codex" if home else None


def _codex(env: Mapping[str, str]) -> Any:
    folder = codex_home(env)
    if folder is None:
        return None
    return tomllib.loads((folder / "config.toml").read_text(encoding="utf-8")).get("model")


def _opencode(env: Mapping[str, str]) -> Any:
    home = _home(env)
    path = env.get("OPENCODE_CONFIG") or (
        str(home / ".config" / "opencode" / "opencode.json") if home else ""
    )
    if not path:
        return None
    value = json.loads(Path(path).read_text(encoding="utf-8"))
    return value.get("model") if isinstance(value, dict) else None


_READERS = {"codex": _codex, "opencode": _opencode}


def configured_model(cli: str, env: Mapping[str, str]) -> str:
    """The model ``cli``'s config names in the agent's environment ``env`` ("" when none
    or it cannot be read: the cost is then unknown, not wrong)."""
    reader = _READERS.get(cli)
    if reader is None:
        return ""
    try:
        model = reader(env)
    except (OSError, ValueError):  # no config, or not TOML/JSON
        return ""
    return model if isinstance(model, str) else ""


@dataclass(frozen=True)
class CodexSession:
    #: Model responses (each answer of the model, however many tool calls it asked for).
    answers: int
    #: The model the session ran ("" when its record does not say).
    model: str


def codex_session(thread_id: str, env: Mapping[str, str]) -> CodexSession | None:
    """The record Codex kept of session ``thread_id`` (``sessions/Y/M/D/rollout-...-ID
    .jsonl`` in its home), or None when there is none to read."""
    folder = codex_home(env)
    if folder is None or not thread_id or "/" in thread_id:
        return None
    found = sorted((folder / "sessions").glob(f"*/*/*/rollout-*-{thread_id}.jsonl"))
    if not found:
        return None
    try:
        with found[-1].open(encoding="utf-8", errors="replace") as file:
            text = file.read(_MAX_ROLLOUT_BYTES)
    except OSError:
        return None
    responses: set[str] = set()
    model = ""
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(payload, dict):
            continue
        if record.get("type") == "token_usage_record":
            responses.add(str(payload.get("response_id") or len(responses)))
        elif record.get("type") == "turn_context" and isinstance(payload.get("model"), str):
            model = payload["model"]
    return CodexSession(answers=len(responses), model=model)
