"""Lines a client sends that are no JSON-RPC message Ralph can read: answered with a
JSON-RPC error, never dropped. The transport hands such a line on as an exception; the
MCP library then only logs it, so a client waiting on the request's id would wait for
ever (a request nested ~200 levels deep passes for JSON but not for the parser's
recursion limit). The id is read from the line's top level where it can be."""

from __future__ import annotations

import json
import time
from types import TracebackType
from typing import Any, Self

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["Answered", "AnsweringUnreadable", "answer_for", "top_level_id"]

_SHOWN = 200
#: How long the end of the client's input waits for the requests before it to be answered.
DRAIN_SECONDS = 30.0


def top_level_id(line: str) -> int | str | None:
    """The ``id`` member of the line's outermost object, read without parsing what is
    nested (which may be too deep to parse); None when there is none to read."""
    depth, index, in_string = 0, 0, False
    key_start = -1
    while index < len(line):
        char = line[index]
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
                if depth == 1 and line[key_start:index] == "id":
                    return _id_after(line, index + 1)
        elif char == '"':
            in_string, key_start = True, index + 1
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        index += 1
    return None


def _id_after(line: str, index: int) -> int | str | None:
    rest = line[index:].lstrip()
    if not rest.startswith(":"):
        return None  # a string value "id", not the key
    try:
        value, _ = json.JSONDecoder().raw_decode(rest[1:].lstrip())
    except (ValueError, RecursionError):  # an id nested as deep as the rest: none to read
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


def answer_for(problem: Exception) -> types.JSONRPCError:
    """The error answering the line the transport could not read as a message."""
    errors = problem.errors() if isinstance(problem, ValidationError) else []
    first: dict[str, Any] = dict(errors[0]) if errors else {}
    if first.get("type") == "json_invalid" and isinstance(first.get("input"), str):
        line: str = first["input"]
        if "recursion limit" in str(first.get("msg", "")):
            return _error(
                top_level_id(line),
                types.INVALID_REQUEST,
                "Invalid Request: nested too deeply to read; send arguments a few levels deep",
            )
        return _error(None, types.PARSE_ERROR, f"Parse error: {first.get('msg', '')}"[:_SHOWN])
    found = [e.get("input") for e in errors if isinstance(e.get("input"), dict)]
    request_id = found[0].get("id") if found else None
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        request_id = None
    return _error(request_id, types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


class Answered:
    """The server's write stream, noting which requests have had their answer: the end of
    the client's input waits for those still open (a client that sends its last request
    and closes its end still gets the answer, rather than the server ending under it)."""

    def __init__(self, inner: WriteStream[SessionMessage]) -> None:
        self._inner = inner
        self.open: set[int | str] = set()

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send(item)
        if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError):
            self.open.discard(item.message.id)

    async def drain(self, seconds: float = DRAIN_SECONDS) -> None:
        """Wait, at most ``seconds``, until every request passed on is answered."""
        deadline = time.monotonic() + seconds
        while self.open and time.monotonic() < deadline:
            await anyio.sleep(0.02)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class AnsweringUnreadable:
    """The transport's read stream, less the lines it could not read: each of those is
    answered on ``answers`` with a JSON-RPC error instead. Its end comes once the
    requests read before it are answered (``Answered``), within a bound."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        answers: WriteStream[SessionMessage] | Answered,
    ) -> None:
        self._inner = inner
        self._answers = answers

    @property
    def last_context(self) -> object:
        # The library restores the sender's context from it where the stream has one.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            try:
                item = await self._inner.receive()
            except anyio.EndOfStream:
                await self._drain()
                raise
            if not await self._answered(item):
                return item

    async def __anext__(self) -> SessionMessage | Exception:
        while True:
            try:
                item = await self._inner.__anext__()
            except StopAsyncIteration:
                await self._drain()
                raise
            if not await self._answered(item):
                return item

    async def _drain(self) -> None:
        if isinstance(self._answers, Answered):
            await self._answers.drain()

    async def _answered(self, item: SessionMessage | Exception) -> bool:
        if not isinstance(item, Exception):
            if isinstance(self._answers, Answered) and isinstance(
                item.message, types.JSONRPCRequest
            ):
                self._answers.open.add(item.message.id)
            return False
        await self._answers.send(SessionMessage(answer_for(item)))
        return True

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
