"""A local fake of the OpenAI Responses API, for driving the real Codex CLI offline.

Codex reaches it through a model provider of its config (``base_url`` = this fake's
``/v1``, ``wire_api = "responses"``, ``env_key`` naming the throwaway key). Requests to
``/responses`` are the agent's turns: each is answered by the next step of a script.
Every request is recorded.

Protocol: ``POST /v1/responses`` with ``stream: true`` answered as server-sent events
named by their ``type`` (``response.created``, ``response.in_progress``,
``response.output_item.added``, ``response.content_part.added``,
``response.output_text.delta``/``.done``, ``response.content_part.done``,
``response.function_call_arguments.delta``/``.done``,
``response.custom_tool_call_input.delta``/``.done``, ``response.output_item.done``,
``response.completed``), each with its ``sequence_number``; an error is an HTTP error
with ``{"error": {"message", "type", "code"}}``. A tool the request declares as
``custom`` (Codex's ``apply_patch``) is called with a ``custom_tool_call`` item whose
``input`` is the step's ``input`` argument; any other with a ``function_call`` item.
Each reply reports 100 input tokens (20 of them cached) and 20 output tokens; with
``counting`` on, what the request holds, prompt caching included, as the real API does
(``tests/fakes/_tokens.py``), and ``charged`` keeps each request's usage.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
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

__all__ = ["ApiError", "FakeResponsesAPI", "Hang", "ResponsesRequest", "Step", "Text", "ToolCall"]

MODEL = "gpt-5-codex"
USAGE = {"input_tokens": 100, "cached_tokens": 20, "output_tokens": 20}


@dataclass(frozen=True)
class ResponsesRequest:
    """One ``POST /responses`` as the script sees it."""

    path: str
    body: Mapping[str, Any]

    @property
    def instructions(self) -> str:
        return str(self.body.get("instructions") or "")

    @property
    def tools(self) -> list[Mapping[str, Any]]:
        return list(self.body.get("tools") or [])

    @property
    def tool_names(self) -> list[str]:
        return [str(t.get("name") or t.get("type")) for t in self.tools]

    def texts(self) -> list[str]:
        """Every text of the conversation so far: messages and tool outputs."""
        found: list[str] = []
        for item in self.body.get("input") or []:
            if item.get("type") == "message" or "role" in item:
                content = item.get("content")
                if isinstance(content, str):
                    found.append(content)
                else:
                    found.extend(str(part.get("text", "")) for part in content or [])
            elif item.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                if isinstance(output, str):
                    found.append(output)
                elif isinstance(output, list):
                    found.extend(str(part.get("text", "")) for part in output)
                elif isinstance(output, Mapping):
                    found.append(str(output.get("content", "")))
        return found

    @property
    def answered(self) -> int:
        """How many tool calls the conversation has had answered: where a stateless
        model is in its task."""
        return len(self.tool_outputs())

    def tool_outputs(self) -> list[str]:
        return [
            str(item.get("output"))
            for item in self.body.get("input") or []
            if item.get("type") in ("function_call_output", "custom_tool_call_output")
        ]


@dataclass
class FakeResponsesAPI(ScriptedServer):
    """``with FakeResponsesAPI([ToolCall(...), Text("done")]) as api: ... api.url``"""

    usage: Mapping[str, int] = field(default_factory=lambda: dict(USAGE))
    #: Count each request's tokens and prompt cache rather than report ``usage``.
    counting: bool = False
    #: With ``counting``: each answered request and the usage reported for it.
    charged: list[tuple[ResponsesRequest, Mapping[str, int]]] = field(default_factory=list)

    LIMITS = OPENAI_LIMITS
    KEY = "sk-fake-openai-key"

    def __post_init__(self) -> None:
        super().__post_init__()
        self._cache = OpenAICache()

    def __enter__(self) -> FakeResponsesAPI:
        super().__enter__()
        return self

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def is_turn(self, recorded: Recorded) -> bool:
        return recorded.method == "POST" and recorded.path.split("?")[0].endswith("/responses")

    def request(self, recorded: Recorded) -> ResponsesRequest:
        return ResponsesRequest(recorded.path, recorded.body)

    def other(self, handler: Handler, recorded: Recorded) -> None:
        if recorded.path.split("?")[0].endswith("/models"):
            handler.send_json(200, {"object": "list", "data": [], "models": []})
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
        request = self.request(recorded)
        items = list(_items(step, number, request))
        response = _response(number, recorded.body, "in_progress", [], None)
        usage = self._usage(request, "".join(streamed for _, streamed in items))
        if not recorded.body.get("stream"):
            done = [item for item, _ in items]
            handler.send_json(200, _response(number, recorded.body, "completed", done, usage))
            return
        handler.send_events(list(self._events(number, recorded.body, response, items, usage)))

    def _usage(self, request: ResponsesRequest, said: str) -> dict[str, Any]:
        counted: Mapping[str, int] = self.usage
        if self.counting:
            counted = self._cache.usage(request.body, said)
            with self._lock:
                self.charged.append((request, counted))
        tokens_in, tokens_out = counted["input_tokens"], counted["output_tokens"]
        return {
            "input_tokens": tokens_in,
            "input_tokens_details": {"cached_tokens": counted["cached_tokens"]},
            "output_tokens": tokens_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens_in + tokens_out,
        }

    def _events(
        self,
        number: int,
        body: Mapping[str, Any],
        response: Mapping[str, Any],
        items: list[tuple[dict[str, Any], str]],
        usage: Mapping[str, Any],
    ) -> Iterator[bytes]:
        sequence = iter(range(10_000))

        def event(kind: str, **data: Any) -> bytes:
            return sse(kind, {"type": kind, "sequence_number": next(sequence), **data})

        yield event("response.created", response=response)
        yield event("response.in_progress", response=response)
        for index, (item, streamed) in enumerate(items):
            yield event("response.output_item.added", output_index=index, item=_opened(item))
            ids = {"item_id": item["id"], "output_index": index}
            if item["type"] == "message":
                part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
                yield event("response.content_part.added", **ids, content_index=0, part=part)
                yield event(
                    "response.output_text.delta",
                    **ids,
                    content_index=0,
                    delta=streamed,
                    logprobs=[],
                )
                yield event(
                    "response.output_text.done", **ids, content_index=0, text=streamed, logprobs=[]
                )
                part = {**part, "text": streamed}
                yield event("response.content_part.done", **ids, content_index=0, part=part)
            elif item["type"] == "function_call":
                yield event("response.function_call_arguments.delta", **ids, delta=streamed)
                yield event("response.function_call_arguments.done", **ids, arguments=streamed)
            else:
                yield event("response.custom_tool_call_input.delta", **ids, delta=streamed)
                yield event("response.custom_tool_call_input.done", **ids, input=streamed)
            yield event("response.output_item.done", output_index=index, item=item)
        done = [item for item, _ in items]
        final = _response(number, body, "completed", done, usage)
        yield event("response.completed", response=final)


def _response(
    number: int,
    body: Mapping[str, Any],
    status: str,
    output: list[dict[str, Any]],
    usage: Mapping[str, Any] | None,
) -> dict[str, Any]:
    return {
        "id": f"resp_{number:04d}",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "model": body.get("model", MODEL),
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "usage": usage,
        "metadata": {},
    }


def _items(
    step: Text | ToolCall, number: int, request: ResponsesRequest
) -> Iterator[tuple[dict[str, Any], str]]:
    """The output items of one reply, each with the text its deltas stream."""
    said = step.text if isinstance(step, Text) else step.pre_text
    if said:
        text = {"type": "output_text", "text": said, "annotations": [], "logprobs": []}
        message = {
            "type": "message",
            "id": f"msg_{number:04d}",
            "status": "completed",
            "role": "assistant",
            "content": [text],
        }
        yield message, said
    if isinstance(step, Text):
        return
    custom = any(t.get("type") == "custom" and t.get("name") == step.name for t in request.tools)
    if custom:
        patch = str(step.arguments.get("input", ""))
        call: dict[str, Any] = {
            "type": "custom_tool_call",
            "id": f"ctc_{number:04d}",
            "status": "completed",
            "call_id": f"call_{number:04d}",
            "name": step.name,
            "input": patch,
        }
        yield call, patch
        return
    for index, one in enumerate((step, *step.also)):
        arguments = json.dumps(one.arguments)
        suffix = f"{number:04d}" + (f"_{index}" if index else "")
        call = {
            "type": "function_call",
            "id": f"fc_{suffix}",
            "status": "completed",
            "call_id": f"call_{suffix}",
            "name": one.name,
            "arguments": arguments,
        }
        yield call, arguments


def _opened(item: Mapping[str, Any]) -> dict[str, Any]:
    """The item as ``output_item.added`` shows it: in progress, nothing streamed yet."""
    opened = {**item, "status": "in_progress"}
    if item["type"] == "message":
        opened["content"] = []
    elif item["type"] == "function_call":
        opened["arguments"] = ""
    else:
        opened["input"] = ""
    return opened
