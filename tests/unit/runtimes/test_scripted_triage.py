"""The scripted triage proposes the XS fast track for an issue naming one to three files
(its diff's, else its backticked paths), and not otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.demo._sample import EXPORT, FAREWELL, TEST_FAREWELL
from ralph.runtimes import AgentBrief, IssueContext
from ralph.runtimes.scripted._analyst import named_files, triage


def triage_of(body: str, estimate: str | None = "XS") -> dict[str, Any]:
    issue = IssueContext(number=7, title="Add a farewell", body=body, estimate=estimate)
    brief = AgentBrief(
        phase="triage",
        role="analyst",
        issues=(issue,),
        instructions="",
        workdir=Path("/nowhere"),
        tools=("Read",),
    )
    return triage(brief)


def test_an_xs_issue_with_a_diff_is_proposed_for_the_fast_track_with_its_file():
    result = triage_of(f"Add it.\n\n{FAREWELL}\n")
    assert (result["action"], result["fast_track"], result["files"]) == (
        "RESEARCH",
        True,
        ["greet/core.py"],
    )


def test_backticked_paths_name_the_files_when_there_is_no_diff():
    assert named_files("Change `greet/core.py` and `README.md`; call `greet()`.") == [
        "greet/core.py",
        "README.md",
    ]
    assert triage_of("Change `greet/core.py`.")["files"] == ["greet/core.py"]


def test_no_fast_track_for_an_s_issue_vague_words_four_files_or_a_marker_saying_no():
    assert "fast_track" not in triage_of(f"{FAREWELL}\n", estimate="S")
    assert "fast_track" not in triage_of("Make the greeting nicer.")
    three = f"{FAREWELL}\n{EXPORT}\n{TEST_FAREWELL}\nAlso `docs/greet.md`."
    # The diffs name the files; backticked paths count only without a diff.
    assert named_files(three) == ["greet/core.py", "greet/__init__.py", "tests/test_greet.py"]
    assert triage_of(three)["fast_track"]
    four = three + "\n```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```\n"
    assert "fast_track" not in triage_of(four)
    assert "fast_track" not in triage_of(f"Fast track: no\n\n{FAREWELL}\n")


def test_an_unestimated_issue_listing_three_changes_is_estimated_m_and_split():
    epic = "An epic.\n\n- add subtract\n- add multiply\n- add power\n"
    result = triage_of(epic, estimate=None)
    assert (result["action"], result["estimate"]) == ("SPLIT", "M")
    two = "Two things.\n\n- add subtract\n- add multiply\n"
    assert triage_of(two, estimate=None)["estimate"] == "XS"
    # Acceptance criteria check one change; they are not several.
    checked = "Add subtract.\n\n## Acceptance criteria\n\n- a\n- b\n- c\n"
    assert triage_of(checked, estimate=None)["estimate"] == "XS"
    # A person's estimate stands.
    assert triage_of(epic, estimate="S")["action"] == "RESEARCH"
