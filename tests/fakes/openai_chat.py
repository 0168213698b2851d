"""A local fake of the OpenAI Chat Completions API, for driving the real opencode CLI
offline.

opencode reaches it through a custom provider of its config (``opencode.json``:
``"npm": "@ai-sdk/openai-compatible"`` with ``options.baseURL`` = this fake's ``/v1`` and
a throwaway ``apiKey``). Requests that declare ``tools`` are the agent's turns: each is
answered by the next step of a script. opencode's side requests without tools (a title
for the session) get a short text. Every request is recorded.

Protocol: ``POST /v1/chat/completions`` with ``stream: true`` answered as server-sent
events of bare ``data:`` lines, each a ``chat.completion.chunk`` (``delta.content``, or
``delta.tool_calls[{index, id, type, function: {name, arguments}}]``), the last with its
``finish_reason`` (``stop`` or ``tool_calls``), then, when ``stream_options.include_usage``
asks for it, a chunk with no choices and the ``usage``, then ``data: [DONE]``; an error
is an HTTP error with ``{"error": {"message", "type", "code"}}``. Each reply reports 100
prompt tokens (20 of them cached) and 20 completion tokens.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._limits import Limit
from ._openai_limits import LIMITS as OPENAI_LIMITS
from ._openai_limits import limit_answer
from ._scripted import (
    ApiError,
    Handler,
    Hang,
    Recorded,
    ScriptedServer,
    Step,
    Text,
    ToolCall,
    sse,
)
from ._tokens import OpenAICache

__all__ = ["ApiError", "ChatRequest", "FakeChatAPI", "Hang", "Step", "Text", "ToolCall"]

MODEL = "fake-model"
USAGE = {"prompt_tokens": 100, "cached_tokens": 20, "completion_tokens": 20}


@dataclass(frozen=True)
class ChatRequest:
    """One ``POST /chat/completions`` as the script sees it."""

    path: str
    body: Mapping[str, Any]

    @property
    def system(self) -> str:
        return "\n".join(
            _text(m.get("content"))
            for m in self.body.get("messages") or []
            if m.get("role") == "system"
        )

    @property
    def tool_names(self) -> list[str]:
        return [str((t.get("function") or {}).get("name")) for t in self.body.get("tools") or []]

    def texts(self) -> list[str]:
        """Every text of the conversation so far: messages and tool results."""
        return [
            _text(m.get("content"))
            for m in self.body.get("messages") or []
            if m.get("role") in ("user", "tool")
        ]

    @property
    def answered(self) -> int:
        """How many tool calls the conversation has had answered: where a stateless
        model is in its task."""
        return len(self.tool_results())

    def tool_results(self) -> list[str]:
        return [
            _text(m.get("content"))
            for m in self.body.get("messages") or []
            if m.get("role") == "tool"
        ]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return ""


@dataclass
class FakeChatAPI(ScriptedServer):
    """``with FakeChatAPI([ToolCall(...), Text("done")]) as api: ... api.base_url``"""

    usage: Mapping[str, int] = field(default_factory=lambda: dict(USAGE))
    #: Count each request's tokens and prompt cache rather than report ``usage``.
    counting: bool = False
    #: With ``counting``: each answered request and the usage reported for it.
    charged: list[tuple[ChatRequest, Mapping[str, int]]] = field(default_factory=list)

    LIMITS = OPENAI_LIMITS
    KEY = "sk-fake-chat-key"

    def __post_init__(self) -> None:
        super().__post_init__()
        self._cache = OpenAICache()

    def __enter__(self) -> FakeChatAPI:
        super().__enter__()
        return self

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def is_turn(self, recorded: Recorded) -> bool:
        return recorded.path.split("?")[0].endswith("/chat/completions") and bool(
            recorded.body.get("tools")
        )

    def request(self, recorded: Recorded) -> ChatRequest:
        return ChatRequest(recorded.path, recorded.body)

    def other(self, handler: Handler, recorded: Recorded) -> None:
        path = recorded.path.split("?")[0]
        if path.endswith("/chat/completions"):
            self.answer(handler, recorded, Text("side reply"))
        elif path.endswith("/models"):
            handler.send_json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            handler.send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def refuse(self, handler: Handler, limit: Limit) -> None:
        status, body, headers = limit_answer(limit, MODEL)
        handler.send_json(status, body, headers)

    def error(self, handler: Handler, step: ApiError) -> None:
        error = {"message": step.message, "type": step.kind, "param": None, "code": step.kind}
        handler.send_json(step.status, {"error": error})

    def answer(self, handler: Handler, recorded: Recorded, step: Text | ToolCall) -> None:
        number = self.next_id()
        body = recorded.body
        said = step.text if isinstance(step, Text) else step.pre_text
        calls: list[dict[str, Any]] = []
        if isinstance(step, ToolCall):
            function = {"name": step.name, "arguments": json.dumps(step.arguments)}
            calls.append({"id": f"call_{number:04d}", "type": "function", "function": function})
        finish = "tool_calls" if calls else "stop"
        usage = self._usage(self.request(recorded), said + "".join(json.dumps(c) for c in calls))
        base = {
            "id": f"chatcmpl-{number:04d}",
            "created": int(time.time()),
            "model": body.get("model", MODEL),
            "system_fingerprint": "fp_fake",
        }
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": said or None}
            if calls:
                message["tool_calls"] = calls
            choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
            reply = {
                **base,
                "object": "chat.completion",
                "choices": [choice],
                "usage": usage,
            }
            handler.send_json(200, reply)
            return

        def chunk(delta: Mapping[str, Any], reason: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": reason, "logprobs": None}
            return sse(None, {**base, "object": "chat.completion.chunk", "choices": [choice]})

        events = [chunk({"role": "assistant", "content": ""})]
        if said:
            half = len(said) // 2
            events += [chunk({"content": piece}) for piece in (said[:half], said[half:]) if piece]
        for index, call in enumerate(calls):
            # The name first, then the arguments in pieces, as the API streams them.
            opened = {**call, "function": {"name": call["function"]["name"], "arguments": ""}}
            events.append(chunk({"tool_calls": [{"index": index, **opened}]}))
            arguments = call["function"]["arguments"]
            half = len(arguments) // 2
            for piece in (arguments[:half], arguments[half:]):
                events.append(
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                )
        events.append(chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {
                **base,
                "object": "chat.completion.chunk",
                "choices": [],
                "usage": usage,
            }
            events.append(sse(None, usage))
        events.append(sse(None, "[DONE]"))
        handler.send_events(events)

    def _usage(self, request: ChatRequest, said: str) -> dict[str, Any]:
        prompt, completion = self.usage["prompt_tokens"], self.usage["completion_tokens"]
        cached = self.usage["cached_tokens"]
        if self.counting:
            counted = self._cache.usage(request.body, said)
            with self._lock:
                self.charged.append((request, counted))
            prompt, completion = counted["input_tokens"], counted["output_tokens"]
            cached = counted["cached_tokens"]
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
            "completion_tokens_details": {"reasoning_tokens": 0},
        }
