"""``ralph hook EVENT`` from recorded Claude Code hook inputs: silent without a context,
a JSON refusal when a gate refuses, and never a crash or a block on input it cannot
read."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from ralph.plugin import HookContext, clear_context, find_context, run_hook, set_context

NOW = 1_800_000_000.0
SESSION = "0c59a1e2-0000-4000-8000-000000000001"


def recorded(event: str, cwd, **fields) -> dict[str, object]:
    """The common fields Claude Code 2.1.330 sends, and the event's own."""
    return {
        "session_id": SESSION,
        "transcript_path": f"{cwd}/.claude/projects/x/{SESSION}.jsonl",
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
        **fields,
    }


def outside_write(cwd) -> dict[str, object]:
    return recorded(
        "PreToolUse",
        cwd,
        tool_name="Write",
        tool_use_id="toolu_0002",
        tool_input={"file_path": str(cwd / "src" / "app.py"), "content": "print('hi')\n"},
    )


def answer(event: str, payload, env=None, now=NOW) -> tuple[int, dict[str, object] | None]:
    stdin = io.StringIO(payload if isinstance(payload, str) else json.dumps(payload))
    stdout = io.StringIO()
    code = run_hook(event, stdin, stdout, environ=env or {}, now=now)
    text = stdout.getvalue()
    return code, json.loads(text) if text else None


def context(**changes) -> HookContext:
    values: dict[str, object] = {"phase": "implement", "issue": 7, "expires_at": NOW + 60}
    values.update(changes)
    return HookContext(**values)  # type: ignore[arg-type]


def test_without_a_context_a_hook_says_nothing_and_lets_everything_through(tmp_path):
    assert answer("pre-tool-use", outside_write(tmp_path)) == (0, None)
    assert answer("stop", recorded("Stop", tmp_path, stop_hook_active=False)) == (0, None)


def test_during_an_implement_skill_a_write_outside_the_worktree_is_denied(tmp_path):
    set_context(tmp_path, context())
    code, reply = answer("pre-tool-use", outside_write(tmp_path))
    assert code == 0
    assert reply is not None
    output = reply["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    assert "worktrees/GH-7/" in output["permissionDecisionReason"]


def test_a_write_inside_the_worktree_goes_ahead(tmp_path):
    set_context(tmp_path, context())
    event = outside_write(tmp_path)
    event["tool_input"] = {"file_path": str(tmp_path / "worktrees/GH-7/app.py"), "content": ""}
    assert answer("pre-tool-use", event) == (0, None)


def test_the_context_is_found_from_a_folder_below_the_project(tmp_path):
    set_context(tmp_path, context())
    below = tmp_path / "worktrees" / "GH-7"
    below.mkdir(parents=True)
    _, reply = answer("pre-tool-use", outside_write(tmp_path) | {"cwd": str(below)})
    assert reply is not None
    assert "hookSpecificOutput" in reply
    env = {"CLAUDE_PROJECT_DIR": str(below)}
    _, reply = answer("pre-tool-use", outside_write(tmp_path) | {"cwd": "/"}, env)
    assert reply is not None
    assert "hookSpecificOutput" in reply


@pytest.mark.parametrize(
    "stale",
    [
        context(expires_at=NOW - 1),
        context(session_id="another-session"),
    ],
    ids=["expired", "another-session"],
)
def test_an_expired_context_or_another_sessions_gates_nothing(tmp_path, stale):
    set_context(tmp_path, stale)
    assert answer("pre-tool-use", outside_write(tmp_path)) == (0, None)


def test_a_context_of_this_session_gates_it(tmp_path):
    set_context(tmp_path, context(session_id=SESSION))
    _, reply = answer("pre-tool-use", outside_write(tmp_path))
    assert reply is not None
    assert "hookSpecificOutput" in reply


def test_a_cleared_context_gates_nothing(tmp_path):
    set_context(tmp_path, context())
    assert clear_context(tmp_path)
    assert not clear_context(tmp_path)
    assert find_context(tmp_path) is None
    assert answer("pre-tool-use", outside_write(tmp_path)) == (0, None)


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        ("", "not JSON"),
        ("{not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('"text"', "not a JSON object"),
    ],
)
def test_malformed_input_lets_the_session_go_on_with_a_warning(tmp_path, payload, words):
    set_context(tmp_path, context())
    code, reply = answer("pre-tool-use", payload, {"CLAUDE_PROJECT_DIR": str(tmp_path)})
    assert code == 0
    assert reply is not None
    assert words in str(reply["systemMessage"])
    assert "hookSpecificOutput" not in reply


