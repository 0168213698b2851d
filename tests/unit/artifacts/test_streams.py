"""A work stream's names (the original's naming table) and the frontmatter the runner
writes into its plan."""

from __future__ import annotations

from datetime import date

from ralph.artifacts import StreamNames, parse_frontmatter, plan_path, set_frontmatter

PLAN = """---
date: 2026-02-21
status: draft
github_issues: [42, 44]
primary_issue: 42
---

# Auth - Atomic Implementation Plan
"""


def test_a_stream_is_named_from_its_sorted_issues_and_its_epic():
    stream = StreamNames.of(40, [44, 42, 44])
    assert stream.id == "stream-42-44"
    assert stream.worktree == "GH-40-stream-42-44"
    assert stream.branch == "feature/GH-40-stream-42-44"
    assert stream.pull_request_title("Auth flow") == "Auth flow [stream-42-44 of GH-40]"
    assert plan_path(stream.issues, "Auth flow", date(2026, 2, 21), stream=True) == (
        "thoughts/shared/plans/2026-02-21-stream-GH-42-44-auth-flow.md"
    )


def test_the_plan_frontmatter_names_the_stream_and_reads_back():
    stream = StreamNames.of(40, [42, 44])
    text = set_frontmatter(PLAN, stream.frontmatter())
    fields, body = parse_frontmatter(text)
    assert fields["stream_id"] == "stream-42-44"
    assert fields["stream_issues"] == [42, 44]
    assert fields["epic_issue"] == 40
    assert fields["github_issues"] == [42, 44]  # the agent's fields are kept
    assert body == parse_frontmatter(PLAN)[1]
    assert StreamNames.from_frontmatter(fields) == stream


def test_an_agents_own_stream_fields_are_replaced_not_doubled():
    written = PLAN.replace(
        "primary_issue: 42\n", "primary_issue: 42\nstream_id: wrong\nstream_issues:\n  - 7\n"
    )
    text = set_frontmatter(written, StreamNames.of(40, [42, 44]).frontmatter())
    assert text.count("stream_id:") == 1
    assert "  - 7" not in text
    assert parse_frontmatter(text)[0]["stream_issues"] == [42, 44]


def test_a_text_without_frontmatter_gets_a_block():
    text = set_frontmatter("# Plan\n", {"stream_id": "stream-1", "epic_issue": None})
    assert text == "---\nstream_id: stream-1\nepic_issue: null\n---\n# Plan\n"
    assert parse_frontmatter(text) == ({"stream_id": "stream-1", "epic_issue": None}, "# Plan\n")


def test_a_plan_that_is_no_streams_names_no_stream():
    assert StreamNames.from_frontmatter(parse_frontmatter(PLAN)[0]) is None
    # An older stream plan without epic_issue takes the epic it is given.
    assert StreamNames.from_frontmatter({"stream_id": "stream-42-44"}, epic=40) == (
        StreamNames.of(40, [42, 44])
    )
    assert StreamNames.from_frontmatter({"stream_id": "stream-42-44"}) is None
