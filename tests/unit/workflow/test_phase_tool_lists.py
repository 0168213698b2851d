"""Each phase is offered only the tools its role uses: every tool definition is sent with
every request of the agent's run."""

from __future__ import annotations

from ralph.workflow import PHASE_SPECS
from ralph.workflow._phases import WEB_TOOLS


def tools(name: str) -> tuple[str, ...]:
    return next(spec.tools for spec in PHASE_SPECS if spec.name == name)


def test_only_the_phases_that_change_code_get_a_shell_and_an_editor():
    with_shell = sorted(spec.name for spec in PHASE_SPECS if "Bash" in spec.tools)
    assert with_shell == ["address", "implement"]
    assert sorted(s.name for s in PHASE_SPECS if "Edit" in s.tools) == ["address", "implement"]


def test_the_document_phases_read_and_write_files_and_nothing_else():
    for name in ("research", "plan", "review"):
        assert tools(name) == ("Read", "Glob", "Grep", "Write")


def test_only_triage_and_split_are_offered_the_tracker_tools():
    offered = sorted(spec.name for spec in PHASE_SPECS if spec.tracker_tools)
    assert offered == ["split", "triage"]


def test_triage_and_split_are_offered_the_issues_and_their_links_not_the_board_or_runs():
    for spec in PHASE_SPECS:
        if spec.tracker_tools:
            assert spec.tracker_tools == (
                "get_issue",
                "list_issues",
                "list_sub_issues",
                "list_dependencies",
            ), spec.name


def test_research_gets_the_web_tools_only_when_the_person_allows_the_web():
    research = next(spec for spec in PHASE_SPECS if spec.name == "research")
    assert not set(WEB_TOOLS) & set(research.tools_with(web=False))
    assert research.tools_with(web=True) == (*research.tools, "WebSearch", "WebFetch")
    for spec in PHASE_SPECS:
        if spec.name != "research":
            assert spec.tools_with(web=True) == spec.tools, spec.name
