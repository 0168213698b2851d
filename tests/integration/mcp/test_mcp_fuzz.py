"""Every MCP tool, found through the server's tool list (a new tool is covered without
a line here), called in-process on a real project (local tracker, SQLite) with
arguments that break its declared input schema: a wrong JSON type (``true`` for an
issue number, ``"1"`` for an integer, ``1.5``), a required argument left out, an
argument it does not take, an integer past 64 bits or outside its range. Each is a tool
error of one line, no traceback, and the store and the repository are as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.types import TextContent

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.mcp import build_server
from ralph.project import Project, open_project

from ..snapshots import files, refs, tables

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Any:
    repo, _ = create_demo_project(tmp_path_factory.mktemp("mcp-fuzz") / "demo")
    with open_project(load_config(repo)) as opened:
        yield opened


def _schemas(project: Project) -> dict[str, dict[str, Any]]:
    async def listed() -> dict[str, dict[str, Any]]:
        async with Client(build_server(project)) as client:
            return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    return anyio.run(listed)


def _kinds(schema: dict[str, Any]) -> set[str]:
    options = schema.get("anyOf", [schema])
    return {o["type"] for o in options if "type" in o}


#: A value of each JSON type, each a wrong one for a property that does not allow it.
SAMPLES: dict[str, st.SearchStrategy[Any]] = {
    "integer": st.sampled_from([1, 0, 7]),
    "number": st.sampled_from([1.5, -0.25]),
    "string": st.sampled_from(["1", "true", "", "x"]),
    "boolean": st.booleans(),
    "array": st.sampled_from([[], [1], ["1"]]),
    "object": st.sampled_from([{}, {"number": 1}]),
    "null": st.none(),
}


def _valid(schema: dict[str, Any]) -> Any:
    """A value of the property's own type: the arguments the bad one goes with."""
    kinds = _kinds(schema) - {"null"} or {"string"}
    kind = sorted(kinds)[0]
    return {"integer": 1, "number": 1.0, "string": "x", "boolean": True, "array": [], "object": {}}[
        kind
    ]


def _wrong_type(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    allowed = _kinds(schema)
    if not allowed:  # any JSON value (a task's result)
        return st.nothing()
    wrong = [kind for kind in SAMPLES if kind not in allowed]
    if "number" in allowed:  # an integer is a number too
        wrong = [kind for kind in wrong if kind != "integer"]
    options = [SAMPLES[kind] for kind in wrong]
    if "integer" in allowed:
        options.append(st.sampled_from([1.5, 2.0, True, False, "12"]))
    return st.one_of(options)


def _out_of_range(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    allowed = _kinds(schema)
    options: list[st.SearchStrategy[Any]] = []
    if "integer" in allowed:
        options += [st.integers(min_value=2**63), st.integers(max_value=-(2**63) - 1)]
    for option in schema.get("anyOf", [schema]):
        if "minimum" in option:
            options.append(st.integers(max_value=option["minimum"] - 1, min_value=-(2**40)))
        if "maximum" in option:
            options.append(st.integers(min_value=option["maximum"] + 1, max_value=2**40))
        if "exclusiveMinimum" in option:
            options.append(st.just(option["exclusiveMinimum"]))
    return st.one_of(options) if options else st.nothing()


@st.composite
def bad_arguments(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = schema.get("properties", {})
    required: list[str] = schema.get("required", [])
    arguments = {key: _valid(properties[key]) for key in required}
    ways = ["unknown argument"]
    ways += ["missing"] * bool(required)
    typed = [k for k, p in properties.items() if _kinds(p)]
    ways += ["wrong type"] * bool(typed)
    ranged = [k for k, p in properties.items() if not _out_of_range(p).is_empty]
    ways += ["out of range"] * bool(ranged)
    way = draw(st.sampled_from(ways))
    if way == "unknown argument":
        arguments[draw(st.sampled_from(["bogus", "numbr", "estimat", "number_"]))] = 1
    elif way == "missing":
        del arguments[draw(st.sampled_from(required))]
    elif way == "wrong type":
        key = draw(st.sampled_from(typed))
        arguments[key] = draw(_wrong_type(properties[key]))
    else:
        key = draw(st.sampled_from(ranged))
        arguments[key] = draw(_out_of_range(properties[key]))
    return arguments


def _call(server: Any, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    async def call() -> tuple[bool, str]:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
            content = result.content[0]
            assert isinstance(content, TextContent)
            return bool(result.is_error), content.text

    return anyio.run(call)


@pytest.fixture(scope="module")
def schemas(project: Project) -> dict[str, dict[str, Any]]:
    return _schemas(project)


@pytest.fixture(scope="module")
def server(project: Project) -> Any:
    return build_server(project)


def state(repo: Path) -> tuple[Any, ...]:
    """What a refused call may not change: the store's tables, the files, the refs."""
    return tables(repo / ".ralph" / "ralph.db"), files(repo), refs(repo)


@pytest.fixture(scope="module")
def as_it_was(project: Project) -> tuple[Any, ...]:
    """The project before any call. Every example asserts that its call left the project
    as it found it, so until one fails this is the state before each call too: taken
    once, not again for every example."""
    return state(project.config.root)


def _tool_names() -> list[str]:
    """Every tool the server lists, read from a throwaway project at collection."""
    from tempfile import TemporaryDirectory

    from ralph.config import Config
    from ralph.db import open_database
    from ralph.git import GitRepo
    from ralph.tasks import open_store
    from ralph.tracker import LocalCodeHost, LocalTracker

    with TemporaryDirectory() as folder:
        root = Path(folder)
        throwaway = Project(
            Config(root=root),
            tracker := LocalTracker(open_database("memory://"), repo="demo"),
            LocalCodeHost(tracker.db, repo=tracker.repo, tracker=tracker),
            open_store("memory://"),
            GitRepo(root),
        )
        return sorted(_schemas(throwaway))


@pytest.mark.parametrize("tool", _tool_names())
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_arguments_that_break_the_schema_are_a_one_line_tool_error_and_nothing_written(
    project: Project,
    server: Any,
    schemas: dict[str, dict[str, Any]],
    as_it_was: tuple[Any, ...],
    tool: str,
    data: st.DataObject,
) -> None:
    arguments = data.draw(bad_arguments(schemas[tool]), label="arguments")
    failed, text = _call(server, tool, arguments)
    shown = f"{tool} {arguments!r}\n{text}"
    assert failed, shown
    error = json.loads(text)["error"]
    assert "\n" not in error, shown
    assert "Traceback" not in error, shown
    assert error.startswith(f"Failed to call {tool}: "), shown
    assert state(project.config.root) == as_it_was, shown
