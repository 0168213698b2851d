"""The original's result envelope: the data as indented JSON text; a failure as
``{"error": ...}`` with ``isError`` set and a hint on how to recover. A tool never
raises: the server stays up whatever an agent sends."""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import threading
import time
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
    verb: str, lock: threading.Lock, seconds: float
) -> Callable[[Callable[P, Any]], Callable[P, CallToolResult]]:
    """Wrap a tool body: one call at a time against the project, the result enveloped,
    Ralph's errors (and bad values) turned into tool errors, and an answer within
    ``seconds``: a body still running then goes on in a thread of its own, holding the
    project, while its caller is told so (a thread cannot be stopped from outside)."""

    def decorate(body: Callable[P, Any]) -> Callable[P, CallToolResult]:
        enveloped = _enveloped(verb, body)

        @functools.wraps(body)
        def call(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
            deadline = time.monotonic() + seconds
            if not lock.acquire(timeout=seconds):
                return failure(
                    f"Failed to {verb}: the server is still busy with an earlier call after "
                    f"{seconds:g} s. Recovery: retry later."
                )
            answer: list[CallToolResult] = []
            context = contextvars.copy_context()

            def run() -> None:
                try:
                    answer.append(context.run(enveloped, *args, **kwargs))
                finally:
                    lock.release()

            worker = threading.Thread(target=run, name=f"mcp {verb}", daemon=True)
            worker.start()
            worker.join(max(0.0, deadline - time.monotonic()))
            if answer:
                return answer[0]
            return failure(
                f"Failed to {verb}: it did not finish within {seconds:g} s and goes on in "
                "the background (later calls wait for it). Recovery: check its effect before "
                "retrying, and narrow the request."
            )

        return call

    return decorate


def _enveloped(verb: str, body: Callable[P, Any]) -> Callable[P, CallToolResult]:
    def call(*args: P.args, **kwargs: P.kwargs) -> CallToolResult:
        try:
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
