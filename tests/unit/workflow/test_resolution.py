"""State resolution: the original's conformance cases (docs/compatibility.md) plus the commands
it rejected by mistake, and plan_transition, which also enforces the matrix."""

from __future__ import annotations

import pytest

from ralph.errors import InvalidTransition, StateResolutionError, UnknownCommand, WorkflowError
from ralph.workflow import COMMANDS, WorkflowState, plan_release, plan_transition, resolve_state

S = WorkflowState
ORIGINAL_COMMANDS = [
    "ralph_triage",
    "ralph_split",
    "ralph_research",
    "ralph_plan",
    "ralph_review",
    "ralph_impl",
    "ralph_hero",
    "ralph_merge",
]


@pytest.mark.parametrize(
    ("intent", "command", "expected"),
    [
        ("__LOCK__", "ralph_research", "Research in Progress"),
        ("__LOCK__", "ralph_plan", "Plan in Progress"),
        ("__LOCK__", "ralph_impl", "In Progress"),
        ("__LOCK__", "research", "Research in Progress"),
        ("__COMPLETE__", "ralph_research", "Ready for Plan"),
        ("__COMPLETE__", "ralph_plan", "Plan in Review"),
        ("__COMPLETE__", "ralph_impl", "In Review"),
        ("__COMPLETE__", "ralph_review", "In Progress"),
        ("__COMPLETE__", "ralph_split", "Backlog"),
        ("__COMPLETE__", "ralph_merge", "Done"),
        ("__COMPLETE__", "merge", "Done"),
    ],
)
def test_intents_resolve_per_command(intent, command, expected):
    resolution = resolve_state(intent, command)
    assert resolution.state == expected
    assert resolution.was_intent
    assert resolution.requested == intent
    assert resolution.command.startswith("ralph_")


@pytest.mark.parametrize("command", ["ralph_triage", "ralph_review", "ralph_hero", "ralph_merge"])
def test_lock_is_not_valid_for_commands_without_a_lock_state(command):
    with pytest.raises(StateResolutionError, match=f"not valid for {command}"):
        resolve_state("__LOCK__", command)


def test_complete_is_ambiguous_for_triage():
    with pytest.raises(StateResolutionError, match=r"ambiguous.*multiple output paths"):
        resolve_state("__COMPLETE__", "ralph_triage")


def test_complete_is_not_valid_for_hero():
    with pytest.raises(StateResolutionError, match="not valid for ralph_hero"):
        resolve_state("__COMPLETE__", "ralph_hero")


@pytest.mark.parametrize("command", ORIGINAL_COMMANDS)
@pytest.mark.parametrize(
    ("intent", "expected"),
    [("__ESCALATE__", "Human Needed"), ("__CLOSE__", "Done"), ("__CANCEL__", "Canceled")],
)
def test_wildcard_intents_resolve_for_every_command(command, intent, expected):
    assert resolve_state(intent, command).state == expected


def test_unknown_intent_is_refused():
    with pytest.raises(StateResolutionError, match=r"(?i)unknown semantic intent"):
        resolve_state("__FOOBAR__", "ralph_research")


@pytest.mark.parametrize(
    ("state", "command"),
    [
        ("Research Needed", "ralph_triage"),
        ("Ready for Plan", "ralph_triage"),
        ("Research in Progress", "ralph_research"),
        ("In Review", "ralph_impl"),
        ("Done", "ralph_merge"),
        ("Human Needed", "ralph_merge"),
    ],
)
def test_direct_states_valid_for_the_command_resolve_to_themselves(state, command):
    resolution = resolve_state(state, command)
    assert resolution.state == state
    assert not resolution.was_intent


@pytest.mark.parametrize(
    ("state", "command"),
    [
        ("Ready for Plan", "ralph_impl"),
        ("Done", "ralph_research"),
        ("In Review", "ralph_triage"),
        ("In Progress", "ralph_merge"),
    ],
)
def test_direct_states_not_valid_for_the_command_are_refused(state, command):
    with pytest.raises(StateResolutionError, match="is not a valid output for"):
        resolve_state(state, command)


def test_a_refused_direct_state_lists_the_intents_that_would_work():
    with pytest.raises(StateResolutionError) as info:
        resolve_state("Done", "ralph_research")
    message = str(info.value)
    assert "Valid direct states for ralph_research: Research in Progress, Ready for Plan" in message
    assert "__COMPLETE__ → Ready for Plan" in message
    assert "__CLOSE__" not in message  # Done is not a valid output for research


def test_unknown_command_is_refused_with_the_valid_commands():
    with pytest.raises(UnknownCommand, match=r"(?i)unknown command") as info:
        resolve_state("Done", "foo")
    assert "ralph_research" in str(info.value)
    assert info.value.command == "foo"


def test_an_unknown_command_with_a_line_break_is_refused_on_one_line():
    with pytest.raises(UnknownCommand) as info:
        resolve_state("Done", "x\n")
    assert "\n" not in str(info.value)
    assert 'Unknown command "x ".' in str(info.value)


@pytest.mark.parametrize("state", ["no such \n", "Done\r\nBacklog", "__NOPE\n__"])
def test_a_state_with_a_line_break_is_refused_on_one_line(state):
    with pytest.raises(WorkflowError) as info:
        resolve_state(state, "human")
    assert "\n" not in str(info.value)
    assert "\r" not in str(info.value)


