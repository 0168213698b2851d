"""The fakes of the model APIs answer a test's limit as their providers do (status,
headers, body), for the first N turn requests or from the K-th on, and a refused request
does not use up the script; what the answers say, Ralph reads back as the reset."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from ralph.runtimes._provider_limits import from_body, from_headers

from ...fakes import anthropic_api, gemini_api, openai_chat, openai_responses
from ...fakes._scripted import Text

pytestmark = pytest.mark.timeout(30)


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), {}
    except urllib.error.HTTPError as error:
        return (
            error.code,
            {k.lower(): v for k, v in error.headers.items()},
            json.loads(error.read()),
        )


TOOLS = [{"name": "t", "description": "d", "input_schema": {"type": "object"}}]


def test_anthropic_fake_answers_a_rate_limit_an_overload_and_a_spent_subscription():
    with anthropic_api.FakeAnthropicAPI([anthropic_api.Text("hi")]) as api:
        url = f"{api.url}/v1/messages"
        turn = {"model": "m", "messages": [], "tools": TOOLS}
        resets_at = api.limit("rate", seconds=40)
        status, headers, body = post(url, turn)
        assert (status, body["error"]["type"]) == (429, "rate_limit_error")
        assert from_headers(headers, time.time()) == pytest.approx(resets_at, abs=1.0)
        resets_at = api.limit("usage", seconds=40)
        status, headers, body = post(url, turn)
        assert headers["anthropic-ratelimit-unified-status"] == "rejected"
        assert from_headers(headers, time.time()) == pytest.approx(resets_at, abs=1.0)
        api.limit("overloaded")
        status, headers, body = post(url, turn)
        assert (status, body["error"]["type"]) == (529, "overloaded_error")
        assert api.limits.refused == 3
        api.limits.lift()
        assert post(url, {**turn, "stream": False})[0] == 200


@pytest.mark.parametrize(
    ("fake", "path", "turn"),
    [
        (openai_responses.FakeResponsesAPI, "/v1/responses", {"input": [], "stream": False}),
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
def test_the_first_n_or_from_the_kth_turn_on_are_refused_and_the_script_waits(fake, path, turn):
    with fake([Text("one"), Text("two")]) as api:
        resets_at = api.limit("rate", seconds=75, first=1)
        status, _, body = post(api.url + path, turn)
        assert status == 429
        found = from_body(body, time.time())
        assert found is not None
        assert found.resets_at == pytest.approx(resets_at, abs=1.0)
        assert post(api.url + path, turn)[0] == 200  # the script's first answer
        api.limit("rate", seconds=5, start=1)
        assert post(api.url + path, turn)[0] == 200  # its second
        assert post(api.url + path, turn)[0] == 429
        api.limits.lift()
        assert post(api.url + path, turn)[0] == 200
        assert api.limits.refused == 2


def test_codex_usage_limit_answer_carries_its_reset():
    with openai_responses.FakeResponsesAPI() as api:
        resets_at = api.limit("usage", seconds=600)
        status, headers, body = post(f"{api.url}/v1/responses", {"input": []})
        assert (status, body["error"]["type"]) == (429, "usage_limit_reached")
        assert body["error"]["resets_at"] == int(resets_at)
        assert int(headers["x-codex-primary-reset-at"]) == int(resets_at)
