"""The scripted code reviewer: it approves, unless the issue asks for one change and no
address round has run yet; then it requests it inline on the first changed file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.runtimes import AgentBrief, Feedback, IssueContext
from ralph.runtimes.scripted._pull_request import address, code_review

DIFF = "--- a/greet/core.py\n+++ b/greet/core.py\n@@ -1 +1,2 @@\n a\n+b\n"
FIX = "```diff\n--- a/greet/core.py\n+++ b/greet/core.py\n@@ -1 +1 @@\n-a\n+c\n```"


def review(body: str, comments: tuple[str, ...] = ()) -> dict[str, Any]:
    return code_review(
        AgentBrief(
            phase="code_review",
            role="validator",
            issues=(IssueContext(number=1, title="t", body=body, comments=comments),),
            instructions="",
            workdir=Path("/nowhere"),
            tools=("Read",),
            feedback=(Feedback(kind="diff", where="pull request #2", text=DIFF),),
        )
    )


def test_it_approves_by_default():
    assert review("Add b.")["verdict"] == "APPROVE"


def test_asked_for_it_requests_the_issues_second_change_inline():
    found = review(f"Code review: request-changes\n\n```diff\n{DIFF}```\n\n{FIX}\n")
    assert found["verdict"] == "REQUEST_CHANGES"
    (comment,) = found["comments"]
    assert (comment["path"], comment["line"]) == ("greet/core.py", 1)
    assert "+c" in comment["body"]


def test_after_an_address_round_it_approves():
    note = "## Review Feedback Addressed\n\nPull request #2, round 1: abc on feature/GH-1."
    assert review("Code review: request-changes", (note,))["verdict"] == "APPROVE"


def test_a_change_that_is_only_a_simulated_placeholder_is_approved_saying_so():
    placeholder = "--- /dev/null\n+++ b/ralph-simulated/issue-1.md\n@@ -0,0 +1 @@\n+# #1\n"
    found = code_review(
        AgentBrief(
            phase="code_review",
            role="validator",
            issues=(IssueContext(number=1, title="t", body="Add b."),),
            instructions="",
            workdir=Path("/nowhere"),
            tools=("Read",),
            feedback=(Feedback(kind="diff", where="pull request #2", text=placeholder),),
        )
    )
    assert found["verdict"] == "APPROVE"
    assert "simulated placeholder change (ralph-simulated/issue-1.md)" in found["body"]
    assert "docs/getting-started.md#the-simulated-agents" in found["body"]


def test_feedback_without_a_diff_escalates_naming_the_simulators_limit():
    reason = address(
        AgentBrief(
            phase="address",
            role="builder",
            issues=(IssueContext(number=3, title="t", body="Add b."),),
            instructions="",
            workdir=Path("/nowhere"),
            tools=("Read",),
            feedback=(Feedback(kind="review", where="pull request #4", text="Rename it."),),
        )
    )["escalate"]
    assert reason.startswith("The feedback holds no ```diff block that applies")
    assert "a limit of the simulated agent" in reason
    assert "`ralph issue comment 3 -`" in reason
    assert "docs/getting-started.md#the-simulated-agents" in reason
