"""``ralph mcp`` answers every line a client sends: one it cannot read as a JSON-RPC
message (nested deeper than the parser goes, not JSON, not a request) gets a JSON-RPC
error, with the request's id where the line's top level names one, and the requests
after it are answered as usual. Before, a request nested ~200 levels deep got no answer
at all and its client waited for ever."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ralph.mcp._unreadable import top_level_id

from ..conftest import GitProject, ralph_environment


@pytest.fixture
def repo(tmp_path, monkeypatch, ralph_cli) -> GitProject:
    repo = GitProject(tmp_path / "project")
    monkeypatch.chdir(repo.path)
    assert ralph_cli("init")[0] == 0
    return repo


def request(number: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params})


def nested(number: int, depth: int) -> str:
    arguments = '{"number": ' + "[" * depth + "]" * depth + "}"
    return (
        f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", "params": '
        f'{{"name": "ralph_hero__get_issue", "arguments": {arguments}}}}}'
    )


def test_every_line_is_answered_even_one_nested_too_deeply_to_read(repo):
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
    lines = [
        request(1, "initialize", {**hello, "clientInfo": {"name": "test", "version": "1"}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        nested(10, 5),
        nested(11, 199),
        nested(12, 3000),
        "not json",
        request(13, "tools/list", {}),
    ]
    served = subprocess.run(
        [sys.executable, "-m", "ralph", "mcp"],
        input="\n".join(lines) + "\n",
        cwd=repo.path,
        env=ralph_environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    answers = [json.loads(line) for line in served.stdout.splitlines()]
    by_id = {a["id"]: a for a in answers}
    assert by_id[10]["result"]["isError"]  # a shallow one reaches the tool, which refuses
    too_deep = {
        "code": -32600,
        "message": "Invalid Request: nested too deeply to read; send arguments a few levels deep",
    }
    assert by_id[11]["error"] == too_deep
    assert by_id[12]["error"] == too_deep
    assert by_id[None]["error"]["code"] == -32700  # not JSON: a parse error, no id to name
    assert "ralph_hero__get_issue" in [t["name"] for t in by_id[13]["result"]["tools"]]
    assert sorted(by_id, key=str) == sorted([1, 10, 11, 12, None, 13], key=str)  # each once
    assert len(answers) == 6
    assert "Traceback" not in served.stderr


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ('{"jsonrpc": "2.0", "id": 7, "params": [[[' + "[" * 500, 7),
        ('{"params": {"id": 3}, "id": "abc"}', "abc"),
        ('{"method": "id", "params": [' + "[" * 900 + "]" * 900 + "]}", None),
        ('{"x": "\\"id\\": 4", "id": 5}', 5),
        ('{"id": true}', None),
        ("[1, 2]", None),
        ('{"jsonrpc": "2.0", "id": ' + "[" * 3000 + "]" * 3000 + "}", None),
    ],
)
def test_the_id_is_read_from_the_top_level_only(line, found):
    assert top_level_id(line) == found
