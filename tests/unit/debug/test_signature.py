"""Error signatures: the original's golden cases (DG1-DG5) and Ralph's paths."""

from __future__ import annotations

import re

from ralph.debug import group_errors, hash_signature, is_error, normalise, signature


def tool_error(message: str, ts: str = "2026-02-20T12:00:00.000Z", tool: str = "get_issue"):
    return {"ts": ts, "cat": "tool", "tool": tool, "ok": False, "error": message}


def test_dg1_issue_numbers_do_not_split_a_signature():
    first = signature(tool_error("Issue 42 not found"))
    assert first == signature(tool_error("Issue 99 not found"))
    assert first == "tool:get_issue:error:Issue <N> not found"


def test_dg2_hashes_do_not_split_a_signature():
    first = signature(tool_error("Node abc12345 not found"))
    assert first == signature(tool_error("Node def67890 not found"))
    assert "<HASH>" in first


def test_dg3_a_hook_exit_code_is_its_error_type():
    event = {"ts": "2026-02-20T12:00:00Z", "cat": "hook", "hook": "PreToolUse", "exitCode": 2}
    assert is_error(event)
    text = signature(event)
    assert "hook:" in text
    assert "exit:2" in text


def test_dg4_same_message_is_one_group_distinct_ones_are_three_busiest_first():
    same = [tool_error("boom", ts=f"2026-02-20T12:00:0{i}.000Z") for i in (2, 0, 1)]
    [group] = group_errors(same)
    assert group.count == 3
    assert (group.first_seen, group.last_seen) == (
        "2026-02-20T12:00:00.000Z",
        "2026-02-20T12:00:02.000Z",
    )
    assert group.sample == same[0]
    kinds = [tool_error("a"), tool_error("b"), tool_error("b"), tool_error("c", tool="x")]
    groups = group_errors(kinds)
    assert len(groups) == 3
    assert groups[0].count == 2
    assert [g.count for g in groups] == sorted((g.count for g in groups), reverse=True)


def test_dg5_the_hash_is_eight_lowercase_hex_digits_and_deterministic():
    digest = hash_signature("tool:get_issue:error:Issue <N> not found")
    assert re.fullmatch(r"[0-9a-f]{8}", digest)
    assert digest == hash_signature("tool:get_issue:error:Issue <N> not found")
    assert digest != hash_signature("tool:get_issue:error:other")


def test_times_and_absolute_paths_are_made_alike_urls_are_kept():
    assert normalise("at 2026-02-20T12:00:00.123Z") == "at <TS>"
    assert normalise("no file /tmp/pytest-7/run1/worktrees/GH-3/a.py here") == (
        "no file <PATH> here"
    )
    assert normalise("GET https://api.github.com/graphql failed") == (
        "GET https://api.github.com/graphql failed"
    )
    assert normalise("a   b\n c") == "a b c"
    assert len(normalise("x" * 500)) == 200


def test_errors_are_ok_false_blocked_or_a_non_zero_exit():
    assert not is_error({"ok": True})
    assert not is_error({"exitCode": 0})
    assert is_error({"blocked": True})
    assert is_error({"ok": False})
    assert not group_errors([{"ts": "t", "cat": "tool", "ok": True}])


def test_a_blocked_event_says_blocked_and_names_its_phase():
    event = {"cat": "phase", "phase": "plan", "blocked": True, "error": "research #12 first"}
    assert signature(event) == "phase:plan:blocked:research #<N> first"
