from __future__ import annotations

import pytest

from ralph.errors import InvalidInput, UnknownState
from ralph.workflow import (
    HUMAN_STATES,
    LOCK_STATES,
    OVERSIZED_ESTIMATES,
    PARENT_GATE_STATES,
    STATE_ORDER,
    TERMINAL_STATES,
    WORKFLOW_STATE_TO_STATUS,
    Estimate,
    Priority,
    WorkflowState,
    is_earlier_state,
    parse_estimate,
    parse_priority,
    parse_state,
    state_index,
)


def test_there_are_eleven_states_with_the_boards_exact_names_in_setup_order():
    assert [s.value for s in WorkflowState] == [
        "Backlog",
        "Research Needed",
        "Research in Progress",
        "Ready for Plan",
        "Plan in Progress",
        "Plan in Review",
        "In Progress",
        "In Review",
        "Done",
        "Human Needed",
        "Canceled",
    ]


def test_states_compare_equal_to_their_names_and_hash_like_them():
    assert WorkflowState.IN_REVIEW == "In Review"  # type: ignore[comparison-overlap]  # it is a str
    assert {"In Review": 1}[WorkflowState.IN_REVIEW] == 1


def test_state_sets_match_the_original():
    assert {"Done", "Canceled"} == TERMINAL_STATES
    assert {"Research in Progress", "Plan in Progress", "In Progress"} == LOCK_STATES
    assert {"Human Needed", "Plan in Review"} == HUMAN_STATES
    assert {"Ready for Plan", "In Review", "Done"} == PARENT_GATE_STATES


def test_state_index_puts_human_needed_and_canceled_outside_the_pipeline():
    assert STATE_ORDER[0] == "Backlog"
    assert STATE_ORDER[-1] == "Done"
    assert state_index("Backlog") == 0
    assert state_index("Done") == 8
    assert state_index("Human Needed") == -1
    assert state_index("Canceled") == -1
    assert state_index("Weird") == -1
    assert state_index(None) == -1


def test_is_earlier_state_is_false_when_either_state_is_outside_the_pipeline():
    assert is_earlier_state("Backlog", "Done")
    assert not is_earlier_state("Done", "Backlog")
    assert not is_earlier_state("Backlog", "Backlog")
    assert not is_earlier_state("Human Needed", "Done")
    assert not is_earlier_state("Backlog", "Canceled")


def test_status_sync_maps_every_state():
    assert set(WORKFLOW_STATE_TO_STATUS) == set(WorkflowState)
    assert WORKFLOW_STATE_TO_STATUS[WorkflowState.IN_REVIEW] == "In Progress"
    # Not Done: a board automation closing Done issues would close every escalation.
    assert WORKFLOW_STATE_TO_STATUS[WorkflowState.HUMAN_NEEDED] == "In Progress"
    assert WORKFLOW_STATE_TO_STATUS[WorkflowState.CANCELED] == "Done"


def test_estimates_are_ordinal_and_m_l_xl_are_oversized():
    assert Estimate.XS < Estimate.S < Estimate.M < Estimate.L < Estimate.XL
    assert Estimate.XL >= Estimate.L
    assert sorted([Estimate.XL, Estimate.XS, Estimate.M]) == [Estimate.XS, Estimate.M, Estimate.XL]
    assert [e.points for e in Estimate] == [1, 2, 3, 4, 5]
    assert {e for e in Estimate if e.oversized} == OVERSIZED_ESTIMATES == {"M", "L", "XL"}


def test_priorities_sort_most_urgent_first():
    assert sorted([Priority.P2, Priority.P0, Priority.P3, Priority.P1]) == [
        Priority.P0,
        Priority.P1,
        Priority.P2,
        Priority.P3,
    ]


def test_parsing_is_exact_and_errors_list_the_valid_values():
    assert parse_state("Ready for Plan") is WorkflowState.READY_FOR_PLAN
    with pytest.raises(UnknownState, match="Valid states"):
        parse_state("ready for plan")
    assert parse_estimate("XL") is Estimate.XL
    with pytest.raises(InvalidInput, match="Valid estimates: XS, S, M, L, XL"):
        parse_estimate("XXL")
    assert parse_priority("P1") is Priority.P1
    with pytest.raises(InvalidInput, match="Valid priorities: P0, P1, P2, P3"):
        parse_priority("P4")
