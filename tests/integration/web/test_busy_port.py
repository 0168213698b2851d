"""``ralph web`` on a port another program holds: one line with the way out, exit 2,
never the server's own log and exit status."""

from __future__ import annotations

import socket

import pytest

from ..conftest import RalphCli
from .conftest import WebProject


@pytest.fixture
def in_project(waiting: WebProject, monkeypatch: pytest.MonkeyPatch) -> WebProject:
    monkeypatch.chdir(waiting.repo)
    return waiting


def test_web_on_a_busy_port_says_so_in_one_line_and_suggests_any_free_one(
    ralph_cli: RalphCli, in_project: WebProject
) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        code, out, err = ralph_cli("web", "--port", str(port))
    assert (code, out) == (2, "")
    assert err == (
        f"ralph: error: port {port} on 127.0.0.1 is in use (another ralph web?); choose "
        "another with --port N, or --port 0 for any free one\n"
    )
