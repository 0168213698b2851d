"""Agents read people's comments and Ralph's findings, not its audit trail or the hints
it leaves for people."""

from __future__ import annotations

from ralph.artifacts import Verdict, review_comment
from ralph.phases._comments import for_agents, is_audit_comment, without_hints
from ralph.workflow import TransitionRecord, audit_comment

RECORD = TransitionRecord("Research Needed", "Research in Progress", "ralph_research", "2026-11-22")


def test_ralphs_audit_comments_are_recognised_as_written_and_as_github_returns_them():
    audit = audit_comment(RECORD, intent="__LOCK__", actor="ralph")
    assert is_audit_comment(audit)
    assert is_audit_comment(audit.replace("\n", "\r\n"))
    assert is_audit_comment(audit_comment(RECORD, intent=None, actor="pull request #4"))


def test_a_person_writing_about_a_transition_is_still_heard():
    audit = audit_comment(RECORD, intent="__LOCK__", actor="ralph")
    assert not is_audit_comment(audit + "\n\nAlso: the login page must keep working.")
    assert not is_audit_comment("**State transition**: please do not move this yet")


def test_hints_for_people_are_cut_from_ralphs_comments():
    approved = review_comment(
        Verdict.APPROVED,
        "Full critique: c.md",
        "Approved by automated critique.\n\nReady for implementation. Run `ralph run "
        "implement 3` to begin.",
    )
    assert without_hints(approved).endswith("Ready for implementation.")
    iterate = review_comment(
        Verdict.NEEDS_ITERATION,
        "Full critique: c.md",
        "Issues identified:\n- tests\n\nRun `ralph run plan 3` to address these issues.",
    )
    assert without_hints(iterate).endswith("Issues identified:\n- tests")
    escalation = (
        "Escalation: research failed 2 time(s)\n\nPhase `research` stopped and needs a "
        "person. Resolve the problem, then move the issue back (`ralph issue move 3 STATE`) "
        "and run the phase again."
    )
    assert without_hints(escalation) == "Escalation: research failed 2 time(s)"
    retried = (
        "Escalation: research failed 2 time(s)\n\nPhase `research` stopped and needs a "
        "person. Resolve the problem, then run `ralph issue retry 3` and `ralph hero 3` (or "
        "let `ralph serve` pick it up)."
    )
    assert without_hints(retried) == "Escalation: research failed 2 time(s)"
    assert without_hints("@alice @acme/leads " + escalation) == (
        "Escalation: research failed 2 time(s)"
    )
    assert without_hints("@alice said this is fine") == "@alice said this is fine"
    split = "## Issue Split\n\nOriginal estimate: M.\n\n*Split by `ralph run split`*\n"
    assert without_hints(split) == "## Issue Split\n\nOriginal estimate: M."


def test_agents_get_the_comments_that_are_left_in_order():
    audit = audit_comment(RECORD, intent="__LOCK__", actor="ralph")
    assert for_agents(["first", audit, "*Split by `ralph run split`*", "  last \n"]) == (
        "first",
        "last",
    )
