"""Every tool the server lists, with its description, input schema and annotations, in
the order it lists them, against a committed snapshot (tool_catalogue.json): moving a
tool between modules must change none of it. A deliberate change to a tool rewrites the
snapshot with ``RALPH_TEST_UPDATE_SNAPSHOT=1 pytest tests/integration/mcp/test_mcp_catalogue.py``
and the diff is reviewed like code."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.mcp import build_server
from ralph.project import Project, open_project

SNAPSHOT = Path(__file__).with_name("tool_catalogue.json")


def _catalogue(project: Project, *, read_only: bool) -> list[dict[str, Any]]:
    async def listed() -> list[dict[str, Any]]:
        async with Client(build_server(project, read_only=read_only)) as client:
            tools = (await client.list_tools()).tools
            return [tool.model_dump(mode="json", exclude_none=True) for tool in tools]

    return anyio.run(listed)


@pytest.mark.timeout(60)
def test_the_tool_catalogue_matches_its_snapshot(tmp_path: Path) -> None:
    # The demo project, opened as `ralph mcp` opens one: the catalogue is the same over
    # every tracker, and this way the test needs no tracker's constructor.
    repo, _ = create_demo_project(tmp_path / "demo")
    with open_project(load_config(repo)) as project:
        found = {
            "full": _catalogue(project, read_only=False),
            "read_only": _catalogue(project, read_only=True),
        }
    text = json.dumps(found, indent=1, sort_keys=True) + "\n"
    if os.environ.get("RALPH_TEST_UPDATE_SNAPSHOT") == "1":
        SNAPSHOT.write_text(text, encoding="utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert [t["name"] for t in found["full"]] == [t["name"] for t in expected["full"]]
    assert [t["name"] for t in found["read_only"]] == [t["name"] for t in expected["read_only"]]
    assert found == expected
