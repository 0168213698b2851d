"""The scripted split on an issue written in plain words: one sub-issue per item of its
task list, else of its acceptance criteria, else of its first bullet list, in order,
each XS or S and after the one before; with nothing to split on it escalates, naming
the simulator's limit and the docs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.runtimes import AgentBrief, IssueContext
from ralph.runtimes.scripted._analyst import split
from ralph.runtimes.scripted._outline import outline


def split_of(body: str, children: tuple[tuple[int, str], ...] = ()) -> dict[str, Any]:
    return split(
        AgentBrief(
            phase="split",
            role="analyst",
            issues=(IssueContext(number=7, title="Epic", body=body, children=children),),
            instructions="",
            workdir=Path("/nowhere"),
            tools=("Read",),
        )
    )


def test_a_task_list_wins_over_other_bullets_and_keeps_its_order():
    body = "Notes:\n- not this\n\n## Tasks\n- [ ] first\n  - [ ] a detail\n- [x] second\n"
    assert outline(body) == ["first", "second"]


def test_acceptance_criteria_win_over_other_bullet_lists():
    body = "## Why\n- because\n\n### Acceptance criteria\n1. one\n2. two\n\n## Notes\n- n\n"
    assert outline(body) == ["one", "two"]


def test_without_either_the_first_bullet_list_is_split_on():
    assert outline("Do this:\n* a\n* b\n\nNotes:\n- c\n") == ["a", "b"]


def test_lines_of_a_diff_block_are_no_items():
    diff = "```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n- old\n+ new\n```\n"
    assert outline(f"Prose only.\n\n{diff}") == []


def test_each_item_becomes_a_small_sub_issue_after_the_one_before():
    long_item = "Add a multiply function that takes any number of factors and " + "x" * 30
    found = split_of(f"Calculator:\n\n- Add a subtract function\n- {long_item}\n- Docs\n")
    subs = found["sub_issues"]
    assert [s["title"] for s in subs][::2] == ["Add a subtract function", "Docs"]
    assert [s["estimate"] for s in subs] == ["XS", "S", "XS"]
    assert [s["after"] for s in subs] == [[], [1], [2]]
    assert all("Parent: #7" in s["body"] for s in subs)
    assert long_item in subs[1]["body"]


def test_a_long_item_gets_a_title_cut_at_a_word():
    item = "word " * 40
    (first, _) = split_of(f"- {item}\n- other\n")["sub_issues"]
    assert len(first["title"]) <= 81
    assert first["title"].endswith("word…")


def test_an_existing_child_of_the_same_title_is_reused():
    found = split_of("- one\n- two\n", children=((9, "Two"),))
    assert [s.get("reuse") for s in found["sub_issues"]] == [None, 9]


def test_with_fewer_than_two_items_it_escalates_naming_the_limit_and_the_docs():
    for body in ("It is slow. Fix it.", "- just one thing\n"):
        reason = split_of(body)["escalate"]
        assert reason.startswith("Nothing to split on")
        assert "a limit of the simulated agent" in reason
        assert "`ralph issue edit 7 --body-file FILE`" in reason
        assert "docs/getting-started.md#the-simulated-agents" in reason


def test_a_split_section_is_still_followed_as_written():
    body = (
        "- ignored\n- ignored too\n\n"
        "## Split\n\n### S: Store it\nstore\n\n### XS: Show it (after 1)\n"
    )
    found = split_of(body)["sub_issues"]
    assert [(s["title"], s["estimate"], s["after"]) for s in found] == [
        ("Store it", "S", []),
        ("Show it", "XS", [1]),
    ]


def test_a_split_with_nothing_to_split_on_never_says_it_is_done():
    from ralph.runtimes.scripted._runtime import _report_work

    brief = AgentBrief(
        phase="split",
        role="analyst",
        issues=(IssueContext(number=7, title="One thing", body="Just one thing."),),
        instructions="",
        workdir=Path("/nowhere"),
        tools=("Read",),
    )
    _report_work(brief, {"escalate": "Nothing to split on"})
    said = brief.activity.snapshot().said
    assert said == "Cannot go on without a person: Nothing to split on"