@pytest.mark.parametrize(
    ("state", "command"),
    [
        ("__LOCK__", "foo"),
        ("__FOOBAR__", "research"),
        ("__LOCK__", "triage"),
        ("__COMPLETE__", "triage"),
        ("Done", "research"),
        ("Nope", "impl"),
    ],
)
def test_every_resolution_error_says_recovery(state, command):
    with pytest.raises(WorkflowError, match="Recovery"):
        resolve_state(state, command)


def test_the_interactive_commands_the_original_rejected_are_real_commands():
    assert resolve_state("__LOCK__", "create_plan").state == S.PLAN_IN_PROGRESS
    assert resolve_state("__COMPLETE__", "create_plan").state == S.PLAN_IN_REVIEW
    assert resolve_state("Plan in Review", "create_plan").state == S.PLAN_IN_REVIEW
    assert resolve_state("__LOCK__", "iterate_plan").state == S.PLAN_IN_PROGRESS
    assert resolve_state("In Progress", "implement_plan").state == S.IN_PROGRESS
    assert resolve_state("__COMPLETE__", "implement_plan").state == S.IN_REVIEW


def test_a_person_may_set_any_state_but_has_no_lock_or_complete_intent():
    for state in WorkflowState:
        assert resolve_state(state.value, "human").state == state
    assert resolve_state("Done", "cli").command == "ralph_human"
    with pytest.raises(StateResolutionError, match="not valid for ralph_human"):
        resolve_state("__LOCK__", "human")


def test_split_may_place_the_sub_issues_it_creates():
    for state in ("Backlog", "Research Needed", "Ready for Plan"):
        assert resolve_state(state, "split").state == state


def test_command_contracts_allow_their_lock_state_then_their_outputs():
    assert COMMANDS["ralph_research"].allowed_states == (
        S.RESEARCH_IN_PROGRESS,
        S.READY_FOR_PLAN,
        S.HUMAN_NEEDED,
    )
    assert COMMANDS["ralph_impl"].allowed_states == (
        S.IN_PROGRESS,
        S.IN_REVIEW,
        S.HUMAN_NEEDED,
        S.RESEARCH_NEEDED,  # a failed fast track, once
    )
    assert COMMANDS["ralph_triage"].allowed_states == (
        S.RESEARCH_NEEDED,
        S.READY_FOR_PLAN,
        S.DONE,
        S.CANCELED,
        S.HUMAN_NEEDED,
        S.IN_PROGRESS,  # the XS fast track
    )


def test_command_contracts_know_their_inputs():
    research = COMMANDS["ralph_research"]
    assert research.short_name == "research"
    assert research.accepts_state("Research Needed")
    assert not research.accepts_state("Backlog")
    assert research.accepts_estimate("XS")
    assert not research.accepts_estimate("M")
    assert COMMANDS["ralph_split"].accepts_estimate("XL")
    assert not COMMANDS["ralph_split"].accepts_estimate("S")
    assert COMMANDS["ralph_triage"].accepts_estimate(None)
    assert COMMANDS["ralph_plan"].requires_artifacts == ("research",)
    assert COMMANDS["ralph_research"].produces_artifacts == ("research",)


class TestPlanTransition:
    def test_a_valid_intent_from_the_right_state_is_a_change(self):
        transition = plan_transition("Research Needed", "__LOCK__", "research")
        assert transition.from_state == S.RESEARCH_NEEDED
        assert transition.to_state == S.RESEARCH_IN_PROGRESS
        assert transition.command == "ralph_research"
        assert transition.was_intent
        assert transition.changed

    def test_a_target_the_command_may_set_is_still_checked_against_the_matrix(self):
        with pytest.raises(InvalidTransition, match="Allowed from 'Backlog'"):
            plan_transition("Backlog", "__LOCK__", "research")

    def test_a_wildcard_intent_is_checked_against_the_matrix(self):
        with pytest.raises(InvalidTransition):
            plan_transition("Research Needed", "__CLOSE__", "research")
        assert plan_transition("Backlog", "__CLOSE__", "triage").to_state == S.DONE

    def test_asking_for_the_current_state_is_a_no_op(self):
        transition = plan_transition("In Progress", "__LOCK__", "impl")
        assert not transition.changed

    def test_an_issue_without_a_state_may_be_placed_anywhere_the_command_allows(self):
        transition = plan_transition(None, "Research Needed", "triage")
        assert transition.from_state is None
        assert transition.changed

    def test_the_review_rejects_a_plan_back_to_ready_for_plan(self):
        assert plan_transition("Plan in Review", "Ready for Plan", "review").changed

    def test_a_person_moves_along_any_allowed_edge_but_not_off_the_matrix(self):
        assert plan_transition("Human Needed", "Backlog", "human").changed
        with pytest.raises(InvalidTransition):
            plan_transition("Done", "Backlog", "human")


class TestPlanRelease:
    @pytest.mark.parametrize(
        ("current", "command", "back_to"),
        [
            ("Research in Progress", "ralph_research", "Research Needed"),
            ("Plan in Progress", "ralph_plan", "Ready for Plan"),
            ("Plan in Progress", "ralph_iterate_plan", "Ready for Plan"),
        ],
    )
    def test_a_lock_goes_back_to_the_state_it_was_taken_from(self, current, command, back_to):
        release = plan_release(current, command)
        assert release is not None
        assert (release.from_state, release.to_state) == (current, back_to)

    @pytest.mark.parametrize(
        ("current", "command"),
        [
            ("Research Needed", "ralph_research"),  # not locked
            ("In Progress", "ralph_impl"),  # the lock state is an input state
            ("Backlog", "ralph_triage"),  # triage has no lock state
        ],
    )
    def test_nothing_to_release(self, current, command):
        assert plan_release(current, command) is None
