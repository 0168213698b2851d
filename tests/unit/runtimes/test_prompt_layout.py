"""Prompts laid out for the providers' prompt caches: what is the same for every issue
of a phase comes first, so a later run re-sends a prefix the provider has cached."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ralph.runtimes import AgentBrief, IssueContext
from ralph.runtimes._prompt import render_brief, render_result_request, system_note

SCHEMA = {
    "type": "object",
    "required": ["document", "summary"],
    "properties": {"document": {"type": "string"}, "summary": {"type": "string"}},
}


def brief(number: int, title: str) -> AgentBrief:
    return AgentBrief(
        phase="research",
        role="analyst",
        issues=(IssueContext(number=number, title=title, body=f"Do {title}."),),
        instructions=f"# Research issue #{number}\n\nInvestigate and write the document.",
        workdir=Path("/work/checkout"),
        tools=("Read", "Write"),
        result_schema=SCHEMA,
    )


def test_the_result_schema_is_sent_compact():
    request = render_result_request(SCHEMA)
    assert json.dumps(SCHEMA, separators=(",", ":")) in request
    assert "\n  " not in request  # no indentation


def test_two_issues_of_one_phase_share_the_result_request_as_their_prompts_prefix():
    lead = render_result_request(SCHEMA)
    first = render_brief(brief(1, "a farewell"), lead=lead)
    second = render_brief(brief(2, "a greeting"), lead=lead)
    shared = first[: next(i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)]
    assert shared.startswith(lead.strip())
    assert "#1" not in shared
    assert "#2" not in shared
    assert first.index("# Research issue #1") > first.index("## Your result")


def test_without_a_lead_the_prompt_starts_with_the_instructions():
    assert render_brief(brief(1, "a farewell")).startswith("# Research issue #1")


def test_the_system_note_is_the_same_for_every_issue_and_worktree_of_a_phase():
    first = brief(1, "a farewell")
    second = dataclasses.replace(brief(2, "a greeting"), workdir=Path("/work/worktrees/GH-2"))
    assert system_note(first) == system_note(second)
    assert "analyst" in system_note(first)
