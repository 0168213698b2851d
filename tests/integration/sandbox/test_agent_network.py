"""A confined agent has a network of its own: nothing on the host's loopback answers it
(a test's service listening there stays untouched, directly or through the proxy), and
its one way out is the egress proxy, which reaches its model's API (here a fake on the
host's loopback that its ``*_BASE_URL`` names) and refuses any other host in one log
line naming it."""

from __future__ import annotations

import http.server
import logging
import os
import shlex
import socket
import sys
import threading
from collections.abc import Iterator

import pytest

from ralph.runtimes import AgentStatus
from ralph.runtimes.command import CommandRuntime
from ralph.sandbox import probe

from .conftest import implement_brief

pytestmark = pytest.mark.skipif(not probe().available, reason=probe().reason)

_PROBE = """
import json, os, socket, sys, urllib.request
service, model = int(sys.argv[2]), os.environ["ANTHROPIC_BASE_URL"]
seen = {"proxy": os.environ.get("HTTPS_PROXY"), "no_proxy": os.environ.get("NO_PROXY")}
try:
    socket.create_connection(("127.0.0.1", service), 5).close()
    seen["direct"] = "connected"
except OSError as exc:
    seen["direct"] = exc.strerror
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError as exc:
        return str(exc)
seen["service"] = get(f"http://127.0.0.1:{service}/")
seen["model"] = get(model + "/v1/models")
json.dump(seen, open(sys.argv[1], "w"))
"""


class _Model(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"the model answers"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def service() -> Iterator[socket.socket]:
    """A service on the host's loopback (a database, say), listening."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


@pytest.fixture
def model() -> Iterator[str]:
    """A fake model API on the host's loopback."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_agent_reaches_its_model_and_nothing_on_the_hosts_loopback(
    machine, service, model, caplog
):
    port = service.getsockname()[1]
    script = machine.tmp / "probe.py"
    script.write_text(_PROBE)
    runtime = CommandRuntime(
        shlex.join([sys.executable, str(script)]) + f" {{result_file}} {port}",
        environ={**os.environ, "HOME": str(machine.home), "ANTHROPIC_BASE_URL": model},
        sandbox=True,
    )
    brief = implement_brief(machine.worktree)
    with caplog.at_level(logging.WARNING, logger="ralph.sandbox._proxy"):
        result = runtime.run(brief)
    assert result.status is AgentStatus.OK, result.error
    seen = result.result
    assert seen is not None
    assert seen["direct"] == "Connection refused"  # the namespace's own loopback
    assert seen["service"] == 403  # the proxy refuses it
    assert seen["model"] == "the model answers"
    assert seen["proxy"] == "http://127.0.0.1:3128"
    assert seen["no_proxy"] == ""
    with pytest.raises(BlockingIOError):
        service.accept()  # nobody ever connected
    refused = [r for r in caplog.records if r.getMessage() == "agent connection refused"]
    assert [r.host for r in refused] == [f"127.0.0.1:{port}"]


_REFUSED = """
import os, sys, urllib.request
try:
    urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/responses", timeout=10)
except urllib.error.HTTPError as exc:
    print(f"model request failed: {exc.code}", file=sys.stderr)
sys.exit(1)
"""


def test_a_run_failing_after_a_refusal_names_the_host_and_the_setting_that_allows_it(
    machine, service
):
    # An endpoint Ralph could not know of (a model server the agent's own settings name
    # somewhere Ralph does not read): the run's error says where and what to change.
    port = service.getsockname()[1]
    script = machine.tmp / "refused.py"
    script.write_text(_REFUSED)
    runtime = CommandRuntime(
        shlex.join([sys.executable, str(script)]) + f" {port}",
        environ={**os.environ, "HOME": str(machine.home)},
        sandbox=True,
    )
    result = runtime.run(implement_brief(machine.worktree))
    assert result.status is AgentStatus.FAILED
    assert result.error is not None
    assert "model request failed: 403" in result.error
    assert f"its egress proxy refused 127.0.0.1:{port}" in result.error
    assert f'add it to agent_hosts in ralph.toml: agent_hosts = ["127.0.0.1:{port}"]' in (
        result.error
    )
