"""What ``ralph status``, ``ralph report`` and ``ralph hygiene`` tell a person on a real
project: an escalated issue is a warning with its reason and keeps the project off
ON_TRACK, titles show whole through a pipe (cut on a terminal: test_narrow_terminal),
and Markdown reports are rendered on a terminal but stay Markdown when piped or asked
for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.demo import create_demo_project

from ..conftest import ralph_process

REASON = "the spec contradicts itself"
#: A title a Markdown renderer could take for a link.
LINKED = "Fix [the docs](javascript:alert(1)) for calc"


@pytest.fixture(scope="module")
def escalated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project with #2 escalated by the scripted analyst, as a real triage does,
    and #3 waiting in Backlog under a long title that looks like a Markdown link."""
    repo, _ = create_demo_project(tmp_path_factory.mktemp("health") / "demo")
    made = ralph_process(
        "issue", "new", "Unclear ask", "--body", f"Triage: escalate {REASON}", cwd=repo
    )
    assert made.returncode == 0, made.stderr
    ran = ralph_process("run", "triage", "2", cwd=repo)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    made = ralph_process("issue", "new", LINKED + " and more words" * 8, cwd=repo)
    assert made.returncode == 0, made.stderr
    return repo


def test_status_warns_of_each_escalated_issue_with_its_reason(escalated: Path) -> None:
    done = ralph_process("status", "--json", cwd=escalated)
    assert done.returncode == 0, done.stderr
    health = json.loads(done.stdout)["health"]
    assert health["ok"] is False
    waiting = [w for w in health["warnings"] if w["type"] == "needs_a_person"]
    assert waiting == [
        {
            "type": "needs_a_person",
            "severity": "warning",
            "message": f"#2 needs a person: the agent says: {REASON}",
            "issues": [2],
        }
    ]
    text = ralph_process("status", cwd=escalated).stdout
    assert "Health: needs attention" in text
    assert f"[warning] #2 needs a person: the agent says: {REASON}" in text
    markdown = ralph_process("status", "--format", "markdown", cwd=escalated).stdout
    assert f"- [WARNING] #2 needs a person: the agent says: {REASON}" in markdown


def test_the_report_is_not_on_track_with_an_escalated_issue(escalated: Path) -> None:
    done = ralph_process("report", "--dry-run", "--json", cwd=escalated)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["report"]
    assert report["status"] != "ON_TRACK"
    assert "#2 needs a person" in report["body"]


def test_status_piped_shows_titles_whole_one_issue_a_line(escalated: Path) -> None:
    done = ralph_process("status", cwd=escalated, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("  #2 Unclear ask") for line in lines)
    [long] = [line for line in lines if "#3 " in line]
    assert "Fix [the docs](javascript:alert(1))" in long  # as written, never read
    assert len(long) > 80
    assert not long.endswith("…")


@pytest.mark.parametrize(
    ("command", "heading"),
    [
        (("hygiene",), "# Project Hygiene Report"),
        (("report", "--dry-run"), "# Project Status Report"),
    ],
)
def test_markdown_reports_are_rendered_on_a_terminal_and_raw_otherwise(
    escalated: Path, command: tuple[str, ...], heading: str
) -> None:
    terminal = {"TTY_COMPATIBLE": "1", "FORCE_COLOR": "1"}
    shown = ralph_process(*command, cwd=escalated, env=terminal)
    assert shown.returncode == 0, shown.stderr
    assert heading not in shown.stdout  # rendered: no "#" left
    assert heading.lstrip("# ") in shown.stdout
    assert "\x1b[" in shown.stdout  # Rich's styles
    assert "\x1b]8;" not in shown.stdout  # the link in #3's title makes no hyperlink
    piped = ralph_process(*command, cwd=escalated)
    assert piped.stdout.startswith(heading)
    asked = ralph_process(*command, "--format", "markdown", cwd=escalated, env=terminal)
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith(heading)
    assert "\x1b[" not in asked.stdout
