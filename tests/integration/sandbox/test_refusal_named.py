"""A person running an agent that needs a host its proxy does not allow reads, in the
run's own output and the escalation, which host it was and the line of ralph.toml that
allows it (the review: Codex's own provider refused at every request, with nothing
saying what would fix it)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from ralph.demo import create_sample_repository
from ralph.sandbox import probe

from ..conftest import GitProject

pytestmark = [
    pytest.mark.skipif(not probe().available, reason=probe().reason),
    pytest.mark.timeout(180),
]


def test_an_escalation_after_a_refusal_names_the_host_and_agent_hosts(
    ralph_cli, tmp_path: Path, monkeypatch
):
    with socket.create_server(("127.0.0.1", 0)) as server:  # a model server, say
        port = server.getsockname()[1]
        repo = GitProject(create_sample_repository(tmp_path / "sample"))
        monkeypatch.chdir(repo.path)
        monkeypatch.delenv("RALPH_AGENT")
        assert ralph_cli("init")[0] == 0
        request = f"import urllib.request as u; u.urlopen('http://127.0.0.1:{port}/v1', timeout=10)"
        agent = f'runtime = "command"\ncommand = """{sys.executable} -c "{request}" """\n'
        config = repo.path / "ralph.toml"
        config.write_text(config.read_text().replace('runtime = "claude"\n', agent, 1))
        ralph_cli("issue", "new", "Try", "-e", "XS", "--state", "Research Needed", "--body", "x")
        _, out, err = ralph_cli("run", "research", "1")
    escalated = [line for line in out.splitlines() if "Escalated #1 to Human Needed" in line]
    assert escalated, out + err
    assert f"its egress proxy refused 127.0.0.1:{port}" in escalated[0]
    assert f'agent_hosts = ["127.0.0.1:{port}"]' in escalated[0]