@pytest.mark.parametrize(
    "content",
    ["not json", '{"phase": ""}', '{"phase": "implement", "expires_at": "soon"}', "[]"],
)
def test_a_broken_context_file_lets_the_session_go_on_with_a_warning(tmp_path, content):
    (tmp_path / ".ralph").mkdir()
    (tmp_path / ".ralph" / "hook-context.json").write_text(content)
    code, reply = answer("pre-tool-use", outside_write(tmp_path))
    assert code == 0
    assert reply is not None
    assert "cannot read the hook context" in str(reply["systemMessage"])


def denial(reply: dict[str, object] | None) -> str:
    """The reason of a PreToolUse refusal (fails on anything else)."""
    assert reply is not None
    output = reply["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["permissionDecision"] == "deny"
    return str(output["permissionDecisionReason"])


@pytest.mark.parametrize(
    ("tool_input", "words"),
    [
        (None, "its input is not an object"),
        ([], "its input is not an object"),
        ({"file_path": 123}, "its file_path is 123, not a path"),
        ({"command": None}, "its file_path is None, not a path"),
    ],
)
def test_a_write_whose_file_cannot_be_read_from_the_input_is_refused(tmp_path, tool_input, words):
    set_context(tmp_path, context())
    code, reply = answer("pre-tool-use", outside_write(tmp_path) | {"tool_input": tool_input})
    assert code == 0
    assert words in denial(reply)


def test_other_tools_odd_input_is_let_through(tmp_path):
    set_context(tmp_path, context())
    event = outside_write(tmp_path) | {"tool_name": "Bash", "tool_input": {"command": None}}
    assert answer("pre-tool-use", event) == (0, None)


def test_a_write_through_a_symlink_is_judged_where_it_leads(tmp_path):
    set_context(tmp_path, context())
    worktree = tmp_path / "worktrees" / "GH-7"
    worktree.mkdir(parents=True)
    (worktree / "link").symlink_to(tmp_path)
    event = outside_write(tmp_path)
    event["tool_input"] = {"file_path": str(worktree / "link" / "ralph.toml"), "content": "x"}
    reason = denial(answer("pre-tool-use", event)[1])
    assert f"which leads to {tmp_path.resolve()}/ralph.toml" in reason
    event["tool_input"] = {"file_path": str(worktree / "src" / "app.py"), "content": "x"}
    assert answer("pre-tool-use", event) == (0, None)


def test_a_write_in_another_issues_worktree_is_refused(tmp_path):
    set_context(tmp_path, context())
    event = outside_write(tmp_path) | {"tool_name": "Edit"}
    path = tmp_path / "worktrees" / "GH-999" / "x.py"
    event["tool_input"] = {"file_path": str(path), "old_string": "a", "new_string": "b"}
    assert "only inside the issue's worktree (worktrees/GH-7/)" in denial(
        answer("pre-tool-use", event)[1]
    )


def test_a_childs_gates_let_it_write_in_its_epics_worktree(tmp_path):
    set_context(tmp_path, context(epic=3))
    event = outside_write(tmp_path)
    event["tool_input"] = {"file_path": str(tmp_path / "worktrees/GH-3/app.py"), "content": ""}
    assert answer("pre-tool-use", event) == (0, None)


def test_an_unknown_event_is_a_warning_not_a_block(tmp_path):
    code, reply = answer("post-tool-use", outside_write(tmp_path))
    assert code == 0
    assert reply is not None
    assert "unknown event" in str(reply["systemMessage"])


def test_a_stop_whose_tracker_cannot_be_read_goes_ahead_with_a_warning(tmp_path):
    set_context(tmp_path, context(phase="research"))  # no ralph.toml: no tracker
    code, reply = answer("stop", recorded("Stop", tmp_path, stop_hook_active=False))
    assert code == 0
    assert reply is not None
    assert "the stop is allowed" in str(reply["systemMessage"])
    assert "decision" not in reply


def test_ralph_hook_without_a_context_loads_neither_the_command_line_nor_the_gates(tmp_path):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ralph", "hook", "pre-tool-use"],
        input=json.dumps(outside_write(tmp_path)),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
        timeout=60,
    )
    assert done.stdout == ""
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "ralph.plugin" in imported
    assert not imported & {"typer", "rich", "ralph.cli", "ralph.workflow", "ralph.hooks"}
