"""The real Claude Code CLI whose API answers every request with Anthropic's 429 (reset an
hour ahead), and ``fallback_agents = ["codex"]``: ``ralph run research`` finishes on the
real Codex CLI against its fake (at once when the reset is known, else when the limit
repeats), and says it continued there and why."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ...fakes.anthropic_api import MODEL as CLAUDE_MODEL
from ._clis import CLIS
from ._models import model

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        importlib.util.find_spec("ralph.runtimes._provider_limits") is None,
        reason="needs the rate-limit detection of the claude runtime (h/limits)",
    ),
]

HOUR = 3600


class _Limited(BaseHTTPRequestHandler):
    """Anthropic's answer to a request over the organisation's rate limit."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        reset = datetime.fromtimestamp(time.time() + HOUR, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        body = json.dumps(
            {
                "type": "error",
                "error": {
                    "type": "rate_limit_error",
                    "message": "This request would exceed the rate limit for your organization "
                    "of 50 requests per minute. Please try again later.",
                },
            }
        ).encode()
        self.send_response(429)
        self.send_header("content-type", "application/json")
        self.send_header("retry-after", str(HOUR))
        self.send_header("anthropic-ratelimit-requests-limit", "50")
        self.send_header("anthropic-ratelimit-requests-remaining", "0")
        self.send_header("anthropic-ratelimit-requests-reset", reset)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def limited_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Limited)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_research_limited_on_claude_code_finishes_on_codex(
    ralph, start_api, agent_env, agent_home, limited_api, monkeypatch
):
    codex = CLIS["codex"]
    codex_api = start_api(codex, model(codex))
    claude_env = {
        "ANTHROPIC_BASE_URL": limited_api,
        "ANTHROPIC_API_KEY": "sk-ant-fake-key",
        "CLAUDE_CONFIG_DIR": f"{agent_home}/.claude",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    for name, value in {**agent_env(codex, codex_api), **claude_env}.items():
        monkeypatch.setenv(name, value)
    text = ralph.config.read_text().replace(
        'runtime = "claude"\n', f'runtime = "claude"\nmodel = "{CLAUDE_MODEL}"\n'
    )
    text = text.replace('model = ""\n', "", 1)
    ralph.config.write_text(text.replace("fallback_agents = []", 'fallback_agents = ["codex"]'))
    ralph("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    started = time.monotonic()
    code, out, err = ralph("run", "research", "1")
    if "result: done" not in out:
        # A 429 whose reset Claude Code does not print is waited out the first time; the
        # same limit again within fallback_after_seconds falls back.
        assert "the provider of claude" in out + err
        code, out, err = ralph("run", "research", "1")
    assert code == 0, out + err
    assert "Continued on codex: claude rate limited " in out
    assert "result: done" in out
    assert len(codex_api.turns) == 2  # the document, then the result
    assert time.monotonic() - started < 120  # Claude Code's own retries were cut short
    shown = json.loads(ralph("issue", "show", "1", "--json")[1])
    assert shown["workflowState"] == "Ready for Plan"
