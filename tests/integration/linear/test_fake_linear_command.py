"""``python -m ralph.linear.fake`` (``make fake-linear``): a fake Linear a person can point
``ralph init --linear`` at without an account, which says how and stops on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import ralph_process

FAKE = (sys.executable, "-m", "ralph.linear.fake")


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[str], dict[str, str]]]:
    """The command on any free port, and the exports it printed."""
    fake = subprocess.Popen(
        [*FAKE, "--port", "0", "--team", "ops"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None
        lines = [fake.stdout.readline() for _ in range(5)]
        exports = dict(re.findall(r"export (\w+)=(\S+)", "".join(lines)))
        yield fake, exports
    finally:
        if fake.poll() is None:
            fake.kill()
        fake.communicate(timeout=30)


def test_it_prints_what_to_export_and_init_sets_up_the_team(served, tmp_path: Path):
    _, exports = served
    assert set(exports) == {"RALPH_LINEAR_API_URL", "RALPH_LINEAR_TOKEN"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    made = ralph_process("init", "--linear", "OPS", cwd=tmp_path, env=exports)
    assert made.returncode == 0, made.stderr
    assert "Linear team OPS" in made.stdout
    assert exports["RALPH_LINEAR_TOKEN"] not in (tmp_path / "ralph.toml").read_text()
    doctor = ralph_process("doctor", cwd=tmp_path, env=exports)
    assert "✓ team: OPS" in doctor.stdout


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_it_cleanly(served, stop):
    fake, _ = served
    fake.send_signal(stop)
    _, err = fake.communicate(timeout=30)
    assert fake.returncode == 0
    assert err == ""


def test_a_port_in_use_is_one_line_naming_the_fix():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [*FAKE, "--port", str(port)], capture_output=True, text=True, timeout=60
        )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"cannot serve on port {port}: Address already in use; pick another with --port"
    ]


def test_without_linear_s_schema_it_says_in_one_line_where_to_get_it(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.delenv("RALPH_LINEAR_SCHEMA")
    run = subprocess.run([*FAKE, "--port", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        "the fake Linear needs Linear's published GraphQL schema: set RALPH_LINEAR_SCHEMA to a "
        "copy of schema.graphql from github.com/linear/linear (packages/sdk/src/schema.graphql)"
    ]


def test_schema_names_the_copy_to_serve(monkeypatch: pytest.MonkeyPatch):
    schema = os.environ["RALPH_LINEAR_SCHEMA"]
    monkeypatch.delenv("RALPH_LINEAR_SCHEMA")
    fake = subprocess.Popen(
        [*FAKE, "--port", "0", "--schema", schema], stdout=subprocess.PIPE, text=True
    )
    try:
        assert fake.stdout is not None
        assert fake.stdout.readline().startswith("A fake Linear serves team ENG at http://")
    finally:
        fake.send_signal(signal.SIGTERM)
        fake.communicate(timeout=30)
    assert fake.returncode == 0
