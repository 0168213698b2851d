"""What the fakes of model APIs share: a loopback HTTP server answering the agent's turns
from a script, recording every request.

A script is a list of steps or a function ``(request, turn) -> step``. Each API module
writes the steps in its own wire format (server-sent events for the streaming APIs).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any, ClassVar

from ralph._quiet_http import QuietHandler

from ._limits import Limit, LimitWindow

__all__ = [
    "ApiError",
    "Hang",
    "Limit",
    "Recorded",
    "ScriptedServer",
    "Step",
    "Text",
    "ToolCall",
    "sse",
]


@dataclass(frozen=True)
class Text:
    """The model's final answer of a turn."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """The model asks for one tool (the CLI runs it and asks again with its result)."""

    name: str
    arguments: Mapping[str, Any]
    #: Text the model says before the call (a separate output part).
    pre_text: str = ""
    #: Further calls in the same answer (parallel tool calls; the Responses API fake's).
    also: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ApiError:
    status: int = 400
    message: str = "fake error"
    #: The API's error type or code (``invalid_request_error``, ``INVALID_ARGUMENT``).
    kind: str = "invalid_request_error"


@dataclass(frozen=True)
class Hang:
    """Accept the request and never answer (until the server stops)."""


Step = Text | ToolCall | ApiError | Hang


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]


Script = Sequence[Step] | Callable[[Any, int], Step]


def sse(event: str | None, data: Mapping[str, Any] | str) -> bytes:
    """One server-sent event; ``event`` None for APIs that send data lines only."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


@dataclass
class ScriptedServer:
    """Base of the fakes. A subclass says which requests are the agent's turns
    (``is_turn``), how to wrap one (``request``) and how to answer (``answer``)."""

    script: Script = ()
    requests: list[Recorded] = field(default_factory=list)

    #: The limit answers the fake can give (``limit``): its provider's.
    LIMITS: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        self.limits = LimitWindow(self.LIMITS)
        self._lock = threading.Lock()
        self._turns = 0
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # -- for tests ------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def turns(self) -> list[Any]:
        return [self.request(r) for r in self.requests if self.is_turn(r)]

    def __enter__(self) -> ScriptedServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def rescript(self, script: Script) -> None:
        """Answer the next turns with ``script``, counting turns from 0 again."""
        with self._lock:
            self.script = script
            self._turns = 0

    def limit(
        self,
        kind: str,
        *,
        seconds: float = 30.0,
        first: int | None = None,
        start: int = 0,
        lifts: bool = False,
    ) -> float:
        """Answer turns with the provider's ``kind`` of limit (``LimitWindow.limit``);
        returns when it lifts (epoch seconds)."""
        return self.limits.limit(kind, seconds=seconds, first=first, start=start, lifts=lifts)

    # -- for subclasses -------------------------------------------------------------------

    def refuse(self, handler: Handler, limit: Limit) -> None:
        """Answer a turn with the provider's limit answer."""
        raise NotImplementedError

    def is_turn(self, recorded: Recorded) -> bool:
        raise NotImplementedError

    def request(self, recorded: Recorded) -> Any:
        """The recorded request as the script functions see it."""
        return recorded

    def answer(self, handler: Handler, recorded: Recorded, step: Text | ToolCall) -> None:
        raise NotImplementedError

    def error(self, handler: Handler, step: ApiError) -> None:
        raise NotImplementedError

    def other(self, handler: Handler, recorded: Recorded) -> None:
        """A request that is not a turn (model lists, titles, token counts)."""
        handler.send_json(200, {})

    def next_id(self) -> int:
        return next(self._ids)

    # -- called by the handler ------------------------------------------------------------

    def _step(self, recorded: Recorded) -> Step | None:
        with self._lock:
            self.requests.append(recorded)
            if not self.is_turn(recorded):
                return None
            turn = self._turns
            self._turns += 1
            script = self.script
        if callable(script):
            return script(self.request(recorded), turn)
        return script[turn] if turn < len(script) else Text("DONE")

    def _serve(self, handler: Handler, recorded: Recorded) -> None:
        if self.is_turn(recorded) and (limit := self.limits.check()) is not None:
            with self._lock:
                self.requests.append(recorded)
            self.refuse(handler, limit)
            return
        step = self._step(recorded)
        if step is None:
            self.other(handler, recorded)
        elif isinstance(step, Hang):
            self._stopping.wait()
        elif isinstance(step, ApiError):
            self.error(handler, step)
        else:
            self.answer(handler, recorded, step)


class Handler(QuietHandler):
    protocol_version = "HTTP/1.1"
    fake: ScriptedServer

    def send_json(
        self, status: int, payload: Any, headers: Mapping[str, str] | None = None
    ) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_events(self, events: Sequence[bytes]) -> None:
        """A complete event stream; the connection closes after it, as the APIs'
        streamed answers end."""
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(b"".join(events))
        self.wfile.flush()
        self.close_connection = True

    def _recorded(self, method: str) -> Recorded:
        length = int(self.headers.get("content-length", 0) or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"raw": raw.decode(errors="replace")}
        headers = {k.lower(): v for k, v in self.headers.items()}
        return Recorded(method, self.path, headers, body if isinstance(body, dict) else {})

    def do_GET(self) -> None:
        self.fake._serve(self, self._recorded("GET"))

    def do_POST(self) -> None:
        self.fake._serve(self, self._recorded("POST"))


def _handler(fake: ScriptedServer) -> type[Handler]:
    return type("BoundHandler", (Handler,), {"fake": fake})
