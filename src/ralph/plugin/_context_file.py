"""The hook context on disk: ``.ralph/hook-context.json`` in the project's folder, written
by ``ralph hook context set`` and read by every hook."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ralph.plugin._context import HookContext

__all__ = ["CONTEXT_FILE", "FoundContext", "clear_context", "find_context", "set_context"]

CONTEXT_FILE = ".ralph/hook-context.json"


@dataclass(frozen=True)
class FoundContext:
    context: HookContext
    #: The project's folder: the one holding ``.ralph/``.
    root: Path


def find_context(start: Path) -> FoundContext | None:
    """The context file in ``start`` or the nearest parent that has one. Raises
    ValueError (or OSError) for a file that is not a context."""
    for folder in (start, *start.parents):
        file = folder / CONTEXT_FILE
        if file.is_file():
            return FoundContext(HookContext.from_json(json.loads(file.read_text())), folder)
    return None


def set_context(root: Path, context: HookContext) -> Path:
    file = root / CONTEXT_FILE
    file.parent.mkdir(parents=True, exist_ok=True)
    # Written whole, then moved into place: a hook never reads half a file.
    partial = file.with_name(f".{file.name}.{os.getpid()}")
    partial.write_text(json.dumps(context.to_json(), indent=2) + "\n")
    partial.replace(file)
    return file


def clear_context(root: Path) -> bool:
    """Remove the context; False when there was none."""
    try:
        (root / CONTEXT_FILE).unlink()
    except FileNotFoundError:
        return False
    return True
