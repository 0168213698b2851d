"""``ralph issue edit`` and ``ralph issue new --body-file`` as a person types them, on
the local tracker; and ``issue new``'s editor, which opens only on a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import GitProject, ralph_process, spawn_ralph


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ralph_cli) -> Path:
    project = GitProject(tmp_path / "project")
    monkeypatch.chdir(project.path)
    assert ralph_cli("init")[0] == 0
    code, _, err = ralph_cli("issue", "new", "First", "--body", "old", "-l", "keep", "-l", "drop")
    assert code == 0, err
    return project.path


def shown(ralph_cli, number: int = 1) -> dict[str, Any]:
    code, out, _ = ralph_cli("issue", "show", str(number), "--json")
    assert code == 0
    found: dict[str, Any] = json.loads(out)
    return found


def test_edit_changes_each_given_field_and_adds_and_removes_labels(repo, ralph_cli, tmp_path):
    (tmp_path / "body.md").write_text("A new description\n\n- with a list\n")
    edit = ["--title", "Renamed", "--body-file", str(tmp_path / "body.md")]
    edit += ["--estimate", "S", "--priority", "P1", "--add-label", "fresh"]
    edit += ["--add-label", "keep", "--remove-label", "drop"]
    code, out, err = ralph_cli("issue", "edit", "1", *edit)
    assert (code, err) == (0, "")
    assert out.strip() == "Edited #1: Renamed [Backlog]"
    issue = shown(ralph_cli)
    assert issue["title"] == "Renamed"
    assert issue["body"] == "A new description\n\n- with a list\n"
    assert (issue["estimate"], issue["priority"]) == ("S", "P1")
    assert issue["labels"] == ["keep", "fresh"]


def test_edit_reads_the_body_from_standard_input(repo):
    done = subprocess.run(
        [sys.executable, "-m", "ralph", "issue", "edit", "1", "--body-file", "-"],
        cwd=repo,
        input="piped in\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listed = ralph_process("issue", "show", "1", "--json", cwd=repo)
    assert json.loads(listed.stdout)["body"] == "piped in\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--title", "x" * 257), "at most 256"),
        (("--title", "two\nlines"), "one line"),
        (("--body", "bell\x07"), "control characters"),
        (("--body", "x" * 65_537), "at most 65,536"),
        (("--body-file", "no/such/file"), "cannot read --body-file 'no/such/file'"),
        (("--body", "b", "--body-file", "-"), "give --body or --body-file, not both"),
        (("--estimate", "Q"), "Unknown estimate 'Q'"),
        (("--priority", "P9"), "P9"),
        (("--add-label", "bad\nlabel"), "the label"),
        (("--remove-label", " "), "the label is empty"),
    ],
)
def test_edit_with_one_bad_value_says_so_in_one_line_and_changes_nothing(
    repo, ralph_cli, args, said
):
    before = shown(ralph_cli)
    # Every other value is good: the bad one alone must stop the whole edit.
    code, out, err = ralph_cli("issue", "edit", "1", "--title", "Good", "--add-label", "x", *args)
    assert code == 2
    assert out == ""
    assert said in err
    assert len(err.strip().splitlines()) == 1
    assert shown(ralph_cli) == before


def test_edit_without_anything_to_change_says_what_it_takes(repo, ralph_cli):
    code, _, err = ralph_cli("issue", "edit", "1")
    assert code == 2
    assert "give what to change: --title, --body, --body-file" in err


def test_edit_of_an_unknown_issue_names_it(repo, ralph_cli):
    code, _, err = ralph_cli("issue", "edit", "9", "--title", "x")
    assert code == 2
    assert "#9" in err


def test_new_takes_its_body_from_a_file(repo, ralph_cli, tmp_path):
    (tmp_path / "body.md").write_text("From a file\n")
    code, _, err = ralph_cli("issue", "new", "Second", "--body-file", str(tmp_path / "body.md"))
    assert code == 0, err
    assert shown(ralph_cli, 2)["body"] == "From a file\n"


# -- the editor ---------------------------------------------------------------------------

EDITOR = """#!/bin/sh
# Writes what $WRITE says above the template, as a person would, and notes it ran.
touch "$RAN"
printf '%s' "$WRITE" > "$1.new" && cat "$1" >> "$1.new" && mv "$1.new" "$1"
"""


@pytest.fixture
def editor(tmp_path: Path) -> Path:
    script = tmp_path / "editor.sh"
    script.write_text(EDITOR)
    script.chmod(0o755)
    return script


def on_terminal(repo: Path, editor: Path, write: str, *args: str) -> tuple[int, str]:
    """``ralph issue new ARGS`` with its standard input and output on a terminal."""
    leader, follower = os.openpty()
    env = {"EDITOR": str(editor), "WRITE": write, "RAN": str(editor.parent / "ran")}
    try:
        process = spawn_ralph(
            "issue", "new", *args, cwd=repo, env=env, stdin=follower, stdout=follower
        )
        try:
            _, err = process.communicate(timeout=60)
        finally:
            process.kill()
        return process.returncode, err
    finally:
        os.close(follower)
        os.close(leader)


def test_new_on_a_terminal_without_a_body_opens_the_editor_and_files_what_was_written(
    repo, editor, ralph_cli
):
    code, err = on_terminal(repo, editor, "Written in the editor\n", "Third")
    assert code == 0, err
    assert shown(ralph_cli, 2)["body"] == "Written in the editor"


def test_an_empty_description_in_the_editor_files_nothing(repo, editor, ralph_cli):
    code, err = on_terminal(repo, editor, "   \n", "Third")
    assert code == 2
    assert err.strip() == "ralph: error: the description is empty, so nothing was filed"
    assert ralph_cli("issue", "show", "2")[0] == 2


def test_off_a_terminal_no_editor_opens(repo, editor, ralph_cli):
    done = ralph_process(
        "issue",
        "new",
        "Fourth",
        cwd=repo,
        env={"EDITOR": str(editor), "RAN": str(editor.parent / "ran")},
    )
    assert done.returncode == 0, done.stderr
    assert not (editor.parent / "ran").exists()
    assert shown(ralph_cli, 2)["body"] == ""
