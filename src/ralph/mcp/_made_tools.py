"""A tool made from its body, its schema derived once per process: every ``ralph mcp``,
every agent's in-process server and every server a test builds registers the whole
catalogue, and pydantic's argument model and JSON schema of each signature (a fifth of a
second for the catalogue) depend only on the body's code, name and defaults, never on the
project its closure holds."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations

__all__ = ["made_tool"]

#: A tool as made the first time, by what decides its schema; its ``fn`` is a stand-in,
#: so no project outlives the server that used it.
_made: dict[Hashable, Tool] = {}


def made_tool(
    call: Callable[..., Any], body: Callable[..., Any], *, name: str, writes: bool
) -> Tool:
    """The tool ``name`` that runs ``call`` (``body`` wrapped), with ``body``'s schema."""
    key = _key(body, name, writes)
    known = _made.get(key) if key is not None else None
    if known is None:
        annotations = ToolAnnotations(read_only_hint=not writes)
        tool = Tool.from_function(call, name=name, annotations=annotations, structured_output=False)
        if key is not None:
            _made[key] = tool.model_copy(update={"fn": _stand_in})
        return tool
    return known.model_copy(update={"fn": call})


def _key(body: Callable[..., Any], name: str, writes: bool) -> Hashable | None:
    """What decides the schema (None: a default that cannot be a key, so made afresh):
    the body's code (one per tool definition, the enclosing module's annotations with
    it), its name, docstring and defaults."""
    kwdefaults = tuple(sorted((getattr(body, "__kwdefaults__", None) or {}).items()))
    key = (
        getattr(body, "__code__", body),
        name,
        writes,
        body.__doc__,
        getattr(body, "__defaults__", None),
        kwdefaults,
    )
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _stand_in(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a cached tool's schema was called instead of a server's tool")
