"""What any tool call is held to before and while it runs: text arguments of at most
GitHub's body length without control characters (line breaks and tabs aside; a NUL
cannot even be stored), and an answer within a bound however slow the work."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ralph._text import MAX_BODY, control_characters

__all__ = ["CALL_SECONDS", "text_problem"]

#: The longest a call waits for its answer (its own work, or an earlier call's it queues
#: behind) before it answers with an error: a client is never left hanging.
CALL_SECONDS = 60.0
_ALLOWED = ("U+000A", "U+0009", "U+000D")


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(str(key), f"{path}.{key}")
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def text_problem(arguments: dict[str, Any]) -> str:
    """The first text argument past the length bound or with a control character, said
    in one line; "" when there is none."""
    for name, value in arguments.items():
        for where, text in _strings(value, name):
            if len(text) > MAX_BODY:
                return (
                    f"argument {where} is {len(text):,} characters long; at most {MAX_BODY:,} "
                    "(GitHub's limit on a body)"
                )
            found = [c for c in control_characters(text) if c not in _ALLOWED]
            if found:
                return (
                    f"argument {where} has control characters ({', '.join(found)}); "
                    "remove them (only line breaks and tabs are taken)"
                )
    return ""
