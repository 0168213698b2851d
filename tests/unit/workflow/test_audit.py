"""Transition audit comments round-trip, and both comment forms parse (the original's format)."""

from __future__ import annotations

from ralph.workflow import (
    TransitionRecord,
    audit_comment,
    parse_all_transitions,
    parse_audit_comments,
    parse_transition_comments,
    transition_marker,
)

AT = "2026-02-20T12:00:00Z"
RECORD = TransitionRecord("Research Needed", "Research in Progress", "ralph_research", AT)


def test_the_marker_is_one_line_of_compact_json_in_the_originals_key_order():
    assert transition_marker(RECORD) == (
        '<!-- ralph-transition: {"from":"Research Needed","to":"Research in Progress",'
        '"command":"ralph_research","at":"2026-02-20T12:00:00Z"} -->'
    )


def test_an_audit_comment_round_trips():
    body = audit_comment(RECORD, intent="__LOCK__", actor="analyst-1")
    assert body.startswith(
        "**State transition**: Research Needed → Research in Progress (intent: __LOCK__)\n"
        "**Command**: ralph_research\n"
    )
    assert parse_transition_comments(body) == [RECORD]
    assert parse_all_transitions(body, "later") == [RECORD]  # the readable line adds nothing


def test_several_markers_in_one_text():
    second = TransitionRecord("Research in Progress", "Ready for Plan", "ralph_research", AT)
    text = f"{transition_marker(RECORD)}\nsome words\n{transition_marker(second)}"
    assert parse_transition_comments(text) == [RECORD, second]


def test_malformed_and_incomplete_markers_are_skipped():
    text = (
        "<!-- ralph-transition: {not json} -->\n"
        '<!-- ralph-transition: {"from":"A","to":"B","command":"ralph_x"} -->\n'
        '<!-- ralph-transition: {"from":"","to":"B","command":"ralph_x","at":"t"} -->\n'
        '<!-- ralph-transition: ["A"] -->'
    )
    assert parse_transition_comments(text) == []


def test_the_originals_readable_audit_lines_parse_with_the_comment_date():
    text = (
        "**State transition**: Plan in Review → In Progress (intent: __COMPLETE__)\n"
        "**Command**: ralph_review"
    )
    assert parse_audit_comments(text, AT) == [
        TransitionRecord("Plan in Review", "In Progress", "ralph_review", AT)
    ]


def test_readable_lines_add_only_what_markers_do_not_record():
    other = (
        "**State transition**: Ready for Plan → Plan in Progress (intent: __LOCK__)\n"
        "**Command**: ralph_plan"
    )
    body = audit_comment(RECORD, intent="__LOCK__", actor="a") + "\n" + other
    assert [r.to_state for r in parse_all_transitions(body, AT)] == [
        "Research in Progress",
        "Plan in Progress",
    ]
