"""A local fake of the Gemini API (generativelanguage ``v1beta``), for driving the real
Gemini CLI offline.

The CLI reaches it through ``GOOGLE_GEMINI_BASE_URL`` (its "gateway" authentication)
with a throwaway ``GEMINI_API_KEY``. ``streamGenerateContent`` requests that declare
tools are the agent's turns: each is answered by the next step of a script. The CLI's
side requests (a routing classifier, a next-speaker check: ``generateContent`` asking
for JSON against a schema) get an object of that schema, preferring the answer that
ends the turn ("user" where the schema offers it). Every request is recorded.

Protocol: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse`` answered as
server-sent events of bare ``data:`` lines, each a ``GenerateContentResponse``
(``candidates[0].content.parts``: ``{"text"}`` or ``{"functionCall": {"name", "args"}}``;
the last carries ``finishReason: "STOP"`` and ``usageMetadata``); ``:generateContent``
answers one such object; ``:countTokens`` a fixed count; an error is
``{"error": {"code", "message", "status"}}``. Each reply reports 100 prompt tokens (20 of
them cached) and 20 candidate tokens.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ._limits import Limit
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

__all__ = ["ApiError", "FakeGeminiAPI", "GeminiRequest", "Hang", "Step", "Text", "ToolCall"]

MODEL = "gemini-2.5-pro"
USAGE = {"prompt": 100, "cached": 20, "candidates": 20}


@dataclass(frozen=True)
class GeminiRequest:
    """One ``generateContent`` request as the script sees it."""

    path: str
    body: Mapping[str, Any]

    @property
    def model(self) -> str:
        return self.path.split("/models/")[-1].split(":")[0]

    @property
    def system(self) -> str:
        parts = (self.body.get("systemInstruction") or {}).get("parts") or []
        return "\n".join(str(p.get("text", "")) for p in parts)

    @property
    def tool_names(self) -> list[str]:
        return [
            str(d.get("name"))
            for tool in self.body.get("tools") or []
            for d in tool.get("functionDeclarations") or []
        ]

    def texts(self) -> list[str]:
        """Every text of the conversation so far: messages and tool responses."""
        found: list[str] = []
        for content in self.body.get("contents") or []:
            for part in content.get("parts") or []:
                if "text" in part:
                    found.append(str(part["text"]))
                elif "functionResponse" in part:
                    found.append(str((part["functionResponse"] or {}).get("response", "")))
        return found

    @property
    def answered(self) -> int:
        """How many tool calls the conversation has had answered: where a stateless
        model is in its task."""
        return len(self.tool_responses())

    def tool_responses(self) -> list[Mapping[str, Any]]:
        return [
            part["functionResponse"]
            for content in self.body.get("contents") or []
            for part in content.get("parts") or []
            if "functionResponse" in part
        ]


@dataclass
class FakeGeminiAPI(ScriptedServer):
    """``with FakeGeminiAPI([ToolCall(...), Text("done")]) as api: ... api.url``"""

    usage: Mapping[str, int] = field(default_factory=lambda: dict(USAGE))
    #: Count each turn's tokens and (implicit) prompt cache rather than report ``usage``.
    counting: bool = False
    #: With ``counting``: each answered request (turns and side requests) and its usage.
    charged: list[tuple[GeminiRequest, Mapping[str, int]]] = field(default_factory=list)

    #: ``rate``: a per-minute quota, with the wait (``RetryInfo.retryDelay`` and "Please
    #: retry in"); ``daily``: the day's quota spent, no wait said; ``overloaded``: 503.
    LIMITS = ("rate", "daily", "overloaded")
    KEY = "fake-gemini-key"

    def __post_init__(self) -> None:
        super().__post_init__()
        self._cache = OpenAICache()

    def __enter__(self) -> FakeGeminiAPI:
        super().__enter__()
        return self

    def is_turn(self, recorded: Recorded) -> bool:
        return ":streamGenerateContent" in recorded.path and bool(recorded.body.get("tools"))

    def request(self, recorded: Recorded) -> GeminiRequest:
        return GeminiRequest(recorded.path, recorded.body)

    def other(self, handler: Handler, recorded: Recorded) -> None:
        path = recorded.path
        if ":countTokens" in path:
            handler.send_json(200, {"totalTokens": 42})
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            config = recorded.body.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            text = _json_text(schema) if schema else "side reply"
            usage = self._usage(recorded, text)  # the CLI's side requests cost tokens too
            reply = self._reply([{"text": text}], self.request(recorded).model, usage)
            if ":streamGenerateContent" in path:
                handler.send_events([sse(None, reply)])
            else:
                handler.send_json(200, reply)
        elif path.split("?")[0].endswith("/models"):
            handler.send_json(200, {"models": []})
        else:
            handler.send_json(404, _error(404, "not found", "NOT_FOUND"))

    def refuse(self, handler: Handler, limit: Limit) -> None:
        status, body = limit_answer(limit, MODEL)
        handler.send_json(status, body)

    def error(self, handler: Handler, step: ApiError) -> None:
        handler.send_json(step.status, _error(step.status, step.message, step.kind))

    def answer(self, handler: Handler, recorded: Recorded, step: Text | ToolCall) -> None:
        model = self.request(recorded).model
        said = step.text if isinstance(step, Text) else step.pre_text
        chunks: list[list[dict[str, Any]]] = []
        if said:
            # Text streams in pieces, as the API sends it.
            half = len(said) // 2
            chunks += [[{"text": piece}] for piece in (said[:half], said[half:]) if piece]
        if isinstance(step, ToolCall):
            chunks.append([{"functionCall": {"name": step.name, "args": dict(step.arguments)}}])
        usage = self._usage(recorded, said + "".join(json.dumps(c) for c in chunks))
        if not recorded.body or ":streamGenerateContent" not in recorded.path:
            handler.send_json(200, self._reply([p for c in chunks for p in c], model, usage))
            return
        events = [sse(None, self._chunk(parts, model)) for parts in chunks[:-1]]
        events.append(sse(None, self._reply(chunks[-1], model, usage)))
        handler.send_events(events)

    def _chunk(self, parts: list[dict[str, Any]], model: str) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
            "modelVersion": model,
            "responseId": f"fake-{self.next_id():04d}",
        }

    def _usage(self, recorded: Recorded, said: str) -> Mapping[str, int]:
        """The turn's usage: ``usage``, or with ``counting`` its tokens as counted."""
        if not self.counting:
            return self.usage
        counted = self._cache.usage(recorded.body, said)
        with self._lock:
            self.charged.append((self.request(recorded), counted))
        return {
            "prompt": counted["input_tokens"],
            "cached": counted["cached_tokens"],
            "candidates": counted["output_tokens"],
        }

    def _reply(
        self, parts: list[dict[str, Any]], model: str, usage: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """The last chunk: it carries the finish reason and the usage."""
        reply = self._chunk(parts, model)
        reply["candidates"][0]["finishReason"] = "STOP"
        usage = self.usage if usage is None else usage
        prompt, cached = usage["prompt"], usage["cached"]
        candidates = usage["candidates"]
        reply["usageMetadata"] = {
            "promptTokenCount": prompt,
            "cachedContentTokenCount": cached,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
        }
        return reply


def limit_answer(limit: Limit, model: str) -> tuple[int, dict[str, Any]]:
    """The Gemini API's answer when it refuses for now (status, body), as it sends it."""
    if limit.kind == "overloaded":
        message = "The model is overloaded. Please try again later."
        return 503, _error(503, message, "UNAVAILABLE")
    daily = limit.kind == "daily"
    metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    quota = (
        "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
        if daily
        else ("GenerateRequestsPerMinutePerProjectPerModel-FreeTier")
    )
    wait = limit.seconds_left
    message = (
        "You exceeded your current quota, please check your plan and billing details. For "
        "more information on this error, head to: https://ai.google.dev/gemini-api/docs/"
        "rate-limits. To monitor your current usage, head to: https://ai.dev/usage?tab=rate-"
        f"limit. \n* Quota exceeded for metric: {metric}, limit: {250 if daily else 5}, "
        f"model: {model}"
    )
    details: list[dict[str, Any]] = [
        {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {
                    "quotaMetric": metric,
                    "quotaId": quota,
                    "quotaDimensions": {"location": "global", "model": model},
                    "quotaValue": "250" if daily else "5",
                }
            ],
        },
        {
            "@type": "type.googleapis.com/google.rpc.Help",
            "links": [
                {
                    "description": "Learn more about Gemini API quotas",
                    "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                }
            ],
        },
    ]
    if not daily:
        message += f"\nPlease retry in {wait:.6g}s."
        details.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{int(wait)}s"}
        )
    body = _error(429, message, "RESOURCE_EXHAUSTED")
    body["error"]["details"] = details
    return 429, body


def _error(code: int, message: str, status: str) -> dict[str, Any]:
    status = status if status.isupper() else "INVALID_ARGUMENT"
    return {"error": {"code": code, "message": message, "status": status}}


def _json_text(schema: Mapping[str, Any]) -> str:

    return json.dumps(_example(schema))


def _example(schema: Mapping[str, Any]) -> Any:
    """A value of ``schema``; where it offers "user" (the next speaker), that."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        options = list(schema["enum"])
        return "user" if "user" in options else options[0]
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: _example(sub) for name, sub in properties.items()}
    if kind == "array":
        return [_example(schema.get("items") or {"type": "string"})]
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "fake"
