"""A local fake of the Anthropic Messages API, for driving the real Claude Code CLI offline.

The CLI reaches it through ``ANTHROPIC_BASE_URL``. Requests that carry ``tools`` are
the agent's turns: each is answered by the next step of a script (a list, or a function
of the request for models that must read the prompt). Side requests without tools
(titles, summaries) get a short text. Every request is recorded.

Protocol: ``POST /v1/messages`` answered as server-sent events (``message_start``,
``content_block_start``/``delta``/``stop``, ``message_delta``, ``message_stop``);
``count_tokens`` answers a fixed count. Each reply reports 100 input and 20 output
tokens, so with ``claude-sonnet-4-5`` a turn costs $0.0006; with ``counting`` on, it
reports what the request holds, prompt caching included, as the real API does
(``tests/fakes/_tokens.py``), and ``charged`` keeps each request's usage.
"""

from __future__ import annotations

import datetime
import itertools
import json
import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any, ClassVar

from ralph._quiet_http import QuietHandler

from ._limits import Limit, LimitWindow
from ._tokens import AnthropicCache

__all__ = ["ApiError", "FakeAnthropicAPI", "Hang", "Request", "Step", "Text", "ToolUse"]

MODEL = "claude-sonnet-4-5"
USAGE = {
    "input_tokens": 100,
    "output_tokens": 20,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: Mapping[str, Any]
    #: Text the model says before the call (a content block of its own).
    pre_text: str = ""


@dataclass(frozen=True)
class ApiError:
    status: int = 400
    message: str = "fake error"
    kind: str = "invalid_request_error"


@dataclass(frozen=True)
class Hang:
    """Accept the request and never answer (until the server stops)."""


Step = Text | ToolUse | ApiError | Hang


@dataclass(frozen=True)
class Request:
    path: str
    body: Mapping[str, Any]

    @property
    def is_turn(self) -> bool:
        return bool(self.body.get("tools"))

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("name", "") for tool in self.body.get("tools", [])]

    @property
    def system(self) -> str:
        system = self.body.get("system", "")
        if isinstance(system, list):
            return "\n".join(block.get("text", "") for block in system)
        return str(system)

    def texts(self) -> list[str]:
        """Every text the conversation holds so far (user turns and tool results)."""
        found: list[str] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                found.append(content)
                continue
            for block in content or []:
                if block.get("type") == "text":
                    found.append(block.get("text", ""))
                elif block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, str):
                        found.append(inner)
                    else:
                        found.extend(b.get("text", "") for b in inner or [])
        return found

    @property
    def answered(self) -> int:
        """How many tool calls the conversation has had answered: where a stateless
        model is in its task."""
        return len(self.tool_results())

    def tool_results(self) -> list[Mapping[str, Any]]:
        return [
            block
            for message in self.body.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]


Script = Sequence[Step] | Callable[[Request, int], Step]


@dataclass
class FakeAnthropicAPI:
    """``with FakeAnthropicAPI([ToolUse(...), Text("done")]) as api: ... api.url``"""

    script: Script = ()
    requests: list[Request] = field(default_factory=list)
    #: The token counts each reply reports (cached input included).
    usage: Mapping[str, int] = field(default_factory=lambda: dict(USAGE))
    #: Count each request's tokens and prompt cache rather than report ``usage``.
    counting: bool = False
    #: With ``counting``: each answered request and the usage reported for it.
    charged: list[tuple[Request, Mapping[str, int]]] = field(default_factory=list)

    #: ``rate``: an API key's rate limit (429 ``rate_limit_error``, ``retry-after`` and
    #: the ``anthropic-ratelimit-*`` headers); ``usage``: a subscription's usage window
    #: spent (429 with the ``anthropic-ratelimit-unified-*`` headers, its reset in epoch
    #: seconds); ``overloaded``: 529 ``overloaded_error``, no wait said.
    LIMITS: ClassVar[tuple[str, ...]] = ("rate", "usage", "overloaded")

    def __post_init__(self) -> None:
        self.limits = LimitWindow(self.LIMITS)
        self._cache = AnthropicCache()
        self._lock = threading.Lock()
        self._turns = 0
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def turns(self) -> list[Request]:
        return [r for r in self.requests if r.is_turn]

    def __enter__(self) -> FakeAnthropicAPI:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def limit(
        self,
        kind: str,
        *,
        seconds: float = 30.0,
        first: int | None = None,
        start: int = 0,
        lifts: bool = False,
    ) -> float:
        """Answer turns with the API's ``kind`` of limit (``LimitWindow.limit``); returns
        when it lifts (epoch seconds)."""
        return self.limits.limit(kind, seconds=seconds, first=first, start=start, lifts=lifts)

    def rescript(self, script: Script) -> None:
        """Answer the next turns with ``script``, counting turns from 0 again."""
        with self._lock:
            self.script = script
            self._turns = 0

    def environment(self, home: str) -> dict[str, str]:
        """What the CLI needs to talk to this fake and keep its files under ``home``."""
        return {
            "ANTHROPIC_BASE_URL": self.url,
            "ANTHROPIC_API_KEY": "sk-ant-fake-key",
            "CLAUDE_CONFIG_DIR": f"{home}/.claude",
            "HOME": home,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "ENABLE_TOOL_SEARCH": "false",
        }

    # -- called by the handler --------------------------------------------------------

    def _record(self, request: Request) -> Step:
        with self._lock:
            self.requests.append(request)
            if not request.is_turn:
                return Text("side reply")
            turn = self._turns
            self._turns += 1
        if callable(self.script):
            return self.script(request, turn)
        return self.script[turn] if turn < len(self.script) else Text("DONE")

    def _next_id(self) -> int:
        return next(self._ids)

    def _usage(self, request: Request, step: Text | ToolUse) -> Mapping[str, int]:
        if not self.counting:
            return dict(self.usage)
        said = step.text if isinstance(step, Text) else step.pre_text + json.dumps(step.input)
        usage = self._cache.usage(request.body, said)
        with self._lock:
            self.charged.append((request, usage))
        return usage


