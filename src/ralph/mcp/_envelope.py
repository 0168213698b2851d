"""The original's result envelope: the data as indented JSON text; a failure as
``{"error": ...}`` with ``isError`` set and a hint on how to recover. A tool never
raises: the server stays up whatever an agent sends."""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Callable
from typing import Any, ParamSpec

from mcp.types import CallToolResult, TextContent

from ralph.errors import IssueNotFound, NotAvailable, RalphError, TaskNotFound

__all__ = ["failure", "success", "tool_call"]

logger = logging.getLogger(__name__)

P = ParamSpec("P")


def success(data: Any) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, indent=2, default=str))]
    )


def failure(message: str) -> CallToolResult:
    text = json.dumps({"error": message}, indent=2)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _recovery(exc: RalphError) -> str:
    if isinstance(exc, IssueNotFound):
        return "verify the issue number with ralph_hero__list_issues"
    if isinstance(exc, TaskNotFound):
        return "list the run's tasks with ralph_hero__task_list"
    if isinstance(exc, NotAvailable):
        return "use what the message names instead; this tracker has no such thing"
    return "fix the arguments and retry"


def tool_call(
    verb: str, lock: threading.Lock
) -> Callable[[Callable[P, Any]], Callable[P, CallToolResult]]:
    """Wrap a tool body: one call at a time against the project, the result enveloped,
    Ralph's errors (and bad values) turned into tool errors."""

    def decorate(body: Callable[P, Any]) -> Callable[P, CallToolResult]:
        @functools.wraps(body)
        def call(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            try:
                with lock:
                    return success(body(*args, **kwargs))
            except RalphError as exc:
                text = str(exc).rstrip(".")
                if "Recovery:" not in text:
                    text += f". Recovery: {_recovery(exc)}"
                return failure(f"Failed to {verb}: {text}.")
            except (ValueError, KeyError, TypeError) as exc:
                return failure(f"Failed to {verb}: {exc}. Recovery: fix the arguments and retry.")
            except Exception as exc:  # the server must survive anything a tool hits
                logger.exception("tool failed", extra={"verb": verb})
                return failure(f"Failed to {verb}: internal error ({type(exc).__name__}).")

        return call

    return decorate
