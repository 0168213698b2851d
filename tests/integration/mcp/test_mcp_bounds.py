"""The MCP server holds every call to bounds: text arguments of at most GitHub's body
length without control characters (a NUL in a readme or a worker's name is refused as
one line, nothing written), titles of at most 256 characters, and an answer within a
bound for every call, even one queued behind a call whose work takes longer."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.mcp import build_server
from ralph.project import Project, open_project

from ..snapshots import files, refs, tables

P = "ralph_hero__"


@pytest.fixture
def project(tmp_path: Any) -> Iterator[Project]:
    repo, _ = create_demo_project(tmp_path / "demo")
    with open_project(load_config(repo)) as opened:
        yield opened


def _calls(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str, float]]:
    """Each call in turn: (failed, text, seconds it took to answer)."""

    async def run() -> list[tuple[bool, str, float]]:
        answers = []
        async with Client(server) as client:
            for name, arguments in calls:
                started = time.monotonic()
                result = await client.call_tool(P + name, arguments)
                content = result.content[0]
                assert isinstance(content, TextContent)
                answers.append((bool(result.is_error), content.text, time.monotonic() - started))
        return answers

    return anyio.run(run)


def _error(text: str) -> str:
    error = json.loads(text)["error"]
    assert isinstance(error, str)
    assert "\n" not in error
    return error


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("update_project", {"shortDescription": "a\x00b"}, "shortDescription"),
        ("update_project", {"readme": "line\nbell\x07"}, "readme"),
        ("task_claim", {"worker": "w\x00", "runId": 1}, "worker"),
        ("create_comment", {"number": 1, "body": "esc \x1b[2J"}, "body"),
        ("create_issue", {"title": "t", "labels": ["a\x00"]}, "labels[0]"),
        ("create_issue", {"title": "t", "body": "x" * 65_537}, "body"),
    ],
)
def test_a_control_character_or_an_overlong_text_is_refused_naming_the_argument(
    project: Project, tool: str, arguments: dict[str, Any], named: str
) -> None:
    repo = project.config.root
    before = (tables(repo / ".ralph" / "ralph.db"), files(repo), refs(repo))
    ((failed, text, _),) = _calls(build_server(project), [(tool, arguments)])
    assert failed, text
    error = _error(text)
    assert error.startswith(f"Failed to call {P}{tool}: argument {named} "), error
    assert (tables(repo / ".ralph" / "ralph.db"), files(repo), refs(repo)) == before


def test_line_breaks_and_tabs_in_a_body_are_taken(project: Project) -> None:
    ((failed, text, _),) = _calls(
        build_server(project), [("create_comment", {"number": 1, "body": "a\n\tb\r\n"})]
    )
    assert not failed, text


def test_a_title_past_256_characters_is_refused_with_the_limit(project: Project) -> None:
    answers = _calls(
        build_server(project),
        [
            ("create_issue", {"title": "x" * 20_000}),
            ("update_issue", {"number": 1, "title": "y" * 257}),
        ],
    )
    for failed, text, _ in answers:
        assert failed, text
        assert "at most 256" in _error(text)


def test_a_call_whose_work_outlasts_the_bound_answers_an_error_and_so_does_one_behind_it(
    project: Project,
) -> None:
    release = threading.Event()
    slow = project.tracker.list_issues

    def stuck(*args: Any, **kwargs: Any) -> Any:
        release.wait(60)
        return slow(*args, **kwargs)

    project.tracker.list_issues = stuck  # type: ignore[method-assign]
    server = build_server(project, call_seconds=1)
    try:
        answers = _calls(server, [("list_issues", {}), ("get_issue", {"number": 1})])
    finally:
        release.set()
    (slow_failed, slow_text, slow_took), (queued_failed, queued_text, queued_took) = answers
    assert slow_failed
    assert "did not finish within 1 s" in _error(slow_text)
    assert queued_failed
    assert "still busy with an earlier call" in _error(queued_text)
    assert slow_took < 30
    assert queued_took < 30
    project.tracker.list_issues = slow  # type: ignore[method-assign]
    ((failed, text, _),) = _calls(server, [("get_issue", {"number": 1})])
    assert not failed, text


def test_the_hostile_calls_that_once_took_minutes_each_answer_within_seconds(
    project: Project,
) -> None:
    """Titles of 20,000 characters made the hygiene report's duplicate search take
    minutes, and every call queued behind it; now such a title is refused, the search
    compares at most GitHub's 256, and the rest answer at once."""
    for n in range(6):  # near-duplicates, each as long as GitHub allows
        project.tracker.create_issue("x" * 250 + str(n))
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_issue", {"title": "x" * 20_000}),
        ("project_hygiene", {"archiveDays": 1.5, "staleDays": 0.25, "orphanDays": 1e-9}),
        ("project_hygiene", {"similarityThreshold": 0.5}),
        ("task_list", {"runId": -1}),
        ("task_claim", {"worker": "\x00", "runId": 1}),
        ("task_claim", {"worker": "w", "taskId": -5}),
        ("update_project", {"readme": "\x00"}),
        ("list_issues", {"limit": 1}),
    ]
    answers = _calls(build_server(project), calls)
    for (name, arguments), (_, text, took) in zip(calls, answers, strict=True):
        assert took < 30, f"{name} {str(arguments)[:80]} took {took:.1f} s: {text[:200]}"
