"""The model an agent CLI runs when Ralph names none: the one its own config names. Codex
and opencode do not say it in their output, and their cost is priced by it."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["configured_model"]


def _home(env: Mapping[str, str]) -> Path | None:
    home = env.get("HOME")
    return Path(home) if home else None


def _codex(env: Mapping[str, str]) -> Any:
    home = _home(env)
    folder = env.get("CODEX_HOME") or (str(home / ".codex") if home else "")
    if not folder:
        return None
    return tomllib.loads((Path(folder) / "config.toml").read_text(encoding="utf-8")).get("model")


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