def _sse(event: str, data: Mapping[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _events(
    step: Text | ToolUse, message: dict[str, Any], tool_id: str, output_tokens: int
) -> Iterator[bytes]:
    yield _sse("message_start", {"type": "message_start", "message": message})
    blocks: list[tuple[dict[str, Any], dict[str, Any]]] = []
    if isinstance(step, Text) or step.pre_text:
        text = step.text if isinstance(step, Text) else step.pre_text
        blocks.append(({"type": "text", "text": ""}, {"type": "text_delta", "text": text}))
    if isinstance(step, ToolUse):
        start = {"type": "tool_use", "id": tool_id, "name": step.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.input)}
        blocks.append((start, delta))
    stop = "end_turn" if isinstance(step, Text) else "tool_use"
    for index, (start, delta) in enumerate(blocks):
        yield _sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        yield _sse(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def limit_answer(limit: Limit) -> tuple[int, dict[str, Any], dict[str, str]]:
    """The Messages API's answer when it refuses for now: (status, body, headers)."""
    request_id = {"request-id": "req_fake_limited"}
    if limit.kind == "overloaded":
        error = {"type": "overloaded_error", "message": "Overloaded"}
        return (
            529,
            {"type": "error", "error": error, "request_id": "req_fake_limited"},
            {
                **request_id,
                "x-should-retry": "true",
            },
        )
    left = math.ceil(limit.seconds_left)
    reset = datetime.datetime.fromtimestamp(math.ceil(limit.resets_at), datetime.UTC)
    stamp = reset.strftime("%Y-%m-%dT%H:%M:%SZ")
    if limit.kind == "usage":
        headers = {
            **request_id,
            "anthropic-ratelimit-unified-status": "rejected",
            "anthropic-ratelimit-unified-reset": str(math.ceil(limit.resets_at)),
            "anthropic-ratelimit-unified-representative-claim": "five_hour",
            "anthropic-ratelimit-unified-5h-status": "rejected",
            "anthropic-ratelimit-unified-5h-reset": str(math.ceil(limit.resets_at)),
            "anthropic-ratelimit-unified-5h-utilization": "1.0",
            "anthropic-ratelimit-unified-overage-status": "rejected",
            "anthropic-ratelimit-unified-overage-disabled-reason": "org_level_disabled",
            "x-should-retry": "false",
        }
        error = {"type": "rate_limit_error", "message": "Error"}
        return 429, {"type": "error", "error": error, "request_id": "req_fake_limited"}, headers
    headers = {
        **request_id,
        "retry-after": str(left),
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": stamp,
        "anthropic-ratelimit-input-tokens-limit": "30000",
        "anthropic-ratelimit-input-tokens-remaining": "0",
        "anthropic-ratelimit-input-tokens-reset": stamp,
        "x-should-retry": "true",
    }
    message = (
        "This request would exceed the rate limit for your organization (fake-org) of 50 "
        "requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-"
        "limits. You can see the response headers for current usage. Please reduce the "
        "prompt length or the maximum tokens requested, or try again later. You may also "
        "contact sales at https://www.anthropic.com/contact-sales to discuss your options "
        "for a rate limit increase."
    )
    error = {"type": "rate_limit_error", "message": message}
    return 429, {"type": "error", "error": error, "request_id": "req_fake_limited"}, headers


def _handler(fake: FakeAnthropicAPI) -> type[QuietHandler]:
    class Handler(QuietHandler):
        protocol_version = "HTTP/1.1"

        def _json(
            self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] = {}
        ) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._json(200, {"data": [], "has_more": False})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            if "count_tokens" in self.path:
                self._json(200, {"input_tokens": 42})
                return
            if not self.path.startswith("/v1/messages"):
                self._json(200, {})
                return
            request = Request(self.path, body)
            if request.is_turn and (limit := fake.limits.check()) is not None:
                with fake._lock:
                    fake.requests.append(request)
                self._json(*limit_answer(limit))
                return
            step = fake._record(request)
            if isinstance(step, Hang):
                fake._stopping.wait()
                return
            if isinstance(step, ApiError):
                error = {"type": step.kind, "message": step.message}
                self._json(step.status, {"type": "error", "error": error})
                return
            number = fake._next_id()
            usage = fake._usage(request, step)
            message = {
                "id": f"msg_{number:04d}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", MODEL),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": dict(usage),
            }
            tool_id = f"toolu_{number:04d}"
            if not body.get("stream"):
                blocks: list[dict[str, Any]] = (
                    [{"type": "text", "text": step.text}]
                    if isinstance(step, Text)
                    else [
                        *([{"type": "text", "text": step.pre_text}] if step.pre_text else []),
                        {"type": "tool_use", "id": tool_id, "name": step.name, "input": step.input},
                    ]
                )
                stop = "end_turn" if isinstance(step, Text) else "tool_use"
                self._json(200, {**message, "content": blocks, "stop_reason": stop})
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            output = usage["output_tokens"]
            self.wfile.write(b"".join(_events(step, message, tool_id, output)))
            self.close_connection = True

    return Handler
