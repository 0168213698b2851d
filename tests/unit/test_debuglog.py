"""The debug log writer: nothing at all while off; on, one JSON line per event, secrets
removed by name and by value, and whole lines from many processes at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ralph import _debuglog, _secrets
from ralph._debuglog import (
    REDACTED,
    debug_enabled,
    disable_debug_log,
    enable_debug_log,
    record_event,
)

TOKEN = "ghp_PLANTEDtoken0000000000000000000000"
API_KEY = "sk-ant-PLANTEDkey-000000000000"
STORE_PASSWORD = "PLANTED-store-pw"


@pytest.fixture
def logs(tmp_path: Path):
    folder = tmp_path / ".ralph" / "logs"
    enable_debug_log(folder)
    yield folder
    disable_debug_log()


def events(folder: Path) -> list[dict[str, object]]:
    lines = [
        line for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines()
    ]
    return [json.loads(line) for line in lines]


def test_off_nothing_is_created_and_nothing_is_built(tmp_path, monkeypatch):
    disable_debug_log()
    monkeypatch.setattr(_debuglog, "_clean", lambda *a: pytest.fail("cleaned while off"))
    assert not debug_enabled()
    record_event("tool", tool="get_issue", params={"number": 1})
    assert not (tmp_path / ".ralph").exists()


def test_on_an_event_is_one_line_with_time_category_and_process(logs):
    record_event("tool", tool="get_issue", params={"number": 4}, ok=True, durationMs=3)
    [path] = logs.glob("debug-*.jsonl")
    [event] = events(logs)
    assert path.name == f"debug-{event['ts'][:10]}.jsonl"  # type: ignore[index]
    assert event["cat"] == "tool"
    assert event["params"] == {"number": 4}
    assert str(event["ts"]).endswith("Z")
    assert str(event["session"]).startswith(f"{os.getpid()}-")


def test_planted_secrets_never_reach_the_file(logs, monkeypatch):
    monkeypatch.setenv("RALPH_GH_TOKEN", TOKEN)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setattr(_secrets, "_default", None)  # read the environment again
    _secrets.register_url(f"postgresql://ralph:{STORE_PASSWORD}@db/ralph")
    record_event(
        "graphql",
        operation="CreateIssue",
        variables={"body": f"printed {TOKEN} and {API_KEY}", "nested": [{"x": STORE_PASSWORD}]},
        token="anything at all",
        apiKey="whatever",
        error=f"postgresql://ralph:{STORE_PASSWORD}@db/ralph refused",
    )
    text = "".join(path.read_text() for path in logs.glob("*.jsonl"))
    for secret in (TOKEN, API_KEY, STORE_PASSWORD, "anything at all", "whatever"):
        assert secret not in text
    [event] = events(logs)
    assert event["token"] == REDACTED
    assert event["apiKey"] == REDACTED
    assert "printed ***" in str(event["variables"])


def test_a_long_text_is_cut(logs):
    record_event("tool", tool="create_comment", params={"body": "x" * 10_000})
    [event] = events(logs)
    body = event["params"]["body"]  # type: ignore[index]
    assert len(body) < 2100
    assert body.endswith("(10000 characters)")


def test_an_unwritable_folder_drops_events_without_raising(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    enable_debug_log(blocker / "logs")
    try:
        record_event("tool", tool="x")
        record_event("tool", tool="y")
    finally:
        disable_debug_log()


#: One process appending events, as a worker, the MCP server or a hook does.
WRITER = """
import sys
from pathlib import Path
from ralph._debuglog import enable_debug_log, record_event
enable_debug_log(Path(sys.argv[1]))
for n in range(int(sys.argv[3])):
    record_event("tool", tool="w" + sys.argv[2], n=n, params={"pad": "p" * (n % 50) * 40})
"""


def test_processes_appending_at_once_leave_whole_lines(tmp_path):
    folder = tmp_path / "logs"
    workers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(folder), str(w), "300"])
        for w in range(4)
    ]
    for worker in workers:
        assert worker.wait(timeout=60) == 0
    found = events(folder)  # every line parses
    assert len(found) == 1200
    for w in range(4):
        numbers = sorted(int(str(e["n"])) for e in found if e["tool"] == f"w{w}")
        assert numbers == list(range(300))
    assert len({e["session"] for e in found}) == 4
