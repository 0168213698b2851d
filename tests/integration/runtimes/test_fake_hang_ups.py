"""A client hanging up before the model API fakes have written their answer (an agent a
test killed) is normal: the fakes say nothing of it, where a server prints the
traceback into the test's output. The hang-up is a socket pair whose client end is
closed before the answer, served the way the fake's server serves every request."""

from __future__ import annotations

import json
import socket
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from ...fakes import anthropic_api, gemini_api, openai_chat, openai_responses
from ...fakes._scripted import Text

pytestmark = pytest.mark.timeout(30)


def hang_up_on(server: ThreadingHTTPServer | None, path: str, body: dict[str, Any]) -> None:
    """``POST path`` to ``server`` from a client gone before the answer is written."""
    assert server is not None
    client, served = socket.socketpair()
    data = json.dumps(body).encode()
    client.sendall(
        f"POST {path} HTTP/1.1\r\nhost: fake\r\ncontent-type: application/json\r\n"
        f"content-length: {len(data)}\r\n\r\n".encode()
        + data
    )
    client.close()
    server.process_request_thread(served, ("127.0.0.1", 0))


@pytest.mark.parametrize("stream", [True, False])
def test_the_anthropic_fake_says_nothing_when_a_client_hangs_up(
    stream: bool, capfd: pytest.CaptureFixture[str]
) -> None:
    with anthropic_api.FakeAnthropicAPI([anthropic_api.Text("hi")]) as api:
        turn = {"model": "m", "messages": [], "stream": stream}
        hang_up_on(api._server, "/v1/messages", turn)
        assert len(api.requests) == 1  # read and answered: the write met the hang-up
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(
    ("fake", "path", "turn"),
    [
        (openai_responses.FakeResponsesAPI, "/v1/responses", {"input": [], "stream": True}),
        (
            openai_chat.FakeChatAPI,
            "/v1/chat/completions",
            {"messages": [], "tools": [{"type": "function", "function": {"name": "t"}}]},
        ),
        (
            gemini_api.FakeGeminiAPI,
            "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
            {"contents": [], "tools": [{"functionDeclarations": [{"name": "t"}]}]},
        ),
    ],
)
def test_the_other_model_api_fakes_say_nothing_when_a_client_hangs_up(
    fake: Any, path: str, turn: dict[str, Any], capfd: pytest.CaptureFixture[str]
) -> None:
    with fake([Text("one")]) as api:
        hang_up_on(api._server, path, turn)
        assert len(api.requests) == 1
    assert capfd.readouterr().err == ""
