"""What ``ralph status`` and ``ralph issue list`` show on an 80-column terminal and
through a pipe, with a title longer than the terminal is wide: the title is cut with
"…" (or, piped, shown whole, one issue a line); a state and a count never are."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import termios
from pathlib import Path

import pytest

from ..conftest import GitProject, ralph_process, spawn_ralph

#: 90 characters, with the code spans a title often has.
LONG = 'Add a `divide(a, b)` function that raises `ValueError("cannot divide by zero")` on zero in'
STATES = ("Backlog", "Research Needed", "Research in Progress", "Human Needed", "Canceled")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def repo(project: GitProject, monkeypatch, ralph_cli) -> Path:
    assert len(LONG) == 90
    monkeypatch.chdir(project.path)
    assert ralph_cli("init")[0] == 0
    assert ralph_cli("issue", "new", LONG, "-e", "S")[0] == 0
    assert ralph_cli("issue", "new", "Short one", "--state", "Research in Progress")[0] == 0
    return project.path


def on_terminal(repo: Path, *args: str, columns: int = 80) -> str:
    """``ralph ARGS`` with its output on a terminal ``columns`` wide, as seen there
    (colours left out)."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    chunks: list[bytes] = []
    try:
        # COLUMNS unset: the width is the terminal's own.
        process = spawn_ralph(*args, cwd=repo, env={"COLUMNS": ""}, stdout=follower)
        os.close(follower)
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, "ralph printed nothing for a minute"
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
    finally:
        os.close(leader)
    return _ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def assert_states_whole(table: str) -> None:
    lines = table.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "Issues" in line)
    assert "State" in header
    assert "Count" in header
    for state in STATES:
        assert any(line.startswith(f"│ {state} ") for line in lines), state
    row = next(line for line in lines if "#1" in line)
    assert re.match(r"│ Backlog +│ +1 │ #1 S Add a divide\(a, b\) function .*…", row), row


def test_status_piped_prints_each_state_its_count_and_its_issues_whole(repo):
    done = ralph_process("status", cwd=repo, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["Pipeline — 2 issues", "Backlog: 1", f"  #1 S {LONG}"]
    assert "Research in Progress: 1" in lines
    assert "  #2 🔒 Short one" in lines  # its research under way
    for state in STATES:
        assert any(line.startswith(f"{state}: ") for line in lines), state


def test_status_on_an_80_column_terminal_cuts_the_title_and_keeps_states_and_counts(repo):
    assert_states_whole(on_terminal(repo, "status"))


def test_issue_list_on_an_80_column_terminal_cuts_titles_not_states(repo):
    shown = on_terminal(repo, "issue", "list", "--all")
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= 80
    first = next(line for line in lines if line.startswith("│ 1 "))
    assert "…" in first
    assert "│ Backlog " in first
    assert "`" not in first
    assert any("│ Research in Progress │" in line for line in lines)
    assert len([line for line in lines if line.startswith("│")]) == 2  # one line an issue


def test_issue_list_piped_prints_one_plain_row_an_issue(repo):
    done = ralph_process("issue", "list", "--all", cwd=repo, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"1\tBacklog\t{LONG}\tS\t\t\t",
        "2\tResearch in Progress\tShort one\t\t\t\t",
    ]


def test_issue_show_never_breaks_a_document_path_on_a_narrow_terminal(repo, ralph_cli):
    assert ralph_cli("hero", "1")[0] == 0
    done = ralph_process("issue", "show", "1", cwd=repo, env={"COLUMNS": "60"})
    assert done.returncode == 0, done.stderr
    plan = next(p for p in (repo / "thoughts/shared/plans").iterdir())
    path = plan.relative_to(repo).as_posix()
    assert len(path) > 60
    # Printed whole on one line, wherever the terminal then wraps it: never cut by a
    # border or an ellipsis, so it can be copied.
    assert sum(path in line for line in done.stdout.splitlines()) >= 2  # documents, comment


def test_issue_show_of_an_escalated_issue_starts_with_its_reason_and_the_retry(repo, ralph_cli):
    body = "Triage: escalate which API does it call?"
    assert ralph_cli("issue", "new", "Unclear", "--body", body)[0] == 0
    assert ralph_cli("run", "triage", "3")[0] == 1
    done = ralph_process("issue", "show", "3", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        "Needs a person: the agent says: which API does it call? — `ralph issue retry 3` "
        "once it is resolved"
    )
    # Who moved it, in words (the comment keeps the command the original's tools parse).
    assert "Backlog → Human Needed (triage)" in done.stdout
    assert "ralph_triage" not in done.stdout.split("Comments (", 1)[0]


def test_status_says_nothing_of_empty_states_while_work_is_in_flight(repo):
    done = ralph_process("status", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "Health: all clear" in done.stdout
    assert "pipeline gap" not in done.stdout
    assert "[info]" not in done.stdout
    # Still in the machine-readable dashboard, as the original reports it.
    assert "pipeline gap" in ralph_process("status", "--json", cwd=repo).stdout
